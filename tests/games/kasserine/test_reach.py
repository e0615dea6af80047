"""The move helper's search and the destination-only move agree with the movement rules (5.0).

``movement.cheapest_path`` (what ``move UNIT to HEX`` is written out as) and ``reach.unit_reach``
(the move helper of the report, built on ``movement.move_edges`` and ``movement.can_arrive``)
search the map on their own. These tests hold them to the rule checker, ``check_move``: an
exhaustive cheapest-first search in which every path is walked and accepted by ``check_move``
alone gives each hex's least MP, and the tie-broken path (MP, then fewest hexes, then hex ids
in order). ``cheapest_path`` must return exactly that path (KAS-5.1-a, KAS-5.2-d) and the move
helper exactly the hexes a move may end in, at that cost; ``can_arrive`` must say a
reinforcement may enter exactly when an ``enter`` order for it is legal (KAS-11.0-a, KAS-15.0-b,
KAS-5.5-b). Positions cover roads (KAS-5.4-a), enemy ZOCs for leg and mobile units (KAS-6.1-a,
KAS-6.1-c), friendly units passed through and not ended in (KAS-5.3-b), enemy units
(KAS-5.2-e) and the US minefields for both sides (KAS-14.1, KAS-14.2-a).
"""

from __future__ import annotations

import copy
import heapq
from typing import Any

import pytest

from pbem.core.errors import IllegalOrder
from pbem.core.rulecases import Case
from pbem.games.kasserine.board import data_of, occupancy
from pbem.games.kasserine.movement import can_arrive, check_move, cheapest_path
from pbem.games.kasserine.reach import unit_reach
from pbem.games.kasserine.rulecases import HOOKS
from pbem.games.kasserine.state import KasserineState

Label = tuple[int, int, tuple[str, ...]]


def build(**position: Any) -> KasserineState:
    """A position on the historical map, as a rule case describes it."""
    return HOOKS.build(Case(id="KAS-5.1-a", position=position))


def oracle(state: KasserineState, uid: str,
           entry: str | None = None) -> dict[tuple[str, bool], Label]:
    """Per (hex, must stop there), the least (half-MP spent, hexes entered, path) of a path that
    check_move accepts. The mover's own side's other units are taken off a copy first, so that
    a path may pass through them (they never negate an EZOC, 6.0-c; check_move refuses only
    ending stacked). entry: an arriving unit's entry hex (its paths start with it)."""
    data = data_of(state)
    side = state.units[uid].side
    free = copy.deepcopy(state)
    for k, u in free.units.items():
        if k != uid and u.side == side and u.status == "map":
            u.status, u.hex = "dead", ""
    start = state.units[uid].hex
    best: dict[tuple[str, bool], Label] = {}
    heap: list[tuple[int, int, tuple[str, ...], bool]] = [(state.units[uid].mp, 0, (), False)]
    if entry is not None:
        w0 = check_move(free, data, side, uid, [entry], True)
        best[(entry, w0.stopped)] = (w0.spent, 1, (entry,))
        heap = [(w0.spent, 1, (entry,), w0.stopped)]
    while heap:
        spent, n, path, stopped = heapq.heappop(heap)
        if path and best[(path[-1], stopped)] != (spent, n, path):
            continue
        if stopped:
            continue
        for h in sorted(data.map.grid.neighbours(path[-1] if path else start)):
            if h == start or h in path:
                continue
            try:
                w = check_move(free, data, side, uid, [*path, h], entry is not None)
            except IllegalOrder:
                continue
            key, label = (h, w.stopped), (w.spent, n + 1, (*path, h))
            if key not in best or label < best[key]:
                best[key] = label
                heapq.heappush(heap, (*label, w.stopped))
    return best


def least(labels: dict[tuple[str, bool], Label]) -> dict[str, Label]:
    """Per hex, the least label over both stop states."""
    out: dict[str, Label] = {}
    for (h, _), lab in labels.items():
        if h not in out or lab < out[h]:
            out[h] = lab
    return out


POSITIONS: dict[str, dict[str, Any]] = {
    # roads, a friendly unit on the way, an enemy ZOC: a mobile and a leg Axis unit
    "axis, roads and an EZOC": dict(units=[{"id": "crec", "hex": "3213"}, {"id": "cinf-1", "hex": "3311"},
                                           {"id": "pz7-2", "hex": "3215"}, {"id": "inf3-26", "hex": "3414"}]),
    # the US minefields around 2606, an enemy unit beyond them: the Axis crosses them only from
    # its start hex and stops (14.2)
    "axis at the minefields": dict(units=[{"id": "c31", "hex": "2507"}, {"id": "cinf-2", "hex": "2707"},
                                          {"id": "inf1-18", "hex": "2605"}]),
    # the same minefields cost the US +2 MP (14.1)
    "us at the minefields": dict(active="us", units=[{"id": "inf3-26", "hex": "2507"},
                                                     {"id": "td899", "hex": "2707"},
                                                     {"id": "pj90", "hex": "2404"}]),
    # the Mobile Movement Phase: mobile units only
    "mobile phase": dict(phase="mobile-movement", units=[{"id": "k10", "hex": "3213"},
                                                         {"id": "inf3-26", "hex": "3314"}]),
}


def movers(state: KasserineState) -> list[str]:
    """The active side's units on the map that may move in this phase."""
    data = data_of(state)
    return sorted(k for k, u in state.units.items()
                  if u.side == state.active and u.status == "map"
                  and (state.phase == "movement" or data.units[k].mobile))


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_cheapest_path_is_the_rules_cheapest_and_tie_broken_path(name: str) -> None:
    """KAS-5.1-a / KAS-5.2-d: for every hex within 4 of the unit, cheapest_path gives the least-MP path
    check_move accepts, with the fewest hexes and then the first hex ids; None where no legal
    move ends (out of reach, or held by any unit)."""
    state = build(**POSITIONS[name])
    data = data_of(state)
    occ = occupancy(state)
    for uid in movers(state):
        start = state.units[uid].hex
        want = least(oracle(state, uid))
        for h in sorted(data.map.grid.within(start, 4)):    # hexes out of reach too
            if h == start:
                continue
            got = cheapest_path(state, data, state.active, uid, h)
            expected = list(want[h][2]) if h in want and h not in occ else None
            assert got == expected, (name, uid, h, got, expected)


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_move_helper_offers_every_legal_end_at_its_least_cost(name: str) -> None:
    """KAS-5.1-a / KAS-5.3-b: the move helper's hexes a move may end in are exactly the hexes
    check_move lets the unit end in, each at its least MP; hexes only passed through are
    friendly-held ones."""
    state = build(**POSITIONS[name])
    occ = occupancy(state)
    helper = {r.unit: r for r in unit_reach(state, None, state.active)}
    assert sorted(helper) == movers(state), (name, sorted(helper))
    for uid in movers(state):
        want = {h: lab for h, lab in least(oracle(state, uid)).items() if h not in occ}
        ends = {r.hex: r.cost for r in helper[uid].hexes if r.end}
        assert set(ends) == set(want), (name, uid, sorted(set(ends) ^ set(want)))
        for h, cost in ends.items():
            assert cost == f"{want[h][0] / 2:g}", (name, uid, h, cost, want[h])
        for r in helper[uid].hexes:
            assert r.end or occ.get(r.hex) not in (None, uid), (name, uid, r)


ARRIVALS: dict[str, dict[str, Any]] = {
    "axis movement phase": dict(off=["s501", "aa580", "pg69-1"], released=["axis-gt1"],
                                units=[{"id": "pz5-1", "hex": "3213"}, {"id": "inf3-26", "hex": "0610"}]),
    "axis mobile movement phase": dict(phase="mobile-movement", off=["s501", "aa580", "pg69-1", "cinf-1"],
                                       released=["axis-gt1", "axis-youks", "axis-gt5-sbeitla"],
                                       units=[{"id": "pz5-1", "hex": "3213"}, {"id": "inf3-26", "hex": "0610"}]),
    "axis combat phase": dict(phase="combat", off=["s501"], released=["axis-gt1"],
                              units=[{"id": "inf3-26", "hex": "0610"}]),
    "us movement phase": dict(active="us", off=["ar3-13", "rgr1", "inf2-16", "s501"],
                              released=["us-gt1", "axis-gt1"],
                              units=[{"id": "pz5-1", "hex": "3213"}, {"id": "inf3-26", "hex": "0610"}]),
    "us mobile movement phase": dict(active="us", phase="mobile-movement",
                                     off=["ar3-13", "rgr1", "inf2-26", "td899"], released=["us-gt1"],
                                     units=[{"id": "pz5-1", "hex": "3213"}, {"id": "inf3-26", "hex": "0610"}]),
}


@pytest.mark.parametrize("name", sorted(ARRIVALS))
def test_can_arrive_is_exactly_a_legal_enter_order(name: str) -> None:
    """KAS-11.0-a / KAS-15.0-b / KAS-5.5-b: can_arrive (the move helper's and the bots' list of
    reinforcements) holds for a unit exactly when 'enter UNIT HEX' is legal for one of its entry
    hexes now: due (released), the owner's Movement Phase or, for a mobile unit of a group not
    limited to it, the Mobile Movement Phase; never for a unit on the map or not yet due."""
    state = build(**ARRIVALS[name])
    data = data_of(state)
    seen = {True: 0, False: 0}
    for uid, u in sorted(state.units.items()):
        if u.status == "dead":
            continue
        hexes = data.entry_hexes(data.arrival_of[uid][1].entry) if uid in data.arrival_of else []
        legal = False
        for h in hexes:
            try:
                check_move(state, data, u.side, uid, [h], True)
                legal = True
            except IllegalOrder:
                pass
        assert can_arrive(state, data, uid) == legal, (name, uid, u.status, legal)
        seen[legal] += 1
    assert seen[False] and (seen[True] or state.phase == "combat"), (name, seen)


@pytest.mark.parametrize("name", ["axis movement phase", "us movement phase"])
def test_destination_only_arrival_is_the_rules_cheapest_path(name: str) -> None:
    """KAS-11.0-a / KAS-5.2-d: 'enter UNIT ENTRY to HEX' is written out as the least-MP path
    from the entry hex that check_move accepts for the arrival (fewest hexes, then the first
    hex ids); None where no legal arrival ends."""
    state = build(**ARRIVALS[name])
    data = data_of(state)
    occ = occupancy(state)
    tried = 0
    for uid, u in sorted(state.units.items()):
        if u.status != "off" or u.side != state.active or not can_arrive(state, data, uid):
            continue
        for entry in data.entry_hexes(data.arrival_of[uid][1].entry)[:2]:
            try:
                want = least(oracle(state, uid, entry))
            except IllegalOrder:
                continue
            for h in sorted(data.map.grid.within(entry, 3)):
                got = cheapest_path(state, data, state.active, uid, h, entry=entry)
                expected = list(want[h][2]) if h in want and occ.get(h) in (None,) else None
                assert got == expected, (name, uid, entry, h, got, expected)
                tried += got is not None
    assert tried, name
