"""The games a key has proposed or joined, kept beside the key: a proposer who reuses an old
proposal nonce (a "rematch" with the same id, or a copy of someone else's game) is refused.

KEYFILE.games holds one line per game: `<proposal nonce> <proposal hash> <role> <archive path>`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import msgspec

from pbem.core.errors import KeyFileError

_LINE = re.compile(r"^([0-9a-f]{32}) ([0-9a-f]{64}) (proposed|joined) (.+)$")
MAX_BYTES = 16 * 1024 * 1024


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One game this key took part in."""

    nonce: str
    proposal: str
    role: str
    archive: str


def registry_path(key_path: str | Path) -> Path:
    """The registry file of a key: KEYFILE.games beside it."""
    return Path(f"{key_path}.games")


def entries(key_path: str | Path) -> list[Entry]:
    """Every game recorded for this key (none if the registry does not exist yet)."""
    p = registry_path(key_path)
    try:
        with open(p, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as e:
        raise KeyFileError(f"{p}: cannot read the key's game registry ({e.strerror})") from None
    if len(raw) > MAX_BYTES:
        raise KeyFileError(f"{p}: the key's game registry is too large")
    out = []
    for line in raw.decode("utf-8", "replace").splitlines():
        m = _LINE.match(line)
        if m:
            out.append(Entry(nonce=m.group(1), proposal=m.group(2), role=m.group(3),
                             archive=m.group(4)))
    return out


def find(key_path: str | Path, nonce: str) -> Entry | None:
    """The recorded game with this proposal nonce, if any."""
    return next((e for e in entries(key_path) if e.nonce == nonce), None)


def same_game(e: Entry, proposal: str, role: str, archive: str | Path) -> bool:
    """True if the entry records exactly this game, role and archive folder (a command run
    again after it was interrupted)."""
    return (e.proposal == proposal and e.role == role
            and e.archive == str(Path(archive).resolve()))


def record(key_path: str | Path, nonce: str, proposal: str, role: str, archive: Path) -> None:
    """Append a game to the key's registry (durably), unless this very entry is there."""
    p = registry_path(key_path)
    if any(e.nonce == nonce and same_game(e, proposal, role, archive) for e in entries(key_path)):
        return
    line = f"{nonce} {proposal} {role} {Path(archive).resolve()}\n".encode("utf-8")
    try:
        created = not p.exists()
        fd = os.open(p, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line       # a line cut short by a killed process stays apart
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            from pbem.protocol.archive import fsync_dir

            fsync_dir(p.parent)
    except OSError as e:
        raise KeyFileError(f"{p}: cannot record this game in the key's registry "
                           f"({e.strerror})") from None
