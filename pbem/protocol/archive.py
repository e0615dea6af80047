"""The archive folder: layout, a lock, atomic writes, and listing the signed files in order.

    DIR/archive.json      local settings (which party this archive belongs to); not trusted
    DIR/files/            every signed file, in canonical form: the truth
        0000-proposal.pbem, 0000-accept-<party>.pbem, NNNN-<sender>.pbem, view-NNNN.pbem
    DIR/secret/dice.json  this party's dice secret, sealed under its private key (never sent)
    DIR/cache/state.json  the state after the last resolved file (rebuilt whenever it disagrees)
    DIR/reports/<side>/   HTML and text reports, and index.html
    DIR/outbox/           the last file this party must send

Crash safety: every write is a temporary file (`.NAME.xxxxxxxx.tmp`), fsync, rename, fsync of
the folder; a new archive is built in `.DIR.partial-<random>` beside DIR and renamed into
place whole. Temporary files a killed process left are removed under the lock and ignored by
`pbem verify` (docs/architecture.md, "Durable writes and crashes").
"""

from __future__ import annotations

import fcntl
import os
import re
from pathlib import Path
from typing import Callable

import msgspec

from pbem.core.errors import ArchiveBusy, ArchiveError, PbemError
from pbem.core.files import atomic_write, fsync_dir  # noqa: F401 (used by other modules)

ARCHIVE_FORMAT = "pbem-archive/2"
_FILE_NAME = re.compile(r"^(\d{4})-(proposal|accept-[a-z0-9_-]+|[a-z0-9_-]+)\.pbem$")
_VIEW_NAME = re.compile(r"^view-(\d{4})\.pbem$")
_SENT_VIEW_NAME = re.compile(r"^view-([a-z][a-z0-9_]*)-(\d{4})\.pbem$")
_REJECTION_NAME = re.compile(r"^reject-(\d{4})-([0-9a-f]{16})\.pbem$")
# atomic_write's temporary files: "." + target name + "." + 8 random hex digits + ".tmp"
_TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
_PARTIAL = ".partial-"              # .DIR.partial-<random>: a new archive, beside DIR
_INNER = ".pbem-partial-"            # DIR/.pbem-partial-<random>: one made in an existing DIR


class ArchiveInfo(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    format: str = ARCHIVE_FORMAT
    party: str
    proposal: str              # SHA-256 hex of the game's proposal


def turn_file_name(seq: int, sender: str) -> str:
    """The archive name of turn file seq from sender."""
    return f"{seq:04d}-{sender}.pbem"


def is_temp_name(name: str) -> bool:
    """True for the name of atomic_write's temporary file (left behind only by a killed process)."""
    return bool(_TEMP_NAME.match(name))


def remove_stale_temps(folder: Path, target: str | None = None) -> int:
    """Remove atomic_write's leftover temporary files in one folder (only those of target
    when given); returns how many were removed."""
    n = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        if is_temp_name(name) and (target is None or name.startswith(f".{target}.")):
            try:
                os.unlink(folder / name)
                n += 1
            except (IsADirectoryError, PermissionError, FileNotFoundError):
                pass
    return n


def _rmtree(path: Path) -> None:
    """Remove a folder tree, ignoring errors (shutil imported only when there is one)."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def remove_partials(root: str | Path) -> None:
    """Remove what a killed `new`, `host` or `join` left half-built: hidden siblings
    `.DIR.partial-*`, and in an existing DIR without archive.json the entries moved in from
    `DIR/.pbem-partial-*` (only when DIR holds nothing else)."""
    root = Path(os.path.abspath(root))
    prefix = f".{root.name}{_PARTIAL}"
    try:
        names = os.listdir(root.parent)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and (root.parent / name).is_dir():
            _rmtree(root.parent / name)
    try:
        inside = os.listdir(root) if root.is_dir() else []
    except OSError:
        return
    inner = [n for n in inside if n.startswith(_INNER)]
    if not inner:
        return
    if not (root / "archive.json").exists() and all(
            n in ("files", "secret", ".lock") or n.startswith(_INNER) for n in inside):
        for n in ("files", "secret"):
            _rmtree(root / n)
    for n in inner:
        _rmtree(root / n)


def create_in_place(root: str | Path, info: "ArchiveInfo",
                    fill: Callable[["Archive"], None]) -> None:
    """Create a new archive folder so that a killed process leaves no archive or a complete
    one: build it in a hidden sibling (`.DIR.partial-<random>`), then rename it to DIR. An
    existing empty DIR (perhaps the current folder) is kept: the archive is built in
    `DIR/.pbem-partial-<random>` and its entries moved up, archive.json last (an archive
    exists once archive.json does; remove_partials clears the rest). ArchiveError if DIR holds
    anything."""
    root = Path(os.path.abspath(root))
    if not root.name:
        raise ArchiveError(f"{root}: not a folder name for an archive")
    root.parent.mkdir(parents=True, exist_ok=True)
    remove_partials(root)
    if (root / "archive.json").exists():
        raise ArchiveError(f"{root}: an archive already exists here")
    existing = root.exists()
    if existing and (not root.is_dir() or any(n != ".lock" for n in os.listdir(root))):
        raise ArchiveError(f"{root}: folder is not empty")
    tmp = (root / f"{_INNER}{os.urandom(6).hex()}" if existing
           else root.parent / f".{root.name}{_PARTIAL}{os.urandom(6).hex()}")
    tmp.mkdir()
    try:
        a = Archive(tmp)
        a.create(info)
        fill(a)
        fsync_dir(tmp)
        try:
            if existing:
                names = sorted(os.listdir(tmp), key=lambda n: n == "archive.json")
                for n in names:
                    if n == "archive.json":
                        fsync_dir(root)             # the rest is in place before the commit
                    os.rename(tmp / n, root / n)
                os.rmdir(tmp)
            else:
                os.rename(tmp, root)
        except OSError as e:
            raise ArchiveError(f"{root}: cannot create the archive here ({e.strerror})") from None
    except BaseException:
        _rmtree(tmp)
        remove_partials(root)
        raise
    fsync_dir(root if existing else root.parent)


def write_derived(path: Path, data: bytes | str, *, only_changed: bool = False) -> bool:
    """Write a derived file (report, cache; no fsync); with only_changed, leave a file that
    already holds these bytes alone. True if written."""
    if only_changed:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        try:
            if path.read_bytes() == raw:
                return False
        except OSError:
            pass
    atomic_write(path, data, durable=False)
    return True


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
        self.secret_path = self.root / "secret" / "dice.json"
        self.rejected_dir = self.root / "rejected"
        self._lock_fh = None

    #: What the archive itself keeps (its signed files, its state, secrets and evidence): no
    #: output a command is told to write (--out) may land there.
    OWN = ("archive.json", ".lock", "files", "cache", "secret", "private", "evidence",
           "rejected", "queue")

    def check_out(self, out: str | Path) -> None:
        """PbemError if a command's output file or folder (out) would land among the files
        this archive keeps (a reply written over a stored signed file would make the archive
        look forged)."""
        # compared without case and trailing dots or spaces: one name on macOS and Windows
        root, path = str(self.root.resolve()), str(Path(out).resolve())
        if os.path.commonpath([root.lower(), path.lower()]) != root.lower():
            return                                  # outside the archive folder
        rel = Path(path[len(root):].lstrip("/\\"))
        if rel.parts and rel.parts[0].lower().rstrip(". ") in self.OWN:
            raise PbemError(f"{out}: inside the archive's own {rel.parts[0]} "
                            f"({self.root / rel.parts[0]}): write it outside the archive "
                            "folder; nothing was signed or stored")

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
            if not self.root.exists():     # a mistyped folder name: say so, not "no archive.json"
                raise ArchiveError(f"{self.root}: not a pbem archive (no such folder)") from None
            raise ArchiveError(f"{self.root}: not a pbem archive (no archive.json)") from None
        except NotADirectoryError:
            raise ArchiveError(f"{self.root}: a file, not an archive folder (the archive folder "
                               "comes first: pbem COMMAND DIR FILE)") from None
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
            raise ArchiveBusy(f"{self.root}: another pbem process is using this archive") from None
        self._lock_fh = fh
        self.remove_stale_temps()
        return self

    def remove_stale_temps(self) -> int:
        """Remove temporary files a killed pbem process left in the archive's folders (only
        under the lock: no other pbem process is writing here)."""
        n = 0
        for folder, dirs, _ in os.walk(self.root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            n += remove_stale_temps(Path(folder))
        return n

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

    def sent_view_files(self) -> list[Path]:
        """Hosted mode, the referee: every view file it signed, kept as sent (by side, seq)."""
        if not self.files_dir.is_dir():
            return []
        out = []
        for p in self.files_dir.iterdir():
            m = _SENT_VIEW_NAME.match(p.name)
            if m:
                out.append((int(m.group(2)), m.group(1), p))
        return [p for *_, p in sorted(out)]

    def rejection_files(self) -> list[Path]:
        """Hosted mode: the referee's signed rejections of refused player files, in order."""
        if not self.files_dir.is_dir():
            return []
        return sorted(p for p in self.files_dir.iterdir() if _REJECTION_NAME.match(p.name))

    @staticmethod
    def is_kept_name(name: str, *, kind: str) -> bool:
        """True for the name of a file kept in files/ of an archive of this kind (what the
        listings above return): a signed file; in a hosted player's archive ("player") also a
        view and a rejection; in a referee's ("referee") a sent view and a rejection; in a
        peer or sealed archive ("peer") nothing else."""
        if _FILE_NAME.match(name):
            return True
        if kind == "peer":
            return False
        views = _VIEW_NAME if kind == "player" else _SENT_VIEW_NAME
        return bool(views.match(name) or _REJECTION_NAME.match(name))

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

    def store_signed(self, name: str, text: str) -> bool:
        """Store a signed file unless an identical copy is already there (a command run again
        after it was interrupted); True if written. ArchiveError if a different file has that
        name."""
        p = self.files_dir / safe_name(name)
        if p.exists():
            if p.read_text(encoding="utf-8") != text:
                raise ArchiveError(f"{p}: already stored, with different contents")
            return False
        atomic_write(p, text)
        return True

    def write_outbox(self, name: str, text: str) -> Path:
        """Put a copy of a file to send in outbox/."""
        p = self.outbox / safe_name(name)
        atomic_write(p, text)
        return p
