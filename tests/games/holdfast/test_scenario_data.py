"""Holdfast scenario data: the shipped files load, are complete and consistent, and every
validation rule refuses a broken copy with a one-line error naming the file.

Rule ids (shared/rules/holdfast.csv) are named in test names or comments where a test checks
the data behind that rule.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

try:  # the repository root on sys.path when pytest is run without a configured rootdir
    import pbem  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from pbem.core.errors import ScenarioError
from pbem.games.holdfast.scenario import (
    SCENARIO_DIR, HoldfastData, data_files, load_holdfast, scenario_ids,
)

RULEBOOK_PLACES = ["Bone", "La Calle", "Tabarka", "Souk Ahras", "Souk el Arba", "Souk el Khemis",
                   "Beja", "Jefna", "Mateur", "Bizerte", "Tunis", "Sousse", "Sfax", "Gabes", "Tebessa"]
PLAYER_PLACES = ["Medjez el Bab", "Tebourba", "Djedeida", "Pont du Fahs", "Enfidaville", "Kairouan",
                 "Faid", "Sbeitla", "Kasserine", "Thala", "Gafsa", "El Guettar", "Maknassy", "Mareth",
                 "Medenine", "Feriana", "Le Kef", "Gafour", "Fondouk", "Sidi Bou Zid"]


@pytest.fixture(scope="module")
def camp() -> HoldfastData:
    return load_holdfast("campaign")


@pytest.fixture(scope="module")
def race() -> HoldfastData:
    return load_holdfast("race-to-tunis")


def road_graph(d: HoldfastData) -> dict[str, set[str]]:
    g: dict[str, set[str]] = {}
    for a, b in d.map.roads["road"]:
        g.setdefault(a, set()).add(b)
        g.setdefault(b, set()).add(a)
    return g


def road_component(d: HoldfastData, start: str) -> set[str]:
    g = road_graph(d)
    seen, todo = {start}, [start]
    while todo:
        for n in g.get(todo.pop(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


# ------------------------------------------------------------------------ shipped data
def test_shipped_scenarios_load(camp, race):
    assert scenario_ids() == {"campaign": camp.scenario.title, "race-to-tunis": race.scenario.title}
    files = data_files("campaign")
    assert [p.name for p in files] == ["map.toml", "units.toml", "tables.toml", "turns.toml",
                                       "campaign.toml"]
    assert all(p.is_file() and p.parent == SCENARIO_DIR for p in files)
    assert load_holdfast("campaign") is camp            # cached


def test_unknown_scenario_is_refused():
    with pytest.raises(ScenarioError, match="no such Holdfast scenario"):
        data_files("kasserine")
    with pytest.raises(ScenarioError):
        data_files("../campaign")


def test_hf_1_dice_are_d6(camp):
    # HF-1: every random event is a d6 roll (weather die in the tables)
    assert camp.tables.weather.die == 6


def test_hf_2_a_map_places_resolve(camp):
    # HF-2-a / HF-G5: every place the rulebook names (and the ones players expect) has a hex
    m = camp.map
    hexes = {}
    for name in RULEBOOK_PLACES + PLAYER_PLACES:
        h = camp.hex_of(name)
        assert m.grid.is_hex(h)
        assert not camp.is_prohibited(h), name
        assert m.terrain[h] != "gray", name
        hexes[name] = h
    assert len(set(hexes.values())) == len(hexes)       # one named place per hex
    assert camp.hex_of("Souk Ahars") == camp.hex_of("Souk Ahras")   # HF-G23 alias
    assert camp.hex_of("souk ahras") == hexes["Souk Ahras"]


def test_hf_2_a_every_map_source_is_marked():
    text = (SCENARIO_DIR / "map.toml").read_text()
    sources = re.findall(r'^source = "(.*)"$', text, flags=re.M)
    assert sources and all(s.startswith("reconstructed") for s in sources)  # no map is printed


def test_hf_2_a_geography_is_plausible(camp):
    m, g = camp.map, camp.map.grid
    col = lambda n: g.parse(camp.hex_of(n))[0]   # noqa: E731
    row = lambda n: g.parse(camp.hex_of(n))[1]   # noqa: E731
    assert col("Bone") < col("Tabarka") < col("Beja") < col("Tunis")
    assert row("Bizerte") < row("Tunis") < row("Sousse") < row("Sfax") < row("Gabes") < row("Medenine")
    assert col("Tebessa") < col("Kasserine") < col("Sbeitla") < col("Faid")
    kinds = set(m.terrain.values())
    assert kinds == {"open", "rough", "sea", "salt_marsh", "gray"}
    # ports are on the coast
    for h in camp.ports():
        assert any(m.terrain[n] == "sea" for n in g.neighbours(h)), m.place_name(h)
    # chotts south of Gafsa: salt marsh between Gafsa and Kebili
    assert any(m.terrain[h] == "salt_marsh" for h in g.within(camp.hex_of("Kebili"), 2))


def test_hf_2_e_supply_bases_at_start(camp, race):
    # HF-2-e: Allied Bone, Souk Ahras, Tebessa; Axis Bizerte, Tunis, Sousse, Sfax, Gabes
    for d in (camp, race):
        assert d.supply_bases("allied") == [d.hex_of(n) for n in ("Bone", "Souk Ahras", "Tebessa")]
        assert d.supply_bases("axis") == [d.hex_of(n) for n in
                                          ("Bizerte", "Tunis", "Sousse", "Sfax", "Gabes")]
        assert sorted(d.supply_bases("allied") + d.supply_bases("axis")) == d.supply_bases()
    k = camp.map.place_kinds
    for n in ("Bone", "Bizerte", "Tunis"):
        assert {"port", "supply_base"} <= k(camp.hex_of(n))
    for n in ("Sousse", "Sfax", "Gabes"):     # HF-10-k minor ports
        assert {"port", "supply_base", "minor_port"} <= k(camp.hex_of(n))
    assert sorted(camp.minor_ports()) == sorted(camp.hex_of(n) for n in ("Sousse", "Sfax", "Gabes"))
    for n in ("Souk Ahras", "Tebessa"):       # inland supply bases
        assert "supply_base" in k(camp.hex_of(n)) and "port" not in k(camp.hex_of(n))


def test_supply_bases_on_roads_and_inland_bases_reach_the_edge(camp):
    # HF-10-g/HF-10-h data: land supply bases trace by road to the three northern edge roads
    roads = camp.map.road_hexes()
    for h in camp.supply_bases():
        assert h in roads, camp.map.place_name(h)
    for n in ("Souk Ahras", "Tebessa"):
        assert road_component(camp, camp.hex_of(n)) & set(camp.allied_edge_roads), n
    # every supply base (port or inland) sits on the one connected road net
    net = road_component(camp, camp.allied_edge_roads[0])
    assert set(camp.supply_bases()) <= net
    # every named place is reachable by road
    assert {p.hex for p in camp.map.data.place} <= net


def test_allied_edge_roads_are_the_three_northernmost(camp):
    # HF-8.1-c / HF-10-g data
    g, roads = camp.map.grid, camp.map.road_hexes()
    edge = camp.allied_edge_roads
    assert len(edge) == 3
    assert all(g.parse(h)[0] == g.first_col and h in roads for h in edge)
    first_col_roads = sorted((h for h in roads if g.parse(h)[0] == g.first_col),
                             key=lambda h: g.parse(h)[1])
    assert len(first_col_roads) > 3                 # a fourth (Tebessa) road leaves further south
    assert first_col_roads[:3] == sorted(edge, key=lambda h: g.parse(h)[1])
    west = camp.west_edge
    assert west == [h for h in g.all_hexes() if g.parse(h)[0] == g.first_col
                    and not camp.is_prohibited(h)]
    assert set(edge) <= set(west)
    assert camp.allied_fallback_hexes() == west


def test_gray_hexes_on_the_libyan_frontier(camp):
    # HF-2-a, HF-8.1-h data
    g, m = camp.map.grid, camp.map
    gray = camp.gray_hexes
    assert 3 <= len(gray) <= 6
    assert gray == sorted(h for h, k in m.terrain.items() if k == "gray")
    med = g.parse(camp.hex_of("Medenine"))
    for h in gray:
        c, r = g.parse(h)
        assert c > med[0] and r > med[1]             # south-east of Medenine
        assert c >= g.last_col - 2 or r == g.last_row   # on the map edge
    assert set(gray) & m.road_hexes()                # the coast road from Tripoli arrives
    assert any(m.terrain[n] not in ("gray", "sea", "salt_marsh")
               for h in gray for n in g.neighbours(h))
    assert camp.tables.hex["gray"].mp_infantry == 2 and not camp.tables.hex["gray"].prohibited


def test_jefna_is_the_strong_position(camp):
    # design note 13: rough, town, river and escarpment
    m = camp.map
    j = camp.hex_of("Jefna")
    assert m.terrain[j] == "rough" and "town" in m.place_kinds(j)
    sides = [m.hexside(j, n) for n in m.grid.neighbours(j)]
    assert sum("river" in s for s in sides) >= 2
    assert sum("escarpment" in s for s in sides) >= 2
    assert any({"river", "escarpment"} <= s for s in sides)


def test_bridges_where_roads_cross_rivers(camp):
    m = camp.map
    river = {k for k, v in m.hexsides.items() if "river" in v}
    bridge = {k for k, v in m.hexsides.items() if "bridge" in v}
    road = set(m.roads["road"])
    assert bridge == river & road
    assert len(bridge) >= 10
    # the named hexside features are present
    names = {g.source.split(": ")[-1] for g in m.data.hexside}
    for n in ("Medjerda", "Wadi Akarit", "Wadi Zigzaou", "Mareth Line", "Kasserine Pass"):
        assert any(n in x for x in names), n
    mareth = {k for k, v in m.hexsides.items() if "mareth_line" in v}
    assert mareth and any("river" in m.hexsides[k] for k in mareth)
    assert any(camp.hex_of("Mareth") in k for k in mareth)


def test_hexside_and_hex_features_never_touch_prohibited_hexes(camp):
    m = camp.map
    for (a, b) in m.hexsides:
        assert not camp.is_prohibited(a) and not camp.is_prohibited(b)
    for h in m.road_hexes():
        assert not camp.is_prohibited(h)


# ------------------------------------------------------------------------ units
def test_hf_2_h_and_hf_4_1_a_every_unit_has_values(camp):
    # HF-2-h / HF-4.1-a / HF-G1: name, DRC, TH, MP, max SP, armor/infantry for every block
    for u in camp.units.values():
        assert u.name and u.source.startswith(("printed", "reconstructed"))
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]{3,}", u.id)
        if u.type == "support":
            assert u.drc >= 1 and u.th == u.mp == u.max_sp == 0 and u.support
        else:
            assert u.drc >= 1 and 2 <= u.th <= 6 and u.mp >= 1 and 1 <= u.max_sp <= 4
    # ids are distinctive: none is a substring of another id or of a plain English word
    ids = list(camp.units)
    for a in ids:
        assert not any(a != b and a in b for b in ids), a


def test_hf_3_sides_and_nationalities(camp):
    # HF-3: green Allied (British olive, French XIX blue, US green), gray Axis (German, Italian)
    nat = {u.nationality for u in camp.units_of("allied")}
    assert nat == {"british", "us", "french"}
    assert {u.nationality for u in camp.units_of("axis")} == {"german", "italian"}
    assert camp.unit("frxix").nationality == "french"
    assert camp.unit("us1ad-ccb").nationality == "us"
    assert camp.unit("superga").nationality == "italian"


def test_hf_4_1_b_printed_axis_values(camp):
    # HF-4.1-b: Arnim DRC 1; Air 1 die at +1; Kampfgruppe 1; German armor 5/6/8; infantry 3/5/5
    a = camp.unit("arnim")
    assert (a.type, a.support, a.drc, a.mp_bonus) == ("support", "leader", 1, 1)
    for air in ("axair1", "axair2"):
        u = camp.unit(air)
        assert (u.support, u.drc, u.die_modifier, u.clear_weather_only) == ("air", 1, 1, True)
    k = camp.unit("kgruppe")
    assert (k.support, k.drc) == ("kampfgruppe", 1)
    assert camp.unit("cteam").support == "combat_team" and camp.unit("cteam").side == "allied"
    for u in camp.units.values():
        if u.nationality == "german" and u.type == "armor":
            assert (u.drc, u.th, u.mp) == (5, 6, 8), u.id
            assert u.source.startswith("printed")
        if u.nationality == "german" and u.type == "infantry":
            assert (u.drc, u.th, u.mp) == (3, 5, 5), u.id


def test_hf_4_1_c_italian_infantry(camp):
    # HF-4.1-c: Italian infantry 3/4/4 (board example)
    for u in camp.units.values():
        if u.nationality == "italian" and u.type == "infantry":
            assert (u.drc, u.th, u.mp) == (3, 4, 4), u.id
    assert camp.unit("spezia").aliases == ["La Spezia"]


def test_err_hf_4_1_french_xix_corps_is_4_sp(camp):
    u = camp.unit("frxix")
    assert u.max_sp == 4 and u.source.startswith("printed: max SP 4")


def test_hf_4_1_support_units_off_map_at_start(camp):
    off = {p.unit for p in camp.scenario.setup if p.off_map}
    assert off == {"kgruppe", "axair1", "cteam"}


# ------------------------------------------------------------------------ tables
def test_hf_6_e_rp_costs(camp):
    # HF-6-e: the RP cost table
    c = camp.tables.rp_costs
    assert (c["step_infantry"], c["step_armor"], c["unit_infantry"], c["unit_armor"]) == (1, 2, 2, 3)
    assert (c["activate_move"], c["attack"], c["joint_attack"]) == (1, 1, 2)
    assert (c["move"], c["attack_joint"]) == (1, 2)        # the engine's names, filled on load
    # HF-8.2-b: from turn 9 Axis armor costs +1
    assert camp.rp_cost("step_armor", side="axis", turn=8) == 2
    assert camp.rp_cost("step_armor", side="axis", turn=9) == 3
    assert camp.rp_cost("unit_armor", side="axis", turn=9) == 4
    assert camp.rp_cost("unit_armor", side="allied", turn=12) == 3
    assert camp.rp_cost("step_infantry", side="axis", turn=12) == 1


def test_hf_tec_a_prohibited(camp):
    # HF-TEC-a
    t = camp.tables
    assert t.hex["sea"].prohibited and t.hex["salt_marsh"].prohibited
    assert t.hexside["red_line"].prohibited


def test_hf_tec_b_open_gray_ezoc(camp):
    # HF-TEC-b
    t = camp.tables
    for k in ("open", "gray"):
        assert (t.hex[k].mp_infantry, t.hex[k].mp_armor, t.hex[k].attacker_dice) == (2, 2, 0)
    assert t.ezoc_mp == 2


def test_hf_tec_c_rough(camp):
    # HF-TEC-c
    r = camp.tables.hex["rough"]
    assert (r.mp_infantry, r.mp_armor, r.attacker_dice) == (3, 4, -1)


def test_hf_tec_d_town_and_hf_tec_e_port(camp):
    # HF-TEC-d (town) and HF-TEC-e (port)
    p = camp.tables.place
    assert (p["town"].defender_dice, p["town"].defender_bonus_dice) == (1, 0)
    assert (p["port"].defender_dice, p["port"].defender_bonus_dice, p["port"].bonus_modifier) == (0, 1, 1)
    assert p["supply_base"].defender_dice == p["minor_port"].defender_dice == 0


def test_hf_tec_f_road(camp):
    # HF-TEC-f
    assert camp.tables.road_mp == 1


def test_hf_tec_g_and_h_bridge(camp):
    b = camp.tables.hexside["bridge"]
    assert (b.mp, b.mp_poor, b.supplants) == (0, 1, ["river"])          # HF-TEC-g, HF-7-e
    assert (b.defender_bonus_dice, b.bonus_modifier, b.bonus_hits_to_crosser) == (1, 1, True)  # HF-TEC-h


def test_hf_g6_river_escarpment_mareth_defined(camp):
    h = camp.tables.hexside
    assert h["river"].mp_poor == 2 and h["river"].mp == 1                 # HF-7-f printed + reconstructed
    assert (h["river"].defender_bonus_dice, h["river"].bonus_modifier) == (1, 1)
    assert h["river"].source.startswith("reconstructed")
    assert h["escarpment"].attacker_dice == -1 and not h["escarpment"].blocks_zoc   # 2 example, 9.2
    assert h["mareth_line"].attacker_dice == -1
    assert h["mareth_line"].source.startswith("reconstructed")


def test_weather_supply_and_movement_tables(camp):
    t = camp.tables
    w = t.weather
    assert (w.poor_at, w.poor_mp, w.air_in_poor) == (6, {"infantry": -1, "armor": -2}, False)  # HF-7
    assert (t.out_of_supply["armor"].mp, t.out_of_supply["armor"].dice) == (-2, -1)            # HF-10-a
    assert (t.out_of_supply["infantry"].mp, t.out_of_supply["infantry"].dice) == (-1, -1)
    assert (t.supply.road_trace_hexes, t.supply.minor_port_units) == (3, 1)
    assert t.movement.no_strategic_turns == [1, 2]                                             # ERR-HF-9.3
    assert camp.gray_usable("axis", 8) and not camp.gray_usable("axis", 9)                      # HF-8.1-h
    assert camp.gray_usable("allied", 9) and not camp.gray_usable("allied", 8)


def test_entry_hexes(camp):
    # HF-8.1-b/c, HF-G13: German and Italian at Tunis/Bizerte; Allied bases and edge roads; gray units
    tb = [camp.hex_of("Tunis"), camp.hex_of("Bizerte")]
    assert camp.entry_hexes("barenthin") == tb
    assert camp.entry_hexes("superga") == tb
    allied = camp.entry_hexes("1gds")
    assert allied == [camp.hex_of(n) for n in ("Bone", "Souk Ahras", "Tebessa")] + camp.allied_edge_roads
    assert camp.entry_hexes("21pz-a") == camp.gray_hexes
    assert camp.entry_hexes("7ad-a") == camp.gray_hexes


# ------------------------------------------------------------------------ turns
def test_hf_12_a_campaign_runs_turns_1_to_16(camp):
    # HF-12-a: turn 1 (November 1942) to turn 16 (the second May 1943 turn); HF-G4 labels are data
    s = camp.scenario
    assert (s.first_turn, s.last_turn) == (1, 16)
    assert sorted(camp.turns) == list(range(1, 17))
    assert camp.turn(1).label == "Nov 1942"
    assert camp.turn(2).label.startswith("Dec 1942")
    assert camp.turn(15).label.startswith("May 1943") and camp.turn(16).label.startswith("May 1943")
    with pytest.raises(ScenarioError):
        camp.turn(17)


def test_hf_12_c_rp_schedule(camp):
    # HF-12-c (+ HF-G3 step-function reading)
    expect = {1: (6, 6), 2: (8, 8), 3: (8, 8), 4: (10, 10), 8: (10, 10), 9: (12, 10),
              11: (12, 10), 12: (14, 10), 16: (14, 10)}
    for n, (a, x) in expect.items():
        assert (camp.rp(n, "allied"), camp.rp(n, "axis")) == (a, x), n
    for n in range(1, 17):
        assert camp.turn(n).weather_add == (1 if n <= 11 else 0)     # HF-7-a


def test_hf_trt_1_turn_1(camp):
    # HF-TRT-1
    r = camp.turn(1)
    assert (r.allied_rp, r.axis_rp, r.weather_add, r.allied) == (6, 6, 1, [])
    assert [camp.unit(u).name for u in r.axis] == ["50th Brigade", "Barenthin", "10th Panzer (A)",
                                                  "Air Support 2"]
    assert r.source.startswith("printed")


def test_hf_trt_2_turn_2(camp):
    # HF-TRT-2
    r = camp.turn(2)
    assert (r.allied_rp, r.axis_rp, r.weather_add) == (8, 8, 1)
    assert [camp.unit(u).name for u in r.allied] == ["1st Guards BDE", "38th Irish BDE"]
    assert [camp.unit(u).name for u in r.axis] == ["86th Panzer GRN", "Arnim"]


def test_hf_trt_3_turn_3(camp):
    # HF-TRT-3
    r = camp.turn(3)
    assert (r.allied_rp, r.axis_rp, r.weather_add) == (8, 8, 1)
    assert [camp.unit(u).name for u in r.allied] == ["US 1st Armor CCA", "6th Armor (B)"]
    assert [camp.unit(u).name for u in r.axis] == ["10th Panzer (B)", "69th Panzer GRN", "334th Inf"]


def test_hf_trt_4_reconstructed_rows_and_gray_units(camp):
    # HF-TRT-4 / HF-G2: rows 4-16 exist, are marked reconstructed, and the asterisk is data
    for n in range(4, 17):
        assert "reconstructed" in camp.turn(n).source
    scheduled = {u: n for n, r in camp.turns.items() for u in (*r.allied, *r.axis)}
    gray = [camp.unit(u) for u in scheduled if camp.unit(u).gray_hex_entry]
    assert gray
    for u in gray:
        n = scheduled[u.id]
        assert camp.gray_usable(u.side, n), (u.id, n)     # gray arrivals only in the side's window
    assert {u.side for u in gray} == {"allied", "axis"}
    # every unit is either set up or scheduled exactly once
    placed = {p.unit for p in camp.scenario.setup}
    assert placed.isdisjoint(scheduled)
    assert placed | set(scheduled) == set(camp.units)


# ------------------------------------------------------------------------ set-up and victory
def test_hf_12_1_a_axis_setup_zone(camp):
    # HF-12.1-a: Superga, Fallschirmjager 5, Witzig in or within 2 hexes of Tunis and/or Bizerte
    zone_hexes = set()
    for p in camp.scenario.setup:
        if p.unit in ("superga", "fjr5", "witzig"):
            assert [camp.hex_of(z) for z in p.zone] == [camp.hex_of("Tunis"), camp.hex_of("Bizerte")]
            assert p.radius == 2
            zone_hexes = set(camp.setup_zone_hexes(p))
    g = camp.map.grid
    tunis, bizerte = camp.hex_of("Tunis"), camp.hex_of("Bizerte")
    assert {tunis, bizerte} <= zone_hexes
    for h in zone_hexes:
        assert min(g.distance(h, tunis), g.distance(h, bizerte)) <= 2
        assert not camp.is_prohibited(h)


def test_hf_12_1_b_allied_fixed_setup(camp):
    # HF-12.1-b: the Allied fixed set-up ('Souk Ahars' resolves to Souk Ahras, HF-G23)
    expect = {"36bde": "Tabarka", "11bde": "Souk el Khemis", "1para": "La Calle",
              "6ad-a": "Souk el Arba", "us1ad-ccb": "Souk Ahras", "frxix": "Beja"}
    got = {p.unit: camp.setup_zone_hexes(p) for p in camp.scenario.setup if p.hex}
    assert got == {u: [camp.hex_of(n)] for u, n in expect.items()}
    for (h,) in got.values():
        assert not camp.is_prohibited(h)


def test_hf_12_b_all_units_at_maximum_sp(camp):
    # HF-12-b: every set-up block has a max SP to start at (support units have none)
    for p in camp.scenario.setup:
        u = camp.unit(p.unit)
        assert u.max_sp >= 1 or u.type == "support"


def test_hf_14_race_to_tunis(race, camp):
    # HF-14: turns 1-3 of the campaign; its victory condition is reconstructed data (HF-G17)
    s = race.scenario
    assert (s.first_turn, s.last_turn) == (1, 3)
    assert [p.unit for p in s.setup] == [p.unit for p in camp.scenario.setup]
    v = s.victory
    assert v.kind == "race-to-tunis" and v.source.startswith("reconstructed")   # HF-G17
    assert v.allied_near_at_end == ["Tunis"] and v.near_radius == 1 and v.otherwise == "axis"
    with pytest.raises(ScenarioError):
        race.turn(4)


def test_campaign_victory_data(camp):
    v = camp.scenario.victory
    assert v.kind == "campaign" and v.source.startswith("printed")
    assert v.allied_hold_all == ["Bizerte", "Tunis"]
    assert v.axis_hold_any == ["Bone", "Souk Ahras", "Tebessa"]
    assert v.axis_hold_any_at_end == ["Bizerte", "Tunis"]


# ------------------------------------------------------------------------ validation
@pytest.fixture
def broken(tmp_path):
    """Copy the shipped data into tmp_path; edit(file, old, new) and load it."""
    root = tmp_path / "holdfast"
    shutil.copytree(SCENARIO_DIR, root)

    def edit(name: str, old: str, new: str, count: int = 1) -> Path:
        p = root / name
        text = p.read_text()
        assert old in text, f"{old!r} not in {name}"
        p.write_text(text.replace(old, new, count))
        return root

    return root, edit


def expect_error(root: Path, scenario: str, file: str, fragment: str) -> str:
    with pytest.raises(ScenarioError) as e:
        load_holdfast(scenario, root)
    msg = str(e.value)
    assert "\n" not in msg
    assert file in msg, msg
    assert fragment in msg, msg
    return msg


def test_copy_of_shipped_data_loads(broken):
    root, _ = broken
    d = load_holdfast("campaign", root)
    assert len(d.units) == len(load_holdfast("campaign").units)


CASES = [
    # (id, file edited, old, new, file named in the error, fragment)
    ("setup-unknown-place", "campaign.toml", 'hex = "Tabarka"', 'hex = "Atlantis"',
     "campaign.toml", "unknown place or hex 'Atlantis'"),
    ("setup-unknown-hex", "campaign.toml", 'hex = "Beja"', 'hex = "9999"',
     "campaign.toml", "unknown place or hex '9999'"),
    ("setup-prohibited-hex", "campaign.toml", 'hex = "Beja"', 'hex = "0101"',
     "campaign.toml", "not a legal set-up hex"),
    ("setup-unknown-zone", "campaign.toml", 'zone = ["Tunis", "Bizerte"]', 'zone = ["Tunis", "Carthage"]',
     "campaign.toml", "unknown place or hex 'Carthage'"),
    ("setup-unknown-unit", "campaign.toml", 'unit = "36bde"', 'unit = "37bde"',
     "campaign.toml", "unknown unit"),
    ("setup-support-on-map", "campaign.toml", 'unit = "36bde"', 'unit = "cteam"',
     "campaign.toml", "off map"),
    ("turn-unknown-unit", "turns.toml", '"1gds"', '"2gds"', "turns.toml", "unknown unit '2gds'"),
    ("turn-wrong-side", "turns.toml", 'allied = ["1gds", "38irish"]', 'allied = ["1gds", "38irish", "s501"]',
     "turns.toml", "listed with the allied reinforcements"),
    ("unit-scheduled-twice", "turns.toml", 'allied = ["us1ad-cca", "6ad-b"]',
     'allied = ["us1ad-cca", "6ad-b", "1gds"]', "turns.toml", "scheduled twice"),
    ("setup-unit-also-scheduled", "turns.toml", 'axis = ["pgr86", "arnim"]',
     'axis = ["pgr86", "arnim", "superga"]', "campaign.toml", "also scheduled"),
    ("terrain-without-table-row", "tables.toml", "[hex.rough]", "[hex.rugged]",
     "map.toml", "unknown terrain 'rough'"),
    ("hexside-without-table-row", "tables.toml", "[hexside.escarpment]", "[hexside.cliff]",
     "map.toml", "unknown hexside kind 'escarpment'"),
    ("place-kind-without-table-row", "tables.toml", "[place.minor_port]", "[place.harbour]",
     "tables.toml", "minor_port"),
    ("unit-missing-th", "units.toml", "th = 4\nmp = 4", "th = 0\nmp = 4", "units.toml", "missing values"),
    ("unit-missing-mp", "units.toml", "th = 5\nmp = 5", "th = 5\nmp = 0", "units.toml", "missing values"),
    ("unit-missing-field", "units.toml", 'drc = 5\n', '', "units.toml", "drc"),
    ("unit-unknown-field", "units.toml", 'drc = 5\n', 'drc = 5\ncolour = "tan"\n', "units.toml", "colour"),
    ("unit-missing-values", "units.toml", "drc = 3\nth = 4\nmp = 4\nmax_sp = 3", "drc = 3\nth = 4\nmp = 4\nmax_sp = 0",
     "units.toml", "missing values"),
    ("unit-bad-side", "units.toml", 'side = "allied"', 'side = "neutral"', "units.toml", "side 'neutral'"),
    ("unit-bad-nationality", "units.toml", 'nationality = "british"', 'nationality = "canadian"',
     "units.toml", "nationality 'canadian'"),
    ("unit-bad-type", "units.toml", 'type = "armor"', 'type = "cavalry"', "units.toml", "type 'cavalry'"),
    ("unit-bad-support-kind", "units.toml", 'support = "leader"', 'support = "general"',
     "units.toml", "support kind 'general'"),
    ("unit-duplicate-id", "units.toml", 'id = "11bde"', 'id = "36bde"', "units.toml", "used twice"),
    ("unit-bad-id", "units.toml", 'id = "11bde"', 'id = "11 Bde"', "units.toml", "id must be"),
    ("unit-source", "units.toml", 'source = "printed: German Armor', 'source = "guess: German Armor',
     "units.toml", "printed' or 'reconstructed"),
    ("tables-source", "tables.toml", 'source = "printed: TEC Rough', 'source = "TEC Rough',
     "tables.toml", "printed' or 'reconstructed"),
    ("turns-source", "turns.toml", 'source = "printed: Turn Record table turn 1', 'source = "Turn Record table turn 1',
     "turns.toml", "printed' or 'reconstructed"),
    ("scenario-source", "campaign.toml", 'source = "printed: 12.1 Allied, Beja"', 'source = "12.1 Allied, Beja"',
     "campaign.toml", "printed' or 'reconstructed"),
    ("map-source", "map.toml", 'source = "reconstructed: the three northernmost',
     'source = "the three northernmost', "map.toml", "printed' or 'reconstructed"),
    ("unknown-table", "tables.toml", "[weather]\n", "[not_weather]\n", "tables.toml", "not_weather"),
    ("missing-rp-cost", "tables.toml", "joint_attack = 2", "# joint_attack = 2", "tables.toml", "joint_attack"),
    ("rp-alias-disagrees", "tables.toml", "joint_attack = 2", "joint_attack = 2\nattack_joint = 3",
     "tables.toml", "disagree"),
    ("victory-kind", "campaign.toml", 'kind = "campaign"', 'kind = "sudden-death"', "campaign.toml", "victory kind"),
    ("victory-place", "campaign.toml", 'axis_hold_any = ["Bone"', 'axis_hold_any = ["Algiers"',
     "campaign.toml", "unknown place or hex 'Algiers'"),
    ("control-not-a-base", "campaign.toml", 'allied = ["Bone", "Souk Ahras", "Tebessa"]',
     'allied = ["Bone", "Souk Ahras", "Tebessa", "Beja"]', "campaign.toml", "not a supply base"),
    ("control-missing-base", "campaign.toml", 'allied = ["Bone", "Souk Ahras", "Tebessa"]',
     'allied = ["Bone", "Souk Ahras"]', "campaign.toml", "no side holds Tebessa"),
    ("edge-roads-count", "map.toml", 'hexes = ["0105", "0108", "0110"]', 'hexes = ["0105", "0108"]',
     "map.toml", "exactly 3"),
    ("entry-unknown-place", "tables.toml", 'german = ["Tunis", "Bizerte"]', 'german = ["Tunis", "Naples"]',
     "tables.toml", "Naples"),
    ("malformed-toml", "turns.toml", "[[turn]]\nturn = 1", "[[turn]\nturn = 1", "turns.toml", ""),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_validation_refuses_broken_data(broken, case):
    # ERR-HF-4.1 / HF-G1 / HF-G5 / HF-G6: broken data is refused with one line naming the file
    _, file, old, new, named, fragment = case
    root, edit = broken
    edit(file, old, new)
    expect_error(root, "campaign", named, fragment)


def test_missing_turn_row_is_refused(broken):
    # HF-G2: never default a missing turn row
    root, _ = broken
    p = root / "turns.toml"
    text = p.read_text()
    new = re.sub(r"\[\[turn\]\]\nturn = 7\n.*?\n\n", "", text, flags=re.S)
    assert new != text
    p.write_text(new)
    expect_error(root, "campaign", "campaign.toml", "no row for turn 7")
    # the warm-up (turns 1-3) does not need turn 7
    assert load_holdfast("race-to-tunis", root).scenario.last_turn == 3


def test_scenario_id_must_match_file(broken):
    root, edit = broken
    edit("race-to-tunis.toml", 'id = "race-to-tunis"', 'id = "race"')
    expect_error(root, "race-to-tunis", "race-to-tunis.toml", "does not match")


def test_gray_hexset_must_match_gray_terrain(broken):
    root, edit = broken
    edit("map.toml", 'name = "gray"\nhexes = ["2833", ', 'name = "gray"\nhexes = [')
    expect_error(root, "campaign", "map.toml", "gray")


def test_missing_table_is_refused(broken):
    # policy 1 (GAPS.md): a missing table never defaults silently
    root, _ = broken
    p = root / "tables.toml"
    text = p.read_text()
    new = re.sub(r"\[weather\]\n.*?\n\n", "", text, flags=re.S)
    assert new != text
    p.write_text(new)
    expect_error(root, "campaign", "tables.toml", "missing table [weather]")
