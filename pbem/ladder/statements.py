"""Signed ladder statements: forfeit claims and key replacements, armored for mail.

A statement is the canonical JSON envelope `{"payload": base64(payload bytes), "sigs":
[{"key": hex public key, "sig": base64 signature}], "v": 1}` in the same ASCII armor as a
game file (pbem.core.armor), below a short unsigned summary. The payload is canonical JSON
(pbem.core.encoding) with a `type`; each signature is pbem's domain-separated Ed25519
signature (pbem.core.signing) under the namespace of that type, so a statement can never
pass for a game file or the other way round (a game file's envelope has one `sig`, a
statement's a list of `sigs`: each decoder refuses the other's).
"""

from __future__ import annotations

import base64
import binascii
import datetime
import re
from pathlib import Path
from typing import Any

import msgspec

from pbem.core import signing
from pbem.core.armor import armor, dearmor_all
from pbem.core.encoding import canonical, decode_canonical, sha256_hex
from pbem.core.errors import FileRejected
from pbem.core.inputs import read_limited
from pbem.core.keys import public_raw
from pbem.core.records import decode_text
from pbem.ladder.db import LadderError

MAX_STATEMENT = 64 * 1024
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_HEX32 = re.compile(r"^[0-9a-f]{32}$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


class _S(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class ForfeitClaim(_S, tag="pbem-ladder/forfeit-claim/v1", tag_field="type", kw_only=True):
    """A player's claim that the opponent has not answered a file within the game's policy."""

    game_id: str
    genesis: str               # the genesis hash of the game
    claimant: str              # the claimant's side
    opponent: str              # the side that owes the answer
    last_seq: int              # the last file of the game as the claimant knows it
    last_hash: str             # its hash (a hosted player: the tip its latest view names)
    sent: str                  # YYYY-MM-DD: when that file reached the opponent
    claimed: str               # YYYY-MM-DD: the day of the claim
    message: str = ""


class KeyReplacement(_S, tag="pbem-ladder/key-replacement/v1", tag_field="type", kw_only=True):
    """A player's statement that its key `old` is retired and replaced by `new`."""

    old: str                   # hex of the retired public key
    new: str                   # hex of the new public key
    date: str                  # YYYY-MM-DD
    message: str = ""


Statement = ForfeitClaim | KeyReplacement
NAMESPACE: dict[type, str] = {ForfeitClaim: "pbem-ladder-forfeit-v1",
                              KeyReplacement: "pbem-ladder-key-v1"}


class Signature(_S, kw_only=True):
    key: str                   # hex of the signer's raw public key
    sig: str                   # base64 of the 64-byte signature


class StatementEnvelope(_S, kw_only=True):
    v: int
    payload: str
    sigs: list[Signature]


class SignedStatement:
    """An opened statement: payload bytes, typed payload, signatures and armored text."""

    def __init__(self, name: str, payload_bytes: bytes, payload: Statement,
                 sigs: dict[bytes, bytes]) -> None:
        self.name, self.payload_bytes, self.payload, self.sigs = name, payload_bytes, payload, sigs
        self.hash = sha256_hex(payload_bytes)
        self.text = summary(payload) + armor(_envelope(payload_bytes, sigs))

    def signed_by(self, pub_raw: bytes) -> bool:
        """True if the statement carries a valid signature by this public key."""
        sig = self.sigs.get(pub_raw)
        return sig is not None and signing.verify(pub_raw, NAMESPACE[type(self.payload)],
                                                  self.payload_bytes, sig)


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode("ascii")


def _envelope(payload_bytes: bytes, sigs: dict[bytes, bytes]) -> bytes:
    return canonical(StatementEnvelope(v=1, payload=_b64(payload_bytes), sigs=[
        Signature(key=k.hex(), sig=_b64(s)) for k, s in sorted(sigs.items())]))


def _clean(text: str, limit: int = 120) -> str:
    out = "".join(c if " " <= c <= "~" else "?" for c in text)[:limit]
    while "-----" in out:
        out = out.replace("-----", "----")
    return out


def summary(p: Statement) -> str:
    """The unsigned, readable lines above the armor (printable ASCII, never a marker line)."""
    if isinstance(p, ForfeitClaim):
        lines = [f"pbem ladder forfeit claim by {_clean(p.claimant)} against "
                 f"{_clean(p.opponent)}", f"game id {_clean(p.game_id)}, no answer to file "
                 f"{p.last_seq} sent {_clean(p.sent)}, claimed {_clean(p.claimed)}"]
    else:
        lines = ["pbem ladder key replacement", f"old key {_clean(p.old)}",
                 f"new key {_clean(p.new)}, from {_clean(p.date)}"]
    return "\n".join([*lines, "pbem: this summary is for reading only; only the signed block "
                      "below counts.", ""])


def check_date(value: str, what: str, name: str) -> datetime.date:
    """A YYYY-MM-DD date; LadderError naming the file otherwise."""
    try:
        if not _DATE.match(value):
            raise ValueError
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise LadderError(f"{name}: {what} {value!r} is not a date (YYYY-MM-DD)") from None


def validate(p: Statement, name: str) -> None:
    """Field checks beyond the types (hex, dates); LadderError naming the file."""
    if isinstance(p, ForfeitClaim):
        if not _HEX32.match(p.game_id) or not _HEX64.match(p.genesis):
            raise LadderError(f"{name}: malformed game id or genesis hash")
        if not _HEX64.match(p.last_hash) or p.last_seq < 0:
            raise LadderError(f"{name}: malformed last file")
        if p.claimant == p.opponent:
            raise LadderError(f"{name}: the claimant and the opponent are the same side")
        sent = check_date(p.sent, "sent", name)
        if check_date(p.claimed, "claimed", name) < sent:
            raise LadderError(f"{name}: claimed {p.claimed} is before the file was sent "
                              f"({p.sent})")
    else:
        if not _HEX64.match(p.old) or not _HEX64.match(p.new):
            raise LadderError(f"{name}: malformed public key")
        if p.old == p.new:
            raise LadderError(f"{name}: the old and the new key are the same")
        check_date(p.date, "date", name)
    if len(p.message) > 2000:
        raise LadderError(f"{name}: message is too long (over 2000 characters)")


def make(payload: Statement, keys: list[Any], *, name: str = "statement") -> SignedStatement:
    """Sign a statement with each private key (pbem.core.signing, the statement's namespace)."""
    validate(payload, name)
    data = canonical(payload)
    sigs = {public_raw(k.public_key()): signing.sign(k, NAMESPACE[type(payload)], data)
            for k in keys}
    return SignedStatement(name, data, payload, sigs)


def _unb64(s: str, name: str, what: str) -> bytes:
    try:
        b = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        raise LadderError(f"{name}: {what} is not valid base64") from None
    if _b64(b) != s:
        raise LadderError(f"{name}: {what} is not canonical base64")
    return b


def _open_block(data: bytes, name: str) -> SignedStatement:
    env = decode_canonical(data, StatementEnvelope, name=name)
    if env.v != 1:
        raise LadderError(f"{name}: unsupported statement version {env.v}")
    payload_bytes = _unb64(env.payload, name, "payload")
    payload = decode_canonical(payload_bytes, Statement, name=name)  # type: ignore[arg-type]
    sigs: dict[bytes, bytes] = {}
    for s in env.sigs:
        if not _HEX64.match(s.key):
            raise LadderError(f"{name}: malformed signer key")
        sig = _unb64(s.sig, name, "signature")
        if len(sig) != 64:
            raise LadderError(f"{name}: signature has {len(sig)} bytes, expected 64")
        k = bytes.fromhex(s.key)
        if k in sigs:
            raise LadderError(f"{name}: two signatures by one key")
        sigs[k] = sig
    validate(payload, name)
    return SignedStatement(name, payload_bytes, payload, sigs)


def open_statement(text: str, *, name: str = "statement") -> SignedStatement:
    """The ladder statement in a text (a mail body): the first armored block that is one."""
    try:
        blocks = dearmor_all(text, name=name)
    except FileRejected as e:
        raise LadderError(str(e)) from None
    first: Exception | None = None
    for data in blocks:
        try:
            return _open_block(data, name)
        except (FileRejected, LadderError) as e:
            first = first or e
    why = str(first).removeprefix(f"{name}: ")
    raise LadderError(f"{name}: not a pbem ladder statement ({why})")


def read_statement(path: str | Path) -> SignedStatement:
    """Read a statement file (at most 64 KiB, a regular file); LadderError naming it."""
    p = Path(path)
    raw = read_limited(p, MAX_STATEMENT, what="statement", error=LadderError)
    return open_statement(decode_text(raw, p.name), name=p.name)
