"""HQ retreats (9.1f, 9.1g): the ending hex of a retreating HQ and what the retreat does to its
Formation (Trains to Ghost, Prepared Defense removed, Coordination; activation status kept)."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import bdata, enemy_in, on_area
from pbem.games.bcs.snafu import effect
from pbem.games.bcs.state import BcsState, Piece
from pbem.games.bcs.supply import enemy_msr_hexes, msr_possible
from pbem.games.bcs.terrain import is_road_hex
from pbem.games.bcs.zoc import engagement_zone, ezoc

RETREAT = 3                      # 9.1f: 3 hexes from its starting hex (farther: 9.1f note)


def why_not_end(state: BcsState, hq: Piece, to: str) -> tuple[str, str]:
    """("", "") when an HQ may end its retreat in ``to`` (9.1f), else (rule, reason): a
    non-railroad road hex 3 hexes from its hex, free of enemy pieces, EZOC, enemy Engagement
    Zones and existing enemy MSRs; farther only where a complete MSR is possible."""
    grid = bdata().game_map.grid
    if not grid.is_hex(to) or not on_area(state, to):
        return "BCS-1.1d", f"{to} is not a hex of the playing area"
    d = grid.distance(hq.hex, to)
    if d < RETREAT:
        return "BCS-9.1f-2", f"{to} is {d} hexes from {hq.hex}: an HQ retreats 3 hexes"
    if not is_road_hex(to):
        return "BCS-9.1a", f"an HQ ends its retreat in a non-railroad road hex, not {to}"
    if enemy_in(state, hq.side, to):
        return "BCS-9.1f-2", f"{to} holds an enemy piece"
    if ezoc(state, hq.side, to):
        return "BCS-9.1f-2", f"{to} is in an enemy ZOC"
    if engagement_zone(state, hq.side, to):
        return "BCS-9.1f-2", f"{to} is in an enemy Engagement Zone"
    if to in enemy_msr_hexes(state, hq.side):
        return "BCS-9.1f-2", f"{to} is on an existing enemy MSR"
    if d > RETREAT and not msr_possible(state, hq.side, to):
        return "BCS-9.1f-2", f"{to} is {d} hexes away: a retreat beyond 3 hexes must end " \
                             f"where a complete MSR is possible"
    return "", ""


def check_voluntary(state: BcsState, side: str, hq_id: str, to: str) -> Piece:
    """Check a Voluntary Retreat of the active Formation's HQ (9.1g, 7.5j): in the Activities,
    under any SNAFU result (Fail included), instead of its movement; returns the HQ."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side or act.recovery:
        raise IllegalOrder("an HQ retreats voluntarily in the Activities of its Formation's "
                           "Activation", rule="BCS-9.1g")
    hq = state.pieces.get(hq_id)
    if hq is None or hq.side != side or hq.kind != "hq" or hq.status != "map":
        raise IllegalOrder(f"{hq_id} is not one of your HQs on the map", rule="BCS-9.1g")
    if hq.formation != act.formation:
        raise IllegalOrder(f"only the active Formation's HQ may retreat voluntarily, not "
                           f"{hq_id}", rule="BCS-9.1g")
    if effect(act.snafu, "Voluntary Retreat?") not in ("Yes", "HQ Only"):
        raise IllegalOrder(f"SNAFU {act.snafu} allows no Voluntary Retreat", rule="BCS-7.5j-2")
    if hq.moved:
        raise IllegalOrder(f"{hq_id} has moved: a Voluntary Retreat is made instead of its "
                           f"movement", rule="BCS-7.5j-1")
    rule, why = why_not_end(state, hq, to)
    if rule:
        raise IllegalOrder(why, rule=rule)
    return hq


def retreat(state: BcsState, hq: Piece, to: str, ctx: Context) -> None:
    """Place a retreating HQ in its ending hex (no path, 9.1f): its Combat Trains turn Ghost,
    Prepared Defense goes, the HQ gets a Coordination marker on itself only (9.1a, 4.4a,
    errata v1.0); its activation status is unchanged (9.1h)."""
    form = state.formations[hq.formation]
    name = bdata().formations[form.id].name
    start = hq.hex
    hq.hex = to
    ctx.log(f"{name}'s HQ retreats from {start} to {to}", hexes=(start, to))
    trains = state.pieces[form.trains]
    if trains.status == "map" and not trains.ghost:
        trains.ghost = True
        ctx.log(f"{name}'s Combat Trains turn Ghost (HQ retreat)")
    if form.prepared_defense:
        form.prepared_defense = False
        ctx.log(f"{name} loses its Prepared Defense (HQ retreat)")
    if not form.coordination:
        form.coordination = True
        ctx.log(f"{name} gets a Coordination marker (HQ retreat)")


def voluntary(state: BcsState, side: str, hq_id: str, to: str, ctx: Context) -> None:
    """A Voluntary Retreat of the active Formation's HQ (9.1g): checked, then carried out by
    9.1f; the moving stack's move ends, and the HQ moves no more this Activation."""
    hq = check_voluntary(state, side, hq_id, to)
    act = state.activation
    assert act is not None
    act.began = True
    for q in act.stack:
        state.pieces[q].done_moving = True
    act.stack = []
    retreat(state, hq, to, ctx)
    hq.moved = hq.finished = True
