"""The HTML report and its SVG map: well-formed, self-contained, complete, escaped."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import msgspec
import pytest

from fixtures.report_samples import XSS, make_context, make_map
from pbem.core.game import MapArrow, MapMarker, MapUnit, Panel, Placement, Reach, UnitReach
from pbem.core.mapdata import GameMap, MapFile
from pbem.reports import IndexEntry, render_html, render_index, render_svg
from pbem.reports.render import TEMPLATES, html_env, safe_href
from pbem.reports.svgmap import safe_colour, side_colour, terrain_colour

SVG_NS = "{http://www.w3.org/2000/svg}"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class _Balance(HTMLParser):
    """Checks that every non-void element is closed in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        if tag == "script":
            self.scripts += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):  # noqa: ANN001
        if tag == "script":
            self.scripts += 1

    def handle_endtag(self, tag):  # noqa: ANN001
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}>, open: {self.stack[-3:]}")
            return
        self.stack.pop()

    def handle_data(self, data):  # noqa: ANN001
        self.text.append(data)


def _check_balanced(page: str) -> _Balance:
    p = _Balance()
    p.feed(page)
    p.close()
    assert not p.errors, p.errors[:5]
    assert not p.stack, p.stack
    return p


def _svg_part(page: str) -> str:
    m = re.search(r'<svg xmlns="http://www.w3.org/2000/svg" class="hexmap".*?</svg>', page, re.S)
    assert m, "no map svg in page"
    return m.group(0)


@pytest.fixture
def page(sample_map: GameMap, sample_ctx) -> str:  # noqa: ANN001
    return render_html(sample_ctx, sample_map)


def test_page_is_balanced_and_runs_only_its_own_script(page: str) -> None:
    """The only script is templates/movehelper.js (the helper's data is JSON, not code), and
    the page's Content-Security-Policy allows exactly that script by its hash."""
    import base64
    import hashlib
    import json

    p = _check_balanced(page)
    assert p.scripts == 2
    assert page.startswith("<!DOCTYPE html>")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert [attrs for attrs, _ in scripts] == [' type="application/json" id="pbem-helper"', ""]
    json.loads(scripts[0][1])
    code = scripts[1][1]
    assert code == "\n" + (TEMPLATES / "movehelper.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert csp and f"script-src 'sha256-{digest}'" in csp.group(1)
    assert "default-src 'none'" in csp.group(1) and "unsafe-eval" not in csp.group(1)


def test_svg_is_well_formed_xml(page: str, sample_map: GameMap) -> None:
    root = ET.fromstring(_svg_part(page))
    assert root.tag == SVG_NS + "svg"
    hexes = [e for e in root.iter() if e.get("class") == "hex"]
    assert {e.get("data-hex") for e in hexes} == set(sample_map.grid.all_hexes())
    # every legend swatch is well-formed too
    for m in re.finditer(r"<svg xmlns=\"http://www.w3.org/2000/svg\" width=.*?</svg>", page, re.S):
        ET.fromstring(m.group(0))


def test_page_is_self_contained(page: str) -> None:
    refs = re.findall(r"(?:https?:)?//[^\s\"'<>)]+", page)
    assert set(refs) <= {"http://www.w3.org/2000/svg"}, set(refs)
    assert "<link" not in page and "@import" not in page and "url(http" not in page
    for m in re.finditer(r"url\(([^)]*)\)", page):
        assert m.group(1).startswith("#"), m.group(0)
    assert "<img" not in page and "<iframe" not in page


def test_page_shows_everything(page: str, sample_ctx, sample_map: GameMap) -> None:  # noqa: ANN001
    root = ET.fromstring(_svg_part(page))
    texts = [t.text or "" for t in root.iter(SVG_NS + "text")]
    for hx in sample_map.grid.all_hexes():
        assert hx in texts  # the printed hex id in each hex
    for col in ("01", "06", "12"):
        assert col in texts  # column numbers on top, row numbers left
    for name in ("Porto Vecchio", "Medjez", "Tebessa", "El Guettar"):
        assert name in texts
    for label in ("1 Gds", "Blade", "CCB", "78 Div", "10 Pz"):
        assert label in texts
    units = [g for g in root.iter(SVG_NS + "g") if "unit" in (g.get("class") or "").split()]
    assert len(units) == len(sample_ctx.model.units)
    masked = [g for g in units if "masked" in g.get("class").split()]
    assert sorted(g.get("data-hex") for g in masked) == ["0806", "0906", "0906", "1107"]
    classes = " ".join(e.get("class") or "" for e in root.iter())
    for cls in ("hs-river", "hs-bridge", "hs-escarpment", "hs-red_line", "hs-mareth",
                "hs-minefield", "hs-wadi", "road-road", "road-trail", "marker combat",
                "marker support", "arrow", "place"):
        assert cls in classes, cls
    for heading in ("Your decision", "What happened", "Dice", "Supply", "Reinforcements due",
                    "Victory", "Reply data", "Units", "Markers", "Moves seen"):
        assert f">{heading}<" in page, heading
    for cmd in sample_ctx.answer:
        assert cmd in page
    assert sample_ctx.file_hash in page and sample_ctx.game_id in page and "0012-axis.pbem" in page
    for fp in sample_ctx.fingerprints.values():
        assert fp in page
    assert "Combat 0805: attacker die (1/3)" in page
    assert "December 1942 (I)" in page and "movement" in page and "campaign" in page


def test_masked_unit_never_shows_its_values(sample_map: GameMap) -> None:
    ctx = make_context()
    ctx.model.units.append(MapUnit(hex="1208", side="axis", masked=True, label="SECRET-LABEL",
                                   values="SECRET-VALUES", kind="SECRET-KIND", note="SECRET-NOTE"))
    page = render_html(ctx, sample_map)
    assert "SECRET" not in page


def test_untrusted_text_is_escaped(tmp_path: Path) -> None:
    game_map = make_map(tmp_path, place_name=XSS)
    ctx = make_context(unit_label=XSS, event_text=XSS)
    ctx.model.markers.append(MapMarker(hex="0101", kind=XSS, label=XSS))
    ctx.model.markers.append(MapMarker(hex="0102", kind="objective", label=XSS))
    ctx.model.panels.append(Panel(title=XSS, lines=(XSS,)))
    ctx.model.arrows.append(MapArrow(path=("0101", "0102"), side=XSS, label=XSS))
    ctx.model.units.append(MapUnit(hex="0103", side=XSS, label=XSS, values=XSS, kind=XSS, note=XSS))
    ctx.answer.append(XSS)
    ctx.fingerprints[XSS] = XSS
    ctx.file_name = XSS
    ctx.side_colours = {"allied": 'red;}</style><script>alert(1)</script>', XSS: "x\" onload=\"y"}
    ctx.terrain_colours = {"open": "url(http://evil.example/x.png)"}
    ctx.model.placements.append(Placement(unit=XSS, name=XSS, values=XSS, hexes=(XSS,),
                                          order=XSS, note=XSS))
    ctx.model.reach.append(UnitReach(unit=XSS, hex=XSS, label=XSS, allowance=XSS, order=XSS,
                                     sep=XSS, hexes=(Reach(hex=XSS, cost=XSS, prev=XSS),)))
    ctx.model.legend.append(XSS)
    page = render_html(ctx, game_map)
    # the page's own two script elements (helper data, helper code) and no other
    assert page.lower().count("<script") == 2 and page.lower().count("</script") == 2
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "evil.example" not in page and "onload" not in page
    p = _check_balanced(page)
    assert p.scripts == 2
    data = re.search(r'id="pbem-helper">(.*?)</script>', page, re.S).group(1)
    assert "<" not in data and ">" not in data and "&" not in data
    import json
    assert json.loads(data)["place"][0]["label"] == XSS
    assert XSS in "".join(p.text)  # shown to the reader as text
    ET.fromstring(_svg_part(page))


def test_colour_validation() -> None:
    assert safe_colour("#a0b1c2", "#000") == "#a0b1c2"
    assert safe_colour("rgb(1, 2, 3)", "#000") == "rgb(1, 2, 3)"
    assert safe_colour("red;background:url(x)", "#000") == "#000"
    assert terrain_colour("open", {"open": "#123456"}) == "#123456"
    assert terrain_colour("sea") != terrain_colour("open")
    assert terrain_colour("unheard-of") == terrain_colour("unheard-of")  # stable fallback
    assert side_colour("allied") != side_colour("axis")
    assert side_colour("allied", {"allied": "#ff0000"}) == "#ff0000"


def test_svg_without_file_data_and_off_map_items() -> None:
    """A GameMap is enough; items on hexes that are not on the map are skipped, not fatal."""
    data = msgspec.convert({
        "map": {"id": "t", "title": "t", "first_col": 1, "last_col": 3, "first_row": 1,
                "last_row": 2, "source": "reconstructed: test"},
        "legend": {".": "open", "#": "woods"},
        "grid": [".#.", "..."],
        "hexside": [{"kind": "lake", "pairs": [["0101", "0102"]], "source": "reconstructed: t"}],
        "road": [{"kind": "rr", "hexes": ["0101", "0201"], "source": "reconstructed: t"}],
    }, type=MapFile)
    game_map = GameMap(data)
    svg = render_svg(game_map, [MapUnit(hex="9999", side="axis"), MapUnit(hex="0101", side="x")],
                     [MapMarker(hex="bad", kind="combat")],
                     [MapArrow(path=("0101", "zz"), side="a")], hex_size=30)
    root = ET.fromstring(svg)
    units = [g for g in root.iter(SVG_NS + "g") if "unit" in (g.get("class") or "").split()]
    assert [u.get("data-hex") for u in units] == ["0101"]
    assert root.get("width") and float(root.get("width")) > 0


def test_big_stacks_stay_inside_their_hex(sample_map: GameMap) -> None:
    units = [MapUnit(hex="0505", side="allied", label=f"U{i}", values="1") for i in range(6)]
    svg = render_svg(sample_map, units, hex_size=40)
    root = ET.fromstring(svg)
    cx, cy = sample_map.grid.center("0505", 40)
    for g in root.iter(SVG_NS + "g"):
        if "unit" in (g.get("class") or "").split():
            rect = [r for r in g.iter(SVG_NS + "use")][0]   # the block
            x, y = float(rect.get("x")), float(rect.get("y"))
            w = float(rect.get("width"))
            # margins: 40 px left, 30 px top
            assert abs(x + w / 2 - 40 - cx) < 40 and abs(y + w / 2 - 30 - cy) < 36


def test_index_page() -> None:
    entries = [IndexEntry(seq=3, turn=2, label="Turn 2 axis", href="0003-allied.html"),
               IndexEntry(seq=1, turn=1, label=XSS, href="javascript:alert(1)"),
               IndexEntry(seq=2, turn=1, label="Turn 1 allied", href="//evil.example/x")]
    page = render_index(entries, f"Game {XSS}")
    _check_balanced(page)
    assert "<script" not in page.lower()
    assert "javascript:" not in page and "evil.example" not in page
    assert page.index(">#1<") < page.index(">#2<") < page.index(">#3<")
    assert 'href="0003-allied.html"' in page
    assert safe_href("reports/0004.html") == "reports/0004.html"
    assert safe_href("file:///etc/passwd") == "#"
    assert safe_href("") == "#"
    assert "No reports yet." in render_index([], "Empty")


def test_templates_folder_and_autoescape() -> None:
    assert TEMPLATES.is_dir() and (TEMPLATES / "report.html.j2").is_file()
    env = html_env()
    assert env.from_string("{{ x }}").render(x="<b>") == "&lt;b&gt;"


def test_context_round_trips_through_json(sample_map: GameMap) -> None:
    """Reports can be rebuilt from a cached context."""
    from pbem.reports import ReportContext

    ctx = make_context()
    back = msgspec.json.decode(msgspec.json.encode(ctx), type=ReportContext)
    assert back == ctx
    assert render_html(back, sample_map) == render_html(ctx, sample_map)


@pytest.mark.parametrize("shifted", ["even", "odd"])
def test_hexside_edges_lie_on_both_hexes(shifted: str) -> None:
    """Hexside features are drawn exactly on the edge the two hex polygons share."""
    from pbem.reports.svgmap import _Geometry

    data = msgspec.convert({
        "map": {"id": "t", "title": "t", "first_col": 3, "last_col": 6, "first_row": 2,
                "last_row": 4, "shifted": shifted, "digits": 3, "source": "reconstructed: t"},
        "legend": {".": "open"}, "grid": ["....", "....", "...."],
        "hexset": [{"name": "gray", "hexes": ["003002"], "source": "reconstructed: t"}],
    }, type=MapFile)
    game_map = GameMap(data)
    geo = _Geometry(game_map, 30.0)
    for a in game_map.grid.all_hexes():
        for b in game_map.grid.neighbours(a):
            ca, cb = geo.corners(a), geo.corners(b)
            for p in geo.edge(a, b):
                assert min(abs(p[0] - x) + abs(p[1] - y) for x, y in ca) < 1e-6
                assert min(abs(p[0] - x) + abs(p[1] - y) for x, y in cb) < 1e-6
    svg = render_svg(game_map, [], [], [])
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter(SVG_NS + "text")]
    assert "003002" in texts and "006" in texts and "004" in texts  # 3-digit ids and edges
    assert 'class="grayset"' in svg
