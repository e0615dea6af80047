"""Objective hexes (18.0), event triggers (11.1, 15.0: even if only momentarily) and victory."""

from __future__ import annotations

from pbem.core.game import Context
from pbem.games.kasserine.board import zoc_units
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.state import KasserineState, Result


def entered(state: KasserineState, data: KasserineData, uid: str, hex_id: str, ctx: Context) -> None:
    """Record that a unit entered a hex (moving, arriving, retreating or advancing through it)."""
    side = state.units[uid].side
    if hex_id in data.objective_hexes:
        state.holder[hex_id] = side
    if side != "axis":
        return
    for group in data.watchers.get(hex_id, ()):
        if group.id not in state.triggered:
            state.triggered[group.id] = state.turn
            ctx.log(f"Event: {group.title} (turn {state.turn}, {state.active} {state.phase} "
                    f"phase, {uid} in {hex_id})", kind="trigger", hexes=(hex_id,))


def entered_path(state: KasserineState, data: KasserineData, uid: str, path: list[str],
                 ctx: Context) -> None:
    """entered() for every hex of path in order (entering any other hex records nothing: for
    a US unit, any but an objective, since only the Axis sets off events)."""
    watched = data.watched if state.units[uid].side == "axis" else data.objective_hexes
    for h in path:
        if h in watched:
            entered(state, data, uid, h, ctx)


def captured(state: KasserineState, data: KasserineData, us_zoc: frozenset[str] | None = None,
             us_hexes: list[str] | None = None) -> list[str]:
    """Objectives captured for victory: Axis last occupant and not in any US ZOC (18.0, KAS-G10).
    us_zoc: zoc_hexes(state, data, "us"), or us_hexes: zoc_units(state, data, "us") in any
    order, when the caller has one."""
    held = [h for h in data.objectives if state.holder.get(h) == "axis"]
    if not held:
        return held
    if us_zoc is not None:
        return [h for h in held if h not in us_zoc]
    # h is in the US ZOC if a US unit exerting one is next to it (adjacency is symmetric):
    # a few lookups instead of the whole zone
    us = set(zoc_units(state, data, "us") if us_hexes is None else us_hexes)
    return [h for h in held if us.isdisjoint(data.neighbours[h])]


def check_sudden_death(state: KasserineState, data: KasserineData, ctx: Context,
                       us_zoc: frozenset[str] | None = None,
                       us_hexes: list[str] | None = None) -> None:
    """Update the most objectives ever captured; the Axis wins at once with three (18.0).
    us_zoc, us_hexes: as captured's, when the caller has one."""
    if state.result is not None:
        return
    caps = captured(state, data, us_zoc, us_hexes)
    state.max_captured = max(state.max_captured, len(caps))
    if len(caps) >= data.scenario.victory.axis_wins_with:
        state.result = Result(winner="axis", reason=f"the Axis captured {len(caps)} objectives "
                              f"({', '.join(caps)}): sudden death (18.0)")
        state.combat, state.wait = None, None
        ctx.log(f"Game over: {state.result.reason}", kind="victory")


def final_result(state: KasserineState, data: KasserineData, ctx: Context) -> None:
    """Victory at the end of the last game turn (18.0)."""
    check_sudden_death(state, data, ctx)
    if state.result is not None:
        return
    if state.max_captured >= data.scenario.victory.draw_with:
        state.result = Result(winner=None, reason=f"the Axis captured {state.max_captured} "
                              "objectives but never three: draw (18.0)")
    else:
        state.result = Result(winner="us", reason=f"the Axis captured at most "
                              f"{state.max_captured} objective by the end: US victory (18.0)")
    ctx.log(f"Game over: {state.result.reason}", kind="victory")


def status_lines(state: KasserineState, data: KasserineData) -> list[str]:
    """Plain lines on the objectives and the victory standing."""
    caps = set(captured(state, data))
    lines = []
    for h in data.objectives:
        name = data.map.place_name(h) or "red star"
        held = state.holder.get(h, "-")
        lines.append(f"{h} {name}: last occupied by {held}" + (" (captured)" if h in caps else ""))
    lines.append(f"Captured now: {len(caps)}; most ever: {state.max_captured} "
                 f"(3 = Axis win, 2 = draw, else US win)")
    return lines
