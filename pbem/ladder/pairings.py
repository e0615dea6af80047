"""Pairings: propose games among the players who want one, by closeness of rating, never
pairing two players who met in either one's recent games.

Greedy and deterministic: every allowed pair among players close in the rating order is a
candidate; candidates are taken by increasing rating difference (ties: by rating order, then
name), each player at most once; players left over are paired among themselves the same
way with no window; then, while two players are left who may not meet each other, a pair
is split to pair them with its two players (the cheapest such swap); whoever is still alone
is listed as unpaired.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from pbem.ladder.ratings import OVERALL
from pbem.ladder.standings import standings

WINDOW = 8


class Pairing(msgspec.Struct, kw_only=True):
    """One proposed game."""

    a: str
    b: str
    a_rating: float
    b_rating: float
    difference: float


class Proposal(msgspec.Struct, kw_only=True):
    """Proposed pairings and the players left unpaired."""

    pairs: list[Pairing]
    unpaired: list[str]


def recent_opponents(conn: sqlite3.Connection, pid: int, recent: int) -> set[int]:
    """The opponents of a player in its last `recent` recorded games."""
    rows = conn.execute(
        "SELECT o.player_id FROM (SELECT game_seq FROM game_players WHERE player_id = ? "
        "ORDER BY game_seq DESC LIMIT ?) g JOIN game_players o ON o.game_seq = g.game_seq "
        "AND o.player_id != ?", (pid, recent, pid))
    return {r[0] for r in rows}


def propose(conn: sqlite3.Connection, *, scope: str = OVERALL, recent: int = 3,
            names: list[str] | None = None) -> Proposal:
    """Pair the players who want a game (or the players named) by rating closeness, avoiding
    rematches within either player's last `recent` games."""
    table = standings(conn, scope)
    if names is not None:
        from pbem.ladder.players import find_player

        wanted = {find_player(conn, n).id for n in names}
        pool = [d for d in table if d["id"] in wanted]
    else:
        seeking = {r[0] for r in conn.execute("SELECT id FROM players WHERE seeking = 1")}
        pool = [d for d in table if d["id"] in seeking]
    avoid = {d["id"]: recent_opponents(conn, d["id"], recent) if recent > 0 else set()
             for d in pool}

    def allowed(x: dict[str, Any], y: dict[str, Any]) -> bool:
        return y["id"] not in avoid[x["id"]] and x["id"] not in avoid[y["id"]]

    taken: set[int] = set()
    pairs: list[Pairing] = []

    def greedy(cands: list[tuple[float, int, int, dict[str, Any], dict[str, Any]]]) -> None:
        for diff, _, _, x, y in sorted(cands, key=lambda c: c[:3]):
            if x["id"] not in taken and y["id"] not in taken:
                taken.update((x["id"], y["id"]))
                pairs.append(Pairing(a=x["name"], b=y["name"], a_rating=x["rating"],
                                     b_rating=y["rating"], difference=round(diff, 2)))

    greedy([(abs(x["rating"] - y["rating"]), i, j, x, y)
            for i, x in enumerate(pool) for j, y in enumerate(pool[i + 1:i + 1 + WINDOW], i + 1)
            if allowed(x, y)])
    rest = [d for d in pool if d["id"] not in taken]
    greedy([(abs(x["rating"] - y["rating"]), i, j, x, y)
            for i, x in enumerate(rest) for j, y in enumerate(rest[i + 1:], i + 1)
            if allowed(x, y)])
    by_name = {d["name"]: d for d in pool}
    while True:                     # two left alone who may not meet: split a pair for them
        rest = [d for d in pool if d["id"] not in taken]
        best = None
        for i, u in enumerate(rest):
            for v in rest[i + 1:]:
                for k, pr in enumerate(pairs):
                    x, y = by_name[pr.a], by_name[pr.b]
                    for p1, p2 in ((x, y), (y, x)):
                        if allowed(u, p1) and allowed(v, p2):
                            cost = (abs(u["rating"] - p1["rating"])
                                    + abs(v["rating"] - p2["rating"]) - pr.difference)
                            cand = (cost, k, u["name"], v["name"], p1["name"], p2["name"])
                            if best is None or cand < best:
                                best = cand
        if best is None:
            break
        _, k, un, vn, p1n, p2n = best
        del pairs[k]
        for m, n in ((un, p1n), (vn, p2n)):
            x, y = by_name[m], by_name[n]
            taken.update((x["id"], y["id"]))
            pairs.append(Pairing(a=x["name"], b=y["name"], a_rating=x["rating"],
                                 b_rating=y["rating"],
                                 difference=round(abs(x["rating"] - y["rating"]), 2)))
    pairs.sort(key=lambda p: (-max(p.a_rating, p.b_rating), p.a, p.b))
    return Proposal(pairs=pairs, unpaired=[d["name"] for d in pool if d["id"] not in taken])


def as_text(p: Proposal) -> str:
    """The proposal as lines of text."""
    lines = [f"{x.a} ({x.a_rating:.2f}) vs {x.b} ({x.b_rating:.2f}): difference "
             f"{x.difference:.2f}" for x in p.pairs]
    if not p.pairs:
        lines.append("No pairing possible.")
    if p.unpaired:
        lines.append("Unpaired: " + ", ".join(p.unpaired))
    return "\n".join(lines) + "\n"
