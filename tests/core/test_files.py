"""atomic_write: the temporary file it writes through is private, exclusive and known by name."""

from __future__ import annotations

import os
import stat

import pytest

from pbem.core import files
from pbem.core.files import atomic_write
from pbem.protocol.archive import is_temp_name, remove_stale_temps


def test_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "sub" / "state.json"
    atomic_write(target, "one")
    atomic_write(target, b"two", durable=False)
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in target.parent.iterdir()) == ["state.json"]


def test_the_temporary_is_private_and_named_as_the_archive_knows(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        st = os.stat(src)
        seen.append((os.path.basename(src), stat.S_IMODE(st.st_mode)))
        return real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", spy)
    atomic_write(tmp_path / "report.html", "x")
    (name, mode), = seen
    assert is_temp_name(name) and name.startswith(".report.html.")
    assert mode & 0o077 == 0


def test_an_existing_temporary_name_is_never_reused(tmp_path, monkeypatch):
    """Creation is exclusive: a name already there (even a link planted by someone) is skipped,
    not opened or followed."""
    draws = iter(["00000000", "00000000", "00000001"])
    monkeypatch.setattr(files, "_suffix", lambda: next(draws))
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / ".a.00000000.tmp").symlink_to(victim)
    atomic_write(tmp_path / "a", "new")
    assert victim.read_text() == "keep"
    assert (tmp_path / "a").read_text() == "new"
    assert (tmp_path / ".a.00000000.tmp").is_symlink()


def test_a_failed_write_removes_its_temporary(tmp_path, monkeypatch):
    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write(tmp_path / "a", "x")
    assert list(tmp_path.iterdir()) == []


def test_stale_temporaries_of_a_killed_write_are_found_and_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(files.os, "replace", lambda s, d: (_ for _ in ()).throw(KeyboardInterrupt))
    monkeypatch.setattr(files.os, "unlink", lambda p: None)   # killed before cleaning up
    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "state.json", "x")
    monkeypatch.undo()
    assert remove_stale_temps(tmp_path, "state.json") == 1
    assert list(tmp_path.iterdir()) == []
