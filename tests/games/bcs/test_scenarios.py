"""BbF scenarios 5.1 to 5.6 and the orders of arrival as data, checked against the printed text."""

from __future__ import annotations

import pytest

from pbem.core.errors import ScenarioError


def at(bbf, sid, side=None):
    """{hex: [counter or @marker, ...]} of a scenario's set-up."""
    out: dict[str, list[str]] = {}
    for p in bbf.scenarios[sid].setup:
        if side is None or p.side == side:
            out.setdefault(p.hex, []).append(p.counter or "@" + p.marker)
    return out


def entry(bbf, sid, counter):
    return next(p for p in bbf.scenarios[sid].setup if p.counter == counter)


def head(bbf, sid):
    s = bbf.scenarios[sid]
    return (s.playing_area, s.first_turn, s.last_turn, s.turns, s.first_player)


def test_bbf_5_1_a_campaign_header(bbf):
    """BBF-5.1-a: 14-23 Feb 43, 10 turns, Axis first, Prov Arm Bn dead, no Axis set-up."""
    assert head(bbf, "5.1") == (["A", "B"], "14 Feb 43", "23 Feb 43", 10, "axis")
    s = bbf.scenarios["5.1"]
    assert s.dead_pile == ["prov-arm"] and not at(bbf, "5.1", "axis")
    assert s.victory.kind == "campaign"


def test_bbf_5_1_b_ccc(bbf):
    """BBF-5.1-b: B42.06 CCC HQ (Fat-0), 2/1 Arm Bn, 3/6 Arm Inf Bn; B38.13 CCC Trains."""
    a = at(bbf, "5.1")
    assert a["B42.06"] == ["ccc-hq", "2-1-arm", "3-6-arminf"] and a["B38.13"] == ["ccc-trains"]
    assert entry(bbf, "5.1", "ccc-hq").fatigue == 0


def test_bbf_5_1_c_cca(bbf):
    """BBF-5.1-c: CCA at B14.09 (Fat-1) with 3/1 Arm(-) and 701 TD; the outlying units."""
    a = at(bbf, "5.1")
    assert a["B14.09"] == ["cca-hq", "3-1-arm", "701-td"]
    assert entry(bbf, "5.1", "cca-hq").fatigue == 1
    assert a["B4.10"] == ["81-cav"] and entry(bbf, "5.1", "81-cav").screen
    assert (a["B19.07"], a["B10.06"], a["B22.06"], a["B11.02"]) == (
        ["g-1-arm"], ["drake"], ["waters"], ["3-168-inf"])
    assert a["B23.16"] == ["kern", "cca-trains"]


def test_bbf_5_1_d_stark(bbf):
    """BBF-5.1-d: Stark HQ at A8.26 (Done, Fat-0) with 805 TD and 1/26; engineers at A25.12."""
    a = at(bbf, "5.1")
    assert a["A8.26"] == ["stark-hq", "805-td", "1-26-inf"]
    e = entry(bbf, "5.1", "stark-hq")
    assert e.done and e.fatigue == 0
    assert a["A25.12"] == ["ad-19-eng", "ef-19-eng"] and a["A14.26"] == ["stark-trains"]
    assert bbf.scenarios["5.1"].markers_in_play == {"allied": ["cca", "ccc", "stark"], "axis": []}


def test_bbf_5_1_refused_with_its_gap(bbf):
    """BBF-5.1-a is listed with its status and gap (BBF-G7) and refused with that reason."""
    assert bbf.status("5.1")[0] == "incomplete" and "BBF-G7" in bbf.status("5.1")[1]
    with pytest.raises(ScenarioError, match=r"5\.1 cannot be played from the seeds: .*BBF-G7"):
        bbf.check_playable("5.1")


def test_bbf_5_2_a_spring_wind_header_and_supply(bbf):
    """BBF-5.2-a: Map B only, 14-17 Feb, 4 turns, Axis first; Allied sources C, B32.35, B3.35."""
    assert head(bbf, "5.2") == (["B"], "14 Feb 43", "17 Feb 43", 4, "axis")
    assert bbf.scenarios["5.2"].supply["allied"] == ["C", "B32.35", "B3.35"]
    assert all(bbf.game_map.grid.is_hex(h) for h in ("B32.35", "B3.35"))


def test_bbf_5_2_b_setup_is_5_1_on_map_b(bbf):
    """BBF-5.2-b: the 5.1 set-up for units on Map B; markers CCA and CCC; no Axis set-up."""
    b_only = {h: v for h, v in at(bbf, "5.1").items() if h.startswith("B")}
    assert at(bbf, "5.2") == b_only
    s = bbf.scenarios["5.2"]
    assert s.markers_in_play == {"allied": ["cca", "ccc"], "axis": []}
    assert s.reinforcements == "ooa_playing_area"
    assert bbf.status("5.2") == ("complete", "") and bbf.check_playable("5.2") is s


def test_bbf_5_2_c_victory(bbf):
    """BBF-5.2-c: Sidi bou Zid, Kern's Crossroads, Sbeitla and one more for the Axis."""
    v = bbf.scenarios["5.2"].victory
    assert v.kind == "spring_wind"
    for name, hx in (("Sidi bou Zid", "B14.09"), ("Kern's Crossroads", "B23.16"), ("Sbeitla", "B30.29")):
        assert f"{name} ({hx})" in v.text and bbf.game_map.hex_of(name) == hx


def test_bbf_5_3_a_header(bbf):
    """BBF-5.3-a: both maps, 19-23 Feb, 5 turns; draw; dead pile Prov Arm, 3/1 Arm, 2/1 Arm."""
    assert head(bbf, "5.3") == (["A", "B"], "19 Feb 43", "23 Feb 43", 5, "axis")
    s = bbf.scenarios["5.3"]
    assert s.draw_objective and s.dead_pile == ["prov-arm", "3-1-arm", "2-1-arm"]


def test_bbf_5_3_b_ccb_and_ccc(bbf):
    """BBF-5.3-b: CCB A56.33 (Fat-2) + 2/13; A56.34 601 TD [1] + 2/6; A55.35 Trains (Ghost); CCC."""
    a = at(bbf, "5.3")
    assert a["A56.33"] == ["ccb-hq", "2-13-arm"] and entry(bbf, "5.3", "ccb-hq").fatigue == 2
    assert a["A56.34"] == ["601-td", "2-6-arminf"] and entry(bbf, "5.3", "601-td").steps == 1
    assert a["A55.35"] == ["ccb-trains"] and entry(bbf, "5.3", "ccb-trains").ghost
    assert a["A35.19"] == ["ccc-hq", "3-6-arminf"] and a["A42.17"] == ["ccc-trains"]


def test_bbf_5_3_c_stark_and_minefields(bbf):
    """BBF-5.3-c: Stark A33.17 (Fat-0, PD); 1/26, 805 TD, engineers; minefields; Trains A39.19."""
    a = at(bbf, "5.3")
    e = entry(bbf, "5.3", "stark-hq")
    assert a["A33.17"] == ["stark-hq"] and e.fatigue == 0 and e.prepared_defense
    assert a["A31.16"] == ["1-26-inf"] and a["A30.16"] == ["805-td", "ad-19-eng"]
    assert a["A30.17"] == ["ef-19-eng"] and a["A39.19"] == ["stark-trains"]
    assert [h for h, v in a.items() if "@minefield" in v] == ["A29.16", "A29.17", "A30.15"]


def test_bbf_5_3_d_cca_and_welvert(bbf):
    """BBF-5.3-d: CCA A24.34 (Fat-3) + 81 Cav [1]; A25.35; A26.35; Welvert A22.32 (Fat-1, PD)."""
    a = at(bbf, "5.3")
    assert a["A24.34"] == ["cca-hq", "81-cav"] and entry(bbf, "5.3", "cca-hq").fatigue == 3
    assert a["A25.35"] == ["1-13-arm", "3-13-arm"] and entry(bbf, "5.3", "3-13-arm").steps == 2
    assert a["A26.35"] == ["701-td", "kern", "cca-trains", "welvert-trains"]
    w = entry(bbf, "5.3", "welvert-hq")
    assert a["A22.32"] == ["welvert-hq"] and w.fatigue == 1 and w.prepared_defense
    assert bbf.scenarios["5.3"].markers_in_play["allied"] == [
        "cca", "ccb", "ccc", "stark", "welvert", "34inf", "1gds"]


def test_bbf_5_3_e_dak(bbf):
    """BBF-5.3-e: DAK A19.18 (Fresh); 33 Recon, I/8 Pz, Afrika battalions, Italians, Trains."""
    a = at(bbf, "5.3", "axis")
    assert a["A19.18"] == ["dak-hq"] and entry(bbf, "5.3", "dak-hq").fresh
    assert (a["A26.14"], a["A25.14"], a["A27.15"], a["A10.24"], a["A10.25"]) == (
        ["33-recon"], ["i-8-pz"], ["i-afk", "ii-afk"], ["xvi-arm"], ["xiv-5-brs", "dak-trains"])


def test_bbf_5_3_f_reim_and_lang(bbf):
    """BBF-5.3-f: Reim B44.06 (Fat-1) ...; Reim and Lang Trains B48.00; Lang B46.05 (Fresh) ..."""
    a = at(bbf, "5.3", "axis")
    assert a["B44.06"] == ["reim-hq"] and a["B42.06"] == ["1-501-tgr"]
    assert a["B43.08"] == ["90-mdr"] and a["B44.07"] == ["ii-86-inf"]
    assert a["B48.00"] == ["reim-trains", "lang-trains"]
    assert bbf.game_map.grid.is_half("B48.00")      # a playable half hex on the bottom edge
    assert a["B46.05"] == ["lang-hq", "i-7-pz"] and entry(bbf, "5.3", "lang-hq").fresh
    assert (a["B45.05"], a["B46.04"], a["B47.04"]) == (["10-krad"], ["i-69-inf"], ["i-86-inf"])


def test_bbf_5_3_g_stenkhoff_and_err_bbf_6_lang_marker(bbf):
    """BBF-5.3-g: Stnkoff B30.29 (Fat-1) + II/5 Pz [4] + 88 (Support); ERR-BBF-6 adds Lang."""
    a = at(bbf, "5.3", "axis")
    assert a["B30.29"] == ["stenkhoff-hq", "ii-5-pz", "ii-25-lw-88"]
    assert entry(bbf, "5.3", "ii-5-pz").steps == 4 and entry(bbf, "5.3", "ii-25-lw-88").support
    assert (a["B31.31"], a["B29.28"], a["B30.28"]) == (["580-recon"], ["i-104-inf"], ["ii-104-inf"])
    assert bbf.scenarios["5.3"].markers_in_play["axis"] == ["dak", "reim", "stenkhoff", "schutte",
                                                          "lang"]


def test_bbf_5_3_h_initial_axis_vp_hexes(bbf):
    """BBF-5.3-h: Axis holds Kasserine, Sbeitla (Either), Thelepte (Tebessa), Hadjeb (Le Kef)."""
    v = bbf.scenarios["5.3"].victory
    assert v.axis_controls == ["A25.12", "B30.29", "A10.25", "B42.06"]
    kinds = {h: bbf.game_map.place_kinds(h) for h in v.axis_controls}
    assert "vp_either" in kinds["A25.12"] and "vp_either" in kinds["B30.29"]
    assert "vp_tebessa" in kinds["A10.25"] and "vp_lekef" in kinds["B42.06"]


def test_bbf_5_3_refused_activation_markers_without_hq(bbf):
    """BBF-5.3-a is refused: 34 Inf, 1 Gds and Scht KG markers have no HQ (BBF-G8)."""
    assert len(bbf.problems["5.3"]) == 3
    with pytest.raises(ScenarioError, match="BBF-G8"):
        bbf.check_playable("5.3")


def test_bbf_5_4_a_header_and_supply(bbf):
    """BBF-5.4-a: Map A only, 19-23 Feb, 5 turns; draw; Axis sources on Map A plus A32.01."""
    assert head(bbf, "5.4") == (["A"], "19 Feb 43", "23 Feb 43", 5, "axis")
    s = bbf.scenarios["5.4"]
    assert s.draw_objective and "A32.01" in s.supply["axis"] and s.dead_pile == ["prov-arm", "3-1-arm", "2-1-arm"]


def test_bbf_5_4_b_setup_is_5_3_on_map_a(bbf):
    """BBF-5.4-b: both sides as 5.3 for Map A units; markers CCA, CCB, CCC, Stark, Welvert; DAK."""
    a_only = {h: v for h, v in at(bbf, "5.3").items() if h.startswith("A")}
    assert at(bbf, "5.4") == a_only
    assert bbf.scenarios["5.4"].markers_in_play == {
        "allied": ["cca", "ccb", "ccc", "stark", "welvert"], "axis": ["dak"]}
    assert bbf.check_playable("5.4").id == "5.4"


def test_bbf_5_4_c_scenario_order_of_arrival(bbf):
    """BBF-5.4-c: 19 Feb H Jaeger; 20 Feb A32.01 Reim and Gerhardt, H Centauro; 21 Feb Lang, rest."""
    arr = [(a.turn, a.entry, a.counters[0]) for a in bbf.scenarios["5.4"].arrival]
    assert arr == [("19 Feb 43", ["H"], "i-1-jg"), ("20 Feb 43", ["A32.01"], "reim-hq"),
                   ("20 Feb 43", ["A32.01"], "gerhardt-hq"), ("20 Feb 43", ["H"], "centauro-hq"),
                   ("21 Feb 43", ["A32.01"], "lang-hq"), ("21 Feb 43", ["H"], "dii-90")]
    assert bbf.scenarios["5.4"].reinforcements == "scenario"
    assert bbf.scenarios["5.4"].arrival[1].fatigue == 1


def test_bbf_5_4_d_victory(bbf):
    """BBF-5.4-d: Le Kef: only Entry Area B, +4 VP; Tebessa +1; Axis holds Kasserine, Thelepte."""
    v = bbf.scenarios["5.4"].victory
    assert (v.lekef_bonus, v.tebessa_bonus, v.lekef_exit_areas) == (4, 1, ["B"])
    assert v.axis_controls == ["A25.12", "A10.25"]


def test_bbf_5_5_a_header(bbf):
    """BBF-5.5-a: both maps, 21-23 Feb, 3 turns; dead pile 3/1, 2/1, 1/26, E,F/19, A,D/19."""
    assert head(bbf, "5.5") == (["A", "B"], "21 Feb 43", "23 Feb 43", 3, "axis")
    assert bbf.scenarios["5.5"].dead_pile == ["3-1-arm", "2-1-arm", "1-26-inf", "ef-19-eng", "ad-19-eng"]


def test_bbf_5_5_b_ccb_and_stark(bbf):
    """BBF-5.5-b: CCB A44.31 (Fat-1), 894 TD (assigned), 2/13, 601 TD [1] + 2/6, Prov Arm [2]..."""
    a = at(bbf, "5.5")
    assert a["A44.31"] == ["ccb-hq"] and a["A44.30"] == ["894-td"]
    assert entry(bbf, "5.5", "894-td").assigned_to == "ccb"
    assert a["A43.31"] == ["2-13-arm"] and a["A46.29"] == ["601-td", "2-6-arminf"]
    assert entry(bbf, "5.5", "prov-arm").steps == 2 and a["A55.35"] == ["ccb-trains"]
    assert a["A50.26"] == ["stark-hq"] and entry(bbf, "5.5", "3-39-inf").steps == 4
    assert a["A57.21"] == ["stark-trains", "nick-trains"]


def test_bbf_5_5_c_ccc_nick_and_1_inf(bbf):
    """BBF-5.5-c: CCC A40.32 (Fat-2) + 3/6 [4]; Nick A44.17 (Fat-1, PD) ...; 1 Inf Div A31.32."""
    a = at(bbf, "5.5")
    assert a["A40.32"] == ["ccc-hq", "3-6-arminf"] and a["A41.35"] == ["ccc-trains"]
    n = entry(bbf, "5.5", "nick-hq")
    assert a["A44.17"] == ["nick-hq"] and n.fatigue == 1 and n.prepared_defense
    assert (a["A43.19"], a["A42.17"], a["A41.16"], a["A39.19"]) == (
        ["17-21-l"], ["10-rifle"], ["2-loth"], ["gore"])
    assert a["A31.32"] == ["1inf-hq", "1-eng"]
    assert len(bbf.scenarios["5.5"].markers_in_play["allied"]) == 9


def test_bbf_5_5_d_dak_and_breached_minefields(bbf):
    """BBF-5.5-d: DAK A30.16 (Fat-1) ...; breached minefields A29.16, A29.17, A30.15."""
    a = at(bbf, "5.5", "axis")
    assert a["A30.16"] == ["dak-hq"] and a["A33.20"] == ["33-recon", "i-8-pz"]
    assert entry(bbf, "5.5", "33-recon").steps == 5
    assert a["A29.16"] == ["i-1-jg", "@minefield"] and a["A28.15"] == ["ii-1-jg"]
    mines = [p for p in bbf.scenarios["5.5"].setup if p.marker == "minefield"]
    assert [p.hex for p in mines] == ["A29.16", "A29.17", "A30.15"] and all(p.breached for p in mines)
    assert a["A25.14"] == ["dak-trains"]


def test_bbf_5_5_e_gerhardt_reim_lang(bbf):
    """BBF-5.5-e: Gerhardt A25.12 ...; Reim A28.09 (Fat-2) + 90 Mdr (Support); Lang A30.04."""
    a = at(bbf, "5.5", "axis")
    assert a["A25.12"] == ["gerhardt-hq", "ii-7-pz"] and a["A25.11"] == ["ii-69-pg"]
    assert a["A29.05"] == ["gerhardt-trains", "reim-trains"]
    assert a["A28.09"] == ["reim-hq", "90-mdr", "1-501-tgr"] and entry(bbf, "5.5", "90-mdr").support
    assert a["A30.04"] == ["lang-hq", "10-krad"] and entry(bbf, "5.5", "lang-hq").fresh


def test_err_bbf_3_and_4_errata_placements(bbf):
    """ERR-BBF-3: Scht HQ B49.18, Pioneer B51.22, Trains B40.11 (Ghost). ERR-BBF-4: A33.31."""
    a = at(bbf, "5.5")
    assert a["B49.18"] == ["schutte-hq"] and a["B51.22"] == ["220-pio"]
    assert a["B40.11"] == ["schutte-trains"] and entry(bbf, "5.5", "schutte-trains").ghost
    assert a["A33.31"] == ["2-26-inf", "3-16-inf"]


def test_bbf_5_5_f_initial_axis_vp_hexes(bbf):
    """BBF-5.5-f: Bordj Chambi, Kasserine, Sbeitla; Thelepte; Kef el Ahmar, Hadjeb el Aioun."""
    assert bbf.scenarios["5.5"].victory.axis_controls == [
        "A30.16", "A25.12", "B30.29", "A10.25", "B49.18", "B42.06"]


def test_bbf_5_6_a_header_and_setup(bbf):
    """BBF-5.6-a: Map A only, 21-23 Feb, 3 turns; set-up as 5.5 on Map A; Rommel may affect."""
    assert head(bbf, "5.6") == (["A"], "21 Feb 43", "23 Feb 43", 3, "axis")
    a_only = {h: v for h, v in at(bbf, "5.5").items() if h.startswith("A")}
    assert at(bbf, "5.6") == a_only
    assert bbf.scenarios["5.6"].rommel == ["10 Pz", "DAK"]


def test_bbf_5_6_b_victory(bbf):
    """BBF-5.6-b: Le Kef +3 and only Entry Area B; Tebessa +1; Bordj Chambi, Kasserine, Thelepte."""
    v = bbf.scenarios["5.6"].victory
    assert (v.lekef_bonus, v.tebessa_bonus, v.lekef_exit_areas) == (3, 1, ["B"])
    assert v.axis_controls == ["A30.16", "A25.12", "A10.25"]


@pytest.mark.parametrize("sid", ["5.5", "5.6"])
def test_refused_late_scenarios(bbf, sid):
    with pytest.raises(ScenarioError, match="BBF-G8"):
        bbf.check_playable(sid)


def arrivals(bbf, side, turn):
    return [(a.entry, a.counters) for a in bbf.ooa.arrival if a.side == side and a.turn == turn]


def test_bbf_ooa_al_1(bbf):
    """BBF-OOA-AL-1: 16 Feb: CCB at B, C or D; Welvert TF at A or H."""
    assert arrivals(bbf, "allied", "16 Feb 43") == [
        (["B", "C", "D"], ["ccb-hq", "601-td", "2-13-arm", "2-6-arminf", "ccb-trains"]),
        (["A", "H"], ["welvert-hq", "1-ranger", "1-168-inf", "2-7-alg", "3-7-alg", "welvert-trains"])]


def test_bbf_ooa_al_2(bbf):
    """BBF-OOA-AL-2: 17 Feb: CCA tanks; three minefields (3.1a); 34 Inf Div at C; 1 Gds Bde."""
    got = arrivals(bbf, "allied", "17 Feb 43")
    assert got[0] == (["hq:cca", "A"], ["1-13-arm", "3-13-arm"])
    assert got[1] == (["rule:3.1a"], [])
    mines = [a for a in bbf.ooa.arrival if a.markers]
    assert mines[0].markers == {"minefield": 3}
    assert got[2][1][0] == "34inf-hq" and len(got[2][1]) == 7
    gds = [a for a in bbf.ooa.arrival if "1gds-hq" in a.counters][0]
    assert gds.support == ["72-ra-at", "93-ra-at"] and "blank" in gds.source


def test_bbf_ooa_ax_1(bbf):
    """BBF-OOA-AX-1: 14 Feb: Reim and Gerhardt KGs at F; Schutte and Stenkhoff KGs at G."""
    got = arrivals(bbf, "axis", "14 Feb 43")
    assert [(e, c[0]) for e, c in got] == [(["F"], "reim-hq"), (["F"], "gerhardt-hq"),
                                           (["G"], "schutte-hq"), (["G"], "stenkhoff-hq")]
    assert all(a.fresh for a in bbf.ooa.arrival if a.turn == "14 Feb 43")


def test_bbf_ooa_ax_2(bbf):
    """BBF-OOA-AX-2: 15 Feb at F: Schutte KG's III/104 Inf and 220 Pz Pio."""
    assert arrivals(bbf, "axis", "15 Feb 43") == [(["F"], ["iii-104-inf", "220-pio"])]
    assert {bbf.units[u].formation for u in ("iii-104-inf", "220-pio")} == {"schutte"}


def test_setup_hexes_are_enterable_by_their_units(bbf):
    """BCS-1.4B: no counter is set up where its Move side could not enter (clear weather)."""
    for s in bbf.scenarios.values():
        for p in s.setup:
            if p.counter not in bbf.units:
                continue
            t = bbf.terrain[bbf.game_map.terrain[p.hex]]
            assert getattr(t, bbf.units[p.counter].move.mclass) != "P", (s.id, p.hex, p.counter)
