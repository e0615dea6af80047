"""The replay page as built (the browser tests click through it): self-contained, escaped,
one side's view while a game is in progress, both sides in full after the end."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from fixtures.table import Table
from pbem.cli import cli
from pbem.records.replay import build_page, record_text_of
from pbem.records.source import open_game


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def page_data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert m
    return json.loads(m.group(1))


def assert_self_contained(html: str) -> None:
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    for bad in ("http://", "https://", "<link", "src=", "@import", "url(http"):
        assert bad not in html.replace("http://www.w3.org/2000/svg", ""), bad


def test_finished_game_page_shows_every_file_in_every_view(dash_peer, tmp_path):
    out = tmp_path / "replay.html"
    r = run("replay", str(dash_peer / "red"), "--out", str(out))
    assert r.exit_code == 0, r.output
    html = out.read_text(encoding="utf-8")
    assert_self_contained(html)
    data = page_data(html)
    v = open_game(dash_peer / "red")
    assert [x["id"] for x in data["views"]] == ["full", "red", "blue"]
    for view, frames in data["frames"].items():
        assert [f["seq"] for f in frames] == list(range(v.files + 1)), view
        for f in frames:
            assert all(0 <= k < len(data["layers"]) for k in f["layer"][0] + f["layer"][1])
    assert data["frames"]["full"][-1]["outcome"][0] in ("red", "blue")
    # the record the page verifies is embedded
    rec = re.search(r'<script type="application/json" id="record-data">(.*?)</script>', html, re.S)
    assert json.loads(rec.group(1)) == record_text_of(v)
    assert html.count('class="card rp-stats"') == 3 and "dice-chart" in html


def test_hostile_text_is_escaped(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    t.play_one(["pick alphawolf"])
    t.deliver()
    orders = tmp_path / "o.txt"
    orders.write_text("pick deltafox\n")
    out = t.mail("turn-blue")
    t.ok("submit", str(t.dirs["blue"]), str(orders), "--key", t.key("blue"), "--out", out,
         "--message", "</script><script>alert(1)</script><img src=x onerror=alert(2)>")
    t.inbox.append((out, "red"))
    t.deliver()
    html = build_page(open_game(t.dirs["blue"]), record_text_of(open_game(t.dirs["blue"])))
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert html.count("</script>") == 4       # the two data blocks and the two scripts
    data = page_data(html)
    assert any("alert(1)" in f["message"] for f in data["frames"]["blue"])


def test_a_game_in_progress_shows_only_the_archive_s_side(tmp_path):
    t = Table(tmp_path)
    for _ in range(4):
        t.deliver()
        t.play_one()
    t.deliver()
    out = tmp_path / "r.html"
    r = run("replay", str(t.dirs["blue"]), "--out", str(out))
    assert r.exit_code == 0, r.output
    data = page_data(out.read_text())
    assert list(data["frames"]) == ["blue"]
    red_word = open_game(t.dirs["red"]).session.state.private["red"].codeword
    assert f"codeword {red_word}" not in out.read_text()
    r = run("replay", str(t.dirs["blue"]), "--out", str(out), "--view", "full")
    assert r.exit_code == 1 and "Error:" in r.output and "not over" in r.output


def test_a_referee_record_in_progress_asks_for_one_side(tmp_path):
    t = Table(tmp_path, mode="hosted")
    for _ in range(3):
        t.deliver()
        t.play_one()
    t.deliver()
    out = tmp_path / "r.html"
    r = run("replay", str(t.dirs["host"]), "--out", str(out))
    assert r.exit_code == 1 and "choose it with --view" in r.output and not out.exists()
    r = run("replay", str(t.dirs["host"]), "--out", str(out), "--view", "red")
    assert r.exit_code == 0, r.output
    assert list(page_data(out.read_text())["frames"]) == ["red"]


def test_a_referee_s_page_of_a_game_in_progress_embeds_no_record(tmp_path):
    """The attack: a referee (or anyone given his page) reads the page's source. Its record
    would carry every file of both players, hidden orders included: a page of one side's view
    of a game in progress embeds none of it, whether made from the folder or from a record
    exported from it, and says so; after the end the record is embedded again."""
    t = Table(tmp_path, mode="hosted")
    for _ in range(3):
        t.deliver()
        t.play_one()
    t.deliver()
    host = open_game(t.dirs["host"]).session.state
    words = [host.private[s].codeword for s in ("red", "blue")]
    assert all(words)
    rec = tmp_path / "g.pbemrec"
    assert run("export", str(t.dirs["host"]), "--out", str(rec)).exit_code == 0
    assert all(_holds(rec.read_text(), f"pick {w}") for w in words)   # the referee's own
    for source in (t.dirs["host"], rec):
        out = tmp_path / "r.html"
        r = run("replay", str(source), "--out", str(out), "--view", "red")
        assert r.exit_code == 0, r.output
        html = out.read_text()
        m = re.search(r'<script type="application/json" id="record-data">(.*?)</script>', html,
                      re.S)
        assert m and json.loads(m.group(1)) is None
        assert not _holds(html, f"pick {words[1]}")
        assert not _holds(html, f"codeword {words[1]}")
        assert "holds no record to verify" in html
    t.play_to_end()
    out = tmp_path / "end.html"
    assert run("replay", str(t.dirs["host"]), "--out", str(out)).exit_code == 0
    m = re.search(r'id="record-data">(.*?)</script>', out.read_text(), re.S)
    assert m and _holds(json.loads(m.group(1)), f"pick {words[1]}")


def _holds(text: str, word: str) -> bool:
    """Whether text holds word as it is or in an armored block's decoded payload."""
    from pbem.protocol.sealing import searchable

    return any(word.encode() in blob for blob in searchable(text.encode()))


def test_a_hosted_player_record_shows_its_views(dash_hosted, tmp_path):
    out = tmp_path / "r.html"
    r = run("replay", str(dash_hosted / "blue"), "--out", str(out))
    assert r.exit_code == 0, r.output
    data = page_data(out.read_text())
    assert list(data["frames"]) == ["blue"]
    frames = data["frames"]["blue"]
    assert frames[0]["seq"] == 0 and frames[-1]["outcome"] is not None
    assert all(f["title"].startswith(("The referee's view", "The first view")) for f in frames)
