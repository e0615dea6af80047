"""Signed records: payload structs, the envelope, sealing and opening files.

A file is an armored envelope {"payload": base64(payload bytes), "sig": base64, "v": 1}.
The payload is canonical JSON (pbem.core.encoding) whose "type" names the record kind; the
signature covers the payload under the namespace of that kind (pbem.core.signing).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections import OrderedDict
from typing import Any, Literal

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem.core import signing
from pbem.core.armor import armor, dearmor
from pbem.core.encoding import canonical, decode_canonical, sha256_hex
from pbem.core.errors import FileRejected

MAX_FILE_BYTES = 4 * 1024 * 1024
FORMAT_VERSION = 1


class _R(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class OnionCommit(_R, kw_only=True):
    tip: str                   # hex of e[0]
    length: int


class PartyKey(_R, kw_only=True):
    party: str                 # a side id, or "host"
    pub: str                   # hex of the raw Ed25519 public key
    name: str = ""             # display name (untrusted text)


class Policy(_R, kw_only=True):
    reply_days: int = 7
    forfeit: str = ("a party that does not reply within reply_days after a file was sent, "
                    "or that signs two different files with one sequence number, forfeits")


class Proposal(_R, tag="pbem/proposal/v1", tag_field="type", kw_only=True):
    game_id: str
    game: str
    scenario: str
    rules_version: str
    data_hash: str
    options: dict[str, Any]
    mode: Literal["peer", "hosted"]
    proposer: str
    parties: list[PartyKey]
    onion: OnionCommit
    policy: Policy
    created: str = ""


class Acceptance(_R, tag="pbem/accept/v1", tag_field="type", kw_only=True):
    game_id: str
    proposal: str              # SHA-256 hex of the proposal payload
    party: str
    onion: OnionCommit


class RollRecord(_R, kw_only=True):
    action: int
    index: int
    sides: int
    value: int
    purpose: str
    visible_to: str = "all"


class Results(_R, kw_only=True):
    seq: int                   # the file these results resolve
    rolls: list[RollRecord]
    skipped: list[int] = []    # order indexes not carried out (illegal after earlier dice)
    state_hash: str            # SHA-256 hex of the canonical state after resolution


class Turn(_R, tag="pbem/turn/v1", tag_field="type", kw_only=True):
    game_id: str
    seq: int
    prev: str
    sender: str
    reveal: str                # hex of the sender's onion element e[seq]
    results: Results | None = None
    orders: list[str] = []
    message: str = ""


class DiceProof(_R, kw_only=True):
    seq: int
    file_hash: str
    shares: dict[str, str]     # party -> onion element used for this file


class ViewFile(_R, tag="pbem/view/v1", tag_field="type", kw_only=True):
    """Hosted mode: the host's per-side report of the chain tip (sent to one player)."""

    game_id: str
    side: str
    seq: int                   # the chain tip this view describes
    tip: str                   # SHA-256 hex of the tip record (the player's next prev)
    view_seq: int              # counter of view files sent to this side (strictly +1)
    state: Any                 # the game's view of the state for this side
    report: Any                # the game's ReportModel for this side
    pending: list[Any]
    outcome: Any = None
    events: list[Any] = []
    rolls: list[Any] = []      # rolls visible to this side: {seq, action, index, sides, value, purpose}
    proofs: list[DiceProof] = []
    genesis: list[str] = []    # every acceptance file (armored), so players know every commitment


Payload = Proposal | Acceptance | Turn | ViewFile

NAMESPACE = {Proposal: "pbem-genesis-v1", Acceptance: "pbem-genesis-v1",
             Turn: "pbem-turn-v1", ViewFile: "pbem-view-v1"}


class Envelope(_R, kw_only=True):
    v: int
    payload: str
    sig: str


class SignedFile:
    """An opened file: payload bytes, typed payload, signature, and canonical armored text."""

    __slots__ = ("name", "payload_bytes", "payload", "sig", "text", "hash", "_verified")

    def __init__(self, name: str, payload_bytes: bytes, payload: Payload, sig: bytes) -> None:
        self.name = name
        self.payload_bytes = payload_bytes
        self.payload = payload
        self.sig = sig
        self.hash = sha256_hex(payload_bytes)
        self.text = summary(payload) + _render(payload_bytes, sig)
        self._verified: dict[bytes, bool] = {}

    @property
    def namespace(self) -> str:
        """The signature namespace of this record kind."""
        return NAMESPACE[type(self.payload)]

    def signed_by(self, pub_raw: bytes) -> bool:
        """True if the signature verifies under this public key (the answer is memoised)."""
        known = self._verified.get(pub_raw)
        if known is None:
            known = signing.verify(pub_raw, self.namespace, self.payload_bytes, self.sig)
            self._verified[pub_raw] = known
        return known


def _clean(text: str, limit: int = 200) -> str:
    """Printable ASCII only, so the unsigned summary cannot fake lines or break the armor."""
    out = "".join(c if " " <= c <= "~" else f"\\u{ord(c):04x}" for c in text)
    return out[:limit] + ("..." if len(out) > limit else "")


def summary(p: Payload) -> str:
    """A readable, unsigned summary printed above the armor (derived from the payload)."""
    head = "pbem: this summary is for reading only; only the signed block below counts."
    if isinstance(p, Proposal):
        lines = [f"pbem game proposal: {_clean(p.game)} / {_clean(p.scenario)}, {p.mode} mode, "
                 f"from {_clean(p.proposer)}", f"game id {p.game_id}"]
    elif isinstance(p, Acceptance):
        lines = [f"pbem acceptance by {_clean(p.party)}", f"game id {p.game_id}"]
    elif isinstance(p, Turn):
        lines = [f"pbem turn file {p.seq} from {_clean(p.sender)}", f"game id {p.game_id}"]
        if p.results is not None:
            lines.append(f"results of file {p.results.seq}: {len(p.results.rolls)} dice")
        lines.append("orders:" if p.orders else "orders: none")
        lines.extend(f"  {_clean(o)}" for o in p.orders[:200])
        if len(p.orders) > 200:
            lines.append(f"  ... {len(p.orders) - 200} more")
        if p.message:
            lines.append(f"message: {_clean(p.message)}")
    else:
        lines = [f"pbem view for {_clean(p.side)} after file {p.seq}", f"game id {p.game_id}"]
    return "\n".join([*lines, head, ""]) + "\n"


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode("ascii")


def _render(payload_bytes: bytes, sig: bytes) -> str:
    env = Envelope(v=FORMAT_VERSION, payload=_b64(payload_bytes), sig=_b64(sig))
    return armor(canonical(env))


def seal(payload: Payload, key: Ed25519PrivateKey, *, name: str = "file") -> SignedFile:
    """Sign a payload and return the opened file (its .text is what gets written and sent)."""
    data = canonical(payload)
    sig = signing.sign(key, NAMESPACE[type(payload)], data)
    return SignedFile(name, data, payload, sig)


def _unb64(s: str, name: str, what: str) -> bytes:
    try:
        b = base64.b64decode(s, validate=True)
    except binascii.Error:
        raise FileRejected(f"{name}: {what} is not valid base64") from None
    if _b64(b) != s:
        raise FileRejected(f"{name}: {what} is not canonical base64")
    return b


def open_text(text: str, *, name: str = "file", strict: bool = False) -> SignedFile:
    """Parse a file's text into a SignedFile (signature not yet checked against a key).

    strict=True (archive audit) also requires the text to be exactly the canonical armor.
    """
    if len(text) > MAX_FILE_BYTES:
        raise FileRejected(f"{name}: file is too large ({len(text)} bytes, limit {MAX_FILE_BYTES})")
    env = decode_canonical(dearmor(text, name=name), Envelope, name=name)
    if env.v != FORMAT_VERSION:
        raise FileRejected(f"{name}: unsupported file format version {env.v}")
    payload_bytes = _unb64(env.payload, name, "payload")
    sig = _unb64(env.sig, name, "signature")
    if len(sig) != 64:
        raise FileRejected(f"{name}: signature has {len(sig)} bytes, expected 64")
    payload = decode_canonical(payload_bytes, Payload, name=name)  # type: ignore[arg-type]
    f = SignedFile(name, payload_bytes, payload, sig)
    if strict and f.text != text:
        raise FileRejected(f"{name}: file bytes differ from the canonical form of its contents")
    return f


_OPENED: "OrderedDict[tuple[str, bytes, bool], SignedFile]" = OrderedDict()
_OPENED_MAX = 8192


def read_file(path: Any, *, strict: bool = False) -> SignedFile:
    """Read and parse a file from disk (see open_text); parsed files are memoised by content."""
    from pathlib import Path

    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise FileRejected(f"{p.name}: file is too large ({size} bytes, limit {MAX_FILE_BYTES})")
        raw = p.read_bytes()
    except OSError as e:
        raise FileRejected(f"{p}: cannot read ({e.strerror})") from None
    key = (p.name, hashlib.sha256(raw).digest(), strict)
    hit = _OPENED.get(key)
    if hit is not None:
        _OPENED.move_to_end(key)
        return hit
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise FileRejected(f"{p.name}: not an ASCII pbem file") from None
    f = open_text(text, name=p.name, strict=strict)
    _OPENED[key] = f
    if len(_OPENED) > _OPENED_MAX:
        _OPENED.popitem(last=False)
    return f
