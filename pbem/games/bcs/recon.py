"""Recon (4.3d): a Recon unit of the active Formation spends a Fire Event to try to place a
Combat OBJ on an enemy unit within 2 hexes (1d6 at or below its Action Rating)."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import at, bdata, face
from pbem.games.bcs.combat import can
from pbem.games.bcs.shock import FIRE_EVENTS, check_fire_events_left, check_fire_stack, fire_event
from pbem.games.bcs.snafu import effect
from pbem.games.bcs.state import BcsState, Piece, other

RECON_RANGE = 2                  # 4.3d: an enemy unit within 2 hexes of the Recon unit
PD_RANGE = 6                     # 4.3d, 4.5d: with Prepared Defense, within 6 hexes of the HQ


def check_recon(state: BcsState, side: str, hex_id: str, uid: str) -> Piece:
    """Check a Recon (4.3d): a Recon unit of the active Formation (a cavalry counter whose side
    showing may Recon by the Unit Capabilities Chart or has an Assault Arrow: the chart's
    reconstructed Dual row says no, which would leave the game without Recon; 4.3d names every
    cavalry unit), the SNAFU result allowing,
    not Finished, Stopped or overstacked, with a Fire Event left, at an enemy unit within 2
    hexes in a hex without an OBJ (within 6 hexes of the HQ with Prepared Defense)."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side or act.recovery:
        raise IllegalOrder("Recon is made by the active player in the Activities of an "
                           "Activation", rule="BCS-4.3d-1")
    p = state.pieces.get(uid)
    if p is None or p.side != side or p.kind != "unit" or p.status != "map":
        raise IllegalOrder(f"{uid} is not a combat unit of yours on the map", rule="BCS-4.3d-1")
    if p.formation != act.formation:
        raise IllegalOrder(f"{uid} is not of the active Formation", rule="BCS-4.3d-1")
    f = face(p)
    if not bdata().units[uid].recon or f is None or not (can(p, "Recon") or f.assault_arrow):
        raise IllegalOrder(f"{uid} is no Recon unit", rule="BCS-4.3d-1")
    if effect(act.snafu, "Recon Created?") != "Yes":
        raise IllegalOrder(f"SNAFU {act.snafu} allows no Recon", rule="BCS-4.3d-1")
    if p.finished:
        raise IllegalOrder(f"{uid} is Finished", rule="BCS-3.3d")
    if p.stopped:
        raise IllegalOrder(f"{uid} is Stopped: no Recon", rule="BCS-4.3d-2")
    check_fire_stack(state, p)
    check_fire_events_left(p)
    grid = bdata().game_map.grid
    if not grid.is_hex(hex_id) or grid.distance(p.hex, hex_id) > RECON_RANGE:
        raise IllegalOrder(f"{hex_id} is more than {RECON_RANGE} hexes from {uid}",
                           rule="BCS-4.3d-3")
    if not any(q.side == other(side) and q.kind == "unit" for q in at(state, hex_id)):
        raise IllegalOrder(f"{hex_id} holds no enemy unit", rule="BCS-4.3d-3")
    if hex_id in state.objs:
        raise IllegalOrder(f"{hex_id} has an OBJ already: Recon makes no Double OBJ",
                           rule="BCS-4.3d-4")
    form = state.formations[act.formation]
    hq = state.pieces[form.hq]
    if form.prepared_defense and (hq.status != "map"
                                  or grid.distance(hq.hex, hex_id) > PD_RANGE):
        raise IllegalOrder("with Prepared Defense a Recon OBJ goes within 6 hexes of the HQ",
                           rule="BCS-4.3b-2")
    return p


def recon(state: BcsState, side: str, hex_id: str, uid: str, ctx: Context) -> None:
    """A Recon attempt: one Fire Event, then 1d6; at or below the unit's Action Rating a Combat
    OBJ goes on the hex (usable by every unit of the Formation); otherwise none, and the unit
    may move on or try again with a Fire Event left. A second Fire Event STOPs it (7.0d)."""
    p = check_recon(state, side, hex_id, uid)
    act = state.activation
    assert act is not None
    fire_event(state, p)
    ar = bdata().units[uid].ar
    die = ctx.roll(6, f"Recon: {uid} at {hex_id}")
    if die <= ar:
        state.objs.append(hex_id)
        act.objs.append(hex_id)
        ctx.log(f"{uid} makes a Recon of {hex_id} (Fire Event {p.fire_events}): {die} against "
                f"AR {ar}, a Combat OBJ is placed", hexes=(p.hex, hex_id))
    else:
        ctx.log(f"{uid} makes a Recon of {hex_id} (Fire Event {p.fire_events}): {die} against "
                f"AR {ar}, no OBJ", hexes=(p.hex, hex_id))
    if p.fire_events >= FIRE_EVENTS and not p.stopped:
        p.stopped = "BCS-7.0d-2"
