"""Players: a display name and a public key whose fingerprint identifies the player; key
replacement by a statement signed by the old key (and the new one); who wants a game."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import msgspec

from pbem.core.keys import fingerprint, load_public
from pbem.core.signing import weak_public_key
from pbem.core.textsafe import printable
from pbem.ladder.db import LadderError, now, transaction
from pbem.ladder.statements import KeyReplacement, SignedStatement

MAX_NAME = 64
FINGERPRINT = re.compile(r"^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$")


class Player(msgspec.Struct, kw_only=True):
    """A registered player and its current key."""

    id: int
    name: str
    fingerprint: str
    pub: str
    added: str
    seeking: bool = False


def check_name(name: str) -> str:
    """A display name: 1 to 64 printable characters, no surrounding spaces; LadderError."""
    if not name or len(name) > MAX_NAME:
        raise LadderError(f"name {printable(name)[:80]!r}: must have 1 to {MAX_NAME} characters")
    if not name.isprintable():
        raise LadderError(f"name {printable(name)!r}: control characters and invisible or "
                          "unassigned characters are not allowed")
    if name.strip() != name:
        raise LadderError(f"name {name!r}: no spaces at the start or the end")
    if FINGERPRINT.match(name):
        raise LadderError(f"name {name!r}: looks like a key fingerprint; choose another")
    return name


def _player(row: sqlite3.Row) -> Player:
    return Player(id=row["id"], name=row["name"], fingerprint=row["fingerprint"],
                  pub=row["pub"], added=row["added"], seeking=bool(row["seeking"]))


_SELECT = ("SELECT p.id, p.name, p.added, p.seeking, k.fingerprint, k.pub FROM players p "
           "JOIN keys k ON k.player_id = p.id AND k.retired IS NULL ")


def key_owner(conn: sqlite3.Connection, pub: bytes) -> sqlite3.Row | None:
    """The key row (with the player's name) of a public key, retired or not, if registered."""
    return conn.execute("SELECT k.*, p.name FROM keys k JOIN players p ON p.id = k.player_id "
                        "WHERE k.pub = ?", (pub.hex(),)).fetchone()


def add_player(conn: sqlite3.Connection, name: str, pubfile: str | Path) -> Player:
    """Register a player with a display name and a public key file (its fingerprint is the
    player's identity); LadderError if the name or the key is already registered."""
    check_name(name)
    raw, _ = load_public(pubfile)
    with transaction(conn):
        pid = register(conn, name, raw, source=str(pubfile))
    return player_by_id(conn, pid)


def register(conn: sqlite3.Connection, name: str, raw: bytes, *, source: str = "key") -> int:
    """Insert a player and its key (inside the caller's transaction); returns its number."""
    fp = fingerprint(raw)
    owner = key_owner(conn, raw)
    if owner is not None:
        raise LadderError(f"{source}: key {fp} is already registered to "
                          f"{owner['name']}{' (retired)' if owner['retired'] else ''}")
    if conn.execute("SELECT 1 FROM players WHERE name = ?", (name,)).fetchone():
        raise LadderError(f"name {name!r}: a player of that name is already registered")
    when = now()
    cur = conn.execute("INSERT INTO players(name, added) VALUES (?, ?)", (name, when))
    conn.execute("INSERT INTO keys(fingerprint, pub, player_id, added) VALUES (?, ?, ?, ?)",
                 (fp, raw.hex(), cur.lastrowid, when))
    return int(cur.lastrowid)  # type: ignore[arg-type]


def find_player(conn: sqlite3.Connection, who: str) -> Player:
    """A player by name (any case) or by the fingerprint of any of its keys; LadderError."""
    if FINGERPRINT.match(who.upper()):
        row = conn.execute(_SELECT + "WHERE p.id = (SELECT player_id FROM keys "
                           "WHERE fingerprint = ?)", (who.upper(),)).fetchone()
    else:
        row = conn.execute(_SELECT + "WHERE p.name = ?", (who,)).fetchone()
    if row is None:
        raise LadderError(f"player {printable(who)!r}: not registered in this ladder")
    return _player(row)


def player_by_id(conn: sqlite3.Connection, pid: int) -> Player:
    """A player by its number."""
    return _player(conn.execute(_SELECT + "WHERE p.id = ?", (pid,)).fetchone())


def list_players(conn: sqlite3.Connection) -> list[Player]:
    """Every registered player, by name."""
    return [_player(r) for r in conn.execute(_SELECT + "ORDER BY p.name COLLATE NOCASE")]


def keys_of(conn: sqlite3.Connection, pid: int) -> list[dict[str, Any]]:
    """Every key of a player, oldest first, with when it was added and retired."""
    return [dict(r) for r in conn.execute(
        "SELECT fingerprint, pub, added, retired, replaced_by FROM keys WHERE player_id = ? "
        "ORDER BY added, rowid", (pid,))]


def replace_key(conn: sqlite3.Connection, st: SignedStatement) -> Player:
    """Retire a player's key and register its replacement, from a statement signed by both
    keys; LadderError (nothing changed) if the old key is not an active registered key, the
    new one is already registered, or a signature is missing."""
    p = st.payload
    if not isinstance(p, KeyReplacement):
        raise LadderError(f"{st.name}: not a key replacement statement")
    old, new = bytes.fromhex(p.old), bytes.fromhex(p.new)
    if weak_public_key(new):
        raise LadderError(f"{st.name}: the new key is a weak key (a small-order point: anyone "
                          "could sign as its owner)")
    if not st.signed_by(old):
        raise LadderError(f"{st.name}: not signed by the old key {fingerprint(old)}")
    if not st.signed_by(new):
        raise LadderError(f"{st.name}: not signed by the new key {fingerprint(new)} (the new "
                          "key must countersign)")
    with transaction(conn):
        row = key_owner(conn, old)
        if row is None:
            raise LadderError(f"{st.name}: the old key {fingerprint(old)} is not registered")
        if row["retired"]:
            raise LadderError(f"{st.name}: the old key {fingerprint(old)} was already retired "
                              f"on {row['retired']}")
        taken = key_owner(conn, new)
        if taken is not None:
            raise LadderError(f"{st.name}: the new key {fingerprint(new)} is already "
                              f"registered to {taken['name']}")
        when = now()
        conn.execute("INSERT INTO keys(fingerprint, pub, player_id, added, statement) "
                     "VALUES (?, ?, ?, ?, ?)",
                     (fingerprint(new), new.hex(), row["player_id"], when, st.text))
        conn.execute("UPDATE keys SET retired = ?, replaced_by = ? WHERE pub = ?",
                     (when, fingerprint(new), old.hex()))
    return player_by_id(conn, row["player_id"])


def set_seeking(conn: sqlite3.Connection, who: str, on: bool) -> Player:
    """Mark a player as wanting a game (for `ladder pairings`), or not."""
    pl = find_player(conn, who)
    with transaction(conn):
        conn.execute("UPDATE players SET seeking = ? WHERE id = ?", (int(on), pl.id))
    return player_by_id(conn, pl.id)
