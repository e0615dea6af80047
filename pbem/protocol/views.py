"""Hosted-mode view files: what the referee signs for one side, and how a player checks the dice.

A view carries the rolls this side may see, each with a dice proof: the onion elements of
exactly the visibility classes the side may see (the host keeps one onion per side, so the
element that keys the other side's hidden rolls never leaves the referee). A player recomputes
every die from its own signed file's hash (never the hash the referee states for it), from its
own share, and from every other share checked against its party's commitment.
"""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.core.dice import derive_roll, file_key
from pbem.core.errors import FileRejected
from pbem.core.game import ALL, Roll, decisions_for
from pbem.core.onion import proves
from pbem.core import renewal
from pbem.core.records import DiceProof, SignedFile, SignedRenewal, Turn, ViewFile, seal
from pbem.core.renewal import Commitments, hash_label
from pbem.protocol.genesis import HOST, Genesis
from pbem.protocol.reporting import visible


class ViewRoll(Roll, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A roll as sent to a player: with the file it belongs to."""

    seq: int


def view_name(side: str, seq: int) -> str:
    """The file name of the view of file seq for one side."""
    return f"view-{side}-{seq:04d}.pbem"


def share_labels(genesis: Genesis, sender: str, cls: str) -> list[str]:
    """The onion labels keying class cls of a file from sender (hosted mode: sender and host)."""
    out = []
    for p in sorted([sender, HOST]):
        label = f"{p}/{cls}"
        out.append(label if label in genesis.tips else p)
    return out


def view_payload(s: Any, side: str, logs: list[Any], seq: int | None = None) -> ViewFile:
    """The view for one side of the state after file seq (default: the current state), with
    the rolls of logs and their proofs."""
    g = s.game
    seq = s.ledger.tip_seq if seq is None else seq
    state = s.states[seq] if seq != s.resolved else s.state
    rolls, proofs = [], []
    for log in logs:
        seen = visible(log.rolls, side)
        rolls.extend(ViewRoll(seq=log.seq, action=r.action, index=r.index, sides=r.sides,
                              value=r.value, purpose=r.purpose, visible_to=r.visible_to)
                     for r in seen)
        if not seen:
            continue
        shares = {}
        for cls in sorted({r.visible_to for r in seen}):
            for label in s.ledger.share_labels(log.seq, cls):
                shares[label] = s.ledger.share(label, log.seq, s.own).hex()
        proofs.append(DiceProof(seq=log.seq, sender=log.sender, file_hash=log.file_hash,
                                shares=shares))
    o = g.outcome(state)
    return ViewFile(game_id=s.genesis.game_id, side=side, seq=seq,
                    tip=s.ledger.tip_hash_at(seq), view_seq=seq,
                    state=msgspec.to_builtins(g.view(state, side)),
                    report=msgspec.to_builtins(g.report(state, side)),
                    pending=msgspec.to_builtins(decisions_for(g.pending(state), side)),
                    outcome=msgspec.to_builtins(o) if o else None,
                    events=msgspec.to_builtins([e for log in logs
                                                for e in visible(log.events, side)]),
                    rolls=msgspec.to_builtins(rolls), proofs=proofs,
                    genesis=[s.genesis.acceptances[p].text for p in s.genesis.acceptors()],
                    renewals=s.ledger.renewals(seq) or msgspec.UNSET)


def view_due(s: Any, side: str, seq: int, last_state: Any) -> bool:
    """Hosted mode: whether the referee owes side a view of file seq, given the `state` field of
    side's last view (None: no view yet).

    A view is owed when the side has a decision to make and when the game is over (and the
    first view of all). In between, the side has nothing to act on: what changed since its last
    view (events, dice, the other side's moves, its own results) rides on its next view, as in
    peer mode, where a player sees its results in the opponent's next file. A side whose view is
    unchanged is never sent a view, unless its own file (seq - 1) was just resolved and it must
    decide again: every order of that file may have been skipped (a fact its view does not show
    forbade it, docs/protocol.md section 7), and it needs the new chain tip to answer.
    """
    if last_state is None:
        return True
    g = s.game
    state = s.states[seq] if seq != s.resolved else s.state
    deciding = side in {d.side for d in g.pending(state)}
    if (msgspec.to_builtins(g.view(state, side)) == last_state and g.outcome(state) is None
            and not (deciding and seq >= 2 and s.ledger.sender(seq - 1) == side)):
        return False
    return g.outcome(state) is not None or deciding


def make_view(s: Any, side: str, logs: list[Any]) -> SignedFile:
    """The referee's signed view file of the current state for one side."""
    return seal(view_payload(s, side, logs), s.key, name=view_name(side, s.ledger.tip_seq))


class DiceChecker:
    """A hosted player's check of every die a view reports, against the commitments."""

    def __init__(self, genesis: Genesis, me: str, own_files: dict[int, SignedFile]) -> None:
        self.g, self.me, self.own = genesis, me, own_files
        self._proven: set[tuple[str, int, str]] = set()
        self.commit = Commitments(genesis.tips, genesis.lengths)
        self._renewals: list[SignedRenewal] = []
        self._seen_at: dict[tuple[str, int], int] = {}   # (label, generation) -> first view
        self._last_view = -1

    def learn(self, v: ViewFile, name: str) -> None:
        """Take in the renewals a view carries: each checked against its party's signature and
        the label's commitments; a view must carry every renewal an earlier one carried (the
        same bytes), and a referee's renewal at file B appears in the first view of a file
        from B on: it cannot be produced later, after the files it keys were seen."""
        got = list(v.renewals or [])
        if v.renewals is not msgspec.UNSET and not got:
            raise FileRejected(f"{name}: an empty list of renewals must be left out")
        old = self._renewals
        if [msgspec.json.encode(sr) for sr in got[:len(old)]] != [
                msgspec.json.encode(sr) for sr in old]:
            raise FileRejected(f"{name}: its dice renewals differ from those an earlier view "
                               "carried (the referee or a player equivocated)")
        new = got[len(old):]
        for sr in new:
            r = sr.renewal
            if r.base > v.seq:
                raise FileRejected(f"{name}: carries a renewal of file {r.base}, after the "
                                   f"file {v.seq} it shows")
            if r.base <= self._last_view:
                raise FileRejected(f"{name}: a dice renewal of file {r.base} that the earlier "
                                   f"view of file {self._last_view} did not carry")
        why = renewal.check_all(self.commit, new, game_id=self.g.game_id, pubs=self.g.pubs)
        if why:
            raise FileRejected(f"{name}: {why}")
        for sr in new:
            self._seen_at[(sr.renewal.label, sr.renewal.generation)] = v.seq
        self._renewals = got
        self._last_view = max(self._last_view, v.seq)

    def _share(self, label: str, seq: int, hexval: str | None, name: str) -> bytes:
        if hexval is None:
            raise FileRejected(f"{name}: the dice proof of file {seq} lacks {label}'s share")
        try:
            e = bytes.fromhex(hexval)
        except ValueError:
            raise FileRejected(f"{name}: malformed dice share of {label}") from None
        if (label, seq, hexval) not in self._proven:
            if label not in self.commit.gens:
                raise FileRejected(f"{name}: {label} committed no dice")
            gen, index = self.commit.locate(label, seq)
            if gen and seq in self.own and self._seen_at[(label, gen)] >= seq:
                raise FileRejected(f"{name}: keys your file {seq} with a renewal of {label} "
                                   "that no view showed you before you sent it")
            tip = self.commit.gens[label][gen].tip
            if not proves(self.g.bind, hash_label(label, gen), index, e, 0, tip):
                raise FileRejected(f"{name}: {label}'s dice share for file {seq} does not match "
                                   "its commitment")
            self._proven.add((label, seq, hexval))
        return e

    def check(self, v: ViewFile, name: str, after: int = -1) -> int:
        """Recompute every die of the view; FileRejected naming the first lie. Returns the count.

        after is the file of this side's previous view: a view reports the rolls of the
        player files since then (odd sequence numbers up to its own file).
        """
        self.learn(v, name)
        proofs: dict[int, DiceProof] = {}
        for p in v.proofs:
            if p.seq in proofs:
                raise FileRejected(f"{name}: two dice proofs for file {p.seq}")
            if not (after < p.seq <= v.seq and p.seq % 2 == 1):
                raise FileRejected(f"{name}: a dice proof for file {p.seq}, which is not a "
                                   f"player's file since the previous view")
            proofs[p.seq] = p
        try:
            rolls = msgspec.convert(v.rolls, type=list[ViewRoll])
        except msgspec.ValidationError as e:
            raise FileRejected(f"{name}: malformed rolls ({e})") from None
        for r in rolls:
            if r.visible_to not in (ALL, self.me):
                raise FileRejected(f"{name}: reports a roll hidden from {self.me}")
            proof = proofs.get(r.seq)
            if proof is None:
                raise FileRejected(f"{name}: no dice proof for file {r.seq}")
            file_hash = self._file_hash(proof, name)
            labels = share_labels(self.g, proof.sender, r.visible_to)
            shares = [self._own_share(r.seq) if lb == self.me else
                      self._share(lb, r.seq, proof.shares.get(lb), name) for lb in labels]
            key = file_key(self.g.game_id, shares, file_hash, r.seq, r.visible_to)
            if derive_roll(key, r.action, r.index, r.sides) != r.value:
                raise FileRejected(f"{name}: die {r.seq}.{r.action}.{r.index} ({r.purpose}) is "
                                   "not what the dice commitments give")
        return len(rolls)

    def _file_hash(self, proof: DiceProof, name: str) -> bytes:
        mine = self.own.get(proof.seq)
        if mine is not None:
            if proof.sender != self.me:
                raise FileRejected(f"{name}: names {proof.sender} as the sender of your own "
                                   f"file {proof.seq}")
            if proof.file_hash != mine.hash:
                raise FileRejected(f"{name}: states a different hash for your own file "
                                   f"{proof.seq} than the file you signed")
            return bytes.fromhex(mine.hash)
        if proof.sender == self.me:
            raise FileRejected(f"{name}: names you as the sender of file {proof.seq}, which you "
                               "did not send")
        if proof.sender not in self.g.game.sides:
            raise FileRejected(f"{name}: file {proof.seq} has no player sender")
        try:
            return bytes.fromhex(proof.file_hash)
        except ValueError:
            raise FileRejected(f"{name}: malformed file hash in a dice proof") from None

    def _own_share(self, seq: int) -> bytes:
        t: Turn = self.own[seq].payload  # type: ignore[assignment]
        return bytes.fromhex(t.reveal)
