"""The owner's own choices through the real signed-file exchange, peer and hosted, every archive
verifying: the excess units of an overstacked hex at the end of his Activation (BCS-5.5d-3, the
topic `restack`, asked of the active side itself) and the side of a reinforcement placed at its
HQ (BCS-9.3h, the topic `arrival-side`, asked of the Allies inside the Axis's file that ends the
turn). The games start from a rule-case position (tests/fixtures/bcs_position.py)."""

from __future__ import annotations

import pytest

from fixtures.bcs_position import ENTRY, SIDES, axis_ends_turn, held_state, start_from, verify_all
from fixtures.table import Table
ALLIED = [{"id": "cca-hq", "hex": "B12.19"}, {"id": "ccc-hq", "hex": "B42.06"},
          {"id": "2-1-arm", "hex": "B42.06"}]
#: KG Reimann's ii-86-inf (B5.18) and 1-501-tgr (B7.18) may both move into B6.18 (90-mdr there).
RESTACK = {"units": [{"id": "reim-hq", "hex": "B6.19"}, {"id": "ii-86-inf", "hex": "B5.18"},
                     {"id": "90-mdr", "hex": "B6.18"}, {"id": "1-501-tgr", "hex": "B7.18"},
                     *ALLIED],
           "active": "reim", "ask": {"axis": ["restack"]}}
#: The Axis's last Activation of turn 3; 1-13-arm arrives at CCA's HQ on turn 4 (9.3a).
ARRIVAL = {"turn": 3, "next_side": "axis",
           "units": [{"id": "reim-hq", "hex": "B49.17"}, {"id": "ii-86-inf", "hex": "B49.18"},
                     {"id": "cca-hq", "hex": "B14.09"}, {"id": "cca-trains", "hex": "B16.13"},
                     {"id": "kern", "hex": "B14.10"},
                     {"id": "1-13-arm", "off": True, "arrives": 4}],
           "formations": {"cca": {"status": "done"}}, "active": "reim",
           "ask": {"allied": ["arrival-side"]}}


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_the_owner_names_his_excess_unit_at_the_end_of_his_activation(tmp_path, monkeypatch,
                                                                       mode):
    """BCS-5.5d-3 asked through the exchange: the Axis, with no standing order 'restack', ends
    his Activation with B6.18 overstacked; his own check offers the units that entered it
    (1-501-tgr, ii-86-inf), a unit that did not (90-mdr) is refused naming the rule, and the
    answer written after 'end' in the same file steps ii-86-inf back to B5.18 (its 'done' follows
    in that file)."""
    start_from(monkeypatch, lambda: RESTACK)
    t = Table(tmp_path, game="bcs", scenario="5.2", mode=mode, sides=SIDES, options=ENTRY)
    t.deliver()
    assert t.mover() == "axis"
    moves = ["move ii-86-inf B6.18", "move 1-501-tgr B6.18", "end"]
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join([*moves, "answer restack 90-mdr"]) + "\n", encoding="utf-8")
    r = t.run("check", str(t.dirs["axis"]), str(bad))
    assert r.exit_code != 0 and "[BCS-5.5d-3]" in r.output and "Traceback" not in r.output, \
        r.output
    t.play_one([*moves, "answer restack ii-86-inf", "done"])
    t.deliver()
    s = held_state(t, "axis")
    assert (s.pieces["ii-86-inf"].hex, s.pieces["1-501-tgr"].hex) == ("B5.18", "B6.18")
    assert s.formations["reim"].status == "done" and s.wait is None
    verify_all(t)


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_the_owner_chooses_the_side_his_reinforcement_arrives_on(tmp_path, monkeypatch, mode):
    """BCS-9.3h asked through the exchange: the Axis's 'done' ends turn 3 and 1-13-arm is due at
    CCA's HQ; the Allies, with no standing order 'arrival-side', are asked in their next file
    (the unit named in their own status only); 'answer arrival-side deployed' places it
    Deployed side up and the Pre-Turn Phase goes on."""
    start_from(monkeypatch, lambda: ARRIVAL)
    t, allied = axis_ends_turn(tmp_path, mode)
    assert allied["pending"] == ["allied"], allied
    mine = "your own choices for 1-13-arm (answer arrival-side CHOICE): move, deployed"
    if mode == "peer":
        assert mine in allied["decisions"][0]["what"], allied
    for f in t.dirs["axis"].rglob("*"):
        if f.is_file():
            assert b"for 1-13-arm" not in f.read_bytes(), f
    t.play_one(["answer arrival-side deployed"])
    t.deliver()
    s = held_state(t, "axis")                 # peer: the Axis resolves the Allies' answering file
    assert s.turn == 4 and s.pieces["1-13-arm"].hex == "B14.09"
    assert s.pieces["1-13-arm"].face == "deployed"
    verify_all(t)

