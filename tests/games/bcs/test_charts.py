"""BCS and BbF charts as data: every printed cell as printed, every modified roll answered."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pbem.games.bcs.rules_data import mp_cost, net_drm, round_bcs


def rows(bbf, table):
    return [(b.lo, b.hi, b.result) for b in bbf.tables[table].rows]


def mods(bbf, chart, group=None):
    return {m.name: m.drm for m in bbf.modifiers
            if m.chart == chart and (group is None or m.group == group)}


@pytest.mark.parametrize("roll,result,rule", [
    (-3, "A2", "BCS-CHT-CT-1"), (4, "A2", "BCS-CHT-CT-1"),
    (5, "A1", "BCS-CHT-CT-2"), (6, "A1", "BCS-CHT-CT-2"),
    (7, "A1 D: Situational Traffic", "BCS-CHT-CT-3"), (8, "A1 D: Situational Traffic", "BCS-CHT-CT-3"),
    (9, "[A1] D: Situational Traffic", "BCS-CHT-CT-4"), (10, "[A1] D: Situational Traffic", "BCS-CHT-CT-4"),
    (11, "D1 D: Retreat", "BCS-CHT-CT-5"), (12, "D1 D: Retreat", "BCS-CHT-CT-5"),
    (13, "D2 D: Retreat", "BCS-CHT-CT-6"), (19, "D2 D: Retreat", "BCS-CHT-CT-6"),
])
def test_combat_table(bbf, roll, result, rule):
    """BCS-CHT-CT-1..6: the Combat Table rows (open at both ends)."""
    assert bbf.roll("combat", roll) == result


def test_bcs_cht_ct_7_legend(bbf):
    """BCS-CHT-CT-7: the legend: A#, D#, [A1], Situational, Retreat, Traffic."""
    notes = " ".join(bbf.tables["combat"].notes)
    for part in ("A# - Attacker", "D# - Defender", "[A1] - A1 if defender has Prepared Defense",
                 "Situational", "Traffic Stopped"):
        assert part in notes
    b = {x.result: x for x in bbf.tables["combat"].rows}
    assert b["A1 D: Situational Traffic"].traffic and not b["D1 D: Retreat"].traffic


def test_bcs_cht_ctm_1_common_modifiers(bbf):
    """BCS-CHT-CTM-1: Dual or Supported +1; MSR Blocked -1 (each side)."""
    assert mods(bbf, "combat", "Common Modifiers") == {"Dual or Supported": 1,
                                                      "MSR Blocked marked": -1}


def test_bcs_cht_ctm_2_attacker_only(bbf):
    """BCS-CHT-CTM-2: Suppression +2, Assist +1, Prep Def -1, off map +2, Double OBJ +1."""
    assert mods(bbf, "combat", "Attacker Only (Regular & Shock)") == {
        "Suppression Mission": 2, "Assist (Regular Attacks ONLY)": 1,
        "Attacking Formation has Prep Def": -1, "Attack from off map (9.3f)": 2,
        "Double OBJ Zone": 1}


def test_bcs_cht_ctm_3_shock_and_defender_rows_are_reconstructed(bbf):
    """BCS-CHT-CTM-3: the Breakthrough value and the defender rows are authored (BBF-G4)."""
    shock = [m for m in bbf.modifiers if m.group.startswith("Shock Attack Only")]
    assert {m.name for m in shock} >= {"Breakthrough AV Unit"}
    assert all(m.source.startswith("reconstructed: BBF-G4") for m in shock)
    d = mods(bbf, "combat", "Defender Only")
    assert d["Prepared Defense"] == 1 and d["Terrain (defender in combat terrain)"] == 1


def test_bcs_cht_ctm_4_net_modifier_and_1_3d_cumulative(bbf):
    """BCS-CHT-CTM-4 / BCS-1.3d: DRMs add up; net = attacker's net AR minus defender's."""
    atk = [m for m in bbf.modifiers if m.chart == "combat"
           and m.name in ("Assist (Regular Attacks ONLY)", "Double OBJ Zone")]
    assert net_drm(atk) == 2
    dfn = [m for m in bbf.modifiers
           if m.group == "Defender Only" and m.name.startswith(("Terrain", "Prepared"))]
    # the rulebook example (4.3): attack 4 AR +1 Assist +1 Double OBJ = 6; defence 3 AR +1 terrain
    assert (4 + net_drm(atk)) - (3 + net_drm(dfn[:1])) == 2


@pytest.mark.parametrize("roll,result", [(2, "Firer Loss & Traffic"), (5, "Firer Loss & Traffic"),
                                         (6, "Both Loss"), (8, "Both Loss"),
                                         (9, "Target Loss & Retreat"), (14, "Target Loss & Retreat")])
def test_bcs_cht_eng_2_support_not_involved(bbf, roll, result):
    """BCS-CHT-ENG-2: Support Not Involved: <=5 Firer Loss & Traffic; 6-8 Both; 9+ Target."""
    assert bbf.roll("engagement_not_involved", roll) == result


@pytest.mark.parametrize("roll,result", [(3, "Firer Loss & Traffic"), (4, "No Result"),
                                         (5, "No Result"), (6, "Target Drop"), (10, "Target Drop"),
                                         (11, "Target Loss")])
def test_bcs_cht_eng_3_support_involved(bbf, roll, result):
    """BCS-CHT-ENG-3: Support Involved: <=3, 4-5, 6-10, 11+."""
    assert bbf.roll("engagement_involved", roll) == result


def test_bcs_cht_eng_1_and_4_modifiers_and_range_notes(bbf):
    """BCS-CHT-ENG-1: Firer +1 Double OBJ, -1 Limited; Target +1 Multiple Supports.
    BCS-CHT-ENG-4: out-of-range results ignored; in Terrain max range 1."""
    assert mods(bbf, "engagement_not_involved") == {"Double OBJ Zone": 1, "Limited AV": -1}
    assert mods(bbf, "engagement_involved") == {"Multiple Supports (Support ONLY 7.1k)": 1}
    notes = " ".join(bbf.tables["engagement_not_involved"].notes)
    assert "out of enemy range" in notes and "max range is 1 hex" in notes


def test_bcs_cht_bar_1_barrage_table(bbf):
    """BCS-CHT-BAR-1: Hard 6; City 5-6; Terrain and/or PD 4-6; all other 3-6."""
    got = {r: bbf.cell("barrage", r, "Loss Range") for r in bbf.matrices["barrage"].rows}
    assert got == {"Hard Unit": "6", "City": "5-6", "Terrain and/or Prepared Defense": "4-6",
                   "All other Barrage": "3-6"}


@pytest.mark.parametrize("roll,result", [(-4, "Fail"), (2, "Fail"), (3, "Partial"), (6, "Partial"),
                                         (7, "Pass"), (15, "Pass")])
def test_bcs_cht_snafu_1_table(bbf, roll, result):
    """BCS-CHT-SNAFU-1: 2 or less Fail; 3-6 Partial; 7+ Pass; Prepared Defense caps at Partial."""
    assert bbf.roll("snafu", roll) == result
    assert any("Prepared Defense" in n for n in bbf.tables["snafu"].notes)


def test_bcs_cht_snafu_2_to_4_modifiers(bbf):
    """BCS-CHT-SNAFU-2 (always), BCS-CHT-SNAFU-3 (Trains Legal), BCS-CHT-SNAFU-4 (not Legal)."""
    assert mods(bbf, "snafu", "Always") == {"Fresh": 1, "Coordination Marker": -1,
                                           "Fatigue Level": -1, "Mixed Formations (10.1e)": -1}
    assert mods(bbf, "snafu", "If Combat Trains are Legal") == {
        "Optimal Distance": 1, "Ghost Trains": -1, "Crossing the Streams": -1,
        "MSR uses TRACKS": -1}
    assert mods(bbf, "snafu", "If Combat Trains are not Legal and/or Off Map") == {
        "Combat Trains not in a Legal Hex": -3, "MSR Blocked marker of Level X": -1}


def test_bbf_cht_snafu_game_specific_drms(bbf):
    """BBF-CHT-SNAFU: Axis +1 on 14 Feb, -2 on 15-17 Feb, +0 from 18 Feb; Allies +0."""
    ax = {m.name: (m.drm, m.when) for m in bbf.modifiers if m.group == "Game Specific: Axis"}
    assert ax["14 Feb"] == (1, "14 Feb 43") and ax["15-17 Feb"][0] == -2 and ax["18 Feb onward"][0] == 0
    days = "|".join(w for _, w in ax.values()).split("|")
    assert sorted(days) == sorted(bbf.ooa.calendar)      # every turn has exactly one Axis DRM
    assert mods(bbf, "snafu", "Game Specific: Allies") == {"All Turns": 0}


def test_bcs_cht_sre_1_and_2_snafu_result_effects(bbf):
    """BCS-CHT-SRE-1: OBJs 0/1/2, Recon OBJs No/Yes/Yes. BCS-CHT-SRE-2: Movement, Vol. Retreat."""
    c = lambda r, col: bbf.cell("snafu_effects", r, col)  # noqa: E731
    assert [c("HQ Created?", x) for x in ("Fail", "Partial", "Pass")] == ["0", "1", "2"]
    assert [c("Recon Created?", x) for x in ("Fail", "Partial", "Pass")] == ["No", "Yes", "Yes"]
    assert c("Movement?", "Partial") == "1/2 MA" and c("Movement?", "Fail") == "No"
    assert [c("Voluntary Retreat?", x) for x in ("Fail", "Partial", "Pass")] == ["HQ Only", "Yes", "Yes"]
    assert c("Arty Points?", "Partial") == "1/2, rounded down"     # BBF-G6, reconstructed


def test_bcs_cht_fat_1_fatigue_increase(bbf):
    """BCS-CHT-FAT-1: OBJ placed 1; Engagement or Attack by Fire 1-2; Combat Table 1-3."""
    for table, top in (("fatigue_obj", 1), ("fatigue_engagement", 2), ("fatigue_combat", 3)):
        assert [bbf.roll(table, r) for r in range(1, 7)] == \
            ["Increase"] * top + ["No increase"] * (6 - top)


def test_bcs_cht_ucc_1_and_2_unit_capabilities(bbf):
    """BCS-CHT-UCC-1: Assault Arrow row as printed. BCS-CHT-UCC-2: Red AV row; the rest authored."""
    m = bbf.matrices["unit_capabilities"]
    arrow = [bbf.cell(m.id, "Assault Arrow", c) for c in m.columns]
    assert arrow == ["yes", "no", "yes", "no", "yes", "no", "no", "yes", "yes", "yes"]
    red = [bbf.cell(m.id, "Red AV", c) for c in m.columns[:5]]
    assert red == ["no", "yes", "yes", "yes", "yes"]
    assert bbf.cell(m.id, "Light AV", "Engage") == "no"         # 1.2c: Light cannot initiate
    assert bbf.cell(m.id, "Unprepared", "Assist") == "no"       # 1.2d


def test_bcs_cht_rak_retreat_answer_key(bbf):
    """BCS-CHT-RAK: Leg/Truck: no Safe Path #3, Automatic #2; otherwise Situational+Key #3, else #1."""
    k = lambda r, c: bbf.cell("retreat_key", r, c)  # noqa: E731
    assert k("Leg or Truck MA", "No Safe Path") == "#3"
    assert k("Leg or Truck MA", "Automatic Retreat") == "#2"
    assert k("Not Leg or Truck MA", "Situational and Key Terrain or PD") == "#3"
    assert k("Not Leg or Truck MA", "Everything else") == "#1"
    assert bbf.cell("retreat_results", "#3", "Result").startswith("Stay in place")


@pytest.mark.parametrize("table,expect,rule", [
    ("repl_axis", ["0/0", "0/0", "1/1", "1/1", "1/1", "2/2"], "BBF-CHT-REP-AX"),
    ("repl_allied", ["0/0", "0/0", "1/1", "1/1", "2/2", "2/2"], "BBF-CHT-REP-AL"),
])
def test_replacement_tables(bbf, table, expect, rule):
    """BBF-CHT-REP-AX / BBF-CHT-REP-AL: AV / non-AV Replacement Points per die."""
    assert [bbf.roll(table, r) for r in range(1, 7)] == expect
    assert any("first turn" in n for n in bbf.tables[table].notes)


def test_weather_and_air_points(bbf):
    """BBF-1.1: weather 1-2 Rain, 3-6 No Rain; Air Points: Axis one die, Allies die - 2 (min 0)."""
    assert [bbf.roll("weather", r) for r in range(1, 7)] == ["Rain"] * 2 + ["No Rain"] * 4
    assert [int(bbf.roll("air_axis", r)) for r in range(1, 7)] == [1, 2, 3, 4, 5, 6]
    assert [int(bbf.roll("air_allied", r)) for r in range(1, 7)] == [max(0, r - 2) for r in range(1, 7)]


def test_bcs_1_3c_rounding():
    """BCS-1.3c: below .5 rounds down, .5 or more rounds up."""
    assert [round_bcs(Fraction(n, 2)) for n in range(0, 7)] == [0, 1, 1, 2, 2, 3, 3]
    assert round_bcs(Fraction(7, 3)) == 2 and round_bcs(Fraction(5, 3)) == 2


@pytest.mark.parametrize("tid,costs,rule", [
    ("open", ("1", "1", "2"), "BBF-CHT-TEC-1"),
    ("secondary_road", ("1/2", "1/2", "1/4"), "BBF-CHT-TEC-2"),
    ("track", ("1/2", "1", "1"), "BBF-CHT-TEC-3"),
])
def test_tec_printed_rows(bbf, tid, costs, rule):
    """BBF-CHT-TEC-1 / BBF-CHT-TEC-2 / BBF-CHT-TEC-3: the printed Leg, Tac, Truck costs."""
    t = bbf.terrain[tid]
    assert (t.leg, t.tac, t.truck) == costs and t.source.startswith("printed")
    assert mp_cost(t, "truck") == Fraction(costs[2])


def test_bbf_cht_tec_1_open_flags(bbf):
    """BBF-CHT-TEC-1: Open is not combat terrain, not blocking, not Key."""
    t = bbf.terrain["open"]
    assert t.combat == "no" and not t.blocking and not t.key


def test_bbf_cht_tec_4_railroad_truck_reconstructed(bbf):
    """BBF-CHT-TEC-4: RR Leg 1/2, Tac 1 printed; its Truck value and every later row authored."""
    rr = bbf.terrain["railroad"]
    assert (rr.leg, rr.tac) == ("1/2", "1") and "Truck not printed" in rr.source
    later = [t for t in bbf.terrain.values()
             if t.id not in ("open", "secondary_road", "track", "railroad", "lake")]
    assert later and all(t.source.startswith("reconstructed") for t in later)
    assert all(t.rain_leg and t.rain_tac and t.rain_truck for t in bbf.terrain.values())


def test_bbf_cht_tec_5_legend_and_notes(bbf):
    """BBF-CHT-TEC-5: 'ot', [X] Rain cost and P; notes BBF-CHT-TEC-n1 to BBF-CHT-TEC-n4 kept."""
    assert set(bbf.tec.legend) == {"ot", "[X]", "P"}
    assert [n[:3] for n in bbf.tec.notes] == ["(1)", "(2)", "(3)", "(4)"]
    assert bbf.terrain["village"].leg == "ot" and bbf.terrain["lake"].tac == "P"
    assert bbf.terrain["wadi"].combat_drm == 1 and bbf.terrain["minefield"].combat_drm == 1


def test_err_bbf_7_lake_hexsides_prohibited(bbf):
    """ERR-BBF-7: the lake hexside A14.21 / A14.20 is impassable to all MA types."""
    assert "lake" in bbf.game_map.hexside("A14.21", "A14.20")
    lake = bbf.terrain["lake"]
    assert {lake.leg, lake.tac, lake.truck, lake.rain_leg, lake.rain_tac, lake.rain_truck} == {"P"}


def test_safe_path_chart(bbf):
    """BCS-1.6-SP-1 / BCS-1.6-SP-2: CR + 5; 3 road hexes at the HQ; MA type per purpose."""
    c = lambda r: bbf.cell("safe_path", r, "Rule")  # noqa: E731
    assert c("Maximum length") == "Command Radius + 5 hexes"
    assert c("HQ hex checked").startswith("3 hexes along roads")
    assert c("AV Repl Points or Support Reestablishment") == "Tac MA"
    assert c("Non-AV Repl Points") == "Leg MA"


def test_bbf_cht_tec_n2_and_n3_minefield_row(bbf):
    """BBF-CHT-TEC-n2: roads do not negate a minefield (its row applies as a hex marker, all MP
    and STOP until breached). BBF-CHT-TEC-n3: a 1-point DRM against a unit in a minefield."""
    m = bbf.terrain["minefield"]
    assert m.applies == "marker" and m.stop and {m.leg, m.tac, m.truck} == {"all"}
    assert "(2)" in m.note and "(3)" in m.note and m.combat_drm == 1
    drm = [x for x in bbf.modifiers if x.name.startswith("Unit in a Minefield hex")]
    assert len(drm) == 1 and abs(drm[0].drm) == 1 and "BBF-G3" in drm[0].source


def test_err_bcs_1_1_1_voluntary_retreat_cites_7_5j(bbf):
    """ERR-BCS-1.1-1: the Voluntary Retreat reference is 7.5j."""
    assert "7.5j" in bbf.cell("retreat_results", "Voluntary", "Result")
