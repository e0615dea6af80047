"""Recording a result: the game, each side's player and result, the stored archive, and the
rating update (all inside the caller's transaction)."""

from __future__ import annotations

import json
import sqlite3

import msgspec

from pbem.ladder import ratings
from pbem.ladder.archives import Audited
from pbem.ladder.db import now


class SideResult(msgspec.Struct, kw_only=True):
    """One side of a recorded game."""

    side: str
    player_id: int
    fingerprint: str
    result: str                 # win / loss / draw
    dice: int = 0               # public rolls in this side's own files
    dice_dev: float = 0.0       # the sum of their deviations from the mean, in sd


class GameRecord(msgspec.Struct, kw_only=True):
    """A result to record."""

    game_id: str
    game: str
    title: str
    scenario: str
    mode: str
    kind: str                   # played / forfeit
    reason: str
    files: int
    turns: int
    sides: list[SideResult]
    archive_id: int | None = None
    recorded: str = ""
    # per-face public dice (side, purpose kind, die, counts); None: not known (a forfeit)
    faces: list[tuple[str, str, int, list[int]]] | None = None


def store_archive(conn: sqlite3.Connection, a: Audited) -> int:
    """Keep an audited archive (the zip of the copy audited and its facts); returns its id."""
    f = a.facts
    outcome = None if f.outcome is None else json.dumps(
        {"winner": f.outcome.winner, "reason": f.outcome.reason}, sort_keys=True)
    cur = conn.execute(
        "INSERT INTO archives(game_id, party, kind, received, digest, facts, outcome, zip) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (f.game_id, f.party, f.kind, now(), a.digest,
         json.dumps({str(k): v for k, v in sorted(f.facts.items())}), outcome, a.zip))
    return int(cur.lastrowid)  # type: ignore[arg-type]


def record_game(conn: sqlite3.Connection, rec: GameRecord) -> int:
    """Insert a game and its sides, then update the ratings; returns the game's number."""
    cur = conn.execute(
        "INSERT INTO games(game_id, game, title, scenario, mode, kind, reason, files, turns, "
        "recorded, archive_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (rec.game_id, rec.game, rec.title, rec.scenario, rec.mode, rec.kind, rec.reason,
         rec.files, rec.turns, rec.recorded or now(), rec.archive_id))
    seq = int(cur.lastrowid)  # type: ignore[arg-type]
    conn.executemany(
        "INSERT INTO game_players(game_seq, side, player_id, fingerprint, result, dice, "
        "dice_dev) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(seq, s.side, s.player_id, s.fingerprint, s.result, s.dice, s.dice_dev)
         for s in rec.sides])
    if rec.faces is not None:
        conn.execute("UPDATE games SET dice_faces = 1 WHERE seq = ?", (seq,))
        conn.executemany(
            "INSERT INTO game_dice(game_seq, side, purpose, die, counts) VALUES (?, ?, ?, ?, ?)",
            [(seq, side, purpose, die, json.dumps(counts)) for side, purpose, die, counts
             in rec.faces])
    ratings.apply_game(conn, seq)
    return seq


def results_for(winner: str | None, sides: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Each side's result from the winning side (None: a draw)."""
    return {s: "draw" if winner is None else "win" if s == winner else "loss" for s in sides}
