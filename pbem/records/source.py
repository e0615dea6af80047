"""A verified game, from a record file or an archive folder, as steps: one per signed file.

`load_verified` audits the archive exactly as `pbem verify` does (`verify_archive`), then
loads it: a peer's or a referee's archive as a replayed session (every state), a hosted
player's archive as the views the referee sent. `Verified.frames(view)` gives what one viewer
sees at every step: a side's view (`view` = the side), or both sides in full (`view` =
`full`), which is allowed only once the game is over and the archive holds the full state
(a peer's or the referee's archive). Every replay page, log and statistic is built from
these frames, so nothing shows more than its viewer may see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import msgspec

from pbem.core.errors import FileRejected, PbemError
from pbem.core.game import (ALL, Decision, Event, MapArrow, MapMarker, MapUnit, Outcome, Panel,
                            decisions_for)
from pbem.core.game import ReportModel
from pbem.core.keys import fingerprint
from pbem.core.records import ViewFile
from pbem.protocol.audit import unresolved_note
from pbem.protocol.genesis import HOST, Genesis
from pbem.protocol.sealing import missing_final_reveals
from pbem.protocol.views import ViewRoll

FULL = "full"
Roll = ViewRoll   # one die of a step, with the file that rolled it


@dataclass
class Frame:
    """What one viewer sees at one step: the file, the position after it, what happened."""

    index: int                 # step number, from 0 (the genesis)
    seq: int                   # sequence number of the file (0: the genesis)
    sender: str                # the file's sender ("" for the genesis)
    file_name: str
    file_hash: str
    turn: int
    turn_label: str
    phase: str
    orders: list[str] | None   # None: hidden from this viewer (the other side's orders)
    order_count: int
    message: str
    skipped: list[int]
    events: list[Event]
    rolls: list[Roll]
    units: list[MapUnit]
    markers: list[MapMarker]
    arrows: list[MapArrow]
    panels: list[tuple[str, Panel]]     # (side the panel belongs to, panel)
    pending: list[Decision]
    outcome: Outcome | None
    notes: list[str] = field(default_factory=list)
    resolved: bool = True
    kind: str = "file"         # genesis | file (a signed turn file) | view (a referee's view)

    @property
    def title(self) -> str:
        """What this step is, in a few words."""
        if self.kind == "view":
            return f"The referee's view after file {self.seq}" if self.seq else "The first view"
        return f"File {self.seq} from {self.sender}" if self.seq else "Start of the game"


@dataclass
class Verified:
    """A game whose archive verified: what the records, logs, pages and statistics need."""

    root: Path
    party: str
    genesis: Genesis
    audit: Any
    session: Any = None        # a peer's or the referee's archive: the replayed session
    player: Any = None         # a hosted player's archive: pbem.protocol.hosted.PlayerState
    record_name: str = ""

    @property
    def game(self) -> Any:
        return self.genesis.game

    @property
    def mode(self) -> str:
        return self.genesis.mode

    @property
    def full_state(self) -> bool:
        """True if the archive holds the full state (a peer's or the referee's)."""
        return self.session is not None

    @property
    def outcome(self) -> Outcome | None:
        if self.session is not None:
            return self.game.outcome(self.session.state)
        v = self.player.latest if self.player is not None else None
        return msgspec.convert(v.outcome, type=Outcome) if v is not None and v.outcome else None

    @property
    def over(self) -> bool:
        return self.outcome is not None

    @property
    def files(self) -> int:
        """The number of turn files in the chain (or, for a hosted player, the last view's)."""
        if self.session is not None:
            return self.session.ledger.tip_seq
        v = self.player.latest if self.player is not None else None
        return v.seq if v is not None else 0

    @property
    def turn(self) -> int:
        """The game turn reached."""
        if self.session is not None:
            return self.game.turn(self.session.state)
        v = self.player.latest if self.player is not None else None
        return msgspec.convert(v.report, type=ReportModel).turn if v is not None else 0

    @property
    def result(self) -> str:
        """The result in one line, as a record's header states it."""
        if not self.genesis.complete:
            return "not started: the genesis is not complete"
        o = self.outcome
        if o is not None:
            board = f"{o.winner + ' wins' if o.winner else 'draw'} ({o.reason})"
            missing = self.unrevealed()
            if missing:
                return (f"{board} on the board, not final: the final reveal of "
                        f"{' and '.join(missing)} is missing")
            return board
        what = "turn files" if self.session is not None else "files viewed"
        return f"not over: {self.files} {what}, game turn {self.turn}"

    def unrevealed(self) -> list[str]:
        """The sides of a sealed game whose final reveal is not in this archive."""
        return [] if self.session is None else missing_final_reveals(self.session)

    def fingerprints(self) -> dict[str, str]:
        return {p: fingerprint(k) for p, k in sorted(self.genesis.pubs.items())}

    def names(self) -> dict[str, str]:
        """Party -> the display name the proposal gives (untrusted text)."""
        return {k.party: k.name for k in self.genesis.p.parties}

    # -- who may see what ------------------------------------------------------------------
    def views(self) -> list[str]:
        """The viewers a replay may show: both sides in full once the game is over (from
        the full state), else one side only (the archive's own side; a referee's archive
        in progress shows whichever side is asked for)."""
        sides = list(self.game.sides)
        if self.player is not None:
            return [self.party]
        if self.over and not self.unrevealed():
            return [FULL, *sides]
        return [self.party] if self.party in sides else sides

    def check_view(self, view: str) -> None:
        """PbemError unless this viewer may be shown."""
        if not self.genesis.complete:
            raise PbemError(f"{self.record_name or self.root}: the game has not started (the "
                            "genesis is not complete): there is nothing to show")
        if view in self.views():
            return
        if view == FULL or view in self.game.sides:
            missing = self.unrevealed() if self.over else []
            why = ("the game is not over" if not self.over
                   else f"the final reveal of {' and '.join(missing)} is missing" if missing
                   else f"a hosted player's archive holds only {self.party}'s view")
            raise PbemError(f"{self.record_name or self.root}: cannot show {view}: {why}; "
                            f"it may show {', '.join(self.views())}")
        raise PbemError(f"unknown view {view!r} (choose from {', '.join(self.views())})")

    def default_views(self) -> list[str]:
        """What a replay or a log shows when not told: every allowed viewer (both sides in
        full first), unless a referee's game in progress (one side must be chosen)."""
        v = self.views()
        if self.session is not None and not self.over and self.party == HOST:
            raise PbemError(f"{self.record_name or self.root}: the game is not over: a "
                            f"referee's record shows one side's view only: choose it with "
                            f"--view ({' or '.join(v)})")
        return v

    # -- frames ----------------------------------------------------------------------------
    def frames(self, view: str) -> Iterator[Frame]:
        """Every step as this viewer sees it (check_view first)."""
        self.check_view(view)
        if self.session is not None:
            yield from _session_frames(self, view)
        else:
            yield from _player_frames(self, view)


def _visible(items: list[Any], view: str) -> list[Any]:
    return list(items) if view == FULL else [x for x in items if x.visible_to in (ALL, view)]


def _model_parts(game: Any, state: Any, view: str) -> tuple[ReportModel, list[MapUnit],
                                                             list[MapMarker], list[MapArrow],
                                                             list[tuple[str, Panel]]]:
    """The map and panels of one viewer: a side's report model, or both sides' own units,
    markers, arrows and panels (the full view)."""
    if view != FULL:
        m = game.report(state, view)
        return m, list(m.units), list(m.markers), list(m.arrows), [(view, p) for p in m.panels]
    models = [game.report(state, side) for side in game.sides]
    units = [u for m in models for u in m.units if u.side == m.side]
    markers: list[MapMarker] = []
    arrows: list[MapArrow] = []
    for m in models:
        markers.extend(x for x in m.markers if x not in markers)
        arrows.extend(x for x in m.arrows if x not in arrows)
    panels = [(m.side, p) for m in models for p in m.panels]
    return models[0], units, markers, arrows, panels


def _real_orders(s: Any, seq: int, sender: str) -> list[str] | None:
    """Sealed: the real orders of a file (its payload holds what the other side saw), from its
    sender's final reveal, or from this archive's private part for its own files; None if
    neither holds them. Shown only to a view that may see the sender's orders."""
    fin = s.facts.finals.get(sender)
    if fin is not None:
        return fin.orders.get(str(seq))
    if sender == s.party:
        return getattr(s, "private", {}).get(seq)
    return None


def _lower(text: str) -> str:
    """A note starting in lower case (frame notes do)."""
    return text[:1].lower() + text[1:]


def _session_frames(v: Verified, view: str) -> Iterator[Frame]:
    s, game = v.session, v.game
    logs = {log.seq: log for log in s.log}
    for seq in range(0, s.ledger.tip_seq + 1):
        resolved = seq <= s.resolved
        state = s.states.get(seq) if resolved else s.state
        if state is None:           # a state cache stood in for early files (not in audits)
            continue
        model, units, markers, arrows, panels = _model_parts(game, state, view)
        if seq == 0:
            f_name, f_hash, sender, t = "genesis", s.genesis.hash, "", None
        else:
            f = s.ledger.files[seq - 1]
            f_name, f_hash, t = f.name, f.hash, f.payload
            sender = t.sender
        log = logs.get(seq)
        orders = list(t.orders) if t is not None else []
        shown = orders if view in (FULL, sender) else (None if orders else [])
        if shown and s.facts is not None:
            shown = _real_orders(s, seq, sender) or shown
        notes = [] if resolved else [_lower(unresolved_note(s, seq))]
        yield Frame(index=seq, seq=seq, sender=sender, file_name=f_name, file_hash=f_hash,
                    turn=model.turn, turn_label=model.turn_label, phase=model.phase,
                    orders=shown, order_count=len(orders),
                    message=t.message if t is not None else "",
                    skipped=list(log.skipped) if log else [],
                    events=_visible(log.events, view) if log else [],
                    rolls=[Roll(seq=seq, action=r.action, index=r.index, sides=r.sides,
                                value=r.value, purpose=r.purpose, visible_to=r.visible_to)
                           for r in _visible(log.rolls, view)] if log else [],
                    units=units, markers=markers, arrows=arrows, panels=panels,
                    pending=decisions_for(game.pending(state), view),
                    outcome=game.outcome(state),
                    notes=notes, resolved=resolved, kind="file" if seq else "genesis")


def _player_frames(v: Verified, view: str) -> Iterator[Frame]:
    ps = v.player
    own = sorted(ps.own_files, key=lambda f: f.payload.seq)
    rejections = sorted(ps.rejections, key=lambda f: f.payload.seq)
    prev = -1
    for i, f in enumerate(ps.views):
        vf: ViewFile = f.payload  # type: ignore[assignment]
        model = msgspec.convert(vf.report, type=ReportModel)
        mine = [o for o in own if prev < o.payload.seq <= vf.seq]
        orders = [line for o in mine for line in o.payload.orders]
        notes = [f"your file {o.payload.seq} ({len(o.payload.orders)} order"
                 f"{'s' if len(o.payload.orders) != 1 else ''})" for o in mine]
        notes += [f"the referee refused your file {r.payload.seq}: order {r.payload.order}: "
                  f"{r.payload.reason}" for r in rejections if prev < r.payload.seq <= vf.seq]
        rolls = [Roll(**r) for r in vf.rolls]  # type: ignore[arg-type]
        yield Frame(index=i, seq=vf.seq, sender=HOST if vf.seq else "", file_name=f.name,
                    file_hash=f.hash, turn=model.turn, turn_label=model.turn_label,
                    phase=model.phase, orders=orders, order_count=len(orders),
                    message="; ".join(o.payload.message for o in mine if o.payload.message),
                    skipped=[], events=msgspec.convert(vf.events, type=list[Event]),
                    rolls=rolls, units=list(model.units), markers=list(model.markers),
                    arrows=list(model.arrows), panels=[(view, p) for p in model.panels],
                    pending=msgspec.convert(vf.pending, type=list[Decision]),
                    outcome=msgspec.convert(vf.outcome, type=Outcome) if vf.outcome else None,
                    notes=notes, kind="view")
        prev = vf.seq


# -- loading ---------------------------------------------------------------------------------
def audit_folder(root: str | Path, extra: list[str] | None = None,
                 keep: list[Any] | None = None) -> Any:
    """`pbem verify`'s audit of an archive folder. keep, if given, receives the session the
    audit replayed, so that loading the game afterwards does not replay it a second time."""
    from pbem.protocol.audit import verify_archive
    from pbem.protocol.session import Session

    audit = verify_archive(root, extra)
    if keep is not None and isinstance(audit.loaded, Session):
        keep.append(audit.loaded)
    return audit


def load_verified(root: str | Path, *, record: Any = None, audit: Any = None,
                  replayed: list[Any] | None = None) -> Verified:
    """Audit an archive folder and load it; FileRejected naming the first problem if it does
    not verify. With record (the archive was written from a record), the result the record
    states must be the replay's. audit: the folder's audit if it was already made (and
    replayed: the session it replayed, see audit_folder)."""
    from pbem.protocol.archive import Archive
    from pbem.protocol.hosted import load_player
    from pbem.protocol.session import load, read_genesis

    name = record.name if record is not None else str(root)
    replayed = [] if replayed is None else replayed
    audit = audit_folder(root, keep=replayed) if audit is None else audit
    if not audit.ok:
        raise FileRejected(f"{name}: does not verify: {audit.problems[0]}")
    archive = Archive(root)
    info = archive.info()
    _, genesis, _ = read_genesis(archive, strict=True)
    v = Verified(root=Path(root), party=info.party, genesis=genesis, audit=audit,
                 record_name=name if record is not None else "")
    if genesis.complete:
        if genesis.mode == "hosted" and info.party != HOST:
            v.player = load_player(archive, strict=True)
            v.genesis = v.player.genesis
        else:
            v.session = replayed[-1] if replayed else load(root, key=None, strict=True)
            v.genesis = v.session.genesis
    if record is not None:
        from pbem.records.record import check_result

        check_result(record, v.result)
    return v


def open_game(path: str | Path) -> Verified:
    """A verified game from a record file or an archive folder."""
    from pbem.records.record import materialized, read_record

    p = Path(path)
    if p.is_dir():
        return load_verified(p)
    rec = read_record(p)
    with materialized(rec) as tmp:
        v = load_verified(tmp, record=rec)
    v.root = p
    return v


def verify_record(path: str | Path, extra: list[str] | None = None) -> Any:
    """`pbem verify FILE`: the audit of the archive a record holds (problems name the record),
    with the record's stated result checked against the replay."""
    from pbem.protocol.audit import Audit
    from pbem.records.record import EntryRejected, materialized, read_record

    try:
        rec = read_record(path)
    except PbemError as e:
        # a signed block that does not open fails as the same file stored in a folder does
        return Audit(problems=[str(e)], failed=isinstance(e, EntryRejected))
    with materialized(rec) as tmp:
        replayed: list[Any] = []
        audit = audit_folder(tmp, extra, keep=replayed)
        if audit.ok:
            try:
                load_verified(tmp, record=rec, audit=audit, replayed=replayed)
            except PbemError as e:
                audit.problems.append(str(e))
    audit.problems = [p if p.startswith(f"{rec.name}: ") else f"{rec.name}: {p}"
                      for p in (q.replace(str(tmp), rec.name) for q in audit.problems)]
    audit.summary.insert(0, f"Record {rec.name}: {len(rec.entries)} signed files of "
                            f"{rec.party}'s archive.")
    return audit


__all__ = ["FULL", "Frame", "Roll", "Verified", "load_verified", "open_game", "verify_record"]
