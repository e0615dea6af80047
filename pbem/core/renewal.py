"""Dice commitment renewal: each onion label's generations, and checking a renewal.

A party's onion of length L committed in the genesis covers files 1..L-1 (file k reveals
e[k]). Before it runs out, the party renews it in one of its own signed files, at sequence
number B: generation g+1 of the label is a fresh onion (seeded from the party's dice secret
under the hash label "LABEL#g+1") whose tip the renewal states. Files after B use it: file u
reveals e'[u - B]. File B itself still reveals from the old generation, so every old element
that keyed a die is proven by the time the old generation retires. A renewal is signed by
its party on its own (namespace pbem-renewal-v1) so a referee can forward it to players.
"""

from __future__ import annotations

import base64
import binascii
import re

import msgspec

from pbem.core import signing
from pbem.core.encoding import canonical
from pbem.core.errors import FileRejected
from pbem.core.records import Renewal, SignedRenewal

NAMESPACE = "pbem-renewal-v1"
MIN_LENGTH, MAX_LENGTH = 16, 1 << 20
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def hash_label(label: str, generation: int) -> str:
    """The label hashed into generation g's onion (and its seed): LABEL, then LABEL#g."""
    return label if generation == 0 else f"{label}#{generation}"


def party_of(label: str) -> str:
    """The party that owns an onion label ('host/axis' -> 'host')."""
    return label.split("/", 1)[0]


def renew_due(index: int, length: int) -> bool:
    """Whether a party should renew: half of the current generation is used up."""
    return index >= length // 2


class Generation(msgspec.Struct, frozen=True):
    """One onion of a label: it takes over after file base, for length elements."""

    base: int
    length: int
    tip: bytes


class Exhausted(FileRejected):
    """File seq lies beyond the newest generation of a label."""


class Commitments:
    """Every dice commitment of a game, by onion label: the genesis one, then its renewals."""

    def __init__(self, tips: dict[str, bytes], lengths: dict[str, int]) -> None:
        self.gens: dict[str, list[Generation]] = {
            lb: [Generation(base=0, length=lengths[lb], tip=t)] for lb, t in tips.items()}
        self.used: set[bytes] = set(tips.values())

    def copy(self) -> Commitments:
        """An independent copy (generations are immutable, the lists are not)."""
        c = Commitments.__new__(Commitments)
        c.gens = {lb: list(g) for lb, g in self.gens.items()}
        c.used = set(self.used)
        return c

    def locate(self, label: str, seq: int) -> tuple[int, int]:
        """(generation, index) of the element that file seq reveals or uses; Exhausted if the
        label's last generation ends before seq."""
        gens = self.gens[label]
        g = len(gens) - 1
        while g > 0 and gens[g].base >= seq:
            g -= 1
        index = seq - gens[g].base
        if index >= gens[g].length:
            raise Exhausted(f"{label}'s dice commitment is exhausted at file {seq}")
        return g, index

    def current(self, label: str) -> tuple[int, Generation]:
        """The label's newest generation and its number."""
        gens = self.gens[label]
        return len(gens) - 1, gens[-1]

    def problem(self, r: Renewal, *, game_id: str, base: int | None = None) -> str | None:
        """Why this renewal cannot be the label's next generation (None if it can)."""
        if r.game_id != game_id:
            return f"renews a commitment of another game ({r.game_id})"
        if r.label not in self.gens or party_of(r.label) != r.party:
            return f"renews {r.label!r}, which is not a dice commitment of {r.party}"
        if base is not None and r.base != base:
            return f"renewal of {r.label} names file {r.base}, but is carried by file {base}"
        g, cur = self.current(r.label)
        if r.generation != g + 1:
            return (f"renewal of {r.label} is generation {r.generation}, expected {g + 1}")
        if not cur.base < r.base < cur.base + cur.length:
            return (f"renewal of {r.label} at file {r.base} is outside its current commitment "
                    f"(files {cur.base + 1} to {cur.base + cur.length - 1}): exhausted")
        if not MIN_LENGTH <= r.length <= MAX_LENGTH:
            return f"renewal of {r.label} has length {r.length} (allowed {MIN_LENGTH} to {MAX_LENGTH})"
        if not _HEX64.match(r.tip):
            return f"renewal of {r.label} has a malformed tip"
        if bytes.fromhex(r.tip) in self.used:
            return f"renewal of {r.label} reuses a dice commitment already made in this game"
        return None

    def add(self, r: Renewal) -> None:
        """Record a checked renewal as the label's next generation."""
        tip = bytes.fromhex(r.tip)
        self.gens[r.label].append(Generation(base=r.base, length=r.length, tip=tip))
        self.used.add(tip)


def sign(key: object, r: Renewal) -> SignedRenewal:
    """The party's signed renewal."""
    sig = signing.sign(key, NAMESPACE, canonical(r))  # type: ignore[arg-type]
    return SignedRenewal(renewal=r, sig=base64.b64encode(sig).decode("ascii"))


def signed_by(sr: SignedRenewal, pub_raw: bytes) -> bool:
    """True if the renewal carries a valid signature of this public key."""
    try:
        sig = base64.b64decode(sr.sig, validate=True)
    except (binascii.Error, ValueError):
        return False
    return len(sig) == 64 and signing.verify(pub_raw, NAMESPACE, canonical(sr.renewal), sig)


def check_all(commit: Commitments, renewals: list[SignedRenewal], *, game_id: str,
              pubs: dict[str, bytes], base: int | None = None,
              sender: str | None = None) -> str | None:
    """Check renewals in order against commit and add them; the first problem, or None.

    base: the file carrying them (a turn file); sender: who must own every renewed label.
    """
    seen: set[str] = set()
    for sr in renewals:
        r = sr.renewal
        if sender is not None and r.party != sender:
            return f"carries a renewal of {r.label}, which is not {sender}'s dice commitment"
        if r.label in seen:
            return f"renews {r.label} twice"
        seen.add(r.label)
        why = commit.problem(r, game_id=game_id, base=base)
        if why:
            return why
        pub = pubs.get(r.party)
        if pub is None or not signed_by(sr, pub):
            return f"renewal of {r.label} is not signed by {r.party}'s key"
        commit.add(r)
    return None
