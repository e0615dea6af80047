"""Render per-side reports: one self-contained HTML page (with an inline SVG map) and plain text.

Templates live in the repository's ``templates/`` folder. The HTML environment autoescapes
every value; the only markup inserted unescaped is the SVG map and legend built by
:mod:`pbem.reports.svgmap`, which escapes every text it draws. The text report is wrapped to
at most :data:`TEXT_WIDTH` columns (one column per character), so it survives any mail client.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import textwrap
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from pbem.core.mapdata import GameMap
from pbem.reports.context import IndexEntry, ReportContext
from pbem.reports.svgmap import (game_marker_styles, legend_items, render_svg, side_colour,
                                 text_colour_on)

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
TEXT_WIDTH = 100

_KIND_RE = re.compile(r"[^a-z0-9_-]+")


def _no_controls(text: object) -> str:
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch
                   for ch in str(text))


def clean(text: object) -> str:
    """One line of untrusted text: control characters and line breaks become spaces, runs of
    white space one space."""
    return " ".join(_no_controls(text).split())


def css_kind(kind: str) -> str:
    """A kind name reduced to characters safe in a CSS class."""
    return _KIND_RE.sub("-", kind.lower()).strip("-")[:40] or "info"


def wrap(text: object, width: int = TEXT_WIDTH, indent: str = "",
         subsequent: str | None = None) -> str:
    """Wrap one logical line of text to `width` columns with an indent and a hanging indent."""
    sub = indent if subsequent is None else subsequent
    lines = textwrap.wrap(_no_controls(text).rstrip(), width=width, initial_indent=indent,
                          subsequent_indent=sub, break_long_words=True, break_on_hyphens=False)
    return "\n".join(lines) if lines else indent.rstrip()


def wrap_command(cmd: object, width: int = TEXT_WIDTH, indent: str = "    ") -> str:
    """A command line, kept verbatim when it fits; else split at spaces with shell continuations."""
    c = clean(cmd)
    if len(indent) + len(c) <= width:
        return indent + c
    out: list[str] = []
    cur = ""
    room = width - len(indent) - 2  # leave space for " \\"
    for word in c.split(" "):
        while len(word) > room:  # a single over-long token: cut it (rare; keeps the width rule)
            if cur:
                out.append(cur)
                cur = ""
            out.append(word[:room])
            word = word[room:]
        if cur and len(cur) + 1 + len(word) > room:
            out.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    if cur:
        out.append(cur)
    first = indent
    cont = indent + "  "
    lines = []
    for i, part in enumerate(out):
        pre = first if i == 0 else cont
        lines.append(pre + part + (" \\" if i < len(out) - 1 else ""))
    return "\n".join(lines)


def _env(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["clean"] = clean
    env.filters["wrap"] = wrap
    env.filters["wrap_command"] = wrap_command
    env.filters["css_kind"] = css_kind
    env.globals["unit_name"] = unit_name
    return env


@lru_cache(maxsize=1)
def html_env() -> jinja2.Environment:
    """The autoescaping environment for HTML templates."""
    return _env(True)


@lru_cache(maxsize=1)
def text_env() -> jinja2.Environment:
    """The plain-text environment (no escaping; every value is cleaned and wrapped instead)."""
    return _env(False)


def _sides(ctx: ReportContext) -> list[str]:
    out: list[str] = [ctx.model.side]
    sides = [*ctx.fingerprints, *(d.side for d in ctx.pending), *(u.side for u in ctx.model.units)]
    for s in sides:
        if s not in out:
            out.append(s)
    return out


def unit_name(label: str, uid: str) -> str:
    """A unit as lists show it: its label, then the id orders use in brackets when different."""
    return f"{label} [{uid}]" if uid and uid != label else (label or uid)


_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _b36(n: int, width: int) -> str:
    """n in base 36, zero-padded to width digits."""
    out = ""
    for _ in range(width):
        n, d = divmod(n, 36)
        out = _B36[d] + out
    return out


def _width(count: int) -> int:
    """Base-36 digits needed to write the numbers 0..count."""
    w = 1
    while 36 ** w <= count:
        w += 1
    return w


def helper_data(ctx: ReportContext) -> dict[str, Any]:
    """The data the page's script reads: hexes to highlight per unit to place, and the move
    helper's reachable hexes (all precomputed by the game's rules; the page adds no rule).

    Reachable hexes are packed (a page may hold thousands): the page's hex ids and cost texts
    are listed once ("hexes", "costs"); each unit's "to" is a run of fixed-width base-36
    records: hex index, index of the hex before it (len(hexes) for none), cost index * 2 + 1
    if a move may end there; "w" and "wc" are the two widths.
    """
    m = ctx.model
    hexes = sorted({x.hex for r in m.reach for x in r.hexes} | {x.prev for r in m.reach
                                                                  for x in r.hexes if x.prev})
    costs = sorted({x.cost for r in m.reach for x in r.hexes})
    hi = {h: i for i, h in enumerate(hexes)}
    ci = {c: i for i, c in enumerate(costs)}
    w, wc = _width(len(hexes)), _width(2 * len(costs))
    none = len(hexes)
    return {
        "side": m.side,
        "place": [{"unit": p.unit, "label": unit_name(p.name, p.unit), "hexes": list(p.hexes),
                   "order": p.order} for p in m.placements],
        "hexes": hexes, "costs": costs, "w": w, "wc": wc,
        "reach": [{"unit": r.unit, "hex": r.hex, "label": r.label, "allowance": r.allowance,
                   "order": r.order, "sep": r.sep,
                   "to": "".join(_b36(hi[x.hex], w) + _b36(hi[x.prev] if x.prev else none, w)
                                 + _b36(2 * ci[x.cost] + (1 if x.end else 0), wc)
                                 for x in r.hexes)}
                  for r in m.reach],
    }


def script_json(data: Any) -> Markup:
    """JSON safe inside a <script> element: no '<', '>' or '&' appears literally."""
    text = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


def _view(ctx: ReportContext) -> dict[str, Any]:
    """The template variables shared by the HTML and the text report."""
    m = ctx.model
    own = [u for u in m.units if u.side == m.side and not u.masked]
    revealed = [u for u in m.units if u.side != m.side and not u.masked]
    masked = [u for u in m.units if u.masked]  # shown by side and hex only, whoever owns them
    own.sort(key=lambda u: (u.hex, u.label))
    revealed.sort(key=lambda u: (u.side, u.hex, u.label))
    masked.sort(key=lambda u: (u.side, u.hex))
    pending = [{"side": d.side, "kind": d.kind, "prompt": d.prompt, "mine": d.side == m.side,
                "detail": d.detail if d.side == m.side else "",
                "choices": list(d.choices) if d.side == m.side else []}
               for d in ctx.pending]
    colours = {s: side_colour(s, ctx.side_colours) for s in _sides(ctx)}
    return {
        "ctx": ctx,
        "m": m,
        "own_units": own,
        "revealed_units": revealed,
        "masked_units": masked,
        "pending": pending,
        "my_turn": any(p["mine"] for p in pending),
        "waiting_for": sorted({d.side for d in ctx.pending if d.side != m.side}),
        "colours": colours,
        "ink": {s: text_colour_on(c) for s, c in colours.items()},
        "width": TEXT_WIDTH,
        "placements": list(m.placements),
        "counter_legend": list(m.legend),
    }


def render_html(ctx: ReportContext, game_map: GameMap) -> str:
    """One self-contained HTML page: header, map, decisions, events, dice, panels, reply data."""
    v = _view(ctx)
    m = ctx.model
    svg = render_svg(game_map, m.units, m.markers, m.arrows, terrain_colours=ctx.terrain_colours,
                     side_colours=ctx.side_colours, own_side=m.side,
                     title=f"{m.game_title}: {m.turn_label}",
                     marker_styles=game_marker_styles(m.game))
    legend = legend_items(game_map, terrain_colours=ctx.terrain_colours,
                          side_colours=ctx.side_colours, sides=_sides(ctx))
    v["svg"] = Markup(svg)  # every text inside was escaped by svgmap
    v["legend"] = [(Markup(label), Markup(swatch)) for label, swatch in legend]
    v["helper_json"] = script_json(helper_data(ctx))
    code = "\n" + _script("movehelper.js")
    v["helper_js"] = Markup(code)
    v["script_hash"] = Markup(script_hash(code))  # base64 and quotes only
    return html_env().get_template("report.html.j2").render(**v)


def script_hash(code: str) -> str:
    """The Content-Security-Policy source allowing exactly this inline script."""
    digest = hashlib.sha256(code.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


@lru_cache(maxsize=4)
def _script(name: str) -> str:
    """A script from templates/, inlined so the page works offline as a single file."""
    text = (TEMPLATES / name).read_text(encoding="utf-8")
    if "</" in text:
        raise ValueError(f"templates/{name}: '</' would close the inline <script> element")
    return text


def render_text(ctx: ReportContext) -> str:
    """The plain-text report (an email body): the same facts as the HTML, units listed, no map."""
    text = text_env().get_template("report.txt.j2").render(**_view(ctx))
    lines = [ln.rstrip() for ln in text.splitlines()]
    # Collapse runs of blank lines left by optional sections; end with one newline.
    out: list[str] = []
    for ln in lines:
        if ln == "" and (not out or out[-1] == ""):
            continue
        out.append(ln)
    while out and out[-1] == "":
        out.pop()
    final: list[str] = []
    for ln in out:  # the width rule is a guarantee: hard-wrap anything a template let through
        if len(ln) <= TEXT_WIDTH:
            final.append(ln)
        else:
            lead = ln[:len(ln) - len(ln.lstrip())][:TEXT_WIDTH // 2]
            final.extend(textwrap.wrap(ln, width=TEXT_WIDTH, initial_indent="",
                                       subsequent_indent=lead + "  ", break_long_words=True,
                                       break_on_hyphens=False, drop_whitespace=True)
                         or [ln[:TEXT_WIDTH]])
    return "\n".join(final) + "\n"


_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def safe_href(href: str) -> str:
    """A relative link kept as is; anything with a scheme or a network path becomes '#'."""
    h = clean(href)
    if not h or _SCHEME_RE.match(h) or h.startswith(("//", "\\", "/\\")):
        return "#"
    return h


def render_index(entries: list[IndexEntry], title: str) -> str:
    """An HTML page linking a game's reports in sequence order."""
    rows = [{"seq": e.seq, "turn": e.turn, "label": e.label, "href": safe_href(e.href)}
            for e in sorted(entries, key=lambda e: e.seq)]
    return html_env().get_template("index.html.j2").render(title=title, entries=rows)
