"""The Kasserine Game object: the pbem.core.game.Game interface over this package's modules."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.core.errors import IllegalOrder, ScenarioError
from pbem.core.game import Context, Decision, MarkerStyle, OptionSpec, Outcome, ReportModel
from pbem.games.kasserine import conditions
from pbem.games.kasserine.orders import STANDING_TOPICS, standing_mode
from pbem.games.kasserine import actions, orders, sealed, sequence
from pbem.games.kasserine.board import data_of
from pbem.games.kasserine.options import OPTIONS, resolve_options
from pbem.games.kasserine.report import MARKER_STYLES, TITLE, build_report
from pbem.games.kasserine.scenario import data_files, load_kasserine, scenario_ids
from pbem.games.kasserine.standin import standin
from pbem.games.kasserine.state import KasserineState
from pbem.games.kasserine.view import KasserineView, build_view, secrets

if TYPE_CHECKING:   # an annotation only; the bots (and random) load when a bot plays
    import random

_TITLES: dict[str, str] = {}


class KasserineGame:
    """Kasserine: Baptism of Fire (Fire & Movement system), February 1943."""

    id = "kasserine"
    title = TITLE
    sides = ("axis", "us")
    state_type = KasserineState
    rules_version = "kasserine-engine-6"

    def scenarios(self) -> dict[str, str]:
        """Scenario id -> title (read once per process)."""
        if not _TITLES:
            _TITLES.update({s: load_kasserine(s).scenario.title for s in scenario_ids()})
        return dict(_TITLES)

    def data_files(self, scenario: str) -> list[Path]:
        """The TOML files a scenario reads."""
        return list(data_files(scenario).values())

    def options(self) -> dict[str, OptionSpec]:
        """The house options and their defaults."""
        return dict(OPTIONS)

    def setup(self, scenario: str, options: dict[str, Any]) -> KasserineState:
        """The initial state, settled at the Axis turn 1 Movement Phase (no dice)."""
        if scenario not in scenario_ids():
            raise ScenarioError(f"unknown Kasserine scenario {scenario!r}")
        opts = resolve_options(options)
        data = load_kasserine(scenario, sbeitla_hex=opts.sbeitla_hex)
        return sequence.new_state(scenario, data, opts)

    def pending(self, state: KasserineState) -> list[Decision]:
        """Decisions the game waits for."""
        return sequence.pending(state)

    def parse_order(self, text: str) -> orders.Order:
        """Parse one order line."""
        return orders.parse_order(text)

    def format_order(self, order: orders.Order) -> str:
        """The canonical text of an order."""
        return orders.format_order(order)

    def apply(self, state: KasserineState, side: str, order: orders.Order, ctx: Context) -> None:
        """Check and apply one order, then run the automatic steps."""
        if isinstance(order, (orders.MoveTo, orders.EnterTo)):
            raise IllegalOrder(orders.UNEXPANDED, rule="KAS-5.1-a")
        actions.apply(state, data_of(state), side, order, ctx)

    def expand_order(self, state: Any, side: str, order: orders.Order) -> orders.Order:
        """A destination-only move (or arrival) as the Move (Enter) along its cheapest legal
        path; others as given."""
        if isinstance(order, (orders.MoveTo, orders.EnterTo)):
            from pbem.games.kasserine.movement import expand

            return expand(state, data_of(state), side, order)
        return order

    def view(self, state: KasserineState, side: str) -> KasserineView:
        """What one side may know."""
        return build_view(state, side)

    def turn(self, state: KasserineState) -> int:
        """The current game turn."""
        return state.turn

    def outcome(self, state: KasserineState) -> Outcome | None:
        """The result once the game has ended."""
        r = state.result
        return None if r is None else Outcome(winner=r.winner, reason=r.reason)

    def secrets(self, state: KasserineState, side: str) -> list[str]:
        """Ids of side's unrevealed support fire markers."""
        return secrets(state, side)

    def bot(self, state: KasserineState, side: str, rng: random.Random,
            style: str = "random") -> list[str]:
        """Order lines for side's pending decision."""
        from pbem.games.kasserine import bot as bots

        return bots.play(state, side, rng, style)

    def parse_condition(self, text: str) -> str:
        """A guarded order's condition (HEX clear, HEX held, UNIT alive), canonical."""
        return conditions.parse_condition(text)

    def public_condition(self, text: str) -> bool:
        """Every condition reads only face-up counters, so a sealed game may send any guard."""
        return True

    def condition(self, view: KasserineView, side: str, text: str) -> bool:
        """Evaluate a condition on side's own view."""
        return conditions.condition(view, side, text)

    def standing_topics(self) -> dict[str, tuple[str, ...]]:
        """Core standing orders: support, stiff, retreat, box and displace answers (8.2-8.4, 14.3)."""
        return dict(STANDING_TOPICS)

    def standing_store(self, state: KasserineState, side: str) -> dict[str, str]:
        """Side's standing orders, kept in its hidden state."""
        return state.private[side].standing

    def standing_mode(self, topic: str, words: list[str]) -> str:
        """Modes with more words: 'support MODE min D'."""
        return standing_mode(topic, words)

    def standin(self, view: KasserineView | dict[str, Any], side: str) -> KasserineState:
        """A full state from side's view: the enemy's markers and standing orders stand in."""
        return standin(view, side)

    def report(self, state: KasserineState, side: str) -> ReportModel:
        """The report model of one side."""
        return build_report(state, side)

    def marker_styles(self) -> dict[str, MarkerStyle]:
        """The marker kinds this game draws on the report map, and their styles."""
        return dict(MARKER_STYLES)

    def game_map(self, scenario: str) -> Any:
        """The scenario's GameMap."""
        return load_kasserine(scenario).map

    # -- sealed mode (pbem.core.sealed; this package's sealed.py) --------------------------
    def sealed_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The house options of a sealed game (face-down markers drawn at the reveal)."""
        return sealed.sealed_options(options)

    def facts(self, state: KasserineState, side: str) -> dict[str, Any]:
        """side's hidden facts the game keeps (none: standing orders are the core's)."""
        return sealed.facts(state, side)

    def fixed_fact(self, fact: str) -> bool:
        """None of Kasserine's hidden facts is fixed (its only ones are standing orders, kept
        by the core): each is committed again in every file, so that the versions never say
        that a standing order changed."""
        return False

    def conceal(self, state: KasserineState, side: str) -> KasserineState:
        """side's knowledge state of a sealed game."""
        return sealed.conceal(state, side)

    def project(self, state: KasserineState, side: str, order: Any) -> str:
        """The order as the other side of a sealed game sees it."""
        return sealed.project(state, side, order)

    def reveals(self, state: KasserineState, side: str, order: Any) -> list[tuple[str, str]]:
        """The facts an order's resolution opens (none)."""
        return sealed.reveals(state, side, order)

    def disclose(self, state: KasserineState, owner: str, facts: dict[str, Any]) -> None:
        """Write opened facts of owner into a knowledge state (none to write)."""
        sealed.disclose(state, owner, facts)

    def public(self, state: KasserineState) -> dict[str, Any]:
        """What both sides of a sealed game know."""
        return sealed.public(state)

    def standing_answers(self, state: KasserineState, side: str,
                         decision: Decision) -> list[str] | None:
        """The lines side's standing orders give for the decision pending on it, or None."""
        return sealed.standing_answers(state, side, decision)


GAME = KasserineGame()
