"""A stand-in full state built from one side's view (hosted players check orders against it).

Everything the view shows is copied: public tracks, the side's own units with their
bookkeeping, its leader use, minor port claims and pending allocation. Each enemy block of the
view becomes a generic block of that side ("?axis-3": the most common combat-unit profile of
the side, at full SP) in the same hex; the enemy's track, support units, eliminated units, its
claims and flags do not exist in the stand-in. No rule checked before the first die reads an
enemy block's identity or strength, so orders check as on the real state (docs/holdfast.md,
"What a hosted player's check cannot see").
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import msgspec

from pbem.core.errors import PbemError
from pbem.games.holdfast.data import STANDIN_PREFIX, world
from pbem.games.holdfast.options import resolve_options
from pbem.games.holdfast.state import (HoldfastState, PublicState, SideState, UnitState, enemy)
from pbem.games.holdfast.view import HoldfastView


def standin_id(side: str, n: int) -> str:
    """The id of the n-th stand-in block of side (no unit id, and no order can write it)."""
    return f"{STANDIN_PREFIX}{side}-{n}"


def generic_spec(units: dict[str, Any], side: str) -> Any:
    """The generic block of a side: its most common combat-unit profile, named as unknown."""
    profiles = Counter((u.type, u.nationality, u.drc, u.th, u.mp, u.max_sp)
                       for u in units.values()
                       if u.side == side and u.type != "support" and not u.gray_hex_entry)
    if not profiles:
        raise PbemError(f"the scenario has no {side} combat unit to stand in for a block")
    best = min(profiles, key=lambda p: (-profiles[p], p))
    model = next(u for _, u in sorted(units.items()) if u.side == side and u.type != "support"
                 and not u.gray_hex_entry
                 and (u.type, u.nationality, u.drc, u.th, u.mp, u.max_sp) == best)
    changes = {"id": f"{STANDIN_PREFIX}{side}", "name": f"unknown {side} block",
               "aliases": [], "source": "stand-in for a block whose identity is hidden"}
    if isinstance(model, msgspec.Struct):
        return msgspec.structs.replace(model, **changes)
    out = copy.copy(model)
    for k, v in changes.items():
        setattr(out, k, v)
    return out


def standin(view: HoldfastView | dict[str, Any], side: str) -> HoldfastState:
    """A full state consistent with side's view; enemy blocks are generic stand-ins."""
    raw = msgspec.to_builtins(view) if isinstance(view, HoldfastView) else view
    v = msgspec.convert(raw, type=HoldfastView)        # a copy: the stand-in shares nothing
    if v.side != side:
        raise PbemError(f"this view is the {v.side}'s, not the {side}'s")
    w = world(v.scenario)
    own = {u.id: UnitState(id=u.id, where=u.where, hex=u.hex, sp=u.sp, entry_turn=u.entry_turn,
                           moved=u.moved, attacked=u.attacked, used=u.used, gray=u.gray,
                           placed=u.placed, reentry_turn=u.reentry_turn, bought=u.bought)
           for u in v.units}
    foe = enemy(side)
    blocks = {}
    for n, b in enumerate(v.blocks, start=1):
        uid = standin_id(foe, n)
        blocks[uid] = UnitState(id=uid, where="map", hex=b.hex, sp=w.units[uid].max_sp)
    pub = PublicState(scenario=v.scenario, options=resolve_options(v.options), turn=v.turn,
                      phase=v.phase, active=v.active, step=v.step, weather=v.weather,
                      weather_roll=v.weather_roll, rp=dict(v.rp), control=dict(v.control),
                      moves=list(v.moves), combats=list(v.combats),
                      seq=max((u.placed for u in v.units), default=0), result=v.result,
                      slots=dict(v.slots), due=dict(v.due), lost=dict(v.lost))
    mine = SideState(units=own, leader_mp_used=v.leader_mp_used,
                     minor_ports=dict(v.minor_ports), pending_hits=v.pending_hits,
                     standing=dict(v.standing), slots=dict(v.own_slots))
    parts = {side: mine, foe: SideState(units=blocks)}
    return HoldfastState(public=pub, private={s: parts[s] for s in sorted(parts)})
