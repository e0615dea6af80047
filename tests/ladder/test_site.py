"""`pbem ladder site`: a static, self-contained site that passes an accessibility and link
check, escapes every player name, links archives that verify again, and renders in headless
Chromium."""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ladder.helpers import Pool, ok, refused
from pbem.protocol.audit import verify_archive

CHROMIUM = Path("/usr/bin/chromium")


class Page(HTMLParser):
    """The facts the checks need from one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.lang = None
        self.title = ""
        self.ids: list[str] = []
        self.links: list[str] = []
        self.resources: list[str] = []
        self.th_without_scope = 0
        self.tables: list[dict] = []
        self.svgs: list[dict] = []
        self.imgs_without_alt = 0
        self.h1 = 0

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "html":
            self.lang = a.get("lang")
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])
        elif tag in ("img", "script", "iframe", "link", "source", "video", "audio"):
            if a.get("src") or a.get("href"):
                self.resources.append(a.get("src") or a.get("href"))
            if tag == "img" and not a.get("alt"):
                self.imgs_without_alt += 1
        elif tag == "table":
            self.tables.append({"th": 0, "caption": False})
        elif tag == "caption" and self.tables:
            self.tables[-1]["caption"] = True
        elif tag == "th":
            self.tables[-1]["th"] += 1
            if a.get("scope") not in ("col", "row", "colgroup", "rowgroup"):
                self.th_without_scope += 1
        elif tag == "svg":
            self.svgs.append({"label": a.get("aria-label") or a.get("aria-labelledby"),
                              "refs": a.get("aria-labelledby") or "",
                              "title": False, "role": a.get("role")})
        elif tag == "title" and "svg" in self.stack and self.svgs:
            if self.stack[-1] == "svg":
                self.svgs[-1]["title"] = True
        elif tag == "h1":
            self.h1 += 1
        if tag not in ("meta", "br", "img", "input", "link", "line", "circle", "rect",
                       "polyline", "path"):
            self.stack.append(tag)

    def handle_endtag(self, tag):  # type: ignore[no-untyped-def]
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_startendtag(self, tag, attrs):  # type: ignore[no-untyped-def]
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data):  # type: ignore[no-untyped-def]
        if self.stack and self.stack[-1] == "title" and "svg" not in self.stack:
            self.title += data


def parse(path: Path) -> Page:
    p = Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def check_site(root: Path) -> int:
    """The accessibility and link check of every page; returns the number of pages."""
    pages = sorted(root.rglob("*.html"))
    parsed = {p: parse(p) for p in pages}
    for path, page in parsed.items():
        where = path.relative_to(root)
        assert page.lang == "en", where
        assert page.title.strip(), where
        assert page.h1 == 1, where
        assert len(page.ids) == len(set(page.ids)), (where, "duplicate ids")
        assert page.imgs_without_alt == 0, where
        assert not page.resources, (where, page.resources)      # self-contained
        assert page.th_without_scope == 0, where
        for t in page.tables:
            assert t["th"] > 0 and t["caption"], (where, "table without headers or caption")
        for s in page.svgs:
            assert s["title"] and s["label"] and s["role"] == "img", (where, s)
            for ref in s["refs"].split():         # aria-labelledby names ids
                assert ref in page.ids, (where, ref)
        for href in page.links:
            assert not href.startswith(("http:", "https:", "//", "javascript:")), (where, href)
            target, _, frag = href.partition("#")
            dest = (path.parent / target).resolve() if target else path
            assert dest.is_file(), (where, href)
            if frag:
                assert frag in parsed[dest].ids, (where, href)
    return len(pages)


def test_the_site_passes_the_accessibility_and_link_check(full_ladder: Path,
                                                          tmp_path: Path) -> None:
    out = tmp_path / "site"
    r = ok("ladder", "site", full_ladder, out)
    assert "Wrote" in r.output
    n = check_site(out)
    assert n == 3 + 8 + 14                      # index, games, forfeits; players; games
    index = (out / "index.html").read_text()
    assert "Holdfast: Tunisia 1942-43" in index and "Dash (test game)" in index
    player = (out / "players" / "1.html").read_text()
    assert "<svg" in player and "Rating history" in player and "Dice luck" in player
    assert "dice across 6 games" in player
    page = parse(out / "players" / "1.html")
    assert len(page.svgs) >= 3 and all(s["title"] for s in page.svgs)   # the check saw them
    assert len(page.tables) >= 3 and page.links


def test_every_game_page_links_an_archive_that_verifies(full_ladder: Path,
                                                        tmp_path: Path) -> None:
    out = tmp_path / "site"
    ok("ladder", "site", full_ladder, out)
    zips = sorted((out / "archives").glob("*.zip"))
    assert len(zips) == 14
    for z in zips[:4]:
        dest = tmp_path / z.stem
        with zipfile.ZipFile(io.BytesIO(z.read_bytes())) as f:
            f.extractall(dest)
        (folder,) = list(dest.iterdir())
        assert folder.name.startswith(z.stem)
        assert verify_archive(folder).ok
        assert f"archives/{z.name}" in (out / "games" / f"{z.stem}.html").read_text()


def test_untrusted_names_are_escaped(pool: Pool, tmp_path: Path) -> None:
    db = tmp_path / "x.ladder"
    ok("ladder", "init", db, "--name", "Club <i>& friends</i>")
    evil = '<script>alert("x")</script> & <b>'
    g = pool.games[0]
    ok("ladder", "add-player", db, evil, pool.pub(g.players["red"]))
    ok("ladder", "add-player", db, "O'Brien \"Q\"", pool.pub(g.players["blue"]))
    ok("ladder", "submit", db, g.submit)
    ok("ladder", "site", db, tmp_path / "site")
    for page in (tmp_path / "site").rglob("*.html"):
        text = page.read_text()
        assert "<script>" not in text and "<b>" not in text and "<i>&" not in text
    text = (tmp_path / "site" / "index.html").read_text()
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;" in text
    check_site(tmp_path / "site")


def test_site_refuses_a_folder_holding_other_files(full_ladder: Path, tmp_path: Path) -> None:
    d = tmp_path / "mine"
    d.mkdir()
    (d / "thesis.txt").write_text("do not overwrite")
    assert "not an empty folder" in refused("ladder", "site", full_ladder, d)
    ok("ladder", "site", full_ladder, tmp_path / "site")
    ok("ladder", "site", full_ladder, tmp_path / "site")          # an earlier site: rewritten


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install "
                    "chromium)")
def test_headless_chromium_renders_the_standings_and_the_charts(full_ladder: Path,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "site"
    ok("ladder", "site", full_ladder, out)

    def chromium(*args: str) -> subprocess.CompletedProcess[bytes]:
        cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync",
               f"--user-data-dir={tmp_path / 'profile'}", *args]
        return subprocess.run(cmd, capture_output=True, timeout=120, check=False)

    dom = chromium("--dump-dom", (out / "index.html").as_uri()).stdout.decode("utf-8", "replace")
    assert 'id="standings"' in dom and "Ann" in dom and "Erin" in dom
    assert dom.count("<tr>") >= 8
    dom = chromium("--dump-dom", (out / "players" / "1.html").as_uri()).stdout.decode()
    assert "<svg" in dom and "<polyline" in dom and "Overall rating of Ann" in dom
    png = tmp_path / "shot.png"
    res = chromium(f"--screenshot={png}", "--window-size=1000,1400",
                   (out / "players" / "1.html").as_uri())
    assert png.exists() and png.stat().st_size > 10_000, res.stderr.decode(errors="replace")[-800:]
    shutil.copy(png, tmp_path / "keep.png")


class DiceCharts(HTMLParser):
    """The dice charts of a page (pbem.records.stats.chart_svg): label and bar counts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.charts: list[dict] = []

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        a = dict(attrs)
        if tag == "svg" and "dice-chart" in (a.get("class") or ""):
            self.charts.append({"label": a.get("aria-label"), "role": a.get("role"),
                                "counts": []})
        elif tag == "rect" and a.get("class") == "bar" and self.charts:
            self.charts[-1]["counts"].append(int(a["data-count"]))


def dice_charts(path: Path) -> dict[str, dict]:
    p = DiceCharts()
    p.feed(path.read_text(encoding="utf-8"))
    return {c["label"]: c for c in p.charts}


def expected_dice(archives: list[Path], pub: bytes) -> dict[int, list[int]]:
    """Die size -> face counts of the public dice of the side this key played, read from the
    archives independently of the ladder (a replay's frames)."""
    from pbem.records.source import FULL, open_game
    from pbem.records.stats import owner

    out: dict[int, list[int]] = {}
    for a in archives:
        v = open_game(a)
        side = next(s for s, k in v.genesis.pubs.items() if k == pub)
        sides = list(v.game.sides)
        for fr in v.frames(FULL):
            for r in fr.rolls:
                if r.visible_to == "all" and owner(r.purpose, fr.sender, sides) == side:
                    out.setdefault(r.sides, [0] * r.sides)[r.value - 1] += 1
    return out


def test_the_player_page_charts_the_recorded_dice_face_by_face(ladder: Path, pool: Pool,
                                                               tmp_path: Path) -> None:
    import sqlite3

    from pbem.core.keys import load_public
    from pbem.records.stats import Group

    peer = [g for g in pool.games if g.mode == "peer" and "ann" in g.players.values()]
    assert peer
    for g in peer:
        ok("ladder", "submit", ladder, g.submit)
    conn = sqlite3.connect(ladder)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    recorded = conn.execute("SELECT count(*) FROM games WHERE dice_faces = 1").fetchone()[0]
    assert recorded == len(peer)
    assert conn.execute("SELECT count(*) FROM game_dice").fetchone()[0] > 0
    conn.close()
    out = tmp_path / "site"
    ok("ladder", "site", ladder, out)
    check_site(out)
    page = out / "players" / "1.html"
    text = page.read_text()
    assert "Dice against fair dice" in text and "no per-face dice" not in text
    want = expected_dice([g.submit for g in peer], load_public(pool.pub("ann"))[0])
    assert want and sum(map(sum, want.values())) > 0
    charts = dice_charts(page)
    for die, counts in want.items():
        grp = Group(game="", side="Ann", purpose=f"all d{die}", sides=die, counts=counts)
        (label,) = [k for k in charts if k.startswith(f"Ann all d{die} d{die}: ")]
        assert charts[label]["counts"] == counts, (die, charts[label], counts)
        assert charts[label]["role"] == "img"
        assert f"{grp.n} dice, mean {grp.mean:.2f}" in label
        if grp.p_value is not None:
            assert label.endswith(f", p = {grp.p_value:.3f}")
    parsed = parse(page)
    assert all(s["title"] and s["label"] and s["role"] == "img" for s in parsed.svgs)


def test_games_recorded_before_schema_2_have_no_per_face_dice(pool: Pool, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    import sqlite3

    import msgspec

    from pbem.ladder import db as ladder_db
    from pbem.ladder import submit as ladder_submit

    old = tmp_path / "old.ladder"
    a, b = pool.games[0], pool.games[1]
    real = ladder_submit.record_game
    with monkeypatch.context() as m:                # a ladder made by a pbem of schema 1
        m.setattr(ladder_db, "MIGRATIONS", ladder_db.MIGRATIONS[:1])
        m.setattr(ladder_submit, "record_game",
                  lambda conn, rec: real(conn, msgspec.structs.replace(rec, faces=None)))
        ok("ladder", "init", old, "--name", "Old Club")
        for member in ("ann", "ben", "cat", "dov"):
            ok("ladder", "add-player", old, member.capitalize(), pool.pub(member))
        ok("ladder", "submit", old, a.submit)
    conn = sqlite3.connect(old)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'game_dice'").fetchone()
    conn.close()
    ids = {"ann": 1, "ben": 2, "cat": 3, "dov": 4}
    ok("ladder", "site", old, tmp_path / "site1")   # opening the file migrates it
    conn = sqlite3.connect(old)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    assert conn.execute("SELECT dice_faces FROM games").fetchall() == [(0,)]
    conn.close()
    check_site(tmp_path / "site1")
    for member in a.players.values():
        page = tmp_path / "site1" / "players" / f"{ids[member]}.html"
        text = page.read_text()
        assert "1 of " in text and "game has no per-face dice" in text
        assert "No per-face dice recorded yet." in text and not dice_charts(page)
    ok("ladder", "submit", old, b.submit)           # recorded after the migration: charted
    ok("ladder", "site", old, tmp_path / "site2")
    check_site(tmp_path / "site2")
    for member in b.players.values():
        assert dice_charts(tmp_path / "site2" / "players" / f"{ids[member]}.html")
