"""The owner's Replacement choices through the real signed-file exchange, peer and hosted, every
archive verifying: which units take the Repls (BCS-9.4b, the topic `repls`) and where a unit
rebuilt from the Dead Pile goes (BCS-9.4c-2, the topic `rebuilt`), asked of the Allies inside
the Axis's file that ends turn 3. The Allies' table is made to give 1 AV and 1 non-AV Repl on
every die, so the question comes whatever the signed dice say; the other side's files never
hold the roll, the Repls or the candidates."""

from __future__ import annotations

import msgspec
import pytest

from fixtures.bcs_position import axis_ends_turn, held_state, start_from, status, verify_all
from fixtures.table import Table
from pbem.games.bcs.board import bdata

#: 3-1-arm (1 of 3 steps) and 701-td (2 steps) both may take the one AV Repl; kern, destroyed,
#: the non-AV one (rebuilt at or next to CCA's HQ in B14.09).
POSITION = {"turn": 3, "next_side": "axis",
            "units": [{"id": "reim-hq", "hex": "B49.17"}, {"id": "ii-86-inf", "hex": "B49.18"},
                      {"id": "cca-hq", "hex": "B14.09"}, {"id": "cca-trains", "hex": "B16.13"},
                      {"id": "3-1-arm", "hex": "B15.10", "steps": 1},
                      {"id": "701-td", "hex": "B14.10", "steps": 2}],
            "dead_pile": ["kern"], "formations": {"cca": {"status": "done"}},
            "active": "reim", "ask": {"allied": ["repls", "rebuilt"]}}
#: Words only the Allies may read: their roll, their Repls, their candidates.
SECRET = (b"allied Replacement Points roll", b"1 AV and 1 non-AV Repls", b"701-td+kern",
          b"3-1-arm, kern, 701-td", b"takes a Replacement step")


def _one_one(monkeypatch) -> None:
    """Every Allied Replacement Points die gives 1 AV and 1 non-AV Repl."""
    table = bdata().tables["repl_allied"]
    rows = [msgspec.structs.replace(table.rows[0], lo=None, hi=None, result="1/1", av=1,
                                    non_av=1)]
    monkeypatch.setitem(bdata().tables, "repl_allied", msgspec.structs.replace(table, rows=rows))


def _secrets(t: Table, side: str) -> set[bytes]:
    """The Allies' Replacement secrets found in side's archive (files, reports, state)."""
    found = set()
    for f in t.dirs[side].rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            found |= {s for s in SECRET if s in data}
    return found


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_the_owner_chooses_his_replacements_and_places_his_rebuilt_unit(tmp_path, monkeypatch,
                                                                         mode):
    """The Axis's 'done' ends turn 3; the Allies, with no standing order 'repls', are asked in
    their next file (the Repls and candidates in their own status only); peer: a bad answer
    (two AV units for one AV Repl) is refused by their check naming BCS-9.4b; 'answer repls
    701-td+kern' gives the AV Repl to 701-td and rebuilds kern, whose hex they are then asked
    ('answer rebuilt B15.09', public; peer: in the same file, hosted: in the next, his stand-in
    not knowing the order); the turn goes on."""
    _one_one(monkeypatch)
    start_from(monkeypatch, lambda: POSITION)
    t, allied = axis_ends_turn(tmp_path, mode)
    assert allied["pending"] == ["allied"] and "repls" in allied["decisions"][0]["what"], allied
    what = allied["decisions"][0]["what"]      # addressed to him: his own choice, no one's order
    assert "which of your units take your Replacement Points" in what and "his " not in what \
        and "'s order" not in what, what
    if mode == "peer":
        assert "1 AV and 1 non-AV Repls" in allied["decisions"][0]["what"], allied
        bad = tmp_path / "bad.txt"
        bad.write_text("answer repls 3-1-arm+701-td\n", encoding="utf-8")
        r = t.run("check", str(t.dirs["allied"]), str(bad))
        assert r.exit_code != 0 and "[BCS-9.4b]" in r.output and "Traceback" not in r.output, \
            r.output
    if mode == "peer":                      # his own processor asks the hex in the same file
        t.play_one(["answer repls 701-td+kern", "answer rebuilt B15.09"])
    else:                                   # his stand-in does not know the order: a file each
        t.play_one(["answer repls 701-td+kern"])
        t.deliver()
        assert "rebuilt" in status(t, "allied")["decisions"][0]["what"]
        t.play_one(["answer rebuilt B15.09"])
    t.deliver()
    s = held_state(t, "axis")                 # peer: the Axis resolves the Allies' answering file
    assert s.turn == 4 and s.wait is None
    assert (s.pieces["701-td"].steps, s.pieces["3-1-arm"].steps) == (3, 1)
    assert (s.pieces["kern"].status, s.pieces["kern"].hex, s.pieces["kern"].steps) == \
        ("map", "B15.09", 1)
    assert _secrets(t, "axis") == set()
    assert b"allied Replacement Points roll" in _secrets(t, "allied")     # the check sees them
    verify_all(t)
