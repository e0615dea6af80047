"""Ratings with openskill (Weng-Lin, Plackett-Luce model, library defaults), overall and per
game title, draws included, replayed from the recorded games in the order they were recorded.

No rating arithmetic is written here: every update is `openskill`'s `model.rate`, and the
displayed rating is its `ordinal()` (mu - 3 sigma). A new game is always recorded last, so
updating the two players' ratings when it is recorded gives exactly what a replay of every
game from the first would give. `recompute` replays everything from scratch, or from game
k on, starting from the stored history just before k (a checkpoint: the ratings after game
k - 1 are in `rating_history`); `check` compares the stored ratings with a full replay.

A replay asks openskill's `rate` once per game and scope, in the forms that cost it least
(`rate_owned`): each player's rating object belongs to its entry alone, so `rate`'s defensive
deep copy is answered with the objects themselves (`_Owned`), and a game won by one side is
given as teams in order of finish, without ranks (a draw is given with ranks). The answers
are the library's to the last bit (tests/ladder/test_ratings.py compares them with plain
`rate` calls); docs/performance.md (Ladder) has the measured costs.
"""

from __future__ import annotations

import gc
import sqlite3
from functools import lru_cache
from typing import Any, Iterable, Iterator

OVERALL = "overall"
RANK = {"win": 1, "draw": 1, "loss": 2}
COLUMN = {"win": 2, "loss": 3, "draw": 4}     # an entry's count column for each result


@lru_cache(maxsize=1)
def model() -> Any:
    """The openskill model every rating uses (Plackett-Luce with the library's defaults)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


class _Owned(list):  # type: ignore[type-arg]
    """Teams for openskill's ``rate`` whose rating objects belong to the caller alone.

    ``rate`` first deep-copies the teams it is given (``copy.deepcopy``), so that it never
    changes the caller's objects, and returns the updated copies. Each player's rating object
    in a replay is its own and is replaced by the answer anyway, so the copy only costs time
    (half of a call): through Python's documented ``__deepcopy__`` hook this list answers the
    copy with itself, and ``rate`` updates these very objects and returns them. The numbers
    are the library's, bit for bit (tests/ladder/test_ratings.py compares with plain calls).
    """

    def __deepcopy__(self, memo: dict[int, Any]) -> "_Owned":
        return self


def rate_owned(olds: list[Any], ranks: list[int]) -> list[Any]:
    """openskill's new ratings for one game: these rating objects (one per side, each owned by
    the caller and passed once; openskill 6 updates them in place) and ranks (1 first; equal =
    draw). All ranks different: the teams in order of finish without ranks, the form ``rate``
    documents for it (the first team won), which skips its rank checks and sorting; ties: with
    ranks. Returns the rating of each side, in side order."""
    rate = model().rate
    if len(ranks) == 2 and ranks[0] != ranks[1]:
        if ranks[0] < ranks[1]:
            (x,), (y,) = rate(_Owned([[olds[0]], [olds[1]]]))
            return [x, y]
        (y,), (x,) = rate(_Owned([[olds[1]], [olds[0]]]))
        return [x, y]
    if len(set(ranks)) == len(ranks):
        order = sorted(range(len(olds)), key=ranks.__getitem__)
        new = rate(_Owned([[olds[i]] for i in order]))
        out: list[Any] = [None] * len(olds)
        for k, i in enumerate(order):
            out[i] = new[k][0]
        return out
    return [team[0] for team in rate(_Owned([[r] for r in olds]), ranks=ranks)]


class Table:
    """Ratings in memory: (player, scope) -> [rating object, games, wins, losses, draws], and
    the history rows of the games rated into it. Every rating object belongs to its entry
    alone: openskill's rate updates it in place (``rate_owned``), and the entry keeps what
    rate returns."""

    def __init__(self) -> None:
        self.rows: dict[tuple[int, str], list[Any]] = {}
        self.history: list[tuple[int, int, str, float, float, float]] = []
        self.asked = 0                # calls to openskill's rate

    def get(self, pid: int, scope: str) -> list[Any]:
        """The entry of a player in a scope (a fresh default rating if it has none)."""
        row = self.rows.get((pid, scope))
        if row is None:
            row = self.rows[(pid, scope)] = [model().rating(), 0, 0, 0, 0]
        return row

    def rate(self, seq: int, game: str, results: list[tuple[int, str]]) -> None:
        """Apply one recorded game (players and their results, in side order)."""
        scopes = (OVERALL, game)
        if len(results) == 2:
            self._rate_two(seq, scopes, results)
            return
        ranks = [RANK[r] for _, r in results]
        add = self.history.append
        for scope in scopes:
            entries = [self.get(pid, scope) for pid, _ in results]
            self.asked += 1
            if len({id(e) for e in entries}) < len(entries):
                self._rate_twice(seq, scope, results, entries, ranks)
                continue
            new = rate_owned([e[0] for e in entries], ranks)
            for (pid, result), e, r in zip(results, entries, new):
                e[0] = r
                e[1] += 1
                e[COLUMN[result]] += 1
                add((seq, pid, scope, r.mu, r.sigma, r.ordinal()))

    def _rate_two(self, seq: int, scopes: tuple[str, ...], results: list[tuple[int, str]]
                  ) -> None:
        """``rate`` for a game of two sides (every ladder game), written out: the same calls
        of openskill as ``rate_owned``, without its general loops (a full replay makes
        hundreds of thousands of them)."""
        (pa, ra), (pb, rb) = results
        ka, kb, ca, cb = RANK[ra], RANK[rb], COLUMN[ra], COLUMN[rb]
        rows, add, rate = self.rows, self.history.append, model().rate
        for scope in scopes:
            ea = rows.get((pa, scope)) or self.get(pa, scope)
            eb = rows.get((pb, scope)) or self.get(pb, scope)
            self.asked += 1
            if ea is eb:
                self._rate_twice(seq, scope, results, [ea, eb], [ka, kb])
                continue
            if ka < kb:                              # the first team won (rate's own form)
                (x,), (y,) = rate(_Owned([[ea[0]], [eb[0]]]))
            elif ka > kb:
                (y,), (x,) = rate(_Owned([[eb[0]], [ea[0]]]))
            else:
                (x,), (y,) = rate(_Owned([[ea[0]], [eb[0]]]), ranks=[ka, kb])
            ea[0] = x
            ea[1] += 1
            ea[ca] += 1
            eb[0] = y
            eb[1] += 1
            eb[cb] += 1
            add((seq, pa, scope, x.mu, x.sigma, x.ordinal()))
            add((seq, pb, scope, y.mu, y.sigma, y.ordinal()))

    def _rate_twice(self, seq: int, scope: str, results: list[tuple[int, str]],
                    entries: list[list[Any]], ranks: list[int]) -> None:
        """A player on two sides of one game (only a database edited by hand holds one; the
        ladder refuses it): each side rated from its own copy by a plain call, the entry
        taking each side's answer in turn, as a replay always did."""
        m = model()
        new = m.rate([[m.rating(mu=e[0].mu, sigma=e[0].sigma)] for e in entries], ranks=ranks)
        for (pid, result), e, team in zip(results, entries, new):
            r = e[0] = team[0]
            e[1] += 1
            e[COLUMN[result]] += 1
            self.history.append((seq, pid, scope, r.mu, r.sigma, r.ordinal()))

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


GAME_ROWS = ("SELECT g.seq, g.game, gp.player_id, gp.result FROM games g JOIN game_players gp "
             "ON gp.game_seq = g.seq WHERE g.seq >= ? ORDER BY g.seq, gp.side")


def game_rows(conn: sqlite3.Connection, start: int) -> Iterable[tuple[int, str, int, str]]:
    """Every recorded game's players from game `start` on, in recorded order and side order:
    (seq, game, player id, result) as plain tuples, in one query."""
    cur = conn.cursor()
    cur.row_factory = None
    return cur.execute(GAME_ROWS, (start,))


def _games(conn: sqlite3.Connection, start: int) -> Iterator[tuple[int, str,
                                                                 list[tuple[int, str]]]]:
    """Every recorded game from `start` on, in recorded order: (seq, title, its players and
    results in side order)."""
    last, title = 0, ""                        # game numbers start at 1
    results: list[tuple[int, str]] = []
    for seq, game, pid, result in game_rows(conn, start):
        if seq != last:
            if results:
                yield last, title, results
            last, title, results = seq, game, []
        results.append((pid, result))
    if results:
        yield last, title, results


def _rate_rows(t: Table, start: int, conn: sqlite3.Connection) -> None:
    """Rate into t every recorded game from `start` on, in recorded order."""
    rate = t.rate
    for seq, game, results in _games(conn, start):
        rate(seq, game, results)


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
