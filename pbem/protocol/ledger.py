"""The chain of turn files after the genesis: order, links, senders, signatures and dice reveals."""

from __future__ import annotations

import re
from functools import lru_cache

import msgspec

from pbem.core import renewal
from pbem.core.errors import Equivocation, FileRejected, OutOfOrder
from pbem.core.dicesecret import OwnOnions
from pbem.core.onion import proves, walk_down
from pbem.core.records import Renewal, SignedFile, SignedRenewal, Turn
from pbem.core.renewal import Commitments, Exhausted, hash_label
from pbem.protocol.chain import Remembered
from pbem.protocol.genesis import HOST, Genesis

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Ledger:
    """Verified turn files in order, and the latest onion element each party has revealed."""

    def __init__(self, genesis: Genesis) -> None:
        self.g = genesis
        self.files: list[SignedFile] = []
        self.commit = Commitments(genesis.tips, genesis.lengths)
        # (onion label, generation) -> (index, element) of the latest element known
        self.known: dict[tuple[str, int], tuple[int, bytes]] = {
            (lb, 0): (0, t) for lb, t in genesis.tips.items()}

    @property
    def tip_seq(self) -> int:
        """Sequence number of the last file (0 = the genesis)."""
        return len(self.files)

    @property
    def tip_hash(self) -> str:
        """Hash of the last file, or the genesis hash."""
        return self.files[-1].hash if self.files else self.g.hash

    def tip_hash_at(self, seq: int) -> str:
        """Hash of file seq, or the genesis hash for 0."""
        return self.files[seq - 1].hash if seq else self.g.hash

    def turn(self, seq: int) -> Turn:
        """The payload of file seq (1-based)."""
        return self.files[seq - 1].payload  # type: ignore[return-value]

    def sender(self, seq: int) -> str:
        """The sender of file seq (1-based), without opening a remembered file."""
        f = self.files[seq - 1]
        return f.sender if isinstance(f, Remembered) else f.payload.sender  # type: ignore

    def restore(self, files: list[Remembered]) -> None:
        """Start the chain with files a valid record of this archive vouches for
        (pbem.protocol.chain): appended as their verified reveals and renewals say."""
        for f in files:
            if f.seq != self.tip_seq + 1:
                raise FileRejected(f"{f.name}: out of order in the record of the chain")
            self.files.append(f)
            self._take(f.seq, f.entry.reveals, f.renewals)

    def expected_senders(self, seq: int, pending: set[str],
                         rolled: dict[int, bool] | None = None) -> set[str]:
        """Who may send file seq, given the sides pending after file seq-1 and which earlier
        files rolled dice.

        Peer mode: a pending side whose own files since the other side's last file rolled no
        dice (it can see every result), and a side that owes the dice reveal of the other
        side's trailing files that rolled (an automatic reply, or the orders it sends anyway).
        Hosted mode: a pending player for odd files, the host for even ones.
        """
        if self.g.mode not in ("peer", "sealed"):
            return (pending or set(self.g.game.sides)) if seq % 2 == 1 else {HOST}
        rolled = rolled or {}
        out = set()
        for side in self.g.game.sides:
            mine, theirs = self.trailing(seq - 1, side)
            blocked = any(rolled.get(k, False) for k in mine)
            owes = any(rolled.get(k, False) for k in theirs)
            if (side in pending and not blocked) or owes:
                out.add(side)
        return out

    def trailing(self, upto: int, side: str) -> tuple[list[int], list[int]]:
        """(side's files after the other parties' last file, the other parties' files after
        side's last file), among files 1..upto: one of the two lists is empty."""
        mine: list[int] = []
        theirs: list[int] = []
        for k in range(upto, 0, -1):
            sender = self.sender(k)
            if sender == side:
                if theirs:
                    break
                mine.append(k)
            else:
                if mine:
                    break
                theirs.append(k)
        return mine, theirs

    def check(self, f: SignedFile, pending: set[str]) -> Turn:
        """Verify that f is the valid next file; FileRejected (or Equivocation) says why not."""
        t, name = f.payload, f.name
        if not isinstance(t, Turn):
            raise FileRejected(f"{name}: not a turn file ({type(t).__name__})")
        if t.game_id != self.g.game_id:
            raise FileRejected(f"{name}: belongs to another game ({t.game_id}, "
                               f"this archive is {self.g.game_id})")
        if t.sender not in self.g.pubs:
            raise FileRejected(f"{name}: unknown sender {t.sender!r}")
        if not f.signed_by(self.g.pubs[t.sender]):
            raise FileRejected(f"{name}: bad signature (not signed by {t.sender}'s key)")
        if 1 <= t.seq <= self.tip_seq:
            old = self.files[t.seq - 1]
            if old.payload_bytes == f.payload_bytes:
                raise FileRejected(f"{name}: stale: file {t.seq} is already in the archive "
                                   "(replayed file)")
            if old.payload.sender == t.sender:  # type: ignore[union-attr]
                raise Equivocation(f"{name}: equivocation: {t.sender} signed two different "
                                   f"files with sequence number {t.seq} (fork of {old.name})")
            raise FileRejected(f"{name}: stale: sequence number {t.seq} is already taken")
        if t.seq != self.tip_seq + 1:
            raise OutOfOrder(f"{name}: out of order: expected file {self.tip_seq + 1}, "
                             f"got {t.seq}")
        if t.prev != self.tip_hash:
            raise FileRejected(f"{name}: does not follow the last file (previous-file hash "
                               "differs: a fork or a file from another history)")
        if self.g.mode not in ("peer", "sealed"):
            # Peer files are checked against the state when they are resolved (Session).
            allowed = self.expected_senders(t.seq, pending)
            if t.sender not in allowed:
                raise FileRejected(f"{name}: out of turn: file {t.seq} must come from "
                                   f"{' or '.join(sorted(allowed))}, not {t.sender}")
        if self.g.mode != "sealed":
            sealed_only = [k for k in ("commits", "openings", "final")
                           if getattr(t, k) is not msgspec.UNSET]
            if sealed_only:
                raise FileRejected(f"{name}: carries {', '.join(sealed_only)}, which only the "
                                   f"files of a sealed game carry (this game is in "
                                   f"{self.g.mode} mode)")
        classes = self.g.classes_of(t.sender)
        if sorted(t.class_reveals) != classes:
            raise FileRejected(f"{name}: must reveal {t.sender}'s class onions "
                               f"{classes or 'none'}, not {sorted(t.class_reveals)}")
        for label, reveal in self.reveals(t):
            if not _HEX64.match(reveal):
                raise FileRejected(f"{name}: malformed dice reveal")
            try:
                gen, index = self.commit.locate(label, t.seq)
            except Exhausted as e:
                raise FileRejected(f"{name}: {e} (it was not renewed in time)") from None
            j, e_j = self.known[(label, gen)]
            if not proves(self.g.bind, hash_label(label, gen), index, bytes.fromhex(reveal),
                          j, e_j):
                which = f" (generation {gen})" if gen else ""
                raise FileRejected(f"{name}: dice reveal does not match {label}'s "
                                   f"commitment{which}")
        if t.renewals is not msgspec.UNSET:
            if not t.renewals:
                raise FileRejected(f"{name}: an empty list of renewals must be left out")
            why = renewal.check_all(self.commit.copy(), t.renewals, game_id=self.g.game_id,
                                    pubs=self.g.pubs, base=t.seq, sender=t.sender)
            if why:
                raise FileRejected(f"{name}: {why}")
        return t

    @staticmethod
    def reveals(t: Turn) -> list[tuple[str, str]]:
        """(onion label, revealed element hex) of every onion a file reveals."""
        return [(t.sender, t.reveal),
                *((f"{t.sender}/{c}", r) for c, r in sorted(t.class_reveals.items()))]

    def append(self, f: SignedFile) -> None:
        """Add a checked file to the chain."""
        t: Turn = f.payload  # type: ignore[assignment]
        self.files.append(f)
        self._take(t.seq, self.reveals(t), t.renewals or [])

    def _take(self, seq: int, reveals: list[tuple[str, str]],
              renewals: list[SignedRenewal]) -> None:
        for label, reveal in reveals:
            gen, index = self.commit.locate(label, seq)
            self.known[(label, gen)] = (index, bytes.fromhex(reveal))
        for sr in renewals:
            r = sr.renewal
            self.commit.add(r)
            self.known[(r.label, r.generation)] = (0, bytes.fromhex(r.tip))

    def share(self, label: str, k: int, own: OwnOnions | None = None) -> bytes | None:
        """The element of this label that keys file k, if revealed (or our own); None if
        secret. Exhausted if the label's commitment ends before file k."""
        gen, index = self.commit.locate(label, k)
        if own is not None and own.has(label):
            return own.element(label, index, gen, self.commit.gens[label][gen].length)
        j, e_j = self.known[(label, gen)]
        if j < index:
            return None
        return _walk_down(self.g.bind, hash_label(label, gen), j, e_j, index)

    def renewals(self, upto: int | None = None) -> list[SignedRenewal]:
        """Every renewal carried by files 1..upto (default: the whole chain), in order."""
        return [sr for f in self.files[:upto]
                for sr in (f.renewals if isinstance(f, Remembered)
                           else f.payload.renewals or [])]  # type: ignore[union-attr]

    def dice_parties(self, seq: int, sender: str | None = None) -> list[str]:
        """The parties whose shares key the dice of file seq (sorted by name)."""
        if self.g.mode in ("peer", "sealed"):
            return sorted(self.g.game.sides)
        return sorted([sender or self.sender(seq), HOST])

    def share_labels(self, seq: int, cls: str, sender: str | None = None) -> list[str]:
        """The onion labels whose elements e[seq] key the rolls of class cls in file seq.

        Each party contributes its class onion for cls if it has one, else its main onion.
        """
        out = []
        for p in self.dice_parties(seq, sender):
            label = f"{p}/{cls}"
            out.append(label if label in self.g.tips else p)
        return out


# a file's shares are asked for more than once (are they all known yet, then its dice keys):
# walk_down is a pure function of its arguments, so the elements are hashed down once
_walk_down = lru_cache(maxsize=64)(walk_down)


def own_reveals(commit: Commitments, own: OwnOnions, party: str, classes: list[str],
                seq: int) -> tuple[str, dict[str, str]]:
    """(main reveal, class reveals) that party's file seq must carry, as hex."""
    def element(label: str) -> str:
        gen, index = commit.locate(label, seq)
        return own.element(label, index, gen, commit.gens[label][gen].length).hex()
    return element(party), {c: element(f"{party}/{c}") for c in classes}


def due_renewals(commit: Commitments, own: OwnOnions, key: object, *, game_id: str,
                 party: str, classes: list[str], seq: int) -> list[SignedRenewal]:
    """The renewals party's file seq carries: every label of its whose current generation is
    half used up gets a fresh onion of the same length (empty when none is due)."""
    out = []
    for label in [party, *(f"{party}/{c}" for c in classes)]:
        gen, cur = commit.current(label)
        index = seq - cur.base
        if not renewal.renew_due(index, cur.length) or index >= cur.length:
            continue
        tip = own.onion(label, gen + 1, cur.length).tip.hex()
        out.append(renewal.sign(key, Renewal(game_id=game_id, party=party, label=label,
                                             generation=gen + 1, base=seq, tip=tip,
                                             length=cur.length)))
    return out
