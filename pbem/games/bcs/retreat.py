"""Retreats (7.5): after combat by the Retreat Execution table, the end hex and its step losses;
Voluntary Retreats (7.5j), whose end hex the active player names.

The owner's choice of the end hex (7.5a) is not asked yet: the engine takes the best hex by the
7.5a priorities in order (farthest from the Attack hex, free of EZOC, combat terrain, nearest the
HQ, then the hex id). HQs and Combat Trains in the hex stay where they are (their displacement,
9.1f and 10.3d, is not built); retreats off the map edge (7.5h) are not offered.
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import at, bdata, combat_count, hq_of, mclass, on_area
from pbem.games.bcs.command import safe_path
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.snafu import effect
from pbem.games.bcs.state import BcsState, Piece
from pbem.games.bcs.terrain import hex_row
from pbem.games.bcs.zoc import ezoc

RETREAT = 3                  # 7.5f: "Retreat 3 hexes"
HQ_NEAR = 3                  # 7.5f box: an HQ less than 3 hexes away sends the units off the map


def _step(state: BcsState, p: Piece, ctx: Context, why: str) -> None:
    p.steps -= 1
    ctx.log(f"{p.id} loses a step ({why})", visible_to=p.side)
    if p.steps <= 0:
        p.status, p.hex = "dead", ""
        ctx.log(f"{p.id} is destroyed")


def enterable(state: BcsState, p: Piece, hex_id: str) -> bool:
    """A hex the unit could enter in normal movement by its terrain (7.5c): not Prohibited."""
    return on_area(state, hex_id) and \
        mp_cost(bdata().terrain[hex_row(hex_id)], mclass(p), state.weather == "Rain") != "P"


def affected_by(cls: str, zone: str) -> bool:
    """Whether an EZOC of this kind affects a movement class (7.5e): Leg and Truck all, Tac only
    Real AV EZOCs."""
    return bool(zone) and (cls in ("leg", "truck") or zone == "real")


def _open_for(state: BcsState, units: list[Piece], hex_id: str) -> bool:
    side = units[0].side
    return (all(enterable(state, p, hex_id) for p in units)
            and not any(q.side != side for q in at(state, hex_id))
            and combat_count(state, hex_id) + len(units) <= 2)


def _rank(state: BcsState, units: list[Piece], attack_hex: str, hex_id: str) -> tuple:
    d = bdata()
    grid = d.game_map.grid
    hq = hq_of(state, units[0])
    zone = ezoc(state, units[0].side, hex_id)
    near_hq = grid.distance(hq.hex, hex_id) if hq is not None and hq.status == "map" else 0
    return (-grid.distance(attack_hex, hex_id), bool(zone),
            d.terrain[d.game_map.terrain[hex_id]].combat != "yes", near_hq, hex_id)


def _place(state: BcsState, units: list[Piece], to: str, ctx: Context) -> None:
    frm = units[0].hex
    for p in units:
        p.hex, p.face = to, "move"
    ctx.log(f"the stack in {frm} retreats to {to}", hexes=(frm, to))
    zone = ezoc(state, units[0].side, to)
    for p in units:
        if affected_by(mclass(p), zone):
            _step(state, p, ctx, "retreat into an EZOC, 7.5e")


def retreat_three(state: BcsState, units: list[Piece], attack_hex: str, ctx: Context) -> None:
    """Retreat 3 hexes to a common hex and flip to the Move side (7.5b, 7.5f); with no hex
    open, stay and lose a step per unit (7.5c)."""
    grid = bdata().game_map.grid
    here = units[0].hex
    ring = [h for h in _within(here, RETREAT) if grid.distance(here, h) == RETREAT]
    # the end hex is judged with the units' Move side showing (they flip as they retreat)
    faces = [p.face for p in units]
    for p in units:
        p.face = "move"
    ok = [h for h in ring if _open_for(state, units, h)]
    for p, f in zip(units, faces):
        p.face = f
    if not ok:
        ctx.log(f"the stack in {here} has no hex to retreat to: each unit loses a step instead")
        for p in units:
            _step(state, p, ctx, "no retreat possible, 7.5c")
        return
    to = min(ok, key=lambda h: _rank(state, units, attack_hex, h))
    _place(state, units, to, ctx)


def _within(centre: str, n: int) -> list[str]:
    grid = bdata().game_map.grid
    seen, frontier = {centre}, [centre]
    for _ in range(n):
        nxt = []
        for h in frontier:
            for m in grid.neighbours(h):
                if m not in seen:
                    seen.add(m)
                    nxt.append(m)
        frontier = nxt
    return sorted(seen)


def retreat_to_hq(state: BcsState, units: list[Piece], attack_hex: str, ctx: Context) -> None:
    """An Automatic Retreat of Leg or Truck units: to or next to the HQ, flipped to the Move
    side; off the map to return next turn when the HQ is less than 3 hexes away or no hex within
    1 of it takes the unit (7.5f box)."""
    grid = bdata().game_map.grid
    here = units[0].hex
    hq = hq_of(state, units[0])
    near = hq is None or hq.status != "map" or grid.distance(here, hq.hex) < HQ_NEAR
    for p in units:
        p.face = "move"
        spots = [] if near else [h for h in [hq.hex, *grid.neighbours(hq.hex)]  # type: ignore
                                 if _open_for(state, [p], h)]
        if not spots:
            p.status, p.hex = "off", ""
            p.entry, p.arrives = [f"hq:{p.formation}"], state.turn + 1
            ctx.log(f"a unit of the stack in {here} retreats off the map: it returns next turn "
                    f"at its HQ (7.5f)")
            ctx.log(f"{p.id} retreats off the map: it returns next turn at its HQ (7.5f)",
                    visible_to=p.side)
            continue
        to = min(spots, key=lambda h: (bool(ezoc(state, p.side, h)),
                                       -grid.distance(attack_hex, h), h))
        p.hex = to
        ctx.log(f"a unit of the stack in {here} retreats to {to}, by its HQ", hexes=(here, to))
        ctx.log(f"{p.id} retreats from {here} to {to}, by its HQ", visible_to=p.side,
                hexes=(here, to))
        if affected_by(mclass(p), ezoc(state, p.side, to)):
            _step(state, p, ctx, "retreat into an EZOC, 7.5e")


def retreat_stack(state: BcsState, units: list[Piece], ar_unit: Piece, kind: str,
                  attack_hex: str, ctx: Context) -> None:
    """Carry out a Combat Table retreat (kind "situational" or "automatic") of every unit in a
    hex (7.5a), by the Retreat Execution table of 7.5f read for the defending AR unit."""
    for p in list(units):
        if all(f.ma <= 0 for f in _faces(p)):
            ctx.log(f"{p.id} has no printed MA and must retreat: it is destroyed (7.5f)")
            p.status, p.hex = "dead", ""
            units.remove(p)
    if not units:
        return
    cls = mclass(ar_unit)
    unassigned = bdata().units[ar_unit.id].independent and not ar_unit.formation
    if cls in ("leg", "truck") and not safe_path(state, ar_unit):
        ctx.log(f"no Safe Path from {units[0].hex}: each unit loses a step and stays")
        for p in units:
            _step(state, p, ctx, "no Safe Path, 7.5f")
        return
    if kind == "automatic" and cls in ("leg", "truck") and not unassigned:
        retreat_to_hq(state, units, attack_hex, ctx)
        return
    retreat_three(state, units, attack_hex, ctx)


def _faces(p: Piece) -> list:
    u = bdata().units[p.id]
    return [u.move] + ([u.deployed] if u.deployed is not None else [])


def check_voluntary(state: BcsState, side: str, uids: list[str], to: str) -> list[Piece]:
    """Check a Voluntary Retreat (7.5j): units of the active Formation in one hex that have not
    moved, as the SNAFU result allows, to a hex 3 hexes away that the stack may end in (7.5c)."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side or act.recovery:
        raise IllegalOrder("a Voluntary Retreat is made in the Activities of an Activation",
                           rule="BCS-7.5j-1")
    units: list[Piece] = []
    for uid in uids:
        p = state.pieces.get(uid)
        if p is None or p.side != side or p.status != "map" or p.formation != act.formation:
            raise IllegalOrder(f"{uid} is not on the map in the active Formation",
                               rule="BCS-7.5j-1")
        if p.kind != "unit":
            raise IllegalOrder(f"{uid}: the retreat of HQs (9.1f) is not yet implemented",
                               rule="BCS-7.5j-2")
        units.append(p)
    if effect(act.snafu, "Voluntary Retreat?") != "Yes":
        raise IllegalOrder(f"SNAFU {act.snafu}: only HQs may make a Voluntary Retreat",
                           rule="BCS-7.5j-2")
    here = units[0].hex
    if any(p.hex != here for p in units):
        raise IllegalOrder("a Voluntary Retreat moves units of one hex", rule="BCS-7.5j-1")
    for p in units:
        if p.moved or p.finished or p.fire_events:
            raise IllegalOrder(f"{p.id} has moved or acted: a Voluntary Retreat is made instead "
                               f"of its movement", rule="BCS-7.5j-1")
        if all(f.ma <= 0 for f in _faces(p)):
            raise IllegalOrder(f"{p.id} has no printed MA", rule="BCS-7.5j-2")
    grid = bdata().game_map.grid
    if not grid.is_hex(to) or grid.distance(here, to) != RETREAT:
        raise IllegalOrder(f"{to} is not {RETREAT} hexes from {here}", rule="BCS-7.5f-6")
    faces = [p.face for p in units]
    for p in units:
        p.face = "move"
    ok = _open_for(state, units, to)
    for p, f in zip(units, faces):
        p.face = f
    if not ok:
        raise IllegalOrder(f"{to} holds an enemy, is overstacked or cannot be entered",
                           rule="BCS-7.5c")
    return units


def voluntary(state: BcsState, side: str, uids: list[str], to: str, ctx: Context) -> None:
    """A Voluntary Retreat (7.5j): 3 hexes, flipped to the Move side, a step from each unit,
    and Finished; ending in an EZOC costs one more step (7.5e)."""
    units = check_voluntary(state, side, uids, to)
    act = state.activation
    assert act is not None
    act.began = True
    for q in act.stack:                  # made instead of movement: the moving stack is done
        state.pieces[q].done_moving = True
    act.stack = []
    for p in units:
        p.finished = True
    ctx.log("Voluntary Retreat: each unit loses a step", visible_to=side)
    for p in units:
        _step(state, p, ctx, "Voluntary Retreat, 7.5j")
    alive = [p for p in units if p.status == "map"]
    if alive:
        _place(state, alive, to, ctx)
