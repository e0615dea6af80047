"""The ladder database: one SQLite file any SQLite tool can read, versioned migrations, and
documentation of every table and every command."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ladder.helpers import digest, ok, refused
from pbem.cli_ladder import ladder as ladder_group
from pbem.ladder import db as dbmod

ROOT = Path(__file__).resolve().parents[2]


def test_init_creates_one_sqlite_file_with_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "club.ladder"
    ok("ladder", "init", path, "--name", "Club", "--accept", "holdfast",
       "--accept", "kasserine:historical")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["club.ladder"]
    con = sqlite3.connect(path)               # any SQLite tool reads it
    assert con.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
    assert con.execute("PRAGMA application_id").fetchone()[0] == dbmod.APPLICATION_ID
    assert con.execute("SELECT value FROM meta WHERE key = 'name'").fetchone()[0] == "Club"
    assert con.execute("SELECT * FROM accepted ORDER BY game").fetchall() == [
        ("holdfast", "*"), ("kasserine", "historical")]
    assert "already exists" in refused("ladder", "init", path)


def test_bad_accept_specs_create_nothing(tmp_path: Path) -> None:
    err = refused("ladder", "init", tmp_path / "x.ladder", "--accept", "holdfast:nowhere")
    assert "no scenario 'nowhere'" in err
    assert not (tmp_path / "x.ladder").exists()
    assert "does not exist" in refused("ladder", "init", tmp_path / "no" / "x.ladder")


def test_pending_migrations_run_once_each_in_a_transaction(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    path = tmp_path / "club.ladder"
    ok("ladder", "init", path)
    extra = ("test: a column for notes", "ALTER TABLE players ADD COLUMN note TEXT;")
    monkeypatch.setattr(dbmod, "MIGRATIONS", [*dbmod.MIGRATIONS, extra])
    conn = dbmod.open_db(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(dbmod.MIGRATIONS)
    assert "note" in [r[1] for r in conn.execute("PRAGMA table_info(players)")]
    conn.close()
    before = digest(path)
    dbmod.open_db(path).close()               # nothing left to migrate: the file is untouched
    assert digest(path) == before
    bad = ("test: a broken migration", "ALTER TABLE players ADD COLUMN x TEXT; SELECT * FROM nope;")
    monkeypatch.setattr(dbmod, "MIGRATIONS", [*dbmod.MIGRATIONS, bad])
    with pytest.raises(dbmod.LadderError, match="migration to schema"):
        dbmod.open_db(path)
    con = sqlite3.connect(path)               # rolled back whole: no column x, old version
    assert "x" not in [r[1] for r in con.execute("PRAGMA table_info(players)")]
    assert con.execute("PRAGMA user_version").fetchone()[0] == len(dbmod.MIGRATIONS) - 1


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "club.ladder"
    ok("ladder", "init", path)
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {dbmod.SCHEMA_VERSION + 1}")
    con.close()
    assert "made by a newer pbem" in refused("ladder", "standings", path)


def test_another_sqlite_file_is_not_a_ladder(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    before = digest(path)
    assert "not a pbem ladder database" in refused("ladder", "standings", path)
    assert digest(path) == before


def test_every_table_and_command_is_documented() -> None:
    guide = (ROOT / "docs" / "ladder.md").read_text()
    cli_doc = (ROOT / "docs" / "cli.md").read_text()
    con = sqlite3.connect(":memory:")
    for _, script in dbmod.MIGRATIONS:
        con.executescript(script)
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for t in tables:
        assert f"`{t}`" in guide, t
        for col in con.execute(f"PRAGMA table_info({t})"):
            assert f"`{col[1]}`" in guide, (t, col[1])
    assert "## Ladder" in cli_doc
    for name in ladder_group.commands:
        assert f"`pbem ladder {name}" in cli_doc, name
        assert f"pbem ladder {name}" in guide, name
    assert "openskill" in guide and "why openskill" in guide.lower()
    assert "ladder" in (ROOT / "docs" / "performance.md").read_text().lower()


def test_every_ladder_command_has_help_with_an_example() -> None:
    from ladder.helpers import run

    assert "Example" in run("ladder", "--help").output
    for name in ladder_group.commands:
        r = run("ladder", name, "--help")
        assert r.exit_code == 0 and "Example" in r.output, name
