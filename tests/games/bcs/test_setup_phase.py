"""The Set-up Notes (BCS 1.4A, 1.4D, 1.4E, 1.4G) in the data and the engine: set-up zones in the
scenario files (validated at load, a broken zone one ScenarioError line naming the file), sides
the set-up states, the engine's default side where the terrain prohibits the Move side, the
first turn's preset weather, and both bots answering the Set-up decision.

No printed set-up of a playable scenario (5.2, 5.4) uses 'w/i X' or a zone (the rulebook's
scenarios give hexes only), so the zones here are scenario variants: 5.2's data is changed for
one test (pytest's monkeypatch puts it back) or a copy of the data files gets one fault.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import msgspec
import pytest

from pbem.core.errors import IllegalOrder, ScenarioError
from pbem.core.game import Context
from pbem.core.dice import FixedDice
from pbem.games.bcs import load_data
from pbem.games.bcs.board import bdata
from pbem.games.bcs.data import Zone
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.loader import DATA_DIR, zone_hexes

OPTIONS = {"entry_blocking": "attack_from_off_map"}
G1 = """side = "allied"
hex = "B19.07"
counter = "g-1-arm\""""


def variant(monkeypatch: pytest.MonkeyPatch, scenario: str, counter: str, **values) -> None:
    """Change one placement of a scenario's set-up for this test only."""
    s = bdata().scenarios[scenario]
    setup = [msgspec.structs.replace(p, **values) if p.counter == counter else p
             for p in s.setup]
    monkeypatch.setitem(bdata().scenarios, scenario, msgspec.structs.replace(s, setup=setup))


def order(state, side: str, line: str, dice: list[int] | None = None) -> None:
    """Apply one order line."""
    ENGINE.apply(state, side, ENGINE.parse_order(line), Context(FixedDice(dice or []), action=0))


# -- 1.4A, 1.4D in the data ---------------------------------------------------------------------

def test_BCS_1_4A_a_zone_in_the_data_is_placed_by_its_owner(monkeypatch):
    """BCS-1.4A: g-1-arm 'w/i 2' of B14.09 (a 5.2 variant): the Allies must decide (no option
    asked), the counter waits off the map until placed, at or within 2 hexes."""
    variant(monkeypatch, "5.2", "g-1-arm", hex="", zone=Zone(of="B14.09", within=2))
    state = ENGINE.setup("5.2", OPTIONS)
    p = state.pieces["g-1-arm"]
    assert (p.status, p.hex, state.phase, state.setting) == ("setup", "", "setup", ["allied"])
    d = ENGINE.pending(state)[0]
    assert (d.side, d.kind) == ("allied", "setup")
    assert "to place: g-1-arm w/i 2 of B14.09" in d.detail
    assert b'"top":"g-1-arm"' not in msgspec.json.encode(ENGINE.view(state, "axis"))
    with pytest.raises(IllegalOrder) as e:
        order(state, "allied", "setup g-1-arm B17.09")
    assert e.value.rule == "BCS-1.4A"
    order(state, "allied", "setup g-1-arm B16.09 deployed")
    order(state, "allied", "setup done")
    p = state.pieces["g-1-arm"]
    assert (p.status, p.hex, p.home, p.face) == ("map", "B16.09", "B16.09", "deployed")
    assert (state.phase, state.next_side, state.setup_zones) == ("activate", "axis", {})


def test_BCS_1_4D_zone_hexes_include_the_boundary_lines():
    """BCS-1.4D: a box between columns 12-16 and rows 07-09 holds its corner and edge hexes
    (boundary lines included) and nothing beyond them; 'w/i 2' holds the hexes at distance 2."""
    gm = bdata().game_map
    box = zone_hexes(gm, Zone(box=["B16.09", "B12.07"]), ["B"])
    assert {"B12.07", "B16.09", "B12.09", "B16.07", "B14.08"} <= set(box)
    assert not {"B11.08", "B17.08", "B14.06", "B14.10"} & set(box)
    assert len(box) == 5 * 3
    ring = zone_hexes(gm, Zone(of="B14.09", within=2), ["B"])
    assert "B16.09" in ring and "B17.09" not in ring and len(ring) == 19
    assert zone_hexes(gm, Zone(of="B14.09", within=2), ["A"]) == []


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    dst = tmp_path / "bcs"
    shutil.copytree(DATA_DIR, dst)
    return dst


@pytest.mark.parametrize("zone, pattern", [
    ('zone = {of = "B14.09"}', r"'within' is the X of 'w/i X' .*\(rule BCS-1\.4A\)"),
    ('zone = {of = "B99.09", within = 2}', r"zone: unknown hex 'B99\.09' \(rule BCS-1\.4A\)"),
    ('zone = {of = "B14.09", within = 2, hexes = ["B14.10"]}',
     r"one of them\) \(rule BCS-1\.4D\)"),
    ('zone = {box = ["B12.07", "A16.09"]}', r"two corner hexes of one map sheet \(rule BCS-1\.4D\)"),
    ('zone = {hexes = ["A12.07"]}', r"no hex of it lies in the playing area \(rule BCS-1\.4D\)"),
    ('zone = {hexes = []}', r"one of them\) \(rule BCS-1\.4D\)"),
])
def test_a_broken_zone_is_one_line_naming_the_file(data_copy, zone, pattern):
    """BCS-1.4A, BCS-1.4D: a set-up zone that cannot be read is refused at load."""
    p = data_copy / "scenarios" / "5.2.toml"
    text = p.read_text(encoding="utf-8")
    assert G1 in text
    p.write_text(text.replace(G1, f'side = "allied"\ncounter = "g-1-arm"\n{zone}'),
                 encoding="utf-8")
    with pytest.raises(ScenarioError, match=pattern) as e:
        load_data(data_copy)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(p)) and "g-1-arm" in msg


def test_a_zone_with_a_fixed_hex_is_refused(data_copy):
    """BCS-1.4A: a counter has a hex or a zone, not both."""
    p = data_copy / "scenarios" / "5.2.toml"
    text = p.read_text(encoding="utf-8")
    p.write_text(text.replace(G1, G1 + '\nzone = {of = "B14.09", within = 2}'), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"no fixed hex .*\(rule BCS-1\.4A\)"):
        load_data(data_copy)


def test_a_stated_side_is_checked_at_load(data_copy):
    """BCS-1.4E: a side the set-up states exists on the counter (drake has one side)."""
    p = data_copy / "scenarios" / "5.2.toml"
    text = p.read_text(encoding="utf-8")
    old = 'counter = "drake"'
    assert old in text
    p.write_text(text.replace(old, old + '\nface = "deployed"'), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"drake has no Deployed side \(1\.2b\) "
                                            r"\(rule BCS-1\.4E\)"):
        load_data(data_copy)


# -- 1.4E in the data ---------------------------------------------------------------------------

def test_BCS_1_4E_a_side_stated_by_the_set_up_is_kept(monkeypatch):
    """BCS-1.4E: 'unless stated otherwise in the set-up': g-1-arm stated Deployed starts so and
    its owner, asked, cannot flip it."""
    variant(monkeypatch, "5.2", "g-1-arm", face="deployed")
    state = ENGINE.setup("5.2", {**OPTIONS, "setup_decision": "allied"})
    assert state.pieces["g-1-arm"].face == "deployed"
    with pytest.raises(IllegalOrder) as e:
        order(state, "allied", "setup g-1-arm move")
    assert e.value.rule == "BCS-1.4E"
    assert "g-1-arm" not in ENGINE.pending(state)[0].detail


def test_BCS_1_4E_the_default_side_is_one_the_terrain_allows(monkeypatch):
    """BCS-1.4E: a unit never starts on a side its hex's terrain prohibits: set up (a 5.4
    variant) in the mountain hex A29.15, 1-26-inf's Truck Move side is prohibited, so it starts
    Deployed (Leg); the others start Move side up."""
    variant(monkeypatch, "5.4", "1-26-inf", hex="A29.15")
    state = ENGINE.setup("5.4", OPTIONS)
    assert (state.pieces["1-26-inf"].hex, state.pieces["1-26-inf"].face) == ("A29.15", "deployed")
    assert all(p.face == "move" for p in state.pieces.values()
               if p.status == "map" and p.id != "1-26-inf")


def test_BCS_1_4E_a_side_is_asked_only_with_something_to_choose():
    """BCS-1.4E: 5.2's Axis sets nothing up (all its units arrive): asked, it is not asked."""
    state = ENGINE.setup("5.2", {**OPTIONS, "setup_decision": "both"})
    assert state.setting == ["allied"]
    assert state.private["axis"].standing["setup"] == "ask"


# -- 1.4G ---------------------------------------------------------------------------------------

def test_BCS_1_4G_preset_weather(monkeypatch):
    """BCS-1.4G: weather preset by the scenario data is the first turn's, without a roll; 5.4
    (19 Feb, none preset) rolls it before the first Activation; 5.2 (14 Feb) is No Rain (BbF
    1.1)."""
    monkeypatch.setitem(bdata().scenarios, "5.4",
                        msgspec.structs.replace(bdata().scenarios["5.4"], weather="Rain"))
    state = ENGINE.setup("5.4", OPTIONS)
    assert (state.weather, state.weather_due) == ("Rain", False)
    monkeypatch.undo()
    assert ENGINE.setup("5.4", OPTIONS).weather_due
    s2 = ENGINE.setup("5.2", OPTIONS)
    assert (s2.weather, s2.weather_due, s2.next_side, s2.phase) == ("No Rain", False, "axis",
                                                                     "activate")


# -- the bots -----------------------------------------------------------------------------------

@pytest.mark.parametrize("style", ["random", "heuristic"])
@pytest.mark.parametrize("scenario", ["5.2", "5.4"])
def test_both_bots_answer_the_set_up_decision(monkeypatch, style, scenario):
    """BCS-1.4A, BCS-1.4E: asked (both sides) and with a counter to place in a zone, each bot
    writes legal set-up orders ending with 'setup done'."""
    if scenario == "5.2":
        variant(monkeypatch, "5.2", "g-1-arm", hex="", zone=Zone(of="B14.09", within=2))
    state = ENGINE.setup(scenario, {**OPTIONS, "setup_decision": "both"})
    rng = random.Random(3)
    for _ in range(2):
        if state.phase != "setup":
            break
        side = state.setting[0]
        lines = ENGINE.bot(state, side, rng, style)
        assert lines[-1] == "setup done", lines
        for line in lines:
            order(state, side, line, [1, 1, 1, 1])
    assert state.phase != "setup" and all(p.status != "setup" for p in state.pieces.values())
    if scenario == "5.2":
        assert state.pieces["g-1-arm"].status == "map"
