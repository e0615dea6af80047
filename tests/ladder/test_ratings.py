"""Ratings: openskill's own updates, overall and per title, draws included, replayed in
recorded order; the incremental update equals a full replay."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from ladder.helpers import ok, refused, synthetic_game, synthetic_ladder
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
