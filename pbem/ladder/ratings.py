"""Ratings with openskill (Weng-Lin, Plackett-Luce model, library defaults), overall and per
game title, draws included, replayed from the recorded games in the order they were recorded.

No rating arithmetic is written here: every update is `openskill`'s `model.rate`, and the
displayed rating is its `ordinal()` (mu - 3 sigma). A new game is always recorded last, so
updating the two players' ratings when it is recorded gives exactly what a replay of every
game from the first would give. `recompute` replays everything from scratch, or from game
k on, starting from the stored history just before k (a checkpoint: the ratings after game
k - 1 are in `rating_history`); `check` compares the stored ratings with a full replay.

A replay asks openskill once per game and scope, except when it has already asked the very
same question in this replay (the same mu and sigma for every player, the same ranks): then
it reuses that answer, which is the same objects openskill returned (`model.rate` is a pure
function of those numbers; the library's model parameters never change here).
"""

from __future__ import annotations

import gc
import sqlite3
from functools import lru_cache
from typing import Any, Iterable

OVERALL = "overall"
RANK = {"win": 1, "draw": 1, "loss": 2}
COLUMN = {"win": 2, "loss": 3, "draw": 4}     # an entry's count column for each result
MEMO_MAX = 65_536                             # answers kept by one replay (then forgotten)


@lru_cache(maxsize=1)
def model() -> Any:
    """The openskill model every rating uses (Plackett-Luce with the library's defaults)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


class Table:
    """Ratings in memory: (player, scope) -> [rating object, games, wins, losses, draws], and
    the history rows of the games rated into it."""

    def __init__(self) -> None:
        self.rows: dict[tuple[int, str], list[Any]] = {}
        self.history: list[tuple[int, int, str, float, float, float]] = []
        self.memo: dict[tuple[Any, ...], list[Any]] = {}
        self.asked = 0                # calls to openskill's rate (the rest came from memo)

    def get(self, pid: int, scope: str) -> list[Any]:
        """The entry of a player in a scope (a fresh default rating if it has none)."""
        row = self.rows.get((pid, scope))
        if row is None:
            row = self.rows[(pid, scope)] = [model().rating(), 0, 0, 0, 0]
        return row

    def _update(self, olds: list[Any], ranks: list[int]) -> list[Any]:
        """openskill's new ratings for one game (players' old ratings, their ranks)."""
        key = (*[(r.mu, r.sigma) for r in olds], *ranks)
        new = self.memo.get(key)
        if new is None:
            self.asked += 1
            if len({id(r) for r in olds}) < len(olds):
                # A memo answer is shared by the players it was given to; openskill deep-copies
                # its teams as one structure, so one object passed twice would be copied once
                # and updated twice. Each player gets an object of its own.
                olds = [model().rating(mu=r.mu, sigma=r.sigma) if any(r is o for o in olds[:i])
                        else r for i, r in enumerate(olds)]
            new = [team[0] for team in model().rate([[r] for r in olds], ranks=ranks)]
            if len(self.memo) >= MEMO_MAX:
                self.memo.clear()
            self.memo[key] = new
        return new

    def rate(self, seq: int, game: str, results: list[tuple[int, str]]) -> None:
        """Apply one recorded game (players and their results, in side order)."""
        ranks = [RANK[r] for _, r in results]
        history = self.history
        for scope in (OVERALL, game):
            entries = [self.get(pid, scope) for pid, _ in results]
            new = self._update([e[0] for e in entries], ranks)
            for (pid, result), e, r in zip(results, entries, new):
                e[0] = r
                e[1] += 1
                e[COLUMN[result]] += 1
                history.append((seq, pid, scope, r.mu, r.sigma, r.ordinal()))

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
    transaction); a game recorded out of order makes it replay from that game on."""
    last = conn.execute("SELECT MAX(game_seq) FROM rating_history").fetchone()[0]
    if last is not None and last >= seq:
        _recompute_from(conn, seq)
        return
    game, results = _results(conn, seq)
    t = _load(conn, [p for p, _ in results], [OVERALL, game])
    t.rate(seq, game, results)
    _store(conn, t)


TOUCHED = ("SELECT player_id FROM game_players WHERE game_seq >= :start UNION "
           "SELECT player_id FROM rating_history WHERE game_seq >= :start")


def _touched(conn: sqlite3.Connection, start: int) -> list[int]:
    """Players whose ratings a replay from game `start` on may change: every player of a game
    from `start` on, and every player with stored history from `start` on."""
    return sorted(r[0] for r in conn.execute(TOUCHED, {"start": start}))


def checkpoint(conn: sqlite3.Connection, start: int) -> Table:
    """The ratings just before game `start` of the players `_touched` from `start` on: each
    one's rating after its last game before `start` in each scope, read from the stored
    history, with its counts of games and results before `start` (LadderError if the history
    lacks a rating it should hold). Two queries, whatever the number of players."""
    from pbem.ladder.db import LadderError

    counts: dict[tuple[int, str], list[int]] = {}
    for pid, game, n, wins, losses, draws in conn.execute(
            "SELECT gp.player_id, g.game, COUNT(*), SUM(gp.result = 'win'), "
            "SUM(gp.result = 'loss'), SUM(gp.result = 'draw') FROM game_players gp "
            "JOIN games g ON g.seq = gp.game_seq WHERE gp.game_seq < :start AND "
            f"gp.player_id IN ({TOUCHED}) GROUP BY gp.player_id, g.game", {"start": start}):
        counts[(pid, game)] = [n, wins, losses, draws]
        total = counts.setdefault((pid, OVERALL), [0, 0, 0, 0])
        for i, v in enumerate((n, wins, losses, draws)):
            total[i] += v
    # SQLite takes the bare columns of an aggregate query from the row of its MAX()
    last = {(pid, scope): (mu, sigma) for pid, scope, mu, sigma, _ in conn.execute(
        "SELECT player_id, scope, mu, sigma, MAX(game_seq) FROM rating_history WHERE "
        f"game_seq < :start AND player_id IN ({TOUCHED}) GROUP BY player_id, scope",
        {"start": start})}
    t = Table()
    m = model()
    for key, c in sorted(counts.items()):
        if key not in last:
            raise LadderError(f"player {key[0]} {key[1]}: no stored rating before game {start} "
                              "(replay every game: pbem ladder recompute without --from)")
        mu, sigma = last[key]
        t.rows[key] = [m.rating(mu=mu, sigma=sigma), *c]
    return t


def replay(conn: sqlite3.Connection, start: int = 1) -> Table:
    """Ratings computed again from the recorded games in recorded order: every game from
    scratch (start 1), or the games from `start` on over `checkpoint` (then the table holds
    only the players `_touched` from `start` on, and only their history from `start` on)."""
    t = checkpoint(conn, start) if start > 1 else Table()
    # The loop builds hundreds of thousands of objects and no reference cycle: the cyclic
    # collector would only walk them again and again (a third of the time at 100,000 games).
    was_on = gc.isenabled()
    gc.disable()
    try:
        _rate_rows(t, start, conn)
    finally:
        if was_on:
            gc.enable()
    return t


def _rate_rows(t: Table, start: int, conn: sqlite3.Connection) -> None:
    """Rate into t every recorded game from `start` on, in recorded order."""
    rows = conn.execute("SELECT g.seq, g.game, gp.player_id, gp.result FROM games g "
                        "JOIN game_players gp ON gp.game_seq = g.seq WHERE g.seq >= ? "
                        "ORDER BY g.seq, gp.side", (start,))
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


def _replace_all(conn: sqlite3.Connection, t: Table) -> None:
    conn.execute("DELETE FROM rating_history")
    conn.execute("DELETE FROM ratings")
    _store(conn, t)


def _recompute_from(conn: sqlite3.Connection, start: int) -> None:
    """Replay from game `start` on and store it (inside the caller's transaction)."""
    if start <= 1:
        _replace_all(conn, replay(conn))
        return
    pids = _touched(conn, start)
    t = replay(conn, start)
    conn.execute("DELETE FROM rating_history WHERE game_seq >= ?", (start,))
    conn.executemany("DELETE FROM ratings WHERE player_id = ?", [(p,) for p in pids])
    _store(conn, t)


def recompute(conn: sqlite3.Connection, start: int | None = None) -> int:
    """Replay the ratings from the recorded games and store them (one transaction): every
    game from scratch, or (start) the games from game `start` on, over the stored history
    before it; returns the number of games replayed."""
    from pbem.ladder.db import transaction

    first = 1 if start is None else max(1, start)
    with transaction(conn):
        _recompute_from(conn, first)
    return conn.execute("SELECT COUNT(*) FROM games WHERE seq >= ?", (first,)).fetchone()[0]


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
