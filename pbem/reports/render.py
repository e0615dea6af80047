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
import math
import re
import textwrap
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import jinja2
from markupsafe import Markup

from pbem.core.game import Event
from pbem.core.mapdata import GameMap
from pbem.reports.context import IndexEntry, ReportContext
from pbem.reports.svgmap import (game_marker_styles, legend_items, render_svg, side_colour,
                                 text_colour_on)

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
TEXT_WIDTH = 100

_KIND_RE = re.compile(r"[^a-z0-9_-]+")


def _no_controls(text: object) -> str:
    s = str(text)
    if s.isascii() and s.isprintable():   # no ASCII character is Cf, Zl or Zp: nothing to do
        return s
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch
                   for ch in s)


def clean(text: object) -> str:
    """One line of untrusted text: control characters and line breaks become spaces, runs of
    white space one space."""
    return " ".join(_no_controls(text).split())


def css_kind(kind: str) -> str:
    """A kind name reduced to characters safe in a CSS class."""
    return _KIND_RE.sub("-", kind.lower()).strip("-")[:40] or "info"


_TOKEN_RE = re.compile(r"[A-Za-z0-9]+(?:\.[0-9]+)*")


def unnamed_hexes(event: Event) -> list[str]:
    """The hexes an event concerns that its text does not already name (the HTML report lists
    only these after the text, so a move's path is not written twice)."""
    named = set(_TOKEN_RE.findall(event.text))
    return [h for h in event.hexes if h not in named]


def wrap(text: object, width: int = TEXT_WIDTH, indent: str = "",
         subsequent: str | None = None) -> str:
    """Wrap one logical line of text to `width` columns with an indent and a hanging indent."""
    sub = indent if subsequent is None else subsequent
    s = _no_controls(text).rstrip()
    if s and len(indent) + len(s) <= width:
        # what textwrap gives a line that fits (no control character is left to replace, and
        # a first line keeps its leading blanks), without its chunking: most lines fit
        return indent + s
    lines = textwrap.wrap(s, width=width, initial_indent=indent, subsequent_indent=sub,
                          break_long_words=True, break_on_hyphens=False)
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


class _CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept in pbem's cache folder (pbem.core.cache), one entry per
    template name, environment settings, Jinja version and source checksum: Jinja itself
    recompiles when the template's source no longer matches the checksum in the entry."""

    def __init__(self, salt: str) -> None:
        self.salt = salt

    def _key(self, bucket: jinja2.bccache.Bucket) -> str:
        from pbem.core import cache

        return cache.key_of("jinja", self.salt, jinja2.__version__, bucket.key, bucket.checksum)

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Fill the bucket from an intact entry, if there is one."""
        from pbem.core import cache

        body = cache.load("jinja", self._key(bucket))
        if body is not None:
            bucket.bytecode_from_string(body)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Keep a freshly compiled template."""
        from pbem.core import cache

        cache.store("jinja", self._key(bucket), bucket.bytecode_to_string())


def _env(autoescape: bool) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_CompiledTemplates(f"autoescape={autoescape} trim lstrip keep-newline "
                                          "strict-undefined"),
    )
    env.filters["clean"] = clean
    env.filters["wrap"] = wrap
    env.filters["wrap_command"] = wrap_command
    env.filters["css_kind"] = css_kind
    env.filters["unnamed_hexes"] = unnamed_hexes
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


_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _varints(values: Iterable[int]) -> str:
    """Non-negative integers as base-64 digits of 5 bits each, least significant first; a
    digit of 32 or more says that another digit follows."""
    out = []
    for v in values:
        while v >= 32:
            out.append(_B64[32 + (v & 31)])
            v >>= 5
        out.append(_B64[v])
    return "".join(out)


def _runs(indexes: Iterable[int]) -> str:
    """A set of hex indexes as runs of consecutive indexes: for each run, the gap since the end
    of the run before (from 0 for the first) and its length, as varints."""
    nums: list[int] = []
    pos = 0
    start = end = -1
    for i in sorted(set(indexes)):
        if i == end:
            end += 1
            continue
        if end >= 0:
            nums += [start - pos, end - start]
            pos = end
        start, end = i, i + 1
    if end >= 0:
        nums += [start - pos, end - start]
    return _varints(nums)


def _cost_key(cost: str) -> tuple[float, str]:
    """Costs in numeric order where they are numbers, so that a step adds a small index."""
    try:
        value = float(cost)
    except ValueError:
        value = math.inf
    return (value if math.isfinite(value) else math.inf, cost)


def _expand(template: str, unit: str, hex_id: str) -> str:
    """An order template of the page's data with the unit id and hex put in (as the script
    does): "{u}" becomes the unit, then "{h}" the hex."""
    return hex_id.join(unit.join(template.split("{u}")).split("{h}"))


def _template(order: str, unit: str, hex_id: str) -> tuple[str, int]:
    """An order line as a template shared by units (1), or as itself (0) when the template
    would not give it back exactly."""
    t = order.replace(unit, "{u}") if unit else order
    t = t.replace(hex_id, "{h}") if hex_id else t
    return (t, 1) if _expand(t, unit, hex_id) == order else (order, 0)


def helper_data(ctx: ReportContext, map_hexes: Iterable[str]) -> dict[str, Any]:
    """The data the page's script reads: hexes to highlight per unit to place, and the move
    helper's reachable hexes (all precomputed by the game's rules; the page adds no rule).

    Hexes are numbered in "the hex order": the map's hex ids sorted (the script reads them from
    the drawing, ``.hex[data-hex]``), then the ids in "extra" (hexes of the data that are not on
    the map); "n" is the order's length. "place" lists the hexes allowed for each unit to
    place. "reach" has one entry per unit and kind of move: [unit, hex, label, allowance,
    order, at, to]. Order is an index into "orders", whose entries [text, separator of path
    hexes, 1 if "{u}" and "{h}" stand for unit and hex] are shared by units. At is the set
    of hexes the unit can reach, as runs of consecutive numbers (:func:`_runs`); "to" gives
    each of them, in order, a step: a varint index into "steps", whose entries [offset,
    delta, end] say where the hex before it on the cheapest path is (offset added to the
    hex's number; null for none), its cost (an index into "costs": the previous hex's plus
    delta, or delta itself when there is none) and whether a move may end there (1) or only
    pass (0). The most frequent steps come first and take one digit.
    """
    m = ctx.model
    on_map = set(map_hexes)
    used = {x.hex for r in m.reach for x in r.hexes}
    order = sorted(on_map) + sorted(used - on_map)
    num = {h: i for i, h in enumerate(order)}
    costs = sorted({x.cost for r in m.reach for x in r.hexes}, key=_cost_key)
    ci = {c: i for i, c in enumerate(costs)}
    counts: dict[tuple[int | None, int, int], int] = {}
    units = []
    for r in m.reach:
        to = {x.hex: x for x in r.hexes}
        if len(to) != len(r.hexes) or any(x.prev and x.prev not in to for x in r.hexes):
            raise ValueError(f"move helper data of {r.unit}: a hex twice, or a path through "
                             "a hex that is not listed")
        seq = []
        for h in sorted(to, key=num.__getitem__):
            x = to[h]
            key = ((num[x.prev] - num[h], ci[x.cost] - ci[to[x.prev].cost], int(x.end))
                   if x.prev else (None, ci[x.cost], int(x.end)))
            counts[key] = counts.get(key, 0) + 1
            seq.append(key)
        units.append((r, seq))
    steps = sorted(counts, key=lambda k: (-counts[k], k[0] is None, k[0] or 0, k[1], k[2]))
    digits = {k: _varints((i,)) for i, k in enumerate(steps)}   # each step's index, encoded once
    orders: dict[tuple[str, str, int], int] = {}
    reach = []
    for r, seq in units:
        t, flag = _template(r.order, r.unit, r.hex)
        o = orders.setdefault((t, r.sep, flag), len(orders))
        reach.append([r.unit, r.hex, r.label, r.allowance, o, _runs(num[x.hex] for x in r.hexes),
                      "".join([digits[k] for k in seq])])
    return {
        "side": m.side, "n": len(order), "extra": order[len(on_map):],
        "place": [{"unit": p.unit, "label": unit_name(p.name, p.unit), "hexes": list(p.hexes)}
                  for p in m.placements],
        "costs": costs, "steps": [list(k) for k in steps],
        "orders": [list(k) for k in orders], "reach": reach,
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
        "side_class": {s: f"s{i}" for i, s in enumerate(colours)},
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
    v["helper_json"] = script_json(helper_data(ctx, game_map.grid.all_hexes()))
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


def terrain_words(game_map: Any, hex_id: str) -> str:
    """What the map shows in a hex, in words ('rough', 'open; Tunis (town, port, supply
    base)'), for a text report that draws no map; '' for an unknown hex or without a map."""
    if game_map is None:
        return ""
    terrain = str(game_map.terrain.get(hex_id, ""))
    parts = [terrain.replace("_", " ")]
    for p in game_map.place_at.get(hex_id, []):
        # the kinds a player reads (a town, a port, a victory hex), not data tags
        kinds = ", ".join(k.replace("_", " ") for k in p.kinds
                          if k != terrain and not k.startswith("vp_"))
        parts.append(f"{p.name}{f' ({kinds})' if kinds else ''}")
    return "; ".join(x for x in parts if x)


def render_text(ctx: ReportContext, game_map: Any = None) -> str:
    """The plain-text report (an email body): the same facts as the HTML, units listed with
    the terrain of their hexes (game_map), no map."""
    words = {h: terrain_words(game_map, h) for h in {u.hex for u in ctx.model.units}}
    text = text_env().get_template("report.txt.j2").render(
        **_view(ctx), where=lambda h: words.get(h, ""), with_terrain=any(words.values()))
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
