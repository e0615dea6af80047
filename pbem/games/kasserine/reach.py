"""The move helper's data: where each own unit can move or enter this phase, at what cost (5.0).

A cheapest-first search drives the movement rules' own ``Walker`` hex by hex over the map's
steps (``move_edges``: every terrain cost; ``Walker.enter``: every ZOC, minefield, stop and MA
rule); a step into a hex outside every EZOC that crosses no Axis minefield, where ``enter``
would only add the cost, is taken without it. tests/games/kasserine/test_reach.py holds what
it offers to ``check_move``: exactly the hexes a move may end in, each at its least MP. The
report page only draws the result.
"""

from __future__ import annotations

from collections import OrderedDict

import msgspec

from pbem.core.errors import IllegalOrder
from pbem.core.game import Reach, UnitReach
from pbem.games.kasserine.board import data_of, occupancy
from pbem.games.kasserine.board import ezoc
from pbem.games.kasserine.movement import (Walker, allowance, arrival_hexes, can_arrive,
                                           fill_steps, move_edges, penny_packet)
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.state import KasserineState
from pbem.games.kasserine.static import static

_Key = tuple[str, bool]          # (hex, the unit must stop there)
_Board = tuple[frozenset[str], dict[str, str]]   # (side's EZOC hexes, occupancy): Walker's


_MP: dict[int, str] = {}


def _mp(half: int) -> str:
    """Half movement points as printed: '3' or '1.5' (memoised: a few values, many hexes)."""
    text = _MP.get(half)
    if text is None:
        text = _MP[half] = f"{half / 2:g}"
    return text


def movers(state: KasserineState, data: KasserineData, side: str) -> tuple[list[str], list[str]]:
    """(units on the map that may still move, reinforcements that may enter) for side now."""
    if (state.active != side or state.wait is not None or state.result is not None
            or state.phase not in ("movement", "mobile-movement")):
        return [], []
    mobile_phase = state.phase == "mobile-movement"
    on_map, entering = [], []
    for uid in sorted(state.units):
        u = state.units[uid]
        if u.side != side or u.moved or u.mobile_moved or u.barred == "advanced":
            continue                                      # 8.5-g: an advance ends its turn
        if mobile_phase and not data.units[uid].mobile:
            continue
        if u.status == "map" and not penny_packet(state, data, uid, u.hex):
            on_map.append(uid)
        elif can_arrive(state, data, uid):
            entering.append(uid)
    return on_map, entering


_WALK = ("pos", "spent", "in_ezoc", "steps", "stopped")   # what changes as a Walker steps


def _search(state: KasserineState, data: KasserineData, uid: str,
            starts: list[Walker]) -> tuple[dict[_Key, int], dict[_Key, _Key | None]]:
    """Cheapest-first over (hex, stopped): the least MP spent to stand in each hex.

    One Walker is reused as a probe: set to a label's position, asked to step, read back.
    """
    best: dict[_Key, int] = {}
    parent: dict[_Key, _Key | None] = {}
    if not starts:
        return best, parent
    # costs are whole half-MP within the allowance: a bucket per cost replaces a heap, and
    # taking each bucket in the order its labels came keeps the heap's order (cost, then age)
    top = max(ma2 := starts[0].ma2, *(w.spent for w in starts))
    buckets: list[list[tuple[_Key, tuple]]] = [[] for _ in range(top + 1)]
    for w in starts:
        key = (w.pos or "", w.stopped)
        if w.spent < best.get(key, 1 << 30):
            best[key], parent[key] = w.spent, None
            buckets[w.spent].append((key, tuple(getattr(w, a) for a in _WALK)))
    probe = starts[0]
    side, mobile = probe.side, probe.mobile
    edges = static(data).edges       # move_edges' own memo (fill_steps filled it), read here
    foes = {h for h, k in probe.occ.items() if state.units[k].side != side}
    ezoc, axis = probe.ezoc, side == "axis"
    never = 1 << 30
    for spent, bucket in enumerate(buckets):
        i = 0
        while i < len(bucket):              # a step of no cost would add to this bucket
            key, walk = bucket[i]
            i += 1
            if spent > best.get(key, never) or walk[4]:
                continue
            # the probe stands on this label; enter() changes it only when it succeeds
            probe.pos, probe.spent, probe.in_ezoc, probe.steps, probe.stopped = walk   # _WALK
            probe.entered = []
            out = edges.get((side, mobile, key[0]))
            for h, cost, mine in out if out is not None else move_edges(data, side, mobile, key[0]):
                # terrain alone already costs too much, or an enemy holds the hex: the Walker
                # would refuse it (a cheap pre-check; the Walker decides everything else)
                to = spent + cost
                if to > ma2 or h in foes:
                    continue
                # a step costs at least its terrain (ZOC and whole-MA rules only add), so where
                # the hex is already reached without stopping for no more, this step adds
                # nothing the result shows: not a cheaper label, and a stopped label of a hex
                # that also has an unstopped one is neither shown (_nodes prefers the
                # unstopped) nor expanded
                k2 = (h, False)
                if best.get(k2, never) <= to:
                    continue
                if h not in ezoc and not (mine and axis):
                    # every rule of enter() but the MA (checked above) is about entering an
                    # EZOC or crossing a minefield (the Axis's): here it would only add the cost
                    best[k2], parent[k2] = to, key
                    buckets[to].append((k2, (h, to, False, walk[3] + 1, False)))
                    continue
                try:
                    probe.enter(h, cost, mine)  # what step(h) checks before it, move_edges holds
                except IllegalOrder:
                    continue
                k2 = (h, probe.stopped)
                if probe.spent < best.get(k2, never):
                    best[k2], parent[k2] = probe.spent, key
                    buckets[probe.spent].append((k2, (probe.pos, probe.spent, probe.in_ezoc,
                                                      probe.steps, probe.stopped)))
                probe.pos, probe.spent, probe.in_ezoc, probe.steps, probe.stopped = walk
                probe.entered = []
    return best, parent


def _signature(state: KasserineState, data: KasserineData, uid: str, entering: bool) -> tuple:
    """What a unit's reach depends on besides the board: units alike reach alike."""
    u, unit = state.units[uid], data.units[uid]
    return (u.side, bool(unit.mobile), unit.commando, allowance(state, data, uid), u.mp,
            tuple(arrival_hexes(state, data, uid)) if entering else u.hex)


def _one(state: KasserineState, data: KasserineData, side: str, uid: str, entering: bool,
         memo: dict[tuple, tuple[Reach, ...]], board: _Board) -> UnitReach | None:
    """The reach of one unit, or None if no hex is a legal end of its move."""
    start = "" if entering else state.units[uid].hex
    sig = _signature(state, data, uid, entering)
    if sig not in memo:
        memo[sig] = _nodes(state, data, side, uid, entering, start, board)
    nodes = memo[sig]
    if not any(r.end for r in nodes):
        return None
    ma = allowance(state, data, uid)
    verb = "enter" if entering else "move"
    return UnitReach(unit=uid, hex=start, label=f"{uid} ({data.units[uid].name})",
                     allowance=f"{_mp(ma - state.units[uid].mp)} MP",
                     order=f"{verb} {uid} {{path}}",
                     sep=" ", hexes=nodes)


def _nodes(state: KasserineState, data: KasserineData, side: str, uid: str, entering: bool,
           start: str, board: _Board) -> tuple[Reach, ...]:
    """Every hex the unit can stand in after a legal part of a move, cheapest path first."""
    starts: list[Walker] = []
    if entering:
        for h in arrival_hexes(state, data, uid):
            w = Walker(state, data, uid, True, board=board)
            try:
                w.step(h)
            except IllegalOrder:
                continue
            if penny_packet(state, data, uid, h):   # 17.1: it may enter its first hex only
                w.stopped = True
            starts.append(w)
    else:
        starts.append(Walker(state, data, uid, False, board=board))
    best, parent = _search(state, data, uid, starts)
    chosen: dict[str, _Key] = {}                   # per hex: the label that may have children
    for key in best:
        h, stopped = key
        if h == start or not h:
            continue
        if h not in chosen or (chosen[h][1] and not stopped):
            chosen[h] = key
    nodes: dict[str, Reach] = {}
    occ, spent = board[1], state.units[uid].mp
    for h, key in chosen.items():
        par = parent[key]
        prev = par[0] if par is not None and par[0] != start else ""
        end = occ.get(h) in (None, uid)        # 5.3-b; every rule of the path was the Walker's
        nodes[h] = Reach(hex=h, cost=_mp(best[key] - spent), prev=prev, end=end)
    return tuple(nodes[h] for h in sorted(nodes))


_MEMO: OrderedDict[tuple[str, bytes], list[UnitReach]] = OrderedDict()
_MEMO_SIZE = 8


def unit_reach(state: KasserineState, data: KasserineData | None, side: str) -> list[UnitReach]:
    """For each unit side may move or bring in now: every hex it can reach and the MP it costs.

    The same position asked again (a report in text, in HTML, in a view) is answered from a
    small memo keyed by the whole encoded state, so nothing the answer depends on is missed.
    """
    data = data or data_of(state)
    on_map, entering = movers(state, data, side)
    if not on_map and not entering:
        return []
    key = (side, msgspec.json.encode(state))
    if key in _MEMO:
        _MEMO.move_to_end(key)
        return list(_MEMO[key])
    fill_steps(data, side)
    memo: dict[tuple, tuple[Reach, ...]] = {}
    board = (ezoc(state, data, side), occupancy(state))     # one position: read once
    out = [_one(state, data, side, uid, False, memo, board) for uid in on_map]
    out += [_one(state, data, side, uid, True, memo, board) for uid in entering]
    result = [r for r in out if r is not None]
    _MEMO[key] = result
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)
    return list(result)
