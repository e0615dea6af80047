"""Stopping Engagements (6.0i, errata v1.1): a stack with an AV unit able to Engage that enters a
Real AV EZOC STOPs and must fire Engagements to clear it (a hex with only Support AV EZOCs STOPs
Tac units without a Stopping Engagement, 6.0i-2); the STOP is lifted once no enemy unit
gives an AV EZOC there, and becomes Finished when the stack stops trying or runs out of Fire
Events. The STOP itself is movement's (6.0h, ``Piece.stopped``); this module reads it."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import at, face, is_av
from pbem.games.bcs.shock import FIRE_EVENTS
from pbem.games.bcs.state import BcsState, Piece
from pbem.games.bcs.support import restore
from pbem.games.bcs.zoc import av_zone, ezoc

AV_STOP = "BCS-6.0h-2"           # the STOP of a Tac unit entering a Real AV EZOC (movement)


def _firer(p: Piece) -> bool:
    f = face(p)
    return is_av(p) and f is not None and f.av_class != "light"


def required(state: BcsState, p: Piece) -> bool:
    """Whether the unit's stack owes a Stopping Engagement (6.0i): it STOPped on entering a Real
    AV EZOC that is still there, and a unit of its stack in the hex has an AV that may Engage
    (Light AV stacks just STOP, 6.0i-1)."""
    if p.stopped != AV_STOP or p.status != "map" or ezoc(state, p.side, p.hex) != "real":
        return False
    act = state.activation
    mates = [state.pieces[u] for u in (act.stack if act is not None else [])] or [p]
    return any(q.hex == p.hex and _firer(q) for q in mates)


def check_free(state: BcsState, uid: str, what: str) -> None:
    """No Regular or Shock Attack and no Recon by a stack that owes a Stopping Engagement: the
    STOP is dealt with first (6.0i-1, 6.0i-6)."""
    p = state.pieces.get(uid)
    if p is not None and required(state, p):
        raise IllegalOrder(f"{uid} is stopped in a Real AV EZOC: its stack must clear it with "
                           f"Stopping Engagements before any {what}", rule="BCS-6.0i-1")


def lift(state: BcsState, ctx: Context) -> None:
    """After combat: every active unit STOPped by an AV EZOC (Real or Support) that no enemy
    unit gives any more (its providers destroyed or retreated, or their Support Dropped) may move
    on (6.0i-3); a stack that owes a Stopping Engagement and has no Fire Event left in its AV
    units is Finished (errata v1.1). Dropped Support markers whose units qualify go (9.2i)."""
    act = state.activation
    restore(state, ctx)
    if act is None:
        return
    for p in state.pieces.values():
        if p.side != act.side or p.status != "map" or p.stopped != AV_STOP:
            continue
        if not av_zone(ezoc(state, p.side, p.hex)):      # Real or Support AV EZOC (6.0i)
            p.stopped = ""
            ctx.log(f"no enemy Real AV EZOC is left in {p.hex}: the STOP is lifted (6.0i)",
                    hexes=(p.hex,))
    for uid in act.stack:
        p = state.pieces[uid]
        firers = [q for q in at(state, p.hex) if q.id in act.stack and _firer(q)]
        if required(state, p) and all(q.fire_events >= FIRE_EVENTS for q in firers) \
                and not p.finished:
            p.finished = True
            ctx.log(f"{uid} has no Fire Event left to clear the Real AV EZOC: Finished (6.0i)",
                    visible_to=p.side)


def decline(state: BcsState, uids: list[str], ctx: Context) -> None:
    """A stack that owed a Stopping Engagement and is left for another one declined it: its
    units are Finished (3.3e, 6.0i-3)."""
    for uid in uids:
        p = state.pieces[uid]
        if required(state, p) and not p.finished:
            p.finished = True
            ctx.log(f"{uid} did not clear the Real AV EZOC in {p.hex}: Finished (6.0i)",
                    visible_to=p.side)
