"""`pbem check DIR ORDERS --side SIDE`: a side the game does not have was taken as is and the
orders "checked" (exit 0, "1 order is legal as far as they can be checked now", waiting for
a decision of the real side); in a sealed game the other side's orders were checked against
the stand-ins this archive holds for its hidden units, a verdict that is a guess. Both are
refused in one line now, the archive untouched."""

from __future__ import annotations

from fixtures.table import Table, snapshot


def test_an_unknown_side_is_refused(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    d = t.dirs["red"]
    orders = tmp_path / "o.txt"
    orders.write_text("end\n")
    before = snapshot(d)
    r = t.run("check", str(d), str(orders), "--side", "green")
    assert r.exit_code == 1, r.output
    assert r.output == f"Error: {d}: unknown side 'green' (the sides of this game: red, blue)\n"
    assert snapshot(d) == before
    r = t.run("check", str(d), str(orders), "--side", "blue")       # peer: a real side
    assert "unknown side" not in r.output, r.output


def test_the_other_side_of_a_sealed_game_is_not_checked_on_stand_ins(tmp_path):
    t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", mode="sealed",
              sides=("allied", "axis"))
    t.deliver()
    d = t.dirs["allied"]
    orders = tmp_path / "o.txt"
    orders.write_text("place superga 2004\nend\n")
    before = snapshot(d)
    r = t.run("check", str(d), str(orders), "--side", "axis")
    assert r.exit_code == 1, r.output
    assert r.output == (f"Error: {d}: a sealed game's archive holds only allied's own units: "
                        "axis's orders are checked by axis's own processor\n")
    assert snapshot(d) == before
    r = t.run("check", str(t.dirs["axis"]), str(orders), "--side", "axis")   # one's own side
    assert "sealed game's archive" not in r.output, r.output
