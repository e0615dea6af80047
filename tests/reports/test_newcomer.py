"""Issue 11: a newcomer plays from the report alone.

Set-up and reinforcements list every unit to place with the hexes the rules allow (and those
hexes are exactly the legal ones); errors for an unfinished set-up or a wrong entry hex name
the units and hexes; every unit list shows the id that orders use, with a legend of the values.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from pbem.core.dice import FixedDice, NoDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.core.options import bot_choices
from pbem.core.registry import find_game
from pbem.reports import render_html, render_text
from pbem.reports.context import ReportContext


def _defaults(game):
    return bot_choices(game.options())


def _ctx(game, state, side):
    return ReportContext(model=game.report(state, side), pending=list(game.pending(state)),
                         answer=[], events=[], rolls=[], game_id="0" * 32, seq=1,
                         file_name="x.pbem", file_hash="0" * 64, fingerprints={})


def _apply(game, state, side, lines, dice=(3, 4, 2, 5, 6, 1, 2, 3)):
    for n, line in enumerate(lines):
        game.apply(state, side, game.parse_order(line), Context(FixedDice(list(dice)), n))


def _legal(game, state, side, line) -> bool:
    """True if the order is accepted on a copy of the state (no dice needed)."""
    trial = copy.deepcopy(state)
    try:
        game.apply(trial, side, game.parse_order(line), Context(NoDice(), 0))
    except IllegalOrder:
        return False
    return True


def _helper_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="pbem-helper">(.*?)</script>', page, re.S)
    assert m, "the page embeds no helper data"
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def holdfast():
    return find_game("holdfast")


@pytest.fixture(scope="module")
def kasserine():
    return find_game("kasserine")


def test_holdfast_setup_lists_units_to_place_HF_12_1_a(holdfast):
    """HF-12.1-a: the Axis set-up report lists each set-up unit with exactly its legal hexes."""
    g = holdfast
    state = g.setup("race-to-tunis", _defaults(g))
    _apply(g, state, "axis", ["place superga tunis"])
    model = g.report(state, "axis")
    todo = {p.unit: p for p in model.placements}
    assert set(todo) == {"fjr5", "witzig"}
    for p in todo.values():
        assert p.kind == "set-up" and p.hexes and p.order == f"place {p.unit} HEX"
        for h in p.hexes:
            assert _legal(g, state, "axis", f"place {p.unit} {h}"), (p.unit, h)
    # the allowed list is complete: no other hex of the map is legal for the unit
    for h in g.game_map("race-to-tunis").grid.all_hexes():
        if h not in todo["witzig"].hexes:
            assert not _legal(g, state, "axis", f"place witzig {h}"), h
    text = render_text(_ctx(g, state, "axis"))
    assert "UNITS TO PLACE" in text and "Your units: none" not in text
    assert "Witzig [witzig]" in text and "'place witzig HEX' with HEX one of" in text
    page = render_html(_ctx(g, state, "axis"), g.game_map("race-to-tunis"))
    assert page.count('class="place-row"') == 2
    data = _helper_data(page)
    assert {p["unit"]: tuple(p["hexes"]) for p in data["place"]} == \
        {u: p.hexes for u, p in todo.items()}
    # the allied report shows nothing of the Axis set-up
    assert g.report(state, "allied").placements == []
    assert "witzig" not in render_text(_ctx(g, state, "allied"))


def test_holdfast_unfinished_setup_names_the_units_HF_12_1_a(holdfast):
    """HF-12.1-a: 'end' before every set-up unit is placed names the units still to place."""
    g = holdfast
    state = g.setup("race-to-tunis", _defaults(g))
    _apply(g, state, "axis", ["place superga tunis"])
    with pytest.raises(IllegalOrder) as e:
        _apply(g, state, "axis", ["end"])
    assert "fjr5" in str(e.value) and "witzig" in str(e.value) and "superga" not in str(e.value)
    with pytest.raises(IllegalOrder) as e:
        _apply(g, state, "axis", ["place witzig 0101"])
    assert "set-up hexes: " in str(e.value) and "1903" in str(e.value)


def _holdfast_turn1():
    g = find_game("holdfast")
    state = g.setup("race-to-tunis", _defaults(g))
    _apply(g, state, "axis", ["place superga tunis", "place fjr5 bizerte", "place witzig 1903",
                              "end"])
    _apply(g, state, "allied", ["move 36bde 1004-1104", "end"])
    return g, state


def test_holdfast_reinforcements_show_entry_hexes_HF_8_1_b():
    """HF-8.1-b: reinforcements due list turn, values and entry hexes; each is legal; a wrong
    entry hex's error lists the allowed ones."""
    g, state = _holdfast_turn1()
    model = g.report(state, "axis")
    todo = {p.unit: p for p in model.placements}
    assert set(todo) == {"10pz-a", "50bde", "barenthin"}
    for p in todo.values():
        assert p.turn == 1 and re.fullmatch(r"\d-\d-\d+ SP\d", p.values) and p.hexes
        for h in p.hexes:
            assert _legal(g, state, "axis", f"place {p.unit} {h}"), (p.unit, h)
    assert todo["10pz-a"].hexes == ("1802", "2005")
    due = next(pl for pl in model.panels if pl.title == "Reinforcements due").lines
    assert any(line.startswith("turn 1: 10th Panzer (A) [10pz-a] 5-6-8 SP4; enters at 1802")
               for line in due)
    assert any("[pgr86]" in line and line.startswith("turn 2:") and "enters at" in line
               for line in due)
    with pytest.raises(IllegalOrder) as e:
        _apply(g, state, "axis", ["place 10pz-a sousse"])
    assert "it may enter at 1802 (Bizerte), 2005 (Tunis)" in str(e.value)
    page = render_html(_ctx(g, state, "axis"), g.game_map("race-to-tunis"))
    assert {p["unit"] for p in _helper_data(page)["place"]} == set(todo)


def test_kasserine_reinforcements_show_names_values_and_entry_hexes_KAS_11_0_a(kasserine):
    """KAS-11.0-a: waiting reinforcements are listed with name, values and entry hexes; the
    hexes offered are legal entries; a wrong entry hex's error lists the entry hexes."""
    g = kasserine
    sc = next(iter(g.scenarios()))
    state = g.setup(sc, _defaults(g))
    model = g.report(state, "axis")
    todo = {p.unit: p for p in model.placements}
    assert "s501" in todo and todo["s501"].name == "s.Pz.Abt. 501 (Tiger)"
    assert todo["s501"].values == "6-5-10" and todo["s501"].hexes == ("3918", "3919", "3920")
    for p in todo.values():
        assert p.order == f"enter {p.unit} HEX..."
        for h in p.hexes:
            assert _legal(g, state, "axis", f"enter {p.unit} {h}"), (p.unit, h)
    due = next(pl for pl in model.panels if pl.title == "Reinforcements due").lines
    assert ("axis: s501 (s.Pz.Abt. 501 (Tiger)) 6-5-10 waiting to enter; entry hexes 3918, "
            "3919, 3920") in due
    assert any(line.startswith("axis, turn 2: Germany, Game Turn Two: aa3 (") for line in due)
    with pytest.raises(IllegalOrder) as e:
        _apply(g, state, "axis", ["enter s501 3225"])
    assert "entry hexes: 3918, 3919, 3920" in str(e.value)
    assert g.report(state, "us").placements == []        # not the US player's phase
    text = render_text(_ctx(g, state, "axis"))
    assert "s.Pz.Abt. 501 (Tiger) [s501] 6-5-10" in text


@pytest.mark.parametrize("name", ["holdfast", "kasserine"])
def test_unit_ids_and_value_legend_everywhere(name):
    """Every unit list (text, HTML table, map tooltip) shows the id orders use; a legend
    explains the values printed on a counter."""
    if name == "holdfast":
        g, state = _holdfast_turn1()
        side, legend = "axis", "DRC-TH-MP"
    else:
        g = find_game("kasserine")
        state = g.setup("historical", _defaults(g))
        _apply(g, state, "axis", ["enter s501 3919"])
        side, legend = "axis", "A-D-M"
    model = g.report(state, side)
    own = [u for u in model.units if u.side == side and not u.masked]
    assert own and all(u.id for u in own)
    assert any(legend in line for line in model.legend)
    ctx = _ctx(g, state, side)
    text = render_text(ctx)
    assert "COUNTER VALUES" in text and legend in text
    page = render_html(ctx, g.game_map(model.scenario))
    assert legend in page
    for u in own:
        assert re.search(rf"^    {u.hex}\s+.*\b{re.escape(u.id)}\b", text, re.M), u.id
        assert f'<td class="mono">{u.id}</td>' in page
        tip = re.search(rf'<g class="unit own" data-hex="{u.hex}"[^>]* '
                        rf'data-unit="{re.escape(u.id)}"[^>]*><title>([^<]*)</title>', page)
        assert tip and u.id in tip.group(1), u.id
    for u in model.units:
        if u.masked:
            assert u.id == ""
