"""An archive loaded and verified: genesis, chain, replayed state and the derived log.

`load` reads every signed file of an archive (strictly: stored files must be canonical),
verifies signatures, links and dice reveals, and replays every file whose dice are known.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from pbem.core.dice import file_key
from pbem.core.errors import ArchiveError, FileRejected, IllegalFile, PbemError, WrongKey
from pbem.core.game import Event, Game
from pbem.core import dicesecret
from pbem.core.dicesecret import OwnOnions
from pbem.core.records import Acceptance, Proposal, Results, RollRecord, SignedFile, Turn, read_file
from pbem.core.registry import find_game
from pbem.protocol.archive import Archive
from pbem.protocol.chain import Remembered, recall
from pbem.protocol.draws import DrawBook
from pbem.protocol.genesis import HOST, Genesis
from pbem.protocol.ledger import Ledger
from pbem.core.commitment import private_share
from pbem.protocol.resolve import (STANDIN, HeldOrder, LazyDice, compare_results, resolve,
                                   state_hash)
from pbem.protocol.sealing import (PEERISH, Facts, check_reveals, private_path, public_hash,
                                   read_private, side_fact_key)


class FileLog(msgspec.Struct, kw_only=True):
    """What resolving one file produced, for reports and statistics."""

    seq: int
    sender: str
    file_name: str
    file_hash: str
    events: list[Event]
    rolls: list[RollRecord]
    skipped: list[int] = []


class Session:
    """A verified archive: the chain, the replayed state and the log of every resolved file."""

    def __init__(self, archive: Archive, game: Game, genesis: Genesis, party: str,
                 own: OwnOnions | None, *, initial: bool = True) -> None:
        """initial=False: no state yet (load gives it the cached state, or set_initial)."""
        self.archive = archive
        self.game = game
        self.genesis = genesis
        self.party = party
        self.own = own
        self.key: Any = None
        self.ledger = Ledger(genesis)
        self.state: Any = None
        self.sealed = genesis.mode == "sealed"
        self.facts = Facts(game, genesis.game_id, party) if self.sealed else None
        self.private: dict[int, list[str]] = {}
        self.final_orders: dict[str, list[str]] = {}   # this side's, from its final reveal
        self.final_key: bytes | None = None
        # sealed, without the key: the file whose own private dice were stood in for (from
        # there on the replay cannot follow this side's own hidden outcomes)
        self.own_standin: int | None = None
        self.unknown_own = 0       # own private dice and events left out of the log for it
        if self.sealed:
            self.private = read_private(archive.root)
        self.resolved = 0
        self.log: list[FileLog] = []
        self.results: dict[int, Results] = {}
        self.states: dict[int, Any] = {}
        self.held: list[HeldOrder] = []          # orders waiting for another side's answer
        self.rolled: dict[int, bool] = {}        # file seq -> whether resolving it rolled dice
        self.keep_states = True                  # False: only the latest state (an audit)
        # peer mode: private draws (pbem.core.privatedraw), kept and checked by every processor
        self.draws = DrawBook(self) if genesis.mode == "peer" else None
        if initial:
            self.set_initial()

    def set_initial(self) -> None:
        """Start from the scenario's set-up (sealed: this side's knowledge state of it, the
        other side's hidden facts unknown)."""
        state = self.game.setup(self.genesis.p.scenario, self.genesis.p.options)
        if self.sealed:
            state = self.game.conceal(state, self.party)
        self.state = state
        self.states = {0: state}

    # -- facts -----------------------------------------------------------------------------
    @property
    def pending_sides(self) -> set[str]:
        """Sides the game waits for (in the latest resolved state)."""
        return {d.side for d in self.game.pending(self.state)}

    @property
    def over(self) -> bool:
        """True once the game has an outcome."""
        return self.game.outcome(self.state) is not None

    def may_send(self) -> set[str]:
        """Parties that may send the next file (every file resolved first)."""
        return self.ledger.expected_senders(self.ledger.tip_seq + 1, self.pending_sides,
                                            self.rolled)

    def owes_reveal(self, side: str) -> bool:
        """Peer mode: the other side's trailing files rolled dice that side's next file reveals."""
        _, theirs = self.ledger.trailing(self.ledger.tip_seq, side)
        return any(self.rolled.get(k, False) for k in theirs)

    def unresolved(self) -> list[int]:
        """Sequence numbers of files not yet resolved (waiting for a secret share)."""
        return list(range(self.resolved + 1, self.ledger.tip_seq + 1))

    # -- dice ------------------------------------------------------------------------------
    def dice_for(self, seq: int, *, file_hash: str | None = None, sender: str | None = None,
                 private_keys: dict[str, bytes] | None = None) -> LazyDice:
        """The lazily keyed dice of file seq (a key per visibility class); file_hash stands in
        for the chain's file seq (to re-check a refused file).

        Sealed mode: a roll only side X may see is keyed with X's private share too
        (docs/sealed.md section 5a): this side computes its own; another side's are stand-ins,
        unless private_keys gives that side's fact key (the final replay)."""
        h = bytes.fromhex(file_hash or self.ledger.files[seq - 1].hash)

        def make(cls: str) -> bytes | None:
            extra: list[bytes] = []
            if self.sealed and cls != "all":
                if cls not in self.game.sides:
                    raise PbemError(f"file {seq}: a sealed game cannot roll dice no side may see "
                                    f"(class {cls!r})")
                key = (private_keys or {}).get(cls)
                if key is None and cls == self.party and self.own is not None:
                    key = side_fact_key(self.own)
                if key is None and cls == self.party and self.final_key is not None:
                    key = self.final_key
                if key is None:
                    return STANDIN
                extra = [private_share(key, seq)]
            shares = self.shares_of(seq, cls, sender)
            if shares is None:
                return None
            return file_key(self.genesis.game_id, [*shares.values(), *extra], h, seq, cls)

        return LazyDice(make, f"file {seq} waits for the other party's dice share")

    def shares_of(self, seq: int, cls: str, sender: str | None = None) -> dict[str, bytes] | None:
        """The shares keying class cls of file seq, label -> element in key order; None if one
        is still secret."""
        out = {}
        for label in self.ledger.share_labels(seq, cls, sender):
            s = self.ledger.share(label, seq, self.own)
            if s is None:
                return None
            out[label] = s
        return out

    # -- replay ----------------------------------------------------------------------------
    def add(self, f: SignedFile, *, wait_for_dice: bool = False) -> list[FileLog]:
        """Check and append one turn file, then resolve every file whose dice are now known
        (with wait_for_dice, only files whose dice shares are all known: more files follow)."""
        # the pending sides matter to a hosted chain only (peer and sealed files are checked
        # against the state as they are resolved)
        t = self.ledger.check(f, self.pending_sides if self.genesis.mode not in PEERISH else set())
        self._check_results_presence(t, f.name)
        if self.facts is not None:
            opened = self.facts.take(t, f.name)
            # the other side's openings are written in where its orders reveal them
            # (check_reveals); without this side's key (pbem verify) its own private dice are
            # stand-ins too: its own openings then give the values the rules made public
            if opened and t.sender == self.party and self.own is None:
                self.game.disclose(self.state, t.sender, opened)
        self.ledger.append(f)
        return self.advance(wait_for_dice=wait_for_dice)

    def _check_results_presence(self, t: Turn, name: str) -> None:
        needs = (t.seq > 1) if self.genesis.mode in PEERISH else (t.sender == HOST)
        if needs and t.results is None:
            raise FileRejected(f"{name}: results of file {t.seq - 1} are missing")
        if not needs and t.results is not None:
            raise FileRejected(f"{name}: carries results it may not carry")
        if t.results is not None and t.results.seq != t.seq - 1:
            raise FileRejected(f"{name}: results are for file {t.results.seq}, "
                               f"expected {t.seq - 1}")

    def advance(self, *, wait_for_dice: bool = False) -> list[FileLog]:
        """Resolve unresolved files in order while their dice are known; returns the new logs.

        wait_for_dice: stop before a file whose dice shares are not all known yet (rather than
        resolving it up to its first die, which a file stored after it makes needless)."""
        from pbem.core.game import NeedsDice

        new = []
        while self.resolved < self.ledger.tip_seq:
            seq = self.resolved + 1
            f = self.ledger.files[seq - 1]
            t: Turn = f.payload  # type: ignore[assignment]
            if self.genesis.mode in PEERISH:
                allowed = self.ledger.expected_senders(seq, self.pending_sides, self.rolled)
                if self.facts is not None and self.over:   # after the end: the final reveals
                    allowed = self._final_senders(seq, t, f.name)
                elif self.facts is not None and t.final is not msgspec.UNSET:
                    raise FileRejected(f"{f.name}: a final reveal before the game is over")
                if t.sender not in allowed:
                    why = (" (its own earlier file's dice are not revealed yet)"
                           if t.sender in self.pending_sides else "")
                    raise FileRejected(f"{f.name}: out of turn: file {seq} must come from "
                                       f"{' or '.join(sorted(allowed)) or 'nobody'}, not "
                                       f"{t.sender}{why}")
            if wait_for_dice and self.shares_of(seq, "all") is None:
                break
            if self.facts is not None and t.final is msgspec.UNSET:
                self._check_committed(t, f.name)
            dice = self.dice_for(seq)
            try:
                res = resolve(self.game, self.state, t, dice=dice, name=f.name,
                              held=self.held, draws=self.draws,
                              hosted=self.genesis.mode == "hosted",
                              **self._sealed_resolution(seq, t, f.name))
            except NeedsDice:
                break
            if self.sealed and self.own_standin is None and dice.stands_in(self.party):
                self.own_standin = seq
            rolled = bool(res.results.rolls)
            logged = res.results.rolls
            events = res.events
            if self.sealed:   # results publish the rolls both sides compute: the public ones
                logged = [r for r in logged if r.visible_to in ("all", self.party)]
                res.results.rolls = [r for r in logged if r.visible_to == "all"]
                if dice.stands_in(self.party):
                    # without the key this side's own private dice are stand-ins: neither they
                    # nor the events only this side sees (which they decide) are known here
                    kept = [r for r in logged if r.visible_to == "all"]
                    own = [e for e in events if e.visible_to == self.party]
                    self.unknown_own += len(logged) - len(kept) + len(own)
                    logged, events = kept, [e for e in events if e.visible_to != self.party]
            if seq < self.ledger.tip_seq:
                nxt = self.ledger.files[seq]
                claimed = nxt.payload.results  # type: ignore[union-attr]
                if claimed is not None:
                    try:
                        compare_results(claimed, res.results, name=nxt.name)
                    except FileRejected as e:
                        if self.own_standin is None:
                            raise
                        # no proof of anything: this side's own private dice are unknown here
                        raise ArchiveError(
                            f"{e}: not audited: file {self.own_standin} rolled {self.party}'s "
                            f"private dice, which only {self.party}'s key (`pbem verify "
                            f"--key KEY`; `pbem status --key KEY` rebuilds the archive's "
                            f"cache) or its final reveal opens (the replay stops before file "
                            f"{seq}; without the key the whole game is audited once it is "
                            "over)") from None
            self.state = res.state
            if not self.keep_states:
                self.states.clear()
            self.states[seq] = res.state
            self.held = res.held
            self.rolled[seq] = rolled
            self.resolved = seq
            self.results[seq] = res.results
            entry = FileLog(seq=seq, sender=t.sender, file_name=f.name, file_hash=f.hash,
                            events=events, rolls=logged,
                            skipped=res.results.skipped)
            self.log.append(entry)
            new.append(entry)
        return new

    def _check_committed(self, t: Turn, name: str) -> None:
        """Sealed: before a file of its sender is resolved, every fact of the sender that the
        state knows exists (a game's `required_facts`: a block slot on the map) must be
        committed, by an earlier file or by this one; else the sender could choose the value
        when the rules open it (a signed proof: the file leaves it out)."""
        required = getattr(self.game, "required_facts", None)
        if required is None:
            return
        book = self.facts.books[t.sender]
        missing = sorted(f for f in required(self.state, t.sender) if book.version(f) < 0)
        if missing:
            why = (f"{t.sender} never committed {', '.join(missing[:3])}"
                   f"{' ...' if len(missing) > 3 else ''}, which the game holds")
            raise IllegalFile(f"{name}: {why} [PBEM-SEALED]", order=0, reason=why,
                              rule="PBEM-SEALED")

    def state_hash(self) -> str:
        """Hash of the current state (sealed mode: of its public part)."""
        return self.hash_state(self.state)

    def hash_state(self, state: Any) -> str:
        """The hash results carry: of the whole state, or of its public part when sealed."""
        return public_hash(self.game, state) if self.sealed else state_hash(state)

    def _final_senders(self, seq: int, t: Turn, name: str) -> set[str]:
        """Sealed mode, after the end: who may still send (a side whose final reveal is not in
        the chain before file seq); every such file must be that final reveal."""
        sent = {self.ledger.turn(k).sender for k in range(1, seq)
                if self.ledger.turn(k).final is not msgspec.UNSET}
        if t.final is msgspec.UNSET and t.sender not in sent:
            raise FileRejected(f"{name}: the game is over: {t.sender}'s next file must be its "
                               "final reveal")
        return set(self.game.sides) - sent

    def _sealed_resolution(self, seq: int, t: Turn, name: str) -> dict[str, Any]:
        """Sealed mode: what resolving file seq takes besides the file (see resolve)."""
        if self.facts is None:
            return {}
        lines = None
        if t.sender == self.party:
            lines = self.private.get(seq)
            if lines is None:   # a record holds no private store: the final reveal has them
                lines = self.final_orders.get(str(seq))
            if lines is None:
                raise ArchiveError(f"{private_path(self.archive.root)}: the real orders of "
                                   f"{self.party}'s file {seq} are missing (they stay private "
                                   "until its final reveal)")
        nxt = self.ledger.files[seq].name if seq < self.ledger.tip_seq else None
        facts, game, me = self.facts, self.game, self.party

        owed_before: dict[str, Any] = {}

        def reveal(state: Any, side: str, order: Any, held_from: int | None = None) -> None:
            owed_before.clear()
            owed_before.update(facts.owed)
            check_reveals(game, facts, me, side, state, order, next_name=nxt, name=name,
                          seq=seq, own_seq=held_from)

        def unreveal() -> None:
            # the order was refused after its reveal and skipped: it owes no opening
            facts.owed = dict(owed_before)

        return {"lines": lines, "hash_of": self.hash_state, "reveal": reveal,
                "unreveal": unreveal, "sealed": True}


def own_onion(archive: Archive, genesis: Genesis, party: str, key: Any) -> OwnOnions:
    """This party's onions, from its dice secret sealed in the archive; checked against the
    genesis."""
    length = genesis.lengths.get(party)
    if length is None:
        raise ArchiveError(f"{party} has not committed dice in this game")
    root = dicesecret.decode(archive.secret_path, key, party, genesis.bind)
    own = OwnOnions(root, genesis.bind, party, genesis.classes_of(party), length)
    for label, onion in own.onions.items():
        if onion.tip != genesis.tips.get(label):
            raise ArchiveError(f"{archive.secret_path}: this dice secret does not match "
                               f"{label}'s commitment in the genesis")
    return own


def read_genesis(archive: Archive, *, strict: bool = True) -> tuple[Game, Genesis, list[Path]]:
    """Parse and verify the genesis files of an archive; returns (game, genesis, turn file paths)."""
    paths = archive.signed_files()
    if not paths or not paths[0].name.endswith("-proposal.pbem"):
        raise ArchiveError(f"{archive.root}: no proposal in files/")
    prop = read_file(paths[0], strict=strict)
    if not isinstance(prop.payload, Proposal):
        raise FileRejected(f"{paths[0].name}: not a proposal")
    game = find_game(prop.payload.game)
    genesis = Genesis(game, prop)
    rest = []
    for p in paths[1:]:
        if "-accept-" in p.name:
            genesis.add_acceptance(read_file(p, strict=strict))
        else:
            rest.append(p)
    return game, genesis, rest


def load(root: str | Path, *, key: Any = None, strict: bool = True,
         use_cache: bool = False, upto: int | None = None, keep_states: bool = True,
         genesis_read: tuple[Game, Genesis, list[Path]] | None = None) -> Session:
    """Load, verify and replay a peer archive or a referee's archive.

    With use_cache, a valid state cache (matching the chain and its own hash) stands in for
    replaying the files it covers; their signatures, links and reveals are still verified.
    `pbem verify` never uses the cache. With upto, only the turn files up to that sequence
    number are loaded (the archive as it was before a later file was stored: a command run
    again after it was interrupted repeats its steps from there). With keep_states=False only
    the latest state is kept (an audit's memory then does not grow with the game).
    genesis_read: what read_genesis(Archive(root), strict=strict) returned to a caller that
    has just called it on the same archive (unchanged since: its files are not read twice).
    """
    archive = Archive(root)
    info = archive.info()
    game, genesis, rest = genesis_read or read_genesis(archive, strict=strict)
    if info.proposal != genesis.proposal.hash:
        raise ArchiveError(f"{archive.root}: archive.json names another game")
    own = None
    if key is not None:
        from pbem.core.keys import public_raw

        if genesis.pubs.get(info.party) != public_raw(key.public_key()):
            raise WrongKey(f"{archive.root}: this key is not {info.party}'s key in this game",
                           party=info.party)
        own = own_onion(archive, genesis, info.party, key)
    s = Session(archive, game, genesis, info.party, own, initial=False)
    s.key = key
    s.keep_states = keep_states
    if rest and not genesis.complete:
        raise ArchiveError(f"{archive.root}: turn files present before the genesis is complete")
    _check_contiguous(archive, rest)
    remembered: list[Remembered] = []
    if use_cache and strict:     # files verified by an earlier command are remembered by hash
        from pbem.protocol.verified import Stored

        remembered = recall(archive, genesis, rest)
        stored = Stored(archive)
        files = [*remembered, *(stored.read(p) for p in rest[len(remembered):])]
    else:
        files = [read_file(p, strict=strict) for p in rest]
    if upto is not None:
        files = [f for f in files if _seq(f) <= upto]
    if s.sealed:
        _check_own_orders(archive, s.party, s.private, files)
    cached = _read_cache(archive.root, game, genesis, files) if use_cache else None
    start = 0
    if cached is not None:
        start, state, last_results, cached_held, cached_rolled, owed = cached
        known = min(start, len(remembered))      # verified when they were remembered
        s.ledger.restore(remembered[:known])
        if s.facts is not None:
            for r in remembered[:known]:
                s.facts.take(r.sealed_part(), r.name)
        for f in files[known:start]:
            t = s.ledger.check(f, set())
            if s.facts is not None:
                s.facts.take(t, f.name)      # the cached state has its openings already
            s.ledger.append(f)
        if s.facts is not None:              # as cached: after the files it follows
            s.facts.owed = owed
        s.state, s.resolved = state, start
        s.states = {start: state}
        s.held, s.rolled = cached_held, cached_rolled
        if last_results is not None:
            s.results[start] = last_results
    else:                     # the set-up is built only when no cached state stands in for it
        s.set_initial()
    if s.facts is not None:   # this side's final reveal, where stored, holds its real orders
        for f in files:
            t = f.sealed_part() if isinstance(f, Remembered) else f.payload
            if getattr(t, "sender", None) == s.party and getattr(t, "final", None):
                s.final_orders = dict(t.final.orders)
                try:
                    s.final_key = bytes.fromhex(t.final.fact_key)
                except ValueError:
                    s.final_key = None       # the audit names a malformed fact key
    rest_files = files[start:]
    for i, f in enumerate(rest_files):
        # Peer mode, a later stored file to come: a file whose dice shares are not all known
        # yet is resolved once that later file reveals them, not first up to its first die
        # and then again in full (each stored file is resolved once).
        s.add(f, wait_for_dice=s.genesis.mode in PEERISH and i + 1 < len(rest_files))
    return s


def _check_contiguous(archive: Archive, rest: list[Path]) -> None:
    """ArchiveError naming the first turn file missing from files/ (a deletion), rather than
    the next one's 'out of order' (which reads as if that file were at fault)."""
    want = 1
    for p in rest:
        head = p.name[:4]
        if not head.isdigit():
            continue
        n = int(head)
        if n > want:
            raise ArchiveError(f"{archive.files_dir}: turn file {want} is missing (the stored "
                               f"files go from {want - 1} to {n}: restore it from your mail "
                               "or a backup)")
        want = max(want, n + 1)


def _check_own_orders(archive: Archive, party: str, private: dict[int, list[str]],
                      files: list[Any]) -> None:
    """Sealed: the real orders kept in private/ are the party's own files'; ArchiveError if
    archive.json names another party (a hand edit: the replay would take the honest files of
    the other side for this one's and accuse them)."""
    for f in files:
        seq = _seq(f)
        sender = f.sender if isinstance(f, Remembered) else getattr(f.payload, "sender", None)
        if seq in private and sender is not None and sender != party:
            raise ArchiveError(f"{archive.root / 'archive.json'}: names {party} as this "
                               f"archive's party, but its private orders are of {sender}'s "
                               f"file {seq}")


def _seq(f: Any) -> int:
    """A file's sequence number (a remembered file is not opened for it)."""
    return f.seq if isinstance(f, Remembered) else getattr(f.payload, "seq", 0)


class _Cache(msgspec.Struct, kw_only=True):
    game_id: str
    resolved: int
    resolved_hash: str
    state_hash: str
    state: Any
    last_results: Results | None = None
    held: list[HeldOrder] = []
    rolled: list[int] = []        # the files up to `resolved` whose resolution rolled dice
    public_hash: str = ""         # sealed mode: the hash the next file's results must claim
    owed: dict[str, Any] = {}     # sealed mode: this side's revealed facts to open (values)


def _read_cache(root: Path, game: Game, genesis: Genesis,
                files: list[SignedFile]) -> tuple[int, Any, Results | None, list[HeldOrder],
                                                  dict[int, bool], dict[str, Any]] | None:
    try:
        c = msgspec.json.decode((root / "cache" / "state.json").read_bytes(), type=_Cache)
        state = msgspec.convert(c.state, type=game.state_type)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError):
        return None
    if c.game_id != genesis.game_id or not 0 <= c.resolved <= len(files):
        return None
    expect = files[c.resolved - 1].hash if c.resolved else genesis.hash
    if c.resolved_hash != expect or state_hash(state) != c.state_hash:
        return None
    if c.resolved < len(files):
        nxt = files[c.resolved].payload
        claimed = getattr(nxt, "results", None)
        want = c.public_hash if genesis.mode == "sealed" else c.state_hash
        if claimed is not None and claimed.state_hash != want:
            return None
    rolled = {k: k in set(c.rolled) for k in range(1, c.resolved + 1)}
    return c.resolved, state, c.last_results, list(c.held), rolled, dict(c.owed)


def cache_blob(s: Session) -> bytes:
    """The state cache: the last resolved file, its hash, the state and the state's hash."""
    resolved_hash = s.ledger.files[s.resolved - 1].hash if s.resolved else s.genesis.hash
    return msgspec.json.encode(_Cache(
        game_id=s.genesis.game_id, resolved=s.resolved, resolved_hash=resolved_hash,
        state_hash=state_hash(s.state), state=msgspec.to_builtins(s.state),
        last_results=s.results.get(s.resolved), held=s.held,
        rolled=sorted(k for k, r in s.rolled.items() if r and k <= s.resolved),
        public_hash=s.state_hash() if s.sealed else "",
        owed=dict(s.facts.owed) if s.facts is not None else {}))


__all__ = ["Session", "load", "read_genesis", "own_onion", "FileLog", "Acceptance"]
