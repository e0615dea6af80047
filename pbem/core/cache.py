"""Static work done once: validated scenario data, drawn map layers and compiled templates.

Each entry is named by the SHA-256 of everything it is derived from (the data file bytes or
the template source, the source of the code that builds it, Python's version, the kind) and holds the
SHA-256 of its own body, checked on every load; a pickled entry also lists the source hash of
every pbem module its classes come from, checked before unpickling. A missing, stale or
damaged entry is rebuilt, never believed.

The folder is beside the installed package, with the trust of Python's own byte-compiled
modules there: $PBEM_CACHE_DIR when set, else `pbem/__pycache__/pbem-static`, else
`$XDG_CACHE_HOME/pbem` (`~/.cache/pbem`); when none can be written nothing is cached and every
command does the work itself. Entries hold pickled objects and compiled template code, so
whoever can write this folder can run code as the user, exactly as with `__pycache__`: it is
never inside an archive (docs/protocol.md, "Caches"). Every command uses it, `pbem verify`
included: it holds nothing from an archive, and a game's data is still checked against the
proposal's data hash from the data files' own bytes, which also name the cached entry.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

import msgspec

from pbem.core.files import atomic_write

MAGIC = b"pbem-cache/1\n"
CACHE_ENV = "PBEM_CACHE_DIR"
_PACKAGE = Path(__file__).resolve().parents[1]


def _writable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
        return os.access(d, os.W_OK | os.X_OK)
    except OSError:
        return False


@lru_cache(maxsize=None)
def _folder_for(env: str | None) -> Path | None:
    if env is not None:
        return Path(env) if env and _writable(Path(env)) else None
    for d in (_PACKAGE / "__pycache__" / "pbem-static",
              Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pbem"):
        if _writable(d):
            return d
    return None


def folder() -> Path | None:
    """The cache folder, or None when caching is off (no writable place; PBEM_CACHE_DIR='')."""
    return _folder_for(os.environ.get(CACHE_ENV))


def digest(*parts: bytes | str) -> str:
    """SHA-256 hex over length-prefixed parts (strings as UTF-8)."""
    h = hashlib.sha256()
    for p in parts:
        b = p.encode("utf-8") if isinstance(p, str) else p
        h.update(len(b).to_bytes(8, "big"))
        h.update(b)
    return h.hexdigest()


def key_of(kind: str, *parts: bytes | str) -> str:
    """An entry's name: the hash of its kind, the cache format, Python's version and the parts
    (what the entry is built from; the code that builds it is checked by source hash)."""
    return digest(kind, MAGIC, sys.version, *parts)


def source_hash(module: Any) -> str:
    """SHA-256 of a module's source file (the code an entry depends on)."""
    return _file_digest(module.__file__)


@lru_cache(maxsize=None)
def _file_digest(path: str) -> str:
    # once per process: the code a process runs is what it imported when it started
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def files_key(kind: str, paths: Iterable[Path], *extra: str, root: Path | None = None) -> str:
    """key_of over each file's name (its path under root, when given) and bytes (the inputs of
    a data cache) and extra parts."""
    parts: list[bytes | str] = []
    for p in map(Path, paths):
        parts += [p.relative_to(root).as_posix() if root else p.name, p.read_bytes()]
    return key_of(kind, *parts, *extra)


def _path(kind: str, key: str) -> Path | None:
    d = folder()
    return None if d is None else d / f"{kind}-{key}.bin"


def load(kind: str, key: str) -> bytes | None:
    """The body stored under (kind, key), if present and intact; None otherwise."""
    p = _path(kind, key)
    if p is None:
        return None
    try:
        raw = p.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + 65
    if len(raw) < head or not raw.startswith(MAGIC):
        return None
    body = raw[head:]
    if raw[len(MAGIC):head - 1].decode("ascii", "replace") != hashlib.sha256(body).hexdigest():
        return None
    return body


def store(kind: str, key: str, body: bytes) -> bool:
    """Store a body under (kind, key) atomically; False (and nothing kept) if it cannot."""
    p = _path(kind, key)
    if p is None:
        return False
    data = MAGIC + hashlib.sha256(body).hexdigest().encode("ascii") + b"\n" + body
    try:
        atomic_write(p, data, durable=False)
    except OSError:
        return False
    _prune(p.parent, kind)
    return True


KEEP = 64        # entries kept per kind (older ones are for data or code no longer in use)


def _prune(d: Path, kind: str) -> None:
    """Remove the oldest entries of a kind beyond KEEP."""
    try:
        entries = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(d)
                   if e.name.startswith(f"{kind}-") and e.name.endswith(".bin")]
    except OSError:
        return
    for _, path in sorted(entries)[:-KEEP]:
        try:
            os.unlink(path)
        except OSError:
            pass


class _Pickled(msgspec.Struct):
    modules: dict[str, str]            # pbem module -> SHA-256 of its source when stored
    body: bytes


def _module_hash(name: str) -> str | None:
    try:
        mod = sys.modules.get(name) or importlib.import_module(name)
        return _file_digest(mod.__file__)  # type: ignore[arg-type]
    except Exception:                # gone, renamed or not a file: the entry is stale
        return None


class _Recorder(pickle.Pickler):
    """A pickler that notes the module of every object's class and of every class pickled."""

    def __init__(self, fh: io.BytesIO) -> None:
        super().__init__(fh, protocol=5)
        self.modules: set[str] = set()

    def persistent_id(self, obj: Any) -> None:
        """Record where obj's code lives; pickle it as usual."""
        self.modules.add(type(obj).__module__)
        if isinstance(obj, type) or callable(obj):
            self.modules.add(str(getattr(obj, "__module__", "")))
        return None


def remember(kind: str, key: str, build: Callable[[], Any]) -> Any:
    """The object built by build(), kept pickled under (kind, key) and reused while intact
    and while every pbem module it refers to has the same source; rebuilt otherwise."""
    raw = load(kind, key)
    if raw is not None:
        try:
            entry = msgspec.msgpack.decode(raw, type=_Pickled)
            if all(_module_hash(m) == h for m, h in entry.modules.items()):
                return pickle.loads(entry.body)
        except Exception:            # a damaged entry: rebuilt below, never believed
            pass
    obj = build()
    try:
        fh = io.BytesIO()
        rec = _Recorder(fh)
        rec.dump(obj)
        body = fh.getvalue()
        mods = {m for m in rec.modules if m == "pbem" or m.startswith("pbem.")}
        hashes = {m: _module_hash(m) for m in sorted(mods)}
        if all(hashes.values()):
            store(kind, key, msgspec.msgpack.encode(_Pickled(modules=hashes, body=body)))
    except Exception:                # not picklable: used as built, not kept
        pass
    return obj
