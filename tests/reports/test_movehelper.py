"""Issue 11 item 4: the move helper's data (pbem/games/<game>/reach.py).

Every hex offered as a destination is a legal move whose order line (built from the data as
the page's script builds it) the rules accept, at the cost shown; the hexes left out cannot be
reached; the data holds only the viewer's own units and nothing hidden of the enemy.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from pbem.core.dice import FixedDice, NoDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context, UnitReach
from pbem.core.registry import find_game
from pbem.games.holdfast.data import world
from pbem.games.holdfast.movement import check_path
from pbem.games.kasserine.board import data_of
from pbem.games.kasserine.movement import cheapest_path, check_move
from pbem.reports import render_html
from pbem.reports.context import ReportContext


def order_line(r: UnitReach, dest: str) -> str:
    """The order line the page writes for a click on dest (the same walk as movehelper.js)."""
    to = {x.hex: x for x in r.hexes}
    path = []
    h = dest
    while h:
        path.insert(0, h)
        h = to[h].prev
    return r.order.replace("{path}", r.sep.join(path))


def _legal(game, state, side, line) -> bool:
    trial = copy.deepcopy(state)
    try:
        order = game.expand_order(trial, side, game.parse_order(line))   # 'move UNIT to HEX'
        game.apply(trial, side, order, Context(NoDice(), 0))
    except IllegalOrder:
        return False
    return True


def _apply(game, state, side, lines):
    for n, line in enumerate(lines):
        game.apply(state, side, game.parse_order(line), Context(FixedDice([3, 4, 2, 5, 6]), n))


def holdfast_allied_turn():
    g = find_game("holdfast")
    state = g.setup("race-to-tunis", {k: v.default for k, v in g.options().items()})
    _apply(g, state, "axis", ["place superga tunis", "place fjr5 bizerte", "place witzig 1903",
                              "end"])
    return g, state


def test_holdfast_reach_is_exactly_the_legal_moves_HF_9_1_b():
    """HF-9.1-b: each offered hex is a legal move at the cost shown; no other hex is."""
    g, state = holdfast_allied_turn()
    w = world(state.public.scenario)
    model = g.report(state, "allied")
    assert model.reach, "the allied player may move"
    assert g.report(state, "axis").reach == []               # not the axis player's turn
    all_hexes = g.game_map("race-to-tunis").grid.all_hexes()
    for r in model.reach:
        u = state.private["allied"].units[r.unit]
        assert r.hex == u.hex and r.order == f"move {r.unit} {u.hex}-{{path}}" and r.sep == "-"
        ends = {x.hex for x in r.hexes if x.end}
        for x in r.hexes:
            line = order_line(r, x.hex)
            assert _legal(g, state, "allied", line) == x.end, line
            if not x.end:
                continue
            path = line.split()[2].split("-")[1:]
            mp = int(r.allowance.split()[0])
            assert str(sum(check_path(state, w, "allied", r.unit, path, mp, False))) == x.cost
        grid = g.game_map("race-to-tunis").grid
        frontier = {n for h in ends | {u.hex} for n in grid.neighbours(h)} - ends - {u.hex}
        if r.unit in ("36bde", "6ad-a"):              # nothing just beyond the reach is legal
            for h in sorted(frontier):
                if h in all_hexes:
                    assert not _legal(g, state, "allied", f"move {r.unit} to {h}"), (r.unit, h)


def test_kasserine_reach_matches_the_rules_KAS_5_2_d():
    """KAS-5.2-d, KAS-11.0-a: every offered hex is a legal move or entry at the cost shown,
    and agrees with the rules' own cheapest path search; no other hex is reachable."""
    g = find_game("kasserine")
    state = g.setup("historical", {k: v.default for k, v in g.options().items()})
    data = data_of(state)
    model = g.report(state, "axis")
    entering = [r for r in model.reach if r.hex == ""]
    assert entering and all(r.order.startswith(f"enter {r.unit} ") for r in entering)
    for r in entering[:3]:
        for x in r.hexes:
            line = order_line(r, x.hex)
            assert _legal(g, state, "axis", line) == x.end, line
            if x.end:
                path = line.split()[2:]
                spent = check_move(state, data, "axis", r.unit, path, True).spent
                assert f"{spent / 2:g}" == x.cost
    # the US player's turn: units on the map
    for n, line in enumerate(["end"] * 5):
        if g.pending(state)[0].side == "us":
            break
        g.apply(state, "axis", g.parse_order(line), Context(FixedDice([3] * 20), n))
    assert g.pending(state)[0].side == "us"
    model = g.report(state, "us")
    movers = [r for r in model.reach if r.hex]
    assert movers
    for r in movers[:2]:
        ends = {x.hex for x in r.hexes if x.end}
        for x in r.hexes:
            line = order_line(r, x.hex)
            assert _legal(g, state, "us", line) == x.end, line
            if x.end:
                best = cheapest_path(state, data, "us", r.unit, x.hex)
                assert best is not None
                assert f"{check_move(state, data, 'us', r.unit, best, False).spent / 2:g}" == x.cost
        grid = data.map.grid
        frontier = {n for h in ends | {r.hex} for n in grid.neighbours(h)} - ends - {r.hex}
        for h in sorted(frontier):                    # nothing just beyond the reach is legal
            assert cheapest_path(state, data, "us", r.unit, h) is None, (r.unit, h)


@pytest.mark.parametrize("name", ["holdfast", "kasserine"])
def test_reach_data_holds_only_the_viewers_units(name):
    """The embedded data names only the viewer's own units and no hidden enemy value."""
    if name == "holdfast":
        g, state = holdfast_allied_turn()
        side, other = "allied", "axis"
    else:
        g = find_game("kasserine")
        state = g.setup("historical", {k: v.default for k, v in g.options().items()})
        side, other = "axis", "us"
    model = g.report(state, side)
    ctx = ReportContext(model=model, pending=list(g.pending(state)), answer=[], events=[],
                        rolls=[], game_id="0" * 32, seq=1, file_name="x.pbem",
                        file_hash="0" * 64, fingerprints={})
    page = render_html(ctx, g.game_map(model.scenario))
    raw = re.search(r'id="pbem-helper">(.*?)</script>', page, re.S).group(1)
    data = json.loads(raw)
    own = {uid for uid, u in (state.private[side].units.items() if name == "holdfast"
                              else state.units.items())
           if name == "holdfast" or u.side == side}
    assert data["reach"] and {r["unit"] for r in data["reach"]} <= own
    for secret in g.secrets(state, other):
        assert not re.search(rf"\b{re.escape(secret)}\b", raw), secret


def test_holdfast_strategic_moves_offered_HF_9_3_a():
    """HF-9.3-a: an in-supply unit outside any EZOC also gets its strategic reach (twice its
    MP, 'strat' in the order); one starting in an EZOC gets none."""
    from pbem.core.rulecases import Case
    from pbem.games.holdfast.rulecases import HOOKS

    g = HOOKS.game
    state = HOOKS.build(Case(id="HF-9.3-a", position={"units": [{"id": "inf1", "hex": "0104"}]}))
    reach = {r.order.endswith(" strat"): r for r in g.report(state, "allied").reach}
    assert set(reach) == {False, True}
    normal, strat = reach[False], reach[True]
    assert strat.allowance.startswith("8 MP") and normal.allowance.startswith("4 MP")
    assert {x.hex: x.cost for x in strat.hexes}["0904"] == "8"
    assert "0904" not in {x.hex for x in normal.hexes}
    for x in strat.hexes:
        line = order_line(strat, x.hex)
        assert line.endswith(" strat") and _legal(g, state, "allied", line) == x.end, line
    state = HOOKS.build(Case(id="HF-9.3-a", position={"units": [{"id": "inf1", "hex": "0104"},
                                                                 {"id": "ger1", "hex": "0203"}]}))
    assert [r.order.endswith(" strat") for r in g.report(state, "allied").reach] == [False]
