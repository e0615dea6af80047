"""The operations behind each command: new, host, join, receive, submit, check, status, verify.

Every operation verifies everything in memory first and writes only when all checks passed,
under the archive's lock, with atomic writes: a rejected input leaves the archive untouched.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Any

import msgspec

from pbem.core import keys as keymod
from pbem.core.errors import ArchiveError, FileRejected, PbemError
from pbem.core.onion import DEFAULT_LENGTH, Onion, seed_from_key
from pbem.core.records import (Acceptance, OnionCommit, PartyKey, Policy, Proposal, SignedFile,
                               Turn, ViewFile, read_file, seal)
from pbem.core.registry import find_game
from pbem.protocol import hosted
from pbem.protocol.archive import Archive, ArchiveInfo, atomic_write
from pbem.protocol.genesis import HOST, Genesis, data_hash, resolve_options
from pbem.protocol.orders_file import Checked, check_orders, read_lines
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
    atomic_write(p, text)
    return str(p)


def turn_file_name(seq: int, sender: str) -> str:
    """The archive name of turn file seq from sender."""
    return f"{seq:04d}-{sender}.pbem"


# -- genesis -------------------------------------------------------------------------------
def new_game(game_name: str, scenario: str, root: str | Path, *, side: str, key_path: str,
             opponent_pub: str, out: str, mode: str = "peer", referee_pub: str | None = None,
             options: dict[str, Any] | None = None, names: dict[str, str] | None = None) -> Outcome:
    """Create this player's archive and write the signed proposal to send.

    In hosted mode the proposal also names the referee, who joins it like the opponent.
    """
    game = find_game(game_name)
    if scenario not in game.scenarios():
        raise PbemError(f"unknown scenario {scenario!r} of {game.id} "
                        f"(known: {', '.join(game.scenarios())})")
    if side not in game.sides:
        raise PbemError(f"unknown side {side!r} (sides: {', '.join(game.sides)})")
    if mode == "hosted" and not referee_pub:
        raise PbemError("a hosted game needs the referee's public key: --referee PUBFILE")
    key = keymod.load_private(key_path)
    my_pub = keymod.public_raw(key.public_key())
    opp_raw, opp_name = keymod.load_public(opponent_pub)
    other = next(s for s in game.sides if s != side)
    pubs = {side: my_pub, other: opp_raw}
    names = names or {other: opp_name}
    if mode == "hosted":
        pubs[HOST], names[HOST] = keymod.load_public(referee_pub)  # type: ignore[arg-type]
    return _propose(game, scenario, root, proposer=side, key=key, pubs=pubs, mode=mode,
                    out=out, options=options or {}, names=names)


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
                    out=out, options=options or {}, names=names)


def _propose(game: Any, scenario: str, root: str | Path, *, proposer: str, key: Any,
             pubs: dict[str, bytes], mode: str, out: str, options: dict[str, Any],
             names: dict[str, str]) -> Outcome:
    archive = Archive(root)
    if archive.exists():
        raise ArchiveError(f"{archive.root}: an archive already exists here")
    game_id = os.urandom(16).hex()
    onion = Onion(seed_from_key(keymod.private_raw(key), game_id, proposer), game_id, proposer,
                  DEFAULT_LENGTH)
    prop = Proposal(game_id=game_id, game=game.id, scenario=scenario,
                    rules_version=game.rules_version, data_hash=data_hash(game, scenario),
                    options=resolve_options(game, options), mode=mode,  # type: ignore[arg-type]
                    proposer=proposer,
                    parties=[PartyKey(party=p, pub=k.hex(), name=names.get(p, ""))
                             for p, k in sorted(pubs.items())],
                    onion=OnionCommit(tip=onion.tip.hex(), length=onion.length),
                    policy=Policy(), created=_now())
    f = seal(prop, key, name="0000-proposal.pbem")
    Genesis(game, f)  # self-check
    with archive:
        archive.create(ArchiveInfo(party=proposer, game_id=game_id))
        archive.write_signed("0000-proposal.pbem", f.text)
    written = [_write_out(out, f.text)]
    fps = ", ".join(f"{p} {keymod.fingerprint(k)}" for p, k in sorted(pubs.items()))
    msg = [f"Game {game_id}: {game.title}, scenario {scenario}, {mode} mode; you are {proposer}.",
           f"Key fingerprints: {fps} (compare them out of band).",
           f"Send {out} to your {'players' if mode == 'hosted' else 'opponent'}."]
    if mode == "peer":
        msg.append("Peer mode: both processors hold the full game state (hidden units "
                   "included); reports and views are masked, but a player who reads the raw "
                   "archive can see everything. Use hosted mode with a referee for real secrecy.")
    return Outcome(messages=msg, written=written)


def join_game(proposal_path: str, *, key_path: str, root: str | Path, out: str) -> Outcome:
    """Check a proposal, create this party's archive and write the signed acceptance."""
    f = read_file(proposal_path)
    if not isinstance(f.payload, Proposal):
        raise FileRejected(f"{f.name}: not a game proposal")
    game = find_game(f.payload.game)
    genesis = Genesis(game, f)
    key = keymod.load_private(key_path)
    party = genesis.party_of(keymod.public_raw(key.public_key()))
    if party is None or party == genesis.p.proposer:
        raise FileRejected(f"{f.name}: this proposal does not name your key as a party")
    onion = Onion(seed_from_key(keymod.private_raw(key), genesis.game_id, party),
                  genesis.game_id, party, DEFAULT_LENGTH)
    acc = Acceptance(game_id=genesis.game_id, proposal=f.hash, party=party,
                     onion=OnionCommit(tip=onion.tip.hex(), length=onion.length))
    af = seal(acc, key, name=f"0000-accept-{party}.pbem")
    genesis.add_acceptance(af)
    archive = Archive(root)
    if archive.exists():
        raise ArchiveError(f"{archive.root}: an archive already exists here")
    with archive:
        archive.create(ArchiveInfo(party=party, game_id=genesis.game_id))
        archive.write_signed("0000-proposal.pbem", f.text)
        archive.write_signed(af.name, af.text)
    written = [_write_out(out, af.text)]
    p = genesis.p
    to = "nobody: you collect the acceptances" if party == genesis.collector else genesis.collector
    return Outcome(messages=[f"Joined game {p.game_id}: {game.title}, scenario {p.scenario}, "
                             f"{p.mode} mode; you are {party}.",
                             f"Proposer {p.proposer}'s key fingerprint: "
                             f"{keymod.fingerprint(genesis.pubs[p.proposer])} "
                             "(compare it with them out of band).",
                             f"Send {out} to {to}."], written=written)


# -- the exchange ----------------------------------------------------------------------------
def receive_file(root: str | Path, path: str, *, key_path: str, out: str | None = None) -> Outcome:
    """Verify and process a received file; write state caches, reports and any reply."""
    archive = Archive(root)
    info = archive.info()
    f = read_file(path)
    key = keymod.load_private(key_path)
    with archive:
        if isinstance(f.payload, Acceptance):
            return _receive_acceptance(archive, info, f, key, out)
        if isinstance(f.payload, Turn):
            if info.party != HOST and _is_hosted_player(archive):
                raise FileRejected(f"{f.name}: in hosted mode players receive view files from "
                                   "the referee, not turn files")
            return _receive_turn(archive, f, key, out)
        if isinstance(f.payload, ViewFile):
            return hosted.receive_view(archive, info, f, key)
        raise FileRejected(f"{f.name}: a proposal is answered with 'pbem join', not received")


def _is_hosted_player(archive: Archive) -> bool:
    _, genesis, _ = read_genesis(archive)
    return genesis.mode == "hosted"


def _receive_acceptance(archive: Archive, info: ArchiveInfo, f: SignedFile, key: Any,
                        out: str | None) -> Outcome:
    game, genesis, rest = read_genesis(archive)
    if info.party != genesis.collector:
        raise FileRejected(f"{f.name}: acceptances go to {genesis.collector}, who collects "
                           "them")
    genesis.add_acceptance(f)
    archive.write_signed(f"0000-accept-{f.payload.party}.pbem", f.text)  # type: ignore[union-attr]
    result = Outcome(messages=[f"{f.payload.party} accepted game {genesis.game_id}."])  # type: ignore[union-attr]
    if not genesis.complete:
        waiting = [p for p in genesis.acceptors() if p not in genesis.acceptances]
        result.messages.append(f"Still waiting for: {', '.join(waiting)}.")
        return result
    s = load(archive.root, key=key, use_cache=True)
    if genesis.mode == "hosted":
        _finish_host(s, [], out, result)
    else:
        _after_resolution(s, [], out, result, replied_to_orders=False)
    return result


def _receive_turn(archive: Archive, f: SignedFile, key: Any, out: str | None) -> Outcome:
    s = load(archive.root, key=key, use_cache=True)
    t: Turn = f.payload  # type: ignore[assignment]
    new_logs = s.add(f)
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


def _after_resolution(s: Session, new_logs: list[Any], out: str | None, result: Outcome,
                      *, replied_to_orders: bool) -> None:
    """Peer mode: write reports, then the automatic reply if this party owes no decision."""
    me = s.party
    owes = me in s.pending_sides
    expected = s.ledger.expected_senders(s.ledger.tip_seq + 1, s.pending_sides)
    must_reply = me in expected and not owes and (not s.over or replied_to_orders)
    if must_reply:
        f = make_turn(s, [], "")
        new_logs = new_logs + s.add(f)
        s.archive.write_signed(turn_file_name(f.payload.seq, me), f.text)  # type: ignore[union-attr]
        target = out or str(s.archive.outbox / f.name)
        result.written.append(_write_out(target, f.text))
        result.reply = target
        result.messages.append(f"Reply file {f.payload.seq} written to {target}: send it "  # type: ignore[union-attr]
                               "to your opponent.")
    write_reports(s, me, new_logs, result)
    write_cache(s)
    result.messages.extend(status_lines(s))


def _finish_host(s: Session, new_logs: list[Any], out: str | None, result: Outcome) -> None:
    """Hosted mode: the referee appends its record for a resolved player file and writes views."""
    if s.ledger.tip_seq % 2 == 1:
        f = make_turn(s, [], "")
        new_logs = new_logs + s.add(f)
        s.archive.write_signed(turn_file_name(f.payload.seq, HOST), f.text)  # type: ignore[union-attr]
    outdir = Path(out) if out else s.archive.outbox
    for side in s.game.sides:
        vf = hosted.make_view(s, side, new_logs)
        name = f"view-{side}-{vf.payload.view_seq:04d}.pbem"  # type: ignore[union-attr]
        result.written.append(_write_out(outdir / name, vf.text))
        result.views[side] = str(outdir / name)
    for side in s.game.sides:
        write_reports(s, side, new_logs, result)
    write_cache(s)
    result.messages.append(f"View files for {', '.join(s.game.sides)} written to {outdir}: "
                           "send each player their own.")
    result.messages.extend(status_lines(s))


def make_turn(s: Session, orders: list[str], message: str) -> SignedFile:
    """Build and sign this party's next turn file (results of the previous file included)."""
    seq = s.ledger.tip_seq + 1
    if s.own is None:
        raise ArchiveError("a key is needed to sign")
    needs_results = (seq > 1) if s.genesis.mode == "peer" else (s.party == HOST)
    results = s.results.get(seq - 1) if needs_results else None
    if needs_results and results is None:
        raise ArchiveError(f"file {seq - 1} is not resolved yet; cannot answer it")
    t = Turn(game_id=s.genesis.game_id, seq=seq, prev=s.ledger.tip_hash, sender=s.party,
             reveal=s.own.element(seq).hex(), results=results, orders=orders, message=message)
    return seal(t, s.key, name=turn_file_name(seq, s.party))


def write_cache(s: Session) -> None:
    """Write the derived state cache (never trusted on its own)."""
    atomic_write(s.archive.cache_dir / "state.json", cache_blob(s), durable=False)


def check_file(root: str | Path, orders_path: str, *, key_path: str | None = None,
               side: str | None = None) -> tuple[Checked, Session]:
    """Check an orders file against the archive's current state without signing."""
    if _is_hosted_player(Archive(root)) and Archive(root).info().party != HOST:
        return hosted.check_syntax(root, orders_path), None  # type: ignore[return-value]
    s = open_session(root, key_path=key_path)
    me = side or s.party
    if me == HOST:
        raise PbemError("the referee does not write orders")
    numbered = read_lines(orders_path)
    checked = check_orders(s.game, s.state, me, numbered, name=Path(orders_path).name)
    return checked, s


def submit_orders(root: str | Path, orders_path: str, *, key_path: str, out: str,
                  message: str = "") -> Outcome:
    """Check, sign and write the next file carrying this party's orders."""
    archive = Archive(root)
    info = archive.info()
    with archive:
        if info.party != HOST and _is_hosted_player(archive):
            return hosted.submit(archive, info, orders_path, key_path=key_path, out=out,
                                 message=message)
        s = open_session(root, key_path=key_path)
        if s.party == HOST:
            raise PbemError("the referee does not submit orders")
        if s.over:
            raise PbemError(f"{root}: the game is over")
        seq = s.ledger.tip_seq + 1
        if s.unresolved():
            raise PbemError(f"{root}: waiting for the opponent's reply to file "
                            f"{s.unresolved()[0]}; nothing to submit yet")
        expected = s.ledger.expected_senders(seq, s.pending_sides)
        if s.party not in expected:
            raise PbemError(f"{root}: file {seq} must come from {', '.join(sorted(expected))}")
        numbered = read_lines(orders_path)
        checked = check_orders(s.game, s.state, s.party, numbered, name=Path(orders_path).name)
        if not checked.ok:
            raise PbemError(checked.problems[0])
        f = make_turn(s, checked.lines, message)
        new_logs = s.add(f)
        archive.write_signed(f.name, f.text)
        result = Outcome(written=[_write_out(out, f.text)], reply=out)
        result.messages.append(f"File {seq} signed with {len(checked.lines)} orders: send "
                               f"{out} to your opponent.")
        if checked.after_dice:
            result.messages.append("Orders on lines " + ", ".join(map(str, checked.after_dice))
                                   + " come after dice: they are checked when the file is "
                                   "resolved and skipped if the dice made them illegal.")
        if new_logs:
            write_reports(s, s.party, new_logs, result)
        write_cache(s)
        return result


def open_session(root: str | Path, *, key_path: str | None = None) -> Session:
    """Load an archive, with this party's key when given (needed to resolve received files)."""
    key = keymod.load_private(key_path) if key_path else None
    return load(root, key=key, use_cache=True)


# -- status ----------------------------------------------------------------------------------
def status_lines(s: Session) -> list[str]:
    """Plain words: where the game stands and who must do what next."""
    lines = []
    if s.over:
        o = s.game.outcome(s.state)
        lines.append(f"The game is over: {o.winner + ' wins' if o.winner else 'a draw'} "  # type: ignore[union-attr]
                     f"({o.reason}).")  # type: ignore[union-attr]
        return lines
    waiting = waiting_for(s)
    for party, what in waiting:
        who = "You" if party == s.party else party
        lines.append(f"{who}: {what}")
    return lines


def waiting_for(s: Session) -> list[tuple[str, str]]:
    """(party, what it must do) for everyone the game is waiting for."""
    if s.over:
        return []
    if s.unresolved():
        seq = s.unresolved()[0]
        sender = s.ledger.turn(seq).sender
        others = [p for p in s.ledger.dice_parties(seq) if p != sender]
        return [(p, f"must receive file {seq} from {sender} and resolve it") for p in others]
    out = []
    for d in s.game.pending(s.state):
        out.append((d.side, f"{d.prompt} (write orders, then: pbem submit DIR ORDERS --key KEY "
                            "--out FILE)"))
    return out


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
