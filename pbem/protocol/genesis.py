"""The genesis: a signed proposal plus the acceptances of every other party."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from pbem.core import options
from pbem.core.dice import lp
from pbem.core.encoding import sha256, sha256_hex
from pbem.core.errors import ArchiveError, FileRejected, PbemError
from pbem.core.game import NOBODY, Game
from pbem.core.records import Acceptance, OnionCommit, Proposal, SignedFile
from pbem.core.signing import weak_public_key
from pbem.protocol.draws import owners as draw_owners

HOST = "host"
GAME_ID_TAG = b"pbem/v1/game-id"
_HEX32 = re.compile(r"^[0-9a-f]{32}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def data_hash(game: Game, scenario: str) -> str:
    """SHA-256 over the rules version and every data file of the scenario (name and bytes)."""
    parts = [lp(game.id.encode()), lp(game.rules_version.encode()), lp(scenario.encode())]
    for p in sorted(game.data_files(scenario), key=lambda p: p.name):
        parts.append(lp(p.name.encode()) + lp(p.read_bytes()))
    return sha256(b"".join(parts)).hex()


def resolve_options(game: Game, given: dict[str, Any], *, name: str = "options",
                    ask: str = "") -> dict[str, Any]:
    """All house options with defaults filled in (pbem.core.options.resolve); PbemError for
    unknown options or values, a required option missing or a dependency broken."""
    return options.resolve(game.options(), given, where=name, owner=game.id, ask=ask)


class Genesis:
    """A verified proposal and the acceptances received so far."""

    def __init__(self, game: Game, proposal: SignedFile) -> None:
        p = proposal.payload
        name = proposal.name
        if not isinstance(p, Proposal):
            raise FileRejected(f"{name}: not a game proposal")
        if not _HEX32.match(p.nonce):
            raise FileRejected(f"{name}: malformed proposal nonce")
        if p.game != game.id:
            raise FileRejected(f"{name}: proposal is for game {p.game!r}, not {game.id!r}")
        if p.scenario not in game.scenarios():
            raise FileRejected(f"{name}: unknown scenario {p.scenario!r} of {game.id}")
        if p.rules_version != game.rules_version:
            raise FileRejected(f"{name}: made with {game.id} rules version {p.rules_version}, "
                               f"this pbem has {game.rules_version}")
        if p.data_hash != data_hash(game, p.scenario):
            raise FileRejected(f"{name}: scenario data differs from this installation's "
                               "(different data files)")
        try:
            resolved = resolve_options(game, p.options, name=name)
        except PbemError as e:
            raise FileRejected(str(e)) from None
        if resolved != p.options:
            raise FileRejected(f"{name}: options must list every house option explicitly")
        for k, v in getattr(game, "sealed_only_options", {}).items():
            # an option that marks a sealed game (BbF's sealed_game): set by pbem for sealed
            # mode, and only there, so every processor and the final replay agree on it
            if (p.options.get(k) == v) != (p.mode == "sealed"):
                raise FileRejected(f"{name}: the house option {k} = {str(v).lower()} is set by "
                                   f"pbem for a sealed game only, and always there (this "
                                   f"proposal is in {p.mode} mode)")
        if p.mode == "peer":
            try:
                draw_owners(game, p.scenario)
            except PbemError as e:
                raise FileRejected(f"{name}: {e}") from None
        want = set(game.sides) | ({HOST} if p.mode == "hosted" else set())
        got = [k.party for k in p.parties]
        if sorted(got) != sorted(want):
            raise FileRejected(f"{name}: parties {got} do not match {sorted(want)}")
        self.pubs: dict[str, bytes] = {}
        for k in p.parties:
            if not _HEX64.match(k.pub):
                raise FileRejected(f"{name}: malformed public key for {k.party}")
            self.pubs[k.party] = bytes.fromhex(k.pub)
            if weak_public_key(self.pubs[k.party]):
                raise FileRejected(f"{name}: the public key of {k.party} is a weak key (a "
                                   "small-order point: anyone could sign as that party)")
        if len(set(self.pubs.values())) != len(self.pubs):
            raise FileRejected(f"{name}: two parties share one public key")
        if p.proposer not in self.pubs:
            raise FileRejected(f"{name}: proposer {p.proposer!r} is not a valid proposer")
        self.game = game
        self.p: Proposal = p
        self.tips: dict[str, bytes] = {}
        self.lengths: dict[str, int] = {}
        self.fact_commits: dict[str, str] = {}   # sealed mode: party -> its fact-key commitment
        self._commit(p.proposer, p.onion, p.class_onions, name)
        self._fact(p.proposer, p.fact_commit, name)
        if not proposal.signed_by(self.pubs[p.proposer]):
            raise FileRejected(f"{name}: bad signature (not signed by {p.proposer}'s key)")
        self.proposal = proposal
        self.acceptances: dict[str, SignedFile] = {}
        self._game_id: str | None = None

    @property
    def bind(self) -> str:
        """What every onion of this game is bound to: the proposal's nonce."""
        return self.p.nonce

    @property
    def game_id(self) -> str:
        """The 128-bit game id in hex: H(tag, genesis hash), mixing every party's contribution.

        It exists once every party has accepted; ArchiveError before.
        """
        if self._game_id is None:
            if not self.complete:
                raise ArchiveError("the game id is not known until every party has accepted")
            self._game_id = sha256(lp(GAME_ID_TAG) + lp(bytes.fromhex(self.hash)))[:16].hex()
        return self._game_id

    def classes_of(self, party: str) -> list[str]:
        """The visibility classes a party keeps a separate onion for (the host: every side,
        and rolls nobody may see)."""
        return host_classes(self.game) if party == HOST else []

    def _commit(self, party: str, onion: OnionCommit, class_onions: dict[str, OnionCommit],
                name: str) -> None:
        want = self.classes_of(party)
        if sorted(class_onions) != want:
            raise FileRejected(f"{name}: {party} must commit class onions for "
                               f"{want or 'no class'}, not {sorted(class_onions)}")
        for label, c in [(party, onion), *((f"{party}/{k}", v)
                                            for k, v in sorted(class_onions.items()))]:
            _check_onion(c.tip, c.length, name)
            self.tips[label] = bytes.fromhex(c.tip)
            self.lengths[label] = c.length
        if len({self.tips[k] for k in self.tips}) != len(self.tips):
            raise FileRejected(f"{name}: two dice commitments of this game are equal")

    def _fact(self, party: str, commit: Any, name: str) -> None:
        """Record a party's fact-key commitment (sealed mode only; absent in a genesis made
        before session 25, which require_fact_commits refuses for a new game)."""
        if commit is msgspec.UNSET:
            return
        if self.p.mode != "sealed":
            raise FileRejected(f"{name}: a fact-key commitment belongs to a sealed game only "
                               f"(this one is in {self.p.mode} mode)")
        if not isinstance(commit, str) or not _HEX64.match(commit):
            raise FileRejected(f"{name}: malformed fact-key commitment of {party}")
        self.fact_commits[party] = commit

    def require_fact_commits(self, name: str) -> None:
        """For a sealed game being set up now (join, and the proposer receiving an
        acceptance): FileRejected unless every party heard from committed to its fact key
        (docs/sealed.md 5a: otherwise a side could choose its own private dice)."""
        if self.p.mode != "sealed":
            return
        for party in [self.p.proposer, *self.acceptances]:
            if party not in self.fact_commits:
                raise FileRejected(f"{name}: {party} did not commit to its fact key, which a "
                                   "sealed game needs before any die (made by an older pbem, "
                                   "or altered): ask for a new proposal")

    @property
    def mode(self) -> str:
        """'peer' or 'hosted'."""
        return self.p.mode

    @property
    def collector(self) -> str:
        """The party that receives the acceptances: the proposer, or the host if hosted."""
        return HOST if self.mode == "hosted" else self.p.proposer

    def acceptors(self) -> list[str]:
        """The parties that must accept: every party except the proposer."""
        return sorted(k for k in self.pubs if k != self.p.proposer)

    def add_acceptance(self, f: SignedFile) -> None:
        """Verify and record one acceptance; FileRejected if it does not fit this proposal."""
        a, name = f.payload, f.name
        if not isinstance(a, Acceptance):
            raise FileRejected(f"{name}: not an acceptance")
        if a.proposal != self.proposal.hash:
            raise FileRejected(f"{name}: accepts a different proposal")
        if a.party not in self.acceptors():
            raise FileRejected(f"{name}: party {a.party!r} is not expected to accept")
        old = self.acceptances.get(a.party)
        if old is not None:
            if old.payload_bytes == f.payload_bytes:
                raise FileRejected(f"{name}: stale: this acceptance is already in the archive")
            if f.signed_by(self.pubs[a.party]):
                raise FileRejected(f"{name}: equivocation: {a.party} signed two different "
                                   "acceptances of this game")
        if not _HEX32.match(a.nonce):
            raise FileRejected(f"{name}: malformed nonce")
        if not f.signed_by(self.pubs[a.party]):
            raise FileRejected(f"{name}: bad signature (not signed by {a.party}'s key)")
        tips, lengths = dict(self.tips), dict(self.lengths)
        try:
            self._commit(a.party, a.onion, a.class_onions, name)
            self._fact(a.party, a.fact_commit, name)
        except FileRejected:
            self.tips, self.lengths = tips, lengths
            self.fact_commits.pop(a.party, None)
            raise
        self.acceptances[a.party] = f
        self._game_id = None

    @property
    def complete(self) -> bool:
        """True once every acceptor has accepted."""
        return all(p in self.acceptances for p in self.acceptors())

    @property
    def hash(self) -> str:
        """The genesis hash (prev of file 1): SHA-256 over the proposal and acceptance hashes."""
        parts = lp(bytes.fromhex(self.proposal.hash))
        for party in self.acceptors():
            parts += lp(party.encode()) + lp(bytes.fromhex(self.acceptances[party].hash))
        return sha256_hex(parts)

    def party_of(self, pub_raw: bytes) -> str | None:
        """The party whose pinned key this is, if any."""
        for k, v in self.pubs.items():
            if v == pub_raw:
                return k
        return None


def host_classes(game: Game) -> list[str]:
    """The host's class onions: one per side and one for rolls that nobody may see."""
    return sorted([*game.sides, NOBODY])


def _check_onion(tip: str, length: int, name: str) -> None:
    if not _HEX64.match(tip):
        raise FileRejected(f"{name}: malformed dice commitment")
    if not 16 <= length <= 1 << 20:
        raise FileRejected(f"{name}: dice commitment length {length} out of range")
