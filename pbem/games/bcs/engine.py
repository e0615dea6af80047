"""The Baptism By Fire rules engine as the Game object (pbem.core.game.Game), registered as
``bcs`` (pbem.games.bcs.GAME is ``ENGINE``); scenario 5.2 is playable (docs/bcs-engine.md).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pbem.core.errors import IllegalOrder, ScenarioError
from pbem.core.game import (UNEXPANDED_MOVE, Context, Decision, MarkerStyle, OptionSpec,
                            Outcome, PrivateDraw, ReportModel)
from pbem.core.mapdata import GameMap
from pbem.core.options import resolve
from pbem.core.privatedraw import REVEAL_KIND
from pbem.core.standing import (StandingOrder, answer, format_standing, is_standing,
                                parse_standing, set_standing)
from pbem.games.bcs import (actions, assignment, conditions, objective, orders, reactions,
                            replacements, sealed, sequence, setupphase)
from pbem.games.bcs import bot as bots
from pbem.games.bcs.board import bdata
from pbem.games.bcs.info import PLAYABLE
from pbem.games.bcs.options import OPTIONS, stored
from pbem.games.bcs.report import MARKER_STYLES, build_report
from pbem.games.bcs.setup import new_state
from pbem.games.bcs.standin import standin
from pbem.games.bcs.state import SIDES, BcsState
from pbem.games.bcs.view import BcsView, build_view, secrets



class BcsEngine:
    """Baptism By Fire (Battalion Combat Series v1.2), the rules engine so far."""

    id = "bcs"
    title = "Baptism By Fire (BCS)"
    aliases = ("bbf", "baptism-by-fire")
    sides = ("allied", "axis")
    state_type = BcsState
    rules_version = "bcs-engine-8"   # bump whenever the rules change (pinned in every genesis)

    def scenarios(self) -> dict[str, str]:
        """The scenarios the engine plays (5.2 so far)."""
        return {s: bdata().scenarios[s].title for s in PLAYABLE}

    def data_files(self, scenario: str) -> list[Path]:
        """The TOML files a scenario reads."""
        root = bdata().root
        return [root / f for f in ("counters.toml", "tec.toml", "map.toml", "charts.toml",
                                   "ooa.toml", "amendments.toml")] + \
            [root / "scenarios" / f"{scenario}.toml"]

    def options(self) -> dict[str, OptionSpec]:
        """The house options (one per BbF gap)."""
        return dict(OPTIONS)

    def setup(self, scenario: str, options: dict[str, Any]) -> BcsState:
        """The initial state, at the first player's first Activation (no dice)."""
        if scenario not in PLAYABLE:
            raise ScenarioError(f"Baptism By Fire scenario {scenario!r} is not playable yet "
                                f"(the engine plays {', '.join(PLAYABLE)})")
        state = new_state(scenario, stored(resolve(OPTIONS, options, error=ScenarioError)))
        if state.sealed:                               # (new_state reads sealed_game)
            sealed.assign_slots(state)
        return state

    def pending(self, state: BcsState) -> list[Decision]:
        """Who must decide what."""
        return objective.pending(state) or sequence.pending(state)

    def parse_order(self, text: str) -> orders.Order | StandingOrder:
        """Parse one order line (a standing order in the core notation too)."""
        if is_standing(text):
            return parse_standing(text, self.standing_topics())
        if sealed.OPENS in text or sealed.ARRIVALS in text:   # a sealed projection (sealed.py)
            return sealed.parse_revealing(text, self.parse_order)
        if text.split()[:2] == sealed.SEEN_REPLS.split():
            return sealed.parse_seen(text)
        if text.split() == assignment.SEEN_ARTY.split():    # sealed: an Arty order's projection
            return assignment.SeenArty()
        if text.split()[:1] == ["exit"]:              # BbF 4.0 (objective.py)
            return objective.parse_exit(text)
        if text.split()[:1] == ["open"]:              # BbF 4.0, sealed games (objective.py)
            return objective.parse_open(text)
        return orders.parse_order(text)

    def format_order(self, order: orders.Order | StandingOrder) -> str:
        """The canonical text of an order."""
        if isinstance(order, StandingOrder):
            return format_standing(order)
        if isinstance(order, sealed.Revealing):
            return sealed.format_revealing(order, self.format_order)
        if isinstance(order, orders.Answer) and order.mode.startswith(replacements.SEEN):
            return sealed.format_seen(order)
        if isinstance(order, objective.Exit):
            return objective.format_exit(order)
        if isinstance(order, objective.OpenObjective):
            return objective.OPEN
        if isinstance(order, assignment.SeenArty):
            return assignment.SEEN_ARTY
        return orders.format_order(order)

    def apply(self, state: BcsState, side: str, order: orders.Order | StandingOrder,
              ctx: Context) -> None:
        """Check and apply one order, then run the automatic steps (a standing order: set in
        the side's store, never refused)."""
        if isinstance(order, StandingOrder):
            set_standing(state.private[side].standing, order)
            return
        if isinstance(order, orders.MoveTo):
            raise IllegalOrder(UNEXPANDED_MOVE, rule="BCS-5.1-1")
        seen: list[str] = []
        if state.sealed:                               # the units its reveals name
            seen = sealed.opened_units(state, side, order)
        arrivals = sealed.arrivals_of(order)           # of the units it brings on unseen
        if isinstance(order, sealed.Revealing):       # what it opens was written in before
            if not state.sealed:
                raise IllegalOrder("'... opens ...' is a sealed game's projection",
                                   rule=sealed.SEALED_RULE)
            order = order.order
        ins: list[str] = []
        before = sealed.pool_snapshot(state, side, order) if state.sealed else None
        try:
            if state.sealed:                           # slot tokens -> this state's pieces
                sealed.take_from_pool(state, side, order, arrivals)
                order = sealed.resolve_slots(state, order)
                ins = sealed.from_off_map(state, side, order)
            if isinstance(order, objective.Exit):          # BbF 4.0 (objective.py)
                objective.exit_order(state, side, order, ctx)
            elif isinstance(order, objective.OpenObjective):
                objective.open_order(state, side, ctx)
            elif isinstance(order, assignment.SeenArty):   # sealed: the other side's Arty
                assignment.seen_arty(state, side, ctx)
            else:
                actions.apply(state, side, order, ctx)
        except IllegalOrder:
            sealed.pool_restore(state, before)         # a refused order took nothing
            raise
        objective.maybe_draw(state, side, ctx)         # BBF-4.0-a: at his first order of 19 Feb
        if state.sealed:
            sealed.assign_slots(state)
            if state.concealed:
                sealed.rebase_standins(state)
            sealed.mark_seen(state, seen + sealed.named_entering(state, side, ins, order))

    def view(self, state: BcsState, side: str) -> BcsView:
        """What one side may know."""
        return build_view(state, side)

    def turn(self, state: BcsState) -> int:
        """The current game turn."""
        return state.turn

    def outcome(self, state: BcsState) -> Outcome | None:
        """The result once the game has ended."""
        r = state.result
        return None if r is None else Outcome(winner=r.winner, reason=r.reason)

    def expand_order(self, state: BcsState, side: str, order: Any) -> Any:
        """A destination-only move as the Move along its cheapest legal path; others as given."""
        if isinstance(order, orders.MoveTo):
            from pbem.games.bcs.pathfind import expand

            return expand(state, side, order)
        return order

    def secrets(self, state: BcsState, side: str) -> list[str]:
        """Ids of side's units hidden under the top unit of their stacks, never named publicly."""
        return secrets(state, side)

    def standing_topics(self) -> dict[str, tuple[str, ...]]:
        """The defender's choices that standing orders answer (combat.STANDING), and whether a
        side is asked in the Assignment Phase (assignment.STANDING) and in the Set-up decision
        (setupphase.STANDING); the owner's own topics (reactions.OWN_TOPICS) with them."""
        return {**reactions.topics(), **assignment.STANDING, **setupphase.STANDING}

    def standing_store(self, state: BcsState, side: str) -> dict[str, str]:
        """A side's standing orders, in its private part."""
        return state.private[side].standing

    def parse_condition(self, text: str) -> str:
        """A guarded order's condition (snafu RESULT, second activation, HEX clear ...)."""
        return conditions.parse_condition(text)

    def condition(self, view: BcsView, side: str, text: str) -> bool:
        """Evaluate a condition on side's own view."""
        return conditions.condition(view, side, text)

    def fixed_fact(self, fact: str) -> bool:
        """True for a hidden fact that never changes: the unit of a slot (its face, Formation,
        steps and the side's other facts do change, sealed.py)."""
        return fact.endswith(".unit") and not fact.startswith(tuple(f"{s}." for s in SIDES))

    def public_condition(self, text: str) -> bool:
        """Whether both processors of a sealed game read a condition alike (conditions.py)."""
        return conditions.public(text)

    def standin(self, view: BcsView | dict[str, Any], side: str) -> BcsState:
        """A full state from side's view alone (hosted checking)."""
        return standin(view, side)

    def report(self, state: BcsState, side: str) -> ReportModel:
        """The report model of one side."""
        return build_report(state, side)

    def marker_styles(self) -> dict[str, MarkerStyle]:
        """The marker kinds this game draws on the report map, and their styles."""
        return dict(MARKER_STYLES)

    def game_map(self, scenario: str) -> GameMap:
        """The scenario's map (both sheets)."""
        return bdata().game_map

    def bot(self, state: BcsState, side: str, rng: random.Random,
            style: str = "random") -> list[str]:
        """Order lines for side's pending decision: random legal play, or the heuristic bot
        (style "heuristic"); both set their standing orders first."""
        return bots.play(state, side, rng, style)


    # -- BbF 4.0: the Axis's secretly drawn Victory Objective (pbem.core.privatedraw) --------
    def private_draw_owners(self, scenario: str) -> tuple[str, ...]:
        """The sides that draw in secret in a scenario: the Axis where it draws (BbF 4.0)."""
        return ("axis",) if bdata().scenarios[scenario].draw_objective else ()

    def private_draws(self, state: BcsState) -> list[PrivateDraw]:
        """The public records of the secret draws made."""
        return objective.private_draws(state)

    def draws_due(self, state: BcsState) -> set[str]:
        """The sides whose secret draws the rules need opened now."""
        return objective.due(state)

    def disclose_draws(self, state: BcsState, owner: str, values: dict[str, int],
                       public: bool) -> list[str]:
        """Write opened (or, for the owner's reports, known) draws into a state."""
        return objective.disclose(state, owner, values, public)

    # -- sealed mode (sealed.py, docs/sealed.md 5h) ----------------------------------------
    #: Offered (docs/sealed.md 5h, "What the port still leaves open" lists what is not exact)
    sealed_ready = True
    #: no replay at each reveal (docs/sealed.md 5h): a knowledge state walks a hidden unit as
    #: a stand-in (a pool unit or a copy of a top, its class, MA and MP spent a guess), so
    #: knowing its identity from the file that committed it, without the MP it really spent,
    #: made an honest later move look illegal (5.4, session 23); the final replay alone proves
    #: hidden moves, as in Holdfast
    sealed_recheck = False
    #: the option that marks a sealed game: in every sealed proposal, in no other (genesis.py)
    sealed_only_options = {"sealed_game": True}

    def sealed_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The house options of a sealed game: sealed_game = true (set by pbem itself)."""
        return {**options, **self.sealed_only_options}

    def facts(self, state: BcsState, side: str) -> dict[str, Any]:
        """side's hidden facts (in a knowledge state of the other side, those opened)."""
        return sealed.facts(state, side)

    def required_facts(self, state: BcsState, side: str) -> set[str]:
        """The names of side's facts that exist in any state (its units' steps, by slot)."""
        return sealed.required_facts(state, side)

    def conceal(self, state: BcsState, side: str) -> BcsState:
        """side's knowledge state: the other side's hidden facts as stand-ins."""
        return sealed.conceal(state, side)

    def project(self, state: BcsState, side: str, order: Any) -> str:
        """The order as the other side sees it (side's units by slot; an Arty Asset Points
        order as 'seen arty')."""
        return sealed.project(state, side, order)

    def reveals(self, state: BcsState, side: str, order: Any) -> list[tuple[str, str]]:
        """The facts the order's resolution opens."""
        return sealed.reveals(state, side, order)

    def disclose(self, state: BcsState, owner: str, opened: dict[str, Any]) -> None:
        """Write opened facts of owner into a knowledge state."""
        sealed.disclose(state, owner, opened)

    def public(self, state: BcsState) -> dict[str, Any]:
        """What both sides know (hashed in a sealed file's results)."""
        return sealed.public(state)

    def hidden_legality(self, order: Any) -> bool:
        """Sealed mode: whether an order goes back to its writer after dice (sealed.py)."""
        return sealed.hidden_legality(order)

    def check_held(self, state: BcsState, side: str, order: Any) -> None:
        """IllegalOrder for an order side's file would hold behind another side's decision that
        only side's own later orders could make answerable: 'second' or 'done' (BCS-3.5a-2)."""
        if isinstance(order, orders.Second):
            waits = sorted({d.side for d in self.pending(state)} - {side})
            sequence.refuse_held(waits, order.attempt)

    def hidden_parts(self, state: BcsState, side: str, order: Any) -> list[Any]:
        """Hosted mode: what is left of an order a hidden fact stops, longest first: a move's
        path cut short, so that the stack goes as far as it may and stops where the hidden unit
        stops it (6.0g), as at a table; nothing for any other order."""
        if not isinstance(order, orders.Move):
            return []
        return [orders.Move(units=list(order.units), path=order.path[:k])
                for k in range(len(order.path) - 1, 0, -1)]

    def standing_answers(self, state: BcsState, side: str,
                         decision: Decision) -> list[str] | None:
        """Sealed games: the answer side's standing orders (the store of this trial state) give
        to the question waiting on it; the Axis's processor opens his Victory Objective when
        the game waits for it."""
        if state.sealed and side == "axis" and decision.kind == REVEAL_KIND:
            return [objective.OPEN]
        if state.sealed and decision.kind == "assignment":     # asked every phase (assignment)
            return assignment.sealed_answer(state, side)
        w = state.wait
        if w is None or w.side != side:
            return None
        if state.sealed and w.topic == "repls" and replacements.no_choice(w.subject):
            return ["answer repls priority"]      # no choice: every answer gives the same
        mode = answer(state.private[side].standing, w.topic)
        return None if mode is None else [f"answer {w.topic} {mode}"]


ENGINE = BcsEngine()
