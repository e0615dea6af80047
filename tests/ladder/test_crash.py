"""Crash safety: `ladder submit` killed (SIGKILL) before and after every SQL statement it
runs leaves a database that is intact, holds the game completely or not at all, holds it
whenever the commit had returned, and takes the same submission again."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from ladder.helpers import Pool, ok
from pbem.cli import cli
from pbem.ladder import db as dbmod
from pbem.ladder import ratings


class _Counting(sqlite3.Connection):
    """A connection that logs every statement and kills its process at the n-th one."""

    n = 0
    when = "before"
    log: Path | None = None
    calls = 0

    def _step(self, sql: str, fn, *args):  # type: ignore[no-untyped-def]
        cls = type(self)
        cls.calls += 1
        if cls.calls == cls.n and cls.when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        result = fn(sql, *args)
        if cls.log is not None:
            with open(cls.log, "a") as fh:
                fh.write(f"done: {sql.strip().split()[0].upper()}\n")
        if cls.calls == cls.n and cls.when == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    def execute(self, sql, *args):  # type: ignore[no-untyped-def,override]
        return self._step(sql, super().execute, *args)

    def executemany(self, sql, *args):  # type: ignore[no-untyped-def,override]
        return self._step(sql, super().executemany, *args)

    def executescript(self, sql):  # type: ignore[no-untyped-def,override]
        return self._step(sql, super().executescript)


def _patch(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sqlite3.connect
    monkeypatch.setattr(dbmod.sqlite3, "connect",
                        lambda *a, **k: real(*a, factory=_Counting, **k))


def _submit(db: Path, archive: Path) -> int:
    return CliRunner().invoke(cli, ["ladder", "submit", str(db), str(archive)],
                              catch_exceptions=False).exit_code


def _killed_run(db: Path, archive: Path, n: int, when: str, log: Path) -> bool:
    pid = os.fork()
    if pid == 0:                                     # the child: submit, killed at call n
        code = 2
        try:
            _Counting.n, _Counting.when, _Counting.log, _Counting.calls = n, when, log, 0
            code = _submit(db, archive)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status)


def _state(db: Path) -> tuple[int, ...]:
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return tuple(con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                     for t in ("games", "game_players", "archives", "ratings", "rating_history"))
    finally:
        con.close()


def test_submit_killed_at_every_statement(pool: Pool, ladder: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    archive = pool.games[0].submit
    _patch(monkeypatch)
    probe = tmp_path / "probe.ladder"
    shutil.copy(ladder, probe)
    _Counting.n, _Counting.log, _Counting.calls = 0, None, 0
    assert _submit(probe, archive) == 0
    total = _Counting.calls
    assert total >= 8
    empty, full = _state(ladder), _state(probe)
    assert empty == (0, 0, 0, 0, 0) and full == (1, 2, 1, 4, 4)
    for n in range(1, total + 1):
        for when in ("before", "after"):
            db = tmp_path / f"crash-{n}-{when}.ladder"
            shutil.copy(ladder, db)
            log = tmp_path / f"log-{n}-{when}.txt"
            killed = _killed_run(db, archive, n, when, log)
            assert killed, (n, when)
            committed = "done: COMMIT" in (log.read_text() if log.exists() else "")
            state = _state(db)                     # a hot journal is rolled back on open
            assert state == (full if committed else empty), (n, when, state)
            conn = dbmod.open_db(db)
            assert ratings.check(conn) == []
            conn.close()
            _Counting.n = 0
            code = _submit(db, archive)            # the same submission again
            assert code == (1 if committed else 0), (n, when)
            assert _state(db) == full
            db.unlink()
    monkeypatch.undo()
    ok("ladder", "recompute", probe, "--check")
