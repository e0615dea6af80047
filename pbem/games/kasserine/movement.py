"""Movement (5.0), ZOC effects on movement (6.1, 13.1, 14.2), arrivals (11.0-11.4) and 17.x limits.

Costs are kept in half movement points so the state stays integer (road = 1 half-MP).
"""

from __future__ import annotations

import copy
import heapq
from typing import Any

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.kasserine.board import (board_for_move, ezoc_and_occupancy, fortification_hex,
                                        label, occupancy, values)
from pbem.games.kasserine.scenario import SIDES, KasserineData
from pbem.games.kasserine.seen import record
from pbem.games.kasserine.state import KasserineState
from pbem.games.kasserine.static import static
from pbem.games.kasserine.victory import check_sudden_death, entered_path


def step_cost(data: KasserineData, side: str, mobile: bool, a: str | None, b: str) -> int | None:
    """Half-MP to enter b from a (a None = from off the map); None if prohibited (5.4, 17.0)."""
    return terrain_step(data, side, mobile, a, b)[0]


def terrain_step(data: KasserineData, side: str, mobile: bool, a: str | None,
                 b: str) -> tuple[int | None, bool]:
    """(step_cost, a US minefield hexside lies between a and b) of entering b from a, read from
    the data's terrain tables: a crossing's own cost where a road, trail or hexside feature
    (a minefield is one) lies between a and b, else b's entry cost."""
    if a is not None:
        step = data.crossing.get((a, b))
        if step is not None:
            if side in SIDES:
                return step[SIDES.index(side) * 2 + (1 if mobile else 0)], step[4]
            return data.crossing_cost(side, mobile, a, b), step[4]
    return data.entry_cost[b][1 if mobile else 0], False


def move_edges(data: KasserineData, side: str, mobile: bool,
               here: str) -> tuple[tuple[str, int, bool], ...]:
    """(neighbour, half-MP to enter it from here, US minefield between) for every enterable
    neighbour, by terrain alone (no units, no ZOC); computed once per scenario."""
    memo = static(data).edges
    key = (side, mobile, here)
    out = memo.get(key)
    if out is None:
        edges = []
        for h in data.map.grid.neighbours(here):
            c, mine = terrain_step(data, side, mobile, here, h)
            if c is not None:
                edges.append((h, c, mine))
        out = memo[key] = tuple(edges)
    return out


def fill_steps(data: KasserineData, side: str) -> None:
    """Memoise move_edges for side's units (both kinds) out of every hex at once: the move
    helper asks for most of the map. The table is the one move_edges computes (its costs
    from terrain_step, as step_cost's), kept for shipped scenario data in the package-side
    cache (pbem.core.cache) under the hash of the data files and of the code that computes it
    (this module and the board's)."""
    memo = static(data)
    data_key = getattr(data.map, "cache_key", None)
    if side in memo.filled or not isinstance(data_key, str):
        return
    import sys

    from pbem.core import cache

    code = [cache.source_hash(sys.modules[m]) for m in (__name__, "pbem.games.kasserine.board")]
    grid = data.map.grid
    for mobile in (False, True):
        def build(mobile: bool = mobile) -> dict[tuple[str, bool, str], tuple[tuple[str, int, bool], ...]]:
            # every hex's move_edges, computed as move_edges does
            out = {}
            for h in grid.all_hexes():
                steps = []
                for n in grid.neighbours(h):
                    c, mine = terrain_step(data, side, mobile, h, n)
                    if c is not None:
                        steps.append((n, c, mine))
                out[(side, mobile, h)] = tuple(steps)
            return out

        key = cache.key_of("kasserine-edges", data_key, data.sbeitla_hex, side, str(mobile), *code)
        memo.edges.update(cache.remember("kasserine-edges", key, build))
    memo.filled.add(side)


def is_minefield(data: KasserineData, a: str, b: str) -> bool:
    """True if a US minefield hexside lies between a and b (14.0)."""
    return ((a, b) if a <= b else (b, a)) in data.minefields


def allowance(state: KasserineState, data: KasserineData, uid: str) -> int:
    """A unit's movement allowance this turn, in half-MP (its reduced side when depleted)."""
    return values(data, state, uid)[2] * 2


class Walker:
    """Walks one unit along a path hex by hex, enforcing every movement rule as it goes."""

    def __init__(self, state: KasserineState, data: KasserineData, uid: str, entering: bool,
                 *, board: tuple[frozenset[str], dict[str, str]] | None = None) -> None:
        """board: (ezoc(state, data, side), occupancy(state)) when the caller has them (the
        move helper, walking many units in one position)."""
        self.state, self.data, self.uid = state, data, uid
        u = state.units[uid]
        self.side = u.side
        unit = data.units[uid]
        self.mobile = bool(unit.mobile)
        self.commando = unit.commando
        self.ma2 = allowance(state, data, uid)
        self.spent = u.mp
        self.pos: str | None = None if entering else u.hex
        self.start = self.pos
        #: The hexes of the other US units exerting a ZOC, when a US unit moves (its move
        #: may capture or free an objective, 18.0); None otherwise.
        self.own_zoc: list[str] | None = None
        if board is not None:
            self.ezoc, self.occ = board
        elif u.side == "us":
            self.ezoc, self.occ, self.own_zoc = board_for_move(state, data, u.side, uid)
        else:
            self.ezoc, self.occ = ezoc_and_occupancy(state, data, u.side)
        self.in_ezoc = (self.pos in self.ezoc) if self.pos else False
        self.start_in_ezoc = self.in_ezoc
        self.steps = 0
        self.stopped = False
        self.entered: list[tuple[str, int]] = []   # (hex, half-MP) of every hex entered
        self.path: list[str] = []                  # the hexes entered (the start hex left out)

    def step(self, h: str) -> None:
        """Enter the next hex; IllegalOrder naming the rule if the unit may not."""
        d, pos = self.data, self.pos
        if self.stopped:
            raise IllegalOrder(f"{self.uid} must stop before {h}", rule=self._stop_rule)
        if pos is None or h not in d.neighbours[pos]:
            self._check_placed(h)
        if h in d.prohibited:
            raise IllegalOrder(f"{h} is a prohibited hex", rule="KAS-17.0")
        occupant = self.occ.get(h)
        if occupant is not None and self.state.units[occupant].side != self.side:
            raise IllegalOrder(f"{h} holds an enemy unit", rule="KAS-5.2-e")
        cost, mine = terrain_step(d, self.side, self.mobile, pos, h)
        if cost is None:
            raise IllegalOrder(f"{h} cannot be entered from {pos}", rule="KAS-5.2-f")
        if mine or h in self.ezoc or self.spent + cost > self.ma2:
            self.enter(h, cost, mine)
        else:               # no rule of enter() but its bookkeeping applies (the common step)
            self._moved(h, cost, False, False)

    def walk(self, path: list[str]) -> None:
        """step(h) for every hex of path in turn. A step into a hex next to the unit's, free
        or holding a friendly unit, outside every EZOC, across no minefield and within the MA
        (no rule of enter() applies) is carried out here; any other goes through step."""
        d = self.data
        nbrs, prohibited, occ, ezoc = d.neighbours, d.prohibited, self.occ, self.ezoc
        units, side = self.state.units, self.side
        crossing, entry = d.crossing, d.entry_cost
        mi = 1 if self.mobile else 0
        col = SIDES.index(side) * 2 + mi if side in SIDES else None
        ma2, entered = self.ma2, self.entered
        for h in path:
            pos = self.pos
            occupant = occ.get(h)
            if (pos is not None and not self.stopped and h in nbrs[pos] and h not in prohibited
                    and h not in ezoc and (occupant is None or units[occupant].side == side)):
                step = crossing.get((pos, h))      # terrain_step's reading, inline; a
                if step is None:                   # minefield or another side: through step
                    cost = entry[h][mi]
                elif step[4] or col is None:
                    cost = None
                else:
                    cost = step[col]
                if cost is not None and self.spent + cost <= ma2:
                    entered.append((h, cost))          # as _moved(h, cost, False, False)
                    self.spent += cost
                    self.pos = h
                    self.in_ezoc = False
                    self.steps += 1
                    continue
            self.step(h)

    def _check_placed(self, h: str) -> None:
        """step's checks for a hex that is not next to the unit's: it must be a map hex, and
        the unit off the map (its first hex when it arrives)."""
        grid = self.data.map.grid
        if not grid.is_hex(h):
            raise IllegalOrder(f"{h} is off the map", rule="KAS-5.2-g")
        if self.pos is not None:
            raise IllegalOrder(f"{h} is not adjacent to {self.pos} (adjacent: "
                               f"{', '.join(sorted(grid.neighbours(self.pos)))})",
                               rule="KAS-5.1-a")

    def enter(self, h: str, cost: int, mine: bool) -> None:
        """The rest of step(h), for a hex step has found enterable by the map alone: a map hex
        next to the unit's, not prohibited, holding no enemy unit, whose terrain costs cost
        half-MP from here (mine: a US minefield hexside lies between). The rules of stopping,
        ZOC (6.1, 13.1), minefields (14.2) and the MA (5.2-d) are all here. The move helper's
        search calls it directly with move_edges (the same terrain, read from the same memo)."""
        d = self.data
        if self.stopped:
            raise IllegalOrder(f"{self.uid} must stop before {h}", rule=self._stop_rule)
        stop, all_ma = False, False
        self._stop_rule = "KAS-6.1-a"
        if mine and self.side == "axis":
            if self.steps != 0 or self.pos != self.start:
                raise IllegalOrder(f"{self.uid} may cross the minefield {self.pos}-{h} only from "
                                   "the hex where it began its move", rule="KAS-14.2-a")
            all_ma, stop, self._stop_rule = True, True, "KAS-14.2-a"
        into_ezoc = h in self.ezoc
        if into_ezoc and not self.commando:                          # 13.1: Rangers ignore EZOC
            if self.in_ezoc and self.pos is not None:                # EZOC to EZOC
                if mine:
                    raise IllegalOrder(f"no EZOC-to-EZOC move across the minefield {self.pos}-{h}",
                                       rule="KAS-6.1-e")
                if fortification_hex(self.state, d, h, self.side):
                    raise IllegalOrder(f"no EZOC-to-EZOC move into the fortification hex {h}",
                                       rule="KAS-6.1-e")
                if not self.mobile:
                    if self.steps != 0:
                        raise IllegalOrder(f"{self.uid} must stop on entering an EZOC",
                                           rule="KAS-6.1-d")
                    all_ma, stop, self._stop_rule = True, True, "KAS-6.1-b"
            if self.mobile:
                cost += (self.ma2 // 2) // 2 * 2                      # half printed MA, rounded down
                if self.state.options.mobile_ezoc_stop:
                    stop = True
            elif not all_ma:
                stop = True
                self._stop_rule = "KAS-6.1-d" if self.start_in_ezoc else "KAS-6.1-a"
        if all_ma:
            if self.spent != 0:
                raise IllegalOrder(f"{self.uid} must spend its whole MA to enter {h}",
                                   rule=self._stop_rule)
            if cost > self.ma2:
                raise IllegalOrder(f"{self.uid} lacks the MA for the terrain of {h}", rule="KAS-6.1-b")
            cost = self.ma2 - self.spent
        if self.spent + cost > self.ma2:
            before = self.spent - sum(c for _, c in self.entered)
            costs = " + ".join(f"{x} {c / 2:g}" for x, c in [*self.entered, (h, cost)])
            raise IllegalOrder(f"entering {h} needs {(self.spent + cost) / 2:g} MP in all ("
                               + (f"{before / 2:g} spent before + " if before else "")
                               + f"{costs}); {self.uid} has {self.ma2 / 2:g} MP",
                               rule="KAS-5.2-d")
        self._moved(h, cost, into_ezoc, stop)

    def _moved(self, h: str, cost: int, into_ezoc: bool, stop: bool) -> None:
        """enter's last part: the unit now stands in h, having paid cost half-MP."""
        self.entered.append((h, cost))
        self.spent += cost
        self.pos = h
        self.in_ezoc = into_ezoc
        self.steps += 1
        self.stopped = stop

    _stop_rule = "KAS-6.1-a"

    def branch(self, h: str) -> "Walker":
        """A copy of this walker that has entered h too; IllegalOrder if it may not."""
        w = copy.copy(self)
        w.entered, w.path = list(self.entered), list(self.path)
        w.step(h)
        w.path.append(h)
        return w


def check_move(state: KasserineState, data: KasserineData, side: str, uid: str,
               path: list[str], entering: bool) -> Walker:
    """Check a move or an arrival along a path; returns the finished walker; IllegalOrder if not legal."""
    if state.phase not in ("movement", "mobile-movement") or side != state.active:
        raise IllegalOrder("units move only in their own Movement or Mobile Movement Phase",
                           rule="KAS-5.2-a")
    u = state.units.get(uid)
    if u is None or u.side != side:
        raise IllegalOrder(f"{uid} is not one of your units", rule="KAS-5.2-a")
    unit = data.units[uid]
    mobile_phase = state.phase == "mobile-movement"
    if mobile_phase and not unit.mobile:
        raise IllegalOrder(f"{uid} is a leg unit: no move in the Mobile Movement Phase", rule="KAS-5.5-b")
    if u.moved and mobile_phase:
        raise IllegalOrder(f"{uid} moved in the Movement Phase", rule="KAS-5.5-a")
    if u.moved or u.mobile_moved:
        raise IllegalOrder(f"{uid} has already moved this turn", rule="KAS-5.2-h")
    if u.barred == "advanced":
        raise IllegalOrder(f"{uid} advanced after combat this turn: no other activity",
                           rule="KAS-8.5-g")
    if entering:
        w = Walker(state, data, uid, True)
        _check_arrival(state, data, side, uid, path, mobile_phase, w.occ)
    else:
        if u.status != "map":
            raise IllegalOrder(f"{uid} is not on the map (use 'enter' for reinforcements)",
                               rule="KAS-11.0-a")
        if penny_packet(state, data, uid, u.hex):
            raise IllegalOrder(f"{uid} is west of Kasserine on turn {state.turn}: it may not move",
                               rule="KAS-17.1")
        if u.hex in path[:1]:
            path = path[1:]                   # the start hex may be listed (notation)
            if not path:
                raise IllegalOrder(f"the path enters no hex ({uid} is in {u.hex})",
                                   rule="KAS-5.1-a")
        w = Walker(state, data, uid, False)
    w.walk(path)
    w.path = list(path)
    if len(set(path)) != len(path):
        raise IllegalOrder("a path may not enter the same hex twice", rule="KAS-5.1-a")
    final = path[-1]
    if w.occ.get(final) not in (None, uid):
        raise IllegalOrder(f"{uid} may not end its move stacked in {final}", rule="KAS-5.3-b")
    return w


def penny_packet(state: KasserineState, data: KasserineData, uid: str, hex_id: str) -> bool:
    """17.1: on turns 1-2 an Allied unit west of the Kasserine hex row may not move."""
    return (state.units[uid].side == "us" and state.turn <= 2
            and hex_id in data.hexset["west_of_kasserine"])


def arrival_hexes(state: KasserineState, data: KasserineData, uid: str) -> list[str]:
    """Entry hexes a reinforcement may use now: not enemy-occupied (11.3, 11.4, KAS-G18)."""
    group, arrival = data.arrival_of[uid]
    occ = occupancy(state)
    side = state.units[uid].side
    return [h for h in data.entry_hexes(arrival.entry)
            if h not in occ or state.units[occ[h]].side == side]


def can_arrive(state: KasserineState, data: KasserineData, uid: str) -> bool:
    """True if a reinforcement is due and may enter in the current phase (11.0-11.2, 15.0)."""
    u = state.units[uid]
    if u.status != "off" or uid not in data.arrival_of or u.moved or u.mobile_moved:
        return False
    group, _ = data.arrival_of[uid]
    if group.id not in state.released or state.active != u.side:
        return False
    if state.phase == "mobile-movement":
        return bool(data.units[uid].mobile) and not group.movement_phase_only
    return state.phase == "movement"


def _check_arrival(state: KasserineState, data: KasserineData, side: str, uid: str,
                   path: list[str], mobile_phase: bool, occ: dict[str, str]) -> None:
    """check_move's checks of an arrival (occ: occupancy(state))."""
    u = state.units[uid]
    if u.status != "off" or uid not in data.arrival_of:
        raise IllegalOrder(f"{uid} is not a reinforcement waiting off the map", rule="KAS-11.0-a")
    group, arrival = data.arrival_of[uid]
    if group.id not in state.released:
        rule = "KAS-11.1-a" if group.trigger.kind != "turn" else "KAS-3.0-b"
        raise IllegalOrder(f"{uid} ({group.title}) is not due yet", rule=rule)
    if mobile_phase and group.movement_phase_only:
        raise IllegalOrder(f"{uid} arrives in the Movement Phase only", rule="KAS-15.0-b")
    if path[0] not in data.entry_hexes(arrival.entry):
        raise IllegalOrder(f"{path[0]} is not an entry hex of {uid} (entry hexes: "
                           f"{', '.join(data.entry_hexes(arrival.entry))})", rule="KAS-11.0-a")
    occupant = occ.get(path[0])             # path[0] is an entry hex: arrival_hexes' test
    if occupant is not None and state.units[occupant].side != u.side:
        raise IllegalOrder(f"entry hex {path[0]} is occupied by the enemy", rule="KAS-11.4-b")
    if len(path) > 1 and penny_packet(state, data, uid, path[0]):
        raise IllegalOrder(f"{uid} enters west of Kasserine on turn {state.turn}: it may enter "
                           "its first hex only", rule="KAS-17.1")


def do_move(state: KasserineState, data: KasserineData, side: str, uid: str, path: list[str],
            entering: bool, ctx: Context) -> None:
    """Check, then carry out a move or arrival; records triggers and checks sudden death."""
    w = check_move(state, data, side, uid, path, entering)
    path = w.path
    u = state.units[uid]
    start = u.hex or "off map"
    u.mp = w.spent
    if state.phase == "mobile-movement":
        u.mobile_moved = True
    else:
        u.moved = True
    u.status, u.hex = "map", path[-1]
    entered_path(state, data, uid, path, ctx)
    record(state, "enter" if entering else "move", uid, ([] if entering else [start]) + path)
    verb = "enters at" if entering else f"moves {start} ->"
    ctx.log(f"{side}: {label(data, state, uid)} {verb} {' '.join(path)} ({w.spent / 2:g} MP)",
            kind="move", hexes=tuple(([] if entering else [start]) + path))
    # the US ZOC after the move: an Axis move leaves it as the walker read it (its EZOC); a US
    # move, the walker's other US units exerting one, and the mover where it stopped
    if side == "axis":
        check_sudden_death(state, data, ctx, w.ezoc)
    elif w.own_zoc is not None:
        mover = [] if uid in data.no_zoc else [u.hex]
        check_sudden_death(state, data, ctx, us_hexes=w.own_zoc + mover)
    else:
        check_sudden_death(state, data, ctx)


def cheapest_path(state: KasserineState, data: KasserineData, side: str, uid: str,
                  dest: str, entry: str | None = None) -> list[str] | None:
    """The cheapest path the movement rules allow from the unit's hex (an arriving unit: from
    its entry hex, which the path then starts with) to dest, or None.

    Every step is checked by the Walker (terrain, EZOC stops, minefields, the allowance).
    Ties are broken deterministically: the fewest hexes entered, then the path whose hex ids
    come first in order (compared hex by hex), so that every processor writes the same path.
    """
    start = Walker(state, data, uid, entry is not None)
    first: tuple[str, ...] = ()
    if entry is not None:
        try:
            start = start.branch(entry)
        except IllegalOrder:
            return None
        first = (entry,)
        if entry == dest:
            return [entry] if start.occ.get(dest) in (None, uid) else None
    seen: dict[tuple[str | None, bool], tuple[int, int, tuple[str, ...]]] = {}
    if first:
        seen[(entry, start.stopped)] = (start.spent, 1, first)
    heap: list[tuple[int, int, tuple[str, ...], int, Walker]] = [
        (start.spent, len(first), first, 0, start)]
    tick = 0
    while heap:
        spent, n, path, _, w = heapq.heappop(heap)
        if path and seen.get((path[-1], w.stopped)) != (spent, n, path):
            continue                          # a cheaper way to this hex was found since
        if path and path[-1] == dest:
            if w.occ.get(dest) in (None, uid):
                return list(path)
            continue
        if w.stopped or w.pos is None:
            continue
        for h in sorted(data.map.grid.neighbours(w.pos)):
            if h in path or h == start.pos:
                continue
            try:
                nxt = w.branch(h)
            except IllegalOrder:
                continue
            key = (h, nxt.stopped)
            label = (nxt.spent, n + 1, path + (h,))
            if key in seen and seen[key] <= label:
                continue
            seen[key] = label
            tick += 1
            heapq.heappush(heap, (*label, tick, nxt))
    return None


def expand(state: KasserineState, data: KasserineData, side: str, order: Any) -> Any:
    """A destination-only move (orders.MoveTo) as the Move along its cheapest legal path; an
    arrival (orders.EnterTo) as the Enter from its entry hex along the cheapest path.

    Problems that are not about the path (not your unit, wrong phase, already moved, ...) are
    left to the rules: the Move then names the destination alone and apply refuses it.
    """
    from pbem.games.kasserine.orders import EnterTo, Move

    if isinstance(order, EnterTo):
        return _expand_entry(state, data, side, order)

    u = state.units.get(order.unit)
    if (u is None or u.side != side or u.status != "map" or u.hex is None
            or state.phase not in ("movement", "mobile-movement") or side != state.active
            or u.moved or u.mobile_moved):
        return Move(unit=order.unit, path=[order.dest])
    if order.dest == u.hex:
        raise IllegalOrder(f"{order.unit} is already in {order.dest}", rule="KAS-5.1-a")
    occupant = occupancy(state).get(order.dest)
    if occupant is not None and state.units[occupant].side != side:
        raise IllegalOrder(f"{order.dest} holds an enemy unit", rule="KAS-5.2-e")
    if occupant is not None:
        raise IllegalOrder(f"{order.unit} may not end its move stacked in {order.dest}",
                           rule="KAS-5.3-b")
    path = cheapest_path(state, data, side, order.unit, order.dest)
    if path is None:
        raise IllegalOrder(f"{order.unit} has no legal path from {u.hex} to {order.dest} this "
                           "phase (its allowance, terrain, enemy units and zones of control "
                           "allow none)", rule="KAS-5.2-d")
    return Move(unit=order.unit, path=path)


def _expand_entry(state: KasserineState, data: KasserineData, side: str, order: Any) -> Any:
    """expand for an arrival: the entry hex, then the cheapest path on to the destination."""
    from pbem.games.kasserine.orders import Enter

    u = state.units.get(order.unit)
    plain = Enter(unit=order.unit, path=[order.entry, order.dest])
    if u is None or u.side != side:
        return plain                     # the rules name what is wrong
    try:
        check_move(state, data, side, order.unit, [order.entry], True)
    except IllegalOrder as e:
        if e.rule != "KAS-5.3-b":        # not yet the stacking rule: the arrival itself fails
            raise
    if order.dest != order.entry and penny_packet(state, data, order.unit, order.entry):
        raise IllegalOrder(f"{order.unit} enters west of Kasserine on turn {state.turn}: it may "
                           "enter its first hex only", rule="KAS-17.1")
    path = cheapest_path(state, data, side, order.unit, order.dest, entry=order.entry)
    if path is None:
        raise IllegalOrder(f"{order.unit} has no legal path from its entry hex {order.entry} "
                           f"to {order.dest} this phase (its allowance, terrain, enemy units and "
                           "zones of control allow none)", rule="KAS-5.2-d")
    return Enter(unit=order.unit, path=path)
