"""The referee's `receive` names each view file it wrote and the player it goes to (before, it
said "View files for red, blue written to OUT: send each player their own", and a referee who
gave `--out r2.pbem` found a folder of that name holding files it had to match to players)."""

from __future__ import annotations

from fixtures.table import Table


def test_the_referee_is_told_which_view_goes_to_which_player(tmp_path):
    t = Table(tmp_path, mode="hosted")
    t.deliver()
    turn = t.play_one()
    out = tmp_path / "views"
    r = t.ok("receive", str(t.dirs["host"]), turn, "--key", t.key("host"), "--out", str(out))
    written = sorted(out.glob("view-*.pbem"))
    assert written, r.output
    line = next(ln for ln in r.output.splitlines() if ln.startswith("View files written: "))
    for v in written:
        side = v.name.split("-")[1]
        assert f"send {v} to {side}" in line, line
    assert "send each player" not in r.output
