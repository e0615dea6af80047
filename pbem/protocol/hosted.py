"""Hosted mode, player side and referee views: the referee holds the full state and sends each
player a signed view file; players send orders files and check every die they may see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from pbem.core import keys as keymod
from pbem.core.dice import derive_roll, file_key
from pbem.core.errors import FileRejected, PbemError
from pbem.core.game import ALL, Decision, Event, Outcome, ReportModel, Roll
from pbem.core.onion import DEFAULT_LENGTH, Onion, proves, seed_from_key
from pbem.core.records import DiceProof, SignedFile, Turn, ViewFile, open_text, read_file, seal
from pbem.protocol.archive import Archive, ArchiveInfo, atomic_write
from pbem.protocol.genesis import HOST, Genesis
from pbem.protocol.reporting import visible


class ViewRoll(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A roll as sent to a player: with the file it belongs to."""

    seq: int
    action: int
    index: int
    sides: int
    value: int
    purpose: str
    visible_to: str = ALL


def make_view(s: Any, side: str, logs: list[Any]) -> SignedFile:
    """The referee's signed view file of the current state for one side."""
    g = s.game
    rolls = [ViewRoll(seq=log.seq, action=r.action, index=r.index, sides=r.sides, value=r.value,
                      purpose=r.purpose, visible_to=r.visible_to)
             for log in logs for r in visible(log.rolls, side)]
    proofs = [DiceProof(seq=log.seq, file_hash=log.file_hash, shares=s.shares_of(log.seq))
              for log in logs if visible(log.rolls, side)]
    o = g.outcome(s.state)
    v = ViewFile(game_id=s.genesis.game_id, side=side, seq=s.ledger.tip_seq,
                 tip=s.ledger.tip_hash, view_seq=s.ledger.tip_seq,
                 state=msgspec.to_builtins(g.view(s.state, side)),
                 report=msgspec.to_builtins(g.report(s.state, side)),
                 pending=msgspec.to_builtins(list(g.pending(s.state))),
                 outcome=msgspec.to_builtins(o) if o else None,
                 events=msgspec.to_builtins([e for log in logs for e in visible(log.events, side)]),
                 rolls=msgspec.to_builtins(rolls), proofs=proofs,
                 genesis=[s.genesis.acceptances[p].text for p in s.genesis.acceptors()])
    return seal(v, s.key, name=f"view-{side}-{s.ledger.tip_seq:04d}.pbem")


class PlayerState:
    """A hosted-mode player's archive: its genesis part, own files and the views received."""

    def __init__(self, archive: Archive, info: ArchiveInfo, game: Any, genesis: Genesis) -> None:
        self.archive, self.info, self.game, self.genesis = archive, info, game, genesis
        self.views: list[SignedFile] = []
        self.own_files: list[SignedFile] = []

    @property
    def latest(self) -> ViewFile | None:
        """The newest view file received."""
        return self.views[-1].payload if self.views else None  # type: ignore[return-value]


def load_player(archive: Archive, *, strict: bool = True) -> PlayerState:
    """Load and verify a hosted player's archive (signatures, order, dice proofs)."""
    from pbem.protocol.session import read_genesis

    info = archive.info()
    game, genesis, rest = read_genesis(archive, strict=strict)
    ps = PlayerState(archive, info, game, genesis)
    for p in archive.view_files():
        f = read_file(p, strict=strict)
        check_view(ps, f)
        ps.views.append(f)
    for p in rest:
        f = read_file(p, strict=strict)
        t = f.payload
        if not isinstance(t, Turn) or t.sender != info.party or not f.signed_by(
                genesis.pubs[info.party]) or t.game_id != genesis.game_id:
            raise FileRejected(f"{p.name}: not a valid file of {info.party} in this game")
        ps.own_files.append(f)
    return ps


def check_view(ps: PlayerState, f: SignedFile) -> ViewFile:
    """Verify a view file: signature, game, side, order, and every visible die it reports."""
    v, name, g = f.payload, f.name, ps.genesis
    if not isinstance(v, ViewFile):
        raise FileRejected(f"{name}: not a view file")
    if v.game_id != g.game_id:
        raise FileRejected(f"{name}: belongs to another game ({v.game_id})")
    if not f.signed_by(g.pubs[HOST]):
        raise FileRejected(f"{name}: bad signature (not signed by the referee's key)")
    for text in v.genesis:
        acc = open_text(text, name=name)
        party = getattr(acc.payload, "party", None)
        known = g.acceptances.get(party) if party else None
        if known is None:
            g.add_acceptance(acc)
        elif known.payload_bytes != acc.payload_bytes:
            raise FileRejected(f"{name}: carries a different acceptance of {party}")
    if not g.complete:
        raise FileRejected(f"{name}: does not carry every acceptance of the game")
    if v.seq == 0 and v.tip != g.hash:
        raise FileRejected(f"{name}: the genesis hash it names is not the genesis")
    if v.side != ps.info.party:
        raise FileRejected(f"{name}: is {v.side}'s view, not {ps.info.party}'s")
    last = ps.latest
    if last is not None and v.seq <= last.seq:
        raise FileRejected(f"{name}: stale: view of file {v.seq} is not newer than the one "
                           f"already received ({last.seq})")
    if v.view_seq != v.seq:
        raise FileRejected(f"{name}: malformed view sequence")
    if (f.hash, g.hash) not in _DICE_CHECKED:
        _check_view_dice(ps, v, name)
        _DICE_CHECKED.add((f.hash, g.hash))
    return v


_DICE_CHECKED: set[tuple[str, str]] = set()  # (view, genesis) pairs whose dice were checked


def _check_view_dice(ps: PlayerState, v: ViewFile, name: str) -> None:
    """Recompute every die the view reports from the commitments; FileRejected if one differs."""
    g = ps.genesis
    proofs = {p.seq: p for p in v.proofs}
    try:
        rolls = msgspec.convert(v.rolls, type=list[ViewRoll])
    except msgspec.ValidationError as e:
        raise FileRejected(f"{name}: malformed rolls ({e})") from None
    for r in rolls:
        proof = proofs.get(r.seq)
        if proof is None or HOST not in proof.shares:
            raise FileRejected(f"{name}: no dice proof for file {r.seq}")
        host_share = bytes.fromhex(proof.shares[HOST])
        if not proves(g.game_id, HOST, r.seq, host_share, 0, g.tips[HOST]):
            raise FileRejected(f"{name}: the referee's dice share for file {r.seq} does not "
                               "match its commitment")
        for party, share in proof.shares.items():
            if party == HOST:
                continue
            if party not in g.tips or not proves(g.game_id, party, r.seq, bytes.fromhex(share),
                                                 0, g.tips[party]):
                raise FileRejected(f"{name}: {party}'s dice share for file {r.seq} does not "
                                   "match its commitment")
        key = file_key(g.game_id, [bytes.fromhex(proof.shares[p]) for p in sorted(proof.shares)],
                       bytes.fromhex(proof.file_hash), r.seq)
        if derive_roll(key, r.action, r.index, r.sides) != r.value:
            raise FileRejected(f"{name}: die {r.seq}.{r.action}.{r.index} ({r.purpose}) is "
                               "not what the dice commitments give")


def receive_view(archive: Archive, info: ArchiveInfo, f: SignedFile, key: Any) -> Any:
    """A player stores a verified view file and writes its reports."""
    from pbem.protocol.ops import Outcome as OpOutcome

    ps = load_player(archive)
    if keymod.public_raw(key.public_key()) != ps.genesis.pubs[info.party]:
        raise PbemError(f"{archive.root}: this key is not {info.party}'s key in this game")
    stored = set(ps.genesis.acceptances)
    v = check_view(ps, f)
    for party, acc in sorted(ps.genesis.acceptances.items()):
        if party not in stored:
            archive.write_signed(f"0000-accept-{party}.pbem", acc.text)
    archive.write_signed(f"view-{v.seq:04d}.pbem", f.text)
    ps.views.append(f)
    result = OpOutcome(messages=[f"View of file {v.seq} from the referee verified "
                                 f"({len(v.rolls)} dice checked against the commitments)."])
    write_player_reports(ps, result)
    result.messages.extend(player_status_lines(ps))
    return result


def _decisions(v: ViewFile) -> list[Decision]:
    return msgspec.convert(v.pending, type=list[Decision])


def player_status_lines(ps: PlayerState) -> list[str]:
    """Plain words: what this player must do next."""
    v = ps.latest
    if v is None:
        return ["Waiting for the referee's first view file."]
    if v.outcome is not None:
        o = msgspec.convert(v.outcome, type=Outcome)
        return [f"The game is over: {o.winner + ' wins' if o.winner else 'a draw'} ({o.reason})."]
    if any(t.payload.seq == v.seq + 1 for t in ps.own_files):  # type: ignore[union-attr]
        return [f"You sent file {v.seq + 1}; waiting for the referee's next view."]
    out = []
    for d in _decisions(v):
        who = "You" if d.side == ps.info.party else d.side
        out.append(f"{who}: {d.prompt}")
    return out


def player_status_json(ps: PlayerState) -> dict[str, Any]:
    """Machine-readable status of a hosted player's archive."""
    v = ps.latest
    o = msgspec.convert(v.outcome, type=Outcome) if v and v.outcome else None
    pend = sorted({d.side for d in _decisions(v)}) if v and not o else []
    report = msgspec.convert(v.report, type=ReportModel) if v else None
    return {"game_id": ps.genesis.game_id, "game": ps.game.id, "mode": "hosted",
            "party": ps.info.party, "seq": v.seq if v else 0,
            "turn": report.turn if report else 0, "over": o is not None,
            "winner": o.winner if o else None, "result": o.reason if o else None,
            "pending": pend, "decisions": [{"side": d.side, "what": d.prompt}
                                           for d in (_decisions(v) if v else [])]}


def submit(archive: Archive, info: ArchiveInfo, orders_path: str, *, key_path: str, out: str,
           message: str = "") -> Any:
    """A hosted player signs orders chained to the latest view; the referee checks legality."""
    from pbem.protocol.ops import Outcome as OpOutcome
    from pbem.protocol.orders_file import read_lines
    from pbem.core.errors import OrderSyntaxError

    ps = load_player(archive)
    key = keymod.load_private(key_path)
    party = info.party
    if keymod.public_raw(key.public_key()) != ps.genesis.pubs[party]:
        raise PbemError(f"{archive.root}: this key is not {party}'s key in this game")
    v = ps.latest
    if v is None:
        raise PbemError(f"{archive.root}: no view from the referee yet")
    if v.outcome is not None:
        raise PbemError(f"{archive.root}: the game is over")
    seq = v.seq + 1
    if any(t.payload.seq == seq for t in ps.own_files):  # type: ignore[union-attr]
        raise PbemError(f"{archive.root}: file {seq} was already sent; wait for the referee")
    if party not in {d.side for d in _decisions(v)}:
        raise PbemError(f"{archive.root}: {party} has no decision to make now")
    lines = []
    for n, line in read_lines(orders_path):
        try:
            lines.append(ps.game.format_order(ps.game.parse_order(line)))
        except OrderSyntaxError as e:
            raise PbemError(f"{Path(orders_path).name}: line {n}: {line!r}: {e.reason}") from None
    onion = Onion(seed_from_key(keymod.private_raw(key), ps.genesis.game_id, party),
                  ps.genesis.game_id, party, ps.genesis.lengths.get(party, DEFAULT_LENGTH))
    t = Turn(game_id=ps.genesis.game_id, seq=seq, prev=v.tip, sender=party,
             reveal=onion.element(seq).hex(), orders=lines, message=message)
    f = seal(t, key, name=f"{seq:04d}-{party}.pbem")
    archive.write_signed(f.name, f.text)
    atomic_write(Path(out), f.text)
    return OpOutcome(messages=[f"File {seq} signed with {len(lines)} orders: send {out} to "
                               "the referee (it checks every order against the full state)."],
                     written=[out], reply=out)


def player_report_context(ps: PlayerState, v: ViewFile, f: SignedFile):
    """The ReportContext of a view file."""
    from pbem.reports.context import ReportContext

    rolls = [Roll(action=r.action, index=r.index, sides=r.sides, value=r.value,
                  purpose=f"file {r.seq}: {r.purpose}", visible_to=r.visible_to)
             for r in msgspec.convert(v.rolls, type=list[ViewRoll])]
    pending = _decisions(v)
    o = msgspec.convert(v.outcome, type=Outcome) if v.outcome else None
    root = str(ps.archive.root)
    answer = ([f"pbem submit {root} orders.txt --key YOUR.key --out reply.pbem"]
              if ps.info.party in {d.side for d in pending} and o is None else [])
    return ReportContext(model=msgspec.convert(v.report, type=ReportModel), pending=pending,
                         answer=answer, events=msgspec.convert(v.events, type=list[Event]),
                         rolls=rolls, game_id=v.game_id, seq=v.seq, file_name=f.name,
                         file_hash=f.hash,
                         fingerprints={p: keymod.fingerprint(k)
                                       for p, k in sorted(ps.genesis.pubs.items())},
                         outcome=o, mode="hosted")


def write_player_reports(ps: PlayerState, result: Any) -> None:
    """Write the reports of the newest view file."""
    from pbem.protocol.reporting import write_report_files

    f = ps.views[-1]
    v: ViewFile = f.payload  # type: ignore[assignment]
    write_report_files(ps.archive.reports_dir / ps.info.party, player_report_context(ps, v, f),
                       ps.game.game_map(ps.genesis.p.scenario), v.seq,
                       f"{ps.game.title}: reports of {ps.info.party}", result)


def check_syntax(root: Any, orders_path: str) -> Any:
    """A hosted player's check: the notation only (the referee checks legality on receipt)."""
    from pbem.core.errors import OrderSyntaxError
    from pbem.protocol.orders_file import Checked, read_lines

    ps = load_player(Archive(root))
    out = Checked()
    for n, line in read_lines(orders_path):
        try:
            out.lines.append(ps.game.format_order(ps.game.parse_order(line)))
        except OrderSyntaxError as e:
            out.problems.append(f"{Path(orders_path).name}: line {n}: {line!r}: {e.reason}"
                                + (f" [{e.rule}]" if e.rule else ""))
    return out
