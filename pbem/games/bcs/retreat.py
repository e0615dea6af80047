"""Retreats (7.5): after combat by the Retreat Execution table, the end hex and its step losses;
Voluntary Retreats (7.5j), whose end hex the active player names.

The owner places the retreating stack (7.5a) by his choice for the topic `retreat` (combat.mode:
his standing order, or he is asked): `rear` takes the best hex by the 7.5a priorities in their
printed order (farthest from the Attack hex, free of EZOC, combat terrain, nearest the HQ, off
the enemy's MSRs, nearest its Combat Trains or their Supply Source, then the hex id); `hq` puts
a hex free of EZOC and nearest the HQ first; `edge` leaves the map by its edge whenever the
retreat reaches an edge with an Entry Area (7.5h), else as `rear`. A unit off the map returns
the next turn through any Entry Area on that edge (its Formation's Activation, 9.3).
HQs and Combat Trains in the hex are displaced by hq_retreat.jump (9.1f, 10.3d, 7.5i).
"""

from __future__ import annotations

from functools import lru_cache

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import (at, bdata, combat_count, edge_hexes, hq_of, mclass, on_area,
                                  playing_area)
from pbem.games.bcs.command import safe_path
from pbem.games.bcs.mines import closed, retreat_loss
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.snafu import effect
from pbem.games.bcs.state import BcsState, Piece
from pbem.games.bcs.support import drop_on_retreat
from pbem.games.bcs.supply import enemy_msr_hexes, sources
from pbem.games.bcs.terrain import hex_row
from pbem.games.bcs.zoc import ezoc

RETREAT = 3                  # 7.5f: "Retreat 3 hexes"
HQ_NEAR = 3                  # 7.5f box: an HQ less than 3 hexes away sends the units off the map
RETURNING = "7.5h"           # the entry tag of a unit off the map after a retreat off its edge


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
    return (all(enterable(state, p, hex_id) and not closed(state, p, hex_id)   # BbF 3.1b
                for p in units)
            and not any(q.side != side for q in at(state, hex_id))
            and combat_count(state, hex_id) + len(units) <= 2)


def _rank(state: BcsState, units: list[Piece], attack_hex: str, hex_id: str, how: str,
          msrs: frozenset[str]) -> tuple:
    """The 7.5a priorities of an end hex (smaller is better): `rear` in their printed order,
    `hq` with a hex free of EZOC and nearest the HQ first."""
    d = bdata()
    grid = d.game_map.grid
    hq = hq_of(state, units[0])
    zone = bool(ezoc(state, units[0].side, hex_id))
    near_hq = grid.distance(hq.hex, hex_id) if hq is not None and hq.status == "map" else 0
    away = -grid.distance(attack_hex, hex_id)
    terrain = d.terrain[d.game_map.terrain[hex_id]].combat != "yes"
    rest = (hex_id in msrs, _to_trains(state, units[0], hex_id), hex_id)
    if how == "hq":
        return (zone, near_hq, away, terrain) + rest
    return (away, zone, terrain, near_hq) + rest


def _to_trains(state: BcsState, p: Piece, hex_id: str) -> int:
    """How far a hex is from the Formation's Combat Trains, or from the nearest Supply Source of
    the side when the Trains are off the map (7.5a, last guideline)."""
    grid = bdata().game_map.grid
    form = state.formations.get(p.formation)
    trains = state.pieces[form.trains] if form is not None else None
    if trains is not None and trains.status == "map":
        return grid.distance(trains.hex, hex_id)
    return min((grid.distance(s, hex_id) for s in sources(state, p.side)), default=0)


@lru_cache(maxsize=8)
def _extremes(area: tuple[str, ...]) -> tuple[float, float, float, float]:
    grid = bdata().game_map.grid
    cs = [grid.center(h) for h in grid.all_hexes() if h[0] in area]
    return (min(x for x, _ in cs), max(x for x, _ in cs), min(y for _, y in cs),
            max(y for _, y in cs))


def edge_of(state: BcsState, hex_id: str) -> set[str]:
    """The edges of the playing area a hex lies on (west, east, north, south: its centre in the
    first or last column, or within a row of the highest or lowest centres); empty inside."""
    x0, x1, y0, y1 = _extremes(tuple(playing_area(state)))
    x, y = bdata().game_map.grid.center(hex_id)
    # flat-top hexes of size 1: columns 1.5 apart, rows sqrt(3) apart, every other column
    # shifted half a row
    return {name for name, gap, near in (("west", x - x0, 0.75), ("east", x1 - x, 0.75),
                                         ("north", y - y0, 1.0), ("south", y1 - y, 1.0))
            if gap < near}


def exit_areas(state: BcsState, here: str) -> tuple[str, list[str]]:
    """Where a 3-hex retreat from ``here`` may leave the map (7.5h): the edge hex (within 2
    hexes, so that the third hex is off the map) and the Entry Areas on that edge of the playing
    area; ("", []) when no edge with an Entry Area is in reach."""
    gm = bdata().game_map
    best: tuple[int, str, list[str]] | None = None
    for h in sorted(edge_hexes(state, here, RETREAT - 1)):
        edges = edge_of(state, h)
        letters = sorted(k[len("entry-"):] for k, hexes in gm.hexsets.items()
                         if k.startswith("entry-") and any(
                             on_area(state, e) and edges & edge_of(state, e) for e in hexes))
        if letters and (best is None or gm.grid.distance(here, h) < best[0]):
            best = (gm.grid.distance(here, h), h, letters)
    return (best[1], best[2]) if best else ("", [])


def _off_edge(state: BcsState, units: list[Piece], edge: str, letters: list[str],
              ctx: Context) -> None:
    """The stack leaves the map by its edge (7.5h): it returns next turn as a reinforcement
    through any Entry Area on that edge (its owner's choice, 9.3b, in its Activation)."""
    here = units[0].hex
    for p in units:
        p.status, p.hex, p.face = "off", "", "move"
        p.entry, p.arrives = [*letters, RETURNING], state.turn + 1
        ctx.log(f"{p.id} retreats off the map edge by {edge}", visible_to=p.side)
    ctx.log(f"the stack in {here} retreats off the map edge by {edge}: it returns next turn "
            f"through Entry Area {' or '.join(letters)} (7.5h)", hexes=(here, edge))


def _place(state: BcsState, units: list[Piece], to: str, ctx: Context) -> None:
    frm = units[0].hex
    for p in units:
        p.hex, p.face = to, "move"
    ctx.log(f"the stack in {frm} retreats to {to}", hexes=(frm, to))
    zone = ezoc(state, units[0].side, to)
    for p in units:
        if affected_by(mclass(p), zone):
            _step(state, p, ctx, "retreat into an EZOC, 7.5e")
    retreat_loss(state, units, ctx)          # TEC note 3: a retreat ended in a Minefield
    for p in units:
        drop_on_retreat(state, p, ctx)       # 9.2i a


def retreat_three(state: BcsState, units: list[Piece], attack_hex: str, ctx: Context) -> None:
    """Retreat 3 hexes to a common hex and flip to the Move side (7.5b, 7.5f), to the hex the
    owner chooses by his `retreat` mode (7.5a) or, asked, names himself among the open hexes
    locally to the rear ('answer retreat B10.21'), or off the map edge (7.5h); terrain on the
    way does not matter (7.5d). With no hex open and no edge in reach, stay and lose a step per
    unit (7.5c)."""
    from pbem.games.bcs.reactions import lookup

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
    edge, letters = exit_areas(state, here)
    # the hexes he may choose himself (asked): locally to the rear, away from the Attack hex
    rear = [h for h in ok if grid.distance(attack_hex, h) > grid.distance(attack_hex, here) + 1]
    how = lookup(state, units[0].side, "retreat", lambda: sorted(rear or ok), here) \
        if edge or len(ok) > 1 else "rear"              # no choice, no question
    if how not in ("rear", "hq", "edge"):
        _place(state, units, how, ctx)   # the hex the owner chose
        return
    if edge and how == "edge":
        _off_edge(state, units, edge, letters, ctx)
        return
    if not ok:
        ctx.log(f"the stack in {here} has no hex to retreat to: each unit loses a step instead")
        for p in units:
            _step(state, p, ctx, "no retreat possible, 7.5c")
        return
    msrs = enemy_msr_hexes(state, units[0].side)
    to = min(ok, key=lambda h: _rank(state, units, attack_hex, h, how, msrs))
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


def _by_hq(state: BcsState, units: list[Piece], hq: Piece, attack_hex: str) -> list[str]:
    """Where each unit goes, placed in this order, by its HQ (7.5f box): the HQ's hex or one
    next to it it may end in (free of EZOC, then farthest from the Attack hex, then the hex id),
    "" off the map; the state is left as it was."""
    grid = bdata().game_map.grid
    start = [p.hex for p in units]
    out = []
    try:
        for p in units:
            spots = [h for h in [hq.hex, *grid.neighbours(hq.hex)] if _open_for(state, [p], h)]
            to = min(spots, key=lambda h: (bool(ezoc(state, p.side, h)),
                                           -grid.distance(attack_hex, h), h)) if spots else ""
            out.append(to)
            if to:
                p.hex = to
    finally:
        for p, h in zip(units, start):
            p.hex = h
    return out


def hq_order(state: BcsState, units: list[Piece], hq: Piece, attack_hex: str) -> list[Piece]:
    """The order the owner places his units by their HQ in (7.5f box, "in the order chosen by
    the owning player"), read only when it changes where they go (the topic `hq-order`):
    `strongest` (most steps, then best AR, first), `weakest` (the reverse), or, asked, the
    units in his order ('answer hq-order kern+drake')."""
    from itertools import permutations

    from pbem.games.bcs.reactions import lookup

    ranked = sorted(units, key=lambda p: (-p.steps, -bdata().units[p.id].ar, p.id))
    orders = [list(o) for o in permutations(ranked)]
    # it matters when it decides which units stay on the map (each one's hex is asked apart)
    results = {tuple(sorted(p.id for p, to in zip(o, _by_hq(state, o, hq, attack_hex)) if to))
               for o in orders}
    if len(results) < 2:
        return ranked
    how = lookup(state, units[0].side, "hq-order",
                 lambda: ["+".join(p.id for p in o) for o in orders], units[0].hex)
    if how == "strongest":
        return ranked
    if how == "weakest":
        return ranked[::-1]
    return [state.pieces[u] for u in how.split("+")]


def _hex_by_hq(state: BcsState, p: Piece, spots: list[str], hq: Piece, attack_hex: str,
               here: str) -> str:
    """The hex by its HQ a unit of an Automatic Retreat goes to (7.5f box: "retreat to/adjacent
    to HQ", the owner places it), by his choice for the topic `retreat`: `hq` the HQ's hex
    first, `rear` (or `edge`) a hex free of EZOC, then farthest from the Attack hex; asked, the
    hex he names among those that take it ('answer retreat B12.19'), read for each unit apart
    and only when there is more than one."""
    from pbem.games.bcs.reactions import lookup

    grid = bdata().game_map.grid
    how = lookup(state, p.side, "retreat", lambda: sorted(spots), here, p.id) \
        if len(spots) > 1 else "rear"
    if how in spots:
        return how                       # the hex the owner chose
    return min(spots, key=lambda h: (how == "hq" and h != hq.hex, bool(ezoc(state, p.side, h)),
                                     -grid.distance(attack_hex, h), h))


def at_hq_hex(state: BcsState, p: Piece, spots: list[str], hq: Piece) -> str:
    """The hex at or next to its HQ a unit arriving there goes to (a unit back from a retreat
    off the map, 7.5f box and 7.5k, or a reinforcement due at its HQ, 9.3a), placed by its owner
    by his choice for the topic `arrival`: `hq` the HQ's hex first, then hexes free of EZOC;
    `clear` hexes free of EZOC first, then the HQ's hex; then the hex id; asked, the hex he
    names among those that take it ('answer arrival B14.10'), read for each unit apart and only
    when there is more than one."""
    from pbem.games.bcs.reactions import lookup

    how = lookup(state, p.side, "arrival", lambda: sorted(spots), hq.hex, p.id) \
        if len(spots) > 1 else "hq"
    if how in spots:
        return how                       # the hex the owner chose
    if how == "clear":
        return min(spots, key=lambda h: (bool(ezoc(state, p.side, h)), h != hq.hex, h))
    return min(spots, key=lambda h: (h != hq.hex, bool(ezoc(state, p.side, h)), h))


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
    if not near:
        units = hq_order(state, units, hq, attack_hex)  # type: ignore[arg-type]
    for p in units:
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
        to = _hex_by_hq(state, p, spots, hq, attack_hex, here)  # type: ignore[arg-type]
        p.hex = to
        ctx.log(f"a unit of the stack in {here} retreats to {to}, by its HQ", hexes=(here, to))
        ctx.log(f"{p.id} retreats from {here} to {to}, by its HQ", visible_to=p.side,
                hexes=(here, to))
        if affected_by(mclass(p), ezoc(state, p.side, to)):
            _step(state, p, ctx, "retreat into an EZOC, 7.5e")
        retreat_loss(state, [p], ctx)        # TEC note 3: a retreat ended in a Minefield
        drop_on_retreat(state, p, ctx)       # 9.2i a


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
    if ar_unit.status != "map" or ar_unit.hex != units[0].hex:
        ar_unit = units[0]          # the AR unit died in the losses: the first survivor reads 7.5f
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
