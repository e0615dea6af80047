"""Draw a game map as inline SVG: terrain, hexside features, roads, places, units and markers.

Works for any game: it reads a :class:`pbem.core.mapdata.GameMap` and the map items of a
:class:`pbem.core.game.ReportModel` (``MapUnit``, ``MapMarker``, ``MapArrow``). Every text that
comes from a scenario file or a player (place names, unit labels, marker labels, terrain
kinds) is escaped here, so the returned markup can be inserted into an HTML page as is.

Drawing conventions (see docs/reports.md):

- hexes are filled with a printed-map colour per terrain kind, with a light texture for
  broken terrain; unknown kinds get a stable muted colour derived from their name;
- hexside features are drawn on the shared edge: rivers blue, escarpments as a dark line
  with teeth pointing from the first hex of the pair in the map file toward the second;
- roads run between hex centres (red), trails dotted, railways black with ties;
- column numbers run along the top edge, row numbers along the left edge, and every hex
  carries its id near its top, as on printed maps;
- units are square blocks in their side's colour; masked units are plain blocks that show
  nothing but their side (any label a masked unit carries is ignored on purpose).
"""

from __future__ import annotations

import math
import re
import sys
import weakref
from typing import Iterable, Sequence

from pbem.core.game import MapArrow, MapMarker, MapUnit, MarkerStyle
from pbem.core.mapdata import GameMap

# Drawn map layers per GameMap (maps are loaded once per scenario and never change).
_STATIC_CACHE: "weakref.WeakKeyDictionary[GameMap, dict]" = weakref.WeakKeyDictionary()

DEFAULT_HEX_SIZE = 44.0
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

# Printed-map palette. Keys are normalised kind names (lower case, '-' and ' ' -> '_').
TERRAIN_COLOURS: dict[str, str] = {
    "open": "#f1e6c6",
    "clear": "#f1e6c6",
    "desert": "#f3e4bd",
    "sand": "#f3e4bd",
    "plain": "#eee3bf",
    "rough": "#d9b47a",
    "broken": "#d9b47a",
    "hills": "#d6b06e",
    "hill": "#d6b06e",
    "mountain": "#a9784a",
    "mountains": "#a9784a",
    "jebel": "#a9784a",
    "sea": "#8fbfdc",
    "water": "#8fbfdc",
    "lake": "#9cc8e2",
    "salt_marsh": "#b8b0c9",
    "chott": "#b8b0c9",
    "marsh": "#a9bfae",
    "swamp": "#a9bfae",
    "woods": "#a8c184",
    "forest": "#93b174",
    "olive_grove": "#c9d39a",
    "oasis": "#b7d596",
    "farmland": "#dfe3a6",
    "city": "#d8c7ad",
    "town": "#e3d3b4",
    "village": "#e8dcc0",
    "gray": "#a7a7a7",
    "grey": "#a7a7a7",
    "prohibited": "#a7a7a7",
    "impassable": "#9a9a9a",
}

# Side colours by common side id; other sides get a colour from _FALLBACK_SIDES.
SIDE_COLOURS: dict[str, str] = {
    "allied": "#5f6f2a",
    "allies": "#5f6f2a",
    "us": "#5f6f2a",
    "american": "#5f6f2a",
    "british": "#b08a4a",
    "commonwealth": "#b08a4a",
    "french": "#3f5f9f",
    "axis": "#4e5968",
    "german": "#4e5968",
    "germany": "#4e5968",
    "italian": "#6b8a5a",
    "italy": "#6b8a5a",
}
_FALLBACK_SIDES = ("#7a3b3b", "#3b5f7a", "#6a4f86", "#8a6a2a", "#2f6f62", "#7a4f2f")
_GRID = "#958c77"   # the grid line: #6d6555 at 70% over open ground, as one opaque colour
_FALLBACK_TERRAIN = ("#d8cfb0", "#c9d6b5", "#d6c2b8", "#c4cdd8", "#d9d2a4", "#cbbfd6")

_COLOUR_RE = re.compile(
    r"^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,30}|rgba?\([0-9.,%\s]{1,60}\)|hsla?\([0-9.,%\sdeg]{1,60}\))$")


def esc(text: object) -> str:
    """Escape any text for use in SVG/HTML element content or a quoted attribute.

    The replacements of html.escape(text, quote=True), in its order (the html package is
    not imported: its entity table costs a command about 1 ms to load)."""
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#x27;"))


def norm_kind(kind: str) -> str:
    """Normalise a kind name for palette lookups: lower case, spaces and dashes to '_'."""
    return re.sub(r"[\s\-]+", "_", kind.strip().lower())


def _stable_index(text: str, n: int) -> int:
    # A hash that does not change between runs (str hash is salted per process).
    h = 0
    for ch in text:
        h = (h * 131 + ord(ch)) % 1_000_003
    return h % n


def safe_colour(value: str | None, fallback: str) -> str:
    """Return value if it is a plain CSS colour, else fallback (no CSS or markup injection)."""
    if value and _COLOUR_RE.match(value.strip()):
        return value.strip()
    return fallback


def terrain_colour(kind: str, overrides: dict[str, str] | None = None) -> str:
    """The fill colour of a terrain kind (overrides first, then the palette, then derived)."""
    n = norm_kind(kind)
    derived = TERRAIN_COLOURS.get(n) or _FALLBACK_TERRAIN[_stable_index(n, len(_FALLBACK_TERRAIN))]
    if overrides:
        for key in (kind, n):
            if key in overrides:
                return safe_colour(overrides[key], derived)
    return derived


def side_colour(side: str, overrides: dict[str, str] | None = None) -> str:
    """The block colour of a side (overrides first, then the palette, then derived)."""
    n = norm_kind(side)
    derived = SIDE_COLOURS.get(n) or _FALLBACK_SIDES[_stable_index(n, len(_FALLBACK_SIDES))]
    if overrides and side in overrides:
        return safe_colour(overrides[side], derived)
    return derived


def text_colour_on(fill: str) -> str:
    """Black or white, whichever reads better on a fill colour (white if unknown)."""
    m = re.match(r"^#([0-9a-fA-F]{6})$", fill) or re.match(r"^#([0-9a-fA-F]{3})$", fill)
    if not m:
        return "#ffffff"
    h = m.group(1)
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    r, g, b = (int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))
    lum = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#1a1a1a" if lum > 0.55 else "#ffffff"


def _f(v: float) -> str:
    s = f"{v:.1f}"
    return "0" if s in ("-0.0", "0.0") else (s[:-2] if s.endswith(".0") else s)


def _i(v: float) -> str:
    """A coordinate rounded to a whole pixel (text positions: half a pixel is invisible)."""
    return str(int(round(v)))


def _pts(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in points)


def _rel_path(points: Sequence[tuple[float, float]]) -> str:
    """Path data through the points: the first absolute, then steps (rounded without drift)."""
    r = [(round(x, 1), round(y, 1)) for x, y in points]
    steps = " ".join(f"{_f(x - px)},{_f(y - py)}" for (px, py), (x, y) in zip(r, r[1:]))
    return f"M{_f(r[0][0])},{_f(r[0][1])}l{steps}"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:max(1, limit - 1)] + "\u2026"


class _Geometry:
    """Pixel positions for one map at one hex size, with the margins for edge labels."""

    def __init__(self, game_map: GameMap, size: float) -> None:
        self.g = game_map.grid
        self.s = size
        self.h = math.sqrt(3) * size
        self.left = size * 1.0     # room for row numbers
        self.top = size * 0.75     # room for column numbers
        if hasattr(self.g, "sheets"):          # a map of several lettered sheets
            self.map_w, self.map_h = self.g.extent(size)
        else:
            cols = self.g.last_col - self.g.first_col + 1
            rows = self.g.last_row - self.g.first_row + 1
            self.map_w = (cols * 1.5 + 0.5) * size
            self.map_h = (rows + 0.5) * self.h
        self.width = self.left + self.map_w + size * 0.4
        self.height = self.top + self.map_h + size * 0.4

    def center(self, hex_id: str) -> tuple[float, float]:
        x, y = self.g.center(hex_id, self.s)
        return x + self.left, y + self.top

    def corners(self, hex_id: str, scale: float = 1.0) -> list[tuple[float, float]]:
        cx, cy = self.center(hex_id)
        r = self.s * scale
        return [(cx + r * math.cos(math.radians(60 * k)), cy + r * math.sin(math.radians(60 * k)))
                for k in range(6)]

    def edge(self, a: str, b: str) -> tuple[tuple[float, float], tuple[float, float]]:
        """The two end points of the hexside shared by adjacent hexes a and b."""
        (ax, ay), (bx, by) = self.center(a), self.center(b)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        dx, dy = bx - ax, by - ay
        d = math.hypot(dx, dy) or 1.0
        px, py = -dy / d, dx / d
        half = self.s / 2
        return (mx + px * half, my + py * half), (mx - px * half, my - py * half)


# -- terrain textures --------------------------------------------------------------------------

def _patterns(size: float) -> dict[str, str]:
    """Pattern elements by terrain kind (each hex of a textured kind repeats the same tile)."""
    s = size

    def v(k: float) -> str:
        return _f(s * k)

    def pat(name: str, w: float, h: float, body: str, extra: str = "") -> str:
        return (f'<pattern id="pat-{name}" width="{v(w)}" height="{v(h)}" '
                f'patternUnits="userSpaceOnUse"{extra}>{body}</pattern>')

    def ink(colour: str, width: float, opacity: float) -> str:
        return f'fill="none" stroke="{colour}" stroke-width="{v(width)}" opacity="{opacity}"'

    arc = f"q{v(.08)},-{v(.1)} {v(.16)},0"
    peak = f"l{v(.14)},-{v(.2)} l{v(.14)},{v(.2)}"
    tree = 'r="{r}" fill="#6f9450" opacity="0.7"'.format(r=v(.09))
    return {
        "rough": pat("rough", .9, .9, f'<path d="M{v(.1)},{v(.3)} {arc} M{v(.5)},{v(.7)} {arc}" '
                                      f'{ink("#8a6a3a", .035, .7)}/>'),
        "mountain": pat("mountain", .9, .9, f'<path d="M{v(.08)},{v(.4)} {peak} '
                                            f'M{v(.48)},{v(.82)} {peak}" '
                                            f'{ink("#5e3e1e", .04, .75)}/>'),
        "salt_marsh": pat("salt_marsh", .9, .5, f'<path d="M{v(.1)},{v(.2)} h{v(.25)} '
                                                f'M{v(.5)},{v(.42)} h{v(.25)}" '
                                                f'{ink("#6e6690", .035, .8)}/>'),
        "marsh": pat("marsh", .9, .5, f'<path d="M{v(.1)},{v(.25)} h{v(.25)} M{v(.2)},{v(.25)} '
                                      f'v-{v(.1)} M{v(.5)},{v(.45)} h{v(.25)} M{v(.6)},{v(.45)} '
                                      f'v-{v(.1)}" {ink("#4f7a5a", .035, .8)}/>'),
        "woods": pat("woods", .9, .9, f'<circle cx="{v(.22)}" cy="{v(.25)}" {tree}/>'
                                      f'<circle cx="{v(.65)}" cy="{v(.68)}" {tree}/>'),
        "sea": pat("sea", 1.2, .6, f'<path d="M{v(.1)},{v(.3)} q{v(.12)},-{v(.1)} {v(.24)},0 '
                                   f't{v(.24)},0" {ink("#5f97bd", .03, .6)}/>'),
        "gray": pat("gray", .35, .35, f'<path d="M0,0 v{v(.35)}" stroke="#7c7c7c" '
                                      f'stroke-width="{v(.04)}"/>',
                    ' patternTransform="rotate(45)"'),
    }


_PATTERN_ALIASES = {
    "broken": "rough", "hills": "rough", "hill": "rough",
    "mountains": "mountain", "jebel": "mountain",
    "chott": "salt_marsh", "swamp": "marsh", "forest": "woods",
    "water": "sea", "lake": "sea",
    "grey": "gray", "prohibited": "gray", "impassable": "gray",
}


_GRAY_SETS = {"gray", "grey", "gray_hexes", "grey_hexes", "prohibited"}


def _pattern_for(kind: str) -> str | None:
    n = norm_kind(kind)
    n = _PATTERN_ALIASES.get(n, n)
    return n if n in ("rough", "mountain", "salt_marsh", "marsh", "woods", "sea", "gray") else None


# -- hexside and road styles -------------------------------------------------------------------

def _line_hexside(kind: str, s: float) -> tuple[str, str] | None:
    """(class, stroke attributes) of a hexside drawn as one styled line, else None."""
    n = norm_kind(kind)
    if n in ("river", "wadi_river", "stream", "lake", "lake_side", "lakeside"):
        w = s * (0.16 if n.startswith("lake") else 0.12)
        return "hs-river", f'stroke="#2f6fb0" stroke-width="{_f(w)}" stroke-linecap="round"'
    if n in ("wadi", "gully"):
        return "hs-wadi", (f'stroke="#8a6a3a" stroke-width="{_f(s*0.07)}" '
                           f'stroke-dasharray="{_f(s*0.18)} {_f(s*0.08)}" stroke-linecap="round"')
    if n in ("red_line", "redline", "border", "boundary"):
        return "hs-red_line", (f'stroke="#d01c1c" stroke-width="{_f(s*0.09)}" '
                               f'stroke-dasharray="{_f(s*0.2)} {_f(s*0.1)}" stroke-linecap="butt"')
    if n in ("ditch", "anti_tank_ditch", "antitank_ditch"):
        return "hs-ditch", (f'stroke="#3b3b3b" stroke-width="{_f(s*0.08)}" '
                            f'stroke-dasharray="{_f(s*0.06)} {_f(s*0.06)}"')
    if n in ("bridge", "escarpment", "cliff", "ridge", "mareth", "mareth_line", "fortification",
             "fortified_line", "fort_line", "minefield", "mines", "mine"):
        return None
    return "hs-other", (f'stroke="#7b3f9e" stroke-width="{_f(s*0.08)}" '
                        f'stroke-dasharray="{_f(s*0.12)} {_f(s*0.06)}"')


def _hexside_svg(kind: str, p: tuple[float, float], q: tuple[float, float],
                 toward: tuple[float, float], s: float, styled: bool = True) -> str:
    """Markup for one hexside feature on the edge p-q; `toward` is the second hex's centre.

    With ``styled`` false a feature drawn as one line carries no stroke attributes: the map
    draws each kind's lines in one group that holds them (``_line_hexside``).
    """
    n = norm_kind(kind)
    (x1, y1), (x2, y2) = p, q
    line = f'x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}"'
    title = f"<title>{esc(kind)}</title>"
    simple = _line_hexside(kind, s)
    if simple is not None:
        cls, attrs = simple
        return f'<line class="hs {cls}" {line}{" " + attrs if styled else ""}>{title}</line>'
    if n == "bridge":
        # The river line (bridges sit on rivers) with two short dark bars across it.
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        tx, ty = toward
        dx, dy = tx - mx, ty - my
        d = math.hypot(dx, dy) or 1.0
        ux, uy = dx / d * s * 0.16, dy / d * s * 0.16
        ex, ey = (x2 - x1) / s * s * 0.09, (y2 - y1) / s * s * 0.09
        bars = "".join(
            f'<line x1="{_f(mx + sx * ex - ux)}" y1="{_f(my + sx * ey - uy)}" '
            f'x2="{_f(mx + sx * ex + ux)}" y2="{_f(my + sx * ey + uy)}" stroke="#3a2a1a" '
            f'stroke-width="{_f(s*0.05)}" stroke-linecap="round"/>' for sx in (-1, 1))
        return (f'<g class="hs hs-bridge">{title}<line {line} stroke="#2f6fb0" '
                f'stroke-width="{_f(s*0.12)}" stroke-linecap="round"/>{bars}</g>')
    if n in ("escarpment", "cliff", "ridge"):
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        tx, ty = toward
        dx, dy = tx - mx, ty - my
        d = math.hypot(dx, dy) or 1.0
        nx, ny = dx / d, dy / d
        teeth = []
        k = 5
        for i in range(k):
            a = (i + 0.2) / k
            b = (i + 0.8) / k
            c = (i + 0.5) / k
            ax_, ay_ = x1 + (x2 - x1) * a, y1 + (y2 - y1) * a
            bx_, by_ = x1 + (x2 - x1) * b, y1 + (y2 - y1) * b
            cx_, cy_ = x1 + (x2 - x1) * c + nx * s * 0.16, y1 + (y2 - y1) * c + ny * s * 0.16
            teeth.append(_pts([(ax_, ay_), (cx_, cy_), (bx_, by_)]))
        poly = "".join(f'<polygon points="{t}"/>' for t in teeth)
        return (f'<g class="hs hs-escarpment" fill="#4a2f1a">{title}<line {line} stroke="#4a2f1a" '
                f'stroke-width="{_f(s*0.1)}" stroke-linecap="round"/>{poly}</g>')
    if n in ("mareth", "mareth_line", "fortification", "fortified_line", "fort_line"):
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        tx, ty = toward
        dx, dy = tx - mx, ty - my
        d = math.hypot(dx, dy) or 1.0
        nx, ny = dx / d, dy / d
        ticks = []
        for i in range(4):
            c = (i + 0.5) / 4
            px_, py_ = x1 + (x2 - x1) * c, y1 + (y2 - y1) * c
            ticks.append(f'<line x1="{_f(px_)}" y1="{_f(py_)}" x2="{_f(px_ - nx * s * 0.15)}" '
                         f'y2="{_f(py_ - ny * s * 0.15)}"/>')
        return (f'<g class="hs hs-mareth" stroke="#111111" stroke-width="{_f(s*0.07)}">{title}'
                f'<line {line} stroke-width="{_f(s*0.1)}" stroke-linecap="square"/>'
                f'{"".join(ticks)}</g>')
    if n in ("minefield", "mines", "mine"):
        dots = []
        for i in range(4):
            c = (i + 0.5) / 4
            px_, py_ = x1 + (x2 - x1) * c, y1 + (y2 - y1) * c
            r = s * 0.06
            dots.append(f'<path d="M{_f(px_-r)},{_f(py_-r)} l{_f(2*r)},{_f(2*r)} '
                        f'M{_f(px_-r)},{_f(py_+r)} l{_f(2*r)},-{_f(2*r)}"/>')
        return (f'<g class="hs hs-minefield" stroke="#8b0000" stroke-width="{_f(s*0.04)}">{title}'
                f'{"".join(dots)}</g>')
    return ""


def _road_style(kind: str, s: float) -> list[str]:
    """Stroke attribute sets (drawn in order) for one road kind."""
    n = norm_kind(kind)
    if n in ("trail", "track", "path"):
        return [f'stroke="#8b2a1a" stroke-width="{_f(s*0.07)}" stroke-dasharray="{_f(s*0.02)} '
                f'{_f(s*0.12)}" stroke-linecap="round"']
    if n in ("rr", "railroad", "railway", "rail"):
        return [f'stroke="#222222" stroke-width="{_f(s*0.06)}"',
                f'stroke="#222222" stroke-width="{_f(s*0.2)}" stroke-dasharray="{_f(s*0.03)} '
                f'{_f(s*0.16)}"']
    if n in ("primary", "primary_road", "highway", "main_road"):
        return [f'stroke="#7a0f0f" stroke-width="{_f(s*0.2)}" stroke-linecap="round"',
                f'stroke="#e03a2a" stroke-width="{_f(s*0.12)}" stroke-linecap="round"']
    if n in ("secondary", "secondary_road", "minor_road"):
        return [f'stroke="#d5452f" stroke-width="{_f(s*0.08)}" stroke-linecap="round"']
    return [f'stroke="#c8281e" stroke-width="{_f(s*0.11)}" stroke-linecap="round"']


def _road_order(kind: str) -> int:
    n = norm_kind(kind)
    if n in ("trail", "track", "path"):
        return 0
    if n in ("rr", "railroad", "railway", "rail"):
        return 1
    return 2


# -- units and markers ---------------------------------------------------------------------------

# NATO symbols in a box 52 x 30 (a block of side 100), drawn in the ink of the block;
# the map holds each once (<symbol>) and every block refers to it.
_NATO_BODY = {
    "inf": '<path d="M0,0 52,30M0,30 52,0"/>',
    "arm": '<rect x="9.4" y="6.6" width="33.3" height="16.8" rx="8.4"/>',
    "mech": '<path d="M0,0 52,30M0,30 52,0"/><rect x="9.4" y="6.6" width="33.3" height="16.8" '
            'rx="8.4"/>',
    "recon": '<path d="M0,30 52,0"/>',
    "art": '<circle cx="26" cy="15" r="6" fill="currentColor" stroke="none"/>',
    "at": '<path d="M0,30 26,0 52,30"/>',
    "eng": '<path d="M13,21v-10.5h26v10.5M26,10.5v10.5"/>',
    "hq": '<path d="M0,15H52"/>',
}
_NATO_KINDS = {
    **dict.fromkeys(("infantry", "inf", "foot", "para", "parachute", "airborne"), "inf"),
    **dict.fromkeys(("armor", "armour", "tank", "panzer", "armored", "armoured"), "arm"),
    **dict.fromkeys(("mechanized", "mechanised", "mech", "panzergrenadier", "motorized",
                     "motorised", "armored_infantry"), "mech"),
    **dict.fromkeys(("recon", "reconnaissance", "cavalry", "recce"), "recon"),
    **dict.fromkeys(("artillery", "arty", "gun", "guns"), "art"),
    **dict.fromkeys(("antitank", "anti_tank", "at", "tank_destroyer"), "at"),
    **dict.fromkeys(("engineer", "engineers", "pioneer"), "eng"),
    **dict.fromkeys(("hq", "headquarters", "leader", "command"), "hq"),
}


def _unit_defs() -> str:
    """The block and NATO symbols every unit refers to (drawn once per map)."""
    out = ['<symbol id="mb" viewBox="0 0 100 100" overflow="visible">'
           '<rect x="6" y="7" width="100" height="100" rx="10" fill="#000000" opacity="0.35"/>'
           '<rect width="100" height="100" rx="10" stroke="#1b1b1b" stroke-width="3.5"/>'
           '</symbol>',
           '<symbol id="mbm" viewBox="0 0 100 100" overflow="visible">'
           '<rect x="6" y="7" width="100" height="100" rx="10" fill="#000000" opacity="0.35"/>'
           '<rect width="100" height="100" rx="10" stroke="#1b1b1b" stroke-width="3.5"/>'
           '<rect x="12" y="12" width="76" height="76" rx="6" fill="none" stroke-opacity="0.35" '
           'stroke-width="3"/></symbol>']
    for key, body in _NATO_BODY.items():
        out.append(f'<symbol id="mn-{key}" viewBox="0 0 52 30" overflow="visible" fill="none" '
                   f'stroke="currentColor" stroke-width="2.4"><rect width="52" height="30" '
                   f'stroke-width="2.7"/>{body}</symbol>'
                   f'<symbol id="mb-{key}" viewBox="0 0 100 100" overflow="visible">'
                   f'<use href="#mb" width="100" height="100"/>'
                   f'<use href="#mn-{key}" x="24" y="10" width="52" height="30"/></symbol>')
    return "".join(out)


def _block(unit: MapUnit, cx: float, cy: float, b: float, fill: str, own: bool) -> str:
    """One unit block of side b centred at (cx, cy)."""
    x, y = cx - b / 2, cy - b / 2
    ink = text_colour_on(fill)
    side_txt = esc(unit.side)
    box = f'x="{_f(x)}" y="{_f(y)}" width="{_f(b)}" height="{_f(b)}" fill="{fill}"'
    if unit.masked:
        # Nothing but the side: the label, values, kind and note of a masked unit are ignored.
        return (f'<g class="unit masked" data-hex="{esc(unit.hex)}" data-side="{side_txt}">'
                f'<title>{side_txt} block (hidden) in {esc(unit.hex)}</title>'
                f'<use href="#mbm" {box} stroke="{ink}"/></g>')
    label = _short(unit.label, 12)
    values = _short(unit.values, 12)
    tip = " ".join(p for p in (unit.label, f"[{unit.id}]" if unit.id and unit.id != unit.label
                               else "", unit.values, f"({unit.kind})" if unit.kind else "",
                               f"in {unit.hex}", f"- {unit.note}" if unit.note else "") if p)
    data_unit = f' data-unit="{esc(unit.id)}"' if unit.id else ""
    parts = [f'<g class="unit{" own" if own else " enemy"}" data-hex="{esc(unit.hex)}" '
             f'data-side="{side_txt}"{data_unit} fill="{ink}">'
             f'<title>{esc(tip)}</title>']
    # the block with its NATO symbol in the ink of the block (no symbol on small blocks)
    sym = _NATO_KINDS.get(norm_kind(unit.kind)) if b >= 22 else None
    parts.append(f'<use href="#mb-{sym}" {box} color="{ink}"/>' if sym else
                 f'<use href="#mb" {box}/>')
    label_y = cy + (b * 0.14 if sym else -b * 0.02)
    values_y = cy + (b * 0.4 if sym else b * 0.3)
    if not values:
        label_y = cy + (b * 0.27 if sym else b * 0.1)
    fs_label = min(b * 0.26, 1.55 * b * 0.92 / max(len(label), 1))
    fs_values = min(b * 0.24, 1.55 * b * 0.92 / max(len(values), 1))
    if label:
        parts.append(f'<text class="ub" x="{_f(cx)}" y="{_f(label_y)}" '
                     f'font-size="{_f(fs_label)}">{esc(label)}</text>')
    if values and b >= 16:
        parts.append(f'<text x="{_f(cx)}" y="{_f(values_y)}" font-size="{_f(fs_values)}">'
                     f'{esc(values)}</text>')
    if unit.note:
        parts.append(f'<circle cx="{_f(x + b - b*0.08)}" cy="{_f(y + b*0.08)}" r="{_f(b*0.1)}" '
                     f'fill="#e0b000" stroke="#1b1b1b" stroke-width="0.6"/>')
    parts.append("</g>")
    return "".join(parts)


def _stack_layout(n: int, s: float) -> tuple[float, list[tuple[float, float]]]:
    """Block size and offsets from the hex centre for a stack of n blocks."""
    if n <= 1:
        return s * 0.92, [(0.0, 0.0)]
    cols = 2 if n <= 4 else 3
    rows = math.ceil(n / cols)
    area_w, area_h = s * (1.6 if cols == 2 else 1.4), s * 1.1
    b = min(area_w / cols, area_h / rows) * 0.94
    out = []
    for i in range(n):
        r, c = divmod(i, cols)
        in_row = min(cols, n - r * cols)
        ox = (c - (in_row - 1) / 2) * (b / 0.94)
        oy = (r - (rows - 1) / 2) * (b / 0.94)
        out.append((ox, oy))
    return b, out


def _burst(cx: float, cy: float, r: float, points: int = 10) -> str:
    pts = []
    for i in range(points * 2):
        rr = r if i % 2 == 0 else r * 0.55
        a = math.pi * i / points - math.pi / 2
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return _pts(pts)


def _star(cx: float, cy: float, r: float) -> str:
    pts = []
    for i in range(10):
        rr = r if i % 2 == 0 else r * 0.42
        a = math.pi * i / 5 - math.pi / 2
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return _pts(pts)


# Built-in marker styles, used for a game that declares none and for kinds a game lacks.
# Keys are normalised kind names.
_COMBAT = MarkerStyle(shape="burst", fill="#e02020", stroke="#6b0000", accent="#ffd23f",
                      show_label=False, css="combat")
_OBJECTIVE = MarkerStyle(shape="star", fill="#f2c21b", stroke="#7a5a00", css="objective")
_FACEDOWN = MarkerStyle(shape="square", fill="#4a4a4a", stroke="#111", accent="#ffffff",
                        symbol="?", css="support")
_SUPPORT = MarkerStyle(shape="square", fill="#4a4a4a", stroke="#111", accent="#ffffff",
                       symbol_if_unlabelled="?", css="support")
_OOS = MarkerStyle(shape="no_entry", fill="#ffffff", stroke="#c01010", css="oos")
OTHER_MARKER = MarkerStyle(shape="circle", fill="#2b2b6b", stroke="#ffffff", css="other")
DEFAULT_MARKER_STYLES: dict[str, MarkerStyle] = {
    **{k: _COMBAT for k in ("combat", "battle", "attack", "assault", "shock")},
    **{k: _OBJECTIVE for k in ("objective", "victory", "vp", "victory_hex", "key_terrain")},
    **{k: _SUPPORT for k in ("support", "support_fire", "barrage", "air")},
    **{k: _FACEDOWN for k in ("facedown", "face_down", "hidden")},
    **{k: _OOS for k in ("out_of_supply", "oos", "no_supply", "isolated")},
}


def game_marker_styles(game_id: str) -> dict[str, MarkerStyle]:
    """The marker styles a registered game declares (its ``marker_styles()``), else {}."""
    from pbem.core import registry

    try:
        game = registry.find_game(game_id)
    except Exception:  # noqa: BLE001 (an unknown game draws with the built-in styles)
        return {}
    fn = getattr(game, "marker_styles", None)
    return dict(fn()) if callable(fn) else {}


def marker_style(kind: str, styles: dict[str, MarkerStyle] | None = None) -> MarkerStyle:
    """The style of a marker kind: the game's declaration first, then the built-in styles."""
    n = norm_kind(kind)
    for table in (styles or {}, DEFAULT_MARKER_STYLES):
        for key in (kind, n):
            if key in table:
                return table[key]
        for key, st in table.items():
            if norm_kind(key) == n:
                return st
    return OTHER_MARKER


def _marker_svg(m: MapMarker, cx: float, cy: float, s: float,
                styles: dict[str, MarkerStyle] | None = None) -> str:
    st = marker_style(m.kind, styles)
    label = _short(m.label, 14)
    tip = esc(f"{m.kind}: {m.label} in {m.hex}" if m.label else f"{m.kind} in {m.hex}")
    tag = ""
    if label and st.show_label:
        tag = (f'<text x="{_f(cx)}" y="{_f(cy + s*0.36)}" font-size="{_f(s*0.2)}" '
               f'font-weight="bold" fill="#1a1a1a" text-anchor="middle" class="halo">'
               f'{esc(label)}</text>')
    fill = safe_colour(st.fill, "#2b2b6b")
    stroke = safe_colour(st.stroke, "#111111")
    head = f'<g class="marker {esc(st.css)}" data-hex="{esc(m.hex)}"><title>{tip}</title>'
    if st.shape == "burst":
        accent = safe_colour(st.accent, "#ffd23f")
        return (f'{head}<polygon points="{_burst(cx, cy, s*0.3)}" fill="{fill}" stroke="{stroke}" '
                f'stroke-width="{_f(s*0.03)}" opacity="0.95"/>'
                f'<polygon points="{_burst(cx, cy, s*0.15, 8)}" fill="{accent}"/>{tag}</g>')
    if st.shape == "star":
        return (f'{head}<polygon points="{_star(cx, cy, s*0.24)}" fill="{fill}" stroke="{stroke}" '
                f'stroke-width="{_f(s*0.03)}"/>{tag}</g>')
    if st.shape == "square":
        w = s * 0.42
        txt = st.symbol or (st.symbol_if_unlabelled if not label else "")
        accent = safe_colour(st.accent, "#ffffff")
        inner = (f'<text x="{_f(cx)}" y="{_f(cy + s*0.08)}" font-size="{_f(s*0.25)}" '
                 f'font-weight="bold" fill="{accent}" text-anchor="middle">{esc(txt)}</text>'
                 if txt else "")
        return (f'{head}<rect x="{_f(cx - w/2)}" y="{_f(cy - w/2)}" width="{_f(w)}" '
                f'height="{_f(w)}" rx="{_f(s*0.04)}" fill="{fill}" stroke="{stroke}" '
                f'stroke-width="{_f(s*0.03)}"/>{inner}{tag}</g>')
    if st.shape == "no_entry":
        return (f'{head}<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(s*0.17)}" fill="{fill}" '
                f'stroke="{stroke}" stroke-width="{_f(s*0.05)}"/>'
                f'<path d="M{_f(cx - s*0.12)},{_f(cy + s*0.12)} '
                f'L{_f(cx + s*0.12)},{_f(cy - s*0.12)}" '
                f'stroke="{stroke}" stroke-width="{_f(s*0.05)}"/>{tag}</g>')
    inner = (f'<text x="{_f(cx)}" y="{_f(cy + s*0.07)}" font-size="{_f(s*0.18)}" '
             f'font-weight="bold" fill="{safe_colour(st.accent, "#ffffff")}" '
             f'text-anchor="middle">{esc(st.symbol)}</text>' if st.symbol else "")
    return (f'{head}<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(s*0.16)}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{_f(s*0.03)}"/>{inner}{tag}</g>')


# -- the map ---------------------------------------------------------------------------------------

def _sheet_labels(g, geo: _Geometry) -> str:
    """Frames, letters and edge numbers of each sheet of a map of several sheets."""
    s = geo.s
    out = [f'<g class="sheets" font-size="{_f(s*0.3)}" text-anchor="middle">']
    for letter, sh in g.sheets.items():
        x, y, bw, bh = g.sheet_box(letter, s)
        x, y = x + geo.left, y + geo.top
        out.append(f'<rect class="sheet-edge" x="{_f(x)}" y="{_f(y)}" width="{_f(bw)}" '
                   f'height="{_f(bh)}" fill="none" stroke="#3a3328" stroke-width="1.2"/>')
        for col in range(sh.first_col, sh.last_col + 1):
            cx, _ = geo.center(f"{letter}{col}.{sh.last_row:02d}")
            out.append(f'<text class="edge col" x="{_f(cx)}" y="{_f(y - s*0.12)}">{col}</text>')
        for row in range(sh.first_row, sh.last_row + 1):
            if row % 5:
                continue        # as printed: every fifth row is numbered (BCS 1.1b)
            _, cy = geo.center(f"{letter}{sh.first_col}.{row:02d}")
            out.append(f'<text class="edge row" x="{_f(geo.left * 0.45)}" '
                       f'y="{_f(cy + s*0.1)}">{row:02d}</text>')
        title = getattr(sh, "title", "") or f"Map {letter}"
        out.append(f'<text class="edge sheet" x="{_f(x + bw / 2)}" y="{_f(y + s*0.5)}" '
                   f'font-size="{_f(s*0.6)}" opacity="0.55">{esc(title)}</text>')
    out.append("</g>")
    return "".join(out)


def _valid_hex(game_map: GameMap, hex_id: str) -> bool:
    return isinstance(hex_id, str) and game_map.grid.is_hex(hex_id)


def _static_layers(game_map: GameMap, terrain_colours: dict[str, str] | None,
                   hex_size: float) -> tuple[str, str, str]:
    """The parts of a map drawing that depend only on the map: (defs, body, place names)."""
    key = (tuple(sorted((terrain_colours or {}).items())), hex_size)
    per_map = _STATIC_CACHE.setdefault(game_map, {})
    if key in per_map:
        return per_map[key]
    # A map loaded from scenario files carries the hash of those files (cache_key, set by the
    # game's loader): its drawing is kept on disk too, per that hash and this module's source.
    data_key = getattr(game_map, "cache_key", None)
    disk_key = None
    if isinstance(data_key, str):
        from pbem.core import cache

        code = [cache.source_hash(sys.modules[m]) for m in
                (__name__, "pbem.core.hexgrid", "pbem.core.mapdata")]
        disk_key = cache.key_of("svg-static", data_key, repr(key), *code)
        body = cache.load("svg-static", disk_key)
        if body is not None:
            try:
                parts = tuple(body.decode("utf-8").split("\0"))
            except UnicodeDecodeError:
                parts = ()
            if len(parts) == 3:
                per_map[key] = parts  # type: ignore[assignment]
                return parts  # type: ignore[return-value]
    result = _draw_static(game_map, terrain_colours, hex_size)
    per_map[key] = result
    if disk_key is not None:
        cache.store("svg-static", disk_key, "\0".join(result).encode("utf-8"))
    return result


def _draw_static(game_map: GameMap, terrain_colours: dict[str, str] | None,
                 hex_size: float) -> tuple[str, str, str]:
    """Draw the static layers (see _static_layers)."""
    geo = _Geometry(game_map, float(hex_size))
    s = geo.s
    g = game_map.grid
    hexes = g.all_hexes()
    w, h = geo.width, geo.height
    out: list[str] = []
    # defs: textures and arrow heads
    patterns = _patterns(s)
    used = {p for t in game_map.terrain.values() if (p := _pattern_for(t))}
    # Hexes a map lists in a "gray" hex set are greyed out as printed maps show them.
    gray_hexes = {x for name, xs in getattr(game_map, "hexsets", {}).items()
                  if norm_kind(name) in _GRAY_SETS for x in xs}
    if gray_hexes:
        used.add("gray")
    used_patterns = sorted(used)
    defs = [patterns[p] for p in used_patterns]
    sheeted = hasattr(g, "sheets")
    clip = ""
    if sheeted:
        # Each sheet's printed edge cuts its edge hexes in half (BCS 1.1c): clip to the sheets.
        rects = "".join(f'<rect x="{_f(x + geo.left)}" y="{_f(y + geo.top)}" width="{_f(bw)}" '
                        f'height="{_f(bh)}"/>'
                        for x, y, bw, bh in (g.sheet_box(k, s) for k in g.sheets))
        defs.append(f'<clipPath id="sheet-clip">{rects}</clipPath>')
        clip = ' clip-path="url(#sheet-clip)"'

    # background and frame
    out.append(f'<rect x="0" y="0" width="{_f(w)}" height="{_f(h)}" fill="#fbf6e9"/>')

    # One hexagon around the origin, drawn once: every hex refers to it with its centre.
    # Its outline is the grid line (opaque, so the shared edge drawn twice looks as once).
    hh = geo.h / 2
    defs.append(f'<path id="mh" d="M{s:.2f},0L{s/2:.2f},{hh:.2f}H{-s/2:.2f}L{-s:.2f},0'
                f'L{-s/2:.2f},{-hh:.2f}H{s/2:.2f}Z"/>')
    for p in sorted({p for t in game_map.terrain.values() if (p := _pattern_for(t))}):
        # a textured kind: its fill, its texture, then the outline
        defs.append(f'<g id="t{p[:2]}"><use href="#mh" stroke="none"/>'
                    f'<use href="#mh" fill="url(#pat-{p})"/></g>')
    if gray_hexes:
        defs.append('<g id="mg"><use href="#mh" fill="#8a8a8a" opacity="0.45" stroke="none"/>'
                    '<use href="#mh" fill="url(#pat-gray)"/></g>')
    defs.append(_unit_defs())
    grid = f'stroke="{_GRID}" stroke-width="{_f(max(0.6, s*0.022))}"'

    # terrain: the hexes of one kind in one group of its colour
    by_kind: dict[str, list[str]] = {}
    for hx in hexes:
        by_kind.setdefault(game_map.terrain.get(hx, ""), []).append(hx)
    out.append(f'<g class="terrain" {grid}{clip}>')
    for kind, group in by_kind.items():
        fill = terrain_colour(kind, terrain_colours) if kind else "#ffffff"
        p = _pattern_for(kind)
        ref = f"t{p[:2]}" if p else "mh"
        out.append(f'<g fill="{fill}">')
        for hx in group:
            cx, cy = geo.center(hx)
            out.append(f'<use href="#{ref}" x="{_f(cx)}" y="{_f(cy)}" class="hex" '
                       f'data-hex="{hx}"><title>{hx} {esc(kind)}</title></use>')
        out.append("</g>")
    out.append("</g>")
    if gray_hexes:
        out.append(f'<g class="texture" pointer-events="none" {grid}{clip}>')
        for hx in hexes:
            if hx in gray_hexes:
                cx, cy = geo.center(hx)
                out.append(f'<use href="#mg" x="{_f(cx)}" y="{_f(cy)}" class="grayset"/>')
        out.append("</g>")

    # hexside features, in the pair order of the map file when it is known
    sides: list[tuple[str, str, str]] = []
    data = getattr(game_map, "data", None)
    if data is not None and getattr(data, "hexside", None):
        for grp in data.hexside:
            for a, b in grp.pairs:
                sides.append((grp.kind, a, b))
    else:
        for (a, b), kinds in sorted(game_map.hexsides.items()):
            for k in sorted(kinds):
                sides.append((k, a, b))
    # rivers under bridges, everything else above rivers; features drawn as one line are
    # grouped by style, the group carrying the stroke
    def hs_rank(item: tuple[str, str, str]) -> int:
        n = norm_kind(item[0])
        return 0 if n in ("river", "stream", "lake") else (2 if n == "bridge" else 1)
    sides.sort(key=hs_rank)
    out.append('<g class="hexsides">')
    groups: dict[tuple[int, str], list[str]] = {}
    hs_defs: dict[str, str] = {}
    for kind, a, b in sides:
        if not (_valid_hex(game_map, a) and _valid_hex(game_map, b)):
            continue
        p, q = geo.edge(a, b)
        simple = _line_hexside(kind, s)
        style = simple[1] if simple else ""
        if simple:
            item = _hexside_svg(kind, p, q, geo.center(b), s, styled=False)
        else:
            # drawn around the edge's midpoint once per shape and orientation, then placed
            mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
            tx, ty = geo.center(b)
            rel = _hexside_svg(kind, (p[0] - mx, p[1] - my), (q[0] - mx, q[1] - my),
                               (tx - mx, ty - my), s)
            head, inner = rel.split("</title>", 1)
            ref = hs_defs.setdefault(inner[:-len("</g>")], f"ms{len(hs_defs)}")
            item = f'{head}</title><use href="#{ref}" x="{_f(mx)}" y="{_f(my)}"/></g>'
        groups.setdefault((hs_rank((kind, a, b)), style), []).append(item)
    for (_, style), items in groups.items():
        out.append(f'<g {style}>' + "".join(items) + "</g>" if style else "".join(items))
    out.append("</g>")
    defs.extend(f'<g id="{ref}">{inner}</g>' for inner, ref in hs_defs.items())

    # roads: each road as a polyline through hex centres, the roads of a kind in one group
    chains: list[tuple[str, list[str]]] = []
    if data is not None and getattr(data, "road", None):
        chains = [(r.kind, list(r.hexes)) for r in data.road]
    else:
        for kind, pairs in game_map.roads.items():
            chains.extend((kind, [a, b]) for a, b in pairs)
    chains.sort(key=lambda c: _road_order(c[0]))
    out.append('<g class="roads" fill="none" stroke-linejoin="round">')
    by_road: dict[str, list[str]] = {}
    for kind, chain in chains:
        chain = [x for x in chain if _valid_hex(game_map, x)]
        if len(chain) >= 2:
            by_road.setdefault(kind, []).append(_pts(geo.center(x) for x in chain))
    for kind, lines in by_road.items():
        for style in _road_style(kind, s):
            out.append(f'<g class="road road-{esc(norm_kind(kind))}" {style}>'
                       + "".join(f'<polyline points="{pts}"/>' for pts in lines) + "</g>")
    out.append("</g>")

    # places: symbols now (each combination drawn once), names after the units
    place_syms: list[str] = []
    place_names: list[str] = []
    place_defs: dict[str, str] = {}
    for hx in hexes:
        ps = game_map.place_at.get(hx) if hasattr(game_map, "place_at") else None
        if not ps:
            continue
        cx, cy = geo.center(hx)
        kinds = {norm_kind(k) for p in ps for k in p.kinds}
        tip = esc("; ".join(f"{p.name} ({', '.join(p.kinds)})" if p.kinds else p.name for p in ps))
        body = []
        if kinds & {"city", "major_city", "capital"}:
            body.append(f'<rect x="{_f(-s*0.13)}" y="{_f(-s*0.13)}" width="{_f(s*0.26)}" '
                        f'height="{_f(s*0.26)}" fill="#1a1a1a" stroke="#fffbef" stroke-width="1"/>')
        else:
            body.append(f'<circle r="{_f(s*0.12)}" fill="#1a1a1a" stroke="#fffbef" '
                        f'stroke-width="1"/>')
        if kinds & {"port", "harbour", "harbor"}:
            body.append(f'<circle r="{_f(s*0.22)}" fill="none" stroke="#1f4f8f" '
                        f'stroke-width="{_f(s*0.05)}"/>')
        if kinds & {"objective", "victory", "vp", "victory_hex"}:
            body.append(f'<polygon points="{_star(-s * 0.45, -s * 0.36, s * 0.14)}" '
                        f'fill="#c8102e" stroke="#fffbef" stroke-width="0.6"/>')
        ref = place_defs.setdefault("".join(body), f"mp{len(place_defs)}")
        sym = [f'<g class="place" data-hex="{hx}"><title>{tip}</title>'
               f'<use href="#{ref}" x="{_f(cx)}" y="{_f(cy)}"/>']
        if kinds & {"supply_base", "supply", "supply_source", "base"}:
            sym.append(f'<rect x="{_f(cx + s*0.32)}" y="{_f(cy - s*0.5)}" width="{_f(s*0.26)}" '
                       f'height="{_f(s*0.26)}" fill="#ffffff" stroke="#1a1a1a" stroke-width="0.8"/>'
                       f'<text x="{_f(cx + s*0.45)}" y="{_f(cy - s*0.3)}" font-size="{_f(s*0.22)}" '
                       f'font-weight="bold" text-anchor="middle" fill="#1a1a1a">S</text>')
        sym.append("</g>")
        place_syms.append("".join(sym))
        name = _short(" / ".join(p.name for p in ps), 22)
        place_names.append(f'<text x="{_i(cx)}" y="{_i(cy + s*0.72)}">{esc(name)}</text>')
    defs.extend(f'<g id="{ref}">{body}</g>' for body, ref in place_defs.items())
    out.append('<g class="places">' + "".join(place_syms) + "</g>")
    names_svg = (f'<g class="halo" font-size="{_f(s*0.25)}" font-weight="bold" fill="#1a1a1a" '
                 f'text-anchor="middle">' + "".join(place_names) + "</g>") if place_names else ""

    # hex ids inside each hex, and the edge numbering
    out.append(f'<g class="hexids" font-size="{_f(s*0.2)}" text-anchor="middle" '
               f'pointer-events="none">')
    columns: dict[str, list[str]] = {}     # one group per column of hexes: x is said once
    for hx in hexes:
        cx, cy = geo.center(hx)
        # a half hex cut by its sheet's top edge shows its id in the half that is drawn
        up = s * 0.45 if sheeted and g.is_half(hx) and hx.endswith(f".{g.sheets[hx[0]].last_row:02d}") \
            else -s * 0.6
        columns.setdefault(_i(cx), []).append(f'<text y="{_i(cy + up)}">{hx}</text>')
    for x, texts in columns.items():
        out.append(f'<g transform="translate({x})">' + "".join(texts) + "</g>")
    out.append("</g>")
    if sheeted:
        out.append(_sheet_labels(g, geo))
    else:
        dg = g.digits
        out.append(f'<g class="edge-labels" font-size="{_f(s*0.3)}" text-anchor="middle">')
        for col in range(g.first_col, g.last_col + 1):
            cx, _ = geo.center(g.hex_id(col, g.first_row))
            out.append(f'<text class="edge col" x="{_f(cx)}" y="{_f(geo.top - s*0.22)}">'
                       f'{col:0{dg}d}</text>')
        for row in range(g.first_row, g.last_row + 1):
            _, cy = geo.center(g.hex_id(g.first_col, row))
            out.append(f'<text class="edge row" x="{_f(geo.left * 0.45)}" y="{_f(cy + s*0.1)}">'
                       f'{row:0{dg}d}</text>')
        out.append("</g>")

    return ("".join(defs), "".join(out), names_svg)


def render_svg(game_map: GameMap, units: Sequence[MapUnit] = (), markers: Sequence[MapMarker] = (),
               arrows: Sequence[MapArrow] = (), *, terrain_colours: dict[str, str] | None = None,
               side_colours: dict[str, str] | None = None, hex_size: float = DEFAULT_HEX_SIZE,
               own_side: str | None = None, title: str = "",
               marker_styles: dict[str, MarkerStyle] | None = None) -> str:
    """Return one ``<svg>`` element drawing the map and the given units, markers and arrows.

    Every text is escaped; items whose hex is not on the map are skipped (the text report
    still lists them). ``own_side`` marks that side's units as own (for styling only).
    ``marker_styles`` is the game's declaration of its marker kinds (``game_marker_styles``).
    """
    geo = _Geometry(game_map, float(hex_size))
    s = geo.s
    g = game_map.grid
    hexes = g.all_hexes()
    out: list[str] = []
    w, h = geo.width, geo.height
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" class="hexmap" '
               f'viewBox="0 0 {_f(w)} {_f(h)}" '
               f'width="{_f(w)}" height="{_f(h)}" role="img" aria-label="{esc(title or "Map")}" '
               f'font-family="{FONT}">')
    out.append(f"<title>{esc(title or 'Map')}</title>")
    out.append("<style>.halo{paint-order:stroke;stroke:#fffbef;stroke-width:2.6px;"
               "stroke-linejoin:round}.hexids{fill:#5a5040;opacity:.75}"
               ".edge{fill:#3a3328;font-weight:bold}.hexmap .ub{font-weight:bold}"
               ".hexmap .unit{text-anchor:middle}"
               f".hexmap .aw{{stroke:#ffffff;stroke-width:{_f(s*0.2)}px;opacity:.8}}"
               f".hexmap .al{{font-size:{_f(s*0.22)}px;stroke-width:2.6px;text-anchor:middle;"
               "font-weight:bold}</style>")

    arrow_colours: list[str] = []
    for a in arrows:
        c = side_colour(a.side, side_colours)
        if c not in arrow_colours:
            arrow_colours.append(c)
    static_defs, static_body, place_names_svg = _static_layers(game_map, terrain_colours,
                                                               float(hex_size))
    out.append("<defs>" + static_defs)
    for i, c in enumerate(arrow_colours):
        out.append(f'<marker id="arrowhead-{i}" viewBox="0 0 10 10" refX="6" refY="5" '
                   f'markerWidth="3.2" markerHeight="3.2" orient="auto-start-reverse">'
                   f'<path d="M0,0 L10,5 L0,10 z" fill="{c}" stroke="#ffffff" stroke-width="0.8"/>'
                   f'</marker>')
    out.append("</defs>")
    out.append(static_body)

    # units, stacked per hex in the order given
    by_hex: dict[str, list[MapUnit]] = {}
    for u in units:
        if _valid_hex(game_map, u.hex):
            by_hex.setdefault(u.hex, []).append(u)
    out.append('<g class="units">')
    for hx in hexes:
        stack = by_hex.get(hx)
        if not stack:
            continue
        cx, cy = geo.center(hx)
        b, offs = _stack_layout(len(stack), s)
        for u, (ox, oy) in zip(stack, offs):
            fill = side_colour(u.side, side_colours)
            own = own_side is not None and u.side == own_side
            out.append(_block(u, cx + ox, cy + oy, b, fill, own=own))
    out.append("</g>")

    out.append('<g class="placenames">' + place_names_svg + "</g>")

    # markers: upper right of the hex, successive markers step left
    count: dict[str, int] = {}
    out.append('<g class="markers">')
    for m in markers:
        if not _valid_hex(game_map, m.hex):
            continue
        i = count.get(m.hex, 0)
        count[m.hex] = i + 1
        cx, cy = geo.center(m.hex)
        out.append(_marker_svg(m, cx + s * 0.52 - i * s * 0.42, cy - s * 0.45, s, marker_styles))
    out.append("</g>")

    # arrows last, stopping short of the destination block
    out.append(f'<g class="arrows" fill="none" stroke-linecap="round" stroke-linejoin="round" '
               f'stroke-width="{_f(s*0.11)}">')
    for a in arrows:
        path = [x for x in a.path if _valid_hex(game_map, x)]
        if len(path) < 2:
            continue
        c = side_colour(a.side, side_colours)
        mi = arrow_colours.index(c)
        pts = [geo.center(x) for x in path]
        (x1, y1), (x2, y2) = pts[-2], pts[-1]
        dd = math.hypot(x2 - x1, y2 - y1) or 1.0
        cut = min(s * 0.5, dd * 0.6)
        pts[-1] = (x2 - (x2 - x1) / dd * cut, y2 - (y2 - y1) / dd * cut)
        d = _rel_path(pts)
        tip = esc(f"{a.side} move {' - '.join(a.path)}" + (f": {a.label}" if a.label else ""))
        out.append(f'<g class="arrow" data-side="{esc(a.side)}" opacity="0.85"><title>{tip}</title>'
                   f'<path class="aw" d="{d}"/>'
                   f'<path d="{d}" stroke="{c}" marker-end="url(#arrowhead-{mi})"/>')
        if a.label:
            (sx, sy), (tx, ty) = pts[0], pts[1]
            lx, ly = (sx + tx) / 2, (sy + ty) / 2 - s * 0.12
            out.append(f'<text class="halo al" x="{_f(lx)}" y="{_f(ly)}" fill="{c}">'
                       f'{esc(_short(a.label, 24))}</text>')
        out.append("</g>")
    out.append("</g>")

    out.append(f'<rect x="{_f(geo.left - 1)}" y="{_f(geo.top - 1)}" width="{_f(geo.map_w + 2)}" '
               f'height="{_f(geo.map_h + 2)}" fill="none" stroke="#3a3328" stroke-width="1.2"/>')
    out.append("</svg>")
    return "".join(out)


# -- legend ----------------------------------------------------------------------------------------

def legend_items(game_map: GameMap, *, terrain_colours: dict[str, str] | None = None,
                 side_colours: dict[str, str] | None = None,
                 sides: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(escaped label, small inline SVG swatch) for every terrain, hexside, road and side shown."""
    s = 24.0
    items: list[tuple[str, str]] = []

    def sw(body: str, w: float = 34, h: float = 22) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(w)}" height="{_f(h)}" '
                f'viewBox="0 0 {_f(w)} {_f(h)}" aria-hidden="true">{body}</svg>')

    patterns = _patterns(s)
    for i, kind in enumerate(sorted(set(game_map.terrain.values()))):
        fill = terrain_colour(kind, terrain_colours)
        pat = _pattern_for(kind)
        hexpts = _pts((17 + 12 * math.cos(math.radians(60 * k)),
                       11 + 12 * math.sin(math.radians(60 * k))) for k in range(6))
        body = f'<polygon points="{hexpts}" fill="{fill}" stroke="#6d6555" stroke-width="0.8"/>'
        if pat:
            pdef = patterns[pat].replace('id="pat-', f'id="lg{i}-pat-')
            body = (f"<defs>{pdef}</defs>" + body +
                    f'<polygon points="{hexpts}" fill="url(#lg{i}-pat-{pat})"/>')
        items.append((esc(kind.replace("_", " ")), sw(body)))
    hs_kinds: list[str] = []
    data = getattr(game_map, "data", None)
    if data is not None and getattr(data, "hexside", None):
        for grp in data.hexside:
            if grp.kind not in hs_kinds:
                hs_kinds.append(grp.kind)
    else:
        for ks in game_map.hexsides.values():
            for k in sorted(ks):
                if k not in hs_kinds:
                    hs_kinds.append(k)
    for kind in hs_kinds:
        body = _hexside_svg(kind, (5, 8), (29, 8), (17, 20), s)
        items.append((esc(kind.replace("_", " ")), sw(body)))
    for kind in sorted(game_map.roads):
        body = "".join(f'<polyline points="3,11 31,11" fill="none" {st}/>'
                       for st in _road_style(kind, s))
        items.append((esc(kind.replace("_", " ")), sw(body)))
    pkinds = sorted({k for ps in game_map.place_at.values() for p in ps for k in p.kinds})
    if game_map.place_at:
        items.append(("place", sw('<circle cx="17" cy="11" r="3.5" fill="#1a1a1a"/>')))
    for k in pkinds:
        n = norm_kind(k)
        if n in ("port", "harbour", "harbor"):
            items.append((esc(k), sw('<circle cx="17" cy="11" r="3.5" fill="#1a1a1a"/>'
                                     '<circle cx="17" cy="11" r="6" fill="none" stroke="#1f4f8f" '
                                     'stroke-width="1.4"/>')))
        elif n in ("supply_base", "supply", "supply_source", "base"):
            items.append((esc(k.replace("_", " ")),
                          sw('<rect x="11" y="5" width="12" height="12" fill="#fff" '
                             'stroke="#1a1a1a"/>'
                             '<text x="17" y="15" font-size="10" font-weight="bold" '
                             'text-anchor="middle">S</text>')))
        elif n in ("objective", "victory", "vp", "victory_hex"):
            items.append((esc(k), sw(f'<polygon points="{_star(17, 11, 7)}" fill="#c8102e"/>')))
        elif n in ("city", "major_city", "capital"):
            items.append((esc(k), sw('<rect x="13" y="7" width="8" height="8" fill="#1a1a1a"/>')))
    for side in sides:
        c = side_colour(side, side_colours)
        items.append((esc(side), sw(f'<rect x="7" y="1" width="20" height="20" rx="2" fill="{c}" '
                                    f'stroke="#1b1b1b"/>')))
    return items
