"""Stored files checked once: the archive remembers, by hash, which signed files were verified.

A command that loads an archive (receive, submit, status, check, report; never `pbem verify`)
opens each stored turn file strictly and verifies its signature the first time, then records
in `cache/verified.json` the SHA-256 of the file's bytes and the key that signed it, under an
HMAC whose key lives in pbem's cache folder beside the package (pbem.core.cache), never in
the archive. Later loads hash the bytes again (cheap) and, when an entry with a valid HMAC
names that hash, skip what is not: the canonical-form check and the Ed25519 verification. A
changed file has another hash, so it is checked in full (and refused if it fails); an entry
someone wrote without the HMAC key is ignored. Chain links, sequence numbers, senders and
dice reveals are checked on every load of the files that the record of the verified chain
(pbem.protocol.chain) does not cover (docs/protocol.md, "Caches").
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from pathlib import Path

import msgspec

from pbem.core import cache
from pbem.core.errors import FileRejected
from pbem.core.inputs import read_limited
from pbem.core.records import MAX_FILE_BYTES, Envelope, Payload, SignedFile, read_file
from pbem.protocol.archive import Archive, write_derived

INDEX_NAME = "verified.json"
_KEY_NAME = "verified-hmac.key"
_DOMAIN = b"pbem/v1/verified-file\0"
_BEGIN = "-----BEGIN PBEM FILE-----\n"
_END = "-----END PBEM FILE-----\n"


class _Index(msgspec.Struct, kw_only=True):
    v: int = 1
    files: dict[str, list[str]] = {}     # SHA-256 of the file's bytes -> [signer pub, HMAC]


def hmac_key() -> bytes | None:
    """This installation's secret for the HMACs (created on first use); None without a cache
    folder (then nothing is remembered and every file is checked in full)."""
    d = cache.folder()
    if d is None:
        return None
    p = d / _KEY_NAME
    try:
        key = p.read_bytes()
        if len(key) == 32:
            return key
    except OSError:
        pass
    key = os.urandom(32)
    try:
        tmp = d / f".{_KEY_NAME}.{os.urandom(4).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        os.replace(tmp, p)
    except OSError:
        return None
    return key


def _mac(key: bytes, digest: str, signer: str) -> str:
    return hmac.new(key, _DOMAIN + digest.encode() + b"\0" + signer.encode(),
                    hashlib.sha256).hexdigest()


def open_known(raw: bytes, name: str) -> SignedFile:
    """Open a file whose exact bytes were verified canonical before (no canonical checks; its
    text is these bytes, which is what rendering its payload and signature would give)."""
    text = raw.decode("ascii")
    body = text[text.index(_BEGIN) + len(_BEGIN):text.rindex(_END)]
    env = msgspec.json.decode(base64.b64decode("".join(body.split())), type=Envelope)
    payload_bytes = base64.b64decode(env.payload)
    payload = msgspec.json.decode(payload_bytes, type=Payload)  # type: ignore[arg-type]
    return SignedFile(name, payload_bytes, payload, base64.b64decode(env.sig), text=text)


class Stored:
    """The stored files of one archive, opened through its record of verified files."""

    def __init__(self, archive: Archive) -> None:
        self.path = archive.cache_dir / INDEX_NAME
        self.key = hmac_key()
        self.index = _Index()
        if self.key is not None:
            try:
                self.index = msgspec.json.decode(self.path.read_bytes(), type=_Index)
            except (OSError, msgspec.DecodeError, msgspec.ValidationError):
                pass

    def read(self, path: Path) -> SignedFile:
        """The stored file at path, strictly opened; its signature marked verified when this
        archive's record vouches for these exact bytes."""
        path = Path(path)
        raw = read_limited(path, MAX_FILE_BYTES, what="file", error=FileRejected)
        digest = hashlib.sha256(raw).hexdigest()
        entry = self.index.files.get(digest)
        if self.key is not None and entry is not None and len(entry) == 2 and \
                hmac.compare_digest(entry[1], _mac(self.key, digest, entry[0])):
            try:
                f = open_known(raw, path.name)
                f._verified[bytes.fromhex(entry[0])] = True
                return f
            except (ValueError, msgspec.DecodeError, msgspec.ValidationError):
                pass                  # cannot happen for bytes that verified: checked in full
        return read_file(path, strict=True)


def remember(archive: Archive, files: list[SignedFile]) -> None:
    """Record every file of the chain whose signature has been verified (by the ledger), by
    the hash of its stored (canonical) bytes; the record is a function of the chain alone, and
    is rewritten only when it changes. Called where a command writes its state cache."""
    key = hmac_key()
    if key is None:
        return
    from pbem.protocol.chain import Remembered

    index = _Index()
    for f in files:
        if isinstance(f, Remembered):        # vouched for by the record of the chain
            e = f.entry
            index.files[e.digest] = [e.signer, _mac(key, e.digest, e.signer)]
            continue
        for pub, ok in f._verified.items():
            if ok:
                digest = hashlib.sha256(f.text.encode("ascii")).hexdigest()
                index.files[digest] = [pub.hex(), _mac(key, digest, pub.hex())]
                break
    try:
        write_derived(archive.cache_dir / INDEX_NAME, msgspec.json.encode(index, order="sorted"),
                      only_changed=True)
    except OSError:
        pass                          # a read-only archive: checked in full next time too
