"""Baptism By Fire rules that are properties of the data and of the state built from it:
Formations and their HQs (4.1a, 4.1b, BbF 2.2), the three slow non-rebuildable units (BbF 3.3),
one terrain per hex (5.2d) and the visibility limit (BbF 1.1e)."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from pbem.core.rulecases import Case
from pbem.games.bcs.board import bdata
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.orders import Move
from pbem.games.bcs.rulecases import HOOKS, OPTIONS
from pbem.games.bcs.terrain import step_cost
from pbem.games.bcs.zoc import VISIBILITY, engagement_zone


def test_each_formation_has_one_hq() -> None:
    """BCS-4.1a: every Formation has exactly one HQ (and one Combat Trains), and the state's
    Formation points at it."""
    d = bdata()
    hqs = Counter(h.formation for h in d.hqs.values())
    trains = Counter(t.formation for t in d.trains.values())
    assert set(hqs) == set(d.formations) and set(hqs.values()) == {1}
    assert set(trains) == set(d.formations) and set(trains.values()) == {1}
    state = ENGINE.setup("5.2", OPTIONS)
    in_52 = [f for f in state.formations.values() if f.hq in state.pieces]
    assert len(in_52) >= 9
    for f in in_52:
        assert state.pieces[f.hq].kind == "hq" and state.pieces[f.hq].formation == f.id


def test_units_keep_their_printed_formation() -> None:
    """BCS-4.1b: a unit with a printed Formation belongs to it in the state, and no order names
    a Formation for a unit (a move names units and hexes only)."""
    d = bdata()
    state = ENGINE.setup("5.2", OPTIONS)
    for p in state.pieces.values():
        if p.kind == "unit":
            assert p.formation == d.units[p.id].formation
    assert {f.name for f in msgspec.structs.fields(Move)} == {"units", "path"}


def test_panzer_kampfgruppen_are_separate_formations() -> None:
    """BBF-2.2: the five Panzer Division Kampfgruppen (10 Pz: Reimann, Gerhardt, Lang; 21 Pz:
    Schutte, Stenkhoff) are five Formations, each with its own HQ, Trains and activation
    marker, linked only as Buddies (BbF 1.3) within their Division."""
    from pbem.games.bcs.mixing import buddies

    d = bdata()
    kgs = {"reim": "10 Pz Div", "gerhardt": "10 Pz Div", "lang": "10 Pz Div",
           "schutte": "21 Pz Div", "stenkhoff": "21 Pz Div"}
    for fid, div in kgs.items():
        assert d.formations[fid].division == div
    state = ENGINE.setup("5.2", OPTIONS)
    assert len({state.formations[f].hq for f in kgs}) == 5
    assert len({state.formations[f].trains for f in kgs}) == 5
    for a in kgs:
        for b in kgs:
            if a != b:
                assert buddies(a, b) == (kgs[a] == kgs[b])


def test_three_slow_units_are_non_rebuildable() -> None:
    """BBF-3.3-b: TF Drake, TF Waters and 3/168 are non-rebuildable and carry slow MAs (Leg 2)."""
    d = bdata()
    slow = {u.id for u in d.units.values() if u.start_hex_exempt}
    assert slow == {"drake", "waters", "3-168-inf"}
    for uid in slow:
        u = d.units[uid]
        assert u.non_rebuildable
        assert u.move.ma == 2 and u.move.mclass == "leg"


def test_one_terrain_per_hex_village_costs_other_terrain() -> None:
    """BCS-5.2d: each hex holds one area terrain (its quantity plays no part); a Village, costed
    'other terrain', costs what the hex's other terrain (Open) costs, and a road through it is
    followed at the road rate."""
    d = bdata()
    gm = d.game_map
    assert all(isinstance(t, str) and t in d.terrain for t in gm.terrain.values())
    villages = [h for h, t in gm.terrain.items() if t == "village"]
    assert villages
    grid = gm.grid
    for h in villages:
        for n in grid.neighbours(h):
            if n in gm.terrain and not gm.hexside(n, h):
                road = any(gm.road_between(n, h, k) for k in
                           ("primary_road", "secondary_road", "track", "railroad"))
                for cls, open_mp in (("leg", 12), ("tac", 12), ("truck", 24)):
                    c = step_cost(n, h, cls, False)
                    if not road:
                        assert c.mp == open_mp, (n, h, cls)
                    else:
                        assert c.road


@pytest.mark.parametrize("distance,reached", [(4, True), (5, False)])
def test_visibility_caps_engagement_zones(monkeypatch: pytest.MonkeyPatch, distance: int,
                                          reached: bool) -> None:
    """BBF-1.1e: visibility is 4 hexes: an AV unit given Range 6 (no counter of the game has
    more than 3) projects its Engagement Zone 4 hexes, not 5 (B4.18 to B12.18 are open)."""
    d = bdata()
    u = d.units["90-mdr"]
    monkeypatch.setitem(d.units, "90-mdr", msgspec.structs.replace(
        u, move=msgspec.structs.replace(u.move, range=6)))
    assert VISIBILITY == 4
    state = HOOKS.build(Case(id="x", position={"units": [
        {"id": "reim-hq", "hex": "B49.17"}, {"id": "90-mdr", "hex": "B4.18"}]}))
    target = f"B{4 + distance}.18"
    assert bdata().game_map.grid.distance("B4.18", target) == distance
    assert engagement_zone(state, "allied", target) is reached
