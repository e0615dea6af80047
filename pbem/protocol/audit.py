"""`pbem verify`: audit a whole archive offline, as any third party could."""

from __future__ import annotations

import gc
import os
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import msgspec

from pbem.core.errors import ArchiveError, PbemError
from pbem.core.records import Turn, read_file
from pbem.protocol.archive import Archive, is_temp_name
from pbem.protocol.genesis import HOST
from pbem.protocol.sealing import missing_final_reveals
from pbem.protocol.view_audit import audit_referee


class Audit(msgspec.Struct, kw_only=True):
    """The result of an audit: problems (empty = valid) and a summary."""

    problems: list[str] = []
    summary: list[str] = []
    loaded: Any = None   # what the audit replayed: a Session, or a hosted player's PlayerState
    failed: bool = False  # a signed file fails a check: forgery, cheating or equivocation proven
                          # (exit code 3); other problems (no archive, junk) are refused input

    @property
    def ok(self) -> bool:
        """True if nothing is wrong."""
        return not self.problems


#: Allocations between two collections of young objects while an audit runs (Python's default
#: is 700): a replay makes and drops many short-lived objects, which then die before a scan,
#: and almost no cyclic garbage (about a hundred objects in a whole Holdfast or Kasserine
#: audit), so a scan mostly walks objects that stay alive.
AUDIT_GC_THRESHOLD = 20000


@contextmanager
def audit_collector() -> Iterator[None]:
    """The cyclic collector tuned for one audit: objects made before it (modules, classes) are
    left out of its scans (gc.freeze) and young objects are scanned less often; the collector
    stays on, so the audit's memory stays flat, and is restored as it was afterwards."""
    own_freeze = gc.get_freeze_count() == 0     # never undo a freeze the caller made
    threshold = gc.get_threshold()
    if own_freeze:
        gc.freeze()
    gc.set_threshold(max(threshold[0], AUDIT_GC_THRESHOLD), *threshold[1:])
    try:
        yield
    finally:
        if own_freeze:
            # what outlived the audit (its result) joins the old objects unscanned: restoring
            # the young threshold would otherwise scan it at once, as the process ends
            gc.freeze()
            gc.unfreeze()
        gc.set_threshold(*threshold)


def key_lines(genesis: Any) -> list[str]:
    """One line per party: the fingerprint of the key the genesis pins (compare out of band)."""
    from pbem.core.keys import fingerprint

    return [f"Key of {party}: {fingerprint(raw)}" for party, raw in sorted(genesis.pubs.items())]


def verify_archive(root: str | Path, extra: list[str] | None = None, *,
                   keep_states: bool = True, key: Any = None) -> Audit:
    """Verify signatures, chain, every die, the full replay and the result of an archive.

    keep_states=False (`pbem verify`, which only prints the result) keeps only the latest
    state of a peer archive, so the audit's memory does not grow with the game; a referee's
    archive keeps every state (its rejections are re-resolved against the state before them).
    key: the archive party's private key (`pbem verify --key`): a sealed archive's own private
    dice are then computed, so an unfinished game is audited to its last file.
    """
    from pbem.protocol.hosted import load_player
    from pbem.protocol.rejection import player_false_rejections
    from pbem.protocol.session import load, read_genesis

    archive = Archive(root)
    audit = Audit()
    try:
        info = archive.info()
        read = read_genesis(archive, strict=True)
        genesis = read[1]
        audit.summary.extend(key_lines(genesis))
        if genesis.mode == "hosted" and info.party != HOST:
            ps = load_player(archive, strict=True, genesis_read=read)
            audit.loaded = ps
            nd = sum(len(v.payload.rolls) for v in ps.views)  # type: ignore[union-attr]
            _check_files_dir(archive, audit, genesis, info.party)
            _check_rejected_dir(archive, genesis, ps.own_by_seq(), _refused_names(ps.rejections),
                                audit, ahead_ok=False)
            _player_evidence(ps, [*map(str, archive.evidence_files()), *(extra or [])], audit)
            false = player_false_rejections(ps)
            audit.problems.extend(false)
            audit.failed = audit.failed or bool(false)
            audit.summary.append(f"Hosted player archive of {info.party}: genesis, "
                                 f"{len(ps.own_files)} own files and {len(ps.views)} referee "
                                 f"views verified; {nd} visible dice recomputed.")
            return audit
        s = load(root, key=key, strict=True,
                 keep_states=keep_states or genesis.mode == "hosted", genesis_read=read)
        audit.loaded = s
        if not genesis.complete:
            # The collector's archive while acceptances are still outstanding: no game yet.
            waiting = [p for p in genesis.acceptors() if p not in genesis.acceptances]
            _check_files_dir(archive, audit, genesis, info.party)
            _check_rejected_dir(archive, genesis, {}, set(), audit, ahead_ok=False)
            audit.summary.append(f"The genesis is not complete: the proposal and "
                                 f"{len(genesis.acceptances)} acceptance(s) verified; waiting "
                                 f"for the acceptance of {', '.join(waiting)}.")
            return audit
    except PbemError as e:
        audit.problems.append(str(e))
        audit.failed = not isinstance(e, ArchiveError)
        return audit
    hosted = s.genesis.mode == "hosted"
    # a second file of one number is no equivocation only when the referee signed its refusal
    # (a rejection's name proves nothing, and peer and sealed games have no rejections)
    rejections = _rejections(archive) if hosted else []
    refused = _refused_by_referee(rejections, s.genesis)
    extras = []
    _check_files_dir(archive, audit, s.genesis, s.party)
    _check_rejected_dir(archive, s.genesis, dict(enumerate(s.ledger.files, 1)),
                        _refused_names(rejections), audit, ahead_ok=hosted)
    for path in [*map(str, archive.evidence_files()), *(extra or [])]:
        try:
            f = read_file(path)
        except PbemError as e:
            audit.problems.append(str(e))
            continue
        extras.append(f)
        t = f.payload
        if f.hash in refused:
            continue
        if isinstance(t, Turn) and t.game_id == s.genesis.game_id and 1 <= t.seq <= s.ledger.tip_seq:
            old = s.ledger.files[t.seq - 1]
            if (old.payload_bytes != f.payload_bytes and t.sender in s.genesis.pubs
                    and f.signed_by(s.genesis.pubs[t.sender])
                    and old.payload.sender == t.sender):  # type: ignore[union-attr]
                audit.failed = True
                audit.problems.append(f"{f.name}: equivocation: {t.sender} signed two different "
                                      f"files with sequence number {t.seq} ({old.name})")
    full_rolls = None
    if s.genesis.mode == "sealed":
        from pbem.protocol.sealing import audit_sealed

        sealed = audit_sealed(s)
        audit.problems.extend(sealed.problems)
        audit.failed = audit.failed or bool(sealed.problems)
        audit.summary.extend(sealed.lines)
        full_rolls = sealed.rolls
    if s.genesis.mode == "hosted":
        referee = audit_referee(s, extras)
        audit.problems.extend(referee)
        audit.failed = audit.failed or bool(referee)
    # a sealed game replayed with both final reveals counts both sides' private dice; the
    # archive's own replay knows only the public dice and its own side's
    rolls = full_rolls if full_rolls is not None else [r for log in s.log for r in log.rolls]
    audit.summary.append(f"{s.game.title}, scenario {s.genesis.p.scenario}, {s.genesis.mode} "
                         f"mode, game {s.genesis.game_id}.")
    audit.summary.append(f"Genesis and {s.ledger.tip_seq} files verified (signatures, chain, "
                         f"dice reveals); {s.resolved} files replayed; {len(rolls)} dice "
                         "recomputed and matched.")
    if s.unknown_own:
        audit.summary.append(f"Not audited without {s.party}'s key: {s.unknown_own} of its own "
                             "private dice and events (left out of the counts below; "
                             "`--key KEY` or the final reveals open them).")
    d6 = Counter(r.value for r in rolls if r.sides == 6)
    if d6:
        audit.summary.append("d6 results: " + "  ".join(f"{k}:{d6[k]}" for k in range(1, 7)))
    if s.unresolved():
        audit.summary.append(f"{unresolved_note(s, s.unresolved()[0])}.")
    o = s.game.outcome(s.state)
    unsettled = missing_final_reveals(s) if o is not None else []
    if unsettled:
        # the board's result rests on hidden moves only the missing reveal lets anyone check
        audit.summary.append(f"Result on the board: {o.winner + ' wins' if o.winner else 'draw'} "
                             f"({o.reason}); not final: the final reveal of "
                             f"{' and '.join(unsettled)} is missing, and a missing final reveal "
                             "is a forfeit under the genesis policy.")
    elif o is not None:
        audit.summary.append(f"Final result: {o.winner + ' wins' if o.winner else 'draw'} "
                             f"({o.reason}).")
    else:
        audit.summary.append("The game is not over.")
    return audit


def _player_evidence(ps: Any, paths: list[str], audit: Audit) -> None:
    """A hosted player's archive: files kept under evidence/ or given on the command line
    that prove equivocation: a second, different view of one file signed by the referee, or a
    second, different own file of one number that no signed rejection refused; and a signed
    rejection of an own file that the player's view contradicts (receive refused it)."""
    from pbem.core.records import Rejection, ViewFile
    from pbem.protocol.rejection import held_false_rejection

    g, me = ps.genesis, ps.info.party
    views = {v.payload.seq: v for v in ps.views}
    own = ps.own_by_seq()
    refused = {r.payload.file for r in ps.rejections}
    for path in paths:
        try:
            f = read_file(path)
        except PbemError as e:
            audit.problems.append(str(e))
            continue
        t = f.payload
        if getattr(t, "game_id", None) != g.game_id:
            continue
        if isinstance(t, ViewFile) and t.side == me and t.seq in views \
                and views[t.seq].payload_bytes != f.payload_bytes and f.signed_by(g.pubs[HOST]):
            audit.failed = True
            audit.problems.append(f"{f.name}: equivocation: the referee signed two different "
                                  f"views of file {t.seq} for {me} ({views[t.seq].name})")
        elif isinstance(t, Turn) and t.sender == me and t.seq in own \
                and own[t.seq].payload_bytes != f.payload_bytes and f.hash not in refused \
                and f.signed_by(g.pubs[me]):
            audit.failed = True
            audit.problems.append(f"{f.name}: equivocation: {me} signed two different files "
                                  f"with sequence number {t.seq} ({own[t.seq].name})")
        elif isinstance(t, Rejection) and t.sender == me and f.signed_by(g.pubs[HOST]) \
                and not any(x.payload_bytes == f.payload_bytes for x in ps.rejections):
            # a rejection receive refused (nothing stored): judged as receive judges it, so
            # that the player's archive and the signed rejection prove it without his key
            false = held_false_rejection(ps, f)
            if false:
                audit.failed = True
                audit.problems.append(f"{f.name}: {false}")


def unresolved_note(s: Any, seq: int) -> str:
    """Why file seq of a loaded archive is not replayed: read without the archive party's key,
    a file it received needs that party's own secret dice share (its private dice), which only
    its key or its next file opens, so the file is not audited here (the party has resolved
    it already, with its key); otherwise the file awaits resolution by its receiver."""
    sender = s.ledger.sender(seq)
    if getattr(s, "own", None) is None and s.party in s.game.sides and sender != s.party:
        return (f"File {seq} (from {sender}) is not audited without {s.party}'s key: its dice "
                f"need {s.party}'s own secret dice, unknown here, which only that key "
                f"(`--key KEY`) or {s.party}'s next file opens")
    return f"File {seq} awaits resolution by the receiver"


def _check_files_dir(archive: Archive, audit: Audit, genesis: Any, party: str) -> int:
    """Every file in files/ must be a kind of signed file this archive keeps (views and
    rejections in hosted mode only, each party's kind of view); a temporary file left by a
    killed command (never part of the archive) is only noted. Returns their number."""
    kind = "peer" if genesis.mode != "hosted" else "referee" if party == HOST else "player"
    temps = 0
    for name in sorted(os.listdir(archive.files_dir)):
        if is_temp_name(name):
            if (archive.files_dir / name).is_file():
                temps += 1
        elif (not archive.is_kept_name(name, kind=kind)
              and (archive.files_dir / name).is_file()):
            audit.problems.append(f"{name}: unexpected file in files/")
    if temps:
        audit.summary.append(f"Note: {temps} temporary file(s) in files/ left by an interrupted "
                             "command were ignored (the next pbem command that writes to this "
                             "archive removes them).")
    return temps


def _rejections(archive: Archive) -> list[Any]:
    """The readable rejections in files/ (an unreadable one is named by audit_rejections)."""
    out = []
    for p in archive.rejection_files():
        try:
            out.append(read_file(p, strict=True))
        except PbemError:
            continue
    return out


def _refused_by_referee(rejections: list[Any], genesis: Any) -> set[str]:
    """The payload hashes of the files these rejections refuse, counting only rejections of
    this game signed by the referee's key (audit_rejections names any other)."""
    from pbem.core.records import Rejection

    host = genesis.pubs.get(HOST)
    return {r.payload.file for r in rejections
            if isinstance(r.payload, Rejection) and r.payload.game_id == genesis.game_id
            and host is not None and r.signed_by(host)}


def _refused_names(rejections: list[Any]) -> set[str]:
    """The names under rejected/ of the files these signed rejections refuse."""
    from pbem.core.records import Rejection
    from pbem.protocol.rejection import refused_file_name

    return {refused_file_name(r.payload) for r in rejections if isinstance(r.payload, Rejection)}


def _check_rejected_dir(archive: Archive, genesis: Any, chain: dict[int, Any],
                        expected: set[str], audit: Audit, *, ahead_ok: bool) -> None:
    """Every file under rejected/ must be the refused file of a signed rejection in files/
    (expected: their names; hosted mode only, checked with the rejection). Any other signed
    turn file of the chain's sender that differs from the chain's file of its sequence number
    is equivocation, as in evidence/; a hosted archive may also hold what an interrupted
    command left (a copy of the chain's own file, or with ahead_ok, the referee's, a refused
    file beyond the chain whose rejection was not stored yet: only noted); anything else is
    refused. chain: sequence number -> the file the archive's chain holds."""
    d = archive.rejected_dir
    names = sorted(p.name for p in d.glob("*.pbem")
                   if p.is_file() and not p.name.startswith(".")) if d.is_dir() else []
    hosted, left = genesis.mode == "hosted", 0
    for name in names:
        if name in expected:
            continue
        why = _stray_rejected(archive.rejected_dir / name, genesis, chain, ahead_ok)
        if why == "leftover" and hosted:
            left += 1
            continue
        if why.startswith("equivocation"):
            audit.failed = True
        elif why in ("", "leftover"):
            why = ("not the refused file of any signed rejection in files/" if hosted else
                   "a peer archive keeps no refused files (only a referee's signed rejection "
                   "puts a file under rejected/)")
        audit.problems.append(f"rejected/{name}: {why}")
    if left:
        audit.summary.append(f"Note: {left} refused file(s) under rejected/ whose rejection an "
                             "interrupted command has not stored yet were ignored.")


def _stray_rejected(path: Path, genesis: Any, chain: dict[int, Any], ahead_ok: bool) -> str:
    """What a file under rejected/ with no rejection is: 'equivocation: ...' (a second,
    different file signed by the sender of the chain's file of that number), 'leftover' (a
    copy of the chain's file, or with ahead_ok a validly signed file beyond the chain), a
    problem, or '' (a signed file that is none of these)."""
    try:
        f = read_file(path, strict=True)
    except PbemError as e:
        return str(e)
    t = f.payload
    if not isinstance(t, Turn) or not genesis.complete or t.game_id != genesis.game_id:
        return ""
    pub = genesis.pubs.get(t.sender)
    if pub is None or not f.signed_by(pub):
        return ""
    old = chain.get(t.seq)
    if old is not None and old.payload.sender == t.sender:
        if old.payload_bytes != f.payload_bytes:
            return (f"equivocation: {t.sender} signed two different files with sequence "
                    f"number {t.seq} ({old.name})")
        return "leftover"
    return "leftover" if ahead_ok and old is None and t.seq > len(chain) else ""
