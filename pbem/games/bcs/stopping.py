"""Stopping Engagements (6.0i, errata v1.1): a stack with an AV unit able to Engage that enters a
Real AV EZOC STOPs and must fire Engagements to clear it (a hex with only Support AV EZOCs STOPs
Tac units without a Stopping Engagement, 6.0i-2); the STOP is lifted once no enemy unit
gives an AV EZOC there, and becomes Finished when the stack stops trying or runs out of Fire
Events. The STOP itself is movement's (6.0h, ``Piece.stopped``); this module reads it."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import at, bdata, face, has_zoc, is_av
from pbem.games.bcs.shock import FIRE_EVENTS
from pbem.games.bcs.state import BcsState, Piece
from pbem.games.bcs.support import has_access, restore
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


def _givers(state: BcsState, p: Piece) -> list[Piece]:
    """The enemy units giving an AV EZOC, Real or Support, into p's hex (6.0h)."""
    grid = bdata().game_map.grid
    return [q for n in grid.neighbours(p.hex) for q in at(state, n)
            if q.side != p.side and has_zoc(q) and (is_av(q) or has_access(state, q))]


def providers(state: BcsState, p: Piece) -> list[Piece]:
    """The targets a Stopping Engagement of p may have (6.0i): the enemy units giving a Real AV
    EZOC into its hex (AV units) if there are any, else those giving a Support AV EZOC."""
    near = _givers(state, p)
    return [q for q in near if is_av(q)] or near


def stopping_engagement(state: BcsState, p: Piece, hex_id: str) -> bool:
    """Whether p's Engagement of hex_id is a Stopping Engagement (6.0i): p is STOPped by an AV
    EZOC that is still there, and hex_id holds a unit giving it (Real or Support)."""
    return p.stopped == AV_STOP and p.status == "map" \
        and av_zone(ezoc(state, p.side, p.hex)) \
        and any(q.hex == hex_id for q in _givers(state, p))


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
            ctx.log(f"no enemy AV EZOC (Real or Support) is left in {p.hex}: the STOP is "
                    f"lifted (6.0i)", hexes=(p.hex,))
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
