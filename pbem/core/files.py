"""Atomic, durable file writes (temporary file, fsync, rename, fsync of the folder)."""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path


def atomic_write(path: Path, data: bytes | str, *, durable: bool = True) -> None:
    """Write a file atomically: a temporary file in the same folder, fsync, rename.

    durable=False skips the fsync, for derived files (reports, caches) that can always be
    rebuilt from the signed files.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = _create_temp(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        fsync_dir(path.parent)


def _create_temp(path: Path) -> tuple[int, Path]:
    """A new temporary file beside path, private to this user: ".NAME.<8 hex>.tmp" (the name
    archive.is_temp_name knows), created exclusively as tempfile.mkstemp does, without
    importing tempfile (with random and shutil, a few ms of every command's start)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
        getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{_suffix()}.tmp"
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{path.parent}: no free temporary name for {path.name}")


_made = itertools.count()


def _suffix() -> str:
    """8 hex digits varied by process, time and call. Not secret: O_EXCL, not the name, keeps
    a planted file out; and os.urandom is left alone, so a seeded game draws the same bytes."""
    n = os.getpid() * 0x9E3779B1 + time.time_ns() + next(_made) * 0x85EBCA6B
    return f"{n & 0xFFFFFFFF:08x}"


def fsync_dir(folder: Path) -> None:
    """Make a rename in a folder durable (fsync of the folder itself; a no-op where the
    system cannot open folders)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
