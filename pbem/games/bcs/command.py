"""Command (4.2) and Isolation (10.5): Command Radius, Safe Path (1.6) and Isolation losses."""

from __future__ import annotations

from collections import deque

from pbem.core.game import Context
from pbem.games.bcs import assignment, support
from pbem.games.bcs.board import ByHex, bdata, by_hex, mclass
from pbem.games.bcs.state import BcsState, FormationState, Piece
from pbem.games.bcs.supply import MSR_ROADS, msr, road_hexes
from pbem.games.bcs.terrain import PROHIBITED, step_cost
from pbem.games.bcs.zoc import ezoc

SAFE_EXTRA = 5                   # Safe Path chart: at most Command Radius + 5 hexes
HQ_ROAD = 3                      # ... from the HQ's hex: 3 hexes along roads


def exempt(p: Piece) -> bool:
    """BbF 3.3: TF Drake, TF Waters and 3/168 in their starting hex have no Command Radius
    effects and always a Safe Path; unassigned independents have no Command Radius (4.2e)."""
    u = bdata().units.get(p.id)
    return u is not None and ((u.start_hex_exempt and p.hex == p.home)
                              or (u.independent and not p.formation))


def radius(state: BcsState, p: Piece) -> int:
    """The Command Radius of a piece's HQ (4.2a)."""
    return bdata().hqs[state.formations[p.formation].hq].command_radius


def hq_distance(state: BcsState, p: Piece, hex_id: str = "") -> int | None:
    """Hexes from the Formation's HQ to the piece (or to hex_id), ignoring everything (4.2c);
    None when the HQ is off the map."""
    hq = state.pieces[state.formations[p.formation].hq]
    if hq.status != "map":
        return None
    return bdata().game_map.grid.distance(hq.hex, hex_id or p.hex)


def in_radius(state: BcsState, p: Piece, hex_id: str = "") -> bool:
    """Within the HQ's Command Radius (4.2a, 4.2c)."""
    d = hq_distance(state, p, hex_id)
    return d is not None and d <= radius(state, p)


def heads_away(state: BcsState, p: Piece, end: str) -> bool:
    """4.2f: a unit that began the Activation outside Command Radius would end in end no nearer
    its HQ than it began (it must head back or stay; HQs, Trains, exempt units and
    reinforcements still catching up, 9.3g, are free)."""
    if p.kind != "unit" or not p.joined or exempt(p):
        return False
    start = p.start or p.hex
    start_d, end_d = hq_distance(state, p, start), hq_distance(state, p, end)
    return start_d is not None and end_d is not None and start_d > radius(state, p) \
        and end_d >= start_d


def _blocks(state: BcsState, side: str, hex_id: str, pieces: ByHex) -> bool:
    """Safe Path blockers (BBF-G9): enemy units, and EZOC unless a friendly unit is in the hex
    (friendly units negate EZOC for Safe Paths, 6.0c). pieces: board.by_hex(state)."""
    here = pieces.get(hex_id, ())
    if any(p.side != side for p in here):
        return True
    return bool(ezoc(state, side, hex_id, pieces=pieces)) and not any(
        p.side == side and p.kind == "unit" for p in here)


def safe_path(state: BcsState, p: Piece, cls: str = "", pieces: ByHex | None = None) -> bool:
    """A Safe Path from the unit to its HQ (1.6, Safe Path chart): at most Command Radius + 5
    hexes, every step open to the MA type (the unit's own unless given), through no blocker;
    from the HQ's own hex, 3 hexes along roads toward the Combat Trains (their MSR, or any
    road when they have none). Exempt units in their starting hex always have one.
    pieces: board.by_hex(state), when the caller traces many units in one position."""
    if exempt(p):
        return True
    form = state.formations[p.formation]
    hq = state.pieces[form.hq]
    if hq.status != "map":
        return False
    pieces = by_hex(state) if pieces is None else pieces
    if p.hex == hq.hex:
        return _hq_road(state, form, pieces)
    cls = cls or mclass(p)
    rain = state.weather == "Rain"
    limit = radius(state, p) + SAFE_EXTRA
    grid = bdata().game_map.grid
    seen = {p.hex: 0}
    todo = deque([p.hex])
    while todo:
        h = todo.popleft()
        if seen[h] >= limit:
            continue
        for n in grid.neighbours(h):
            if n in seen or step_cost(h, n, cls, rain).mp == PROHIBITED:
                continue
            if n == hq.hex:
                return True
            if _blocks(state, p.side, n, pieces):
                continue
            seen[n] = seen[h] + 1
            todo.append(n)
    return False


def _hq_road(state: BcsState, form: FormationState, pieces: ByHex) -> bool:
    hq = state.pieces[form.hq]
    m = msr(state, form)
    if m is not None:
        return True                       # an MSR is free of every Safe Path blocker
    graph_hexes = road_hexes(MSR_ROADS)
    gm = bdata().game_map
    frontier = {hq.hex}
    seen = {hq.hex}
    for _ in range(HQ_ROAD):
        nxt = set()
        for h in frontier:
            for n in gm.grid.neighbours(h):
                if n in seen or n not in graph_hexes or _blocks(state, form.side, n, pieces):
                    continue
                if any(gm.road_between(h, n, k) for k in MSR_ROADS):
                    nxt.add(n)
        if not nxt:
            return False
        seen |= nxt
        frontier = nxt
    return True


def isolation(state: BcsState, form: FormationState, ctx: Context) -> None:
    """Isolation (10.5) of the active Formation's units: no Safe Path or out of Command Radius
    loses a step per unit, both lose two, MSR Blocked level 2 one more; when every unit is in
    the second case the HQ and all its units leave play (Complete Command Disruption, 9.1i).
    Reinforcements catching up are exempt until they start an Activation in radius (9.3g)."""
    units = [p for p in state.pieces.values()
             if p.formation == form.id and p.kind == "unit" and p.status == "map"]
    if not units:
        return
    cases: dict[str, int] = {}
    pieces = by_hex(state)          # every case is judged before any loss is taken
    for p in units:
        if not p.joined or exempt(p):
            cases[p.id] = 0
            continue
        out, nosafe = not in_radius(state, p), not safe_path(state, p, pieces=pieces)
        cases[p.id] = 2 if (out and nosafe) else 1 if (out or nosafe) else 0
    name = bdata().formations[form.id].name
    if all(c == 2 for c in cases.values()):
        assignment.formation_destroyed(state, form.id, ctx)   # 9.5: before its units go
        for p in state.pieces.values():
            if p.formation == form.id and p.status != "dead":
                p.status, p.hex = "dead", ""
        form.in_play = False
        ctx.log(f"{name}: Complete Command Disruption, the HQ and all its units leave play")
        return
    for p in units:
        loss = cases[p.id] + (1 if cases[p.id] and form.msr_blocked == 2 else 0)
        if not loss:
            continue
        p.steps -= loss
        ctx.log(f"{p.id} loses {loss} step{'s' if loss > 1 else ''} to Isolation",
                visible_to=p.side)
        if p.steps <= 0:
            p.status, p.hex = "dead", ""
            ctx.log(f"{p.id} is destroyed by Isolation")


def on_map_units(state: BcsState) -> dict[str, int]:
    """Combat units on the map per Formation (those returning next turn from a retreat, 7.5f,
    count as in play for 9.1i; assigned independents do not: they are its assets, 9.1i)."""
    out: dict[str, int] = {}
    for p in state.pieces.values():
        returning = p.status == "off" and p.entry == [f"hq:{p.formation}"]
        if p.kind == "unit" and (p.status == "map" or returning) \
                and not bdata().units[p.id].independent:
            out[p.formation] = out.get(p.formation, 0) + 1
    return out


def formations_lost(state: BcsState, before: dict[str, int], ctx: Context) -> None:
    """HQs without units (9.1i): a Formation whose HQ is on the map and which has just lost its
    last unit in play leaves play with its HQ and Combat Trains; when more of its units are due
    by the Order of Arrival, HQ and Trains wait off the map to arrive with the first of them,
    the HQ at Fatigue 2 (9.1j)."""
    now = on_map_units(state)
    for fid, n in before.items():
        form = state.formations[fid]
        hq = state.pieces[form.hq]
        if n == 0 or now.get(fid, 0) or hq.status != "map":
            continue
        name = bdata().formations[fid].name
        later = [p for p in state.pieces.values()
                 if p.formation == fid and p.kind == "unit" and p.status == "off"]
        form.in_play = False
        form.prepared_defense = form.coordination = False
        form.msr_blocked = 0
        assignment.formation_destroyed(state, fid, ctx)        # 9.5, ERR-BCS-1.2-1
        support.formation_removed(state, fid, bool(later), ctx)
        for p in (hq, state.pieces[form.trains]):
            p.hex, p.ghost = "", False
            p.status = "off" if later else "dead"
        if not later:
            ctx.log(f"{name} has lost its last unit: its HQ and Combat Trains leave play (9.1i)")
            continue
        due = max(state.turn + 1, min(p.arrives for p in later))
        first = min(later, key=lambda p: (p.arrives, p.id))
        for p in (hq, state.pieces[form.trains]):
            p.arrives, p.entry = due, list(first.entry)
        form.fatigue = 2
        ctx.log(f"{name} has lost its last unit: its HQ and Combat Trains leave the map and "
                f"return with its next arrival, at Fatigue 2 (9.1i, 9.1j)")
