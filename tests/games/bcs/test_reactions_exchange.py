"""Reactions of the inactive player through the real signed-file exchange (issue 19, items 6):
a defender without a standing order is asked in his next file (the question and his own units
reach only him), answers there, and the attacker's orders held behind the question resume; with
a standing order the same Activation costs the attacker one file and the defender none. Peer
and hosted mode; every archive verifies.

The games start from a position (the rule-case builder) instead of 5.2's set-up: the Axis's
Formation KG Gerhardt is in its Activities with a Pass SNAFU, ii-7-pz next to Sidi bou Zid's
neighbour B8.19 where 701-td and 3-1-arm (both AV units) stand, so that an Engagement is legal at
once whatever the dice (BCS-7.1e: the targeted player picks the unit engaged)."""

from __future__ import annotations


import pytest
from click.testing import CliRunner

from fixtures.bcs_position import start_from, status, turn_files
from fixtures.table import Table
from pbem.cli import cli
from pbem.protocol.session import load

SIDES = ("allied", "axis")
ENTRY = ("entry_blocking=attack_from_off_map",)
POSITION = {"units": [{"id": "gerhardt-hq", "hex": "B5.18"}, {"id": "ii-7-pz", "hex": "B7.18"},
                      {"id": "701-td", "hex": "B8.19"}, {"id": "3-1-arm", "hex": "B8.19"},
                      {"id": "cca-hq", "hex": "B12.19"}, {"id": "ccc-hq", "hex": "B42.06"},
                      {"id": "2-1-arm", "hex": "B42.06"}],
            "active": "gerhardt"}


@pytest.fixture
def position(monkeypatch):
    """5.2's set-up replaced by the position (both processors, the referee and verify run in
    this process); fn(ask) sets which allied topics have no standing order."""
    asked: list[str] = []
    start_from(monkeypatch, lambda: {**POSITION, "ask": {"allied": list(asked)}})
    return asked


def _events(t: Table, side: str) -> str:
    s = load(t.dirs["host" if t.mode == "hosted" else side])
    return "\n".join(e.text for log in s.log for e in log.events)


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_a_defender_without_standing_orders_is_asked_in_his_next_file(tmp_path, position, mode):
    """BCS-7.1e asked through the exchange: the Axis's file engages B8.19 and ends the
    Activities; the Allies have no standing order 'engaged', so the game waits for them (their
    units in the hex in their own status only), the Axis's 'end' is held; the Allies answer
    'answer engaged top' in their next file: 701-td is engaged with that file's dice and the
    held 'end' resumes; every archive verifies."""
    position.append("engaged")
    t = Table(tmp_path, game="bcs", scenario="5.2", mode=mode, sides=SIDES, options=ENTRY)
    t.deliver()
    assert t.mover() == "axis"
    t.play_one(["engage B8.19 with ii-7-pz", "end"])
    t.deliver()
    allied = status(t, "allied")
    assert allied["pending"] == ["allied"], allied
    mine = allied["decisions"][0]["what"]
    assert "the AV unit engaged (7.1e) in B8.19" in mine and "answer engaged strongest|top" in mine
    detail = b"3-1-arm (move) AR 3 AV 3, 3 steps; 701-td (move) AR 2 AV 2, 3 steps"
    if mode == "peer":                    # his status; hosted: his report of the view
        assert detail.decode() in mine, mine
    else:
        assert any(detail in f.read_bytes() for f in t.dirs["allied"].rglob("*.txt"))
    watcher = "host" if mode == "hosted" else "axis"
    theirs = status(t, watcher)
    assert theirs["pending"] == ["allied"], theirs
    if mode == "peer":
        what = theirs["decisions"][0]["what"]
        assert "the AV unit engaged (7.1e) in B8.19" in what
        assert "steps" not in what and "3-1-arm" not in what      # the private detail
    for f in t.dirs["axis"].rglob("*"):       # reports, views, caches: no detail of his units
        if f.is_file():
            assert detail not in f.read_bytes() and b"AV 3, 3 steps" not in f.read_bytes(), f
    t.play_one(["answer engaged top"])
    t.deliver()
    for who in ("axis", "host" if mode == "hosted" else "allied"):
        assert status(t, who)["pending"] == ["axis"]
    st = status(t, "axis")                 # (the Allies resolve their file with its reveal)
    assert "Second Activation" in st["decisions"][0]["what"], st      # the held 'end' resumed
    t.play_one(["done"])          # the Axis's next file (it reveals its dice of file 2)
    t.deliver()
    text = _events(t, "allied")
    assert "ii-7-pz engages 701-td in B8.19" in text, text
    for party in (*SIDES, *(("host",) if mode == "hosted" else ())):
        r = CliRunner().invoke(cli, ["verify", str(t.dirs[party])])
        assert r.exit_code == 0 and "OK: the archive verifies." in r.output, r.output


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_an_assault_answered_by_standing_orders_costs_one_file(tmp_path, position, mode):
    """BCS-7.1e answered by standing orders: the Allies' store holds 'engaged strongest', so the
    Axis's one file carries the Engagement and the end of its Activities and the game goes on
    to the Axis's next decision with no file of the Allies (asked, the same Activation takes
    two: the Axis's and the Allies' answer)."""
    t = Table(tmp_path, game="bcs", scenario="5.2", mode=mode, sides=SIDES, options=ENTRY)
    t.deliver()
    before = turn_files(t)
    t.play_one(["engage B8.19 with ii-7-pz", "end"])
    t.deliver()
    assert len(turn_files(t)) - len(before) == 1
    for who in ("axis", "host" if mode == "hosted" else "allied"):
        assert status(t, who)["pending"] == ["axis"]
    st = status(t, "axis")
    assert "Second Activation" in st["decisions"][0]["what"], st
    t.play_one(["done"])
    t.deliver()
    assert "ii-7-pz engages 3-1-arm in B8.19" in _events(t, "allied")


#: KG Reimann's ii-86-inf next to cca-hq (B15.11), alone in its hex: moving in jumps it (9.1f).
HQ_POSITION = {"units": [{"id": "reim-hq", "hex": "B13.13"}, {"id": "ii-86-inf", "hex": "B14.11"},
                         {"id": "cca-hq", "hex": "B15.11"}, {"id": "cca-trains", "hex": "B16.13"},
                         {"id": "drake", "hex": "B14.09"}, {"id": "ccc-hq", "hex": "B42.06"},
                         {"id": "2-1-arm", "hex": "B42.06"}],
               "active": "reim", "ask": {"allied": ["hq-retreat"]}}


@pytest.fixture
def hq_position(monkeypatch):
    """5.2's set-up replaced by HQ_POSITION (the Allies have no standing order 'hq-retreat')."""
    start_from(monkeypatch, lambda: HQ_POSITION)


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_the_owner_places_his_jumped_hq_in_the_hex_he_names(tmp_path, hq_position, mode):
    """BCS-9.1f-2 asked through the exchange: the Axis's move jumps cca-hq; the Allies, asked,
    read the hexes meeting 9.1f in their own status or report only (never the Axis's files); a
    hex that does not meet 9.1f is refused by their own check in one line naming the rule
    (hosted: on their stand-in, which has the choices from their view); 'answer hq-retreat
    B13.09' places the HQ there and the Axis's held 'end' resumes; every archive verifies."""
    t = Table(tmp_path, game="bcs", scenario="5.2", mode=mode, sides=SIDES, options=ENTRY)
    t.deliver()
    assert t.mover() == "axis"
    # hosted, the Axis's stand-in answers the jump by the engine's choices (the Allies' standing
    # orders are hidden from him), so his check wants his Second Activation decided: 'pass'
    # sends the file as it is (peer, his check sees the question and holds the 'end')
    t.play_one(["move ii-86-inf B15.11", "end", *(["pass"] if mode == "hosted" else [])])
    t.deliver()
    allied = status(t, "allied")
    assert allied["pending"] == ["allied"], allied
    choices = b"your own choices (answer hq-retreat CHOICE): B12.10, B13.09, B14.09"
    if mode == "peer":
        assert choices.decode() in allied["decisions"][0]["what"], allied
    else:
        assert any(b"B13.09" in f.read_bytes() for f in t.dirs["allied"].rglob("*.txt"))
    for f in t.dirs["axis"].rglob("*"):
        if f.is_file():
            assert choices not in f.read_bytes(), f
    bad = tmp_path / "bad.txt"
    bad.write_text("answer hq-retreat B16.12\n", encoding="utf-8")
    r = t.run("check", str(t.dirs["allied"]), str(bad))
    assert r.exit_code != 0 and "[BCS-9.1f-2]" in r.output and "Traceback" not in r.output, \
        r.output
    t.play_one(["answer hq-retreat B13.09"])
    t.deliver()
    st = status(t, "axis")
    assert st["pending"] == ["axis"] and "Second Activation" in st["decisions"][0]["what"], st
    t.play_one(["done"])
    t.deliver()
    assert "HQ retreats from B15.11 to B13.09" in _events(t, "allied")
    for party in (*SIDES, *(("host",) if mode == "hosted" else ())):
        r = CliRunner().invoke(cli, ["verify", str(t.dirs[party])])
        assert r.exit_code == 0 and "OK: the archive verifies." in r.output, r.output
