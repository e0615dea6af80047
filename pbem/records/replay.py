"""The replay page: one self-contained HTML file that steps through every file of a game.

The page holds the map once (the static SVG of pbem.reports.svgmap) and, for every step and
every viewer it may show, the layer of units, markers and arrows that svgmap draws for that
step's report model, with the step's orders, events, dice, decisions and panels; identical
layers are stored once. The record's signed files are embedded too, and the page's own
verifier (templates/records/verifier.js, WebCrypto) checks them when it opens. No network:
no external script, style sheet, font or image.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from markupsafe import Markup

from pbem.core.errors import PbemError
from pbem.protocol.genesis import HOST
from pbem.records.source import FULL, Frame, Verified
from pbem.reports.render import TEMPLATES, clean, html_env
from pbem.reports.svgmap import legend_items, render_svg, side_colour, text_colour_on

_MARKER_DEFS = re.compile(r'<marker id="arrowhead-.*?</marker>', re.S)
_UNITS = '<g class="units">'
_NAMES = '<g class="placenames">'
_MARKERS = '<g class="markers">'
_ARROWS = '<g class="arrows"'
_BLOCK = '<g class="unit'          # every unit block svgmap draws starts so (no nested group)
_MARKER = '<g class="marker'       # every marker, too
_ARROW = '<g class="arrow"'        # and every arrow


def _children(group: str, head: str, child: str) -> list[str]:
    """The child elements of '<g ...>children</g>' that each start with child."""
    return [child + part for part in group[len(head):-len("</g>")].split(child)[1:]]


def _split(svg: str) -> tuple[list[str], list[str], str, list[str]]:
    """The parts of one svgmap drawing that change from step to step: the unit blocks, the
    markers, the arrowheads (<defs>) and the arrows."""
    u0, u1, m0, a0 = (svg.find(_UNITS), svg.find(_NAMES), svg.find(_MARKERS),
                      svg.find(_ARROWS))
    end = svg.rfind("<rect ")
    if min(u0, u1, m0, a0, end) < 0 or not u0 < u1 < m0 < a0 < end:
        raise PbemError("replay: the map drawing has an unexpected structure (svgmap changed?)")
    heads = "".join(_MARKER_DEFS.findall(svg[:u0]))
    group = svg[a0:end]
    head = group[:group.index(">") + 1]
    return (_children(svg[u0:u1], _UNITS, _BLOCK), _children(svg[m0:a0], _MARKERS, _MARKER),
            f"<defs>{heads}</defs>{head}" if heads else head, _children(group, head, _ARROW))


def static_map(game_map: Any, title: str) -> str:
    """The map with empty layers to fill: <g id="rp-units"> and <g id="rp-top">."""
    svg = render_svg(game_map, title=title)
    u0, u1, end = svg.find(_UNITS), svg.find(_NAMES), svg.rfind("<rect ")
    m0 = svg.find(_MARKERS)
    _split(svg)                     # the structure is the expected one
    return (svg[:u0] + '<g id="rp-units"></g>' + svg[u1:m0] + '<g id="rp-top"></g>'
            + svg[end:])


class _Pool:
    """Identical strings stored once; a step refers to them by index."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._index: dict[str, int] = {}

    def add(self, item: Any) -> int:
        key = item if isinstance(item, str) else json.dumps(item, sort_keys=True)
        i = self._index.get(key)
        if i is None:
            i = self._index[key] = len(self.items)
            self.items.append(item)
        return i


def _frame_data(fr: Frame, layer: list[Any], panels: list[int]) -> dict[str, Any]:
    return {"seq": fr.seq, "title": fr.title, "file": fr.file_name, "hash": fr.file_hash,
            "turn": fr.turn, "label": clean(fr.turn_label), "phase": clean(fr.phase),
            "orders": fr.orders, "count": fr.order_count, "message": fr.message,
            "skipped": fr.skipped, "notes": fr.notes, "layer": layer, "panels": panels,
            "events": [[e.text, e.kind, list(e.hexes), e.visible_to] for e in fr.events],
            "rolls": [[r.seq, r.action, r.index, r.sides, r.value, r.purpose, r.visible_to]
                      for r in fr.rolls],
            "pending": [[d.side, d.prompt] for d in fr.pending],
            "outcome": ([fr.outcome.winner, fr.outcome.reason] if fr.outcome else None)}


def _view_label(view: str) -> str:
    return "Both sides in full" if view == FULL else f"{view}'s view"


def _script_json(data: Any) -> Markup:
    """JSON safe inside a <script> element (no '<', '>' or '&' can close or open a tag)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _stats_section(v: Verified, view: str) -> dict[str, Any]:
    from pbem.records.stats import Stats, charts

    st = Stats()
    st.add_game(v, view)
    return {"view": view, "charts": [Markup(c) for c in charts(st)],
            "groups": [g.to_json() for g in st.sorted_groups()],
            "luck": [lk.to_json() for _, lk in sorted(st.luck.items())]}


def build_page(v: Verified, record_text: str, views: list[str] | None = None) -> str:
    """The replay page of a verified game for these viewers (default: every one allowed)."""
    views = list(dict.fromkeys(views or v.default_views()))
    for view in views:
        v.check_view(view)
    game = v.game
    p = v.genesis.p
    game_map = game.game_map(p.scenario)
    layers, panel_pool = _Pool(), _Pool()
    frames: dict[str, list[dict[str, Any]]] = {}
    for view in views:
        own = None if view == FULL else view
        out = []
        for fr in v.frames(view):
            svg = render_svg(game_map, fr.units, fr.markers, fr.arrows, own_side=own)
            blocks, marks, heads, arrows = _split(svg)
            layer = [[layers.add(b) for b in blocks], [layers.add(m) for m in marks],
                     layers.add(heads), [layers.add(a) for a in arrows]]
            panels = [panel_pool.add([side, clean(pn.title), [clean(x) for x in pn.lines]])
                      for side, pn in fr.panels]
            out.append(_frame_data(fr, layer, panels))
        frames[view] = out
    sides = list(game.sides)
    colours = {s: side_colour(s) for s in sides}
    data = {"views": [{"id": x, "label": _view_label(x)} for x in views],
            "frames": frames, "layers": layers.items, "panels": panel_pool.items,
            "colours": colours, "ink": {s: text_colour_on(c) for s, c in colours.items()}}
    title = f"{game.title}: {p.scenario}"
    legend = legend_items(game_map, sides=sides)
    env = html_env()
    return env.get_template("records/replay.html.j2").render(
        title=title, game=game, p=p, v=v, views=views, view_labels=_view_label,
        svg=Markup(static_map(game_map, title)),
        legend=[(Markup(a), Markup(b)) for a, b in legend],
        data=_script_json(data), record=_script_json(None if withheld(v) else record_text),
        stats=[_stats_section(v, view) for view in views],
        replay_js=Markup(_js("replay.js")), verifier_js=Markup(_js("verifier.js")),
        colours=colours)


def withheld(v: Verified) -> bool:
    """Whether a page of this game must not embed its record: a referee's archive of a game in
    progress, whose signed files carry every side's hidden units, while the page shows one
    side's view (check_view allows no other then)."""
    return v.party == HOST and not v.over


def _js(name: str) -> str:
    text = (TEMPLATES / "records" / name).read_text(encoding="utf-8")
    if "</script" in text.lower():
        raise PbemError(f"templates/records/{name}: must not contain '</script'")
    return text


def record_text_of(v: Verified) -> str:
    """The record text of a verified archive folder (what a replay of a folder embeds)."""
    from pbem.records.record import archive_entries, render

    return render(v.party, v.result, archive_entries(v.root), v.genesis)


def write_replay(source: str | Path, out: str | Path, views: list[str] | None = None) -> Any:
    """Build the replay page of a record file or an archive folder and write it to out."""
    from pbem.records.record import outside_archives, read_record_text, write_shared
    from pbem.records.source import open_game

    src = Path(source)
    outside_archives(out)
    v = open_game(src)
    text = record_text_of(v) if src.is_dir() else read_record_text(src)
    page = build_page(v, text, views)
    write_shared(out, page, durable=False)
    return v, len(page)
