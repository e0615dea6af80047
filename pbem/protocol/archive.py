"""The archive folder: layout, a lock, atomic writes, and listing the signed files in order.

    DIR/archive.json      local settings (which party this archive belongs to); not trusted
    DIR/files/            every signed file, in canonical form: the truth
        0000-proposal.pbem, 0000-accept-<party>.pbem, NNNN-<sender>.pbem, view-NNNN.pbem
    DIR/cache/state.json  the state after the last resolved file (rebuilt whenever it disagrees)
    DIR/reports/<side>/   HTML and text reports, and index.html
    DIR/outbox/           the last file this party must send
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from pathlib import Path

import msgspec

from pbem.core.errors import ArchiveError

ARCHIVE_FORMAT = "pbem-archive/1"
_FILE_NAME = re.compile(r"^(\d{4})-(proposal|accept-[a-z0-9_-]+|[a-z0-9_-]+)\.pbem$")
_VIEW_NAME = re.compile(r"^view-(\d{4})\.pbem$")


class ArchiveInfo(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    format: str = ARCHIVE_FORMAT
    party: str
    game_id: str


def atomic_write(path: Path, data: bytes | str, *, durable: bool = True) -> None:
    """Write a file atomically: a temporary file in the same folder, fsync, rename.

    durable=False skips the fsync, for derived files (reports, caches) that can always be
    rebuilt from the signed files.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
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


def safe_name(name: str) -> str:
    """A file name with no folder part; ArchiveError for '..', slashes or empty names."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise ArchiveError(f"{name!r}: not a plain file name")
    return name


class Archive:
    """One party's archive folder."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.files_dir = self.root / "files"
        self.cache_dir = self.root / "cache"
        self.reports_dir = self.root / "reports"
        self.outbox = self.root / "outbox"
        self._lock_fh = None

    # -- lifecycle -------------------------------------------------------------------------
    def exists(self) -> bool:
        """True if the folder holds an archive."""
        return (self.root / "archive.json").is_file()

    def create(self, info: ArchiveInfo) -> None:
        """Create the folder layout; ArchiveError if an archive is already there."""
        if self.exists():
            raise ArchiveError(f"{self.root}: an archive already exists here")
        if self.root.exists() and any(p.name != ".lock" for p in self.root.iterdir()):
            raise ArchiveError(f"{self.root}: folder is not empty")
        self.files_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(self.root / "archive.json", msgspec.json.encode(info))

    def info(self) -> ArchiveInfo:
        """The local settings; ArchiveError if missing or damaged."""
        p = self.root / "archive.json"
        try:
            return msgspec.json.decode(p.read_bytes(), type=ArchiveInfo)
        except FileNotFoundError:
            raise ArchiveError(f"{self.root}: not a pbem archive (no archive.json)") from None
        except (OSError, msgspec.DecodeError, msgspec.ValidationError) as e:
            raise ArchiveError(f"{p}: damaged ({e})") from None

    def lock(self) -> "Archive":
        """Take the archive's exclusive lock (fails at once if another process holds it)."""
        self.root.mkdir(parents=True, exist_ok=True)
        fh = open(self.root / ".lock", "a+")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise ArchiveError(f"{self.root}: another pbem process is using this archive") from None
        self._lock_fh = fh
        return self

    def unlock(self) -> None:
        """Release the lock."""
        if self._lock_fh is not None:
            fcntl.flock(self._lock_fh.fileno(), fcntl.LOCK_UN)
            self._lock_fh.close()
            self._lock_fh = None

    def __enter__(self) -> "Archive":
        return self.lock()

    def __exit__(self, *exc: object) -> None:
        self.unlock()

    # -- files -----------------------------------------------------------------------------
    def signed_files(self) -> list[Path]:
        """Every stored signed file (genesis and turn files) in sequence order."""
        if not self.files_dir.is_dir():
            return []
        out = []
        for p in self.files_dir.iterdir():
            m = _FILE_NAME.match(p.name)
            if m:
                kind = m.group(2)
                rank = 0 if kind == "proposal" else 1 if kind.startswith("accept-") else 2
                out.append((int(m.group(1)), rank, p.name, p))
        return [p for *_, p in sorted(out)]

    def view_files(self) -> list[Path]:
        """Hosted-mode view files received by a player, in order."""
        if not self.files_dir.is_dir():
            return []
        return sorted(p for p in self.files_dir.iterdir() if _VIEW_NAME.match(p.name))

    def evidence_files(self) -> list[Path]:
        """Files kept as evidence (e.g. a forked file), never part of the chain."""
        d = self.root / "evidence"
        return sorted(d.glob("*.pbem")) if d.is_dir() else []

    def write_signed(self, name: str, text: str) -> Path:
        """Store a signed file under files/ (atomic); ArchiveError if the name is taken."""
        p = self.files_dir / safe_name(name)
        if p.exists():
            raise ArchiveError(f"{p}: already stored")
        atomic_write(p, text)
        return p

    def write_outbox(self, name: str, text: str) -> Path:
        """Put a copy of a file to send in outbox/."""
        p = self.outbox / safe_name(name)
        atomic_write(p, text)
        return p
