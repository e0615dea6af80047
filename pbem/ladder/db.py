"""The ladder database: one SQLite file, its schema, migrations and transactions.

Every write runs inside one `BEGIN IMMEDIATE ... COMMIT` transaction, with the rollback
journal and `synchronous=FULL`: a process killed at any point leaves the file as it was
before the transaction or after its commit, and a command reports a result as recorded only
after the commit returned. The schema version is SQLite's `user_version`; `application_id`
marks the file as a pbem ladder. docs/ladder.md documents every table.
"""

from __future__ import annotations

import datetime
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from pbem.core.errors import PbemError

APPLICATION_ID = 0x5042454C          # "PBEL": a pbem ladder
FORMAT = "pbem-ladder/1"
BUSY_MS = 20_000                     # wait this long for another command's transaction


class LadderError(PbemError):
    """A one-line ladder error (bad input, refused submission); nothing was changed."""


# Each migration is one script run in one transaction; the schema version after migration i
# (0-based) is i + 1. Never edit a released migration: append a new one.
MIGRATIONS: list[tuple[str, str]] = [
    ("ladder schema 1: players, keys, archives, games, ratings, forfeits, conflicts", """
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE accepted (
  game TEXT NOT NULL,
  scenario TEXT NOT NULL,
  PRIMARY KEY (game, scenario)
);
CREATE TABLE players (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  added TEXT NOT NULL,
  seeking INTEGER NOT NULL DEFAULT 0 CHECK (seeking IN (0, 1))
);
CREATE TABLE keys (
  fingerprint TEXT PRIMARY KEY,
  pub TEXT NOT NULL UNIQUE,
  player_id INTEGER NOT NULL REFERENCES players(id),
  added TEXT NOT NULL,
  retired TEXT,
  replaced_by TEXT REFERENCES keys(fingerprint),
  statement TEXT
);
CREATE INDEX keys_player ON keys(player_id);
CREATE TABLE archives (
  id INTEGER PRIMARY KEY,
  game_id TEXT NOT NULL,
  party TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('peer', 'referee', 'hosted-player')),
  received TEXT NOT NULL,
  digest TEXT NOT NULL,
  facts TEXT NOT NULL,
  outcome TEXT,
  zip BLOB NOT NULL
);
CREATE INDEX archives_game ON archives(game_id);
CREATE TABLE games (
  seq INTEGER PRIMARY KEY,
  game_id TEXT NOT NULL UNIQUE,
  game TEXT NOT NULL,
  title TEXT NOT NULL,
  scenario TEXT NOT NULL,
  mode TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('played', 'forfeit')),
  reason TEXT NOT NULL,
  files INTEGER NOT NULL,
  turns INTEGER NOT NULL,
  recorded TEXT NOT NULL,
  archive_id INTEGER REFERENCES archives(id)
);
CREATE TABLE game_players (
  game_seq INTEGER NOT NULL REFERENCES games(seq),
  side TEXT NOT NULL,
  player_id INTEGER NOT NULL REFERENCES players(id),
  fingerprint TEXT NOT NULL,
  result TEXT NOT NULL CHECK (result IN ('win', 'loss', 'draw')),
  dice INTEGER NOT NULL DEFAULT 0,
  dice_dev REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (game_seq, side)
);
CREATE INDEX game_players_player ON game_players(player_id, game_seq);
CREATE TABLE ratings (
  player_id INTEGER NOT NULL REFERENCES players(id),
  scope TEXT NOT NULL,
  mu REAL NOT NULL,
  sigma REAL NOT NULL,
  rating REAL NOT NULL,
  games INTEGER NOT NULL,
  wins INTEGER NOT NULL,
  losses INTEGER NOT NULL,
  draws INTEGER NOT NULL,
  PRIMARY KEY (player_id, scope)
);
CREATE INDEX ratings_scope ON ratings(scope, rating DESC);
CREATE TABLE rating_history (
  game_seq INTEGER NOT NULL REFERENCES games(seq),
  player_id INTEGER NOT NULL REFERENCES players(id),
  scope TEXT NOT NULL,
  mu REAL NOT NULL,
  sigma REAL NOT NULL,
  rating REAL NOT NULL,
  PRIMARY KEY (player_id, scope, game_seq)
);
CREATE INDEX rating_history_game ON rating_history(game_seq);
CREATE TABLE conflicts (
  id INTEGER PRIMARY KEY,
  game_id TEXT NOT NULL,
  recorded_archive INTEGER NOT NULL REFERENCES archives(id),
  other_archive INTEGER NOT NULL REFERENCES archives(id),
  found TEXT NOT NULL,
  problem TEXT NOT NULL
);
CREATE TABLE forfeits (
  id INTEGER PRIMARY KEY,
  game_id TEXT NOT NULL,
  archive_id INTEGER NOT NULL REFERENCES archives(id),
  claimant_id INTEGER NOT NULL REFERENCES players(id),
  opponent_id INTEGER NOT NULL REFERENCES players(id),
  claimant_side TEXT NOT NULL,
  opponent_side TEXT NOT NULL,
  claimant_pub TEXT NOT NULL,
  opponent_pub TEXT NOT NULL,
  game TEXT NOT NULL,
  title TEXT NOT NULL,
  scenario TEXT NOT NULL,
  mode TEXT NOT NULL,
  turns INTEGER NOT NULL,
  dice TEXT NOT NULL,
  last_seq INTEGER NOT NULL,
  last_hash TEXT NOT NULL,
  sent TEXT NOT NULL,
  claimed TEXT NOT NULL,
  reply_days INTEGER NOT NULL,
  filed TEXT NOT NULL,
  claim TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'rebutted', 'confirmed', 'dismissed')),
  rebuttal TEXT,
  rebutted TEXT,
  decided TEXT,
  note TEXT NOT NULL DEFAULT '',
  game_seq INTEGER REFERENCES games(seq)
);
CREATE INDEX forfeits_game ON forfeits(game_id);
"""),
    ("ladder schema 2: per-face dice counts of each side of a game", """
CREATE TABLE game_dice (
  game_seq INTEGER NOT NULL REFERENCES games(seq),
  side TEXT NOT NULL,
  purpose TEXT NOT NULL,
  die INTEGER NOT NULL CHECK (die >= 1),
  counts TEXT NOT NULL,
  PRIMARY KEY (game_seq, side, purpose, die)
);
ALTER TABLE games ADD COLUMN dice_faces INTEGER NOT NULL DEFAULT 0 CHECK (dice_faces IN (0, 1));
"""),
]

SCHEMA_VERSION = len(MIGRATIONS)


def now() -> str:
    """The current UTC time, ISO 8601 to the second (the ladder's timestamps)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _connect(path: Path, *, create: bool) -> sqlite3.Connection:
    mode = "rwc" if create else "rw"
    try:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode={mode}", uri=True,
                               isolation_level=None, timeout=BUSY_MS / 1000)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("PRAGMA synchronous = FULL")
    except sqlite3.DatabaseError as e:
        raise LadderError(f"{path}: not a pbem ladder database ({e})") from None
    except sqlite3.Error as e:
        raise LadderError(f"{path}: cannot open the ladder database ({e})") from None
    conn.row_factory = sqlite3.Row
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction (BEGIN IMMEDIATE ... COMMIT); rolled back on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def migrate(conn: sqlite3.Connection, name: str = "ladder") -> int:
    """Apply every pending migration, each in its own transaction; returns the new version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise LadderError(f"{name}: made by a newer pbem (schema {version}, this pbem knows "
                          f"{len(MIGRATIONS)}); upgrade pbem")
    for i in range(version, len(MIGRATIONS)):
        try:
            conn.executescript(f"BEGIN IMMEDIATE;\n{MIGRATIONS[i][1]}\n"
                               f"PRAGMA user_version = {i + 1};\nCOMMIT;")
        except sqlite3.Error as e:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise LadderError(f"{name}: migration to schema {i + 1} failed ({e})") from None
    return len(MIGRATIONS)


def init_db(path: str | Path, *, name: str = "", accept: list[tuple[str, str]] | None = None
            ) -> sqlite3.Connection:
    """Create a new ladder database file; LadderError if the file already exists."""
    p = Path(path)
    if p.exists() or p.is_symlink():
        raise LadderError(f"{p}: already exists (a ladder is created once; use another name)")
    if not p.parent.is_dir():
        raise LadderError(f"{p}: the folder {p.parent} does not exist")
    conn = _connect(p, create=True)
    try:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        migrate(conn, str(p))
        with transaction(conn):
            conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                             [("format", FORMAT), ("name", name or p.stem), ("created", now()),
                              ("rating_model", "openskill PlackettLuce (defaults)")])
            conn.executemany("INSERT OR IGNORE INTO accepted(game, scenario) VALUES (?, ?)",
                             accept or [])
    except BaseException:
        conn.close()
        p.unlink(missing_ok=True)
        raise
    return conn


def open_db(path: str | Path) -> sqlite3.Connection:
    """Open an existing ladder database (applying pending migrations); LadderError otherwise."""
    p = Path(path)
    if not p.is_file():
        raise LadderError(f"{p}: no ladder database here (create one with 'pbem ladder init')")
    conn = _connect(p, create=False)
    try:
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        if app != APPLICATION_ID:
            raise LadderError(f"{p}: not a pbem ladder database")
        migrate(conn, str(p))
    except sqlite3.DatabaseError as e:
        conn.close()
        raise LadderError(f"{p}: not a pbem ladder database ({e})") from None
    except BaseException:
        conn.close()
        raise
    return conn


def meta(conn: sqlite3.Connection, key: str, default: str = "") -> str:
    """A value of the meta table."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def accepted(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """The (game, scenario) pairs the ladder accepts ('*': every scenario); empty: every game."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT game, scenario FROM accepted ORDER BY game, scenario")]


def accepts(conn: sqlite3.Connection, game: str, scenario: str) -> bool:
    """True if the ladder accepts this game and scenario."""
    rules = accepted(conn)
    return not rules or (game, scenario) in rules or (game, "*") in rules


def parse_accept(spec: str) -> tuple[str, str]:
    """GAME or GAME:SCENARIO as a (game, scenario) pair, after checking both exist."""
    from pbem.core.registry import find_game

    game_id, _, scenario = spec.partition(":")
    try:
        game = find_game(game_id)
    except PbemError as e:
        raise LadderError(f"--accept {spec}: {e}") from None
    if scenario and scenario not in game.scenarios():
        raise LadderError(f"--accept {spec}: {game_id} has no scenario {scenario!r} "
                          f"(known: {', '.join(sorted(game.scenarios()))})")
    return game.id, scenario or "*"
