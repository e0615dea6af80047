"""Dice statistics over one game or many: per side and per roll purpose, the count, the mean,
the distribution against the expected one, Pearson's chi-square goodness-of-fit test with its
p-value, and a luck summary; as text, JSON and small inline SVG charts.

Every die counted is one the viewer may see (pbem.records.source): both sides' dice of a
finished game held in full, one side's otherwise. A die belongs to the side its purpose
names ("axis defence dice"), else to the side whose file rolled it (the attacker of
"combat at 2714"). Purposes are grouped by their kind: hex ids, turn numbers, counters such
as "(2/3)" and modifiers such as "(+1)" are dropped ("combat: attack dice").
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable

import msgspec

SMALL = 5           # a chi-square test needs at least this many expected dice per face
_PAREN = re.compile(r"\s*\([^)]*\)")
_PLACE = re.compile(r"\b(?:at|of|in|on|near|turn|hex)\s+\d+\b")
_DIGITS = re.compile(r"\d+")


# -- the chi-square survival function ------------------------------------------------------
def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a).

    The power series of P(a, x) below x < a + 1, else the continued fraction of Q (modified
    Lentz), as in every numerical library; accurate to about 1e-14.
    """
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return min(1.0, math.exp(log_front) * h)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with df degrees of freedom (the test's p-value)."""
    return gamma_q(df / 2, x / 2)


def normal_cdf(z: float) -> float:
    """P(Z <= z) for a standard normal variable."""
    return 0.5 * math.erfc(-z / math.sqrt(2))


# -- grouping ------------------------------------------------------------------------------
def purpose_kind(purpose: str, sides: Iterable[str]) -> str:
    """A roll's purpose without places, turns, counters, modifiers and side names."""
    p = _PAREN.sub("", purpose)
    for side in sides:
        p = re.sub(rf"\b{re.escape(side)}\b", "", p)
    p = _DIGITS.sub("#", _PLACE.sub("", p))
    p = re.sub(r"\s+", " ", p)
    p = re.sub(r"\s+([:,])", r"\1", p)
    p = re.sub(r"([:,])(?:\s*[:,])+", r"\1", p)
    return p.strip(" :,") or "other"


def owner(purpose: str, sender: str, sides: Iterable[str]) -> str:
    """The side a die belongs to: the side its purpose names, else the side whose file
    rolled it, else '-' (no side)."""
    sides = list(sides)
    for word in re.findall(r"[A-Za-z0-9_]+", purpose):
        if word in sides:
            return word
    return sender if sender in sides else "-"


def is_draw(purpose: str) -> bool:
    """A draw picks an item (a marker, a shuffle): its value is an index, not good or bad."""
    return re.search(r"\bdraw\b", purpose) is not None


class Group(msgspec.Struct, kw_only=True):
    """The dice of one side, one purpose kind and one die size."""

    game: str
    side: str
    purpose: str
    sides: int
    counts: list[int]

    @property
    def n(self) -> int:
        return sum(self.counts)

    @property
    def expected(self) -> float:
        return self.n / self.sides

    @property
    def mean(self) -> float:
        return sum((i + 1) * c for i, c in enumerate(self.counts)) / self.n if self.n else 0.0

    @property
    def expected_mean(self) -> float:
        return (self.sides + 1) / 2

    @property
    def chi2(self) -> float | None:
        """Pearson's statistic against the uniform distribution (None: too few dice)."""
        if self.expected < SMALL:
            return None
        e = self.expected
        return sum((c - e) ** 2 / e for c in self.counts)

    @property
    def p_value(self) -> float | None:
        x = self.chi2
        return None if x is None else chi2_sf(x, self.sides - 1)

    def to_json(self) -> dict[str, Any]:
        x, p = self.chi2, self.p_value
        return {"game": self.game, "side": self.side, "purpose": self.purpose,
                "die": self.sides, "count": self.n, "counts": self.counts,
                "expected_per_face": round(self.expected, 4), "mean": round(self.mean, 4),
                "expected_mean": self.expected_mean,
                "chi2": None if x is None else round(x, 4), "df": self.sides - 1,
                "p_value": None if p is None else round(p, 6)}


class Luck(msgspec.Struct, kw_only=True):
    """How lucky a side was: every die that is not a draw, scored against its expectation
    (a high roll is taken as good, as with most wargame dice)."""

    game: str
    side: str
    dice: int = 0
    pips: int = 0
    expected_pips: float = 0.0
    variance: float = 0.0
    high: int = 0               # dice in the top third of their faces (5 or 6 on a d6)
    expected_high: float = 0.0

    def add(self, value: int, sides: int) -> None:
        self.dice += 1
        self.pips += value
        self.expected_pips += (sides + 1) / 2
        self.variance += (sides * sides - 1) / 12
        top = sides // 3
        self.high += value > sides - top
        self.expected_high += top / sides

    @property
    def z(self) -> float:
        return (self.pips - self.expected_pips) / math.sqrt(self.variance) if self.variance else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "side": self.side, "dice": self.dice, "pips": self.pips,
                "expected_pips": round(self.expected_pips, 4), "z": round(self.z, 4),
                "percentile": round(100 * normal_cdf(self.z), 2), "high_rolls": self.high,
                "expected_high_rolls": round(self.expected_high, 4)}


class Stats:
    """Dice statistics accumulated over the rolls of one or more games."""

    def __init__(self) -> None:
        self.games: list[dict[str, Any]] = []
        self.groups: dict[tuple[str, str, str, int], Group] = {}
        self.luck: dict[tuple[str, str], Luck] = {}

    def add_roll(self, game: str, sides_of_game: Iterable[str], sender: str, purpose: str,
                 sides: int, value: int) -> None:
        """Count one die."""
        sides_of_game = list(sides_of_game)
        side = owner(purpose, sender, sides_of_game)
        for kind in (purpose_kind(purpose, sides_of_game), f"all d{sides}"):
            key = (game, side, kind, sides)
            g = self.groups.get(key)
            if g is None:
                g = self.groups[key] = Group(game=game, side=side, purpose=kind, sides=sides,
                                             counts=[0] * sides)
            g.counts[value - 1] += 1
        if not is_draw(purpose):
            luck = self.luck.get((game, side))
            if luck is None:
                luck = self.luck[(game, side)] = Luck(game=game, side=side)
            luck.add(value, sides)

    def add_game(self, v: Any, view: str | None = None) -> str:
        """Count every die of a verified game (pbem.records.source.Verified) its viewer may
        see; returns the view used: both sides in full when allowed, else one side."""
        from pbem.records.source import FULL

        allowed = v.views()
        public = False
        if view is None:
            if FULL in allowed:
                view = FULL
            elif v.party in allowed:
                view = v.party
            else:                   # a referee's game in progress: the public dice only
                view, public = allowed[0], True
        sides = list(v.game.sides)
        n = 0
        for fr in v.frames(view):
            for r in fr.rolls:
                if public and r.visible_to != "all":
                    continue
                self.add_roll(v.game.id, sides, fr.sender, r.purpose, r.sides, r.value)
                n += 1
        self.games.append({"game": v.game.id, "scenario": v.genesis.p.scenario,
                           "game_id": v.genesis.game_id if v.genesis.complete else None,
                           "view": "public" if public else view, "dice": n,
                           "name": v.record_name or str(v.root)})
        return view

    # -- output ----------------------------------------------------------------------------
    def sorted_groups(self) -> list[Group]:
        return sorted(self.groups.values(),
                      key=lambda g: (g.game, g.side, not g.purpose.startswith("all "),
                                     g.sides, g.purpose))

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "groups": [g.to_json() for g in self.sorted_groups()],
                "luck": [lk.to_json() for _, lk in sorted(self.luck.items())]}

    def text(self) -> str:
        """The statistics as a plain-text table (at most 100 columns)."""
        from pbem.reports.render import wrap

        out = []
        total = sum(g["dice"] for g in self.games)
        out.append(f"Dice statistics: {len(self.games)} game(s), {total} dice.")
        for gm in self.games:
            out.append(wrap(f"{gm['name']}: {gm['game']} {gm['scenario']}, {gm['dice']} dice "
                            f"({'both sides' if gm['view'] == 'full' else gm['view'] + ' view'})",
                            indent="  ", subsequent="    "))
        many = len({g.game for g in self.groups.values()}) > 1
        game = None
        for g in self.sorted_groups():
            if g.game != game:
                game = g.game
                out += ["", f"{game}:" if many else "",
                        f"{'side':<8} {'purpose':<30} {'die':>4} {'n':>5} {'mean':>5} {'exp':>5} "
                        f"{'chi2':>6} {'p':>6}  counts of 1, 2, ..."]
                if not many:
                    del out[-2]
            x, p = g.chi2, g.p_value
            row = (f"{g.side[:8]:<8} {g.purpose[:30]:<30} {'d' + str(g.sides):>4} {g.n:>5} "
                   f"{g.mean:>5.2f} {g.expected_mean:>5.2f} "
                   f"{'-' if x is None else f'{x:.2f}':>6} {'-' if p is None else f'{p:.3f}':>6}")
            counts = " ".join(map(str, g.counts))
            if len(row) + 2 + len(counts) <= 100:
                out.append(f"{row}  {counts}")
            else:
                out += [row, wrap(counts, indent=" " * 10)]
        out.append("")
        out.append("Luck (every die but draws; a high roll is taken as good):")
        for _, lk in sorted(self.luck.items()):
            side = f"{lk.game}/{lk.side}" if many else lk.side
            out.append(wrap(f"{side}: {lk.dice} dice, {lk.pips} pips for "
                            f"{lk.expected_pips:.1f} expected (z = {lk.z:+.2f}, luckier than "
                            f"{100 * normal_cdf(lk.z):.0f}% of equal series); high rolls "
                            f"{lk.high} for {lk.expected_high:.1f} expected",
                            indent="  ", subsequent="    "))
        out.append("")
        out.append(wrap("chi2: Pearson's statistic against fair dice; p: its p-value (a small "
                        f"p, under 0.01, is unusual); '-': fewer than {SMALL} dice expected per "
                        "face."))
        return "\n".join(out) + "\n"


def game_stats(games: Iterable[Any]) -> Stats:
    """The statistics of verified games."""
    st = Stats()
    for v in games:
        st.add_game(v)
    return st


# -- SVG charts ----------------------------------------------------------------------------
def _esc(text: str) -> str:
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def chart_svg(g: Group, *, colour: str = "#6b7a3a", width: int = 260, height: int = 130) -> str:
    """A bar chart of one group: the count of every face, the expected count as a dashed
    line and its 95% band (binomial), with the p-value in the title."""
    n, k = g.n, g.sides
    e = g.expected
    sd = math.sqrt(n * (1 / k) * (1 - 1 / k)) if n else 0.0
    top = max([*g.counts, e + 2 * sd, 1])
    left, bottom, right, head = 26, 18, 6, 20
    pw, ph = width - left - right, height - bottom - head
    bw = pw / k

    def y(v: float) -> float:
        return head + ph - ph * v / top

    p = g.p_value
    title = (f"{g.side} {g.purpose} d{k}: {n} dice, mean {g.mean:.2f}"
             + (f", p = {p:.3f}" if p is not None else ""))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="dice-chart" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="{_esc(title)}" font-family="sans-serif" font-size="10">',
           f"<title>{_esc(title)}</title>",
           f'<text x="{left}" y="12" font-weight="bold">{_esc(title[:48])}</text>',
           f'<rect x="{left}" y="{y(e + 2 * sd):.1f}" width="{pw}" '
           f'height="{max(0.0, y(max(0.0, e - 2 * sd)) - y(e + 2 * sd)):.1f}" fill="#d9d2bd" '
           'opacity="0.6"/>']
    for i, c in enumerate(g.counts):
        x = left + i * bw
        out.append(f'<rect class="bar" data-face="{i + 1}" data-count="{c}" x="{x + bw * 0.15:.1f}" '
                   f'y="{y(c):.1f}" width="{bw * 0.7:.1f}" height="{head + ph - y(c):.1f}" '
                   f'fill="{_esc(colour)}"><title>{i + 1}: {c} (expected {e:.1f})</title></rect>')
        if k <= 12:
            out.append(f'<text x="{x + bw / 2:.1f}" y="{height - 5}" '
                       f'text-anchor="middle">{i + 1}</text>')
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(e):.1f}" y2="{y(e):.1f}" '
               'stroke="#7a1f1f" stroke-dasharray="4 3"/>')
    out.append(f'<text x="{left - 3}" y="{y(e) + 3:.1f}" text-anchor="end">{e:.0f}</text>')
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{head + ph}" y2="{head + ph}" '
               'stroke="#333"/></svg>')
    return "".join(out)


def charts(st: Stats, *, colours: dict[str, str] | None = None, limit: int = 12) -> list[str]:
    """Charts of the most telling groups: every side's dice of each size, then the largest
    purposes with enough dice for a test."""
    from pbem.reports.svgmap import side_colour

    gs = st.sorted_groups()
    alls = [g for g in gs if g.purpose.startswith("all ")]
    rest = sorted((g for g in gs if not g.purpose.startswith("all ") and g.chi2 is not None),
                  key=lambda g: -g.n)
    out = []
    for g in [*alls, *rest][:limit]:
        out.append(chart_svg(g, colour=side_colour(g.side, colours)))
    return out


def player_charts(games: Iterable[Any], player_pub: bytes) -> list[str]:
    """The dice charts of one player over verified games (for a ladder's player page): the
    dice of the side this key played in each game."""
    st = Stats()
    for v in games:
        side = next((p for p, k in v.genesis.pubs.items() if k == player_pub), None)
        if side is None:
            continue
        sub = Stats()
        sub.add_game(v)
        for g in sub.groups.values():
            if g.side != side:
                continue
            mine = st.groups.get(("", "player", g.purpose, g.sides))
            if mine is None:
                mine = st.groups[("", "player", g.purpose, g.sides)] = Group(
                    game="", side="player", purpose=g.purpose, sides=g.sides,
                    counts=[0] * g.sides)
            mine.counts = [a + b for a, b in zip(mine.counts, g.counts)]
    return charts(st)
