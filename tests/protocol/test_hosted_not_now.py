"""A hosted player whose turn has not come: `check` said his orders were legal ("they wait for
the other side's decision") while `submit` refused them with "has no decision to make now", which
did not say why (a newcomer trial: the referee's newer view had not been received yet). Both now
give the same one line: the latest view received, what it waits for, and how to take the next."""

from __future__ import annotations

from fixtures.table import Table, snapshot


def test_check_and_submit_agree_when_the_players_turn_has_not_come(tmp_path):
    t = Table(tmp_path, mode="hosted")
    t.deliver()
    mover = t.mover()
    idle = t.other(mover)
    orders = tmp_path / "orders.txt"
    t.ok("bot", str(t.dirs["host"]), "--side", mover, "--out", str(orders), "--seed", "1")
    d = t.dirs[idle]
    before = snapshot(d)
    want = (f"{d}: {idle} has no decision to make now: the latest view received, of file 0, "
            f"waits for {mover} (when the referee's next view arrives: pbem receive {d} VIEW)")
    c = t.run("check", str(d), str(orders))
    assert c.exit_code == 1, c.output
    assert want in c.output.splitlines(), c.output
    s = t.run("submit", str(d), str(orders), "--key", t.key(idle), "--out",
              str(tmp_path / "out.pbem"))
    assert s.exit_code == 1, s.output
    assert s.output == f"Error: {want}\n"
    assert snapshot(d) == before and not (tmp_path / "out.pbem").exists()


def test_a_second_file_before_the_referees_view_is_refused_by_check_too(tmp_path):
    t = Table(tmp_path, mode="hosted")
    t.deliver()
    side = t.mover()
    t.play_one()                        # signed and sent; the referee has not answered yet
    orders = tmp_path / "again.txt"
    orders.write_text("end\n")
    d = t.dirs[side]
    c = t.run("check", str(d), str(orders))
    assert c.exit_code == 1, c.output
    assert f"{d}: file 1 was already sent; wait for the referee" in c.output.splitlines()
