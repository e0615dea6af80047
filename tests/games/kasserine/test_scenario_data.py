"""Kasserine scenario data: the shipped files load, printed values sit where the rules put them,
and every validation error is raised, naming its file, by a broken copy.

Rule ids are the ``,data,`` rows (and data-bearing rows) of shared/rules/kasserine.csv.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from pbem.core.errors import ScenarioError
from pbem.games.kasserine.scenario import (
    SBEITLA_PRINTED, SCENARIO_DIR, data_files, load_kasserine, scenario_ids)


@pytest.fixture(scope="module")
def data():
    return load_kasserine()


def adm(unit) -> str:
    return "-".join(str(v) for v in unit.values)


# -- the shipped data ---------------------------------------------------------------------------
def test_shipped_data_loads(data):
    """KAS-1.0, KAS-2.2-a: map, TEC, counters, CRT and the turn track load together."""
    assert data.map.path.endswith("map.toml")
    assert set(data.files) == {"map", "tec", "units", "crt", "scenario"}
    assert data.crt.rows and data.tec.hex and data.units
    assert load_kasserine() is data            # cached


def test_one_historical_scenario():
    """KAS-10.0, KAS-19.0-a: one historical scenario."""
    assert scenario_ids() == ["historical"]
    assert data_files("historical")["scenario"].name == "historical.toml"
    with pytest.raises(ScenarioError, match="unknown Kasserine scenario 'nope'"):
        data_files("nope")


def test_map_grid_is_ccrr(data):
    """KAS-2.1: four-digit hex ids, two-digit column + two-digit row."""
    g = data.map.grid
    assert g.digits == 2
    assert g.hex_id(1, 4) == "0104"
    assert all(re.fullmatch(r"\d{4}", h) for h in g.all_hexes())
    assert (g.first_col, g.last_col, g.first_row, g.last_row) == (1, 39, 1, 26)


@pytest.mark.parametrize("name,hex_id", [
    ("Kasserine", "2014"), ("Thala", "2003"), ("Tebessa", "0306"), ("Sbeitla", "2714")])
def test_printed_towns(data, name, hex_id):
    """KAS-11.1-U3 (Kasserine 2014), KAS-15.0-a / KAS-11.1-U6 (Thala 2003, Tebessa 0306),
    KAS-18.0-a (Sbeitla 2714)."""
    assert data.map.hex_of(name) == hex_id
    assert "town" in data.map.place_kinds(hex_id)


def test_objectives(data):
    """KAS-18.0-a: Sbeitla, Tebessa, Thala and the red stars 0104, 0105, 1601."""
    assert set(data.objectives) == {"2714", "0306", "2003", "0104", "0105", "1601"}
    for h in ("0104", "0105", "1601", "0306", "2003", "2714"):
        assert "objective" in data.map.place_kinds(h)
    v = data.scenario.victory
    assert (v.axis_wins_with, v.draw_with) == (3, 2)     # KAS-18.0-c/d


def test_sbeitla_option(data):
    """KAS-G5: one sbeitla_hex, 2714 by default, 2706 allowed; every trigger follows it."""
    assert SBEITLA_PRINTED == ("2706", "2714")
    assert data.sbeitla_hex == "2714"
    assert any("KAS-G5" in w and "uses 2714" in w for w in data.warnings)
    assert data.trigger_hexes("us-sbeitla-captured") == {"2714"}
    alt = load_kasserine(sbeitla_hex="2706")
    assert alt.sbeitla_hex == "2706"
    assert "2706" in alt.objectives and "2714" not in alt.objectives
    assert alt.trigger_hexes("us-sbeitla-captured") == {"2706"}
    assert alt.trigger_hexes("axis-gt5-sbeitla") == {"2706"}
    north = alt.trigger_hexes("us-north-of-sbeitla")
    assert north and all(int(h[2:]) < 6 for h in north)
    assert all(int(h[2:]) < 14 for h in data.trigger_hexes("us-north-of-sbeitla"))
    with pytest.raises(ScenarioError, match="not one of the printed Sbeitla hexes"):
        load_kasserine(sbeitla_hex="2715")


def test_map_features(data):
    """KAS-2.1: terrain, roads, trails, rivers, minefields, gray hexes and supply symbols are data."""
    m = data.map
    assert set(m.terrain.values()) == {"clear", "rough", "mountain", "prohibited"}
    assert m.road_hexes("road") and m.road_hexes("trail")
    assert any("river" in k for k in m.hexsides.values())
    # KAS-5.4.1 / KAS-8.2.2-c: a road over the river makes a bridge
    assert data.bridges
    assert all(m.road_between(*b) for b in data.bridges)
    # KAS-14.0 / KAS-14.3-a: three fortified boxes, each with minefield hexsides
    assert len(data.fortified_boxes) == 3
    for b in data.fortified_boxes:
        assert any("minefield" in m.hexside(b, n) for n in m.grid.neighbours(b))
    assert data.minefields
    # KAS-17.0: gray hexes are prohibited terrain
    assert data.prohibited
    assert all(m.terrain[h] == "prohibited" for h in data.prohibited)
    # KAS-12.0-a: supply symbols per side, places of kind supply_source
    for side in ("axis", "us"):
        assert data.supply[side]
        assert all("supply_source" in m.place_kinds(h) for h in data.supply[side])
        assert data.edges[side]                    # KAS-8.3-c (KAS-G15)
    assert not data.supply["axis"] & data.supply["us"]
    assert {"0104", "0105", "1601", "2701"} <= data.supply["us"]


def test_every_group_has_a_source(data):
    """DESIGN 7: every authored value says printed or reconstructed."""
    m = data.map.data
    groups = [m.map, *m.place, *m.road, *m.hexside, *m.hexset]
    assert all(g.source.startswith(("printed", "reconstructed")) for g in groups)
    for u in data.units.values():
        assert u.source.startswith("printed") and u.basis.startswith("reconstructed")


PRINTED_RANGES = [
    ("entry_3918_3920", "3918", "3920"), ("entry_0623_1423", "0623", "1423"),
    ("entry_2126_2926", "2126", "2926"), ("entry_0724_1223", "0724", "1223"),
    ("entry_3906_3911", "3906", "3911"), ("entry_1301_1901", "1301", "1901"),
    ("entry_2401_3001", "2401", "3001")]


@pytest.mark.parametrize("name,first,last", PRINTED_RANGES)
def test_entry_ranges(data, name, first, last):
    """KAS-11.0-a: reinforcements enter in the listed hex or any hex of the inclusive range."""
    hexes = data.map.hexsets[name]
    assert hexes[0] == first and hexes[-1] == last
    g = data.map.grid
    assert all(g.adjacent(a, b) for a, b in zip(hexes, hexes[1:]))
    assert not set(hexes) & data.prohibited


def test_printed_hexes_are_playable(data):
    """Every hex id printed in 11.1, 15.0, 18.0 and 19.0 is on the map and not gray."""
    printed = ["3918", "3919", "3920", "3726", "3225", "2526", "3921", "3909", "3911", "0105",
               "2701", "1601", "0104", "3718", "3922", "3722", "3819", "2714", "2814", "3810",
               "3811", "1704", "0804", "0312", "2014", "2003", "0306", "2706"]
    for h in printed:
        assert data.map.grid.is_hex(h) and h not in data.prohibited, h


def test_trigger_regions(data):
    """KAS-G9: 'west of Kasserine (2014)' (KAS-11.1-U3, KAS-17.1) and 'north of Sbeitla'
    (KAS-11.1-U5) are explicit hex sets; KAS-11.1-U6 adjacency to Thala/Tebessa."""
    west = set(data.map.hexsets["west_of_kasserine"])
    assert "1812" in west and "2014" not in west and "2003" not in west
    assert all(int(h[:2]) < 20 for h in west)
    assert data.trigger_hexes("us-west-of-kasserine") == west
    adj = data.trigger_hexes("us-thala-tebessa")
    g = data.map.grid
    assert adj == set(g.neighbours("2003")) | set(g.neighbours("0306"))


# -- counters -----------------------------------------------------------------------------------
AXIS_PRINTED = {
    "axis-gt1": ["6-5-10", "5-3-12", "3-4-11", "3-4-11", "2-2-9", "2-2-9", "5-3-12", "2-2-9",
                 "5-3-12", "3-4-11", "3-4-11", "2-2-9"],                      # KAS-11.1-G1
    "axis-gt2": ["3-2-16"],                                                   # KAS-11.1-G2
    "axis-gt4": ["2-2-11", "1-2-9", "3-2-16", "4-3-12", "4-4-11", "4-4-11", "2-2-9", "4-3-9"],  # KAS-11.1-G4
    "axis-gt5-sbeitla": ["3-2-11", "3-3-11", "2-1-7", "2-1-7"],               # KAS-11.1-G5
    "axis-youks": ["3-4-11", "3-4-11"],                                       # KAS-15.0-a
}
US_PRINTED = {
    "us-gt1": ["1-3-7", "2-2-9", "2-1-16", "3-3-12"],                         # KAS-11.1-U1
    "us-gt2": ["1-2-7", "2-1-11", "3-2-12", "1-4-6"],                         # KAS-11.1-U2
    "us-west-of-kasserine": ["1-2-7", "2-3-7", "1-1-6", "2-1-10", "2-5-7", "2-3-7", "1-1-7", "1-1-7"],  # KAS-11.1-U3
    "us-sbeitla-captured": ["1-2-7", "2-3-7"],                                # KAS-11.1-U4
    "us-north-of-sbeitla": ["2-2-12", "2-1-12", "2-1-12", "2-2-11", "1-2-7"],  # KAS-11.1-U5
    "us-thala-tebessa": ["3-2-12"],                                           # KAS-11.1-U6
}


@pytest.mark.parametrize("rid,values", [*AXIS_PRINTED.items(), *US_PRINTED.items()])
def test_reinforcement_values_as_printed(data, rid, values):
    """KAS-11.1-G1/G2/G4/G5, KAS-11.1-U1..U6, KAS-15.0-a: the printed counters per group."""
    r = data.reinforcements[rid]
    assert Counter(adm(data.units[a.unit]) for a in r.units) == Counter(values)
    assert all(data.units[a.unit].side == r.side for a in r.units)


def test_reinforcement_entries_as_printed(data):
    """KAS-11.1-G1, KAS-11.1-U2, KAS-15.0-a: entry hexes per counter."""
    entries = {a.unit: a.entry for r in data.reinforcements.values() for a in r.units}
    gt1 = data.reinforcements["axis-gt1"].units
    assert Counter(tuple(a.entry) for a in gt1) == Counter(
        {("entry_3918_3920",): 6, ("3726",): 2, ("3225",): 4})
    assert [entries[a.unit] for a in data.reinforcements["axis-youks"].units] == [["3909"], ["3911"]]
    us2 = {adm(data.units[a.unit]): a.entry for a in data.reinforcements["us-gt2"].units}
    assert us2 == {"1-2-7": ["0105"], "2-1-11": ["entry_3906_3911"], "3-2-12": ["2701"], "1-4-6": ["1601"]}


def test_triggers_are_data(data):
    """KAS-11.1-a, KAS-11.1-G5, KAS-15.0-a/b: event reinforcements carry their trigger."""
    r = data.reinforcements
    assert r["axis-gt1"].trigger.kind == "turn" and r["axis-gt1"].trigger.turn == 1
    assert r["axis-gt2"].trigger.turn == 2 and r["axis-gt4"].trigger.turn == 4
    g5 = r["axis-gt5-sbeitla"].trigger
    assert (g5.kind, g5.turn, g5.hexes) == ("axis_captures", 5, ["sbeitla"])
    y = r["axis-youks"]
    assert y.trigger.kind == "axis_captures" and set(y.trigger.hexes) == {"2003", "0306"}
    assert y.arrival == "next_game_turn" and y.movement_phase_only
    assert r["us-west-of-kasserine"].trigger.kind == "axis_enters"
    assert r["us-north-of-sbeitla"].trigger.hexset == "north_of_sbeitla_{sbeitla}"


def test_setup_as_printed(data):
    """KAS-19.0-a: no Axis unit on the map; KAS-19.0-b: the US set-up hexes and values."""
    assert all(data.units[u].side == "us" for u in data.setup)
    got = sorted((h, adm(data.units[u])) for u, h in data.setup.items())
    want = sorted([("3718", "1-3-7"), ("3922", "1-2-7"), ("3722", "1-2-7"), ("3819", "3-2-12"),
                   ("2714", "2-1-14"), ("2814", "2-3-11"), ("3911", "2-3-11"), ("3810", "2-1-11"),
                   ("3811", "3-2-12"), ("1704", "1-2-7"), ("0804", "1-3-7"), ("0312", "2-3-11")])
    assert got == want
    eng = [u for u in data.units.values() if u.engineer]
    assert [data.setup[u.id] for u in eng] == ["0804"]          # KAS-16.0: the (E) counter


def test_unit_manifest(data):
    """KAS-2.3-a (steps, reduced side), KAS-2.3-b (ids), KAS-2.3-c (mobile), KAS-13.1 (commando),
    KAS-11.1-a (German/Italian vs US/Allied)."""
    placed = set(data.setup) | set(data.arrival_of)
    assert placed == set(data.units)
    assert len(data.units) == 63
    for u in data.units.values():
        assert re.fullmatch(r"[a-z][a-z0-9-]*", u.id)
        assert u.steps in (1, 2)
        if u.steps == 2:
            assert u.reduced_values and all(r <= f for r, f in zip(u.reduced_values, u.values))
        else:
            assert u.reduced_values is None
        assert u.mobile == (u.movement >= 9)
        assert u.nationality in ({"german", "italian"} if u.side == "axis" else {"us", "british", "french"})
    commandos = [u for u in data.units.values() if u.commando]
    assert [(u.name, u.side) for u in commandos] == [("1st Ranger Bn", "us")]


def test_first_player_and_length(data):
    """KAS-10.1: the Axis is first player; KAS-G4: the game length is data; KAS-2.4: scale and
    turn length are data (reconstructed)."""
    assert data.scenario.turn_length == "1 day" and "km" in data.scenario.map_scale
    assert len({t.label for t in data.scenario.turn}) == data.last_turn
    assert data.first_player == "axis"
    assert data.scenario.first_turn == 1 and data.last_turn >= 5


def test_support_fire(data):
    """KAS-2.2-b: allotment = count of markers per turn and side; KAS-2.3-d / KAS-7.0: markers
    are '+' values in an off-map pool; KAS-7.1-a/b: lowest values first."""
    for turn in range(1, data.last_turn + 1):
        for side in ("axis", "us"):
            n = data.allotment(turn, side)
            assert 0 <= n <= len(data.pools[side])
            got = data.turn_markers(turn, side)
            assert len(got) == n and list(got) == sorted(data.pools[side])[:n]
    assert all(v >= 1 for pool in data.pools.values() for v in pool)
    assert data.allotment(1, "axis") > data.allotment(1, "us")          # 20.0: Axis superiority
    assert data.allotment(data.last_turn, "us") > data.allotment(data.last_turn, "axis")
    with pytest.raises(ScenarioError, match="no support-fire allotment for turn 99"):
        data.allotment(99, "us")


def test_tec(data):
    """KAS-G3; KAS-5.4-a clear 1 MP; KAS-5.4.1 road 1/2; KAS-5.4.2 trail 1; KAS-14.1 +2;
    KAS-14.2-d minefield row for Axis attacks; KAS-8.2.2-b/c river and bridge; KAS-17.0."""
    t = data.tec
    assert t.hex["clear"].leg == t.hex["clear"].mobile == 1
    assert t.road.road == 0.5 and t.road.trail == 1
    assert t.hexside["minefield"].leg == 2 and t.hexside["minefield"].sides == ["us"]
    assert t.hexside["minefield"].crt_row == "minefield"
    assert t.hexside["minefield"].crt_attackers == ["axis"]
    assert t.hexside["river"].crt_row == "city_rough_river"
    assert t.hexside["river"].crt_only_if_all_attackers_across
    assert t.hexside["bridge"].crt_row == "bridge"
    assert t.hex["prohibited"].prohibited
    assert t.zoc.commando_ignores                                        # KAS-13.1
    for name, h in t.hex.items():
        if not h.prohibited:
            assert h.crt_row in data.crt.rows, name
    assert data.move_cost("2014", mobile=True) == 1
    assert data.move_cost(next(iter(data.prohibited)), mobile=False) is None
    assert "fortification" in data.hex_crt_rows("1812", "us")
    assert "fortification" not in data.hex_crt_rows("1812", "axis")     # KAS-14.3-c
    assert "city_rough_river" in data.hex_crt_rows("2014")


# -- validation: broken copies ------------------------------------------------------------------
def broken_copy(tmp_path: Path, file: str, old: str, new: str) -> Path:
    root = tmp_path / "kasserine"
    shutil.copytree(SCENARIO_DIR, root)
    p = root / file
    text = p.read_text(encoding="utf-8")
    assert old in text, old
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


CASES = [
    # (id, file, old, new, file named in the message, message part)
    ("unknown hex", "historical.toml", 'hex = "3718"', 'hex = "4718"', "historical.toml", "unknown hex '4718'"),
    ("prohibited setup hex", "historical.toml", 'hex = "3718"', 'hex = "0126"', "historical.toml", "prohibited"),
    ("unknown entry", "historical.toml", '"entry_3918_3920"', '"entry_9999"', "historical.toml", "unknown hex or hexset 'entry_9999'"),
    ("unknown unit", "historical.toml", 'unit = "inf2-168"', 'unit = "inf9-999"', "historical.toml", "unknown unit 'inf9-999'"),
    ("unit placed twice", "historical.toml", 'unit = "inf1-168"', 'unit = "inf2-168"', "historical.toml", "already placed"),
    ("unit never placed", "historical.toml", '{ unit = "k10", entry = ["entry_3918_3920"] },', '', "historical.toml", "'k10' is neither set up"),
    ("empty reinforcement", "historical.toml", '{ unit = "aa3", entry = ["2526"] },', '', "historical.toml", "'axis-gt2': lists no units"),
    ("wrong side", "historical.toml", '{ unit = "aa3", entry', '{ unit = "rcn81", entry', "historical.toml", "unit 'rcn81' is on side 'us'"),
    ("unit missing values", "units.toml", "defense = 5\n", "", "units.toml", "has no defense value"),
    ("unit missing mobile", "units.toml", "mobile = true\nsource = \"printed: 6-5-10", "source = \"printed: 6-5-10", "units.toml", "has no mobile value"),
    ("two-step without back", "units.toml", "reduced = [3, 3, 10]\n", "", "units.toml", "needs reduced"),
    ("bad side", "units.toml", 'side = "axis"', 'side = "german"', "units.toml", "unknown side 'german'"),
    ("terrain without TEC row", "tec.toml", "[hex.rough]", "[hex.broken]", "map.toml", "no TEC row"),
    ("terrain without CRT row", "tec.toml", 'mobile = 3\ncrt_row = "city_rough_river"', 'mobile = 3\ncrt_row = ""', "tec.toml", "has no CRT row"),
    ("TEC row not in CRT", "tec.toml", 'crt_row = "mountain"', 'crt_row = "hills"', "tec.toml", "'hills' is not defined in"),
    ("empty CRT cell", "crt.toml", 'results = ["Ae", "A3", "A2", "A1", "(A)", "•"]', 'results = ["", "A3", "A2", "A1", "(A)", "•"]', "crt.toml", "empty cell"),
    ("missing CRT row", "crt.toml", 'id = "bridge"', 'id = "bridges"', "crt.toml", "row 'bridge' is missing"),
    ("turn listed twice", "historical.toml", "[[turn]]\nturn = 7\n", "[[turn]]\nturn = 6\n", "historical.toml", "turn 6: listed twice"),
    ("allotment too big", "historical.toml", "axis = 5\nus = 1", "axis = 9\nus = 1", "historical.toml", "exceeds the pool"),
    ("sbeitla hex", "historical.toml", 'sbeitla_hex = "2714"', 'sbeitla_hex = "2715"', "historical.toml", "not one of the printed Sbeitla hexes 2706 or 2714"),
    ("bad source map", "map.toml", 'source = "reconstructed: extent', 'source = "guess: extent', "map.toml", "must start with 'printed' or 'reconstructed'"),
    ("bad source tec", "tec.toml", 'source = "reconstructed: KAS-G3;', 'source = "invented: KAS-G3;', "tec.toml", "must start with"),
    ("bad source units", "units.toml", 'basis = "reconstructed: name', 'basis = "made up: name', "units.toml", "must start with"),
    ("bad source crt", "crt.toml", 'source = "reconstructed: KAS-G1; see', 'source = "KAS-G1; see', "crt.toml", "must start with"),
    ("bad source scenario", "historical.toml", 'source = "printed: 19.0 United States set-up"', 'source = "19.0"', "historical.toml", "must start with"),
    ("box count", "map.toml", 'hexes = ["1812", "2606", "1210"]', 'hexes = ["1812", "2606"]', "map.toml", "14.3 prints 3"),
    ("gray mismatch", "map.toml", 'name = "prohibited"\nhexes = [\n  "0124", ', 'name = "prohibited"\nhexes = [\n  ', "map.toml", "does not match the prohibited terrain"),
    ("unknown map hex", "map.toml", 'hex = "2014"', 'hex = "4014"', "map.toml", "unknown hex '4014'"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_broken_copy_is_refused(tmp_path, case):
    _, file, old, new, named, message = case
    root = broken_copy(tmp_path, file, old, new)
    with pytest.raises(ScenarioError) as e:
        load_kasserine("historical", root=root)
    msg = str(e.value)
    assert named in msg and message in msg, msg
    assert "\n" not in msg


def test_missing_allotment_for_a_turn(tmp_path):
    """KAS-G4: refuse a turn track without an allotment for some turn."""
    root = broken_copy(tmp_path, "historical.toml",
                       "[[turn]]\nturn = 7\nlabel", "# removed\n[[turnx]]\nturn = 7\nlabel")
    text = (root / "historical.toml").read_text(encoding="utf-8")
    # drop the whole turn-7 table so the file still decodes
    text = re.sub(r"# removed\n\[\[turnx\]\]\n(?:[^\n]+\n)+\n", "", text)
    (root / "historical.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"historical\.toml: no support-fire allotment for turn 7$"):
        load_kasserine(root=root)


def test_missing_scenario_file(tmp_path):
    root = tmp_path / "k"
    shutil.copytree(SCENARIO_DIR, root)
    (root / "historical.toml").unlink()
    with pytest.raises(ScenarioError, match="unknown Kasserine scenario 'historical'"):
        load_kasserine(root=root)


def test_step_costs_follow_a_data_variant(data):
    """The step-cost tables are worked out with the data: a rule-case variant that makes a
    hexside prohibited works them out again, and the shipped data keeps its own."""
    from pbem.games.kasserine.movement import step_cost
    from pbem.games.kasserine.rulecases import variant_data

    var = variant_data(data, {"prohibited_hexsides": [["3213", "3313"]]})
    for side in ("axis", "us"):
        for mobile in (False, True):
            assert step_cost(data, side, mobile, "3213", "3313") is not None
            assert step_cost(var, side, mobile, "3213", "3313") is None
            assert step_cost(var, side, mobile, "3313", "3213") is None
            assert (step_cost(var, side, mobile, "3213", "3212")
                    == step_cost(data, side, mobile, "3213", "3212"))


def test_crossing_table_is_the_chart(data):
    """Every tabled crossing is crossing_cost of each side and kind of unit, and its minefield
    mark the map's; a step across any other hexside costs the hex entered."""
    from pbem.games.kasserine.movement import is_minefield, terrain_step

    assert data.crossing
    for (a, b), step in data.crossing.items():
        assert step[:4] == tuple(data.crossing_cost(s, m, a, b)
                                 for s in ("axis", "us") for m in (False, True))
        assert step[4] == is_minefield(data, a, b)
    for a in ("3213", "2714", "1812"):
        for b in data.neighbours[a]:
            if (a, b) not in data.crossing:
                assert not data.hexside_kinds(a, b) and not is_minefield(data, a, b)
                assert terrain_step(data, "us", True, a, b) == (data.entry_cost[b][1], False)


def test_data_strings_are_shared(data):
    """Equal strings of the scenario data are one object (its cache then pickles each once)."""
    terrain = {h: h for h in data.map.terrain}
    for h, near in list(data.neighbours.items())[:50]:
        assert terrain[h] is h
        assert all(terrain[n] is n for n in near)
    assert all(terrain[h] is h for h in data.entry_cost)
    assert all(terrain[u.hex] is u.hex for u in data.scenario.setup)


def test_unit_labels_are_the_plain_formula():
    """label reads the data's table: 'id a-d-m' of the side in play, ' depleted' on a two-step
    unit's reduced side, for every unit and step count."""
    from pbem.games.kasserine import GAME
    from pbem.games.kasserine.board import data_of, label

    state = GAME.setup("historical", {})
    data = data_of(state)
    for uid, u in state.units.items():
        for steps in (0, 1, 2):
            u.steps = steps
            full, reduced = data.strengths[uid]
            a, d, m = reduced if reduced is not None and steps == 1 else full
            dep = " depleted" if data.units[uid].steps == 2 and steps == 1 else ""
            assert label(data, state, uid) == f"{uid} {a}-{d}-{m}{dep}"
