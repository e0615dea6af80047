"""Marker kinds and styles come from the game, not from the renderer (issue 9, item 11)."""

from __future__ import annotations

import pytest

from pbem.core.game import MapMarker, MarkerStyle
from pbem.core.registry import find_game
from pbem.reports.svgmap import (DEFAULT_MARKER_STYLES, game_marker_styles, marker_style,
                                 render_svg)


@pytest.mark.parametrize("gid,kinds", [
    ("holdfast", {"combat", "supply_base"}),
    ("kasserine", {"objective", "combat", "support-facedown"}),
])
def test_games_declare_the_marker_kinds_they_draw(gid, kinds):
    styles = game_marker_styles(gid)
    assert set(styles) == kinds
    assert all(isinstance(s, MarkerStyle) for s in styles.values())


# Kinds restyled on purpose since the styles moved into the games: Kasserine's face-down
# support fire marker draws a '?' and keeps its label (whose marker it is) for the tooltip.
RESTYLED = {"kasserine": {"support-facedown"}}


@pytest.mark.parametrize("gid", ["holdfast", "kasserine"])
def test_declared_styles_draw_as_the_built_in_ones_did(gid):
    """The reports look as before: every declared kind draws like the renderer's fallback,
    but the kinds restyled on purpose since (RESTYLED, checked below)."""
    game = find_game(gid)
    gm = game.game_map(next(iter(game.scenarios())))
    hexes = gm.grid.all_hexes()
    kinds = [k for k in game_marker_styles(gid) if k not in RESTYLED.get(gid, set())]
    ms = [MapMarker(hex=hexes[i], kind=k, label=lab)
          for i, k in enumerate(kinds) for lab in ("", "x")]
    assert render_svg(gm, (), ms, marker_styles=game_marker_styles(gid)) == render_svg(gm, (), ms)


def test_a_kasserine_facedown_marker_draws_a_question_mark_and_no_label():
    """KAS-7.2-c: the marker says nothing but '?' on the map; whose it is is in its tooltip."""
    game = find_game("kasserine")
    gm = game.game_map(next(iter(game.scenarios())))
    h = gm.grid.all_hexes()[0]
    label = "axis support fire marker, face down (value hidden)"
    svg = render_svg(gm, (), [MapMarker(hex=h, kind="support-facedown", label=label)],
                     marker_styles=game_marker_styles("kasserine"))
    group = svg[svg.index('<g class="markers">'):]
    group = group[:group.index('<g class="arrows"')]
    assert f"<title>support-facedown: {label} in {h}</title>" in group
    assert group.count("<text") == 1 and ">?</text>" in group       # no label drawn


def test_a_declared_style_is_what_gets_drawn():
    game = find_game("kasserine")
    gm = game.game_map(next(iter(game.scenarios())))
    h = gm.grid.all_hexes()[0]
    mine = {"mines": MarkerStyle(shape="square", fill="#aa0000", symbol="M", css="mines")}
    svg = render_svg(gm, (), [MapMarker(hex=h, kind="mines", label="")], marker_styles=mine)
    assert 'class="marker mines"' in svg and 'fill="#aa0000"' in svg and ">M</text>" in svg
    plain = render_svg(gm, (), [MapMarker(hex=h, kind="mines", label="")])
    assert 'class="marker other"' in plain


def test_style_lookup_order_and_hostile_colours():
    assert marker_style("combat") is DEFAULT_MARKER_STYLES["combat"]
    own = {"Combat": MarkerStyle(shape="star", fill="red")}
    assert marker_style("combat", own).shape == "star"
    bad = {"x": MarkerStyle(shape="circle", fill='red" onload="alert(1)')}
    game = find_game("kasserine")
    gm = game.game_map(next(iter(game.scenarios())))
    svg = render_svg(gm, (), [MapMarker(hex=gm.grid.all_hexes()[0], kind="x")], marker_styles=bad)
    assert "onload" not in svg
