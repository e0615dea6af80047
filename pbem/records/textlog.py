"""The readable log of a game: a plain-text move list (turn by turn: every file, its orders,
what happened and every die) and the same as JSON lines for other tools.

Both are built from one viewer's frames (pbem.records.source): both sides in full once the
game is over and the archive holds the full state, otherwise one side's view, in which the
other side's orders show only as a count and its hidden events and dice do not appear.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from pbem.records.source import FULL, Frame, Verified
from pbem.reports.render import clean, wrap


def default_view(v: Verified) -> str:
    """Both sides in full when allowed, else the archive's own side (a referee's game in
    progress: PbemError, one side must be chosen)."""
    return v.default_views()[0]


def _viewer(view: str) -> str:
    return "both sides in full" if view == FULL else f"{view}'s view only"


def _heading(v: Verified, view: str) -> list[str]:
    p = v.genesis.p
    names, fps = v.names(), v.fingerprints()
    players = ", ".join(party + (f' "{clean(names[party])}"' if names.get(party) else "")
                        + f" (key {fps[party]})" for party in sorted(fps))
    lines = [wrap(f"{v.game.title}, scenario {p.scenario}, {p.mode} mode"),
             f"Game id: {v.genesis.game_id if v.genesis.complete else '(genesis incomplete)'}",
             wrap(f"Parties: {players}", subsequent="  "),
             f"Log of: {_viewer(view)}",
             wrap(f"Result: {clean(v.result)}", subsequent="  ")]
    return lines


def _frame_lines(fr: Frame, view: str, before: Frame | None) -> list[str]:
    out = []
    when = before or fr
    out.append(wrap(clean(f"{fr.title} ({when.turn_label}, {when.phase})"), subsequent="  "))
    for note in fr.notes:
        out.append(wrap(f"Note: {clean(note)}", indent="  ", subsequent="    "))
    if fr.orders is None:
        out.append(f"  Orders: {fr.order_count} (hidden from {view})")
    elif fr.orders:
        out.append("  Orders:")
        for i, o in enumerate(fr.orders, 1):
            mark = "  (skipped)" if (i - 1) in fr.skipped else ""
            out.append(wrap(f"{i:>3}. {clean(o)}{mark}", indent="    ", subsequent="         "))
    if fr.message:
        out.append(wrap(f"Message: {clean(fr.message)}", indent="  ", subsequent="    "))
    if fr.events:
        out.append("  What happened:")
        for e in fr.events:
            hidden = "" if e.visible_to == "all" else f" [{e.visible_to} only]"
            out.append(wrap(f"- {clean(e.text)}{hidden}", indent="    ", subsequent="      "))
    if fr.rolls:
        out.append("  Dice:")
        for r in fr.rolls:
            hidden = "" if r.visible_to == "all" else f" [{r.visible_to} only]"
            out.append(wrap(f"d{r.sides} = {r.value:<3} {clean(r.purpose)}{hidden} "
                            f"(@{r.action}.{r.index})", indent="    ", subsequent="      "))
    if fr.outcome is not None:
        o = fr.outcome
        out.append(wrap(f"  Game over: {o.winner + ' wins' if o.winner else 'draw'} "
                        f"({clean(o.reason)})", subsequent="    "))
    return out


def text_log(v: Verified, view: str | None = None) -> str:
    """The whole game as a plain-text move list (lines of at most 100 columns)."""
    view = view or default_view(v)
    lines = _heading(v, view)
    turn, before = None, None
    for fr in v.frames(view):
        when = before or fr
        if when.turn != turn:
            turn = when.turn
            lines += ["", f"== Game turn {turn} " + "=" * max(0, 30 - len(str(turn))), ""]
        else:
            lines.append("")
        lines += _frame_lines(fr, view, before)
        before = fr
    lines += ["", f"End of the log: {clean(v.result)}"]
    unknown = v.session.unknown_own if v.session is not None else 0
    if unknown:
        lines.append(f"Not shown: {unknown} of {v.party}'s own private dice and events, which "
                     f"this archive cannot compute without {v.party}'s key (`pbem verify "
                     "--key KEY` audits them; the final reveals open them)")
    return "\n".join(lines) + "\n"


def json_lines(v: Verified, view: str | None = None) -> Iterator[str]:
    """The game as JSON lines: a 'game' line, one 'file' line per step, a 'result' line."""
    view = view or default_view(v)
    p = v.genesis.p
    yield json.dumps({"type": "game", "game": p.game, "title": v.game.title,
                      "scenario": p.scenario, "mode": p.mode,
                      "game_id": v.genesis.game_id if v.genesis.complete else None,
                      "view": view, "archive_of": v.party,
                      "parties": [{"party": k, "name": v.names().get(k, ""), "key": fp}
                                  for k, fp in v.fingerprints().items()]}, sort_keys=True)
    for fr in v.frames(view):
        yield json.dumps(frame_json(fr), sort_keys=True)
    o = v.outcome
    yield json.dumps({"type": "result", "over": o is not None,
                      "winner": o.winner if o else None, "reason": o.reason if o else None,
                      "files": v.files, "turn": v.turn, "result": v.result}, sort_keys=True)


def frame_json(fr: Frame) -> dict[str, Any]:
    """One step as a JSON object (what its viewer may see)."""
    return {"type": "file", "step": fr.index, "seq": fr.seq, "sender": fr.sender,
            "file": fr.file_name, "sha256": fr.file_hash, "turn": fr.turn,
            "turn_label": fr.turn_label, "phase": fr.phase, "orders": fr.orders,
            "order_count": fr.order_count, "message": fr.message, "skipped": fr.skipped,
            "resolved": fr.resolved, "notes": fr.notes,
            "events": [{"text": e.text, "kind": e.kind, "hexes": list(e.hexes),
                        "visible_to": e.visible_to} for e in fr.events],
            "rolls": [{"action": r.action, "index": r.index, "sides": r.sides, "value": r.value,
                       "purpose": r.purpose, "visible_to": r.visible_to} for r in fr.rolls],
            "pending": [{"side": d.side, "kind": d.kind, "prompt": d.prompt}
                        for d in fr.pending],
            "outcome": ({"winner": fr.outcome.winner, "reason": fr.outcome.reason}
                        if fr.outcome else None)}
