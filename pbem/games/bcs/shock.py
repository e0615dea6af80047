"""Shock Attacks (7.3): a Tac unit's quick assault on a hex without AV, for one Fire Event (7.0d),
on the Combat Table; the unit advances on success and may move on.

Whether the hex holds an AV unit is never hidden: the top unit of a stack (5.5e: longest Range,
then greatest AV) is an AV unit whenever the stack holds one, as units without AV have Range 1.
A unit with Support (9.2g) is protected as well: whether a unit has Support is public (the HQ's
Support marker and the Dropped Support markers are seen).

A unit waiting off the map may Shock Attack an enemy-held Entry hex from the virtual hex beside it
(9.3f as printed, combat.off_map_unit and combat.virtual_step), +2 like a Regular Attack from there.
"""

from __future__ import annotations

from typing import Callable

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import at, bdata, combat_count, face, is_av
from pbem.games.bcs.combat import (attacker_drms, can, check_activities, in_obj_zone, modifier,
                                   off_map, off_map_unit, resolve, virtual_step)
from pbem.games.bcs.movement import current_ma
from pbem.games.bcs.state import MP12, BcsState, Piece, other
from pbem.games.bcs.terrain import PROHIBITED, step_cost
from pbem.games.bcs.view import top_unit
from pbem.games.bcs.support import has_access
from pbem.games.bcs.zoc import av_zone, ezoc

FIRE_EVENTS = 2              # 7.0d: at most two Fire Events per unit and Activation
SHOCK_MP = 3                 # 7.3c: the target hex costs at most 3 MP at Tac rates


def check_fire_stack(state: BcsState, p: Piece) -> None:
    """7.0d-4: a unit whose stack has finished its move, or that is overstacked, has no Fire
    Event (Shock Attacks and Engagements alike)."""
    act = state.activation
    assert act is not None
    if p.done_moving or (p.moved and p.id not in act.stack):
        raise IllegalOrder(f"{p.id}'s stack has finished its move: its Fire Events are lost",
                           rule="BCS-7.0d-4")
    if combat_count(state, p.hex) > 2:
        raise IllegalOrder(f"{p.id} is overstacked in {p.hex} and cannot use a Fire Event",
                           rule="BCS-7.0d-4")


def check_fire_events_left(p: Piece) -> None:
    """7.0d-2: at most FIRE_EVENTS Fire Events per unit and Activation."""
    if p.fire_events >= FIRE_EVENTS:
        raise IllegalOrder(f"{p.id} has used its {FIRE_EVENTS} Fire Events", rule="BCS-7.0d-2")


def check_shock(state: BcsState, side: str, hex_id: str, uid: str) -> Piece:
    """Check a Shock Attack on what the attacker can see (7.3 requirements, 7.3a-c, 7.3e-b,
    7.0d); the Shock unit."""
    check_activities(state, side, "Shock Attacks", "BCS-7.2b", none="Attacks")
    act = state.activation
    assert act is not None
    gm = bdata().game_map
    if not gm.grid.is_hex(hex_id):
        raise IllegalOrder(f"{hex_id} is not a hex of the map", rule="BCS-7.3-r2")
    off = off_map(state, side, uid)
    p = off_map_unit(state, side, uid, hex_id, "Shock unit") if off else \
        _on_map_unit(state, side, uid)
    check_fire_stack(state, p)
    f = face(p)
    assert f is not None
    if f.mclass != "tac" or not can(p, "Shock Attack (Tac MA only)"):
        raise IllegalOrder(f"{uid} cannot Shock Attack: a Tac MA unit with an Assault Arrow, "
                           f"Red or Light AV or Breakthrough Armor is needed",
                           rule="BCS-7.3-r1")
    check_fire_events_left(p)
    if p.stopped:
        raise IllegalOrder(f"{uid} has a STOP in {p.hex or 'off the map'}: no Shock Attack "
                           f"from there", rule="BCS-7.3e-b")
    if p.mp >= current_ma(state, p):
        raise IllegalOrder(f"{uid} has no MA left", rule="BCS-7.3c-1")
    if not off and hex_id not in gm.grid.neighbours(p.hex):
        raise IllegalOrder(f"{uid} in {p.hex} is not adjacent to {hex_id}", rule="BCS-7.2b")
    enemies = [q for q in at(state, hex_id) if q.side == other(side) and q.kind == "unit"]
    if not enemies:
        raise IllegalOrder(f"{hex_id} holds no enemy combat unit", rule="BCS-7.3-r2")
    if not in_obj_zone(state, hex_id):
        raise IllegalOrder(f"{hex_id} is in no OBJ Zone (within 2 hexes of a Combat OBJ)",
                           rule="BCS-7.3-r2")
    if any(is_av(q) for q in enemies):   # an AV unit is always on top (5.5e), so never hidden
        raise IllegalOrder(f"{hex_id} holds an AV unit ({top_unit(enemies).id}): no Shock Attack",
                           rule="BCS-7.3-r2")
    if any(has_access(state, q) for q in enemies):          # 9.2g: Support protects
        raise IllegalOrder(f"{hex_id} holds a unit with Support (an AV rating): no Shock Attack",
                           rule="BCS-7.3-r2")
    rain = state.weather == "Rain"
    step = virtual_step(hex_id, "tac", rain) if off else step_cost(p.hex, hex_id, "tac", rain)
    cost = step.mp
    # 7.3e-b: a STOP hex may be Shock Attacked (the STOP applies on advancing into it)
    if cost == PROHIBITED or (cost > SHOCK_MP * MP12 and not step.stop):
        what = "Prohibited" if cost == PROHIBITED else f"{cost / MP12:g} MP"
        raise IllegalOrder(f"{hex_id} costs {what} at Tac rates from "
                           f"{p.hex or 'off the map'}: a Shock Attack needs 3 MP or less",
                           rule="BCS-7.3c-2")
    return p


def _on_map_unit(state: BcsState, side: str, uid: str) -> Piece:
    """The Shock unit on the map: a combat unit of the active Formation, not Finished (7.2b,
    7.2q)."""
    act = state.activation
    assert act is not None
    p = state.pieces.get(uid)
    if p is None or p.side != side or p.kind != "unit" or p.status != "map":
        raise IllegalOrder(f"{uid} is not a combat unit of yours on the map", rule="BCS-7.2b")
    if p.formation != act.formation:
        raise IllegalOrder(f"{uid} is not of the active Formation", rule="BCS-7.2b")
    if p.finished:
        raise IllegalOrder(f"{uid} is Finished and cannot Shock Attack", rule="BCS-7.2q")
    return p


def fire_event(state: BcsState, p: Piece) -> None:
    """Spend one of a unit's Fire Events (7.0d-1); its stack becomes the one moving (3.3c)."""
    act = state.activation
    assert act is not None
    if p.id not in act.stack:
        for q in act.stack:
            state.pieces[q].done_moving = True
        act.stack = [p.id]
    act.began = True
    p.fire_events += 1


def shock(state: BcsState, side: str, hex_id: str, uid: str, ctx: Context,
          step4: Callable[[], int] | None = None) -> None:
    """A Shock Attack: the Fire Event spent, the Combat Table rolled after the Barrage of step4
    (one Air Point, 7.3b); on success the unit advances and may move on (7.3f), else it stays
    and may move on (7.3g)."""
    unit = check_shock(state, side, hex_id, uid)
    act = state.activation
    assert act is not None
    fire_event(state, unit)
    ctx.log(f"{unit.id} makes a Shock Attack on {hex_id}"
            f"{'' if unit.hex else ' from off map'} (Fire Event {unit.fire_events})",
            hexes=(unit.hex or hex_id, hex_id))
    act.shocked = True
    att = attacker_drms(state, unit, None, hex_id)
    f = face(unit)
    if f is not None and f.breakthrough:
        att.append(("Breakthrough AV Unit", modifier("Breakthrough AV Unit")))
    frm = unit.hex
    resolve(state, side, unit, hex_id, att, ctx, step4)
    if unit.status == "map" and unit.hex != frm:
        _after_advance(state, side, unit)
    if unit.status == "map" and unit.fire_events >= FIRE_EVENTS and not unit.stopped:
        unit.stopped = "BCS-7.0d-2"


def _after_advance(state: BcsState, side: str, unit: Piece) -> None:
    """7.3f: STOPs apply normally in the hex advanced into: Traffic (set by the advance, 5.1g),
    STOP terrain, a Real AV EZOC for Tac MA (6.0h)."""
    d = bdata()
    if unit.stopped:
        return
    if d.terrain[d.game_map.terrain[unit.hex]].tac == "STOP":
        unit.stopped = "BCS-5.2e"
    elif av_zone(ezoc(state, side, unit.hex)):              # Real or Support AV EZOC
        unit.stopped = "BCS-6.0h"
