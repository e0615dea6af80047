"""`pbem ladder standings` in text, JSON and CSV, and the other listings."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from ladder.helpers import ok, refused, synthetic_game, synthetic_ladder
from pbem.ladder.standings import as_csv, as_text, standings


def test_json_csv_and_text_agree(full_ladder: Path) -> None:
    rows = json.loads(ok("ladder", "standings", full_ladder, "--format", "json").output)
    assert isinstance(rows, list) and len(rows) == 8
    for r in rows:
        assert {"name", "fingerprint", "rating", "games", "wins", "losses", "draws"} <= set(r)
        assert r["wins"] + r["losses"] + r["draws"] == r["games"]
    # competition ranking: equal ratings share a rank, the next rank counts them all
    assert rows[0]["rank"] == 1
    for i, (a, b) in enumerate(zip(rows, rows[1:]), 2):
        assert b["rank"] == (a["rank"] if b["rating"] == a["rating"] else i), rows
    table = list(csv.DictReader(io.StringIO(ok("ladder", "standings", full_ladder, "--format",
                                               "csv").output)))
    assert [t["name"] for t in table] == [r["name"] for r in rows]
    assert [float(t["rating"]) for t in table] == [r["rating"] for r in rows]
    text = ok("ladder", "standings", full_ladder).output.splitlines()
    assert text[0].split()[:3] == ["#", "player", "fingerprint"]
    assert [ln.split()[1] for ln in text[1:9]] == [r["name"] for r in rows]


def test_per_title_standings(full_ladder: Path) -> None:
    rows = json.loads(ok("ladder", "standings", full_ladder, "--game", "holdfast", "--format",
                         "json", "--min-games", "1").output)
    assert sorted(r["name"] for r in rows) == ["Erin", "Finn", "Gus", "Hal"]
    assert all(r["games"] == 1 for r in rows)
    assert "unknown game" in refused("ladder", "standings", full_ladder, "--game", "chess")


def test_players_without_games_rank_after_winners_and_draws_count(tmp_path: Path) -> None:
    conn, (a, b, c) = synthetic_ladder(tmp_path / "l.ladder", 3)
    synthetic_game(conn, 1, a, b, "draw")
    rows = standings(conn)
    by = {r["id"]: r for r in rows}
    assert by[a]["draws"] == 1 and by[b]["draws"] == 1 and by[c]["games"] == 0
    assert by[c]["rating"] == 0.0


def test_csv_cells_never_start_a_spreadsheet_formula() -> None:
    out = as_csv([{"rank": 1, "name": "=HYPERLINK(\"x\")", "fingerprint": "F", "rating": -1.5,
                   "mu": 1, "sigma": 1, "games": 0, "wins": 0, "losses": 0, "draws": 0}])
    row = list(csv.reader(io.StringIO(out)))[1]
    assert row[1].startswith("'=") and row[3] == "-1.5"


def test_listings(full_ladder: Path) -> None:
    games = json.loads(ok("ladder", "games", full_ladder, "--format", "json").output)
    assert [g["seq"] for g in games] == list(range(1, 15))
    assert "#14" in ok("ladder", "games", full_ladder).output
    assert "players: 8" in ok("ladder", "info", full_ladder).output
    assert "No forfeit claims." in ok("ladder", "forfeits", full_ladder).output
    assert "No conflicts." in ok("ladder", "conflicts", full_ladder).output
    players = json.loads(ok("ladder", "players", full_ladder, "--format", "json").output)
    assert len(players) == 8


def test_unrated_players_are_unranked_and_last_and_ties_share_a_rank(tmp_path: Path) -> None:
    """A player without a game in the scope has no rank and comes after every rated one (a
    rating of 0 above a player who lost would say he did better); two players with the same
    rating share a rank; a game title nobody played ranks nobody."""
    conn, (a, b, c, d) = synthetic_ladder(tmp_path / "l.ladder", 4)
    synthetic_game(conn, 1, a, b, "draw")
    synthetic_game(conn, 2, a, c, "win")
    rows = standings(conn)
    by = {r["id"]: r for r in rows}
    assert by[c]["rating"] < 0 and by[d]["games"] == 0
    assert by[d]["rank"] is None and rows[-1]["id"] == d
    assert all(r["rank"] is not None for r in rows[:-1])
    text = as_text(rows).splitlines()
    assert text[-1].split()[0] == "-"
    conn.execute("UPDATE ratings SET rating = 1.5, mu = 1, sigma = 1")    # all equal
    ranks = {r["rank"] for r in standings(conn) if r["games"]}
    assert ranks == {1}
    assert all(r["rank"] is None for r in standings(conn, "kasserine"))
