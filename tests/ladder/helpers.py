"""Helpers for the ladder tests: the CLI runner, club members' tables, the game pool."""

from __future__ import annotations

import copy
import datetime
import hashlib
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner

from fixtures.table import Table
from pbem.cli import cli

MEMBERS = ("ann", "ben", "cat", "dov")
PAIRS = [("ann", "ben"), ("cat", "dov"), ("ann", "cat"), ("ben", "dov"), ("ann", "dov"),
         ("ben", "cat")]


def run(*args: str):
    """Run the pbem CLI in-process; returns click's result."""
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def ok(*args: str):
    """Run the pbem CLI and require exit status 0."""
    r = run(*args)
    assert r.exit_code == 0, (args, r.output)
    return r


def refused(*args: str) -> str:
    """Run the pbem CLI and require a one-line 'Error: ...' and exit status 1; returns it."""
    r = run(*args)
    assert r.exit_code == 1, (args, r.output)
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("Error: ")]
    assert len(errors) == 1, r.output
    assert "Traceback" not in r.output
    return errors[0]


def digest(path: Path) -> str:
    """SHA-256 of a file's bytes (to prove a database untouched)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class PlayerTable(Table):
    """A Table whose two sides are played with existing keys (club members' keys)."""

    def __init__(self, tmp: Path, players: dict[str, Path], **kw) -> None:
        (tmp / "keys").mkdir(parents=True)
        for side, base in players.items():
            shutil.copy(base.with_suffix(".key"), tmp / "keys" / f"{side}.key")
            shutil.copy(base.with_suffix(".pub"), tmp / "keys" / f"{side}.pub")
        super().__init__(tmp, **kw)

    def ok(self, *args: str):
        if args[0] == "keygen" and (self.tmp / "keys" / f"{args[1]}.key").exists():
            return None
        return super().ok(*args)


def fork(t: Table, dest: Path, seed: int) -> Table:
    """A copy of a table (keys, archives, mail) that goes on separately from here."""
    shutil.copytree(t.tmp, dest)
    c = copy.copy(t)
    c.tmp = dest
    c.dirs = {k: dest / v.relative_to(t.tmp) for k, v in t.dirs.items()}
    c.inbox = [(str(dest / Path(p).relative_to(t.tmp)), to) for p, to in t.inbox]
    c.rng = random.Random(seed)
    return c


@dataclass
class Game:
    """A finished game: the archives of each party and who played which side."""

    mode: str
    dirs: dict[str, Path]              # party (side or host) -> archive folder
    players: dict[str, str]            # side -> member
    submit: Path                       # the archive to submit
    table: Table | None = None


@dataclass
class Pool:
    root: Path
    keys: dict[str, Path] = field(default_factory=dict)     # member -> key base (no suffix)
    games: list[Game] = field(default_factory=list)         # the twelve dash games
    demo_peer: Path | None = None                           # pbem demo holdfast, peer
    demo_hosted: Path | None = None                         # pbem demo holdfast, hosted
    unfinished: Path | None = None
    stranger: Path | None = None                            # finished, unregistered keys
    fork_a: Path | None = None                              # two archives of one game that
    fork_b: Path | None = None                              # disagree (both finished)
    forfeit: dict[str, dict[str, Path]] = field(default_factory=dict)

    def pub(self, member: str) -> Path:
        return self.keys[member].with_suffix(".pub")

    def key(self, member: str) -> Path:
        return self.keys[member].with_suffix(".key")


def play_forfeit(root: Path, mode: str, keys: dict[str, Path]) -> dict[str, Path]:
    """cat (red) sends a file that dov (blue) does not answer; then dov's late answer."""
    t = PlayerTable(root / "table", {"red": keys["cat"], "blue": keys["dov"]}, mode=mode)
    t.deliver()
    t.play_one()                          # red's first file (its codeword)
    if mode == "hosted":
        t.deliver()                       # the referee's views: now blue owes a file
    stuck = root / "red-archive"
    shutil.copytree(t.dirs["red"], stuck)  # red's archive when the claim is made
    t.deliver()
    other = root / "blue-archive"         # blue's archive: it owes the answer
    shutil.copytree(t.dirs["blue"], other)
    answer = Path(t.play_one())           # blue's late file: the rebuttal
    t.deliver()                           # red's live archive goes on
    return {"red": stuck, "blue": other, "answer": answer, "red_key": t.tmp / "keys/red.key",
            "blue_key": t.tmp / "keys/blue.key", "red_live": t.dirs["red"],
            "between": _between(t, stuck, answer)}


def _between(t: Table, stuck: Path, answer: Path) -> list[Path]:
    """The files of the chain after the last one red's stuck archive knows and before blue's
    answer (hosted: red's file and the referee's record, from the referee's archive; peer:
    none), which a rebuttal gives with the answer."""
    if t.mode != "hosted":
        return []
    from pbem.core.records import read_file

    seen = max((read_file(v).payload.seq for v in (stuck / "files").glob("view-*.pbem")),
               default=0)
    last = read_file(answer).payload.seq
    return sorted(p for p in (t.dirs["host"] / "files").glob("[0-9]*.pbem")
                  if seen < int(p.name[:4]) < last)


def today() -> datetime.date:
    """Today in UTC (the ladder's clock)."""
    return datetime.datetime.now(datetime.timezone.utc).date()


def synthetic_ladder(path: Path, players: int) -> "tuple[object, list[int]]":
    """A new ladder (library calls) with players registered under fresh random keys."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from pbem.core.keys import public_raw
    from pbem.ladder.db import init_db, transaction
    from pbem.ladder.players import register

    conn = init_db(path, name="synthetic")
    with transaction(conn):
        pids = [register(conn, f"player{i:05d}", public_raw(Ed25519PrivateKey.generate()
                                                            .public_key()))
                for i in range(players)]
    return conn, pids


def synthetic_game(conn, n: int, a: int, b: int, result: str,  # type: ignore[no-untyped-def]
                   game: str = "holdfast") -> int:
    """Record one synthetic result between players a (first side) and b (library calls)."""
    from pbem.ladder.db import transaction
    from pbem.ladder.record import GameRecord, SideResult, record_game

    other = {"win": "loss", "loss": "win", "draw": "draw"}[result]
    fps = {pid: conn.execute("SELECT fingerprint FROM keys WHERE player_id = ?",
                             (pid,)).fetchone()[0] for pid in (a, b)}
    with transaction(conn):
        return record_game(conn, GameRecord(
            game_id=f"{n:032x}", game=game, title=game.title(), scenario="s", mode="peer",
            kind="played", reason="synthetic", files=10, turns=3,
            sides=[SideResult(side="allied", player_id=a, fingerprint=fps[a], result=result),
                   SideResult(side="axis", player_id=b, fingerprint=fps[b], result=other)]))
