"""BbF 4.0: the Axis's secretly drawn Victory Objective, its exit locations and the exit victory.

The draw (BBF-4.0-a) is a private draw of the core (pbem.core.privatedraw): at the Axis's first
order on or after the draw turn (19 Feb) the Axis draws one of two markers, Tebessa or Le Kef
(a d2, 1 Tebessa). A referee's state (hosted mode) and a rule case hold the value in the Axis's
private part; in peer mode no replicated state holds it: only the Axis's processor derives it,
his reports show it, and his file opens it when the rules need it (an exit victory to check,
the end of the game). The public state holds the draw's public record and, once opened, the
objective. In a sealed game (docs/sealed.md 5a) the draw is a roll of the Axis's private class:
his processor's state holds the value, the Allied one's does not, so there the rules read only
the opened objective, and the result waits for his opening as in peer mode.

Exits (BBF-4.0-b, -c; ERR-BCS-1.0-2, -6): an Axis combat unit of the active Formation standing in
an exit hex (a hex of Entry Area A for Tebessa, B or C for Le Kef, 5.4: B only; or a map-edge
hex next to one) leaves the map with `exit UNIT`, in Command Radius with its Combat Trains Legal.
The Axis wins at once when every available Tac MA Axis unit has left through his objective's
exit hexes; HQs and Combat Trains never count.
"""

from __future__ import annotations

import msgspec

from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.game import Context, Decision, PrivateDraw
from pbem.core.privatedraw import REVEAL_KIND
from pbem.games.bcs.board import bdata, edge_hexes, on_area
from pbem.games.bcs.state import BcsState, Result

OBJECTIVES = ("tebessa", "lekef")          # the d2: 1 Tebessa, 2 Le Kef
NAMES = {"tebessa": "Tebessa", "lekef": "Le Kef"}
EXIT_AREAS = {"tebessa": ("A",), "lekef": ("B", "C")}
DRAW_DATE = "19 Feb 43"
PURPOSE = "Axis Victory Objective (BBF-4.0-a)"
NAME = "objective"


class Exit(msgspec.Struct, frozen=True, tag="exit"):
    """`exit UNIT`: an Axis unit leaves the map through an exit hex (BbF 4.0)."""

    unit: str


class OpenObjective(msgspec.Struct, frozen=True, tag="open-objective"):
    """`open objective`: in a sealed game, the Axis opens his Victory Objective when the rules
    need it (the end of the game, an exit victory to check); his processor writes it."""


OPEN = "open objective"


def parse_open(text: str) -> OpenObjective:
    """Parse 'open objective'."""
    if text.split() != OPEN.split():
        raise OrderSyntaxError(f"expected {OPEN!r}", rule="BBF-4.0-a")
    return OpenObjective()


def parse_exit(text: str) -> Exit:
    """Parse 'exit UNIT'."""
    w = text.split()
    if len(w) != 2 or w[0] != "exit":
        raise OrderSyntaxError("expected 'exit UNIT'", rule="BBF-4.0-c")
    return Exit(unit=w[1].lower())


def format_exit(order: Exit) -> str:
    """The canonical text of an exit."""
    return f"exit {order.unit}"


def draw_turn(state: BcsState) -> int:
    """The turn at whose start the Axis draws (0: no draw in this game)."""
    return state.objective_turn


def initial_turn(scenario: str, dates: list[str]) -> int:
    """The draw turn of a scenario: its 19 Feb turn where it draws an objective (BbF 4.0)."""
    s = bdata().scenarios[scenario]
    if not s.draw_objective:
        return 0
    return dates.index(DRAW_DATE) + 1 if DRAW_DATE in dates else 1


def known(state: BcsState) -> str:
    """The objective the rules may read in this state: opened, or in a referee's state the
    Axis's own ("" if unknown)."""
    if opened_only(state):
        return state.objective
    return state.objective or state.private["axis"].objective


def opened_only(state: BcsState) -> bool:
    """True in a sealed game: only the Axis's processor holds his own objective, so the rules
    read only the opened one, on both processors and in the final replay alike (docs/sealed.md
    5a, 5h)."""
    return state.sealed


def maybe_draw(state: BcsState, side: str, ctx: Context) -> None:
    """BBF-4.0-a: the Axis draws his Victory Objective at his first order of the draw turn."""
    t = draw_turn(state)
    if side != "axis" or not t or state.turn < t or state.objective_draw is not None:
        return
    rec, value = ctx.private_draw(len(OBJECTIVES), PURPOSE, owner="axis", name=NAME)
    state.objective_draw = rec
    ctx.log("The Axis draws his Victory Objective marker and keeps it face down (BBF-4.0-a)",
            kind="draw")
    if value:
        state.private["axis"].objective = OBJECTIVES[value - 1]
        ctx.log(f"Your Victory Objective: {NAMES[OBJECTIVES[value - 1]]} (BBF-4.0-a)",
                visible_to="axis", kind="draw")


def private_draws(state: BcsState) -> list[PrivateDraw]:
    """The private draws this state records (the core computes their values)."""
    return [state.objective_draw] if state.objective_draw is not None else []


def exit_hexes(state: BcsState, objective: str) -> set[str]:
    """BBF-4.0-b, ERR-BCS-1.0-6: the Entry Area hexes of the objective's exit locations and the
    map-edge hexes next to them, in the playing area."""
    areas = EXIT_AREAS[objective]
    v = bdata().scenarios[state.scenario].victory
    if objective == "lekef" and v.lekef_exit_areas:
        areas = tuple(v.lekef_exit_areas)
    gm = bdata().game_map
    out: set[str] = set()
    for a in areas:
        for h in gm.hexsets.get(f"entry-{a}", []):
            if on_area(state, h):
                out.add(h)
                out.update(edge_hexes(state, h, 1))
    return out


def tac_units(state: BcsState) -> list[str]:
    """ERR-BCS-1.0-2: the available Tac MA Axis units (combat units only: never an HQ or Combat
    Trains), on the map or already exited."""
    out = []
    for p in state.pieces.values():
        if p.side != "axis" or p.kind != "unit" or p.status not in ("map", "exited"):
            continue
        f = bdata().units[p.id].move
        if f.mclass == "tac":
            out.append(p.id)
    return sorted(out)


def exits_met(state: BcsState, objective: str) -> bool:
    """BBF-4.0-c: every available Tac MA Axis unit has exited through the objective's hexes."""
    tac = tac_units(state)
    if not tac or any(u not in state.exits for u in tac):
        return False
    hexes = exit_hexes(state, objective)
    return all(state.exits[u] in hexes for u in tac)


def due(state: BcsState) -> set[str]:
    """Whose private draws the rules need opened now: the Axis's, at the end of the game or when
    his exits meet either objective's condition, while the state does not know it."""
    if state.objective_draw is None or known(state):
        return set()
    if state.phase == "over" or any(exits_met(state, o) for o in OBJECTIVES):
        return {"axis"}
    return set()


def pending(state: BcsState) -> list[Decision]:
    """The game waits for the Axis's opening at its end (peer mode: his processor's 'draws
    reveal'), and in a sealed game also when his exits may have won (his order 'open
    objective', which his processor writes)."""
    if state.result is None and (state.phase == "over" or state.sealed) and due(state):
        why = "the game's result" if state.phase == "over" else "the exit victory (4.0-c)"
        return [Decision(side="axis", kind=REVEAL_KIND,
                         prompt=f"open the Victory Objective drawn on 19 Feb (his "
                                f"processor writes it): {why} needs it (BbF 4.0)")]
    return []


def open_order(state: BcsState, side: str, ctx: Context) -> None:
    """`open objective` (sealed games): the Axis's objective, opened by his own file, becomes
    public and settles what waited for it. IllegalOrder unless the rules need it now."""
    own = state.private["axis"].objective if "axis" in state.private else ""
    if not state.sealed:
        raise IllegalOrder("'open objective' is for sealed games: in peer mode the Axis's "
                           "processor opens the draw itself ('draws reveal')", rule="BBF-4.0-a")
    if side != "axis" or "axis" not in due(state):
        raise IllegalOrder("the rules do not need the Axis's Victory Objective opened now "
                           "(the end of the game, or exits that may have won)", rule="BBF-4.0-a")
    if own not in OBJECTIVES:
        raise IllegalOrder("this state does not hold the Axis's Victory Objective",
                           rule="BBF-4.0-a")
    state.objective = own
    ctx.log(f"The Axis reveals his Victory Objective: {NAMES[own]} (BbF 4.0)", kind="draw")
    settle(state)
    if state.result is not None:
        ctx.log(f"Result: {state.result.reason}")


def disclose(state: BcsState, owner: str, values: dict[str, int], public: bool) -> list[str]:
    """Write the opened objective into the state (public) or the Axis's own part (his reports);
    the public event texts. An opening decides the exit victory and the end of the game."""
    if owner != "axis" or NAME not in values or not 1 <= values[NAME] <= len(OBJECTIVES):
        return []
    obj = OBJECTIVES[values[NAME] - 1]
    state.private["axis"].objective = obj
    if not public:
        return []
    state.objective = obj
    out = [f"The Axis reveals his Victory Objective: {NAMES[obj]} (BbF 4.0)"]
    settle(state)
    if state.result is not None:
        out.append(f"Result: {state.result.reason}")
    return out


def settle(state: BcsState) -> None:
    """The exit victory (BBF-4.0-c) and, once the game is over, its result (victory.py)."""
    obj = known(state)
    if not obj or state.result is not None:
        return
    if exits_met(state, obj):
        state.phase, state.result = "over", Result(
            winner="axis", reason=f"the Axis exited every available Tac MA unit through the "
                                  f"exit locations of his objective, {NAMES[obj]} (BbF 4.0)")
        return
    if state.phase == "over":
        from pbem.games.bcs.victory import final_result

        state.result = final_result(state)


def apply_exit(state: BcsState, side: str, order: Exit) -> list[str]:
    """Check and apply an exit; the public event texts. IllegalOrder naming the rule."""
    from pbem.games.bcs.command import in_radius
    from pbem.games.bcs.supply import msr

    p = state.pieces.get(order.unit)
    act = state.activation
    if side != "axis":
        raise IllegalOrder("only Axis units exit for victory (BbF 4.0)", rule="BBF-4.0-c")
    if not draw_turn(state):
        raise IllegalOrder("this scenario has no exit locations (BbF 4.0)", rule="BBF-4.0-b")
    if p is None or p.side != side or p.kind != "unit":
        raise IllegalOrder(f"{order.unit} is not an Axis combat unit: HQs and Combat Trains "
                           "never exit for victory", rule="ERR-BCS-1.0-2")
    if p.status != "map":
        raise IllegalOrder(f"{order.unit} is not on the map", rule="BBF-4.0-c")
    if act is None or state.phase != "activities" or act.formation != p.formation:
        raise IllegalOrder(f"{order.unit} exits only in its Formation's Activities (5.4a)",
                           rule="BCS-5.4a")
    if p.finished or p.done_moving:
        raise IllegalOrder(f"{order.unit} may not move any more this Activation",
                           rule="BCS-3.3e")
    if not any(p.hex in exit_hexes(state, o) for o in OBJECTIVES):
        raise IllegalOrder(f"{p.hex} is not an exit location (an Entry Area A, B or C hex, or a "
                           "map-edge hex next to one)", rule="ERR-BCS-1.0-6")
    form = state.formations[p.formation]
    if not in_radius(state, p):
        raise IllegalOrder(f"{order.unit} is not in Command Radius: it may not exit",
                           rule="BBF-4.0-c")
    if msr(state, form) is None:
        raise IllegalOrder(f"{order.unit}'s Combat Trains are not in a Legal hex: it may not "
                           "exit", rule="BBF-4.0-c")
    at = p.hex
    p.status, p.hex = "exited", ""
    state.exits[p.id] = at
    out = [f"{p.id} exits the map at {at} (BbF 4.0)"]
    settle(state)
    if state.result is not None:
        out.append(f"Result: {state.result.reason}")
    return out


def exit_order(state: BcsState, side: str, order: Exit, ctx: Context) -> None:
    """`exit UNIT` as an order of the side whose decision it is (BbF 4.0)."""
    if state.wait is not None or state.phase == "over":
        raise IllegalOrder(f"{side} has no Activation under way to exit in", rule="BCS-5.4a")
    for text in apply_exit(state, side, order):
        ctx.log(text, hexes=(state.exits.get(order.unit, ""),) if "exits" in text else ())


def report_line(objective_draw: PrivateDraw | None, opened: str, own: str) -> str:
    """The Victory Objective as one side's report shows it (BbF 4.0)."""
    if opened:
        return f"Axis Victory Objective: {NAMES[opened]} (revealed)"
    if own:
        return f"Your Victory Objective: {NAMES[own]} (secret: the Allies know only that it " \
               f"was drawn; exits {', '.join(exit_areas_text(own))})"
    if objective_draw is not None:
        return "Axis Victory Objective: drawn, secret (revealed at the end of the game)"
    return ""


def exit_areas_text(objective: str) -> list[str]:
    """The Entry Areas an objective's exits use (BBF-4.0-b)."""
    return [f"Entry Area {a}" for a in EXIT_AREAS[objective]]


def secret_words(objective: str) -> list[str]:
    """What would give the Axis's objective away in the other side's files (the texts his own
    reports and events write)."""
    return [f"Your Victory Objective: {NAMES[objective]}", f'"objective":"{objective}"']
