"""A whole scenario map as one self-contained HTML page in the report style (pbem map)."""

from __future__ import annotations

from typing import Sequence

from markupsafe import Markup

from pbem.core.game import MapMarker, MapUnit, MarkerStyle
from pbem.core.mapdata import GameMap
from pbem.reports.svgmap import legend_items, render_svg

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="pbem">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>{{ title }}</title>
<style>
{% include "_style.css.j2" %}
</style>
</head>
<body>
<header class="top">
  <h1>{{ game_title }}</h1>
  <span class="meta">Scenario: <b>{{ scenario }}</b></span>
  <span class="meta">{{ status }}</span>
</header>
<main class="layout">
  <div class="left">
    <section class="card map" id="map">
      <h2>Map</h2>
      <div class="mapwrap">{{ svg }}</div>
      <div class="legend">
{% for label, swatch in legend %}
        <span class="item">{{ swatch }}{{ label }}</span>
{% endfor %}
      </div>
    </section>
  </div>
</main>
</body>
</html>
"""


def render_map_page(game_map: GameMap, *, game_title: str, scenario: str, status: str,
                    sides: Sequence[str], units: Sequence[MapUnit] = (),
                    markers: Sequence[MapMarker] = (),
                    marker_styles: dict[str, MarkerStyle] | None = None) -> str:
    """The page: header, the whole map (every sheet) with units and markers, the legend."""
    from pbem.reports.render import html_env

    title = f"{game_title}: scenario {scenario}"
    svg = render_svg(game_map, units, markers, title=title, marker_styles=marker_styles)
    legend = [(Markup(lab), Markup(sw)) for lab, sw in legend_items(game_map, sides=sides)]
    return html_env().from_string(_PAGE).render(
        title=title, game_title=game_title, scenario=scenario, status=status,
        svg=Markup(svg), legend=legend)  # every text inside svg and legend was escaped by svgmap
