"""The bots' and move helper's search agrees with the movement rules (HF-9.1-b, HF-9.3-a).

``movement.reachable`` (every hex a unit could end a move in, with a cheapest path) and
``movement.cheapest_path`` (what a destination-only move is written out as) search the map
with a step table of their own. These tests hold them to the rule checker, ``check_path``: on
the synthetic map (80 hexes) an exhaustive cheapest-first search that prices and validates
every path with ``check_path`` alone gives the legal destinations, their least cost and the
tie-broken path (cost, then fewest hexes, then hex ids in order); ``reachable`` must return
exactly those destinations, each with a path ``check_path`` accepts at the least cost, and
``cheapest_path`` exactly the oracle's path. Positions cover EZOC along a road (HF-TEC-f,
HF-2-b), rough terrain for armor and infantry (HF-TEC-c), poor weather at rivers and bridges
(HF-7-e, HF-7-f), gray hexes (HF-8.1-h), prohibited terrain and hexsides (HF-TEC-a), friendly
blocks passed through and not ended in (HF-9.1-c), enemy blocks (HF-9.1-b) and strategic
movement (HF-9.3-a), at the last MP that reaches a hex and one short of it.
"""

from __future__ import annotations

import copy
import heapq
from typing import Any, Iterator

import pytest

from pbem.core.errors import IllegalOrder
from pbem.core.rulecases import Case
from pbem.games.holdfast.data import world
from pbem.games.holdfast.movement import check_path, cheapest_path, reachable
from pbem.games.holdfast.rulecases import HOOKS
from pbem.games.holdfast.state import HoldfastState
from pbem.games.holdfast.supply import block_hexes

Label = tuple[int, int, tuple[str, ...]]


def build(**position: Any) -> HoldfastState:
    """A position on the synthetic map, as a rule case describes it."""
    return HOOKS.build(Case(id="HF-9.1-b", position=position))


def oracle(state: HoldfastState, side: str, uid: str, mp: int,
           strategic: bool) -> dict[str, Label]:
    """Per hex, the least (cost, hexes entered, path) of a path check_path accepts with mp.

    The mover's other blocks are taken off a copy first, so that a path may pass through
    them (they make no ZOC for the mover, and check_path refuses only ending in one).
    """
    w = world(state.public.scenario)
    free = copy.deepcopy(state)
    start = free.private[side].units[uid].hex
    for other in [k for k in free.private[side].units if k != uid]:
        del free.private[side].units[other]
    best: dict[str, Label] = {start: (0, 0, ())}
    heap: list[tuple[int, int, tuple[str, ...], str]] = [(0, 0, (), start)]
    while heap:
        c, n, path, h = heapq.heappop(heap)
        if (c, n, path) != best[h]:
            continue
        for nxt in sorted(w.neighbours(h)):
            if nxt == start:
                continue
            try:
                costs = check_path(free, w, side, uid, [*path, nxt], mp, strategic)
            except IllegalOrder:
                continue
            label = (sum(costs), n + 1, (*path, nxt))
            if nxt not in best or label < best[nxt]:
                best[nxt] = label
                heapq.heappush(heap, (*label, nxt))
    del best[start]
    return best


POSITIONS: dict[str, dict[str, Any]] = {
    # inf2 on the road at 0304 (passed through), ger1 in Medjez 0504: its ZOC puts 0404 and 0604
    # on the road (a road hex in an EZOC costs 2 MP, not 1), rough 0505/0605, the escarpment
    "road into an EZOC": dict(units=[{"id": "inf1", "hex": "0204"}, {"id": "arm1", "hex": "0203"},
                                     {"id": "inf2", "hex": "0304"}, {"id": "ger1", "hex": "0504"}]),
    # rough 0505 and 0605 (armor 4, infantry 3), the escarpment 0505/0506, rivers and the bridge
    "rough, escarpment and rivers": dict(units=[{"id": "inf1", "hex": "0504"},
                                                {"id": "arm1", "hex": "0404"},
                                                {"id": "ger1", "hex": "0806"}]),
    # the red line 0302/0402 (prohibited hexside), salt marsh 0307, the sea on row 1
    "prohibited terrain": dict(units=[{"id": "inf1", "hex": "0303"}, {"id": "arm1", "hex": "0306"},
                                      {"id": "ger2", "hex": "0502"}]),
    # gray 0808/0908 (closed to the Allies on turn 3), the Mareth line 0807/0907, the road 1007-0908
    "gray hexes, Allied turn": dict(units=[{"id": "inf1", "hex": "0707"}, {"id": "arm1", "hex": "0906"},
                                           {"id": "ger1", "hex": "1004"}]),
    "gray hexes, Axis turn": dict(side="axis", units=[{"id": "ger1", "hex": "0707"},
                                                      {"id": "pz1", "hex": "1006"},
                                                      {"id": "inf1", "hex": "0504"}]),
    "gray hexes, Allied turn 9": dict(turn=9, units=[{"id": "inf1", "hex": "0707"},
                                                     {"id": "arm1", "hex": "0906"},
                                                     {"id": "ger1", "hex": "1004"}]),
    # an enemy block on the road ahead, friendly blocks beside it
    "enemy block ahead": dict(side="axis", units=[{"id": "pz1", "hex": "0904"}, {"id": "ger2", "hex": "1003"},
                                                  {"id": "ger3", "hex": "0804"}, {"id": "inf1", "hex": "0604"},
                                                  {"id": "arm1", "hex": "0805"}]),
}


def movers(state: HoldfastState, side: str) -> list[str]:
    """The side's blocks on the map (infantry and armor alike), in id order."""
    return sorted(k for k, u in state.private[side].units.items() if u.where == "map")


def searches(name: str) -> Iterator[tuple[HoldfastState, Any, str, str, bool, dict[str, Label],
                                          frozenset[str], tuple[Any, ...]]]:
    """For a named position, every (state, world, side, unit, strategic, oracle up to 10 MP,
    own block hexes, where) the movement tests check: each of the side's blocks, plain and
    strategic, in clear and poor weather (HF-7-e); the state's weather is set as it goes."""
    state = build(**POSITIONS[name])
    side = state.public.active
    w = world(state.public.scenario)
    own = block_hexes(state, side)
    for weather in ("clear", "poor"):
        state.public.weather = weather
        for uid in movers(state, side):
            start = state.private[side].units[uid].hex
            for strategic in (False, True):
                yield (state, w, side, uid, strategic, oracle(state, side, uid, 10, strategic),
                       own, (name, weather, uid, start, strategic))


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_reachable_is_every_legal_destination_at_its_least_cost(name: str) -> None:
    """HF-9.1-b / HF-9.3-a: reachable returns exactly the hexes check_path lets the unit end in,
    each with a path check_path accepts at the least cost, for every MP from 0 to 10, plain and
    strategic, in clear and poor weather (HF-7-e), for each of the side's blocks in turn."""
    for state, w, side, uid, strategic, full, own, at in searches(name):
        for mp in range(0, 11):
            got = reachable(state, w, side, uid, mp, strategic)
            want = {h: lab for h, lab in full.items() if lab[0] <= mp and h not in own}
            where = (*at, mp)
            assert set(got) == set(want), (where, sorted(set(got) ^ set(want)))
            for h, path in got.items():
                assert path[-1] == h, (where, h, path)
                costs = check_path(state, w, side, uid, list(path), mp, strategic)
                assert sum(costs) == want[h][0], (where, h, path, costs)


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_cheapest_path_is_the_rules_cheapest_and_tie_broken_path(name: str) -> None:
    """HF-9.1-b / HF-9.3-a: cheapest_path (a destination-only move) gives, for every hex, the
    least-cost legal path with the fewest hexes and then the first hex ids, or None where no
    legal path leads (plain and strategic, clear and poor weather, HF-7-e / HF-7-f)."""
    state = build(**POSITIONS[name])
    side = state.public.active
    w = world(state.public.scenario)
    for weather in ("clear", "poor"):
        state.public.weather = weather
        for uid in movers(state, side):
            start = state.private[side].units[uid].hex
            for strategic in (False, True):
                full = oracle(state, side, uid, 1000, strategic)
                for h in sorted(w.nbrs):
                    if h == start:
                        continue
                    got = cheapest_path(state, w, side, uid, h, strategic)
                    want = (full[h][0], list(full[h][2])) if h in full else None
                    assert got == want, ((name, weather, uid, start, strategic, h), got, want)


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_move_helper_offers_every_legal_end_at_its_least_cost(name: str) -> None:
    """HF-9.1-b / HF-9.1-c / HF-9.3-a: the move helper (reach._reach, what the report offers
    for each activation) lists as ends exactly the hexes check_path lets the unit end in, each
    at its least MP; following each listed hex's `prev` back to the unit gives a path that
    check_path accepts at exactly the MP shown at every step; a hex only passed through holds a
    friendly block and lies on the way to a listed end; a search with more MP (the leader's
    variant, HF-4-e) gives the same hexes within fewer MP. The report does not re-check these
    paths: this test is what holds them to the rules (every MP from 0 to 10, plain and
    strategic, clear and poor weather)."""
    from pbem.games.holdfast.movement import position, reach_tree
    from pbem.games.holdfast.reach import _reach

    for state, w, side, uid, strategic, full, own, at in searches(name):
        pos = position(state, w, side)
        wide = reach_tree(state, w, side, uid, 10, strategic, pos=pos)
        for mp in range(0, 11):
            where = (*at, mp)
            got = _reach(state, w, side, uid, mp, strategic, pos)
            # the leader's +1 MP: one search with the larger allowance serves both
            assert _reach(state, w, side, uid, mp, strategic, pos, wide) == got, where
            nodes = {r.hex: r for r in got}
            want = {h: lab[0] for h, lab in full.items() if lab[0] <= mp and h not in own}
            ends = {h: int(r.cost) for h, r in nodes.items() if r.end}
            assert ends == want, (where, sorted(set(ends) ^ set(want)))
            passed = set()
            for h, r in nodes.items():
                assert r.end == (h not in own), (where, r)
                if not r.end:
                    continue
                path, x = [], h
                while x:
                    path.append(x)
                    x = nodes[x].prev
                path.reverse()
                passed.update(path[:-1])
                costs = check_path(state, w, side, uid, path, mp, strategic)
                assert [int(nodes[y].cost) for y in path] == \
                    [sum(costs[:i + 1]) for i in range(len(path))], (where, path, costs)
            assert {h for h, r in nodes.items() if not r.end} <= passed, where


def test_strategic_movement_from_an_enemy_zoc_reaches_nothing() -> None:
    """HF-9.3-a: strategic movement may not begin in an EZOC: no destination and no path, while
    the same unit moving normally reaches its neighbours."""
    state = build(units=[{"id": "inf1", "hex": "0404"}, {"id": "ger1", "hex": "0504"}])
    w = world(state.public.scenario)
    assert reachable(state, w, "allied", "inf1", 8, True) == {}
    assert cheapest_path(state, w, "allied", "inf1", "0204", True) is None
    assert reachable(state, w, "allied", "inf1", 8, False)["0204"] == ["0304", "0204"]


def test_bots_support_choice_is_what_the_attack_rules_accept() -> None:
    """HF-9.4-b / HF-7-c / HF-4-c: the bots' choice of support (`one_support_per_kind`), for
    every ordering of every set of the Axis support units in clear and poor weather, is an
    attack the rules accept, keeps the listed order and the first unit of each kind, and each
    listed unit it leaves out would make the rules refuse the attack (a second air unit, a
    second unit of a kind, air in poor weather)."""
    from itertools import permutations

    from pbem.games.holdfast.combat import check_attack, one_support_per_kind, support_kind
    from pbem.games.holdfast.orders import Attack

    state = build(side="axis", units=[{"id": "ger1", "hex": "0404"}, {"id": "inf1", "hex": "0304"},
                                      {"id": "arnim", "where": "offmap"}, {"id": "air1", "where": "offmap"},
                                      {"id": "air2", "where": "offmap"}, {"id": "kg", "where": "offmap"}])
    w = world(state.public.scenario)
    pool = ["arnim", "air1", "air2", "kg"]
    seen_left_out = 0
    for weather in ("clear", "poor"):
        state.public.weather = weather
        for n in range(len(pool) + 1):
            for listed in permutations(pool, n):
                got = one_support_per_kind(w, list(listed), weather)
                assert got == [s for s in listed if s in got], (weather, listed, got)
                firsts = {}
                for s in listed:
                    firsts.setdefault(support_kind(w, s), s)
                assert all(firsts[support_kind(w, s)] == s for s in got), (weather, listed, got)
                check_attack(state, w, "axis", Attack(hex="0304", units=("ger1",), support=tuple(got)))
                for s in listed:
                    if s in got:
                        continue
                    seen_left_out += 1
                    with pytest.raises(IllegalOrder):
                        check_attack(state, w, "axis",
                                     Attack(hex="0304", units=("ger1",), support=(*got, s)))
    assert seen_left_out
