"""BbF counters as data: both faces, ratings, classes (BCS 1.2, BbF 1.9, errata)."""

from __future__ import annotations

from pbem.games.bcs.rules_data import faces, is_av, is_dual, is_infantry_for_terrain, is_unprepared


def test_bcs_1_2a_3_every_unit_has_steps_action_rating_and_av_range(bbf):
    """BCS-1.2a-3: Steps >= 1, Action Rating 0-5, an AV with a Range (1 when none printed)."""
    for u in bbf.units.values():
        assert u.steps >= 1 and 0 <= u.ar <= 5, u.id
        for _, f in faces(u):
            if is_av(f):
                assert f.range >= 1 and f.av >= 1, u.id
            else:
                assert f.range == 1, u.id


def test_bcs_1_2b_1_deployed_side_has_the_lower_ma(bbf):
    """BCS-1.2b-1: two-sided counters: Deployed MA < Move MA; single-sided units are Move-side."""
    single = [u for u in bbf.units.values() if u.deployed is None]
    assert single, "some units are single-sided (Drake, Waters, 3/168, Rangers, FJ)"
    assert {"drake", "waters", "3-168-inf"} <= {u.id for u in single}
    for u in bbf.units.values():
        if u.deployed is not None:
            assert u.deployed.ma < u.move.ma, u.id


def test_bcs_1_2c_1_no_av_means_infantry_for_terrain(bbf):
    """BCS-1.2c-1: a unit without a printed AV is Infantry for the terrain DRM."""
    inf = bbf.units["1-26-inf"]
    assert is_infantry_for_terrain(inf.move)
    assert not is_infantry_for_terrain(bbf.units["i-8-pz"].move)


def test_bcs_1_2c_2_recon_units(bbf):
    """BCS-1.2c-2 / BBF-1.4: recon units carry the recon flag (cavalry slash) and only they."""
    recon = {u.id for u in bbf.units.values() if u.recon}
    assert recon == {"81-cav", "33-recon", "580-recon", "10-krad"}
    assert all(bbf.units[r].kind == "recon" for r in recon)


def test_bcs_1_2c_3_artillery_only_as_points(bbf):
    """BCS-1.2c-3: no artillery counters; HQs carry Arty Points; the 9 ID Divarty is a marker."""
    assert not [u for u in bbf.units.values() if u.kind in ("artillery", "arty")]
    assert all(h.arty_points >= 0 for h in bbf.hqs.values())
    assert sum(h.arty_points for h in bbf.hqs.values()) > 0
    assert "divarty_9id" in bbf.markers


def test_bcs_1_2c_4_hard_units(bbf):
    """BCS-1.2c-4: tank units are Hard (yellow symbol background); infantry are not."""
    assert bbf.units["i-8-pz"].hard and bbf.units["1-501-tgr"].hard
    assert not bbf.units["1-26-inf"].hard
    assert all(u.hard for u in bbf.units.values() if u.kind == "armor")


def test_bcs_1_2c_6_av_and_dual_units(bbf):
    """BCS-1.2c-6: AV unit = an Armor Value; Dual = Assault Arrow and AV."""
    assert is_dual(bbf.units["81-cav"].move)          # recon: arrow and Light AV
    assert not is_dual(bbf.units["i-8-pz"].move)      # tanks: AV only
    assert is_av(bbf.units["i-8-pz"].move) and not is_av(bbf.units["ii-86-inf"].move)
    assert is_unprepared(bbf.units["aosta-mg"].move)  # 1.2d: neither


def test_bcs_1_2c_7_and_8_av_colour_classes(bbf):
    """BCS-1.2c-7 / BCS-1.2c-8: offensive (red), Limited, Light and Stand Off classes are used."""
    classes = {f.av_class for u in bbf.units.values() for _, f in faces(u) if is_av(f)}
    assert classes == {"offensive", "limited", "light", "stand_off"}
    assert bbf.units["xvi-arm"].move.av_class == "limited"
    assert bbf.units["ii-25-lw-88"].move.av_class == "stand_off"
    assert bbf.units["ii-25-lw-88"].support_only


def test_bcs_1_2c_9_breakthrough(bbf):
    """BCS-1.2c-9: the Tiger company is a Breakthrough AV unit; the chart has its Shock DRM."""
    assert bbf.units["1-501-tgr"].move.breakthrough
    assert any(m.name == "Breakthrough AV Unit" and m.group.startswith("Shock")
               for m in bbf.modifiers)


def test_bbf_1_9_nationalities_and_sides(bbf):
    """BBF-1.9: German and Italian units are Axis; US, British and French are Allied."""
    for u in bbf.units.values():
        want = "axis" if u.nation in ("German", "Italian") else "allied"
        assert u.side == want and u.nation in ("German", "Italian", "US", "British", "French")
    assert bbf.units["2-7-alg"].nation == "French" and bbf.units["xvi-arm"].nation == "Italian"


def test_err_bbf_5_guards_at_battalions_range_1(bbf):
    """ERR-BBF-5: 72 RA and 93 RA AT battalions have Range 1, not the printed 2."""
    for uid in ("72-ra-at", "93-ra-at"):
        u = bbf.units[uid]
        assert u.move.range == 1 and u.deployed.range == 1
        assert "ERR-BBF-5" in u.source


def test_every_formation_has_hq_trains_and_activation_marker(bbf):
    """BCS-4.1 / 4.6: each Formation has its HQ, Combat Trains and activation marker."""
    for f in bbf.formations.values():
        assert bbf.hqs[f.hq].formation == f.id and bbf.trains[f.trains].formation == f.id
        assert f.activation_marker


def test_bbf_g24_aliases_resolve_inconsistent_names(bbf):
    """BBF-G24: the alias lists cover the seed's inconsistent spellings."""
    names = {a for f in bbf.formations.values() for a in f.aliases}
    assert {"Stenkhoff", "Stnkf", "Schutte", "Gerhardt", "Centauro"} <= names
    assert "I/Jg" in bbf.units["i-1-jg"].aliases


def test_every_value_is_marked_printed_or_reconstructed(bbf):
    for u in bbf.units.values():
        assert u.source.startswith("reconstructed: BBF-G1")


def test_bcs_1_1a_battalions_and_some_companies(bbf):
    """BCS-1.1a: units are mostly battalions, some companies (the companies have one step)."""
    companies = {u.id for u in bbf.units.values() if u.name.endswith(" Co")}
    assert companies == {"g-1-arm", "1-501-tgr"}
    assert all(bbf.units[c].steps == 1 for c in companies)
    assert len(companies) < len(bbf.units) / 10
