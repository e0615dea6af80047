"""Commitments to hidden facts (sealed mode): salted hashes, fresh per fact and per change.

A hidden fact is one value of one side that the other side may not know yet (a block's
identity or strength, a support marker drawn). Its owner publishes only a commitment
C = H(lp("pbem/v1/fact") | lp(game_id) | lp(owner) | lp(fact) | u32 version |
lp(canonical(value)) | lp(salt)); each change of the fact raises its version and gets a new
salt, so equal values never give equal commitments and a commitment says nothing of the
value. Salts come from the owner's fact key, HKDF of its dice secret: the owner never stores
them, and at the end of the game it publishes the fact key, which opens every commitment it
made (and nothing of its dice onions). An opening is (fact, version, value, salt); it holds
if it hashes to the commitment recorded for that fact and version.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
from typing import Any

import msgspec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from pbem.core.dice import lp
from pbem.core.encoding import canonical

FACT_TAG = b"pbem/v1/fact"
KEY_INFO = b"pbem/v1/fact-key"
SALT_TAG = b"pbem/v1/fact-salt"
COMMIT_TAG = b"pbem/v1/fact-key-commit"
MAX_VERSION = 2**32 - 1
_FACT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/#?+-]{0,99}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def fact_key(root: bytes) -> bytes:
    """The owner's fact key, from its dice secret (HKDF-SHA256, its own info string)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=KEY_INFO).derive(root)


def fact_commit(key: bytes) -> str:
    """The genesis commitment to a side's fact key (hex): SHA-256(lp(tag) | lp(key)). Its
    final reveal must open this key; without it a side could pick its key, and so its own
    private dice, after seeing the first file (docs/sealed.md 5a)."""
    return hashlib.sha256(lp(COMMIT_TAG) + lp(key)).hexdigest()


def salt(key: bytes, fact: str, version: int) -> bytes:
    """The salt of one version of one fact: HMAC-SHA256(fact key, lp(tag) | lp(fact) | u32)."""
    return hmac.new(key, lp(SALT_TAG) + lp(fact.encode("ascii")) + struct.pack(">I", version),
                    hashlib.sha256).digest()


def valid_fact(fact: str) -> bool:
    """Fact ids are short printable ASCII names (the game chooses them: 'blk-07.strength')."""
    return bool(_FACT.match(fact))


def commit(game_id: str, owner: str, fact: str, version: int, value: Any, salt_: bytes) -> str:
    """The commitment (hex) to one version of one fact."""
    if not valid_fact(fact) or not 0 <= version <= MAX_VERSION:
        raise ValueError(f"bad fact {fact!r} or version {version}")
    return hashlib.sha256(
        lp(FACT_TAG) + lp(game_id.encode("ascii")) + lp(owner.encode("ascii"))
        + lp(fact.encode("ascii")) + struct.pack(">I", version) + lp(canonical(value))
        + lp(salt_)).hexdigest()


class Opening(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One fact opened: the value and salt behind the commitment of (fact, version)."""

    fact: str
    version: int
    value: Any
    salt: str


class FactBook:
    """The commitments of one owner, fact by fact, as the other side sees them."""

    def __init__(self, game_id: str, owner: str) -> None:
        self.game_id, self.owner = game_id, owner
        self.commits: dict[str, list[str]] = {}      # fact -> commitment of each version
        self.opened: dict[tuple[str, int], Any] = {}  # (fact, version) -> value

    def version(self, fact: str) -> int:
        """The fact's latest version (-1 if never committed)."""
        return len(self.commits.get(fact, [])) - 1

    def record(self, fact: str, version: int, commitment: str) -> str | None:
        """Take a new commitment; the problem if it is not the fact's next version."""
        if not valid_fact(fact):
            return f"malformed fact name {fact!r}"
        if not _HEX64.match(commitment):
            return f"malformed commitment for {fact}"
        if version != self.version(fact) + 1:
            return (f"commitment to {fact} is version {version}, expected "
                    f"{self.version(fact) + 1}")
        self.commits.setdefault(fact, []).append(commitment)
        return None

    def check(self, op: Opening) -> str | None:
        """The problem with an opening (None if it holds); a holding one is remembered."""
        known = self.commits.get(op.fact, [])
        if not 0 <= op.version < len(known):
            return f"opens {op.fact} version {op.version}, which {self.owner} never committed"
        if not _HEX64.match(op.salt):
            return f"malformed salt in the opening of {op.fact}"
        try:
            c = commit(self.game_id, self.owner, op.fact, op.version, op.value,
                       bytes.fromhex(op.salt))
        except (ValueError, TypeError, msgspec.EncodeError):
            return f"the opening of {op.fact} holds a value outside the canonical profile"
        if c != known[op.version]:
            return (f"the opening of {op.fact} (version {op.version}) does not match "
                    f"{self.owner}'s commitment")
        self.opened[(op.fact, op.version)] = op.value
        return None


class OwnFacts:
    """The owner's side: its current hidden facts, their versions and commitments."""

    def __init__(self, game_id: str, owner: str, key: bytes) -> None:
        self.game_id, self.owner, self.key = game_id, owner, key
        self.values: dict[str, Any] = {}
        self.versions: dict[str, int] = {}

    def update(self, facts: dict[str, Any]) -> dict[str, tuple[int, str]]:
        """Bring the book to these facts; the new commitments {fact: (version, hex)} of every
        fact that is new or whose value changed (a fact no longer present keeps its last)."""
        out = {}
        for fact in sorted(facts):
            value = facts[fact]
            if fact in self.values and canonical(self.values[fact]) == canonical(value):
                continue
            v = self.versions.get(fact, -1) + 1
            self.values[fact], self.versions[fact] = value, v
            out[fact] = (v, commit(self.game_id, self.owner, fact, v, value,
                                   salt(self.key, fact, v)))
        return out

    def opening(self, fact: str) -> Opening:
        """Open the current version of one of the owner's facts."""
        v = self.versions[fact]
        return Opening(fact=fact, version=v, value=self.values[fact],
                       salt=salt(self.key, fact, v).hex())


PRIVATE_DICE_TAG = b"pbem/v1/private-dice"


def private_share(key: bytes, seq: int) -> bytes:
    """A side's private dice share for file seq (sealed mode, docs/sealed.md section 5a):
    HMAC-SHA256(fact key, lp("pbem/v1/private-dice") | u64 seq), known to nobody else until the
    side's final reveal publishes its fact key."""
    return hmac.new(key, lp(PRIVATE_DICE_TAG) + struct.pack(">Q", seq), hashlib.sha256).digest()
