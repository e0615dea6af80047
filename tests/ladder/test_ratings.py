"""Ratings: openskill's own updates, overall and per title, draws included, replayed in
recorded order; the incremental update equals a full replay."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from ladder.helpers import ok, refused, run, synthetic_game, synthetic_ladder
from pbem.ladder import ratings


def _rating(conn, pid: int, scope: str = "overall"):  # type: ignore[no-untyped-def]
    return conn.execute("SELECT * FROM ratings WHERE player_id = ? AND scope = ?",
                        (pid, scope)).fetchone()


def test_one_game_is_exactly_openskills_update(tmp_path: Path) -> None:
    conn, (a, b) = synthetic_ladder(tmp_path / "l.ladder", 2)
    synthetic_game(conn, 1, a, b, "win")
    m = PlackettLuce()
    [[wa], [wb]] = m.rate([[m.rating()], [m.rating()]], ranks=[1, 2])
    for pid, want in ((a, wa), (b, wb)):
        for scope in ("overall", "holdfast"):
            r = _rating(conn, pid, scope)
            assert (r["mu"], r["sigma"], r["rating"]) == (want.mu, want.sigma, want.ordinal())
    assert _rating(conn, a)["wins"] == 1 and _rating(conn, b)["losses"] == 1


def test_a_draw_is_openskills_tie(tmp_path: Path) -> None:
    conn, (a, b) = synthetic_ladder(tmp_path / "l.ladder", 2)
    synthetic_game(conn, 1, a, b, "win")
    synthetic_game(conn, 2, a, b, "draw")
    m = PlackettLuce()
    [[wa], [wb]] = m.rate([[m.rating()], [m.rating()]], ranks=[1, 2])
    [[da], [db]] = m.rate([[wa], [wb]], ranks=[1, 1])
    assert _rating(conn, a)["mu"] == da.mu and _rating(conn, b)["mu"] == db.mu
    assert _rating(conn, a)["draws"] == 1 and _rating(conn, b)["draws"] == 1
    assert da.mu < wa.mu and db.mu > wb.mu          # the favourite loses ground in a draw


def test_titles_are_rated_separately_and_overall_together(tmp_path: Path) -> None:
    conn, (a, b, c) = synthetic_ladder(tmp_path / "l.ladder", 3)
    synthetic_game(conn, 1, a, b, "win", game="holdfast")
    synthetic_game(conn, 2, a, c, "loss", game="kasserine")
    assert _rating(conn, a, "holdfast")["games"] == 1
    assert _rating(conn, a, "kasserine")["games"] == 1
    assert _rating(conn, a)["games"] == 2
    assert _rating(conn, b, "kasserine") is None
    assert _rating(conn, a, "holdfast")["mu"] != _rating(conn, a)["mu"]
    hist = ratings.history(conn, a)
    assert [h["game_seq"] for h in hist] == [1, 2]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4),
                          st.sampled_from(["win", "loss", "draw"]),
                          st.sampled_from(["holdfast", "kasserine", "dash"])), max_size=25))
def test_recording_game_by_game_equals_a_full_replay(tmp_path_factory,  # type: ignore
                                                     games) -> None:
    conn, pids = synthetic_ladder(tmp_path_factory.mktemp("h") / "l.ladder", 5)
    n = 0
    for x, y, result, title in games:
        if x != y:
            n += 1
            synthetic_game(conn, n, pids[x], pids[y], result, game=title)
    assert ratings.check(conn) == []
    before = [tuple(r) for r in conn.execute("SELECT * FROM ratings ORDER BY player_id, scope")]
    ratings.recompute(conn)
    after = [tuple(r) for r in conn.execute("SELECT * FROM ratings ORDER BY player_id, scope")]
    assert before == after
    assert conn.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0] == 4 * n


def test_recompute_and_check_through_the_cli(full_ladder: Path) -> None:
    assert "OK" in ok("ladder", "recompute", full_ladder, "--check").output
    con = sqlite3.connect(full_ladder)
    with con:
        con.execute("UPDATE ratings SET mu = mu + 1 WHERE player_id = 1 AND scope = 'overall'")
    con.close()
    refused("ladder", "recompute", full_ladder, "--check")
    assert "Ratings replayed from 14 recorded games" in ok("ladder", "recompute",
                                                           full_ladder).output
    ok("ladder", "recompute", full_ladder, "--check")


def _plain_openskill(conn) -> dict:  # type: ignore[no-untyped-def]
    """Every rating by asking openskill's rate for every game and scope (no memo, no
    checkpoint): the reference the ladder's replay must equal to the last bit."""
    m = PlackettLuce()
    state: dict = {}
    games = conn.execute("SELECT seq, game FROM games ORDER BY seq").fetchall()
    for seq, game in games:
        sides = conn.execute("SELECT player_id, result FROM game_players WHERE game_seq = ? "
                             "ORDER BY side", (seq,)).fetchall()
        for scope in ("overall", game):
            olds = [state.get((p, scope)) or m.rating() for p, _ in sides]
            new = m.rate([[r] for r in olds], ranks=[ratings.RANK[r] for _, r in sides])
            for (p, _), team in zip(sides, new):
                state[(p, scope)] = team[0]
    return {k: (r.mu, r.sigma) for k, r in state.items()}


def test_the_replay_gives_exactly_openskills_answers(tmp_path: Path) -> None:
    """Wins, losses and draws, new players and players with history, both titles: every
    rating of the replay is exactly what plain `rate` calls give."""
    conn, pids = synthetic_ladder(tmp_path / "l.ladder", 12)
    n = 0
    for i in range(0, 12, 2):                     # six first games between new players
        n += 1
        synthetic_game(conn, n, pids[i], pids[i + 1], "win")
    for i in range(12):
        n += 1
        synthetic_game(conn, n, pids[i], pids[(i + 3) % 12], ["win", "loss", "draw"][i % 3],
                       game=["holdfast", "kasserine"][i % 2])
    t = ratings.replay(conn)
    assert t.asked == 2 * n                         # one call of openskill per game and scope
    got = {k: (e[0].mu, e[0].sigma) for k, e in t.rows.items()}
    assert got == _plain_openskill(conn)
    assert ratings.check(conn) == []


_MU = st.floats(-20, 70, allow_nan=False)
_SIGMA = st.floats(0.05, 12, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_MU, _SIGMA), min_size=2, max_size=5), st.data())
def test_rate_owned_is_plain_openskill_to_the_last_bit(players, data) -> None:  # type: ignore
    """`rate_owned` (no defensive copy; a decided game given as teams in order of finish)
    returns exactly what a plain `rate` call with ranks returns, for any ratings and ranks:
    wins either way, draws, several sides with ties."""
    ranks = data.draw(st.lists(st.integers(1, 3), min_size=len(players),
                               max_size=len(players)))
    m = PlackettLuce()
    plain = m.rate([[m.rating(mu=mu, sigma=s)] for mu, s in players], ranks=list(ranks))
    owned = [m.rating(mu=mu, sigma=s) for mu, s in players]
    new = ratings.rate_owned(owned, list(ranks))
    assert [(r.mu, r.sigma) for r in new] == [(t[0].mu, t[0].sigma) for t in plain]
    assert [r.ordinal() for r in new] == [t[0].ordinal() for t in plain]


def test_rate_owned_updates_the_callers_objects_and_no_other(tmp_path: Path) -> None:
    """The objects given are the ones returned (openskill's copy answered by themselves), so
    the replay keeps one object per player and scope; a plain call leaves its input alone."""
    m = PlackettLuce()
    a, b = m.rating(mu=30.0, sigma=5.0), m.rating(mu=20.0, sigma=6.0)
    x, y = ratings.rate_owned([a, b], [2, 1])      # b won
    assert x is a and y is b and b.mu > 20.0 and a.mu < 30.0
    c, d = m.rating(mu=30.0, sigma=5.0), m.rating(mu=20.0, sigma=6.0)
    [[c2], [d2]] = m.rate([[c], [d]], ranks=[2, 1])
    assert (c.mu, d.mu) == (30.0, 20.0) and (c2.mu, d2.mu) == (a.mu, b.mu)


def test_one_player_on_both_sides_is_rated_from_two_copies(tmp_path: Path) -> None:
    """A game with one player on both sides (only a hand-edited database holds one: submit
    refuses it) rates each side from its own copy; the player keeps the last side's answer,
    and the history has both."""
    conn, (a, b) = synthetic_ladder(tmp_path / "l.ladder", 2)
    synthetic_game(conn, 1, a, b, "win")
    with conn:
        conn.execute("UPDATE game_players SET player_id = ? WHERE game_seq = 1", (a,))
    t = ratings.replay(conn)
    m = PlackettLuce()
    [[w], [lo]] = m.rate([[m.rating()], [m.rating()]], ranks=[1, 2])
    assert (t.rows[(a, "overall")][0].mu, t.rows[(a, "overall")][0].sigma) == (lo.mu, lo.sigma)
    assert t.rows[(a, "overall")][1:] == [2, 1, 1, 0]
    assert [(h[3], h[4]) for h in t.history if h[2] == "overall"] == [(w.mu, w.sigma),
                                                                      (lo.mu, lo.sigma)]


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5),
                          st.sampled_from(["win", "loss", "draw"]),
                          st.sampled_from(["holdfast", "kasserine"])), min_size=1, max_size=20),
       st.integers(1, 20), st.sampled_from(["result", "title"]))
def test_recompute_from_a_game_equals_a_full_rebuild(tmp_path_factory,  # type: ignore
                                                     games, at, change) -> None:
    """After a change at game k, replaying from k over the stored history (a checkpoint)
    gives exactly the ratings and history of a rebuild from scratch; a player left with no
    game in a title loses that title's rating, as in a rebuild."""
    conn, pids = synthetic_ladder(tmp_path_factory.mktemp("k") / "l.ladder", 6)
    n = 0
    for x, y, result, title in games:
        if x != y:
            n += 1
            synthetic_game(conn, n, pids[x], pids[y], result, game=title)
    if n == 0:
        return
    k = min(at, n)
    if change == "result":
        conn.execute("UPDATE game_players SET result = CASE result WHEN 'win' THEN 'loss' "
                     "WHEN 'loss' THEN 'win' WHEN 'draw' THEN CASE side WHEN 'allied' THEN 'win' "
                     "ELSE 'loss' END END WHERE game_seq = ?", (k,))
    else:
        conn.execute("UPDATE games SET game = 'dash' WHERE seq = ?", (k,))
    conn.commit()
    assert ratings.check(conn) != []                # the stored ratings are now stale
    assert ratings.recompute(conn, k) == n - k + 1
    assert ratings.check(conn) == []
    from_k = [tuple(r) for r in conn.execute("SELECT * FROM ratings ORDER BY 1, 2")]
    hist_k = [tuple(r) for r in conn.execute("SELECT * FROM rating_history ORDER BY 1, 2, 3")]
    ratings.recompute(conn)
    assert from_k == [tuple(r) for r in conn.execute("SELECT * FROM ratings ORDER BY 1, 2")]
    assert hist_k == [tuple(r) for r in conn.execute(
        "SELECT * FROM rating_history ORDER BY 1, 2, 3")]
    got = {(r[0], r[1]): (r[2], r[3]) for r in conn.execute("SELECT * FROM ratings")}
    assert got == _plain_openskill(conn)


def test_recompute_from_through_the_cli(full_ladder: Path) -> None:
    con = sqlite3.connect(full_ladder)
    with con:                                   # game 2's result changes: stale from game 2 on
        con.execute("UPDATE game_players SET result = CASE result WHEN 'win' THEN 'loss' "
                    "ELSE 'win' END WHERE game_seq = 2")
    con.close()
    assert "Ratings replayed from 4 recorded games (from game 11 on)" in ok(
        "ladder", "recompute", full_ladder, "--from", "11").output
    stale = run("ladder", "recompute", full_ladder, "--check")  # games 2 to 10: still stale
    assert stale.exit_code == 1 and "Error: player " in stale.output
    assert "(from game 2 on)" in ok("ladder", "recompute", full_ladder, "--from", "2").output
    ok("ladder", "recompute", full_ladder, "--check")
    assert "--from" in refused("ladder", "recompute", full_ladder, "--from", "0")


def test_a_game_recorded_before_the_last_rated_one_replays_from_there(tmp_path: Path) -> None:
    """The last game taken out by hand (its history left behind): the next game recorded
    takes its number, so the ratings are replayed from that game on, over the checkpoint, and
    equal a rebuild from scratch."""
    conn, pids = synthetic_ladder(tmp_path / "l.ladder", 4)
    for n, (a, b, r) in enumerate([(0, 1, "win"), (2, 3, "draw"), (0, 2, "loss"),
                                   (1, 3, "win")], 1):
        synthetic_game(conn, n, pids[a], pids[b], r)
    conn.execute("PRAGMA foreign_keys = OFF")
    with conn:
        conn.execute("DELETE FROM game_players WHERE game_seq = 4")
        conn.execute("DELETE FROM games WHERE seq = 4")
    conn.execute("PRAGMA foreign_keys = ON")
    assert synthetic_game(conn, 5, pids[0], pids[3], "win", game="kasserine") == 4
    assert ratings.check(conn) == []
    assert _rating(conn, pids[1])["games"] == 1              # game 4 of the first list is gone
    assert _rating(conn, pids[3], "kasserine")["wins"] == 0
