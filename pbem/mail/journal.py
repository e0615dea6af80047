"""The exactly-once journal (SQLite): which messages are finished, and the mails to send.

A message is finished when its row is committed, in the same transaction as every mail its
processing must send. A run killed before the commit processes the message again (`pbem
receive` is idempotent: the same reply bytes); a run killed after it only moves the message
and sends what is still unsent. Outgoing mails carry a Message-ID fixed by what they answer,
so one sent twice (killed between sending and marking it sent) is recognised as a duplicate
by the receiving gateway.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
  key TEXT PRIMARY KEY,           -- sha256 of Message-ID, From address and the files
  raw_hash TEXT NOT NULL,          -- sha256 of the raw message bytes
  status TEXT NOT NULL,            -- done | failed
  detail TEXT NOT NULL,
  at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE INDEX IF NOT EXISTS messages_raw ON messages(raw_hash);
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY,
  message_key TEXT NOT NULL,
  msgid TEXT NOT NULL UNIQUE,      -- the outgoing Message-ID
  rcpt TEXT NOT NULL,              -- recipients, comma separated
  body BLOB NOT NULL,              -- the whole message, ready to send
  sent INTEGER NOT NULL DEFAULT 0
);
"""


class Journal:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def status(self, key: str, raw_hash: str) -> str | None:
        row = self.db.execute("SELECT status FROM messages WHERE key=? OR raw_hash=?",
                              (key, raw_hash)).fetchone()
        return row[0] if row else None

    def finish(self, key: str, raw_hash: str, status: str, detail: str,
               mails: list[tuple[str, list[str], bytes]]) -> None:
        """Record a message's outcome and the mails it sends, in one transaction."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT OR IGNORE INTO messages(key, raw_hash, status, detail) "
                            "VALUES (?,?,?,?)", (key, raw_hash, status, detail))
            for msgid, rcpt, body in mails:
                self.db.execute("INSERT OR IGNORE INTO outbox(message_key, msgid, rcpt, body) "
                                "VALUES (?,?,?,?)", (key, msgid, ",".join(rcpt), body))

    def unsent(self) -> list[tuple[int, str, list[str], bytes]]:
        return [(i, m, r.split(","), b) for i, m, r, b in self.db.execute(
            "SELECT id, msgid, rcpt, body FROM outbox WHERE sent=0 ORDER BY id")]

    def mark_sent(self, row: int) -> None:
        self.db.execute("UPDATE outbox SET sent=1 WHERE id=?", (row,))

    def counts(self) -> dict[str, int]:
        out = dict(self.db.execute("SELECT status, count(*) FROM messages GROUP BY status"))
        out["unsent"] = self.db.execute("SELECT count(*) FROM outbox WHERE sent=0").fetchone()[0]
        return out
