"""The stand-in (docs/adding-a-game.md, 7): a full state rebuilt from one side's view alone, for
a hosted player's check. Everything the view shows is copied; each enemy stack gets its top
unit and, for the units under it, enemy units of no greater Range and AV (so they stay under
it), taken from the enemy's counters the view does not show; the enemy's arrivals are as many
of its other counters off the map; its Air Points are 0."""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.games.bcs.board import bdata
from pbem.games.bcs.setup import new_state
from pbem.games.bcs.state import BcsState, Piece, SidePrivate, other
from pbem.games.bcs.view import BcsView


def _key(uid: str, face: str) -> tuple[int, int, str]:
    u = bdata().units[uid]
    f = u.deployed if face == "deployed" and u.deployed is not None else u.move
    return (-f.range, -(f.av or 0), uid)


def standin(view: BcsView | dict[str, Any], side: str) -> BcsState:
    """A full state from side's view: view(standin(v, side), side) == v."""
    raw = msgspec.to_builtins(view) if isinstance(view, BcsView) else view
    v = msgspec.convert(raw, type=BcsView)           # a copy: nothing shared with the view
    state = new_state(v.scenario, dict(v.options))
    enemy = other(side)
    state.turn, state.weather, state.phase, state.next_side = v.turn, v.weather, v.phase, \
        v.next_side
    state.air_due = v.air_due
    state.traffic, state.objs, state.control = list(v.traffic), list(v.objs), dict(v.control)
    state.activation = v.activation
    state.private = {side: v.private, enemy: SidePrivate()}
    for f in state.formations.values():
        if f.side == enemy:
            f.in_play = False
    for f in v.formations:
        state.formations[f.id] = f
    for p in v.own:
        state.pieces[p.id] = p
    pool = sorted(pid for pid, p in state.pieces.items() if p.side == enemy)
    for pid in pool:
        q = state.pieces[pid]
        q.status, q.hex = "dead", ""
    used: set[str] = set()
    for st in v.enemy:
        for o in st.others:
            _put(state, o, st.hex, "move")
            used.add(o)
        if not st.top:
            continue
        _put(state, st.top, st.hex, st.face)
        used.add(st.top)
    for st in v.enemy:
        if not st.top:
            continue
        top = _key(st.top, st.face)
        fillers = [u for u in pool if u not in used and u in bdata().units
                   and _key(u, "move") > top]
        for u in fillers[:st.units - 1]:
            _put(state, u, st.hex, "move")
            used.add(u)
    for u in [u for u in pool if u not in used][:v.enemy_arriving]:
        state.pieces[u].status = "off"
    return state


def _put(state: BcsState, pid: str, hex_id: str, face: str) -> None:
    q: Piece = state.pieces[pid]
    q.status, q.hex, q.face = "map", hex_id, face
