"""The stand-in (docs/adding-a-game.md, 7): a full state rebuilt from one side's view alone, for
a hosted player's check. Everything the view shows is copied; each enemy stack gets its top
unit and, for the units under it, copies of the top unit (``TOP--standinN``, loader.UnitTable:
same Range and AV, so they stay under it); the enemy's arrivals are as many copies of one of
its counters off the map. No enemy counter the view does not show is named; the enemy's Air
Points are 0, its steps full and its standing orders the engine's choices (the first mode of
each topic). A question waiting (reactions.py) is copied without the order it stopped: an answer
there is checked, then the question goes."""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.games.bcs.board import bdata
from pbem.games.bcs.data import Unit
from pbem.games.bcs.support import eligible, has_access
from pbem.games.bcs.loader import STANDIN_MARK
from pbem.games.bcs.reactions import default_store
from pbem.games.bcs.setup import _place, new_state
from pbem.games.bcs.state import BcsState, Piece, SidePrivate, other
from pbem.games.bcs.view import BcsView


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
    state.assigning, state.unassigned, state.rommel = list(v.assigning), list(v.unassigned), \
        v.rommel                              # the Assignment Phase (assignment.py)
    state.private = {side: v.private, enemy: SidePrivate(standing=default_store())}
    state.wait = v.wait                       # a question: answered there without its order
    state.objective_draw, state.objective = v.objective_draw, v.objective    # BbF 4.0
    state.exits, state.mines = dict(v.exits), dict(v.mines)                 # BbF 4.0, 3.1
    state.mines_due = v.mines_due                                          # BbF 3.1a
    state.setting, state.setup_zones = list(v.setting), dict(v.setup_zones)  # 1.4A-E
    state.setup_fixed, state.weather_due = dict(v.setup_fixed), v.weather_due
    state.smoothing = v.smoothing                                           # Optional 9
    for f in state.formations.values():
        if f.side == enemy:
            f.in_play = False
    for f in v.formations:
        state.formations[f.id] = f
    for p in v.own:
        state.pieces[p.id] = p
    for pid in [pid for pid, p in state.pieces.items() if p.side == enemy]:
        if state.pieces[pid].kind == "unit":
            del state.pieces[pid]             # no unseen enemy counter is named in a stand-in
        else:
            q = state.pieces[pid]
            q.status, q.hex = "dead", ""
    for p in v.enemy_off:
        state.pieces[p.id] = p
    for st in v.enemy:
        for o in st.others:
            _put(state, o, st.hex, "move")
        if not st.top:
            continue
        top = Piece(id=st.top, side=enemy, formation=bdata().units[st.top].formation,
                    kind="unit", hex=st.hex, face=st.face, screen=st.screen)
        state.pieces[st.top] = top
        for k in range(1, st.units):          # copies of the top unit stay under it (5.5e)
            fid = f"{st.top}{STANDIN_MARK}{k}"
            state.pieces[fid] = msgspec.structs.replace(top, id=fid)
    _support(state, v, enemy)
    base = min(u.id for u in bdata().units.values() if u.side == enemy)
    for k in range(1, v.enemy_arriving - sum(1 for p in state.pieces.values()
                                             if p.side == enemy and p.status == "off") + 1):
        fid = f"{base}{STANDIN_MARK}off{k}"
        state.pieces[fid] = Piece(id=fid, side=enemy, formation=bdata().units[base].formation,
                                  kind="unit", status="off", arrives=state.turn + 1)
    return state


def _put(state: BcsState, pid: str, hex_id: str, face: str) -> None:
    if pid not in state.pieces:          # an HQ or Trains its scenario's set-up lacks (a
        _place(state, pid, "", None)     # rule case or test adds one: stark-hq in 5.2)
    q: Piece = state.pieces[pid]
    q.status, q.hex, q.face = "map", hex_id, face


def _support(state: BcsState, v: BcsView, enemy: str) -> None:
    """The enemy's Support as the view shows it (9.2): for each HQ marker a copy of one of his
    counters of that kind in Support (a Stand Off one of the Range shown), the Dropped Support
    markers on the first units of each stack, and a Temporary drop (9.2j) on the units left with
    Support in a stack the view shows without it."""
    units = [u for u in bdata().units.values() if u.side == enemy]
    for fid, kinds in v.support.items():
        if state.formations[fid].side != enemy:
            continue
        for kind in kinds:
            fits = sorted((u for u in units if _kind(u) == kind),
                          key=lambda u: (kind == "stand_off"
                                         and _range(u) != v.stand_off_range.get(fid), u.id))
            if fits:
                pid = f"{fits[0].id}{STANDIN_MARK}support-{fid}-{kind}"
                state.pieces[pid] = Piece(id=pid, side=enemy, formation=fid, kind="unit",
                                          status="support", steps=fits[0].steps)
    for st in v.enemy:
        here = sorted((p for p in state.pieces.values() if p.status == "map" and p.hex == st.hex
                       and p.side == enemy and p.kind == "unit"), key=lambda p: p.id != st.top)
        for p in here[:st.dropped]:
            p.dropped = True
        if not st.supported and state.activation is not None:
            state.activation.dropped += [p.id for p in here if has_access(state, p)]
        forms = sorted(f for f in v.support if state.formations[f].side == enemy)
        if st.supported and forms and not any(has_access(state, p) for p in here):
            # a supported unit of another Formation under the top (a mixed stack): a copy of
            # the top takes a Formation with Support
            spare = [p for p in reversed(here) if not p.dropped and eligible(p)]
            if spare:
                spare[0].formation = forms[0]


def _kind(u: Unit) -> str:
    """The Support marker a counter would give in Support ("" when it has no AV side)."""
    faces = [f for f in (u.move, u.deployed) if f is not None and f.av is not None]
    if not faces:
        return ""
    f = max(faces, key=lambda f: f.av or 0)
    return "" if f.assault_arrow else {"offensive": "red", "limited": "limited", "light": "limited",
                                       "stand_off": "stand_off"}[f.av_class]


def _range(u: Unit) -> int:
    """The Range of a counter's greater AV side (9.2e)."""
    return max((f for f in (u.move, u.deployed) if f is not None and f.av is not None),
               key=lambda f: f.av or 0).range
