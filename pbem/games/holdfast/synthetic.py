"""A small synthetic Holdfast scenario ("test-mini") for rule-case tests: every terrain on 10x8 hexes.

Layout (columns 01-10, rows 01-08; even columns drawn half a hex lower):
  row 1 sea; Bone 0102 (port), Souk Ahras 0105, Tebessa 0107 (inland bases), edge roads
  0102/0103/0104 on the west edge (column 01); Bizerte 1002 and Tunis 1003 (ports), Sousse
  1006, Sfax 1007, Gabes 1008 (minor ports); town 0504; rough 0505 and 0605; salt marsh 0307;
  gray 0808 and 0908. Road: 0102-0103-0104-0105-0106-0107 (west), 0104-...-1004 along row 4,
  1004-1003-1002, 1004-1005-1006-1007-1008 and 1007-0908. Hexsides: river+bridge 0604/0704,
  river 0605/0705, escarpment 0505/0506, red line 0302/0402, Mareth line 0807/0907.
"""

from __future__ import annotations

from types import SimpleNamespace

from pbem.core.mapdata import GameMap, HexSet, HexsideGroup, MapFile, MapHeader, Place, Road
from pbem.games.holdfast.data import register_data
from pbem.games.holdfast.scenario import (EntryRules, GrayRules, HexsideTerrain, HexTerrain,
                                          MovementRules, Placement, PlaceTerrain, ScenarioFile,
                                          SupplyEffect, SupplyRules, Tables, TurnRow, Unit,
                                          Victory, Weather)

SRC = "reconstructed: synthetic test map"
SCENARIO_ID = "test-mini"

GRID = ["ssssssssss",
        "oooooooooo",
        "oooooooooo",
        "oooooooooo",
        "oooorroooo",
        "oooooooooo",
        "oomooooooo",
        "oooooooggo"]


def build_map() -> GameMap:
    """The synthetic GameMap."""
    places = [("Bone", "0102", ["town", "port", "supply_base"]),
              ("Souk Ahras", "0105", ["supply_base"]),
              ("Tebessa", "0107", ["supply_base"]),
              ("Bizerte", "1002", ["town", "port", "supply_base"]),
              ("Tunis", "1003", ["town", "port", "supply_base"]),
              ("Sousse", "1006", ["minor_port", "supply_base"]),
              ("Sfax", "1007", ["minor_port", "supply_base"]),
              ("Gabes", "1008", ["minor_port", "supply_base"]),
              ("Medjez", "0504", ["town"])]
    roads = [["0102", "0103", "0104", "0105", "0106", "0107"],
             ["0104", "0204", "0304", "0404", "0504", "0604", "0704", "0804", "0904", "1004"],
             ["1004", "1003", "1002"],
             ["1004", "1005", "1006", "1007", "1008"],
             ["1007", "0908"]]
    sides = {"river": [("0604", "0704"), ("0605", "0705")], "bridge": [("0604", "0704")],
             "escarpment": [("0505", "0506")], "red_line": [("0302", "0402")],
             "mareth_line": [("0807", "0907")]}
    data = MapFile(
        map=MapHeader(id="test-mini", title="Synthetic test map", first_col=1, last_col=10,
                      first_row=1, last_row=8, source=SRC),
        legend={"o": "open", "r": "rough", "s": "sea", "m": "salt_marsh", "g": "gray"},
        grid=GRID,
        place=[Place(name=n, hex=h, kinds=k, source=SRC) for n, h, k in places],
        road=[Road(hexes=r, source=SRC) for r in roads],
        hexside=[HexsideGroup(kind=k, pairs=p, source=SRC) for k, p in sides.items()],
        hexset=[HexSet(name="allied_edge_roads", hexes=["0102", "0103", "0104"], source=SRC),
                HexSet(name="west_edge", hexes=[f"01{r:02d}" for r in range(2, 9)], source=SRC),
                HexSet(name="gray", hexes=["0808", "0908"], source=SRC)])
    return GameMap(data, path="<synthetic>")


def build_units() -> dict[str, Unit]:
    """The synthetic unit manifest."""
    rows = [
        ("inf1", "allied", "british", "infantry", "", 3, 5, 4, 3),
        ("inf2", "allied", "british", "infantry", "", 3, 5, 4, 3),
        ("inf3", "allied", "british", "infantry", "", 3, 5, 4, 3),
        ("us1", "allied", "us", "infantry", "", 3, 5, 4, 3),
        ("fr19", "allied", "french", "infantry", "", 3, 4, 4, 4),
        ("arm1", "allied", "british", "armor", "", 4, 6, 6, 3),
        ("arm2", "allied", "us", "armor", "", 4, 6, 6, 3),
        ("ct", "allied", "british", "support", "combat_team", 1, 0, 0, 0),
        ("ger1", "axis", "german", "infantry", "", 3, 5, 5, 3),
        ("ger2", "axis", "german", "infantry", "", 3, 5, 5, 3),
        ("ger3", "axis", "german", "infantry", "", 3, 5, 5, 3),
        ("pz1", "axis", "german", "armor", "", 5, 6, 8, 3),
        ("ita1", "axis", "italian", "infantry", "", 3, 4, 4, 3),
        ("arnim", "axis", "german", "support", "leader", 1, 0, 0, 0),
        ("air1", "axis", "german", "support", "air", 1, 0, 0, 0),
        ("air2", "axis", "german", "support", "air", 1, 0, 0, 0),
        ("kg", "axis", "german", "support", "kampfgruppe", 1, 0, 0, 0),
        ("dak1", "axis", "german", "infantry", "", 3, 5, 5, 3),
    ]
    out = {}
    for uid, side, nat, typ, sup, drc, th, mp, sp in rows:
        out[uid] = Unit(id=uid, name=f"Unit {uid.upper()}", side=side, nationality=nat,
                        type=typ, support=sup, drc=drc, th=th, mp=mp, max_sp=sp,
                        gray_hex_entry=uid == "dak1", die_modifier=1 if sup == "air" else 0,
                        clear_weather_only=sup == "air", mp_bonus=1 if sup == "leader" else 0,
                        source=SRC)
    return out


def build_tables() -> Tables:
    """Terrain and RP tables (the printed values; authored river/escarpment/Mareth rows)."""
    return Tables(
        hex={"open": HexTerrain(mp_infantry=2, mp_armor=2, source=SRC),
             "rough": HexTerrain(mp_infantry=3, mp_armor=4, attacker_dice=-1, source=SRC),
             "sea": HexTerrain(prohibited=True, source=SRC),
             "salt_marsh": HexTerrain(prohibited=True, source=SRC),
             "gray": HexTerrain(mp_infantry=2, mp_armor=2, source=SRC)},
        hexside={"river": HexsideTerrain(mp=1, mp_poor=2, defender_bonus_dice=1,
                                         bonus_modifier=1, source=SRC),
                 "bridge": HexsideTerrain(mp=0, mp_poor=1, defender_bonus_dice=1,
                                          bonus_modifier=1, supplants=["river"],
                                          bonus_hits_to_crosser=True, source=SRC),
                 "escarpment": HexsideTerrain(mp=1, mp_poor=1, attacker_dice=-1, source=SRC),
                 "red_line": HexsideTerrain(prohibited=True, source=SRC),
                 "mareth_line": HexsideTerrain(mp=2, mp_poor=2, attacker_dice=-1, source=SRC)},
        place={"town": PlaceTerrain(defender_dice=1, source=SRC),
               "port": PlaceTerrain(defender_bonus_dice=1, bonus_modifier=1, source=SRC)},
        road_mp=1, ezoc_mp=2,
        rp_costs={"step_infantry": 1, "step_armor": 2, "unit_infantry": 2, "unit_armor": 3,
                  "activate_move": 1, "attack": 1, "joint_attack": 2,
                  "axis_armor_surcharge_from_turn": 9, "axis_armor_surcharge": 1},
        source=SRC,
        weather=Weather(die=6, poor_at=6, poor_mp={"infantry": -1, "armor": -2},
                        air_in_poor=False, source=SRC),
        out_of_supply={"infantry": SupplyEffect(mp=-1, dice=-1, source=SRC),
                       "armor": SupplyEffect(mp=-2, dice=-1, source=SRC)},
        supply=SupplyRules(road_trace_hexes=3, minor_port_units=1, source=SRC),
        gray=GrayRules(axis_first=1, axis_last=8, allied_first=9, allied_last=16, source=SRC),
        movement=MovementRules(strategic_multiplier=2, no_strategic_turns=[1, 2],
                               leader_mp_bonus=1, source=SRC),
        entry=EntryRules(allied=["Bone", "Souk Ahras", "Tebessa", "hexset:allied_edge_roads"],
                         german=["Tunis", "Bizerte"], italian=["Tunis", "Bizerte"],
                         allied_fallback=["hexset:west_edge"], gray=["hexset:gray"],
                         source=SRC))


def build_turns(last: int = 16) -> dict[int, TurnRow]:
    """Turn rows 1..last with the campaign RP steps; a few reinforcements."""
    rp = {1: (6, 6), 2: (8, 8), 3: (8, 8), 4: (10, 10), 9: (12, 10), 12: (14, 10)}
    out = {}
    cur = (6, 6)
    for t in range(1, last + 1):
        cur = rp.get(t, cur)
        out[t] = TurnRow(turn=t, label=f"T{t}", allied_rp=cur[0], axis_rp=cur[1],
                         weather_add=1 if t <= 11 else 0,
                         allied={2: ["inf3"], 3: ["arm2"]}.get(t, []),
                         axis={1: ["air1"], 2: ["arnim", "ger3"], 3: ["dak1"]}.get(t, []),
                         source=SRC)
    return out


def build(last_turn: int = 16, victory: str = "campaign") -> SimpleNamespace:
    """The whole synthetic HoldfastData-like object."""
    setup = [Placement(unit="inf1", hex="0103", source=SRC),
             Placement(unit="inf2", hex="0204", source=SRC),
             Placement(unit="us1", hex="0105", source=SRC),
             Placement(unit="fr19", hex="0304", source=SRC),
             Placement(unit="arm1", hex="0106", source=SRC),
             Placement(unit="ct", off_map=True, source=SRC),
             Placement(unit="ger1", zone=["Tunis", "Bizerte"], radius=2, source=SRC),
             Placement(unit="ger2", zone=["Tunis", "Bizerte"], radius=2, source=SRC),
             Placement(unit="ita1", zone=["Tunis", "Bizerte"], radius=2, source=SRC),
             Placement(unit="pz1", hex="1005", source=SRC),
             Placement(unit="kg", off_map=True, source=SRC)]
    if victory == "race-to-tunis":
        vic = Victory(kind=victory, text="synthetic race", source=SRC,
                      allied_hold_all=["Bizerte", "Tunis"],
                      axis_hold_any=["Bone", "Souk Ahras", "Tebessa"],
                      allied_hold_any_at_end=["Tunis", "Bizerte"], allied_near_at_end=["Tunis"],
                      near_radius=1, otherwise="axis")
    else:
        vic = Victory(kind=victory, text="synthetic campaign", source=SRC,
                      allied_hold_all=["Bizerte", "Tunis"],
                      axis_hold_any=["Bone", "Souk Ahras", "Tebessa"],
                      axis_hold_any_at_end=["Bizerte", "Tunis"])
    scenario = ScenarioFile(id=SCENARIO_ID, title="Synthetic", first_turn=1, last_turn=last_turn,
                            setup=setup, victory=vic, source=SRC,
                            control={"allied": ["Bone", "Souk Ahras", "Tebessa"],
                                     "axis": ["Bizerte", "Tunis", "Sousse", "Sfax", "Gabes"]})
    return SimpleNamespace(map=build_map(), units=build_units(), tables=build_tables(),
                           turns=build_turns(), scenario=scenario)


def register(scenario_id: str = SCENARIO_ID, **kw: object) -> str:
    """Register the synthetic scenario under an id; returns the id."""
    register_data(scenario_id, build(**kw))  # type: ignore[arg-type]
    return scenario_id
