"""Signed records: payload structs, the envelope, sealing and opening files.

A file is an armored envelope {"payload": base64(payload bytes), "sig": base64, "v": 1}.
The payload is canonical JSON (pbem.core.encoding) whose "type" names the record kind; the
signature covers the payload under the namespace of that kind (pbem.core.signing).
"""

# No `from __future__ import annotations` here: msgspec would then evaluate every field's
# annotation from its text the first time a process decodes a file (about 0.5 ms).

import base64
import binascii
import codecs
import hashlib
from collections import OrderedDict
from typing import Any, Callable, Literal

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem.core import signing
from pbem.core.armor import armor, canonical_b64, rejection, scan
from pbem.core.commitment import Opening
from pbem.core.encoding import canonical, decode_canonical, sha256_hex
from pbem.core.errors import FileRejected
from pbem.core.inputs import read_limited

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
    nonce: str                 # 32 hex: the proposer's random part of the game id
    game: str
    scenario: str
    rules_version: str
    data_hash: str
    options: dict[str, Any]
    mode: Literal["peer", "hosted", "sealed"]
    proposer: str
    parties: list[PartyKey]
    onion: OnionCommit
    class_onions: dict[str, OnionCommit] = {}   # the host's: one per visibility class (side)
    policy: Policy
    created: str = ""
    # sealed mode: the proposer's commitment to its fact key (commitment.fact_commit), so that
    # no private die of its side can be chosen by choosing the key later; absent before
    # session 25 and in the other modes (UNSET: not encoded, old files stay canonical)
    fact_commit: str | msgspec.UnsetType = msgspec.UNSET


class Acceptance(_R, tag="pbem/accept/v1", tag_field="type", kw_only=True):
    nonce: str                 # 32 hex: this party's random part of the game id
    proposal: str              # SHA-256 hex of the proposal payload
    party: str
    onion: OnionCommit
    class_onions: dict[str, OnionCommit] = {}
    fact_commit: str | msgspec.UnsetType = msgspec.UNSET    # sealed mode, as in Proposal


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


class Renewal(_R, tag="pbem/renewal/v1", tag_field="type", kw_only=True):
    """A party's new dice commitment for one onion label, taking over after file base."""

    game_id: str
    party: str
    label: str                 # the onion renewed: the party, or "party/class"
    generation: int            # 1 for the first renewal of this label, then 2, ...
    base: int                  # the file that carries it; files after it use the new onion
    tip: str                   # hex of the new onion's e[0]
    length: int


class SignedRenewal(_R, kw_only=True):
    """A renewal with its party's own signature, so that a referee can forward it in views."""

    renewal: Renewal
    sig: str                   # base64 Ed25519 signature, namespace pbem-renewal-v1


class FactCommit(_R, kw_only=True):
    """Sealed mode: the sender's commitment to one version of one of its hidden facts."""

    fact: str
    version: int
    hash: str                  # hex (pbem.core.commitment.commit)


class FinalReveal(_R, kw_only=True):
    """Sealed mode: what a side publishes when the game is over, so that anyone can replay it
    with full information: its fact key and the real orders of every file it sent."""

    fact_key: str              # hex: opens every commitment of the side
    orders: dict[str, list[str]]   # file seq (decimal) -> the real order lines


class Turn(_R, tag="pbem/turn/v1", tag_field="type", kw_only=True):
    game_id: str
    seq: int
    prev: str
    sender: str
    reveal: str                # hex of the sender's onion element e[seq]
    class_reveals: dict[str, str] = {}   # the host's class onions' e[seq], by class
    results: Results | None = None
    orders: list[str] = []
    message: str = ""
    # absent (not an empty list) when the file renews nothing: older files keep their bytes
    renewals: list[SignedRenewal] | msgspec.UnsetType = msgspec.UNSET
    # sealed mode only (absent otherwise): docs/sealed.md section 5
    commits: list[FactCommit] | msgspec.UnsetType = msgspec.UNSET
    openings: list[Opening] | msgspec.UnsetType = msgspec.UNSET
    final: FinalReveal | msgspec.UnsetType = msgspec.UNSET


class DiceProof(_R, kw_only=True):
    seq: int
    sender: str                # who sent file seq
    file_hash: str
    shares: dict[str, str]     # onion label -> element e[seq], only for classes the side sees


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
    renewals: list[SignedRenewal] | msgspec.UnsetType = msgspec.UNSET  # every renewal so far


class Rejection(_R, tag="pbem/reject/v1", tag_field="type", kw_only=True):
    """Hosted mode: the host's signed refusal of a player's file that breaks a rule."""

    game_id: str
    seq: int                   # the sequence number the refused file claimed
    sender: str
    file: str                  # SHA-256 hex of the refused file's payload
    order: int                 # 1-based index of the refused order (0: the file as a whole)
    reason: str
    rule: str = ""


Payload = Proposal | Acceptance | Turn | ViewFile | Rejection

NAMESPACE = {Proposal: "pbem-genesis-v1", Acceptance: "pbem-genesis-v1",
             Turn: "pbem-turn-v1", ViewFile: "pbem-view-v1", Rejection: "pbem-reject-v1"}


class Envelope(_R, kw_only=True):
    v: int
    payload: str
    sig: str


class SignedFile:
    """An opened file: payload bytes, typed payload, signature, and canonical armored text."""

    __slots__ = ("name", "payload_bytes", "payload", "sig", "text", "hash", "_verified")

    def __init__(self, name: str, payload_bytes: bytes, payload: Payload, sig: bytes,
                 text: str | None = None) -> None:
        """text: the canonical text when the caller holds it already (an opened block, or a
        stored file whose exact bytes were verified canonical before: pbem.protocol.verified);
        else rendered."""
        self.name = name
        self.payload_bytes = payload_bytes
        self.payload = payload
        self.sig = sig
        self.hash = sha256_hex(payload_bytes)
        self.text = summary(payload) + _render(payload_bytes, sig) if text is None else text
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
    out = out[:limit] + ("..." if len(out) > limit else "")
    while "-----" in out:              # never an armor marker line in the summary
        out = out.replace("-----", "----")
    return out


def summary(p: Payload) -> str:
    """A readable, unsigned summary printed above the armor (derived from the payload)."""
    head = "pbem: this summary is for reading only; only the signed block below counts."
    if isinstance(p, Proposal):
        lines = [f"pbem game proposal: {_clean(p.game)} / {_clean(p.scenario)}, {p.mode} mode, "
                 f"from {_clean(p.proposer)}", f"proposal nonce {_clean(p.nonce)}"]
    elif isinstance(p, Acceptance):
        lines = [f"pbem acceptance by {_clean(p.party)}", f"of proposal {_clean(p.proposal)}"]
    elif isinstance(p, Turn):
        lines = [f"pbem turn file {p.seq} from {_clean(p.sender)}", f"game id {p.game_id}"]
        if p.results is not None:
            seen = sum(1 for r in p.results.rolls if r.visible_to == "all")
            lines.append(f"results of file {p.results.seq}: {seen} dice seen by both sides")
        # never the orders' text: it may place or move hidden units (only the signed block,
        # which the receiving processor masks, carries them)
        n = len(p.orders)
        lines.append(f"orders: {n} line{'s' if n != 1 else ''} in the signed block" if n
                     else "orders: none")
        if p.message:
            lines.append(f"message: {_clean(p.message)}")
    elif isinstance(p, Rejection):
        lines = [f"pbem rejection of file {p.seq} from {_clean(p.sender)}",
                 f"game id {p.game_id}"]
    else:
        lines = [f"pbem view for {_clean(p.side)} after file {p.seq}"]
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
    fast = canonical_b64(s)
    if fast is not None:
        return fast
    try:
        b = base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):        # ValueError: a character beyond ASCII
        raise FileRejected(f"{name}: {what} is not valid base64") from None
    if _b64(b) != s:
        raise FileRejected(f"{name}: {what} is not canonical base64")
    return b


Choose = Callable[[list["SignedFile"]], "SignedFile"]


def _open_block(data: bytes, name: str) -> SignedFile:
    """Parse the envelope bytes of one armored block into a SignedFile."""
    env = decode_canonical(data, Envelope, name=name)
    if env.v != FORMAT_VERSION:
        raise FileRejected(f"{name}: unsupported file format version {env.v}")
    payload_bytes = _unb64(env.payload, name, "payload")
    sig = _unb64(env.sig, name, "signature")
    if len(sig) != 64:
        raise FileRejected(f"{name}: signature has {len(sig)} bytes, expected 64")
    payload = decode_canonical(payload_bytes, Payload, name=name)  # type: ignore[arg-type]
    # data is the canonical envelope of these bytes (checked above), so its armor is what
    # _render would encode again
    return SignedFile(name, payload_bytes, payload, sig, summary(payload) + armor(data))


def _progress(f: SignedFile) -> tuple[int, int]:
    """How far into a game a file is: (kind, seq); a reply is always further than what it quotes."""
    p = f.payload
    if isinstance(p, Proposal):
        return (0, 0)
    if isinstance(p, Acceptance):
        return (1, 0)
    seq = getattr(p, "seq", 0)
    return (2, seq if isinstance(seq, int) else 0)


def open_text(text: str, *, name: str = "file", strict: bool = False,
              choose: Choose | None = None) -> SignedFile:
    """Parse a file's text into a SignedFile (signature not yet checked against a key).

    strict=True (archive audit) also requires the text to be exactly the canonical armor.
    Otherwise the text may be a whole email holding several blocks (a reply that quotes the
    file it answers): every well-formed block is opened, blocks that do not open are skipped
    when another one does, and choose(candidates in text order) picks the file. The default
    picks the file furthest into the game (proposal, then acceptance, then the highest seq),
    then the least quoted, then the last in the text: the new file of a reply, whether the
    reply is written above the quoted text or below it. A quoted older file picked by
    mistake would be refused as stale anyway; a caller that knows the archive can pass a
    choose that picks the file not yet in it.
    """
    if len(text) > MAX_FILE_BYTES:
        raise FileRejected(f"{name}: file is too large ({len(text)} bytes, limit {MAX_FILE_BYTES})")
    blocks = scan(text)
    good = [b for b in blocks if b.data is not None]
    if not good:
        raise rejection(blocks, name)
    if strict:
        f = _open_block(good[0].data, name)  # type: ignore[arg-type]
        if len(blocks) != 1 or f.text != text:
            raise FileRejected(f"{name}: file bytes differ from the canonical form of its contents")
        return f
    opened: list[tuple[SignedFile, int]] = []
    first_error: FileRejected | None = None
    for b in good:
        try:
            opened.append((_open_block(b.data, name), b.quote))  # type: ignore[arg-type]
        except FileRejected as e:
            first_error = first_error or e
    if not opened:
        raise first_error  # type: ignore[misc]
    if len(opened) == 1:
        return opened[0][0]
    if choose is not None:
        return choose([f for f, _ in opened])
    best = max(range(len(opened)),
               key=lambda i: (_progress(opened[i][0]), -opened[i][1], i))
    return opened[best][0]


def decode_text(raw: bytes, name: str = "file") -> str:
    """The text of a file as mail delivers it: a byte-order mark (UTF-8, UTF-16 or UTF-32)
    gives the encoding; otherwise ASCII, UTF-8, or else Latin-1 (the block itself is ASCII)."""
    for bom, enc in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                     (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                     (codecs.BOM_UTF16_BE, "utf-16")):
        if raw.startswith(bom):
            return raw.decode(enc, errors="replace")
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


_OPENED: "OrderedDict[tuple[str, bytes, bool], SignedFile]" = OrderedDict()
_OPENED_MAX = 8192


def read_file(path: Any, *, strict: bool = False, choose: Choose | None = None) -> SignedFile:
    """Read and parse a file from disk (see open_text); parsed files are memoised by content.

    At most MAX_FILE_BYTES are read, and only from a regular file (pbem.core.inputs).
    strict=True (the archive's own files) requires the exact canonical ASCII form.
    """
    from pathlib import Path

    p = Path(path)
    raw = read_limited(p, MAX_FILE_BYTES, what="file", error=FileRejected)
    key = (p.name, hashlib.sha256(raw).digest(), strict)
    hit = _OPENED.get(key) if choose is None else None
    if hit is not None:
        _OPENED.move_to_end(key)
        return hit
    if strict:
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            raise FileRejected(f"{p.name}: not an ASCII pbem file") from None
    else:
        text = decode_text(raw, p.name)
    f = open_text(text, name=p.name, strict=strict, choose=choose)
    if choose is None:
        _OPENED[key] = f
        if len(_OPENED) > _OPENED_MAX:
            _OPENED.popitem(last=False)
    return f
