"""The precomputed graphs and the memoised supply network equal a fresh, naive computation.

The reference below is the straightforward HF-10 trace (the engine's first implementation):
it reads the raw map (grid neighbours, hexside kinds with bridges supplanting rivers) and
rebuilds everything per query. It is compared with the engine over every position of
random and heuristic games in both scenarios.
"""

from __future__ import annotations

import random
from collections import deque

import pytest

from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.games.holdfast import GAME
from pbem.games.holdfast.board import ezoc
from pbem.games.holdfast.data import World, world
from pbem.games.holdfast.movement import hex_cost, reachable, side_cost
from pbem.games.holdfast.state import HoldfastState, enemy
from pbem.games.holdfast.supply import (Net, block_hexes, hex_in_supply, inland_base_open,
                                        net_for, supply_report, zoc_of)


# -- the naive reference -----------------------------------------------------------------
def ref_kinds(w: World, a: str, b: str) -> set[str]:
    """Hexside kinds from the raw map; a bridge supplants the river."""
    kinds = set(w.map.hexside(a, b))
    for k in list(kinds):
        kinds -= set(getattr(w.tables.hexside[k], "supplants", ()) or ())
    return kinds


def ref_side_prohibited(w: World, a: str, b: str) -> bool:
    """A prohibited hexside, from the raw map."""
    return any(w.tables.hexside[k].prohibited for k in ref_kinds(w, a, b))


def ref_zoc_blocked(w: World, a: str, b: str) -> bool:
    """No ZOC from a into b, from the raw map."""
    return b in w.prohibited or any(w.tables.hexside[k].prohibited or w.tables.hexside[k].blocks_zoc
                                    for k in ref_kinds(w, a, b))


def ref_ezoc(state: HoldfastState, w: World, side: str) -> set[str]:
    """Hexes in the enemy's ZOC, unit by unit."""
    out = set()
    for u in state.private[enemy(side)].units.values():
        if u.where == "map":
            out |= {n for n in w.grid.neighbours(u.hex) if not ref_zoc_blocked(w, u.hex, n)}
    return out


class RefNet:
    """The naive supply network of one side (HF-10)."""

    def __init__(self, state: HoldfastState, w: World, side: str, extra: str = "") -> None:
        self.w = w
        own = block_hexes(state, side) | ({extra} if extra else set())
        foe = block_hexes(state, enemy(side))
        gray_ok = w.gray_open(side, state.public.turn)
        self.blocked = set(w.prohibited) | foe | (ref_ezoc(state, w, side) - own)
        if not gray_ok:
            self.blocked |= w.gray
        self.major: set[str] = set()
        self.minor: list[str] = []
        for b in w.home_bases[side]:
            if state.public.control.get(b) != side or b in self.blocked:
                continue
            kind = w.base_kind(b)
            if kind == "port":
                self.major.add(b)
            elif kind == "minor_port":
                self.minor.append(b)
            elif self.road_reach({b}) & set(w.edge_roads):
                self.major.add(b)
        if gray_ok:
            self.major |= {g for g in w.gray if g not in self.blocked}
        self.major_roads = self.road_reach(self.major)
        self.minor_roads = {p: self.road_reach({p}) for p in self.minor}

    def road_reach(self, starts: set[str]) -> set[str]:
        """Road-connected unblocked hexes."""
        seen = {s for s in starts if s not in self.blocked}
        todo = deque(seen)
        while todo:
            h = todo.popleft()
            for n in self.w.road_adj.get(h, ()):
                if n not in seen and n not in self.blocked and not ref_side_prohibited(self.w, h, n):
                    seen.add(n)
                    todo.append(n)
        return seen

    def leg(self, hex_id: str) -> set[str]:
        """Hexes within the road trace length."""
        seen, frontier = {hex_id}, [hex_id]
        for _ in range(self.w.leg):
            nxt = []
            for h in frontier:
                for n in self.w.grid.neighbours(h):
                    if n in seen or n in self.blocked or ref_side_prohibited(self.w, h, n):
                        continue
                    seen.add(n)
                    nxt.append(n)
            frontier = nxt
        return seen

    def major_supplied(self, hex_id: str) -> bool:
        """Traces to a major base."""
        if hex_id in self.w.prohibited:
            return False
        if hex_id in self.major or any(n in self.major_roads and not ref_side_prohibited(self.w, hex_id, n)
                                       for n in self.w.road_adj.get(hex_id, ())):
            return True
        return bool(self.leg(hex_id) & self.major_roads)

    def minor_options(self, hex_id: str) -> list[str]:
        """Minor ports in reach."""
        reach = self.leg(hex_id)
        return [p for p in self.minor if reach & self.minor_roads[p]]


def ref_report(state: HoldfastState, w: World, side: str) -> dict[str, bool]:
    """unit -> in supply, free minor ports in hex order."""
    net = RefNet(state, w, side)
    out, ports, needing = {}, dict(state.private[side].minor_ports), []
    for u in state.private[side].units.values():
        if u.where != "map":
            continue
        if net.major_supplied(u.hex):
            out[u.id] = True
        else:
            needing.append(u)
    for u in sorted(needing, key=lambda x: (x.hex, x.id)):
        opts = net.minor_options(u.hex)
        mine = [p for p in opts if ports.get(p) == u.id]
        free = [p for p in opts if p not in ports]
        out[u.id] = bool(mine or free)
        if not mine and free:
            ports[free[0]] = u.id
    return out


# -- positions of real games -----------------------------------------------------------------
def positions(scenario: str, seed: int, styles: tuple[str, str], every: int = 1):
    """Every state (after each order) of one bot game, with its rng for probing."""
    rng = random.Random(seed)
    state = GAME.setup(scenario, {})
    n = 0
    while GAME.outcome(state) is None and n < 4000:
        side = GAME.pending(state)[0].side
        style = styles[0] if side == "allied" else styles[1]
        ctx = Context(KeyedDice(rng.randbytes(32)))
        for i, line in enumerate(GAME.bot(state, side, rng, style)):
            ctx.action = i
            GAME.apply(state, side, GAME.parse_order(line), ctx)
            n += 1
            if n % every == 0:
                yield state


def test_static_graphs_match_the_raw_map() -> None:
    """Neighbours, hexside kinds, prohibited hexsides, ZOC and road edges are the raw ones."""
    for sid in ("campaign", "race-to-tunis"):
        w = world(sid)
        for h in w.map.terrain:
            assert w.neighbours(h) == w.grid.neighbours(h)
            for n in w.grid.neighbours(h):
                assert w.side_kinds(h, n) == ref_kinds(w, h, n)
                assert w.side_prohibited(h, n) == ref_side_prohibited(w, h, n)
                assert w.zoc_blocked(h, n) == ref_zoc_blocked(w, h, n)
                assert (n in w.pass_nbrs[h]) == (n not in w.prohibited
                                                 and not ref_side_prohibited(w, h, n))
            assert set(w.road_nbrs.get(h, ())) == {n for n in w.road_adj.get(h, ())
                                                   if not ref_side_prohibited(w, h, n)}
        for a in list(w.map.terrain)[::37]:
            for b in list(w.map.terrain)[::41]:
                assert w.dist(a, b) == w.grid.distance(a, b)
        for p in w.scenario.setup:
            if p.zone:
                zone = {h for z in p.zone for h in w.grid.within(w.hex_of(z), p.radius)
                        if h not in w.prohibited and h not in w.gray}
                assert w.setup_zones[p.unit] == zone


@pytest.mark.parametrize("scenario,seed,styles", [
    ("race-to-tunis", 3, ("random", "random")), ("race-to-tunis", 4, ("heuristic", "heuristic")),
    ("campaign", 5, ("random", "random")), ("campaign", 6, ("heuristic", "heuristic")),
    ("campaign", 7, ("random", "heuristic"))])
def test_memoised_supply_equals_a_fresh_trace(scenario: str, seed: int, styles) -> None:
    """Over every position of a game: memoised net == fresh Net == the naive reference."""
    probe = random.Random(seed)
    w = world(scenario)
    hexes = sorted(w.map.terrain)
    checked = 0
    for state in positions(scenario, seed, styles, every=1 if scenario != "campaign" else 3):
        for side in ("allied", "axis"):
            assert supply_report(state, w, side) == ref_report(state, w, side)
            assert ezoc(state, w, side) == ref_ezoc(state, w, side)
            own, foe = block_hexes(state, side), block_hexes(state, enemy(side))
            control = tuple(state.public.control.get(b) for b in w.home_bases[side])
            fresh = Net(w, side, w.gray_open(side, state.public.turn), foe,
                        own & zoc_of(w, foe), control)
            cached = net_for(state, w, side)
            ref = RefNet(state, w, side)
            assert cached.blocked == fresh.blocked == ref.blocked
            assert cached.major == fresh.major == ref.major
            assert cached.major_roads == fresh.major_roads == ref.major_roads
            for i, h in enumerate(probe.sample(hexes, 25)):
                assert cached.major_supplied(h) == ref.major_supplied(h), h
                assert cached.minor_options(h) == ref.minor_options(h), h
                if i >= 6:
                    continue
                ref_x = RefNet(state, w, side, extra=h)
                want = ref_x.major_supplied(h) or any(
                    p not in state.private[side].minor_ports for p in ref_x.minor_options(h))
                assert hex_in_supply(state, w, side, h) == want, h
        for b in w.inland_fallback:
            ref = RefNet(state, w, "allied")
            want = (state.public.control.get(b) == "allied" and b not in ref.blocked
                    and bool(ref.road_reach({b}) & set(w.edge_roads)))
            assert inland_base_open(state, w, b) == want
        checked += 1
    assert checked > 10


def test_reachable_matches_a_naive_dijkstra() -> None:
    """The bots' reachable() on precomputed step costs equals a Dijkstra over raw map costs."""
    import heapq
    w = world("campaign")
    for state in positions("campaign", 8, ("heuristic", "random"), every=7):
        side = state.public.active
        if side not in ("allied", "axis") or state.public.phase != "turn":
            continue
        for u in sorted(state.private[side].units.values(), key=lambda x: x.id)[:6]:
            if u.where != "map":
                continue
            for strat, mp in ((False, 4), (True, 8)):
                got = reachable(state, w, side, u.id, mp, strat)
                ez = ezoc(state, w, side)
                foe = block_hexes(state, enemy(side))
                best, heap = {u.hex: 0}, [(0, u.hex)]
                if strat and u.hex in ez:
                    assert got == {}
                    continue
                while heap:
                    c, h = heapq.heappop(heap)
                    if c > best[h]:
                        continue
                    for n in w.grid.neighbours(h):
                        if (n in w.prohibited or n in foe or ref_side_prohibited(w, h, n)
                                or (n in w.gray and not w.gray_open(side, state.public.turn))
                                or (strat and n in ez)):
                            continue
                        nc = c + hex_cost(w, w.units[u.id].type, h, n, n in ez) + side_cost(
                            w, h, n, state.public.weather)
                        if nc <= mp and nc < best.get(n, 1 << 30):
                            best[n] = nc
                            heapq.heappush(heap, (nc, n))
                assert set(got) == set(best) - {u.hex} - block_hexes(state, side)
