"""The operations behind each command: new, host, join, receive, submit, check, status, verify.

Every operation verifies everything in memory first and writes only when all checks passed,
under the archive's lock, with atomic writes: a rejected input leaves the archive untouched.
"""

from __future__ import annotations

from collections import Counter
import datetime
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Collection, Iterator

import msgspec

from pbem.core import keys as keymod
from pbem.core.errors import (ArchiveError, Equivocation, FileRejected, IllegalFile, PbemError,
                              WrongKey)
from pbem.core import dicesecret
from pbem.core.dicesecret import OwnOnions
from pbem.core.onion import DEFAULT_LENGTH
from pbem.core.records import (Acceptance, OnionCommit, PartyKey, Policy, Proposal, Rejection,
                               SignedFile, Turn, ViewFile, read_file, seal)
from pbem.core.registry import find_game
from pbem.protocol import draws, hosted, joined, standing_queue, views
from pbem.protocol.rejection import receive_rejection, refuse
from pbem.protocol.archive import (Archive, ArchiveInfo, atomic_write, create_in_place,
                                   remove_partials, remove_stale_temps, turn_file_name,
                                   write_derived)
from pbem.protocol.genesis import HOST, Genesis, data_hash, host_classes, resolve_options
from pbem.protocol.ledger import due_renewals, own_reveals
from pbem.protocol import sealing
from pbem.protocol.sealing import PEERISH, side_fact_key
from pbem.core.sealed import can_seal, default_mode
from pbem.core.privatedraw import is_draw_line
from pbem.core.standing import is_standing
from pbem.protocol.checking import PASS, Checked, check_orders
from pbem.protocol.orders_file import read_lines
from pbem.protocol.reporting import write_reports
from pbem.protocol.session import Session, cache_blob, load, read_genesis


class Outcome(msgspec.Struct, kw_only=True):
    """What an operation did, for the CLI to print."""

    messages: list[str] = []
    written: list[str] = []
    reply: str | None = None                 # the file this party must send now, if any
    views: dict[str, str] = {}               # referee: side -> view file to send


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def _write_out(out: str | Path, text: str) -> str:
    p = Path(out)
    remove_stale_temps(p.parent, p.name)     # left by a killed earlier run writing this file
    atomic_write(p, text)
    return str(p)


def refuse_other_out(out: str | Path, text: str | None = None,
                     kept: Collection[str] = ()) -> None:
    """PbemError unless out is absent, already holds exactly text (a command run again), or
    holds a signed file the archive keeps (kept: their hashes): an output file never replaces
    a file the player has nowhere else (one received but not yet taken in, notes, anything)."""
    p = Path(out)
    if not p.exists() and not p.is_symlink():
        return
    if not p.is_file():
        raise PbemError(f"{out}: exists and is not a file: nothing was signed or stored; "
                        "give --out a new file name")
    if text is not None:
        want = text.encode("utf-8")
        if p.stat().st_size == len(want) and p.read_bytes() == want:
            return                            # the same file again: written over by itself
    if kept and _kept_copy(p, kept):
        return                                # last turn's turn.pbem: the archive holds it
    raise PbemError(f"{out}: the file exists and the archive does not hold it (a file not "
                    "yet received, or another): nothing was signed or stored; give --out a new "
                    "file name, or move that file away")


def _kept_copy(p: Path, kept: Collection[str]) -> bool:
    """True if p holds exactly a signed file whose hash is in kept (a mail holding one, quoted
    or with words around it, is not replaced: the words may be the player's own)."""
    try:
        return read_file(p, strict=True).hash in kept
    except PbemError:
        return False


class _NothingToDo(Exception):
    """A file delivered again finds nothing left to complete: the ordinary 'stale' error."""


_AGAIN = "(an earlier run was interrupted, or this is a second delivery)"
_RERUN = "(an earlier run was interrupted, or this is a second run)"


# -- genesis -------------------------------------------------------------------------------
def new_game(game_name: str, scenario: str, root: str | Path, *, side: str, key_path: str,
             opponent_pub: str, out: str, mode: str | None = None,
             referee_pub: str | None = None,
             options: dict[str, Any] | None = None, names: dict[str, str] | None = None) -> Outcome:
    """Create this player's archive and write the signed proposal to send.

    In hosted mode the proposal also names the referee, who joins it like the opponent.
    Without a mode: pbem.core.sealed.default_mode (sealed where the game can seal).
    """
    game = find_game(game_name)
    mode = mode or default_mode(game, referee=bool(referee_pub))
    if scenario not in game.scenarios():
        raise PbemError(f"unknown scenario {scenario!r} of {game.id} "
                        f"(known: {', '.join(game.scenarios())})")
    if side not in game.sides:
        raise PbemError(f"unknown side {side!r} (sides: {', '.join(game.sides)})")
    if mode == "hosted" and not referee_pub:
        raise PbemError("a hosted game needs the referee's public key: --referee PUBFILE")
    if mode == "sealed" and not can_seal(game):
        raise PbemError(f"{game.id} cannot be played in sealed mode yet (docs/sealed.md): "
                        "choose --mode peer or --mode hosted")
    if mode == "peer":
        draws.owners(game, scenario)       # a game that draws privately needs its peer hooks
    if mode == "sealed" and hasattr(game, "sealed_options"):   # options a sealed game needs
        options = game.sealed_options(options or {})
    key = keymod.load_private(key_path)
    my_pub = keymod.public_raw(key.public_key())
    opp_raw, opp_name = keymod.load_public(opponent_pub)
    other = next(s for s in game.sides if s != side)
    pubs = {side: my_pub, other: opp_raw}
    names = names or {other: opp_name}
    if mode == "hosted":
        pubs[HOST], names[HOST] = keymod.load_public(referee_pub)  # type: ignore[arg-type]
    return _propose(game, scenario, root, proposer=side, key=key, pubs=pubs, mode=mode,
                    out=out, options=options or {}, names=names, key_path=key_path)


def host_game(game_name: str, scenario: str, root: str | Path, *, key_path: str,
              players: dict[str, str], out: str, options: dict[str, Any] | None = None) -> Outcome:
    """Create the referee's archive for a hosted game and write the proposal for both players."""
    game = find_game(game_name)
    if scenario not in game.scenarios():
        raise PbemError(f"unknown scenario {scenario!r} of {game.id}")
    if sorted(players) != sorted(game.sides):
        raise PbemError(f"give one --player SIDE=PUBFILE for each side: {', '.join(game.sides)}")
    key = keymod.load_private(key_path)
    pubs = {HOST: keymod.public_raw(key.public_key())}
    names = {}
    for side, path in players.items():
        pubs[side], names[side] = keymod.load_public(path)
    return _propose(game, scenario, root, proposer=HOST, key=key, pubs=pubs, mode="hosted",
                    out=out, options=options or {}, names=names, key_path=key_path)


def dice_length(game: Any, scenario: str) -> int:
    """How many files one dice commitment covers: the game's own figure for the scenario
    (`Game.dice_length`, optional), else DEFAULT_LENGTH."""
    f = getattr(game, "dice_length", None)
    n = f(scenario) if f is not None else DEFAULT_LENGTH
    if not 16 <= n <= 1 << 20:
        raise PbemError(f"{game.id}: dice commitment length {n} for {scenario} is out of range "
                        "(16 to 2^20)")
    return n


def _fact_commit(mode: str, secret: bytes) -> Any:
    """A sealed game's party's commitment to its fact key (from its dice secret); UNSET in
    the other modes."""
    if mode != "sealed":
        return msgspec.UNSET
    from pbem.core.commitment import fact_commit, fact_key

    return fact_commit(fact_key(secret))


def _commitments(root: bytes, bind: str, party: str, classes: list[str], length: int
                 ) -> tuple[OnionCommit, dict[str, OnionCommit]]:
    own = OwnOnions(root, bind, party, classes, length)
    main = OnionCommit(tip=own.main.tip.hex(), length=own.main.length)
    return main, {c: OnionCommit(tip=own.onions[f"{party}/{c}"].tip.hex(), length=length)
                  for c in classes}


ASK_OPTION = "give it with --option {k}=VALUE"   # how `pbem new` and `pbem host` take one


def _options_line(game: Any, values: dict[str, Any], mode: str) -> str:
    """The house options a proposal sets, in one line, and where they are all listed."""
    from pbem.core.options import chosen

    implied = getattr(game, "sealed_only_options", {}) if mode == "sealed" else {}
    return (f"{chosen(game.options(), values, implied)} "
            f"(`pbem games --options {game.id}` lists them all)")


def _propose(game: Any, scenario: str, root: str | Path, *, proposer: str, key: Any,
             pubs: dict[str, bytes], mode: str, out: str, options: dict[str, Any],
             names: dict[str, str], key_path: str) -> Outcome:
    archive = Archive(root)
    archive.check_out(out)
    remove_partials(archive.root)         # half-built by a killed earlier run
    terms = dict(game=game.id, scenario=scenario, rules_version=game.rules_version,
                 data_hash=data_hash(game, scenario), options=resolve_options(game, options, ask=ASK_OPTION),
                 mode=mode, proposer=proposer,
                 parties=[PartyKey(party=p, pub=k.hex(), name=names.get(p, ""))
                          for p, k in sorted(pubs.items())])
    f = _stored_proposal(archive, pubs[proposer], terms)
    again = f is not None
    if f is None:
        nonce = os.urandom(16).hex()
        secret = dicesecret.new_root()
        classes = host_classes(game) if proposer == HOST else []
        onion, class_onions = _commitments(secret, nonce, proposer, classes,
                                           dice_length(game, scenario))
        prop = Proposal(nonce=nonce, onion=onion, class_onions=class_onions, policy=Policy(),
                        created=_now(), fact_commit=_fact_commit(mode, secret),
                        **terms)  # type: ignore[arg-type]
        f = seal(prop, key, name="0000-proposal.pbem")
        Genesis(game, f)  # self-check

        def fill(a: Archive) -> None:
            atomic_write(a.secret_path, dicesecret.encode(key, proposer, nonce, secret))
            a.write_signed("0000-proposal.pbem", f.text)

        create_in_place(root, ArchiveInfo(party=proposer, proposal=f.hash), fill)
    prop_nonce: str = f.payload.nonce  # type: ignore[union-attr]
    joined.record(key_path, prop_nonce, f.hash, "proposed", archive.root)
    written = [_write_out(out, f.text)]
    fps = ", ".join(f"{p} {keymod.fingerprint(k)}" for p, k in sorted(pubs.items()))
    msg = [f"{archive.root} already holds this proposal {_RERUN}: the stored proposal is "
           f"written again to {out}."] if again else []
    msg += [f"Proposed a game of {game.title}, scenario {scenario}, {mode} mode; you are "
            f"{'the referee' if proposer == HOST else proposer}. The game id is fixed once "
            "every party has accepted.",
            f"Key fingerprints: {fps} (compare them out of band).",
            _options_line(game, terms["options"], mode),
            f"Send {out} to your {'players' if mode == 'hosted' else 'opponent'}."]
    if mode == "peer":
        msg.append("Peer mode: both processors hold the full game state (hidden units "
                   "included); reports and views are masked, but a player who reads the raw "
                   "archive can see everything. Use hosted mode with a referee for real secrecy.")
    elif mode == "sealed":
        msg.append("Sealed mode: your hidden facts leave your computer only as commitments, "
                   "opened when the rules reveal them; the legality of hidden moves is proven "
                   "when they are revealed and by the final reveals at the end (docs/sealed.md).")
    return Outcome(messages=msg, written=written)


def _stored_proposal(archive: Archive, pub: bytes, terms: dict[str, Any]) -> SignedFile | None:
    """The proposal this key already made in this folder with these terms (a `new` or `host`
    run again); None if the folder holds no archive. ArchiveError if it holds another one."""
    if not archive.exists():
        return None
    try:
        info = archive.info()
        f = read_file(archive.files_dir / "0000-proposal.pbem", strict=True)
    except PbemError:
        f = None
    p = f.payload if f is not None else None
    if (not isinstance(p, Proposal) or info.proposal != f.hash  # type: ignore[union-attr]
            or info.party != p.proposer or not f.signed_by(pub)  # type: ignore[union-attr]
            or any(getattr(p, k) != v for k, v in terms.items())):
        raise ArchiveError(f"{archive.root}: an archive already exists here")
    return f


def _stored_acceptance(archive: Archive, proposal: SignedFile, party: str,
                       pub: bytes) -> SignedFile | None:
    """This key's acceptance of this proposal, if this folder already holds both (a `join`
    run again)."""
    if not archive.exists():
        return None
    try:
        info = archive.info()
        stored = (archive.files_dir / "0000-proposal.pbem").read_text(encoding="utf-8")
        af = read_file(archive.files_dir / f"0000-accept-{party}.pbem", strict=True)
    except (PbemError, OSError, UnicodeDecodeError):
        return None
    a = af.payload
    if (info.proposal != proposal.hash or info.party != party or stored != proposal.text
            or not isinstance(a, Acceptance) or a.proposal != proposal.hash
            or a.party != party or not af.signed_by(pub)):
        return None
    return af


def join_game(proposal_path: str, *, key_path: str, root: str | Path, out: str) -> Outcome:
    """Check a proposal, create this party's archive and write the signed acceptance."""
    f = read_file(proposal_path)
    if not isinstance(f.payload, Proposal):
        raise FileRejected(f"{f.name}: not a game proposal")
    game = find_game(f.payload.game)
    genesis = Genesis(game, f)
    genesis.require_fact_commits(f.name)
    key = keymod.load_private(key_path)
    party = genesis.party_of(keymod.public_raw(key.public_key()))
    if party is None or party == genesis.p.proposer:
        raise FileRejected(f"{f.name}: this proposal does not name your key as a party")
    archive = Archive(root)
    archive.check_out(out)
    remove_partials(archive.root)         # half-built by a killed earlier run
    stored = _stored_acceptance(archive, f, party, keymod.public_raw(key.public_key()))
    seen = joined.find(key_path, genesis.p.nonce)
    # The one second join allowed: the same proposal into the same folder, which already
    # holds this key's acceptance (a join run again after it was interrupted).
    if seen is not None and not (stored is not None
                                 and joined.same_game(seen, f.hash, "joined", archive.root)):
        raise FileRejected(f"{f.name}: this key already {seen.role} a game with this proposal "
                           f"nonce ({seen.archive}); a reused game id is refused: ask your "
                           "opponent for a new proposal")
    if stored is not None:
        af = stored
        genesis.add_acceptance(af)
    else:
        nonce = os.urandom(16).hex()
        secret = dicesecret.new_root()
        onion, class_onions = _commitments(secret, genesis.bind, party, genesis.classes_of(party),
                                           dice_length(game, genesis.p.scenario))
        acc = Acceptance(nonce=nonce, proposal=f.hash, party=party, onion=onion,
                         class_onions=class_onions,
                         fact_commit=_fact_commit(genesis.mode, secret))
        af = seal(acc, key, name=f"0000-accept-{party}.pbem")
        genesis.add_acceptance(af)

        def fill(a: Archive) -> None:
            atomic_write(a.secret_path, dicesecret.encode(key, party, genesis.bind, secret))
            a.write_signed("0000-proposal.pbem", f.text)
            a.write_signed(af.name, af.text)

        create_in_place(root, ArchiveInfo(party=party, proposal=f.hash), fill)
    joined.record(key_path, genesis.p.nonce, f.hash, "joined", archive.root)
    written = [_write_out(out, af.text)]
    first: list[str] = []
    if genesis.complete and genesis.mode in PEERISH:
        # The game can start at once: the first report says what this side must decide.
        s = load(archive.root, key=key, use_cache=True)
        with archive:
            write_reports(s, party, [], Outcome(), only_changed=True)
            write_cache(s, only_changed=True)
        first = [f"Your first report: {archive.reports_dir / party / 'index.html'}"]
    p = genesis.p
    to = "nobody: you collect the acceptances" if party == genesis.collector else genesis.collector
    gid = f"game {genesis.game_id}" if genesis.complete else "the game"
    again = ([f"{archive.root} already holds your acceptance of this proposal {_RERUN}: it is "
              f"written again to {out}."] if stored is not None else [])
    return Outcome(messages=[*again, f"Joined {gid}: {game.title}, scenario {p.scenario}, "
                             f"{p.mode} mode; you are "
                             f"{'the referee' if party == HOST else party}.",
                             f"Proposer {p.proposer}'s key fingerprint: "
                             f"{keymod.fingerprint(genesis.pubs[p.proposer])} "
                             "(compare it with them out of band).",
                             _options_line(game, p.options, p.mode)
                             + " (if you do not agree to them, do not send the acceptance)",
                             f"Send {out} to {to}.", *first], written=written)


# -- the exchange ----------------------------------------------------------------------------
@contextmanager
def _naming_key(key_path: str | None, root: str | Path) -> Iterator[None]:
    """A wrong key's error names the key file (the archive only says whose key it needs)."""
    try:
        yield
    except WrongKey as e:
        if key_path is None or e.key_path:
            raise
        raise WrongKey(f"{key_path}: this key is not {e.party}'s key in the game of {root} "
                       "(the archive belongs to that side)", party=e.party,
                       key_path=key_path) from None


def receive_file(root: str | Path, path: str, *, key_path: str, out: str | None = None) -> Outcome:
    """Verify and process a received file; write state caches, reports and any reply."""
    with _naming_key(key_path, root):
        return _receive_file(root, path, key_path=key_path, out=out)


def _receive_file(root: str | Path, path: str, *, key_path: str, out: str | None) -> Outcome:
    archive = Archive(root)
    info = archive.info()
    if out is not None:
        archive.check_out(out)
    f = read_file(path)
    key = keymod.load_private(key_path)
    with archive:
        if isinstance(f.payload, Acceptance):
            return _receive_acceptance(archive, info, f, key, out)
        if isinstance(f.payload, Turn):
            # a player's genesis, read once: checked here, then loaded by _receive_turn
            read = read_genesis(archive) if info.party != HOST else None
            if read is not None and read[1].mode == "hosted":
                raise FileRejected(f"{f.name}: in hosted mode players receive view files from "
                                   "the referee, not turn files")
            return _receive_turn(archive, f, key, out, read)
        if isinstance(f.payload, ViewFile):
            if info.party == HOST:
                raise FileRejected(f"{f.name}: a view goes from the referee to a player; the "
                                   "referee's own archive does not receive it")
            read = read_genesis(archive)         # once: load_player takes it as read
            genesis = read[1]
            if genesis.mode != "hosted":
                # a hosted game's view given to a peer or sealed archive (a player in both
                # kinds of game): say so, not that the archive's own first file is invalid
                if f.payload.game_id != genesis.game_id:
                    raise FileRejected(f"{f.name}: belongs to another game "
                                       f"({f.payload.game_id}, this archive is "
                                       f"{genesis.game_id})")
                raise FileRejected(f"{f.name}: a view file: only the players of a hosted game "
                                   f"receive views, and {archive.root} is a {genesis.mode} game")
            return hosted.receive_view(archive, info, f, key, read)
        if isinstance(f.payload, Rejection):
            if info.party == HOST:
                raise FileRejected(f"{f.name}: a rejection goes from the referee to a player")
            return receive_rejection(archive, f, key)
        raise FileRejected(f"{f.name}: a proposal is answered with 'pbem join', not received")


def _stored_same(archive: Archive, name: str, f: SignedFile) -> bool:
    """True if files/name holds exactly this signed file."""
    try:
        return (archive.files_dir / name).read_text(encoding="utf-8") == f.text
    except (OSError, UnicodeDecodeError):
        return False


def _stored_turn(archive: Archive, seq: int, sender: str) -> SignedFile | None:
    """The stored turn file seq of sender, if any."""
    p = archive.files_dir / turn_file_name(seq, sender)
    return read_file(p, strict=True) if p.is_file() else None


def _only_answer_after(archive: Archive, me: str, seq: int) -> bool:
    """True if the archive holds nothing after file seq but, at most, this party's answer to
    it (file seq+1 from this party without orders: a peer's automatic reply or the referee's
    record), so file seq is the last one another party sent and nothing was done since."""
    for p in archive.signed_files():
        n, _, sender = p.name[:-len(".pbem")].partition("-")
        if int(n) <= seq:
            continue
        if int(n) > seq + 1 or sender != me or getattr(read_file(p).payload, "orders", None):
            return False
    return True


def _receive_acceptance(archive: Archive, info: ArchiveInfo, f: SignedFile, key: Any,
                        out: str | None) -> Outcome:
    game, genesis, rest = read_genesis(archive)
    if info.party != genesis.collector:
        raise FileRejected(f"{f.name}: acceptances go to {genesis.collector}, who collects "
                           "them")
    party = getattr(f.payload, "party", "")
    if (genesis.complete and _stored_same(archive, f"0000-accept-{party}.pbem", f)
            and _only_answer_after(archive, info.party, 0)):
        # Delivered again: finish what an interrupted run left undone (reply, views, reports).
        result = Outcome(messages=[f"{party}'s acceptance is already in the archive {_AGAIN}; "
                                   "completing what is missing."])
        s = load(archive.root, key=key, use_cache=True, upto=0)
        try:
            if genesis.mode == "hosted":
                _finish_host(s, [], out, result, again=True)
            else:
                _after_resolution(s, [], out, result, replied_to_orders=False, again=True)
            return result
        except _NothingToDo:
            pass
    genesis.add_acceptance(f)
    genesis.require_fact_commits(f.name)
    archive.write_signed(f"0000-accept-{f.payload.party}.pbem", f.text)  # type: ignore[union-attr]
    result = Outcome(messages=[f"{f.payload.party} accepted the game."])  # type: ignore[union-attr]
    if not genesis.complete:
        waiting = [p for p in genesis.acceptors() if p not in genesis.acceptances]
        result.messages.append(f"Still waiting for: {', '.join(waiting)}.")
        return result
    result.messages.append(f"Every party has accepted: the game id is {genesis.game_id}.")
    s = load(archive.root, key=key, use_cache=True)
    if genesis.mode == "hosted":
        _finish_host(s, [], out, result)
    else:
        _after_resolution(s, [], out, result, replied_to_orders=False)
    return result


def _receive_turn(archive: Archive, f: SignedFile, key: Any, out: str | None,
                  genesis_read: Any = None) -> Outcome:
    """genesis_read: read_genesis(archive), if the caller has just read it."""
    t: Turn = f.payload  # type: ignore[assignment]
    me = archive.info().party
    if (t.sender != me and _stored_same(archive, turn_file_name(t.seq, t.sender), f)
            and _only_answer_after(archive, me, t.seq)):
        genesis_read = None                     # read again after what this may have written
        try:
            return _receive_again(archive, f, key, out)
        except _NothingToDo:
            pass                                # the ordinary 'stale' error below
    s = load(archive.root, key=key, use_cache=True, genesis_read=genesis_read)
    standing_queue.check_queue(archive, s.game)       # before anything is stored
    if s.genesis.mode == "hosted" and s.party == HOST:
        _check_outbox(s, t, Path(out) if out else archive.outbox)
    try:
        new_logs = s.add(f)
    except IllegalFile as e:
        if s.genesis.mode == "hosted" and s.party == HOST:
            raise refuse(s, f, e, out) from None
        raise
    except Equivocation as e:
        raise Equivocation(f"{e}; kept as evidence in {keep_fork(archive, f)}") from None
    if (s.facts is not None and t.sender != s.party and t.openings
            and getattr(s.game, "sealed_recheck", True)):
        sealing.recheck(s, f.name)      # what it opens may prove an earlier hidden move illegal
    archive.write_signed(turn_file_name(t.seq, t.sender), f.text)
    result = Outcome(messages=[f"File {t.seq} from {t.sender} verified: signature, chain and "
                               "dice reveal are valid."])
    if t.results is not None:
        result.messages.append(f"Its results for file {t.results.seq} match this replay.")
    if s.genesis.mode == "hosted":
        _finish_host(s, new_logs, out, result)
    else:
        _after_resolution(s, new_logs, out, result, replied_to_orders=bool(t.orders))
    return result


def keep_fork(archive: Archive, f: SignedFile) -> Path:
    """Store a second, different signed file of one sequence number under evidence/ (named
    as a game record names it), so the archive itself proves the sender's equivocation."""
    p = archive.root / "evidence" / f"turn-{f.hash[:16]}.pbem"
    if not p.is_file():
        atomic_write(p, f.text)
    return p


def _check_outbox(s: Session, t: Turn, outdir: Path) -> None:
    """PbemError, before anything is stored, if the folder the views go to holds a view file of
    another game under a name this receive may write: view names carry no game id, so a
    referee's outbox shared by several games could hold another game's unsent view there."""
    n = t.seq + 1 if t.seq % 2 == 1 else t.seq          # the chain's tip once the record is in
    for side in s.game.sides:
        target = outdir / views.view_name(side, n)
        if not target.is_file():
            continue
        try:
            other = read_file(target).payload.game_id
        except (PbemError, AttributeError):
            other = None
        if other != s.genesis.game_id:
            raise PbemError(f"{target}: already holds another file (another game's view not "
                            "sent yet?); pbem does not overwrite it: send it and move it "
                            "away, or give each game its own --out folder")


def _receive_again(archive: Archive, f: SignedFile, key: Any, out: str | None) -> Outcome:
    """A file already stored, delivered again while it is still the last file another party
    sent: repeat the steps after storing it from the archive as it was before it (every step
    is deterministic) and write what is missing, reusing what is stored. _NothingToDo if
    nothing was missing and no reply is owed."""
    t: Turn = f.payload  # type: ignore[assignment]
    s = load(archive.root, key=key, use_cache=True, upto=t.seq - 1)
    if s.genesis.mode == "hosted" and s.party == HOST:
        _check_outbox(s, t, Path(out) if out else archive.outbox)
    new_logs = s.add(f)
    result = Outcome(messages=[f"File {t.seq} from {t.sender} is already in the archive "
                               f"{_AGAIN}; completing what is missing."])
    if s.genesis.mode == "hosted":
        _finish_host(s, new_logs, out, result, again=True)
    else:
        _after_resolution(s, new_logs, out, result, replied_to_orders=bool(t.orders), again=True)
    return result


def owes_reply(s: Session, replied_to_orders: bool | None = None) -> bool:
    """Peer mode: this party owes an automatic reply: the other side's last files rolled dice
    that only this party's next file reveals, and this party has no decision of its own whose
    orders would carry the reveal (or the game is over: the final reveal). Private draws that
    its own last file made due are not a reply: its next submitted file opens them
    (reveal_after_own_file)."""
    if s.genesis.mode not in PEERISH or not s.genesis.complete or s.unresolved():
        return False
    me = s.party
    if s.facts is not None and s.over:
        return me not in s.facts.finals          # sealed: the final reveal
    if s.draws is not None and s.draws.reveal_owed() and not reveal_after_own_file(s):
        return True                              # the rules need this side's private draws
    if me in s.pending_sides and not s.over:
        # sealed, on receipt: a decision this side's standing orders answer (section 5c); a
        # file this side writes itself carries that answer first (sealed_answers)
        return (replied_to_orders is not None and s.facts is not None
                and sealing.standing_reply(s, standing_queue.queued(s.archive)) is not None)
    if s.facts is not None and set(s.facts.owed) - s.facts.opened(me):
        return True                              # sealed: openings the rules asked for
    return s.owes_reveal(me)


def reveal_after_own_file(s: Session) -> bool:
    """Peer mode: this party's own last file made the rules need its private draws opened (it
    ended the game, say), so no receive will write a reply: its next file, written with
    `pbem submit` (orders or none), opens them first (docs/protocol.md 6a)."""
    tip = s.ledger.tip_seq
    return (s.draws is not None and tip > 0 and s.ledger.sender(tip) == s.party
            and not s.unresolved() and s.draws.reveal_owed())


def _after_resolution(s: Session, new_logs: list[Any], out: str | None, result: Outcome,
                      *, replied_to_orders: bool, again: bool = False) -> None:
    """Peer mode: write reports, then the automatic reply if this party owes no decision.

    again: the received file was already stored (see _receive_again): a stored reply is
    written out again, reports and cache only where they differ; _NothingToDo if no reply is
    owed and nothing differed.
    """
    me = s.party
    changed = False
    if owes_reply(s, replied_to_orders):
        seq = s.ledger.tip_seq + 1
        stored = _stored_turn(s.archive, seq, me)
        f = stored or make_turn(s, _automatic_lines(s), "")
        new_logs = new_logs + s.add(f)
        if stored is None:
            s.archive.write_signed(turn_file_name(seq, me), f.text)
            standing_queue.clear(s.archive)
        target = out or str(s.archive.outbox / turn_file_name(seq, me))
        result.written.append(_write_out(target, f.text))
        result.reply = target
        result.messages.append(f"Reply file {seq} {'written again' if stored else 'written'} "
                               f"to {target}: send it to your opponent.")
        changed = True
    changed = write_reports(s, me, new_logs, result, only_changed=again) or changed
    changed = write_cache(s, only_changed=again) or changed
    if again and not changed:
        raise _NothingToDo
    result.messages.extend(status_lines(s))


def _automatic_lines(s: Session) -> list[str]:
    """The orders of an automatic reply: the queued standing orders, then (sealed mode) the
    answer this side's standing orders give to a decision pending on it."""
    queued = standing_queue.queued(s.archive)
    answer = sealing.standing_reply(s, queued) if s.facts is not None else None
    return queued + (answer or [])


def _last_views(s: Session) -> dict[str, int]:
    """Each side's latest stored view before the chain's tip (-1: none)."""
    tip = s.ledger.tip_seq
    prev = {side: -1 for side in s.game.sides}
    for p in s.archive.sent_view_files():
        side, _, n = p.name[len("view-"):-len(".pbem")].rpartition("-")
        if side in prev and int(n) < tip:
            prev[side] = max(prev[side], int(n))
    return prev


def _view_logs(s: Session, prev: dict[str, int]) -> dict[str, list[Any]]:
    """For each side, the logs of the files since its previous stored view (the rolls and
    events its next view reports; `pbem verify` checks views by the same rule)."""
    tip = s.ledger.tip_seq
    log = s.log
    first = log[0].seq if log else s.resolved + 1
    need = max(1, min(prev.values()) + 1)
    if first > need and need <= s.resolved:
        log = load(s.archive.root, key=s.key).log        # without the cache: every file's log
    return {side: [x for x in log if prev[side] < x.seq <= tip] for side in s.game.sides}


def _views_due(s: Session, prev: dict[str, int]) -> list[str]:
    """The sides owed a view of the tip (see views.view_due), and any already kept."""
    tip = s.ledger.tip_seq
    out = []
    for side in s.game.sides:
        if (s.archive.files_dir / views.view_name(side, tip)).is_file():
            out.append(side)
            continue
        last = None
        if prev[side] >= 0:
            name = views.view_name(side, prev[side])
            f = read_file(s.archive.files_dir / name, strict=True)
            v = f.payload
            if not (isinstance(v, ViewFile) and v.side == side and v.seq == prev[side]
                    and f.signed_by(s.genesis.pubs[HOST])):
                raise FileRejected(f"{name}: not the referee's view of file {prev[side]} "
                                   f"for {side}")
            last = v.state
        if views.view_due(s, side, tip, last):
            out.append(side)
    return out


def _finish_host(s: Session, new_logs: list[Any], out: str | None, result: Outcome, *,
                 again: bool = False) -> None:
    """Hosted mode: the referee appends its record for a resolved player file and writes views.

    A record or view already stored (the command run again after an interruption) is reused
    as stored and written out again; reports and cache are rewritten where they differ.
    """
    if s.ledger.tip_seq % 2 == 1:
        seq = s.ledger.tip_seq + 1
        stored = _stored_turn(s.archive, seq, HOST)
        f = stored or make_turn(s, [], "")
        new_logs = new_logs + s.add(f)
        if stored is None:
            s.archive.write_signed(turn_file_name(seq, HOST), f.text)
    outdir = Path(out) if out else s.archive.outbox
    prev = _last_views(s)
    logs = _view_logs(s, prev)
    due = _views_due(s, prev)
    for side in due:
        name = views.view_name(side, s.ledger.tip_seq)
        kept = s.archive.files_dir / name
        if kept.is_file():
            text = read_file(kept, strict=True).text
        else:
            vf = views.make_view(s, side, logs[side])
            s.archive.write_signed(vf.name, vf.text)
            text = vf.text
        result.written.append(_write_out(outdir / name, text))
        result.views[side] = str(outdir / name)
    for side in s.game.sides:
        write_reports(s, side, new_logs, result, only_changed=again)
    write_cache(s, only_changed=again)
    if due:
        result.messages.append("View files written: " + "; ".join(
            f"send {result.views[side]} to {side}" for side in due) + ".")
    quiet = [side for side in s.game.sides if side not in due]
    if quiet:
        result.messages.append(f"No view for {', '.join(quiet)}: nothing new to see and no "
                               "decision to make (its next view carries everything since).")
    result.messages.extend(status_lines(s))


def make_turn(s: Session, orders: list[str], message: str) -> SignedFile:
    """Build and sign this party's next turn file (results of the previous file included)."""
    seq = s.ledger.tip_seq + 1
    if s.own is None:
        raise ArchiveError("a key is needed to sign")
    needs_results = (seq > 1) if s.genesis.mode in PEERISH else (s.party == HOST)
    results = s.results.get(seq - 1) if needs_results else None
    if needs_results and results is None:
        raise ArchiveError(f"file {seq - 1} is not resolved yet; cannot answer it")
    classes = s.genesis.classes_of(s.party)
    reveal, class_reveals = own_reveals(s.ledger.commit, s.own, s.party, classes, seq)
    renewals = due_renewals(s.ledger.commit, s.own, s.key, game_id=s.genesis.game_id,
                            party=s.party, classes=classes, seq=seq)
    if s.draws is not None:      # peer mode: the commitment and opening of private draws
        orders = s.draws.lines_for() + list(orders)
    sealed: dict[str, Any] = {}
    if s.facts is not None:
        sealed, orders = _sealed_parts(s, seq, orders)
    t = Turn(game_id=s.genesis.game_id, seq=seq, prev=s.ledger.tip_hash, sender=s.party,
             reveal=reveal, class_reveals=class_reveals, results=results, orders=orders,
             message=message, renewals=renewals or msgspec.UNSET, **sealed)
    return seal(t, s.key, name=turn_file_name(seq, s.party))


def _sealed_parts(s: Session, seq: int, lines: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Sealed mode: the commitments, openings and final reveal of this side's file seq, and
    the projections it carries instead of its orders (the real orders go to the private
    store before signing, so a crash never leaves a signed file whose orders are lost; an
    order that cannot be projected is refused before that store is touched)."""
    key = side_fact_key(s.own)
    policy = sealing.policy_of(s.game, s.private, extra=lines)
    commits, openings = sealing.outgoing(s.game, s.facts, key, game_id=s.genesis.game_id,
                                         side=s.party, state=s.state, lines=lines,
                                         policy=policy)
    parts: dict[str, Any] = {"commits": commits or msgspec.UNSET,
                             "openings": openings or msgspec.UNSET}
    if s.over and s.party not in s.facts.finals:
        parts["final"] = sealing.final_reveal(s.archive.root, key, seq, lines)
    shown = sealing.project(s.game, s.state, s.party, lines)   # refuses before anything is written
    sealing.write_private(s.archive.root, seq, lines)
    s.private[seq] = list(lines)
    return parts, shown


def write_cache(s: Session, *, only_changed: bool = False) -> bool:
    """Write the derived state cache (never trusted on its own); with only_changed, leave an
    identical cache alone. True if written."""
    from pbem.protocol import chain
    from pbem.protocol.verified import remember

    remember(s.archive, s.ledger.files)      # the files verified, by hash (verified.py)
    chain.remember(s.archive, s.genesis, s.ledger.files)   # the chain they make (chain.py)
    return write_derived(s.archive.cache_dir / "state.json", cache_blob(s),
                         only_changed=only_changed)


def _not_now(s: Session, root: str | Path) -> str:
    """Why this party may not send its next file now (empty if it may): the same answer for
    check and submit, so check never passes orders submit then refuses."""
    seq = s.ledger.tip_seq + 1
    if owes_reply(s):
        return (f"{root}: you owe the automatic reply to file {seq - 1}, which was received but "
                "not answered (the receive was interrupted): run the same 'pbem receive' again")
    if s.unresolved():
        return (f"{root}: waiting for the opponent's reply to file {s.unresolved()[0]}; nothing "
                "to submit yet")
    expected = s.may_send()
    if s.party not in expected or s.party not in s.pending_sides:
        others = sorted(expected - {s.party})
        return (f"{root}: you have no decision to make now; file {seq} must come from "
                f"{', '.join(sorted(expected)) or 'nobody'}"
                + (f" (when it arrives: pbem receive {root} FILE)" if others else ""))
    return ""


def check_file(root: str | Path, orders_path: str, *, key_path: str | None = None,
               side: str | None = None) -> tuple[Checked, Session]:
    """Check an orders file against the archive's current state without signing."""
    read = read_genesis(Archive(root))         # read once: checked here, then loaded
    if read[1].mode == "hosted" and Archive(root).info().party != HOST:
        return hosted.check_syntax(root, orders_path), None  # type: ignore[return-value]
    s = open_session(root, key_path=key_path, genesis_read=read)
    me = side or s.party
    if me == HOST:
        raise PbemError("the referee does not write orders")
    if me not in s.game.sides:
        raise PbemError(f"{root}: unknown side {me!r} (the sides of this game: "
                        f"{', '.join(s.game.sides)})")
    if s.facts is not None and me != s.party:
        # a sealed archive holds only stand-ins for the other side's hidden units: a verdict
        # on that side's orders would be a guess
        raise PbemError(f"{root}: a sealed game's archive holds only {s.party}'s own units: "
                        f"{me}'s orders are checked by {me}'s own processor")
    numbered = read_lines(orders_path)
    checked = _check_own(s, me, numbered, Path(orders_path).name)
    if me == s.party and not s.over:
        why_not = _not_now(s, root)      # the orders are still checked as far as they can be
        if why_not:
            # "write the full path: the game waits" is moot when the wait is this file's own
            # turn not having come: the player is told that instead
            moot = set(checked.moot_if_not_now)
            checked.problems = [m for m in checked.problems if m not in moot]
            checked.blocking = [m for m in checked.blocking if m not in moot]
            checked.problems.append(why_not)
    return checked, s


def _own_held(s: Session, me: str) -> list[tuple[str, str]]:
    """Sealed: me's own orders held from its earlier file behind its own decision (the 'end'
    written after an attack whose hits it must allocate), which resume as soon as its next
    file answers it (docs/sealed.md 5c): check_orders replays them where the resolver will."""
    if me != s.party:
        return []
    return [(f"order {h.index + 1} of file {h.seq}", h.line) for h in s.held
            if h.side == me and h.own]


def _check_own(s: Session, me: str, numbered: list[tuple[int, str]], name: str) -> Checked:
    """check_file's check of the orders themselves (sealed: what the other side would see)."""
    if me == s.party:
        numbered, answered = _sealed_answers(s, numbered, name)
        if answered:
            checked = check_orders(s.game, s.state, me, numbered, name=name, sealed=True,
                                   held=_own_held(s, me))
            checked.warnings.append(_answered_text(answered))
            return checked
    checked = check_orders(s.game, s.state, me, numbered, name=name, sealed=s.facts is not None,
                           held=_own_held(s, me))
    if checked.ok and s.facts is not None and me == s.party:
        try:      # what the other side will see: submit refuses what cannot be shown
            signed = sealing.signing_order(s.game, s.state, me, checked.lines, s.own)
            checked.notes += sealing.signing_note(name, checked.lines, signed)
            sealing.project(s.game, s.state, me, signed)
        except PbemError as e:
            checked.problems.append(f"{name}: {e}")
    return checked


def submit_orders(root: str | Path, orders_path: str, *, key_path: str, out: str,
                  message: str = "") -> Outcome:
    """Check, sign and write the next file carrying this party's orders."""
    archive = Archive(root)
    info = archive.info()
    archive.check_out(out)
    with archive:
        read = read_genesis(archive) if info.party != HOST else None   # read once
        if read is not None and read[1].mode == "hosted":
            return hosted.submit(archive, info, orders_path, key_path=key_path, out=out,
                                 message=message)
        s = open_session(root, key_path=key_path, genesis_read=read)
        if s.party == HOST:
            raise PbemError("the referee does not submit orders")
        seq = s.ledger.tip_seq + 1
        sent = _sent_before(s, orders_path, message)
        # before anything is stored: never over another file (the same one again may be)
        refuse_other_out(out, sent.text if sent is not None else None,
                         kept={f.hash for f in s.ledger.files})
        if sent is not None:
            # Signed and stored by an earlier run that was interrupted (or ran twice): the
            # same file again, never a second file with this sequence number; reports and
            # cache as that run left them, from the archive as it was before the file.
            result = Outcome(written=[_write_out(out, sent.text)], reply=out, messages=[
                f"File {seq - 1} with these orders is already signed and stored {_RERUN}: "
                f"written again to {out}; send it to your opponent."])
            s = load(root, key=s.key, use_cache=True, upto=seq - 2)
            new_logs = s.add(sent)
            write_reports(s, s.party, new_logs, result, only_changed=True)
            write_cache(s, only_changed=True)
            return result
        if s.over:
            raise PbemError(f"{root}: the game is over")
        opening = reveal_after_own_file(s)
        why_not = _not_now(s, root)
        if why_not:
            raise PbemError(why_not)
        standing_queue.check_queue(archive, s.game)
        numbered = read_lines(orders_path)
        if opening and not numbered:
            numbered = [(1, "pass")]      # the file opens the private draws and may say no more
        numbered, answered = _sealed_answers(s, numbered, Path(orders_path).name)
        checked = check_orders(s.game, s.state, s.party, numbered, name=Path(orders_path).name,
                               sealed=s.facts is not None, held=_own_held(s, s.party))
        if checked.blocking:
            raise PbemError("; ".join(checked.blocking))
        queued = standing_queue.queued(archive)
        lines = checked.lines
        if s.facts is not None:     # sealed: the order of some lines could say hidden facts
            lines = sealing.signing_order(s.game, s.state, s.party, checked.lines, s.own)
            checked.notes += sealing.signing_note(Path(orders_path).name, checked.lines, lines)
        f = make_turn(s, queued + lines, message)
        try:
            new_logs = s.add(f)
        except IllegalFile as e:
            # a line the check could only hold (it waited for the other side), refused once
            # the file resolves with the other side's held orders: say it in the orders' words
            k = e.order - 1 - len(queued)
            if lines != checked.lines and 0 <= k < len(lines):   # the line as written
                # a line signing_order left in place keeps its number (a copy of it written
                # elsewhere is another line); a moved placement's unit is in its run once
                at = k if lines[k] == checked.lines[k] else checked.lines.index(lines[k])
                e.order = at + 1 + len(queued)
            raise PbemError(_own_refusal(Path(orders_path).name, numbered, len(queued), e,
                                         answered, bool(s.held))) from None
        archive.write_signed(f.name, f.text)
        standing_queue.clear(archive)
        result = Outcome(written=[_write_out(out, f.text)], reply=out)
        n = len(checked.lines)
        result.messages.append(f"File {seq} signed with {n} order{'s' if n != 1 else ''}: "
                               f"send {out} to your opponent.")
        result.messages.extend(check_messages(checked) + checked.notes)
        if answered:
            result.messages.append(_answered_text(answered))
        # a file whose dice wait for the opponent resolves nothing yet: the report is written
        # all the same, so that the newest one shows the decision answered, not still asked
        write_reports(s, s.party, new_logs, result)
        write_cache(s)
        return result


def _sealed_answers(s: Session, numbered: list[tuple[int, str]], name: str = "your orders"
                    ) -> tuple[list[tuple[int, str]], list[str]]:
    """Sealed mode: the orders with the answers this side's standing orders give to the
    decisions that come up on it in its own file inserted (pbem.protocol.sealed_answers)."""
    if s.facts is None:
        return numbered, []
    from pbem.protocol.sealed_answers import insert_answers

    return insert_answers(s, numbered, standing_queue.queued(s.archive), name)


def _own_refusal(name: str, numbered: list[tuple[int, str]], queued: int, e: IllegalFile,
                 answered: list[str], held: bool) -> str:
    """One line on an order of this side's own file that its resolution refused: the orders
    file, the line number and text, why, and what ran before it that the check could not."""
    rows = [(n, line) for n, line in numbered if line.strip().lower() != PASS]
    k = e.order - 1 - queued
    where = (f"line {rows[k][0]}: {rows[k][1].strip()!r}" if 0 <= k < len(rows)
             else f"order {e.order}")
    msg = f"{name}: {where}: {e.reason}" + (f" [{e.rule}]" if e.rule else "")
    before = []
    if answered:
        before.append(f"your standing orders answered a decision with {'; '.join(answered)!r}")
    if held:
        before.append("the other side's orders waiting in its file were carried out")
    if before:
        msg += f" (before it, {' and '.join(before)}): nothing was signed"
    return msg


def _answered_text(answered: list[str]) -> str:
    """Plain words on the answers a sealed game's standing orders wrote into the file."""
    return (f"Your standing orders answered {len(answered)} decision(s) in this file (a sealed "
            f"game sends every answer explicitly): {'; '.join(answered)}.")


def check_messages(checked: Checked) -> list[str]:
    """Plain words on the orders checked only later: after dice, or waiting for an answer."""
    out = list(checked.problems) + list(checked.warnings)
    if checked.after_dice:
        one = len(checked.after_dice) == 1
        out.append(f"{_on_lines(checked.after_dice)} {'comes' if one else 'come'} after dice: "
                   f"{'it is' if one else 'they are'} checked again when the file is resolved "
                   "and skipped if the dice made "
                   f"{'it' if one else 'them'} illegal.")
    if checked.waiting:
        one = len(checked.waiting) == 1
        out.append(f"{_on_lines(checked.waiting)} {'waits' if one else 'wait'}: the game then "
                   f"{checked.wait_reason}. {'It resumes' if one else 'They resume, in order,'} "
                   f"when that answer arrives (skipped if it made {'it' if one else 'them'} "
                   "illegal).")
    return out


def _on_lines(numbers: list[int]) -> str:
    """'The order on line 9' or 'Orders on lines 9, 10'."""
    if len(numbers) == 1:
        return f"The order on line {numbers[0]}"
    return "Orders on lines " + ", ".join(map(str, numbers))


def as_signed(game: Any, side: str, numbered: list[tuple[int, str]], name: str,
              before: Callable[[], Any] | None = None, sealed: bool = False,
              held: list[tuple[str, str]] | tuple[()] = ()) -> Checked:
    """The canonical lines submit signs for these orders: their syntax alone, unless a
    destination-only move needs the position it was written out in (before() gives it: the
    state before the file, held the own held orders then; the same check then writes it out
    the same way)."""
    checked = check_orders(game, None, side, numbered, name=name, syntax_only=True)
    if before is None or len(checked.unexpanded) != len(checked.problems) or checked.ok:
        return checked
    return check_orders(game, before(), side, numbered, name=name, sealed=sealed, held=held)


def same_orders(game: Any, side: str, orders_path: str, message: str, f: SignedFile,
                before: Callable[[], Any] | None = None) -> bool:
    """True if signed file f carries exactly these orders (in canonical notation) and message,
    after the queued standing orders it carried first (pbem.protocol.standing_queue).
    before: the state before f, for destination-only moves (as_signed)."""
    t = f.payload
    if not isinstance(t, Turn) or t.message != message:
        return False
    checked = as_signed(game, side, read_lines(orders_path), Path(orders_path).name, before)
    n = len(t.orders) - len(checked.lines)
    return (checked.ok and n >= 0 and t.orders[n:] == checked.lines
            and all(is_standing(x) or is_draw_line(x) for x in t.orders[:n]))


def _sent_before(s: Session, orders_path: str, message: str) -> SignedFile | None:
    """Peer mode: this party's last file, if it is the chain's tip and carries exactly these
    orders and message (submit run again)."""
    if not s.ledger.files:
        return None
    f = s.ledger.files[-1]
    if f.payload.sender != s.party or not f.payload.orders:  # type: ignore[union-attr]
        return None
    if s.facts is not None:      # sealed: the file holds projections; the real orders are private
        return f if _same_sealed_orders(s, orders_path, message, f) else None

    def before() -> Any:
        return load(s.archive.root, key=s.key, use_cache=True,
                    upto=f.payload.seq - 1).state  # type: ignore[union-attr]

    return f if same_orders(s.game, s.party, orders_path, message, f, before) else None


def _same_sealed_orders(s: Session, orders_path: str, message: str, f: SignedFile) -> bool:
    """Sealed mode: True if this party's file f was signed from exactly these orders and
    message: its real orders (private store) are these, with the answers its standing orders
    gave inserted as they were then, after the queued standing orders it carried first."""
    t = f.payload
    real = s.private.get(t.seq)  # type: ignore[union-attr]
    if real is None or t.message != message:  # type: ignore[union-attr]
        return False
    numbered = read_lines(orders_path)
    name = Path(orders_path).name
    plain = check_orders(s.game, None, s.party, numbered, name=name, syntax_only=True)
    unexpanded = bool(plain.unexpanded) and len(plain.unexpanded) == len(plain.problems)
    if not unexpanded and (not plain.ok or Counter(plain.lines) - Counter(real)):
        return False    # not even among them: other orders (destination-only moves are
                        # compared once written out, below; placements may be signed in
                        # another order, sealing.signing_order)
    before = load(s.archive.root, key=s.key, upto=t.seq - 1)  # type: ignore[union-attr]
    before.private = {k: v for k, v in before.private.items() if k < t.seq}  # type: ignore[union-attr]
    numbered, _ = _sealed_answers(before, numbered)
    checked = as_signed(s.game, s.party, numbered, name, lambda: before.state, sealed=True,
                        held=_own_held(before, s.party))
    n = len(real) - len(checked.lines)
    return (checked.ok and n >= 0
            and real[n:] == sealing.signing_order(s.game, before.state, s.party, checked.lines,
                                                  s.own)
            and all(is_standing(x) for x in real[:n]))


def open_session(root: str | Path, *, key_path: str | None = None,
                 genesis_read: Any = None) -> Session:
    """Load an archive, with this party's key when given (needed to resolve received files);
    genesis_read: read_genesis of the archive, if the caller has just read it."""
    key = keymod.load_private(key_path) if key_path else None
    read = genesis_read or read_genesis(Archive(root))
    if not read[1].complete:
        missing = [p for p in read[1].acceptors() if p not in read[1].acceptances]
        raise ArchiveError(f"{root}: the game has not started: waiting for the acceptance of "
                           f"{', '.join(missing)} (when it arrives: pbem receive {root} FILE)")
    with _naming_key(key_path, root):
        return load(root, key=key, use_cache=True, genesis_read=read)


# -- status ----------------------------------------------------------------------------------
def status_lines(s: Session) -> list[str]:
    """Plain words: where the game stands and who must do what next."""
    lines = []
    waiting = waiting_for(s)
    if s.over:
        o = s.game.outcome(s.state)
        lines.append(f"The game is over: {o.winner + ' wins' if o.winner else 'a draw'} "  # type: ignore[union-attr]
                     f"({o.reason}).")  # type: ignore[union-attr]
        if not owes_reply(s) and not reveal_after_own_file(s):
            return lines
    for party, what in waiting:
        who = "You" if party == s.party else party
        lines.append(f"{who}: {what}")
    lines.extend(unsent_reminder(s))
    return lines


def unsent_reminder(s: Session) -> list[str]:
    """Peer mode: when this party wrote the chain's last file and the game now waits for the
    other side, a reminder to send it (pbem cannot see mail leave; the next file from the other
    side shows it arrived)."""
    if s.genesis.mode not in PEERISH or not s.ledger.files:
        return []
    last = s.ledger.files[-1]
    t = last.payload
    if t.sender != s.party or (s.party in s.pending_sides and not s.unresolved()):  # type: ignore[union-attr]
        return []
    if s.over and not s.unresolved():
        return []
    path = s.archive.files_dir / last.name
    return [f"Your file {t.seq} is the last one in the game ({path}): if you have not sent "  # type: ignore[union-attr]
            "it to your opponent yet, send it now."]


def waiting_for(s: Session) -> list[tuple[str, str]]:
    """(party, what it must do) for everyone the game is waiting for."""
    root = s.archive.root
    if reveal_after_own_file(s):
        return [(s.party, "your last file made the rules need your private draw opened: write "
                          f"'pbem submit {root} ORDERS --key KEY --out FILE' (an empty orders "
                          "file will do); your processor opens it first")]
    if owes_reply(s):
        tip = s.ledger.tip_seq
        what = (f"file {tip} from {s.ledger.sender(tip)}" if tip
                else "the opponent's acceptance")
        return [(s.party, f"{what} is received but your automatic reply is not written (the "
                          f"receive was interrupted): run the same 'pbem receive {root} FILE "
                          "--key KEY' again with that file")]
    if s.party == HOST and s.genesis.complete and _host_unfinished(s):
        return [(HOST, f"the record and views of file {s.ledger.tip_seq} are not all written "
                       f"(the receive was interrupted): run the same 'pbem receive {root} FILE "
                       "--key KEY --out FOLDER' again with the last file received")]
    if s.over:
        return []
    if s.unresolved():
        seq = s.unresolved()[0]
        sender = s.ledger.sender(seq)
        others = [p for p in s.ledger.dice_parties(seq) if p != sender]
        return [(p, f"file {seq} from {sender} is stored but not resolved: the receive did not "
                    f"finish (interrupted?): run the same 'pbem receive {root} FILE --key KEY' "
                    "again with that file (or give --key to status)")
                if p == s.party else (p, f"must receive file {seq} from {sender} and resolve it")
                for p in others]
    out = []
    for d in s.game.pending(s.state):
        if d.side != s.party:           # how to answer is theirs to read, not this party's
            out.append((d.side, f"{d.prompt} (you wait for their file)"))
            continue
        extra = (f" [{d.detail}]" if d.detail else "") + (
            f" (choose one: {' | '.join(d.choices)})" if d.choices else "")
        out.append((d.side, f"{d.prompt}{extra} (write orders, then: pbem submit DIR ORDERS "
                            "--key KEY --out FILE)"))
    return out


def _host_unfinished(s: Session) -> bool:
    """The referee: the last player file has no record yet, or a side has no view of it."""
    tip = s.ledger.tip_seq
    if tip % 2 == 1:
        return True
    prev = _last_views(s)
    return any(not (s.archive.files_dir / views.view_name(side, tip)).is_file()
               for side in _views_due(s, prev))


def status_json(s: Session) -> dict[str, Any]:
    """The machine-readable status for scripts and ladders."""
    o = s.game.outcome(s.state)
    waiting = waiting_for(s)
    return {"game_id": s.genesis.game_id, "game": s.game.id, "scenario": s.genesis.p.scenario,
            "mode": s.genesis.mode, "party": s.party, "seq": s.ledger.tip_seq,
            "turn": s.game.turn(s.state), "over": o is not None,
            "winner": o.winner if o else None, "result": o.reason if o else None,
            "pending": sorted({p for p, _ in waiting}),
            "decisions": [{"side": p, "what": w} for p, w in waiting]}
