"""A hosted game's view given to the referee's own archive, or to a peer or sealed player's
archive (a player in both kinds of game), named the archive's own first file: "Error:
0001-axis.pbem: not a valid file of allied in this game". It names the view and the problem
now, exit 1, the archive untouched."""

from __future__ import annotations

from fixtures.table import Table, snapshot


def test_a_view_in_the_wrong_archive_names_the_view(tmp_path):
    hosted = Table(tmp_path / "h", mode="hosted")
    hosted.deliver()
    hosted.play_one()            # the referee's archive holds a player's file 0001
    hosted.deliver()
    views = sorted((tmp_path / "h" / "mail").glob("*")) + sorted(
        (tmp_path / "h" / "referee").rglob("view-red-*.pbem"))
    view = next(p for p in views if p.name.startswith("view-red-"))
    peer = Table(tmp_path / "p")
    peer.deliver()
    peer.play_one()              # the peer archive holds its file 0001
    peer.deliver()
    cases = [(hosted.dirs["host"], hosted.key("host"),
              f"Error: {view.name}: a view goes from the referee to a player; the referee's own "
              "archive does not receive it\n"),
             (peer.dirs["red"], peer.key("red"),
              f"Error: {view.name}: belongs to another game (")]
    for d, key, want in cases:
        before = snapshot(d)
        r = hosted.run("receive", str(d), str(view), "--key", key)
        assert r.exit_code == 1, r.output
        assert r.output.startswith(want), r.output
        assert "0001-" not in r.output and r.output.count("\n") == 1, r.output
        assert snapshot(d) == before
