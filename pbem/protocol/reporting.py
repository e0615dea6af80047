"""Per-side reports of an archive: build the report context from a session and write files."""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.core.game import ALL, Event, Roll, decisions_for
from pbem.core.keys import fingerprint
from pbem.protocol.archive import write_derived
from pbem.protocol.genesis import HOST


def visible(items: list[Any], side: str) -> list[Any]:
    """Only the events or rolls this side may see."""
    return [x for x in items if x.visible_to in (ALL, side)]


def answer_commands(s: Any, side: str) -> list[str]:
    """The exact commands this side runs next."""
    pending = {d.side for d in s.game.pending(s.state)} if s.game.outcome(s.state) is None else set()
    root = str(s.archive.root)
    if side in pending:
        return [f"pbem bot {root} --side {side} --out orders.txt   # or write orders.txt yourself",
                f"pbem check {root} orders.txt",
                f"pbem submit {root} orders.txt --key YOUR.key --out reply.pbem"]
    return []


def report_context(s: Any, side: str, logs: list[Any], state: Any = None, seq: int | None = None):
    """The ReportContext of one side after the given resolved files."""
    from pbem.reports.context import ReportContext

    state = s.state if state is None else state
    last = logs[-1] if logs else None
    events: list[Event] = [e for log in logs for e in visible(log.events, side)]
    rolls = [Roll(action=r.action, index=r.index, sides=r.sides, value=r.value,
                  purpose=f"file {log.seq}: {r.purpose}", visible_to=r.visible_to)
             for log in logs for r in visible(log.rolls, side)]
    fps = {p: fingerprint(k) for p, k in sorted(s.genesis.pubs.items())}
    tip = s.ledger.files[-1] if s.ledger.files else None
    from pbem.protocol.draws import known_state

    known = known_state(s, side, state)
    policy = _own_policy(s, side, seq)
    if policy:                  # a sealed game's stores stay empty: its owner's report shows it
        from pbem.core.sealed import with_policy

        known = with_policy(s.game, known, side, policy)
    pending = decisions_for(s.game.pending(state), side)
    answered = _answered(s, side) if state is s.state else None
    if answered is not None:
        pending = [_as_answered(d, side, *answered) if d.side == side else d for d in pending]
    return ReportContext(
        model=s.game.report(known, side), pending=pending,
        answer=answer_commands(s, side) if state is s.state and answered is None else [],
        events=events, rolls=rolls,
        # a report of the newest state while this side's own file waits for its dice is as of
        # that file, as the one written when it was signed (pbem report and submit agree)
        game_id=s.genesis.game_id,
        seq=seq if seq is not None and answered is None else s.ledger.tip_seq,
        file_name=(last.file_name if last else (tip.name if tip else "genesis")),
        file_hash=(last.file_hash if last else s.ledger.tip_hash), fingerprints=fps,
        outcome=s.game.outcome(state), mode=s.genesis.mode)


def _own_policy(s: Any, side: str, seq: int | None) -> dict[str, str]:
    """In a sealed game, side's standing orders in force after file seq (its processor alone
    knows them, from its private real orders); empty otherwise."""
    if s.facts is None or side != s.party:
        return {}
    from pbem.protocol.sealing import policy_of

    return policy_of(s.game, s.private, upto=seq)


def _answered(s: Any, side: str) -> tuple[int, list[str]] | None:
    """(the file, the parties it waits for) when side's own file is stored but not resolved
    (an answer whose dice wait for the other side's next file), else None."""
    mine = [q for q in s.unresolved() if s.ledger.sender(q) == side]
    if not mine:
        return None
    return mine[-1], [p for p in s.ledger.dice_parties(mine[-1]) if p != side]


def _as_answered(d: Any, side: str, seq: int, others: list[str]) -> Any:
    """A decision of side that its stored file seq answers, shown as the wait it now is."""
    who = ", ".join(others) or "the other side"
    return msgspec.structs.replace(
        d, side=others[0] if others else d.side, kind="dice", choices=(), detail="",
        prompt=f"{side} answered this in file {seq} ({d.prompt}); its result comes when {who}'s "
               "next file brings the dice")


def write_reports(s: Any, side: str, logs: list[Any], result: Any, *,
                  only_changed: bool = False) -> bool:
    """Write this side's HTML and text report for the newest state, and refresh the index.

    only_changed: leave files that already hold these bytes alone (a command run again after
    it was interrupted); returns True if any file was written."""
    if side == HOST:
        return False
    if getattr(s, "draws", None) is not None:
        s.draws.keep()          # this side's private draws, for reports made without its key
    return write_report_files(s.archive.reports_dir / side, report_context(s, side, logs),
                              s.game.game_map(s.genesis.p.scenario), s.ledger.tip_seq,
                              f"{s.game.title}: reports of {side}", result,
                              only_changed=only_changed)


def _put(path: Any, data: str | bytes, only_changed: bool) -> bool:
    return write_derived(path, data, only_changed=only_changed)


def write_report_files(folder: Any, ctx: Any, game_map: Any, seq: int, title: str,
                       result: Any, *, only_changed: bool = False) -> bool:
    """Write NNNN.html and NNNN.txt for one report context (the newest also as latest.txt) and
    refresh index.json/html;
    True if any file was written (see write_reports for only_changed)."""
    from pbem.reports.render import IndexEntry, render_html, render_index, render_text

    html_path, text_path = folder / f"{seq:04d}.html", folder / f"{seq:04d}.txt"
    changed = _put(html_path, render_html(ctx, game_map), only_changed)
    text = render_text(ctx, game_map)
    changed = _put(text_path, text, only_changed) or changed
    rows = [r for r in read_index(folder) if r.seq != seq]
    if all(r.seq < seq for r in rows):       # the newest: also as latest.txt, a fixed name
        changed = _put(folder / "latest.txt", text, only_changed) or changed
    rows.append(IndexEntry(seq=seq, turn=ctx.model.turn,
                           label=f"{ctx.model.turn_label} - {ctx.model.phase}",
                           href=html_path.name))
    rows.sort(key=lambda r: r.seq)
    changed = _put(folder / "index.json", msgspec.json.encode(rows), only_changed) or changed
    changed = _put(folder / "index.html", render_index(rows, title), only_changed) or changed
    result.written.extend([str(html_path), str(text_path)])
    return changed


def read_index(folder: Any) -> list[Any]:
    """The stored report index of a side (empty if none or damaged)."""
    from pbem.reports.render import IndexEntry

    try:
        return msgspec.json.decode((folder / "index.json").read_bytes(), type=list[IndexEntry])
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return []
