"""The verified chain remembered: a summary that stands in for opening every stored turn file.

A command that has verified an archive's chain (each file's signature, link, sequence number,
sender and dice reveals; pbem.protocol.ledger) records in `cache/chain.json` what a later load
needs of those files without opening them: per file its name, the SHA-256 of its stored bytes,
its hash (the one the next file names), sequence number, sender, the key that signed it, its
dice reveals and its renewals. The record is bound to the game and its genesis and carries an
HMAC under this installation's key (the key of the record of verified files,
pbem.protocol.verified, kept beside the package, never in the archive), so a record written
elsewhere or edited is ignored.

A later load (never `pbem verify`, never a sealed archive, whose commitments are taken from
every file) uses the record when files/ begins with exactly the names it lists and the last
of them still holds the bytes it names: each file names the hash of the one before it, so
that file fixes the whole chain before it. Those files are then `Remembered`: their contents
are opened only when something asks for them, and only if their bytes are still the ones
remembered (ArchiveError otherwise). Loading no longer reads every stored file, so a command
costs the same at file 200 as at file 3 (issue 12, item 3; docs/protocol.md, "Caches").
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from typing import Any

import msgspec

from pbem.core.errors import ArchiveError
from pbem.core.inputs import read_limited
from pbem.core.commitment import Opening
from pbem.core.records import MAX_FILE_BYTES, FactCommit, SignedFile, SignedRenewal, Turn

NAME = "chain.json"
_DOMAIN = b"pbem/v1/verified-chain\0"


class Entry(msgspec.Struct, array_like=True, frozen=True):
    """One verified file of the chain, as a later load needs it."""

    name: str
    digest: str                          # SHA-256 of the stored bytes
    hash: str                            # the file's hash (of its payload)
    seq: int
    sender: str
    signer: str                          # hex public key its signature verified under
    reveals: list[tuple[str, str]]       # (onion label, element hex), as Ledger.reveals
    renewals: list[SignedRenewal] = []
    # sealed mode: what sealing.Facts takes from the file: its commitments and openings, and
    # whether it is a final reveal (whose real orders stay in the signed file: the record
    # repeats nothing a leak scan of the archive would not find published on purpose)
    commits: list[FactCommit] = []
    openings: list[Opening] = []
    final: bool = False


class _SealedPart(msgspec.Struct, kw_only=True):
    seq: int
    sender: str
    commits: Any
    openings: Any
    final: Any = msgspec.UNSET


class Summary(msgspec.Struct, kw_only=True):
    v: int = 1
    game_id: str
    genesis: str                         # the genesis hash
    files: list[Entry]
    code: str = ""                       # checking_code(): the checks the files passed
    mac: str = ""


def checking_code() -> str:
    """A digest of the code that checks a stored file (reading, signatures, the ledger, this
    record): a record made by other code is not believed, so a check added to pbem since
    (a weak key, a field a mode may not carry) applies to every file again."""
    import importlib

    from pbem.core import cache

    mods = ("pbem.core.records", "pbem.core.signing", "pbem.core.renewal",
            "pbem.protocol.ledger", __name__)
    return hashlib.sha256("".join(cache.source_hash(importlib.import_module(m))
                                  for m in mods).encode("ascii")).hexdigest()


class Remembered:
    """A stored turn file of a remembered chain: what the chain needs of it at hand, the rest
    (payload, bytes, signature, text) opened on first use, and only if unchanged."""

    __slots__ = ("entry", "name", "hash", "seq", "sender", "renewals", "_path", "_file")

    def __init__(self, entry: Entry, path: Path) -> None:
        self.entry = entry
        self.name, self.hash, self.seq, self.sender = entry.name, entry.hash, entry.seq, \
            entry.sender
        self.renewals = entry.renewals
        self._path = path
        self._file: SignedFile | None = None

    def open(self) -> SignedFile:
        """The file itself; ArchiveError if its bytes are no longer the ones remembered."""
        if self._file is None:
            from pbem.protocol.verified import open_known

            raw = read_limited(self._path, MAX_FILE_BYTES, what="file", error=ArchiveError)
            f = None
            if hashlib.sha256(raw).hexdigest() == self.entry.digest:
                try:
                    f = open_known(raw, self.name)
                except (ValueError, msgspec.DecodeError, msgspec.ValidationError):
                    f = None
            if f is None or f.hash != self.hash:
                raise ArchiveError(f"{self._path}: changed since this archive's chain was "
                                   "verified (`pbem verify` audits the archive)")
            f._verified[bytes.fromhex(self.entry.signer)] = True
            self._file = f
        return self._file

    def sealed_part(self) -> Any:
        """The file's sealed fields as sealing.Facts.take reads them from a Turn (a final
        reveal is opened: its real orders are in the file only)."""
        e = self.entry
        if e.final:
            return self.open().payload
        return _SealedPart(seq=e.seq, sender=e.sender, commits=e.commits or msgspec.UNSET,
                           openings=e.openings or msgspec.UNSET)

    def __getattr__(self, attr: str) -> Any:
        # payload, payload_bytes, sig, text, _verified, signed_by, namespace: the file's own
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self.open(), attr)


def _mac(key: bytes, s: Summary) -> str:
    body = msgspec.json.encode(msgspec.structs.replace(s, mac=""))
    return hmac.new(key, _DOMAIN + body, hashlib.sha256).hexdigest()


def entry_of(f: Any) -> Entry | None:
    """The record of a file the ledger holds, or None if its signature was not verified."""
    if isinstance(f, Remembered):
        return f.entry
    signer = next((pub for pub, ok in f._verified.items() if ok), None)
    t = f.payload
    if signer is None or not isinstance(t, Turn):
        return None
    from pbem.protocol.archive import turn_file_name
    from pbem.protocol.ledger import Ledger

    # the name it is stored under (a file received keeps its mail name until it is stored)
    return Entry(name=turn_file_name(t.seq, t.sender),
                 digest=hashlib.sha256(f.text.encode("ascii")).hexdigest(), hash=f.hash,
                 seq=t.seq, sender=t.sender, signer=signer.hex(),
                 reveals=Ledger.reveals(t), renewals=list(t.renewals or []),
                 commits=list(t.commits or []), openings=list(t.openings or []),
                 final=t.final is not msgspec.UNSET)


def remember(archive: Any, genesis: Any, files: list[Any]) -> None:
    """Record the chain's files that the ledger verified (those before the first that it did
    not); rewritten only when it changes. Called where a command writes its state cache."""
    from pbem.protocol.archive import write_derived
    from pbem.protocol.verified import hmac_key

    key = hmac_key()
    if key is None:
        return
    entries = []
    for f in files:
        e = entry_of(f)
        if e is None:
            break
        entries.append(e)
    s = Summary(game_id=genesis.game_id, genesis=genesis.hash, files=entries,
                code=checking_code())
    s.mac = _mac(key, s)
    try:
        write_derived(archive.cache_dir / NAME, msgspec.json.encode(s), only_changed=True)
    except OSError:
        pass                          # a read-only archive: every file is opened next time


def recall(archive: Any, genesis: Any, paths: list[Path]) -> list[Remembered]:
    """The remembered files at the start of the chain (paths: files/'s turn files in order),
    or [] when there is no valid record for exactly these files."""
    from pbem.protocol.verified import hmac_key

    key = hmac_key()
    if key is None:
        return []
    try:
        s = msgspec.json.decode((archive.cache_dir / NAME).read_bytes(), type=Summary)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return []
    n = len(s.files)
    if (s.v != 1 or not n or n > len(paths) or s.game_id != genesis.game_id
            or s.genesis != genesis.hash or s.code != checking_code()
            or not hmac.compare_digest(s.mac, _mac(key, s))):
        return []
    out = []
    for i, (e, p) in enumerate(zip(s.files, paths)):
        if p.name != e.name or e.seq != i + 1:
            return []
        out.append(Remembered(e, p))
    try:
        out[-1].open()                 # it names the one before it: the chain is this one
    except ArchiveError:
        return []
    return out
