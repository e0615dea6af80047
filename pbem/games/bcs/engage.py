"""Engagements (7.1) without Support: an active AV unit fires on an enemy AV unit within its
Range for one Fire Event (7.0d), on the Engagement Table's Support Not Involved row.

The targeted player's choice of the AV unit engaged (7.1e) follows his standing order `engaged`
(combat.STANDING); he is not asked yet.
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import at, bdata, face, is_av
from pbem.games.bcs.combat import can, double_obj, lose, mode, place_traffic
from pbem.games.bcs.hq_retreat import jump
from pbem.games.bcs.retreat import retreat_stack
from pbem.games.bcs.shock import (FIRE_EVENTS, check_fire_events_left, check_fire_stack,
                                  fire_event)
from pbem.games.bcs.state import BcsState, Piece, other
from pbem.games.bcs.view import top_unit
from pbem.games.bcs.zoc import VISIBILITY, clear_line


def in_range(p: Piece, frm: str, to: str) -> bool:
    """Whether a unit in frm can fire at hex to (7.1j, 6.1b, BbF 1.1e): within its Range and 4
    hexes, a clear line beyond adjacent hexes, and adjacent only when the target hex is combat
    terrain."""
    d = bdata()
    f = face(p)
    assert f is not None
    n = d.game_map.grid.distance(frm, to)
    if n < 1 or n > min(f.range, VISIBILITY):
        return False
    if n > 1 and d.terrain[d.game_map.terrain[to]].combat == "yes":
        return False
    return n == 1 or clear_line(frm, to)


def engagement_target(units: list[Piece], how: str = "strongest") -> Piece:
    """The AV unit engaged in a hex (7.1e), the targeted player's standing choice: the greatest
    AV plus AR (ties the top unit), or with the mode top the top unit (5.5e)."""
    if how == "top":
        return top_unit(units)
    def strength(p: Piece) -> int:
        f = face(p)
        assert f is not None and f.av is not None
        return f.av + bdata().units[p.id].ar
    best = max(strength(p) for p in units)
    return top_unit([p for p in units if strength(p) == best])


def check_engage(state: BcsState, side: str, hex_id: str, uid: str) -> Piece:
    """Check an Engagement (7.1a-b, 7.1j, 7.0d); the Firer."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side:
        raise IllegalOrder("only the active player executes Engagements, in the Activities of "
                           "an Activation", rule="BCS-7.1a-1")
    if act.recovery:
        raise IllegalOrder("a Fatigue Recovery Activation makes no Engagements", rule="BCS-7.0b")
    p = state.pieces.get(uid)
    if p is None or p.side != side or p.kind != "unit" or p.status != "map" \
            or p.formation != act.formation:
        raise IllegalOrder(f"{uid} is not a combat unit of the active Formation on the map",
                           rule="BCS-7.1a-1")
    if not bdata().game_map.grid.is_hex(hex_id):
        raise IllegalOrder(f"{hex_id} is not a hex of the map", rule="BCS-7.1b")
    if p.finished:
        raise IllegalOrder(f"{uid} is Finished and has no Fire Event left", rule="BCS-7.0d-3")
    check_fire_stack(state, p)
    f = face(p)
    assert f is not None
    if not is_av(p) or f.av_class == "light" or not can(p, "Engage"):   # Dual Light AV too
        raise IllegalOrder(f"{uid} cannot be the Firer of an Engagement (no AV, or Light AV)",
                           rule="BCS-7.1a-2")
    check_fire_events_left(p)
    if not any(q.side == other(side) and is_av(q) for q in at(state, hex_id)):
        raise IllegalOrder(f"{hex_id} holds no enemy AV unit to engage", rule="BCS-7.1b")
    if not in_range(p, p.hex, hex_id):
        raise IllegalOrder(f"{hex_id} is not within {uid}'s Range from {p.hex} (Range, 4 hexes, "
                           f"line of sight, range 1 into combat terrain)", rule="BCS-7.1j")
    return p


def _base(p: Piece) -> int:
    f = face(p)
    assert f is not None and f.av is not None
    return f.av + bdata().units[p.id].ar


def engage(state: BcsState, side: str, hex_id: str, uid: str, ctx: Context) -> None:
    """An Engagement (7.1i): the Fire Event spent, 2d6 + (Firer AV + AR + DRMs) - (Target AV +
    AR) on the Support Not Involved row, the results applied (a side out of the enemy's Range
    ignores its own result, BBF-G25), a Target retreat being Automatic (7.5a)."""
    firer = check_engage(state, side, hex_id, uid)
    act = state.activation
    assert act is not None
    fire_event(state, firer)
    act.engaged = True
    units = sorted((q for q in at(state, hex_id) if q.side != side and q.kind == "unit"),
                   key=lambda q: q.id)
    target = engagement_target([q for q in units if is_av(q)], mode(state, other(side), "engaged"))
    ctx.log(f"{firer.id} engages {target.id} in {hex_id} (Fire Event {firer.fire_events})",
            hexes=(firer.hex, hex_id))
    mods: list[tuple[str, int]] = []
    if double_obj(state, hex_id):
        mods.append(("Double OBJ Zone", _modifier("Double OBJ Zone")))
    f = face(firer)
    assert f is not None
    if f.av_class == "limited":
        mods.append(("Limited AV", _modifier("Limited AV")))
    net = _base(firer) + sum(v for _, v in mods) - _base(target)
    dice = ctx.rolls_of(2, 6, f"Engagement Table: {firer.id} engages {hex_id}")
    total = sum(dice) + net
    result = bdata().roll("engagement_not_involved", total)
    text = ", ".join(f"{n} {v:+d}" for n, v in mods) or "no DRM"
    ctx.log(f"Engagement Table: {dice[0]}+{dice[1]}, firer {_base(firer)} ({text}) against "
            f"target {_base(target)} = {total}: {result}", hexes=(hex_id,))
    if target.screen and result == "Both Loss":               # BbF 1.5d (rules helper)
        result = "Target must Retreat, no losses"
        ctx.log(f"{target.id} is Screening: the Both Loss becomes {result} (BbF 1.5d)",
                hexes=(hex_id,))
    firer_hit = result in ("Firer Loss & Traffic", "Both Loss")
    if firer_hit and not in_range(target, hex_id, firer.hex):
        ctx.log(f"{firer.id} is out of {target.id}'s Range: the Firer's result is ignored")
        firer_hit = False
    if firer_hit:
        if result == "Firer Loss & Traffic":
            place_traffic(state, firer.hex, ctx)     # 5.1g: in the Firer's hex
        lose(state, firer, 1, ctx)
    if result in ("Both Loss", "Target Loss & Retreat"):
        lose(state, target, 1, ctx)
    alive = [q for q in units if q.status == "map"]
    if result in ("Target Loss & Retreat", "Target must Retreat, no losses") and alive:
        retreat_stack(state, alive, target, "automatic", firer.hex, ctx)
        jump(state, side, [hex_id], ctx, f"the stack in {hex_id} retreats")   # 9.1f, 10.3d
    if firer.status == "map" and firer.fire_events >= FIRE_EVENTS and not firer.stopped:
        firer.stopped = "BCS-7.0d-2"


def _modifier(name: str) -> int:
    for m in bdata().modifiers:
        if m.chart == "engagement_not_involved" and m.name == name:
            return m.drm
    raise KeyError(name)
