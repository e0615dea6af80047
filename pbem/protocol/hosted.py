"""Hosted mode, player side: the referee holds the full state and sends each player a signed
view file; players send orders files, check every die they may see, and take rejections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from pbem.core import keys as keymod
from pbem.core.errors import Equivocation, FileRejected, PbemError
from pbem.core.game import Decision, Event, Outcome, ReportModel, Roll
from pbem.core.records import Rejection, SignedFile, Turn, ViewFile, open_text, read_file, seal
from pbem.protocol.archive import Archive, ArchiveInfo, atomic_write
from pbem.protocol.genesis import HOST, Genesis
from pbem.protocol.ledger import due_renewals, own_reveals
from pbem.core.renewal import Commitments
from pbem.protocol.views import DiceChecker, ViewRoll


class PlayerState:
    """A hosted-mode player's archive: its genesis part, own files and the views received."""

    def __init__(self, archive: Archive, info: ArchiveInfo, game: Any, genesis: Genesis) -> None:
        self.archive, self.info, self.game, self.genesis = archive, info, game, genesis
        self.views: list[SignedFile] = []
        self.own_files: list[SignedFile] = []
        self.rejections: list[SignedFile] = []
        self.superseded: list[SignedFile] = []  # refused own files not yet moved (a crash)
        self.dice: DiceChecker | None = None

    @property
    def latest(self) -> ViewFile | None:
        """The newest view file received."""
        return self.views[-1].payload if self.views else None  # type: ignore[return-value]

    def own_by_seq(self) -> dict[int, SignedFile]:
        """This player's own (not rejected) files by sequence number."""
        return {f.payload.seq: f for f in self.own_files}  # type: ignore[union-attr]

    def own_commitments(self) -> Commitments:
        """This player's dice commitments: the genesis one and the renewals its own files made."""
        commit = Commitments(self.genesis.tips, self.genesis.lengths)
        for f in self.own_files:
            t: Turn = f.payload  # type: ignore[assignment]
            for sr in t.renewals or []:
                commit.add(sr.renewal)
        return commit

    def checker(self) -> DiceChecker:
        """The dice checker of this archive (knows this player's own files)."""
        if self.dice is None:
            self.dice = DiceChecker(self.genesis, self.info.party, self.own_by_seq())
        return self.dice


def load_player(archive: Archive, *, strict: bool = True,
                genesis_read: Any = None) -> PlayerState:
    """Load and verify a hosted player's archive (signatures, order, dice proofs, rejections);
    genesis_read: read_genesis(archive) when the caller has read it already."""
    from pbem.protocol.rejection import check_rejection, refused_file_name
    from pbem.protocol.session import read_genesis

    info = archive.info()
    game, genesis, rest = genesis_read or read_genesis(archive, strict=strict)
    ps = PlayerState(archive, info, game, genesis)
    for p in rest:
        f = read_file(p, strict=strict)
        t = f.payload
        if not isinstance(t, Turn) or t.sender != info.party or not f.signed_by(
                genesis.pubs[info.party]) or not genesis.complete or t.game_id != genesis.game_id:
            raise FileRejected(f"{p.name}: not a valid file of {info.party} in this game")
        if p.name != f"{t.seq:04d}-{t.sender}.pbem":
            raise FileRejected(f"{p.name}: holds file {t.seq} of {t.sender}, not the file its "
                               "name gives")
        ps.own_files.append(f)
    for p in archive.rejection_files():
        r = read_file(p, strict=strict)
        if not isinstance(r.payload, Rejection):
            raise FileRejected(f"{p.name}: not a rejection")
        kept = archive.rejected_dir / refused_file_name(r.payload)
        own = {f.hash: f for f in ps.own_files}
        rejected = (read_file(kept, strict=strict) if kept.exists() or r.payload.file not in own  # type: ignore[union-attr]
                    else own[r.payload.file])  # type: ignore[union-attr]
        check_rejection(genesis, r, rejected, info.party)
        ps.rejections.append(r)
    refused = {r.payload.file for r in ps.rejections}  # type: ignore[union-attr]
    ps.superseded = [f for f in ps.own_files if f.hash in refused]
    ps.own_files = [f for f in ps.own_files if f.hash not in refused]
    for p in archive.view_files():
        f = read_file(p, strict=strict)
        check_view(ps, f)
        ps.views.append(f)
    tips = {v.payload.seq: v.payload.tip for v in ps.views}  # type: ignore[union-attr]
    for f in ps.own_files:
        t: Turn = f.payload  # type: ignore[assignment]
        if t.seq - 1 in tips and t.prev != tips[t.seq - 1]:
            raise FileRejected(f"{f.name}: does not answer the view of file {t.seq - 1}")
    return ps


def check_view(ps: PlayerState, f: SignedFile) -> ViewFile:
    """Verify a view file: signature, game, side, order, and every visible die it reports.

    A second, different view of a file already viewed is the referee's equivocation: both
    signed files are the proof (the new one is kept under evidence/).
    """
    v, name, g = f.payload, f.name, ps.genesis
    if not isinstance(v, ViewFile):
        raise FileRejected(f"{name}: not a view file")
    if not f.signed_by(g.pubs[HOST]):
        raise FileRejected(f"{name}: bad signature (not signed by the referee's key)")
    if g.complete and v.game_id != g.game_id:
        raise FileRejected(f"{name}: belongs to another game ({v.game_id}, this archive is "
                           f"{g.game_id})")
    for text in v.genesis:
        acc = open_text(text, name=name)
        if getattr(acc.payload, "proposal", g.proposal.hash) != g.proposal.hash:
            raise FileRejected(f"{name}: belongs to another game (its acceptances answer "
                               "another proposal)")
        party = getattr(acc.payload, "party", None)
        known = g.acceptances.get(party) if party else None
        if known is None:
            g.add_acceptance(acc)
        elif known.payload_bytes != acc.payload_bytes:
            raise FileRejected(f"{name}: carries a different acceptance of {party}")
    if not g.complete:
        raise FileRejected(f"{name}: does not carry every acceptance of the game")
    if v.game_id != g.game_id:
        raise FileRejected(f"{name}: belongs to another game ({v.game_id})")
    if v.seq == 0 and v.tip != g.hash:
        raise FileRejected(f"{name}: the genesis hash it names is not the genesis")
    if v.side != ps.info.party:
        raise FileRejected(f"{name}: is {v.side}'s view, not {ps.info.party}'s")
    for old in ps.views:
        o: ViewFile = old.payload  # type: ignore[assignment]
        if o.seq == v.seq and old.payload_bytes != f.payload_bytes:
            raise Equivocation(f"{name}: equivocation: the referee signed two different views "
                               f"of file {v.seq} for {v.side} (this file and {old.name})")
    last = ps.latest
    if last is not None and v.seq <= last.seq:
        raise FileRejected(f"{name}: stale: view of file {v.seq} is not newer than the one "
                           f"already received ({last.seq})")
    if v.view_seq != v.seq:
        raise FileRejected(f"{name}: malformed view sequence")
    ps.checker().check(v, name, after=last.seq if last is not None else -1)
    return v


def receive_view(archive: Archive, info: ArchiveInfo, f: SignedFile, key: Any,
                 genesis_read: Any = None) -> Any:
    """A player stores a verified view file and writes its reports (genesis_read: the
    archive's genesis, read_genesis, when the caller has read it)."""
    from pbem.protocol.ops import Outcome as OpOutcome

    ps = load_player(archive, genesis_read=genesis_read)
    if keymod.public_raw(key.public_key()) != ps.genesis.pubs[info.party]:
        raise PbemError(f"{archive.root}: this key is not {info.party}'s key in this game")
    if ps.views and ps.views[-1].text == f.text:
        # The latest view delivered again: rewrite its reports if an interrupted run left them
        # unwritten; otherwise it is the ordinary 'stale' error below.
        again = OpOutcome(messages=[f"{f.name}: this view is already in the archive (an earlier "
                                    "run was interrupted, or this is a second delivery); its "
                                    "reports are written again."])
        ps.views[-1] = f                  # the reports name the file as received
        if write_player_reports(ps, again, only_changed=True):
            again.messages.extend(player_status_lines(ps))
            return again
    stored = set(ps.genesis.acceptances)
    try:
        v = check_view(ps, f)
    except Equivocation:
        atomic_write(archive.root / "evidence" / f"view-{f.hash[:16]}.pbem", f.text)
        raise
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
    sent = ps.own_by_seq().get(v.seq + 1)
    if sent is not None:
        return [f"You sent file {v.seq + 1}; waiting for the referee's next view (if it never "
                f"reached the referee, send {ps.archive.files_dir / sent.name} again, or run "
                "the same pbem submit again to rewrite it)."]
    out = []
    for rf in ps.rejections:
        r = rf.payload
        if r.seq == v.seq + 1:  # type: ignore[union-attr]
            rule = f" [{r.rule}]" if r.rule else ""  # type: ignore[union-attr]
            out.append(f"The referee refused your file {r.seq}: order {r.order}: "  # type: ignore[union-attr]
                       f"{r.reason}{rule}. Correct it and submit file {r.seq} again.")  # type: ignore[union-attr]
    for d in _decisions(v):
        who = "You" if d.side == ps.info.party else d.side
        out.append(f"{who}: {d.prompt}")
    return out


def player_status_json(ps: PlayerState) -> dict[str, Any]:
    """Machine-readable status of a hosted player's archive."""
    v = ps.latest
    o = msgspec.convert(v.outcome, type=Outcome) if v and v.outcome else None
    decisions = _decisions(v) if v else []
    if v is not None and ps.own_by_seq().get(v.seq + 1) is not None:
        # This player answered its latest view: it owes nothing until the next view.
        decisions = [d for d in decisions if d.side != ps.info.party]
    pend = sorted({d.side for d in decisions}) if v and not o else []
    report = msgspec.convert(v.report, type=ReportModel) if v else None
    return {"game_id": ps.genesis.game_id if ps.genesis.complete else None,
            "game": ps.game.id, "scenario": ps.genesis.p.scenario, "mode": "hosted",
            "party": ps.info.party, "seq": v.seq if v else 0,
            "turn": report.turn if report else 0, "over": o is not None,
            "winner": o.winner if o else None, "result": o.reason if o else None,
            "pending": pend, "decisions": [{"side": d.side, "what": d.prompt}
                                           for d in decisions]}


def submit(archive: Archive, info: ArchiveInfo, orders_path: str, *, key_path: str, out: str,
           message: str = "") -> Any:
    """A hosted player checks orders against its view, signs them chained to the latest view."""
    from pbem.protocol.ops import Outcome as OpOutcome
    from pbem.protocol.ops import _write_out, refuse_other_out, same_orders
    from pbem.protocol.session import own_onion

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
    mine = ps.own_by_seq().get(seq)
    again = mine is not None and same_orders(ps.game, party, orders_path, message, mine)
    # before anything is stored: never over another file (the same one again may be)
    refuse_other_out(out, mine.text if again and mine is not None else None,
                     kept={f.hash for f in (*ps.own_files, *ps.views)})
    if again and mine is not None:
        # Signed and stored by an earlier run that was interrupted (or ran twice): the same
        # file again, never a second file with this sequence number.
        _write_out(out, mine.text)
        return OpOutcome(messages=[f"File {seq} with these orders is already signed and stored "
                                   "(an earlier run was interrupted, or this is a second run): "
                                   f"written again to {out}; send it to the referee."],
                         written=[out], reply=out)
    why_not = not_now(ps)
    if why_not:
        raise PbemError(why_not)
    checked = check_against_view(ps, orders_path)
    if checked.blocking:
        raise PbemError("; ".join(checked.blocking))
    own = own_onion(archive, ps.genesis, party, key)
    commit = ps.own_commitments()
    reveal, _ = own_reveals(commit, own, party, [], seq)
    renewals = due_renewals(commit, own, key, game_id=ps.genesis.game_id, party=party,
                            classes=[], seq=seq)
    t = Turn(game_id=ps.genesis.game_id, seq=seq, prev=v.tip, sender=party, reveal=reveal,
             orders=checked.lines, message=message, renewals=renewals or msgspec.UNSET)
    f = seal(t, key, name=f"{seq:04d}-{party}.pbem")
    for old in ps.superseded:
        (archive.files_dir / old.name).unlink(missing_ok=True)
    archive.write_signed(f.name, f.text)
    _write_out(out, f.text)
    n = len(checked.lines)
    return OpOutcome(messages=[f"File {seq} signed with {n} order{'s' if n != 1 else ''}: send {out} "
                               "to the referee.", *checked.notes],
                     written=[out], reply=out)


def not_now(ps: PlayerState) -> str:
    """Why this player may not send its next file now (empty if it may), once it holds a view
    of a game not over: the same answer for check and submit."""
    v, party, root = ps.latest, ps.info.party, ps.archive.root
    if v is None or v.outcome is not None:
        return ""
    seq = v.seq + 1
    if seq in ps.own_by_seq():
        return f"{root}: file {seq} was already sent; wait for the referee"
    deciding = {d.side for d in _decisions(v)}
    if party in deciding:
        return ""
    return (f"{root}: {party} has no decision to make now: the latest view received, of file "
            f"{v.seq}, waits for {', '.join(sorted(deciding)) or 'nobody'} (when the referee's "
            f"next view arrives: pbem receive {root} VIEW)")


def check_against_view(ps: PlayerState, orders_path: str) -> Any:
    """Check orders with the real rules against a stand-in state built from this player's view.

    Everything the view shows is checked as the referee will; what depends on hidden enemy
    facts or on dice is checked only by the referee, and the notes say so.
    """
    from pbem.protocol.checking import Checked, check_orders
    from pbem.protocol.orders_file import read_lines

    numbered = read_lines(orders_path)
    name = Path(orders_path).name
    v = ps.latest
    standin = getattr(ps.game, "standin", None)
    if v is None or standin is None:
        out = check_orders(ps.game, None, ps.info.party, numbered, name=name, syntax_only=True)
        out.notes.append("Only the notation was checked: this game cannot rebuild a position "
                         "from a view; the referee checks every rule.")
        return out
    state = standin(v.state, ps.info.party)
    out: Checked = check_orders(ps.game, state, ps.info.party, numbered, name=name)
    out.notes.append("Checked against your view with the full rules; only the referee can "
                     "check what depends on hidden enemy units and on the dice.")
    why_not = not_now(ps)
    if why_not:
        # as check_file in peer mode: "the game waits" is moot when this file's turn has not come
        moot = set(out.moot_if_not_now)
        out.problems = [m for m in out.problems if m not in moot]
        out.blocking = [m for m in out.blocking if m not in moot]
        out.problems.append(why_not)
    return out


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


def write_player_reports(ps: PlayerState, result: Any, *, only_changed: bool = False) -> bool:
    """Write the reports of the newest view file (only_changed: leave identical files alone);
    True if any file was written."""
    from pbem.protocol.reporting import write_report_files

    f = ps.views[-1]
    v: ViewFile = f.payload  # type: ignore[assignment]
    return write_report_files(ps.archive.reports_dir / ps.info.party,
                              player_report_context(ps, v, f),
                              ps.game.game_map(ps.genesis.p.scenario), v.seq,
                              f"{ps.game.title}: reports of {ps.info.party}", result,
                              only_changed=only_changed)


def check_syntax(root: Any, orders_path: str) -> Any:
    """A hosted player's check: the real rules against its view (see check_against_view)."""
    return check_against_view(load_player(Archive(root)), orders_path)
