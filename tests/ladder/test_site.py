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
            for ref in s["label"].split():
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
    assert len(page.svgs) == 2 and all(s["title"] for s in page.svgs)   # the check saw them
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
