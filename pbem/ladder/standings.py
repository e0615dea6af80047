"""Standings: every registered player ranked by rating (overall or in one game title), as
rows for scripts (JSON, CSV) or an aligned text table."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from typing import Any

from pbem.ladder.ratings import OVERALL, default_rating

FIELDS = ["rank", "name", "fingerprint", "rating", "mu", "sigma", "games", "wins", "losses",
          "draws"]


def standings(conn: sqlite3.Connection, scope: str = OVERALL, *, min_games: int = 0
              ) -> list[dict[str, Any]]:
    """Players ranked by rating (then more games, then name), each a dict of FIELDS; equal
    ratings share a rank, and players without a game in the scope come last with rank None."""
    mu0, sigma0, r0 = default_rating()
    rows = conn.execute(
        "SELECT p.id, p.name, k.fingerprint, r.mu, r.sigma, r.rating, r.games, r.wins, "
        "r.losses, r.draws FROM players p JOIN keys k ON k.player_id = p.id AND k.retired IS "
        "NULL LEFT JOIN ratings r ON r.player_id = p.id AND r.scope = ?", (scope,)).fetchall()
    out = []
    for r in rows:
        games = r["games"] or 0
        if games < min_games:
            continue
        out.append({"id": r["id"], "name": r["name"], "fingerprint": r["fingerprint"],
                    "rating": round(r["rating"] if games else r0, 2),
                    "mu": round(r["mu"] if games else mu0, 3),
                    "sigma": round(r["sigma"] if games else sigma0, 3),
                    "games": games, "wins": r["wins"] or 0, "losses": r["losses"] or 0,
                    "draws": r["draws"] or 0, "_exact": r["rating"] if games else r0})
    # players without a game come last, unranked; equal ratings share a rank (1, 2, 2, 4)
    out.sort(key=lambda d: (d["games"] == 0, -d["_exact"], -d["games"], d["name"].casefold(),
                            d["id"]))
    prev = None
    for i, d in enumerate(out, 1):
        if d["games"] == 0:
            d["rank"] = None
        elif prev is not None and d["_exact"] == prev["_exact"]:
            d["rank"] = prev["rank"]
        else:
            d["rank"] = i
        prev = d
    for d in out:
        del d["_exact"]
    return out


def as_json(rows: list[dict[str, Any]]) -> str:
    """The standings as a JSON list of objects (name, fingerprint, rating, games, ...)."""
    return json.dumps([{k: d[k] for k in FIELDS} for d in rows], indent=1,
                      ensure_ascii=False) + "\n"


def as_csv(rows: list[dict[str, Any]]) -> str:
    """The standings as CSV with a header line."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(FIELDS)
    for d in rows:
        w.writerow([_csv_safe(d[k]) for k in FIELDS])
    return buf.getvalue()


def _csv_safe(v: Any) -> Any:
    """A cell a spreadsheet will not run as a formula (a name starting with =, +, - or @)."""
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@"):
        return "'" + v
    return v


def as_text(rows: list[dict[str, Any]], title: str = "") -> str:
    """The standings as an aligned text table."""
    head = ["#", "player", "fingerprint", "rating", "games", "W", "L", "D"]
    body = [[str(d["rank"] or "-"), d["name"], d["fingerprint"], f"{d['rating']:.2f}", str(d["games"]),
             str(d["wins"]), str(d["losses"]), str(d["draws"])] for d in rows]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    right = {0, 3, 4, 5, 6, 7}
    lines = [title] if title else []
    for r in [head, *body]:
        lines.append("  ".join(c.rjust(w) if i in right else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    if not body:
        lines.append("(no players)")
    return "\n".join(lines) + "\n"


def scopes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """The game titles with recorded games: (game id, title)."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT game, MAX(title) FROM games GROUP BY game ORDER BY game")]
