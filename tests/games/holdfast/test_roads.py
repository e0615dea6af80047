"""Road components found chain by chain (pbem.games.holdfast.roads) equal the plain search."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.holdfast.data import world
from pbem.games.holdfast.roads import Segments, plain_component

NODES = [f"{i:04d}" for i in range(14)]


@st.composite
def road_nets(draw):
    """Small road nets: chains, junctions, rings without junctions, dead ends, isolated
    hexes, and sometimes a one-way link (then every search is the plain one)."""
    edges = draw(st.sets(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES))
                         .filter(lambda e: e[0] != e[1]), max_size=22))
    road: dict[str, set[str]] = {n: set() for n in draw(st.sets(st.sampled_from(NODES)))}
    one_way = draw(st.booleans()) and draw(st.booleans())
    for i, (a, b) in enumerate(sorted(edges)):
        road.setdefault(a, set()).add(b)
        if not (one_way and i == 0):
            road.setdefault(b, set()).add(a)
    return {h: tuple(sorted(ns)) for h, ns in road.items()}


@settings(max_examples=400, deadline=None)
@given(road_nets(), st.sets(st.sampled_from(NODES)), st.sampled_from(NODES + ["elsewhere"]))
def test_a_chain_by_chain_component_is_the_plain_one(road, blocked, start):
    seg = Segments(road)
    assert seg.component(start, frozenset(blocked)) == plain_component(road, start, blocked)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_on_the_holdfast_map(data):
    """The real road net, blocked hexes drawn from it (as enemy blocks and their ZOC are)."""
    w = world("campaign")
    hexes = sorted(w.road_nbrs)
    seg = Segments(w.road_nbrs)
    assert seg.symmetric and seg.arcs
    blocked = frozenset(data.draw(st.lists(st.sampled_from(hexes), max_size=40))) | w.prohibited
    start = data.draw(st.sampled_from(hexes))
    assert seg.component(start, blocked) == plain_component(w.road_nbrs, start, blocked)


@settings(max_examples=300, deadline=None)
@given(road_nets(), st.lists(st.tuples(st.sets(st.sampled_from(NODES)),
                                       st.sampled_from(NODES + ["elsewhere"])), max_size=12))
def test_a_reused_component_is_the_plain_one(road, asks):
    """component_in over a run of blocked sets (each reusing what it may) equals the plain
    search every time."""
    seg = Segments(road)
    for blocked, start in asks:
        blocked = frozenset(blocked)
        got = seg.component_in(start, blocked, blocked & seg.hexes)
        assert got == plain_component(road, start, blocked)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_reused_components_on_the_holdfast_map(data):
    """The real road net, a run of blocked sets that each differ from the last by a few
    hexes (as positions do from one order to the next)."""
    w = world("campaign")
    hexes = sorted(w.road_nbrs)
    seg = Segments(w.road_nbrs)
    blocked = set(data.draw(st.lists(st.sampled_from(hexes), max_size=30)))
    for _ in range(data.draw(st.integers(1, 12))):
        blocked ^= set(data.draw(st.lists(st.sampled_from(hexes), max_size=4)))
        start = data.draw(st.sampled_from(hexes))
        stops = frozenset(blocked) | w.prohibited
        got = seg.component_in(start, stops, stops & seg.hexes)
        assert got == plain_component(w.road_nbrs, start, stops)
