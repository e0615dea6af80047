"""A report fits in an email (issue 11, item 11): the HTML reports of Holdfast and Kasserine
stay small, and the smaller map drawing still shows everything the larger one did.

``golden/late-maps.json`` holds two late-game positions (the map items of one side's report:
units, markers and arrows) and, for each and for the report sample, the inventory of the map
as the renderer drew it before the drawing was made compact (commit 18e823e): every
``data-hex`` attribute, every ``<title>``, every text label and every legend entry, each as a
multiset (the counts, and the SHA-256 of the sorted lists). The encoding changed (symbols,
grouped styles); the inventory must not. After a deliberate change of what the map shows
(a new tooltip, say), PBEM_REGEN_GOLDEN=1 records the new inventory; review the counts.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import msgspec
import pytest

from fixtures.report_samples import make_context, make_map
from pbem.core.game import MapArrow, MapMarker, MapUnit
from pbem.core.registry import find_game
from pbem.reports.svgmap import game_marker_styles, legend_items, render_svg

SVG = "{http://www.w3.org/2000/svg}"
GOLDEN_FILE = Path(__file__).parent / "golden" / "late-maps.json"
GOLDEN = json.loads(GOLDEN_FILE.read_text("utf-8"))
LIMIT = 250 * 1024          # DESIGN.md section 10: an HTML report fits in a mail
MAP_LIMIT = 190 * 1024      # the map's share of it (docs/performance.md, "Report sizes")


def inventory(svg: str, legend: list[str]) -> dict[str, list[str]]:
    """What a drawing shows, whatever its encoding: hexes, titles, labels, legend entries."""
    root = ET.fromstring(svg)
    return {"data-hex": sorted(e.get("data-hex") for e in root.iter() if e.get("data-hex")),
            "titles": sorted(e.text or "" for e in root.iter(SVG + "title")),
            "texts": sorted("".join(e.itertext()) for e in root.iter(SVG + "text")),
            "legend": sorted(legend)}


def _position(name: str):
    """(game, map, units, markers, arrows, side) of a stored late-game position."""
    v = GOLDEN[name]
    game = find_game(v["game"])
    return (game, game.game_map(v["scenario"]), msgspec.convert(v["units"], list[MapUnit]),
            msgspec.convert(v["markers"], list[MapMarker]),
            msgspec.convert(v["arrows"], list[MapArrow]), v["side"])


def _draw(name: str, tmp_path: Path) -> tuple[str, dict[str, list[str]]]:
    if name == "sample":
        ctx, gm = make_context(), make_map(tmp_path)
        m = ctx.model
        svg = render_svg(gm, m.units, m.markers, m.arrows, own_side=m.side, title="sample")
        return svg, inventory(svg, [lab for lab, _ in legend_items(gm, sides=["allied", "axis"])])
    game, gm, units, markers, arrows, side = _position(name)
    svg = render_svg(gm, units, markers, arrows, own_side=side, title="late",
                     marker_styles=game_marker_styles(game.id))
    return svg, inventory(svg, [lab for lab, _ in legend_items(gm, sides=game.sides)])


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_map_shows_what_it_showed(name: str, tmp_path: Path) -> None:
    """Every hex, unit, marker, title and label of the earlier drawing is still drawn."""
    _, inv = _draw(name, tmp_path)
    want = GOLDEN[name]
    counts = {k: len(v) for k, v in inv.items()}
    digest = hashlib.sha256(json.dumps(inv, sort_keys=True).encode()).hexdigest()
    if os.environ.get("PBEM_REGEN_GOLDEN") == "1":  # only after a deliberate change of content
        want.update(counts=counts, inventory_sha256=digest)
        GOLDEN_FILE.write_text(json.dumps(GOLDEN, indent=1, sort_keys=True), "utf-8")
    assert counts == want["counts"]
    assert digest == want["inventory_sha256"]


@pytest.mark.parametrize("name", ["holdfast-allied", "kasserine-us"])
def test_late_map_draws_each_hex_and_item_and_stays_small(name: str, tmp_path: Path) -> None:
    """Each hex once (clickable, its id and terrain as tooltip and its printed id), each unit,
    marker and arrow once, and the whole drawing under its share of the mail budget."""
    game, gm, units, markers, arrows, _ = _position(name)
    svg, _ = _draw(name, tmp_path)
    root = ET.fromstring(svg)
    hexes = {}
    for e in root.iter():
        if e.get("class") == "hex":
            assert e.get("data-hex") not in hexes
            hexes[e.get("data-hex")] = e.find(SVG + "title").text
    assert hexes == {h: f"{h} {gm.terrain.get(h, '')}" for h in gm.grid.all_hexes()}
    texts = [e.text for e in root.iter(SVG + "text")]
    assert all(h in texts for h in gm.grid.all_hexes())

    def groups(cls: str) -> list[ET.Element]:
        return [g for g in root.iter(SVG + "g") if cls in (g.get("class") or "").split()]

    assert sorted(g.get("data-hex") for g in groups("unit")) == sorted(u.hex for u in units)
    assert sorted(g.get("data-hex") for g in groups("marker")) == sorted(m.hex for m in markers)
    assert len(groups("arrow")) == len([a for a in arrows if len(a.path) > 1])
    assert len(svg.encode()) < MAP_LIMIT, len(svg)


@pytest.fixture(scope="module")
def demo_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """Every HTML report both sides wrote in one bot-against-bot game of each game."""
    from pbem.protocol.demo import play_demo

    out = {}
    for game in ("holdfast", "kasserine"):
        root = tmp_path_factory.mktemp(game) / "g"
        play_demo(root, game_name=game, seed=11, mode="peer")
        out[game] = [Path(p) for p in sorted(glob.glob(f"{root}/*/reports/*/[0-9]*.html"))]
        assert len(out[game]) > 10
    return out


@pytest.mark.parametrize("game", ["holdfast", "kasserine"])
def test_every_report_fits_in_an_email(game, demo_reports) -> None:
    """Every HTML report of a whole game is under 250 KB (DESIGN.md section 10).

    The game's dice differ from run to run (every game draws fresh dice secrets), so how the
    page divides between the map and the move helper's data varies with the position: the
    map's share is held to its budget on fixed positions
    (test_late_map_draws_each_hex_and_item_and_stays_small), and here only the whole page,
    which is the requirement."""
    sizes = []
    for path in demo_reports[game]:
        page = path.read_text("utf-8")
        size = len(page.encode())
        assert re.search(r'<svg xmlns="http://www.w3.org/2000/svg" class="hexmap"', page), \
            path.name
        sizes.append((size, f"{path.parent.name}/{path.name}"))
    assert max(sizes) < (LIMIT, ""), max(sizes)


class _Cells(HTMLParser):
    """The rows of the events list and of the dice and unit tables, as their texts (and the
    class of each cell), whatever markup carries them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.section = ""
        self.rows: dict[str, list[list[tuple[str, str]]]] = {}
        self.cell: list[str] | None = None
        self.cls = ""

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("id") or ""
        if tag == "tr" or (tag == "li" and self.section == "events"):
            self.rows.setdefault(self.section, []).append([])
        if tag == "td" or (tag == "li" and self.section == "events"):
            self.cell, self.cls = [], a.get("class") or ""

    def handle_endtag(self, tag):  # noqa: ANN001
        if tag in ("td", "li") and self.cell is not None:
            self.rows[self.section][-1].append(("".join(self.cell), self.cls))
            self.cell = None

    def handle_data(self, data):  # noqa: ANN001
        if self.cell is not None:
            self.cell.append(data)


def test_page_text_keeps_every_fact(tmp_path: Path) -> None:
    """The shorter markup of the events, dice and units loses nothing: each event's text and
    every hex it concerns, each die with purpose, size, result and address, each unit with
    hex, side (and the side's colour), id, name, values, type and note."""
    from pbem.reports import render_html
    from pbem.reports.render import _view

    ctx = make_context()
    page = render_html(ctx, make_map(tmp_path))
    p = _Cells()
    p.feed(page)
    events = [row[0][0] for row in p.rows["events"]]
    assert len(events) == len(ctx.events)
    for e, shown in zip(ctx.events, events, strict=True):
        assert shown.startswith(e.text)
        assert all(re.search(rf"(?<![\w.]){h}(?![\w])", shown) for h in e.hexes), (e, shown)
    dice = [[c for c, _ in row] for row in p.rows["dice"] if row]
    assert dice == [[r.purpose, f"d{r.sides}", str(r.value), f"{r.action} / {r.index}"]
                    for r in ctx.rolls]
    v = _view(ctx)
    colour = dict(re.findall(r"\.(s\d+)::before \{ background: ([^;]+); \}", page))
    units = [row for row in p.rows["units"] if row]
    want = [[u.hex, u.side, u.id, u.label, u.values, u.kind, u.note]
            for u in v["own_units"] + v["revealed_units"]]
    want += [[u.hex, u.side, "hidden block"] for u in v["masked_units"]]
    assert [[c for c, _ in row] for row in units] == want
    for row, u in zip(units, v["own_units"] + v["revealed_units"] + v["masked_units"],
                      strict=True):
        assert colour[row[1][1].split()[-1]] == v["colours"][u.side]
