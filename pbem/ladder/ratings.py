"""Ratings with openskill (Weng-Lin, Plackett-Luce model, library defaults), overall and per
game title, draws included, replayed from the recorded games in the order they were recorded.

No rating arithmetic is written here: every update is `openskill`'s `model.rate`, and the
displayed rating is its `ordinal()` (mu - 3 sigma). A new game is always recorded last, so
updating the two players' ratings when it is recorded gives exactly what a replay of every
game from the first would give; `recompute` replays everything (and `check` compares).
"""

from __future__ import annotations

import sqlite3
from functools import lru_cache
from typing import Any, Iterable

OVERALL = "overall"
RANK = {"win": 1, "draw": 1, "loss": 2}


@lru_cache(maxsize=1)
def model() -> Any:
    """The openskill model every rating uses (Plackett-Luce with the library's defaults)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


class Table:
    """Ratings in memory: (player, scope) -> [rating object, games, wins, losses, draws]."""

    def __init__(self) -> None:
        self.rows: dict[tuple[int, str], list[Any]] = {}
        self.history: list[tuple[int, int, str, float, float, float]] = []

    def get(self, pid: int, scope: str) -> list[Any]:
        """The entry of a player in a scope (a fresh default rating if it has none)."""
        row = self.rows.get((pid, scope))
        if row is None:
            row = self.rows[(pid, scope)] = [model().rating(), 0, 0, 0, 0]
        return row

    def rate(self, seq: int, game: str, results: list[tuple[int, str]]) -> None:
        """Apply one recorded game (players and their results, in side order)."""
        m = model()
        for scope in (OVERALL, game):
            entries = [self.get(pid, scope) for pid, _ in results]
            teams = m.rate([[e[0]] for e in entries], ranks=[RANK[r] for _, r in results])
            for (pid, result), e, team in zip(results, entries, teams):
                e[0] = team[0]
                e[1] += 1
                e[2 + ("win", "loss", "draw").index(result)] += 1
                self.history.append((seq, pid, scope, e[0].mu, e[0].sigma, e[0].ordinal()))

    def rating_rows(self) -> list[tuple[Any, ...]]:
        """Rows of the ratings table, in key order."""
        return [(pid, scope, e[0].mu, e[0].sigma, e[0].ordinal(), *e[1:])
                for (pid, scope), e in sorted(self.rows.items())]


def _load(conn: sqlite3.Connection, pids: Iterable[int], scopes: Iterable[str]) -> Table:
    """The stored ratings of some players in some scopes."""
    t = Table()
    m = model()
    pids, scopes = list(pids), list(scopes)
    q = (f"SELECT * FROM ratings WHERE player_id IN ({','.join('?' * len(pids))}) "
         f"AND scope IN ({','.join('?' * len(scopes))})")
    for r in conn.execute(q, [*pids, *scopes]):
        t.rows[(r["player_id"], r["scope"])] = [m.rating(mu=r["mu"], sigma=r["sigma"]),
                                               r["games"], r["wins"], r["losses"], r["draws"]]
    return t


def _results(conn: sqlite3.Connection, seq: int) -> tuple[str, list[tuple[int, str]]]:
    game = conn.execute("SELECT game FROM games WHERE seq = ?", (seq,)).fetchone()[0]
    rows = conn.execute("SELECT player_id, result FROM game_players WHERE game_seq = ? "
                        "ORDER BY side", (seq,)).fetchall()
    return game, [(r[0], r[1]) for r in rows]


def _store(conn: sqlite3.Connection, t: Table) -> None:
    conn.executemany("INSERT OR REPLACE INTO ratings(player_id, scope, mu, sigma, rating, games, "
                     "wins, losses, draws) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", t.rating_rows())
    conn.executemany("INSERT INTO rating_history(game_seq, player_id, scope, mu, sigma, rating) "
                     "VALUES (?, ?, ?, ?, ?, ?)", t.history)


def apply_game(conn: sqlite3.Connection, seq: int) -> None:
    """Update the ratings for game seq, the last one recorded (inside the caller's
    transaction); a game recorded out of order makes it replay everything."""
    last = conn.execute("SELECT MAX(game_seq) FROM rating_history").fetchone()[0]
    if last is not None and last >= seq:
        _replace_all(conn, replay(conn))
        return
    game, results = _results(conn, seq)
    t = _load(conn, [p for p, _ in results], [OVERALL, game])
    t.rate(seq, game, results)
    _store(conn, t)


def replay(conn: sqlite3.Connection) -> Table:
    """Every rating computed again from the recorded games, in recorded order."""
    t = Table()
    rows = conn.execute("SELECT g.seq, g.game, gp.player_id, gp.result FROM games g "
                        "JOIN game_players gp ON gp.game_seq = g.seq ORDER BY g.seq, gp.side")
    cur: tuple[int, str] | None = None
    results: list[tuple[int, str]] = []
    for seq, game, pid, result in rows:
        if cur is not None and cur[0] != seq:
            t.rate(cur[0], cur[1], results)
            results = []
        cur = (seq, game)
        results.append((pid, result))
    if cur is not None:
        t.rate(cur[0], cur[1], results)
    return t


def _replace_all(conn: sqlite3.Connection, t: Table) -> None:
    conn.execute("DELETE FROM rating_history")
    conn.execute("DELETE FROM ratings")
    _store(conn, t)


def recompute(conn: sqlite3.Connection) -> int:
    """Replay every rating from the recorded games and store the result (one transaction);
    returns the number of games replayed."""
    from pbem.ladder.db import transaction

    with transaction(conn):
        t = replay(conn)
        _replace_all(conn, t)
    return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def check(conn: sqlite3.Connection) -> list[str]:
    """Differences between the stored ratings and a full replay (empty: they agree exactly)."""
    t = replay(conn)
    want = {(r[0], r[1]): r for r in t.rating_rows()}
    got = {(r[0], r[1]): tuple(r) for r in conn.execute(
        "SELECT player_id, scope, mu, sigma, rating, games, wins, losses, draws FROM ratings")}
    out = [f"player {k[0]} {k[1]}: stored {got.get(k)}, replay {want.get(k)}"
           for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
    hist = conn.execute("SELECT game_seq, player_id, scope, mu, sigma, rating FROM "
                        "rating_history ORDER BY game_seq, player_id, scope").fetchall()
    if [tuple(h) for h in hist] != sorted(t.history, key=lambda h: (h[0], h[1], h[2])):
        out.append("the rating history differs from the replay")
    return out


def history(conn: sqlite3.Connection, pid: int, scope: str = OVERALL) -> list[sqlite3.Row]:
    """A player's rating after each of its games in a scope, oldest first."""
    return conn.execute("SELECT h.game_seq, h.mu, h.sigma, h.rating, g.recorded, g.game_id "
                        "FROM rating_history h JOIN games g ON g.seq = h.game_seq "
                        "WHERE h.player_id = ? AND h.scope = ? ORDER BY h.game_seq",
                        (pid, scope)).fetchall()


def default_rating() -> tuple[float, float, float]:
    """(mu, sigma, rating) of a player with no game yet."""
    r = model().rating()
    return r.mu, r.sigma, r.ordinal()
