"""The Assignment Phase through the real signed-file exchange (BCS-2.1-1b): the side that made the
last Activation decides first, in the file that ends the turn; the other side, asked, decides in
its next file; a side that keeps sends no file for it. Arty Asset Points never reach the other
side's views or reports (BCS-8.0d, BbF 1.5b), nor the name of a unit put into Support (BCS-9.2e).
Peer and hosted mode; every archive verifies.

The games start from a position (the rule-case builder): turn 2 (15 Feb), CCC's Activities under
way and KG Reimann Done, so that the Allies' 'end' and 'done' end the turn."""

from __future__ import annotations


import pytest
from click.testing import CliRunner

from fixtures.bcs_position import start_from, status, turn_files
from fixtures.table import Table
from pbem.cli import cli
from pbem.protocol.session import load

SIDES = ("allied", "axis")
ENTRY = ("entry_blocking=attack_from_off_map",)
POSITION = {"turn": 2,
            "units": [{"id": "ccc-hq", "hex": "B42.06"}, {"id": "ccc-trains", "hex": "B38.13"},
                      {"id": "2-1-arm", "hex": "B42.06"}, {"id": "reim-hq", "hex": "B19.02"},
                      {"id": "reim-trains", "hex": "B20.01"}, {"id": "90-mdr", "hex": "B19.03"},
                      {"id": "1-501-tgr", "hex": "B19.03"}],
            "formations": {"reim": {"status": "done"}},
            "arty_pool": {"allied": 3},
            "active": "ccc"}


@pytest.fixture
def position(monkeypatch):
    """5.2's set-up replaced by the position; fn: the sides whose store says 'assignment ask'."""
    asking: list[str] = []
    start_from(monkeypatch, lambda: {**POSITION, "standing": {s: {"assignment": "ask"}
                                                              for s in asking}})
    return asking


def _events(t: Table, side: str) -> str:
    s = load(t.dirs["host" if t.mode == "hosted" else side])
    return "\n".join(e.text for log in s.log for e in log.events
                     if e.visible_to in ("all", side))


def _verify(t: Table) -> None:
    for party in (*SIDES, *(("host",) if t.mode == "hosted" else ())):
        r = CliRunner().invoke(cli, ["verify", str(t.dirs[party])])
        assert r.exit_code == 0 and "OK: the archive verifies." in r.output, r.output


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_both_sides_assign(tmp_path, position, mode):
    """Both sides ask: the Allies' file ends the turn and carries their assignment (the Divarty's
    points, private) and 'assignment done'; the Axis is asked next and answers in its next file
    (90-mdr into Support, the Allies told only that a unit of KG Reimann went); then the First
    Player roll."""
    position.extend(["allied", "axis"])
    t = Table(tmp_path, game="bcs", scenario="5.2", mode=mode, sides=SIDES, options=ENTRY)
    t.deliver()
    assert t.mover() == "allied"
    t.play_one(["end", "done", "assign arty 3 to ccc", "assignment done"])
    t.deliver()
    axis = status(t, "axis")
    assert axis["pending"] == ["axis"], axis
    assert "Assignment Phase" in axis["decisions"][0]["what"]
    t.play_one(["support 90-mdr", "assignment done"])
    t.deliver()
    # the First Player roll is made: its winner (the dice pick him) is asked to choose
    whats = [d["what"] for s in SIDES for d in status(t, s)["decisions"]]
    assert any("won the First Player roll" in w for w in whats), whats
    # what the Allies are told: in their reports (hosted mode renders them only when a view is
    # owed, not before their next decision if the Axis won the roll) or in the log of their
    # archive (peer mode logs a received file once its results are sent, so not yet if the
    # Allies won the roll and have not written their next file)
    reports = [x for f in t.dirs["allied"].rglob("*.txt")
               for x in f.read_text(encoding="utf-8").splitlines()]
    told = [x for x in _events(t, "allied").splitlines() + reports if "goes into Support" in x]
    assert told, "the Allies are told a unit went into Support"
    for line in told + [x for x in reports if "Support" in x]:
        assert "90-mdr" not in line, line
    assert "3 Arty Asset Points assigned to CCC Arm Bde (8.0d)" in _events(t, "allied")
    # the Axis's reports (hosted: everything it holds; peer: the Allies' order lines travel
    # in their files, the residual risk of peer mode, docs/protocol.md)
    where = t.dirs["axis"] if mode == "hosted" else t.dirs["axis"] / "reports"
    for f in where.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            assert b"3 Arty Asset" not in data and b"assign arty" not in data, f
            assert b'"arty_assigned":{"ccc"' not in data, f
    _verify(t)


@pytest.mark.parametrize("mode", ["peer"])
def test_keeping_costs_no_file(tmp_path, position, mode):
    """Neither side asks (the default 'keep'): the file that ends the turn goes straight to the
    First Player roll; the Assignment Phase adds no file."""
    t = Table(tmp_path, game="bcs", scenario="5.2", mode=mode, sides=SIDES, options=ENTRY)
    t.deliver()
    before = turn_files(t)
    t.play_one(["end", "done"])
    t.deliver()
    assert len(turn_files(t)) - len(before) == 1
    # the Axis received the file that ended the turn: he knows the roll, whoever won it (the
    # Allies learn it from his next file, none if he won and must now choose)
    st = status(t, "axis")
    assert "First Player" in st["decisions"][0]["what"], st
    assert "Assignment Phase" not in _events(t, "axis")
    _verify(t)
