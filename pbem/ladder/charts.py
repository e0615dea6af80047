"""Chart geometry for the site's inline SVG (rendered by templates/ladder/_charts.html.j2):
a player's rating history as a line, and its dice luck per game as bars."""

from __future__ import annotations

from typing import Any

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 12, 30
MAX_MARKS = 120             # point markers (with a tooltip each) on short histories only


def _scale(lo: float, hi: float) -> tuple[float, float]:
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    pad = (hi - lo) * 0.08
    return lo - pad, hi + pad


def _ticks(lo: float, hi: float, n: int = 4) -> list[float]:
    step = (hi - lo) / n
    return [lo + i * step for i in range(n + 1)]


def rating_chart(points: list[tuple[str, float]]) -> dict[str, Any] | None:
    """A line chart of ratings after each game ((label, rating) pairs, oldest first); None
    when there is nothing to draw."""
    if not points:
        return None
    values = [v for _, v in points]
    lo, hi = _scale(min(values), max(values))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    n = len(points)

    def x(i: int) -> float:
        return LEFT + (plot_w * (i / (n - 1)) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (1 - (v - lo) / (hi - lo))

    coords = [(round(x(i), 1), round(y(v), 1)) for i, (_, v) in enumerate(points)]
    return {
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "line": " ".join(f"{cx},{cy}" for cx, cy in coords),
        "marks": [{"x": cx, "y": cy, "label": lab, "value": f"{v:.2f}"}
                  for (cx, cy), (lab, v) in zip(coords, points)] if n <= MAX_MARKS else [],
        "yticks": [{"y": round(y(t), 1), "label": f"{t:.1f}"} for t in _ticks(lo, hi)],
        "first": points[0][0], "last": points[-1][0], "count": n,
        "low": f"{min(values):.2f}", "high": f"{max(values):.2f}",
        "final": f"{values[-1]:.2f}",
    }


def luck_chart(bars: list[tuple[str, float]]) -> dict[str, Any] | None:
    """Bars of dice luck (z-score) per game, oldest first; None when there is none."""
    if not bars:
        return None
    m = max(2.0, max(abs(v) for _, v in bars))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    zero = TOP + plot_h / 2
    step = plot_w / len(bars)
    out = []
    for i, (lab, v) in enumerate(bars):
        h = plot_h / 2 * abs(v) / m
        out.append({"x": round(LEFT + i * step + step * 0.1, 1),
                    "w": round(max(step * 0.8, 0.5), 1),
                    "y": round(zero - h if v > 0 else zero, 1), "h": round(max(h, 0.5), 1),
                    "label": lab, "value": f"{v:+.2f}", "good": v >= 0})
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT,
            "top": TOP, "bottom": HEIGHT - BOTTOM, "zero": round(zero, 1), "bars": out,
            "max": f"{m:.1f}", "count": len(bars)}
