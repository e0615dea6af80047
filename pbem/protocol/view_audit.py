"""`pbem verify` on a referee's archive: every view it sent tells the truth, every rejection is
justified, and any view or rejection a player holds is one the referee kept."""

from __future__ import annotations

from typing import Any

from pbem.core.encoding import canonical
from pbem.core.errors import PbemError
from pbem.core.records import Rejection, SignedFile, ViewFile, read_file
from pbem.protocol.genesis import HOST
from pbem.protocol.rejection import audit_rejections
from pbem.protocol.views import view_payload


def audit_referee(s: Any, extra: list[SignedFile]) -> list[str]:
    """Problems with the referee's kept views and rejections, and with views players hold."""
    problems = audit_rejections(s)
    sent: dict[tuple[str, int], SignedFile] = {}
    last: dict[str, int] = {}
    for p in s.archive.sent_view_files():
        try:
            f = read_file(p, strict=True)
        except PbemError as e:
            problems.append(str(e))
            continue
        v = f.payload
        if not isinstance(v, ViewFile) or not f.signed_by(s.genesis.pubs[HOST]):
            problems.append(f"{p.name}: not a view signed by the referee")
            continue
        if p.name != f"view-{v.side}-{v.seq:04d}.pbem" or v.side not in s.game.sides:
            problems.append(f"{p.name}: names another side or file")
            continue
        if v.seq > s.resolved:
            problems.append(f"{p.name}: describes file {v.seq}, beyond the chain")
            continue
        logs = [log for log in s.log if last.get(v.side, -1) < log.seq <= v.seq]
        diff = _difference(v, view_payload(s, v.side, logs, v.seq))
        if diff:
            problems.append(f"{p.name}: the view the referee sent differs from the replay "
                            f"({diff})")
        sent[(v.side, v.seq)] = f
        last[v.side] = v.seq
    problems.extend(_missing_views(s, sent))
    kept = {q.name for q in s.archive.rejection_files()}
    for f in extra:
        x = f.payload
        if isinstance(x, ViewFile) and f.signed_by(s.genesis.pubs[HOST]):
            mine = sent.get((x.side, x.seq))
            if mine is None:
                problems.append(f"{f.name}: the referee signed this view of file {x.seq} for "
                                f"{x.side} but did not keep it")
            elif mine.payload_bytes != f.payload_bytes:
                problems.append(f"{f.name}: equivocation: the referee signed two different "
                                f"views of file {x.seq} for {x.side} ({mine.name})")
        elif isinstance(x, Rejection) and f.signed_by(s.genesis.pubs[HOST]):
            from pbem.protocol.rejection import rejection_file_name

            if rejection_file_name(x) not in kept:
                problems.append(f"{f.name}: the referee signed this rejection of file {x.seq} "
                                "but did not keep it")
    return problems


def _missing_views(s: Any, sent: dict[tuple[str, int], SignedFile]) -> list[str]:
    """Views the referee owed (a decision to make, the game over) but did not keep, for every
    record before the chain's last: the views of the last one may still be unwritten by an
    interrupted receive (which `pbem status` names), but a referee that went on to the next
    file must have sent them."""
    from pbem.protocol.views import view_due

    out = []
    last: dict[str, Any] = {}
    tip = s.ledger.tip_seq - (s.ledger.tip_seq % 2)      # the last record (or the genesis)
    for seq in range(0, min(s.resolved + 1, tip), 2):
        for side in s.game.sides:
            f = sent.get((side, seq))
            if f is not None:
                last[side] = f.payload.state
            elif view_due(s, side, seq, last.get(side)):
                out.append(f"file {seq}: the referee owed {side} a view of it and kept none")
    return out


def _difference(got: ViewFile, want: ViewFile) -> str:
    """The first field where two views differ, or ''."""
    if canonical(got) == canonical(want):
        return ""
    for field in got.__struct_fields__:
        if canonical(getattr(got, field)) != canonical(getattr(want, field)):
            return f"field {field}"
    return "encoding"
