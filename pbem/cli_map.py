"""`pbem map`: draw a scenario's whole map (every sheet) as an HTML page in the report style.

Attached to the main command group by the last lines of pbem/cli.py.
"""

from __future__ import annotations

from pathlib import Path

import click

from pbem.cli import clean_errors, cli, echo
from pbem.core.errors import PbemError


def _game(name: str):
    """A registered game; Baptism By Fire as its data (every scenario, playable or not)."""
    from pbem.core import registry

    if name.casefold() in ("bcs", "bbf", "baptism-by-fire"):
        from pbem.games.bcs.info import GAME
        return GAME
    return registry.find_game(name)


@cli.command("map")
@click.argument("game")
@click.argument("scenario")
@click.argument("out")
@clean_errors
def map_cmd(game: str, scenario: str, out: str) -> None:
    """Draw a scenario's whole map (every sheet), with its set-up where known, as HTML.

    GAME is a game id (bcs for Baptism By Fire draws every scenario of its data).
    Example: pbem map bcs 5.3 bbf-5.3.html
    """
    from pbem.protocol.archive import atomic_write
    from pbem.reports.mappage import render_map_page
    from pbem.reports.svgmap import game_marker_styles

    g = _game(game)
    titles = g.scenarios()
    if scenario not in titles:
        raise PbemError(f"{g.id}: unknown scenario {scenario!r} (have {', '.join(sorted(titles))})")
    gm = g.game_map(scenario)
    units = g.setup_units(scenario) if hasattr(g, "setup_units") else []
    markers = g.setup_markers(scenario) if hasattr(g, "setup_markers") else []
    styles = g.marker_styles() if hasattr(g, "marker_styles") else game_marker_styles(g.id)
    page = render_map_page(gm, game_title=g.title, scenario=scenario, status=titles[scenario],
                           sides=list(g.sides), units=units, markers=markers,
                           marker_styles=styles)
    atomic_write(Path(out), page, durable=False)
    echo(f"wrote {out}: {g.title}, scenario {scenario}, {len(gm.grid.all_hexes())} hexes")
