"""The move helper's data: where each own unit can move or enter this phase, at what cost (5.0).

A cheapest-first search drives the movement rules' own ``Walker`` hex by hex (every terrain,
ZOC, minefield and stop rule is the Walker's), then ``check_move`` confirms each path found
before its hex is offered as a destination. The report page only draws the result.
"""

from __future__ import annotations

import copy
import heapq

from pbem.core.errors import IllegalOrder
from pbem.core.game import Reach, UnitReach
from pbem.games.kasserine.board import data_of
from pbem.games.kasserine.movement import Walker, arrival_hexes, can_arrive, check_move, penny_packet
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.state import KasserineState

_Key = tuple[str, bool]          # (hex, the unit must stop there)


def _mp(half: int) -> str:
    """Half movement points as printed: '3' or '1.5'."""
    return f"{half / 2:g}"


def movers(state: KasserineState, data: KasserineData, side: str) -> tuple[list[str], list[str]]:
    """(units on the map that may still move, reinforcements that may enter) for side now."""
    if (state.active != side or state.wait is not None or state.result is not None
            or state.phase not in ("movement", "mobile-movement")):
        return [], []
    mobile_phase = state.phase == "mobile-movement"
    on_map, entering = [], []
    for uid in sorted(state.units):
        u = state.units[uid]
        if u.side != side or u.moved or u.mobile_moved:
            continue
        if mobile_phase and not data.units[uid].mobile:
            continue
        if u.status == "map" and not penny_packet(state, data, uid, u.hex):
            on_map.append(uid)
        elif can_arrive(state, data, uid):
            entering.append(uid)
    return on_map, entering


def _branch(w: Walker, h: str) -> Walker:
    """A copy of a walker that has entered h too (its own lists); IllegalOrder if it may not."""
    nxt = copy.copy(w)
    for name, value in vars(w).items():
        if isinstance(value, list):
            setattr(nxt, name, list(value))
    nxt.step(h)
    return nxt


def _search(state: KasserineState, data: KasserineData, uid: str,
            starts: list[Walker]) -> tuple[dict[_Key, int], dict[_Key, _Key | None]]:
    """Cheapest-first over (hex, stopped): the least MP spent to stand in each hex."""
    grid = data.map.grid
    best: dict[_Key, int] = {}
    parent: dict[_Key, _Key | None] = {}
    heap: list[tuple[int, int, _Key, Walker]] = []
    n = 0
    for w in starts:
        key = (w.pos or "", w.stopped)
        if w.spent < best.get(key, 1 << 30):
            best[key], parent[key] = w.spent, None
            heapq.heappush(heap, (w.spent, n, key, w))
            n += 1
    while heap:
        spent, _, key, w = heapq.heappop(heap)
        if spent > best.get(key, 1 << 30) or w.stopped:
            continue
        for h in grid.neighbours(key[0]):
            try:
                nxt = _branch(w, h)
            except IllegalOrder:
                continue
            k2 = (h, nxt.stopped)
            if nxt.spent < best.get(k2, 1 << 30):
                best[k2], parent[k2] = nxt.spent, key
                n += 1
                heapq.heappush(heap, (nxt.spent, n, k2, nxt))
    return best, parent


def _signature(state: KasserineState, data: KasserineData, uid: str, entering: bool) -> tuple:
    """What a unit's reach depends on besides the board: units alike reach alike."""
    u, unit = state.units[uid], data.units[uid]
    return (u.side, bool(unit.mobile), unit.commando, Walker(state, data, uid, entering).ma2, u.mp,
            tuple(arrival_hexes(state, data, uid)) if entering else u.hex)


def _one(state: KasserineState, data: KasserineData, side: str, uid: str, entering: bool,
         memo: dict[tuple, tuple[Reach, ...]]) -> UnitReach | None:
    """The reach of one unit, or None if no hex is a legal end of its move."""
    start = "" if entering else state.units[uid].hex
    sig = _signature(state, data, uid, entering)
    if sig not in memo:
        memo[sig] = _nodes(state, data, side, uid, entering, start)
    nodes = memo[sig]
    if not any(r.end for r in nodes):
        return None
    ma = Walker(state, data, uid, entering).ma2
    verb = "enter" if entering else "move"
    return UnitReach(unit=uid, hex=start, label=f"{uid} ({data.units[uid].name})",
                     allowance=f"{_mp(ma - state.units[uid].mp)} MP", order=f"{verb} {uid} {{path}}",
                     sep=" ", hexes=nodes)


def _nodes(state: KasserineState, data: KasserineData, side: str, uid: str, entering: bool,
           start: str) -> tuple[Reach, ...]:
    """Every hex the unit can stand in after a legal part of a move, cheapest path first."""
    starts: list[Walker] = []
    if entering:
        for h in arrival_hexes(state, data, uid):
            w = Walker(state, data, uid, True)
            try:
                w.step(h)
            except IllegalOrder:
                continue
            starts.append(w)
    else:
        starts.append(Walker(state, data, uid, False))
    best, parent = _search(state, data, uid, starts)
    chosen: dict[str, _Key] = {}                   # per hex: the label that may have children
    for key in best:
        h, stopped = key
        if h == start or not h:
            continue
        if h not in chosen or (chosen[h][1] and not stopped):
            chosen[h] = key
    nodes: dict[str, Reach] = {}
    for h, key in chosen.items():
        path = []
        k: _Key | None = key
        while k is not None:
            path.append(k[0])
            k = parent[k]
        path = [x for x in reversed(path) if x != start] if not entering else path[::-1]
        try:
            check_move(state, data, side, uid, path, entering)
            end = True
        except IllegalOrder:
            end = False
        par = parent[key]
        prev = par[0] if par is not None and par[0] != start else ""
        nodes[h] = Reach(hex=h, cost=_mp(best[key] - state.units[uid].mp), prev=prev, end=end)
    return tuple(nodes[h] for h in sorted(nodes))


def unit_reach(state: KasserineState, data: KasserineData | None, side: str) -> list[UnitReach]:
    """For each unit side may move or bring in now: every hex it can reach and the MP it costs."""
    data = data or data_of(state)
    on_map, entering = movers(state, data, side)
    memo: dict[tuple, tuple[Reach, ...]] = {}
    out = [_one(state, data, side, uid, False, memo) for uid in on_map]
    out += [_one(state, data, side, uid, True, memo) for uid in entering]
    return [r for r in out if r is not None]
