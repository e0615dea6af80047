"""Reading a file a user names, with the size bounded while reading.

Every command that reads a path the user gives (a received file, an orders file, a key)
goes through read_limited: the path must be a regular file (a device such as /dev/zero, a
FIFO, a socket or a folder is refused before it is read, and the file is opened
non-blocking, so a FIFO swapped in after the check cannot block either), and at most
limit + 1 bytes are ever read, whatever size the file system reports.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pbem.core.errors import PbemError

_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
          | getattr(os, "O_BINARY", 0))
_CHUNK = 1 << 20


def _kib(n: int) -> str:
    return f"{n // 1024} KiB" if n < 1024 * 1024 else f"{n // (1024 * 1024)} MiB"


def read_limited(path: str | os.PathLike[str], limit: int, *, what: str = "file",
                 error: type[PbemError] = PbemError) -> bytes:
    """The bytes of a regular file of at most limit bytes; error(one line) otherwise."""
    p = Path(path)
    name = p.name or str(p)
    try:
        st = os.stat(p)
    except OSError as e:
        raise error(f"{p}: cannot read {what} ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{name}: not a regular file (folders, devices and pipes are refused)")
    if st.st_size > limit:
        raise error(f"{name}: {what} is too large ({st.st_size} bytes, limit {_kib(limit)})")
    try:
        fd = os.open(p, _FLAGS)
    except OSError as e:
        raise error(f"{p}: cannot read {what} ({e.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):   # replaced since the check above
            raise error(f"{name}: not a regular file (folders, devices and pipes are refused)")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as e:
        raise error(f"{p}: cannot read {what} ({e.strerror})") from None
    finally:
        os.close(fd)
    if total > limit:
        raise error(f"{name}: {what} is too large (more than {_kib(limit)})")
    return b"".join(chunks)
