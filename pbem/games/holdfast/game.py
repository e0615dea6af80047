"""The Holdfast Game object: the pbem.core.game.Game interface over this package's modules."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context, Decision, MarkerStyle, OptionSpec, Outcome, ReportModel
from pbem.games.holdfast import conditions
from pbem.games.holdfast.orders import HIT_MODES
from pbem.games.holdfast import actions, orders, sealed, sequence
from pbem.games.holdfast.data import world
from pbem.games.holdfast.options import OPTIONS, resolve_options
from pbem.games.holdfast.report import MARKER_STYLES, TITLE, build_report
from pbem.games.holdfast.scenario import SCENARIO_DIR, data_files, scenario_ids
from pbem.games.holdfast.standin import standin
from pbem.games.holdfast.state import HoldfastState
from pbem.games.holdfast.view import HoldfastView, build_view, secrets

if TYPE_CHECKING:   # an annotation only; the bots (and random) load when a bot plays
    import random

class HoldfastGame:
    """Holdfast: Tunisia 1942-43."""

    id = "holdfast"
    title = TITLE
    sides = ("allied", "axis")
    state_type = HoldfastState
    rules_version = "holdfast-engine-3"
    #: sealed mode: no replay at each reveal (docs/sealed.md 5d): the other side's moves are
    #: applied leniently (MP, leader and supply are hidden), so only the final replay can
    #: prove a hidden move illegal
    sealed_recheck = False

    def scenarios(self) -> dict[str, str]:
        """Scenario id -> title, for every scenario file shipped (re-read when a file changes)."""
        stamp = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size)
                      for p in sorted(SCENARIO_DIR.glob("*.toml")))
        cached = self.__dict__.get("_titles")
        if cached is None or cached[0] != stamp:
            cached = self.__dict__["_titles"] = (stamp, scenario_ids())
        return dict(cached[1])

    def data_files(self, scenario: str) -> list[Path]:
        """The TOML files a scenario reads (hashed into the genesis)."""
        return data_files(scenario)

    def options(self) -> dict[str, OptionSpec]:
        """The house options and their defaults."""
        return dict(OPTIONS)

    def setup(self, scenario: str, options: dict[str, Any]) -> HoldfastState:
        """The initial state: fixed Allied set-up, Axis set-up decision pending."""
        state = sequence.new_state(world(scenario), resolve_options(options))
        sealed.assign_slots(state)
        return state

    def pending(self, state: HoldfastState) -> list[Decision]:
        """Decisions the game waits for."""
        return sequence.pending(state)

    def parse_order(self, text: str) -> orders.Order:
        """Parse one order line (a sealed game's projection: 'seen ...')."""
        if "seen" in text and text.split(maxsplit=1)[:1] == ["seen"]:
            return sealed.parse_seen(text)
        return orders.parse_order(text)

    def format_order(self, order: orders.Order) -> str:
        """The canonical text of an order."""
        if isinstance(order, sealed.SEEN):
            return sealed.format_seen(order)
        return orders.format_order(order)

    def apply(self, state: HoldfastState, side: str, order: orders.Order, ctx: Context) -> None:
        """Check and apply one order, then run the automatic steps."""
        if isinstance(order, orders.MoveTo):
            raise IllegalOrder(orders.UNEXPANDED, rule="HF-9.1-b")
        w = world(state.public.scenario)
        if isinstance(order, sealed.SEEN):
            sealed.apply_seen(state, w, side, order, ctx)
        else:
            actions.apply(state, w, side, order, ctx)
        sealed.assign_slots(state)

    def expand_order(self, state: Any, side: str, order: orders.Order) -> orders.Order:
        """A destination-only move as the Move along its cheapest legal path; others as given."""
        if isinstance(order, orders.MoveTo):
            from pbem.games.holdfast.movement import expand

            return expand(state, world(state.public.scenario), side, order)
        return order

    def order_warning(self, state: HoldfastState, side: str, order: Any) -> str | None:
        """A warning for a legal order about to be applied (checked before signing), or None:
        a reinforcement placed where a unit of its side already stands (HF-8.1-f)."""
        pub = state.public
        if (not isinstance(order, orders.Place) or pub.phase == "setup" or pub.step != "place"
                or pub.active != side):
            return None
        from pbem.games.holdfast import reinforcement as rf

        w = world(pub.scenario)
        try:
            h = rf.check_place(state, w, side, order.unit, order.hex)
        except IllegalOrder:
            return None           # the check reports it as a problem instead
        return rf.overstack_warning(state, w, side, order.unit, h)

    def view(self, state: HoldfastState, side: str) -> HoldfastView:
        """What one side may know."""
        return build_view(state, world(state.public.scenario), side)

    def turn(self, state: HoldfastState) -> int:
        """The game turn number."""
        return state.public.turn

    def outcome(self, state: HoldfastState) -> Outcome | None:
        """The result once the game has ended."""
        r = state.public.result
        return None if r is None else Outcome(winner=r.winner, reason=r.reason)

    def secrets(self, state: HoldfastState, side: str) -> list[str]:
        """Names and ids of side's never-revealed units."""
        return secrets(state, world(state.public.scenario), side)

    def bot(self, state: HoldfastState, side: str, rng: random.Random,
            style: str = "random") -> list[str]:
        """Order lines for side's pending decision."""
        from pbem.games.holdfast import bot as bots

        return bots.play(state, world(state.public.scenario), side, rng, style)

    def parse_condition(self, text: str) -> str:
        """A guarded order's condition (HEX clear, HEX held, UNIT alive), canonical."""
        return conditions.parse_condition(text)

    def public_condition(self, text: str) -> bool:
        """A sealed game may send a guard on a hex (block places are public), never on a unit
        (`UNIT alive` names a block the other side knows only by its slot)."""
        return not text.endswith(" alive")

    def condition(self, view: HoldfastView, side: str, text: str) -> bool:
        """Evaluate a condition on side's own view."""
        return conditions.condition(view, side, text)

    def standing_topics(self) -> dict[str, tuple[str, ...]]:
        """Core standing orders: 'standing hits MODE' allocates the defender's hits (HF-G7)."""
        return {"hits": HIT_MODES}

    def standing_store(self, state: HoldfastState, side: str) -> dict[str, str]:
        """Side's standing orders, kept in its hidden state."""
        return state.private[side].standing

    def standin(self, view: HoldfastView | dict[str, Any], side: str) -> HoldfastState:
        """A full state from side's view: enemy blocks become generic stand-in blocks."""
        return standin(view, side)

    # -- sealed mode (pbem/games/holdfast/sealed.py, docs/sealed.md) --------------------------
    def facts(self, state: HoldfastState, side: str) -> dict[str, Any]:
        """side's hidden facts: unit and strength of each of its block slots on the map."""
        return sealed.facts(state, side)

    def required_facts(self, state: HoldfastState, side: str) -> set[str]:
        """The names of side's facts that exist in any state (its block slots on the map)."""
        return sealed.required_facts(state, side)

    def conceal(self, state: HoldfastState, side: str) -> HoldfastState:
        """side's knowledge state: the other side's blocks as stand-ins by slot."""
        return sealed.conceal(state, side)

    def project(self, state: HoldfastState, side: str, order: Any) -> str:
        """The order as the other side sees it ('seen ...' over block slots)."""
        return sealed.project(state, side, order)

    def sealed_canonical(self, state: HoldfastState, side: str, lines: list[str],
                         secret: bytes = b"") -> list[str]:
        """A sealed file's lines with each run of placements in a canonical order of the set
        (hex order as far as the rules allow: the order written would tell which unit is
        which block); secret orders units placed in one hex."""
        return sealed.canonical_lines(self, state, side, lines, secret)

    def reveals(self, state: HoldfastState, side: str, order: Any) -> list[tuple[str, str]]:
        """The slot facts an order opens (an attack: its blocks and the defender)."""
        return sealed.reveals(state, side, order)

    def returns_when_held(self, order: Any) -> bool:
        """Sealed: an attack held behind the other side's answer goes back to its writer: it
        would resume inside the defender's own file, which cannot open the defender's block."""
        return isinstance(order, (orders.Attack, sealed.SeenAttack))

    def check_before_reveal(self, state: HoldfastState, side: str, order: Any) -> None:
        """Sealed: an attack illegal whatever the blocks it would open is refused before it
        opens any (IllegalOrder), on the writer's processor as on the receiver's."""
        if isinstance(order, orders.Attack):
            from pbem.games.holdfast import combat

            combat.check_attack(state, world(state.public.scenario), side, order)

    def disclose(self, state: HoldfastState, owner: str, facts: dict[str, Any]) -> None:
        """Write opened slot facts of owner into a knowledge state."""
        sealed.disclose(state, owner, facts)

    def hidden_legality(self, order: Any) -> bool:
        """True for an order only its writer's processor can check (a block's MP, its type's
        steps and entry hexes are hidden): placing, buying, rebuilding, moving, real or seen."""
        return sealed.hidden_legality(order)

    def public(self, state: HoldfastState) -> dict[str, Any]:
        """What both sides know (blocks by slot and hex)."""
        return sealed.public(state)

    def fixed_fact(self, fact: str) -> bool:
        """True for a hidden fact that never changes (a slot's unit; its strength does)."""
        return fact.endswith(".unit")

    def standing_answers(self, state: HoldfastState, side: str,
                         decision: Any) -> list[str] | None:
        """The allocation side's standing 'hits' order gives (sealed mode)."""
        return sealed.standing_answers(state, side, decision)

    def report(self, state: HoldfastState, side: str) -> ReportModel:
        """The report model of one side."""
        return build_report(state, world(state.public.scenario), side)

    def marker_styles(self) -> dict[str, MarkerStyle]:
        """The marker kinds this game draws on the report map, and their styles."""
        return dict(MARKER_STYLES)

    def game_map(self, scenario: str) -> Any:
        """The scenario's GameMap."""
        return world(scenario).map


GAME = HoldfastGame()
