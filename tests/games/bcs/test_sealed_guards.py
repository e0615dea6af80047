"""Guarded orders in a sealed Baptism By Fire game (docs/bcs.md, "Guards on SNAFU results";
docs/sealed.md 5g). A condition both processors read alike (the SNAFU result, the Second
Activation roll, which hexes hold units) may be sent; `UNIT alive`, which names a unit that
may stand hidden under another, may not, and check says so as submit does. A player found
`if snafu partial+ then obj B19.07` after an Activation accepted by check and ending submit
with an internal error (exit 4): the opening of each order's facts applied the guard itself."""

from __future__ import annotations

import pytest

from fixtures.table import Table, snapshot

SIDES = ("allied", "axis")
ENTRY = ("entry_blocking=attack_from_off_map",)


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path, game="bcs", scenario="5.2", mode="sealed", sides=SIDES, options=ENTRY)
    t.deliver()
    assert t.mover() == "axis"
    return t


def test_a_guard_on_the_snafu_after_the_activation_is_sent_and_both_sides_agree(table):
    """PBEM-GUARD: check and submit accept it, the Allied processor receives the file, the
    guard chose the same branch on both processors (the OBJ is placed on a Pass or Partial
    SNAFU, not on a Fail), and both archives verify."""
    t = table
    orders = t.tmp / "guarded.txt"
    orders.write_text("activate gerhardt at B20.00\nif snafu partial+ then obj B19.07\n")
    assert t.run("check", str(t.dirs["axis"]), str(orders)).exit_code == 0
    out = t.mail("turn-axis")
    r = t.run("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"), "--out", out)
    assert r.exit_code == 0, r.output
    t.inbox.append((out, "allied"))
    t.deliver()
    logs = {s: t.ok("log", str(t.dirs[s])).output for s in SIDES}
    for s in SIDES:
        snafu = next(ln for ln in logs[s].splitlines() if "SNAFU:" in ln and "=" in ln)
        placed = "places a Combat OBJ in B19.07" in logs[s]
        assert placed == (not snafu.rstrip().endswith("Fail")), (s, snafu)
    for s in SIDES:
        assert "OK" in t.ok("verify", str(t.dirs[s]), "--key", t.key(s)).output


def test_a_guard_on_a_hidden_fact_is_refused_by_check_and_by_submit_alike(table):
    """PBEM-GUARD: `if UNIT alive` reads a fact the other processor may not hold: check and
    submit refuse it in one line naming the order, exit 1, the archive unchanged."""
    t = table
    orders = t.tmp / "alive.txt"
    orders.write_text("if ii-69-pg alive then activate gerhardt at B20.00\n")
    before = snapshot(t.dirs["axis"])
    want = "the condition 'ii-69-pg alive' reads a hidden fact"
    r = t.run("check", str(t.dirs["axis"]), str(orders))
    assert r.exit_code == 1 and want in r.output, r.output
    r = t.run("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"),
              "--out", str(t.tmp / "never.pbem"))
    assert r.exit_code == 1 and want in r.output and len(r.output.splitlines()) == 1, r.output
    assert snapshot(t.dirs["axis"]) == before and not (t.tmp / "never.pbem").exists()


def test_a_guard_no_honest_processor_sends_is_refused_on_receipt_as_cheating(table,
                                                                             monkeypatch):
    """PBEM-SEALED: a changed processor sends `if ii-69-pg alive then ...` (a condition the
    two processors may read differently); the receiver refuses the file as proof (exit 3),
    naming it, before anything is stored or owed."""
    from pbem.protocol import sealing

    t = table
    orders = t.tmp / "alive.txt"
    orders.write_text("if ii-69-pg alive then activate gerhardt at B20.00\n")
    out = t.mail("turn-axis")
    with monkeypatch.context() as m:                  # the cheater's processor
        m.setattr(sealing, "guarded_problem", lambda *a: "")
        t.ok("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"), "--out", out)
    before = snapshot(t.dirs["allied"])
    r = t.run("receive", str(t.dirs["allied"]), out, "--key", t.key("allied"))
    assert r.exit_code == 3, r.output
    assert "turn-axis.pbem" in r.output and "reads a hidden fact" in r.output, r.output
    assert snapshot(t.dirs["allied"]) == before
