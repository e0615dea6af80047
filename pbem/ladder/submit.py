"""`ladder submit`: record a game only from an archive the ladder audits itself.

The game is recorded only if the archive verifies (pbem's full audit of a private copy),
the game is over, both sides' keys belong to two different registered players, the ladder
accepts the game and scenario, and the game is not recorded yet. A hosted game is recorded
only from the referee's archive: a hosted player's archive holds the referee's signed views,
whose result its audit cannot replay. The same game submitted again (by the other player,
or a hosted player after the referee) is refused as a duplicate; an archive of a
recorded game whose chain or result differs from the recorded archive is a conflict: both
archives are kept as evidence (`ladder conflicts`, `ladder export`) and the command fails.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import msgspec

from pbem.core.keys import fingerprint
from pbem.ladder.archives import Audited, GameFacts, audit_submission, consistent
from pbem.ladder.db import LadderError, accepts, now, transaction
from pbem.ladder.record import GameRecord, SideResult, record_game, results_for, store_archive


class Recorded(msgspec.Struct, kw_only=True):
    """A game the ladder recorded."""

    seq: int
    game_id: str
    title: str
    scenario: str
    winner: str | None           # the winning player's name (None: a draw)
    reason: str
    players: dict[str, str]      # side -> player name
    ratings: dict[str, float]    # player name -> overall rating after the game


def check_accepted(conn: sqlite3.Connection, f: GameFacts, name: str) -> None:
    """LadderError unless the ladder accepts the game and scenario."""
    if not accepts(conn, f.game, f.scenario):
        raise LadderError(f"{name}: this ladder does not accept {f.game} scenario {f.scenario} "
                          "(see 'pbem ladder info')")


def side_players(conn: sqlite3.Connection, f: GameFacts, name: str, *,
                 allow_retired: bool = False) -> dict[str, sqlite3.Row]:
    """Each side's registered key (with its player); LadderError naming every unregistered
    key, a retired key, or one player on both sides."""
    from pbem.ladder.players import key_owner

    out, missing = {}, []
    for side in f.sides:
        row = key_owner(conn, f.pubs[side])
        if row is None:
            missing.append(f"{side} ({fingerprint(f.pubs[side])})")
            continue
        if row["retired"] and not allow_retired:
            raise LadderError(f"{name}: {side}'s key {row['fingerprint']} of {row['name']} was "
                              f"retired on {row['retired']} (the director may accept it with "
                              "--allow-retired)")
        out[side] = row
    if missing:
        raise LadderError(f"{name}: the key{'s' if len(missing) > 1 else ''} of "
                          f"{' and '.join(missing)} {'are' if len(missing) > 1 else 'is'} not "
                          "registered in this ladder")
    if len({r["player_id"] for r in out.values()}) < len(out):
        raise LadderError(f"{name}: both sides are played by {out[f.sides[0]]['name']}")
    return out


def check_replayed(f: GameFacts, name: str, what: str = "archive") -> None:
    """LadderError unless the archive's audit replayed the rules (a hosted player's does not)."""
    if f.kind == "hosted-player":
        raise LadderError(
            f"{name}: a hosted player's {what} cannot prove the result (its audit checks the "
            "referee's signatures and the dice it saw, not the rules, so the referee could "
            "have signed any result): submit the referee's archive or its record, whose audit "
            "replays the game")


def _stored_facts(row: sqlite3.Row) -> tuple[dict[int, str], Any]:
    return ({int(k): v for k, v in json.loads(row["facts"]).items()},
            json.loads(row["outcome"]) if row["outcome"] else None)


def _compare(conn: sqlite3.Connection, a: Audited, game: sqlite3.Row) -> str | None:
    """None if the archive is a copy of the recorded game; else the conflict, in words."""
    f = a.facts
    arch = conn.execute("SELECT * FROM archives WHERE id = ?", (game["archive_id"],)).fetchone()
    facts, outcome = _stored_facts(arch)
    seq = consistent(facts, f.facts)
    if seq is not None:
        return (f"file {seq} differs from the recorded archive's" if seq else
                "the genesis differs from the recorded archive's")
    mine = {"winner": f.outcome.winner, "reason": f.outcome.reason} if f.outcome else None
    if outcome is not None and mine != outcome:
        return (f"its result ({mine}) differs from the recorded archive's ({outcome})")
    return None


def submit(conn: sqlite3.Connection, path: str | Path, *, allow_retired: bool = False
           ) -> Recorded:
    """Audit an archive folder and record its game; LadderError (one line, nothing recorded)
    for every refusal. A conflict is kept as evidence before the error is raised."""
    a = audit_submission(path)
    f, name = a.facts, a.path
    conflict: str | None = None
    with transaction(conn):
        check_accepted(conn, f, name)
        game = conn.execute("SELECT * FROM games WHERE game_id = ?", (f.game_id,)).fetchone()
        if game is not None:
            if game["kind"] == "forfeit":
                raise LadderError(f"{name}: game {f.game_id} is already recorded as a forfeit "
                                  f"(game #{game['seq']})")
            problem = _compare(conn, a, game)
            if problem is None:
                raise LadderError(f"{name}: duplicate: game {f.game_id} is already recorded "
                                  f"(game #{game['seq']}, {game['recorded']})")
            known = conn.execute("SELECT id FROM archives WHERE game_id = ? AND digest = ?",
                                 (f.game_id, a.digest)).fetchone()
            if known is None:          # the same evidence submitted again is kept once
                other = store_archive(conn, a)
                conn.execute("INSERT INTO conflicts(game_id, recorded_archive, other_archive, "
                             "found, problem) VALUES (?, ?, ?, ?, ?)",
                             (f.game_id, game["archive_id"], other, now(), problem))
            conflict = (f"{name}: conflict: game {f.game_id} is recorded (game #{game['seq']}) "
                        f"from a different archive: {problem}; both archives are kept as "
                        "evidence (pbem ladder conflicts)")
        else:
            check_replayed(f, name, a.what)
            rec = _record(conn, a, allow_retired=allow_retired)
    if conflict is not None:
        raise LadderError(conflict)
    return rec


def _record(conn: sqlite3.Connection, a: Audited, *, allow_retired: bool) -> Recorded:
    f, name = a.facts, a.path
    players = side_players(conn, f, name, allow_retired=allow_retired)
    assert f.outcome is not None
    results = results_for(f.outcome.winner, f.sides)
    archive_id = store_archive(conn, a)
    seq = record_game(conn, GameRecord(
        game_id=f.game_id, game=f.game, title=f.title, scenario=f.scenario, mode=f.mode,
        kind="played", reason=f.outcome.reason, files=f.files, turns=f.turns,
        archive_id=archive_id, faces=f.faces,
        sides=[SideResult(side=s, player_id=players[s]["player_id"],
                          fingerprint=players[s]["fingerprint"], result=results[s],
                          dice=f.dice[s][0], dice_dev=f.dice[s][1]) for s in f.sides]))
    # A finished game settles any open forfeit claim about it.
    conn.execute("UPDATE forfeits SET status = 'dismissed', decided = ?, note = ? "
                 "WHERE game_id = ? AND status IN ('pending', 'rebutted')",
                 (now(), f"the finished game was recorded as game #{seq}", f.game_id))
    names = {s: players[s]["name"] for s in f.sides}
    after = {names[s]: conn.execute("SELECT rating FROM ratings WHERE player_id = ? AND "
                                    "scope = 'overall'", (players[s]["player_id"],)).fetchone()[0]
             for s in f.sides}
    return Recorded(seq=seq, game_id=f.game_id, title=f.title, scenario=f.scenario,
                    winner=names[f.outcome.winner] if f.outcome.winner else None,
                    reason=f.outcome.reason, players=names, ratings=after)


def conflicts(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every conflict found: the game, both archives (recorded and other), what differs."""
    return [dict(r) for r in conn.execute(
        "SELECT c.id, c.game_id, c.found, c.problem, c.recorded_archive, c.other_archive, "
        "a.party AS recorded_party, b.party AS other_party FROM conflicts c "
        "JOIN archives a ON a.id = c.recorded_archive JOIN archives b ON b.id = c.other_archive "
        "ORDER BY c.id")]


def export(conn: sqlite3.Connection, game_id: str, outdir: str | Path) -> list[Path]:
    """Write every stored archive of a game (recorded, conflicting, forfeit claim) into
    OUTDIR/archive-<n>/<game id>-<party>/ so that `pbem verify` can audit it; returns them."""
    from pbem.ladder.archives import unzip_to

    rows = conn.execute("SELECT id, party, zip FROM archives WHERE game_id = ? ORDER BY id",
                        (game_id,)).fetchall()
    if not rows:
        raise LadderError(f"game {game_id!r}: no stored archive in this ladder")
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    folders = []
    for r in rows:
        dest = out / f"archive-{r['id']}"
        if dest.exists():
            raise LadderError(f"{dest}: already exists")
        dest.mkdir()
        folders.append(unzip_to(r["zip"], dest))
    return folders
