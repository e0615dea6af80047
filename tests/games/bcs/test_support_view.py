"""What each side sees of Support (9.2, 1.5b) and the hosted stand-in rebuilt from it: the HQ's
Support markers and a stack's Dropped markers are public, which units are in Support and their
steps are not (BCS-9.2g, BCS-9.2i-2, BCS-9.2j)."""

from __future__ import annotations

import msgspec

from pbem.core.rulecases import Case
from pbem.games.bcs.engage import check_engage
from pbem.games.bcs.rulecases import HOOKS
from pbem.games.bcs.standin import standin
from pbem.games.bcs.view import build_view


def _state(units, **pos):
    return HOOKS.build(Case(id="view", position={"units": units, **pos}))


UNITS = [{"id": "cca-hq", "hex": "B5.18"}, {"id": "3-1-arm", "hex": "B7.18"},
         {"id": "stenkhoff-hq", "hex": "B11.19"}, {"id": "ii-104-inf", "hex": "B8.19"},
         {"id": "580-recon", "hex": "B12.19"}, {"id": "ii-25-lw-88", "support": True},
         {"id": "ii-5-pz", "support": True}]


def test_the_enemy_sees_the_markers_not_the_units():
    """BCS-9.2g: the Allies see Stenkhoff's Red and Stand Off Support markers, the 88's Range
    (its Engagement Zones) and that ii-104-inf's stack has Support; never which units are in
    Support nor their steps."""
    s = _state(UNITS, active="cca")
    v = build_view(s, "allied")
    assert v.support == {"stenkhoff": ["red", "stand_off"]}
    assert v.stand_off_range == {"stenkhoff": 3}
    st = next(e for e in v.enemy if e.hex == "B8.19")
    assert st.supported and st.dropped == 0
    raw = msgspec.json.encode(v)
    assert b"ii-25-lw-88" not in raw and b"ii-5-pz" not in raw
    own = build_view(s, "axis")
    assert {p.id for p in own.own if p.status == "support"} == {"ii-25-lw-88", "ii-5-pz"}


def test_dropped_markers_are_seen():
    """BCS-9.2i-2: a Dropped Support marker is seen; the stack then shows no Support."""
    units = [dict(u, dropped=True) if u["id"] == "ii-104-inf" else u for u in UNITS]
    s = _state(units, active="cca")
    st = next(e for e in build_view(s, "allied").enemy if e.hex == "B8.19")
    assert st.dropped == 1 and not st.supported


def _roundtrip(s, side):
    v = build_view(s, side)
    stand = standin(v, side)
    assert msgspec.json.encode(build_view(stand, side)) == msgspec.json.encode(v)
    return stand


def test_the_stand_in_rebuilds_the_enemy_support():
    """The stand-in's Support gives the same view and the same verdicts: the supported hex may
    be engaged (BCS-7.1b) there as in the game."""
    s = _state(UNITS, active="cca")
    stand = _roundtrip(s, "allied")
    assert check_engage(stand, "allied", "B8.19", "3-1-arm")[0].id == "3-1-arm"
    units = [dict(u, dropped=True) if u["id"] == "ii-104-inf" else u for u in UNITS]
    _roundtrip(_state(units, active="cca"), "allied")


def test_a_temporary_drop_in_the_stand_in():
    """BCS-9.2j: after a Temporary drop of a whole stack the view names no hidden unit (the unit
    under the top stays unnamed), and the stand-in drops the copies for the rest of the
    Activation."""
    units = [{"id": "cca-hq", "hex": "B5.18"}, {"id": "3-1-arm", "hex": "B7.18"},
             {"id": "schutte-hq", "hex": "B11.19"}, {"id": "iii-104-inf", "hex": "B8.19"},
             {"id": "iv-104-inf", "hex": "B8.19"}, {"id": "39-609-mdr", "support": True}]
    s = _state(units, active="cca")
    s.activation.dropped += ["iii-104-inf", "iv-104-inf"]
    v = build_view(s, "allied")
    st = next(e for e in v.enemy if e.hex == "B8.19")
    assert not st.supported and st.top == "iii-104-inf"
    assert v.activation.dropped == ["iii-104-inf"]
    assert b"iv-104-inf" not in msgspec.json.encode(v)
    _roundtrip(s, "allied")


def test_the_report_shows_each_active_unit_s_mp_and_the_activation_record():
    """BCS-5.1a: a player moving an Activation's units sees in its report the MP each has
    spent of its MA this Activation (halved by a Partial SNAFU); the Activation panel lists
    its Combat OBJs (4.3) and the hexes it attacked. The enemy's report shows none of the MP."""
    from pbem.core.dice import FixedDice
    from pbem.core.game import Context
    from pbem.core.rulecases import Case
    from pbem.games.bcs.engine import ENGINE
    from pbem.games.bcs.report import build_report
    from pbem.games.bcs.rulecases import HOOKS

    def notes(state, side):
        return {u.id: u.note for u in build_report(state, side).units if u.side == side}

    for snafu, ma in (("Pass", "10"), ("Partial", "5")):
        state = HOOKS.build(Case(id="BCS-5.1a", position={
            "units": [{"id": "reim-hq", "hex": "B49.17"}, {"id": "ii-86-inf", "hex": "B5.18"},
                      {"id": "ii-7-pz", "hex": "B5.17"}, {"id": "drake", "hex": "B8.19"},
                      {"id": "cca-hq", "hex": "B14.09"}],
            "active": "reim", "snafu": snafu}))
        before = notes(state, "axis")
        assert before["ii-86-inf"].endswith(f", 0 of {ma} MP spent"), before
        assert "MP spent" not in before["ii-7-pz"]            # another Formation's unit
        order = ENGINE.expand_order(state, "axis", ENGINE.parse_order("move ii-86-inf to B6.18"))
        ENGINE.apply(state, "axis", order, Context(FixedDice([])))
        after = notes(state, "axis")["ii-86-inf"]
        assert " of " + ma + " MP spent" in after and not after.endswith(", 0 of " + ma + " MP spent")
        assert not any("MP spent" in n for n in notes(state, "allied").values())
        state.activation.objs, state.activation.attacked = ["B7.18"], ["B9.18"]
        for side in ("axis", "allied"):                      # the Activation record is public
            panel = {p.title: p.lines for p in build_report(state, side).panels}["Activation"]
            assert panel[0].startswith("axis: Reim") and f"SNAFU {snafu}" in panel[0]
            assert "Combat OBJs placed: B7.18" in panel
            assert "Hexes attacked (Regular Attack): B9.18" in panel
