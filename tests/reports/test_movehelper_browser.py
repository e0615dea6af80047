"""Issue 11 item 4: the move helper driven by real clicks in headless Chromium, offline.

Click one of your units: the hexes it can reach are outlined with their costs; click a hex:
the order line appears, and the rules accept it. Units to place are outlined too.
Skipped when /usr/bin/chromium is absent (CI installs Debian's chromium package).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from fixtures.cdp import CHROMIUM, Browser
from pbem.core.dice import NoDice
from pbem.core.game import Context
from pbem.core.options import bot_choices
from pbem.core.registry import find_game
from pbem.reports import render_html
from pbem.reports.context import ReportContext

from pbem.core.dice import FixedDice
from pbem.core.game import UnitReach


def order_line(r: UnitReach, dest: str) -> str:
    """The order line expected for a click on dest: the path walked back by 'prev'."""
    to = {x.hex: x for x in r.hexes}
    path, h = [], dest
    while h:
        path.insert(0, h)
        h = to[h].prev
    return r.order.replace("{path}", r.sep.join(path))


def holdfast_allied_turn():
    """Holdfast after the Axis set-up: the Allied player turn 1."""
    g = find_game("holdfast")
    state = g.setup("race-to-tunis", {k: v.default for k, v in g.options().items()})
    for n, line in enumerate(["place superga tunis", "place fjr5 bizerte", "place witzig 1903",
                              "end"]):
        g.apply(state, "axis", g.parse_order(line), Context(FixedDice([3, 4, 2]), n))
    return g, state

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(),
                                 reason="headless browser test needs /usr/bin/chromium "
                                        "(apt-get install chromium)")]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with Browser(tmp_path_factory.mktemp("chromium") / "profile") as b:
        yield b


def _page(game, state, side, tmp_path: Path) -> tuple[Path, object]:
    model = game.report(state, side)
    ctx = ReportContext(model=model, pending=list(game.pending(state)), answer=[], events=[],
                        rolls=[], game_id="0" * 32, seq=1, file_name="x.pbem",
                        file_hash="0" * 64, fingerprints={})
    path = tmp_path / f"{game.id}-{side}.html"
    path.write_text(render_html(ctx, game.game_map(model.scenario)), encoding="utf-8")
    return path, model


def _click_hex(b: Browser, hx: str, what: str = ".hex") -> None:
    sel = f'svg.hexmap {what}[data-hex="{hx}"]'
    b.eval(f"document.querySelector({json.dumps(sel)}).scrollIntoView("
           "{block: 'center', inline: 'center'})")
    b.click(sel)


def _click(b: Browser, sel: str) -> None:
    b.eval(f"document.querySelector({json.dumps(sel)}).scrollIntoView({{block: 'center'}})")
    b.click(sel)


def _orders(b: Browser) -> str:
    return b.eval("document.getElementById('mh-orders').value")


def _accepted(game, state, side, text: str) -> None:
    trial = copy.deepcopy(state)
    for n, line in enumerate(text.splitlines()):
        game.apply(trial, side, game.parse_order(line), Context(NoDice(), n))


def test_holdfast_move_helper_by_clicks_HF_9_1_b(browser, tmp_path):
    """HF-9.1-b: click a unit, then a hex: the order line is the cheapest legal move."""
    g, state = holdfast_allied_turn()
    path, model = _page(g, state, "allied", tmp_path)
    browser.open(path.as_uri())
    r = next(x for x in model.reach if x.unit == "36bde")
    _click_hex(browser, r.hex, ".unit.own")
    status = browser.eval("document.getElementById('mh-status').textContent")
    assert "36bde" in status and r.allowance in status
    shown = browser.eval("Array.from(document.querySelectorAll('.hl-layer .hl-reach'))"
                         ".map(function (g) { return [g.getAttribute('data-hl'), "
                         "g.textContent]; })")
    assert sorted(map(tuple, shown)) == sorted((x.hex, x.cost) for x in r.hexes)
    through = browser.eval("Array.from(document.querySelectorAll('.hl-layer .hl-through'))"
                           ".map(function (g) { return g.getAttribute('data-hl'); })")
    assert sorted(through) == sorted(x.hex for x in r.hexes if not x.end)
    assert through, "36bde passes a friendly block on its way (0805)"
    ends = [x for x in r.hexes if x.end]
    far = max(ends, key=lambda x: (int(x.cost), x.hex))
    _click_hex(browser, far.hex)
    text = _orders(browser)
    assert text == order_line(r, far.hex) + "\n"
    _accepted(g, state, "allied", text)
    # a second unit adds its own line; choosing again for the first replaces its line
    r2 = next(x for x in model.reach if x.unit != "36bde")
    _click_hex(browser, r2.hex, ".unit.own")
    dest2 = next(x for x in r2.hexes if x.end)
    _click_hex(browser, dest2.hex)
    near = min(ends, key=lambda x: (int(x.cost), x.hex))
    _click_hex(browser, r.hex, ".unit.own")
    _click_hex(browser, near.hex)
    text = _orders(browser)
    assert text.splitlines() == [order_line(r, near.hex), order_line(r2, dest2.hex)]
    _accepted(g, state, "allied", text)
    # a click on a hex the selected unit cannot reach writes nothing
    _click_hex(browser, r.hex, ".unit.own")
    out = next(h for h in ("2005", "1802", "1903") if h not in {x.hex for x in r.hexes})
    _click_hex(browser, out)
    assert _orders(browser).splitlines() == text.splitlines()


def test_holdfast_setup_hexes_outlined_HF_12_1_a(browser, tmp_path):
    """HF-12.1-a: the set-up hexes are outlined; a click on a row shows that unit's only."""
    g = find_game("holdfast")
    state = g.setup("race-to-tunis", {k: v.default for k, v in g.options().items()})
    path, model = _page(g, state, "axis", tmp_path)
    browser.open(path.as_uri())
    union = sorted({h for p in model.placements for h in p.hexes})
    got = browser.eval("Array.from(document.querySelectorAll('.hl-layer .hl-place'))"
                       ".map(function (g) { return g.getAttribute('data-hl'); })")
    assert sorted(got) == union
    _click(browser, 'tr.place-row[data-unit="witzig"]')
    got = browser.eval("Array.from(document.querySelectorAll('.hl-layer .hl-place'))"
                       ".map(function (g) { return g.getAttribute('data-hl'); })")
    assert sorted(got) == sorted(next(p for p in model.placements if p.unit == "witzig").hexes)


def test_kasserine_entry_by_clicks_KAS_11_0_a(browser, tmp_path):
    """KAS-11.0-a: a reinforcement is chosen by its button, then its destination clicked."""
    g = find_game("kasserine")
    state = g.setup("historical", {k: v.default for k, v in g.options().items()})
    path, model = _page(g, state, "axis", tmp_path)
    browser.open(path.as_uri())
    r = next(x for x in model.reach if x.unit == "s501")
    _click(browser, 'button.mh-enter[data-unit="s501"]')
    assert "s501" in browser.eval("document.getElementById('mh-status').textContent")
    dest = max((x for x in r.hexes if x.end), key=lambda x: (float(x.cost), x.hex))
    _click_hex(browser, dest.hex)
    text = _orders(browser)
    assert text == order_line(r, dest.hex) + "\n" and text.startswith("enter s501 ")
    _accepted(g, state, "axis", text)
    # the entry hexes of the units to place are outlined from the start
    got = browser.eval("document.querySelectorAll('.hl-layer .hl-place').length")
    assert got == len({h for p in model.placements for h in p.hexes})


def _kasserine_us_turn():
    """Kasserine after the Axis turn 1: the US player moves units on the map."""
    g = find_game("kasserine")
    state = g.setup("historical", {k: v.default for k, v in g.options().items()})
    for n in range(5):
        if g.pending(state)[0].side == "us":
            break
        g.apply(state, "axis", g.parse_order("end"), Context(FixedDice([3] * 20), n))
    return g, state


@pytest.mark.parametrize("which", ["holdfast-allied", "kasserine-axis", "kasserine-us"])
def test_every_unit_shows_its_reach_as_computed_KAS_5_2_d(browser, tmp_path, which):
    """KAS-5.2-d, HF-9.1-b: the page reads its packed data back exactly: for every unit (and
    each of its kinds of move), selected by clicks, the outlined hexes, their costs and the
    hexes only passed through are those the rules computed."""
    if which == "holdfast-allied":
        g, state = holdfast_allied_turn()
    elif which == "kasserine-us":
        g, state = _kasserine_us_turn()
    else:
        g = find_game("kasserine")
        state = g.setup("historical", {k: v.default for k, v in g.options().items()})
    side = which.split("-")[1]
    path, model = _page(g, state, side, tmp_path)
    browser.open(path.as_uri())
    assert len(model.reach) >= 6
    for r in model.reach:
        if r.hex:    # click the unit's hex until this unit (stacks cycle) is selected
            for _ in range(1 + sum(x.hex == r.hex for x in model.reach)):
                _click_hex(browser, r.hex, ".unit.own")
                status = browser.eval("document.getElementById('mh-status').textContent")
                if status.startswith(f"Selected {r.label} in {r.hex}, {r.allowance}:"):
                    break
        else:
            _click(browser, f'button.mh-enter[data-unit="{r.unit}"]')
            status = browser.eval("document.getElementById('mh-status').textContent")
        assert status.startswith(f"Selected {r.label}"), (r.unit, status)
        shown = browser.eval("Array.from(document.querySelectorAll('.hl-layer .hl-reach'))"
                             ".map(function (g) { return [g.getAttribute('data-hl'), "
                             "g.textContent, g.classList.contains('hl-through')]; })")
        on_map = set(g.game_map(model.scenario).grid.all_hexes())
        assert sorted(map(tuple, shown)) == sorted((x.hex, x.cost, not x.end)
                                                   for x in r.hexes if x.hex in on_map), r.unit
    # the last unit's farthest hex writes the order line the rules accept
    far = max((x for x in r.hexes if x.end), key=lambda x: (float(x.cost), x.hex))
    _click_hex(browser, far.hex)
    assert _orders(browser) == order_line(r, far.hex) + "\n"
    _accepted(g, state, side, _orders(browser))


def test_data_for_another_map_is_refused(browser, tmp_path):
    """Hex numbers count the map's hexes: a page whose drawing lacks a hex the data counted
    says so and outlines nothing, rather than outlining the wrong hexes."""
    import re

    g, state = holdfast_allied_turn()
    path, _ = _page(g, state, "allied", tmp_path)
    page = path.read_text("utf-8")
    page, n = re.subn(r'<use [^>]*class="hex" data-hex="0101">.*?</use>', "", page, count=1,
                      flags=re.S)
    assert n == 1
    path.write_text(page, "utf-8")
    browser.open(path.as_uri())
    assert browser.eval("document.getElementById('mh-status').textContent") == \
        "The move helper's data does not fit this map."
    _click_hex(browser, "0805", ".unit.own")
    assert browser.eval("document.querySelectorAll('.hl-layer .hl-reach').length") == 0


_SEEN = """(function (hexes) {
  var w = document.querySelector('.mapwrap'), v = w.getBoundingClientRect();
  var seen = hexes.filter(function (h) {
    var r = document.querySelector('svg.hexmap .hex[data-hex="' + h + '"]').getBoundingClientRect();
    var x = r.left + r.width / 2, y = r.top + r.height / 2;
    return x >= v.left && x <= v.left + w.clientWidth && y >= v.top && y <= v.top + w.clientHeight;
  });
  return [w.scrollLeft, w.scrollTop, seen];
})(%s)"""


@pytest.mark.parametrize("which", ["holdfast-axis-setup", "holdfast-allied", "kasserine-us",
                                   "bcs-axis-entry"])
def test_the_map_opens_on_what_the_player_acts_on(browser, tmp_path, which):
    """The map is larger than its window: it opens on the hexes to place units in (the Axis
    set-up: Tunis and Bizerte, far east), all of them when they fit, else on the units the
    move helper offers, else on the hexes the player's decision names (Baptism By Fire 5.2:
    the Axis has no unit on the map and activates a Formation at one of its Entry hexes, on
    the map's bottom edge), at least one of them in the map's window."""
    if which == "holdfast-axis-setup":
        g = find_game("holdfast")
        state = g.setup("race-to-tunis", {k: v.default for k, v in g.options().items()})
        side = "axis"
    elif which == "holdfast-allied":
        (g, state), side = holdfast_allied_turn(), "allied"
    elif which == "bcs-axis-entry":
        g = find_game("bcs")
        state = g.setup("5.2", bot_choices(g.options()))
        side = "axis"
    else:
        (g, state), side = _kasserine_us_turn(), "us"
    path, model = _page(g, state, side, tmp_path)
    browser.open(path.as_uri())
    if which == "bcs-axis-entry":
        assert not model.placements and not model.reach
        shapes = set(browser.eval("Array.prototype.map.call(document.querySelectorAll("
                                  "'svg.hexmap .hex[data-hex]'), function (e) {"
                                  " return e.getAttribute('data-hex'); })"))
        named = {w for d in g.pending(state) for c in d.choices for w in c.split()}
        hexes = sorted(named & shapes)
        assert hexes, "the decision names Entry hexes"
    elif model.placements:
        hexes = sorted({h for p in model.placements for h in p.hexes})
    else:
        hexes = sorted({r.hex for r in model.reach if r.hex})
    left, top, seen = browser.eval(_SEEN % json.dumps(hexes))
    assert seen, (which, left, top)
    if which == "holdfast-axis-setup":
        assert sorted(seen) == hexes, "the set-up hexes fit in the window: all are shown"
        assert left > 0, "Tunis and Bizerte lie east of the map's first window"
    if which == "bcs-axis-entry":
        assert top > 0, "the Entry hexes lie on the map's bottom edge, below its first window"
