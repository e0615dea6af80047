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
    assert data["reach"] and {r[0] for r in data["reach"]} <= own  # [unit, hex, ...]
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


def unpack(data: dict, map_hexes) -> dict:
    """The page's data read back as movehelper.js reads it: (unit, order line template,
    separator) -> {hex: (cost, previous hex, end)}."""
    b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    def varints(text):
        out, v, shift = [], 0, 0
        for ch in text:
            d = b64.index(ch)
            v += (d & 31) << shift
            if d >= 32:
                shift += 5
            else:
                out.append(v)
                v, shift = 0, 0
        return out

    def runs(text):
        nums, out, pos = varints(text), [], 0
        for gap, length in zip(nums[::2], nums[1::2]):
            pos += gap
            out += range(pos, pos + length)
            pos += length
        return out

    hexes = sorted(set(map_hexes)) + data["extra"]
    assert len(hexes) == data["n"]
    out = {}
    for unit, hx, _label, _allowance, o, at, to in data["reach"]:
        text, sep, template = data["orders"][o]
        order = hx.join(unit.join(text.split("{u}")).split("{h}")) if template else text
        nums = runs(at)
        steps = dict(zip(nums, (data["steps"][s] for s in varints(to)), strict=True))

        def cost(k):
            off, delta, _ = steps[k]
            return delta if off is None else cost(k + off) + delta

        out[(unit, order, sep)] = {
            hexes[k]: (data["costs"][cost(k)], "" if s[0] is None else hexes[k + s[0]],
                       bool(s[2])) for k, s in steps.items()}
    return out


def _packed(model, map_hexes) -> dict:
    from pbem.reports.render import helper_data

    ctx = ReportContext(model=model, pending=[], answer=[], events=[], rolls=[],
                        game_id="0" * 32, seq=1, file_name="x.pbem", file_hash="0" * 64,
                        fingerprints={})
    return json.loads(json.dumps(helper_data(ctx, map_hexes)))


def _want(model) -> dict:
    return {(r.unit, r.order, r.sep): {x.hex: (x.cost, x.prev, x.end) for x in r.hexes}
            for r in model.reach}


def _kasserine_us_turn():
    g = find_game("kasserine")
    state = g.setup("historical", {k: v.default for k, v in g.options().items()})
    for n in range(5):
        if g.pending(state)[0].side == "us":
            break
        g.apply(state, "axis", g.parse_order("end"), Context(FixedDice([3] * 20), n))
    return g, state


@pytest.mark.parametrize("which", ["holdfast-allied", "kasserine-axis", "kasserine-us"])
def test_packed_reach_gives_back_every_hex_cost_and_path_KAS_5_2_d(which):
    """KAS-5.2-d, HF-9.1-b: the packed move helper data, read back as the page's script reads
    it, gives every unit's reachable hexes with the cost, previous hex and end flag the rules
    computed, and its order line; and it is much smaller than the hexes written out."""
    if which == "holdfast-allied":
        g, state = holdfast_allied_turn()
        side = "allied"
    elif which == "kasserine-axis":
        g = find_game("kasserine")
        state = g.setup("historical", {k: v.default for k, v in g.options().items()})
        side = "axis"
    else:
        g, state = _kasserine_us_turn()
        side = "us"
    model = g.report(state, side)
    assert model.reach
    map_hexes = g.game_map(model.scenario).grid.all_hexes()
    data = _packed(model, map_hexes)
    assert unpack(data, map_hexes) == _want(model)
    hexes = sum(len(r.hexes) for r in model.reach)
    # about 1.5 bytes per reachable hex with its cost and path (was 15, then 6)
    assert len(json.dumps(data["reach"])) < 2.5 * hexes + 120 * len(model.reach), hexes


def test_packed_reach_edge_cases():
    """Hexes off the map, costs that are not numbers, order lines that are no template, more
    steps than one digit holds, a unit with nothing to reach: all read back exactly."""
    from pbem.core.game import Reach, ReportModel

    grid = [f"{c:02d}{r:02d}" for c in range(1, 41) for r in range(1, 41)]
    far = [Reach(hex=grid[0], cost="0.5", prev="")]
    for k in range(1, 300):     # a long zigzag: many different (offset, cost) steps
        far.append(Reach(hex=grid[k * 5], cost=f"{k * k * 31 % 211}.5", prev=far[-1].hex,
                         end=k % 3 != 0))
    reach = [
        UnitReach(unit="a1", hex="0101", label="A 1", allowance="9 MP",
                  order="move a1 0101-{path}", sep="-", hexes=tuple(far)),
        UnitReach(unit="b{h}", hex="0202", label="B", allowance="all",  # no template fits
                  order="move b{h} {path} {u}", sep=" ",
                  hexes=(Reach(hex="X9", cost="nan", prev=""),            # off the map
                         Reach(hex="0203", cost="1/2", prev="X9", end=False),
                         Reach(hex="0204", cost="all", prev="0203"))),
        UnitReach(unit="c", hex="", label="C", allowance="0", order="enter c {path}", sep=" "),
        UnitReach(unit="d", hex="4040", label="D", allowance="1", order="move d 4040-{path}",
                  sep="-", hexes=(Reach(hex="4039", cost="1", prev=""),)),
    ]
    model = ReportModel(game="g", game_title="G", scenario="s", side="allied", turn=1,
                        turn_label="1", phase="move", units=[], markers=[], arrows=[],
                        panels=[], reach=reach)
    data = _packed(model, grid)
    assert data["extra"] == ["X9"] and len(data["steps"]) > 64
    assert data["orders"][0] == ["move {u} {h}-{path}", "-", 1]
    assert ["move b{h} {path} {u}", " ", 0] in data["orders"]
    # numbers in numeric order, then the rest (a NaN too) in text order: the same every run
    assert data["costs"][:4] == ["0.5", "1", "2.5", "3.5"]
    assert data["costs"][-4:] == ["210.5", "1/2", "all", "nan"]
    assert unpack(data, grid) == _want(model)


def test_packed_reach_refuses_a_path_through_an_unlisted_hex():
    """A path whose previous hex is not among the unit's hexes cannot be packed: an error,
    never a page whose script draws a wrong path."""
    from pbem.core.game import Reach, ReportModel

    model = ReportModel(game="g", game_title="G", scenario="s", side="allied", turn=1,
                        turn_label="1", phase="move", units=[], markers=[], arrows=[],
                        panels=[], reach=[UnitReach(unit="a", hex="0101", label="A",
                                                    allowance="1", order="{path}", sep="-",
                                                    hexes=(Reach(hex="0102", cost="1",
                                                                 prev="0103"),))])
    with pytest.raises(ValueError, match="move helper data of a"):
        _packed(model, ["0101", "0102", "0103"])


def test_holdfast_leader_bonus_moves_are_offered_HF_4_e():
    """HF-4-e: while the leader's +1 MP is unused, each unit also gets a 'leader move' entry
    whose hexes are legal 'move ... leader' orders at the cost shown, and reach further."""
    import random

    from pbem.core.dice import KeyedDice
    from pbem.core.standing import apply_order, parse_line

    g = find_game("holdfast")
    rng = random.Random(5)
    state = g.setup("campaign", {k: v.default for k, v in g.options().items()})
    found = None
    for _ in range(200):
        side = g.pending(state)[0].side
        model = g.report(state, side) if g.pending(state)[0].kind == "turn" else None
        leader = [r for r in (model.reach if model else []) if r.order.endswith(" leader")]
        if leader:
            found = (side, model, leader)
            break
        for k, line in enumerate(g.bot(state, side, rng, "heuristic")):
            if side not in {d.side for d in g.pending(state)}:
                break
            apply_order(g, state, side, parse_line(g, line),
                        Context(KeyedDice(rng.randbytes(32)), k))
    assert found, "no position with a leader's bonus available in the sample game"
    side, model, leader = found
    w = world(state.public.scenario)
    for r in leader[:4]:
        plain = next(x for x in model.reach if x.unit == r.unit and x.order.endswith("{path}"))
        assert int(r.allowance.split()[0]) == int(plain.allowance.split()[0]) + 1
        assert {x.hex for x in plain.hexes} <= {x.hex for x in r.hexes}
        for x in r.hexes:
            line = order_line(r, x.hex)
            assert _legal(g, state, side, line) == x.end, line
            if x.end:
                path = line.split()[2].split("-")[1:]
                mp = int(r.allowance.split()[0])
                assert str(sum(check_path(state, w, side, r.unit, path, mp, False))) == x.cost
