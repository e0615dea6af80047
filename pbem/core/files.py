"""Atomic, durable file writes (temporary file, fsync, rename, fsync of the folder)."""

from __future__ import annotations

import os
from pathlib import Path


def atomic_write(path: Path, data: bytes | str, *, durable: bool = True) -> None:
    """Write a file atomically: a temporary file in the same folder, fsync, rename.

    durable=False skips the fsync, for derived files (reports, caches) that can always be
    rebuilt from the signed files.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile       # here, not at the top: `pbem verify` writes nothing

    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
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
