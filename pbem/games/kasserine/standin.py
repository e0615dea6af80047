"""A stand-in full state built from one side's view (hosted players check orders against it).

All counters are face up, so the units, tracks, the combat in progress, the moves seen and
the public marker counts come straight from the view. What the view does not show:

- the enemy's markers: their number is public arithmetic (the turn's allotment less the 12.0
  losses, the values spent and the face-down markers on the current combat), their values are
  the rest of the allotment (the pool's lowest values less the spent ones); which of them lie
  face down is hidden, so the stand-in puts the lowest ones face down;
- which of the viewer's own markers lie face down, unless `owner_sees_facedown` (same choice);
- the enemy's standing orders: the stand-in enemy has `standing support never`, so during the
  support-fire steps it neither makes the game wait nor draws a marker (a die);
- the attacker's intentions hidden from the defender (step 3, advance, loss): as masked in the
  defender's view (no step-3 marker, no `sf ask`; advance and loss asked after the die);
- marker ids (secret even from their owner): stand-in ids `?us-m1`, `?axis-f1` ...

docs/kasserine.md, "What a hosted player's check cannot see", lists what this changes.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from pbem.core.errors import PbemError
from pbem.games.kasserine.state import store_of
from pbem.games.kasserine.board import data_of
from pbem.games.kasserine.options import Options
from pbem.games.kasserine.scenario import scenario_ids
from pbem.games.kasserine.state import (SIDES, Combat, KasserineState, Marker, SidePrivate,
                                        Standing, UnitState, other)
from pbem.games.kasserine.view import KasserineView


def facedown_count(c: Combat | None, side: str, active: str) -> int:
    """Markers side has face down on the combat in progress (placed, not yet revealed)."""
    if c is None:
        return 0
    if side == active:
        return max(0, c.att_down - len(c.att_values))
    return max(0, c.def_down - len(c.def_values))


def _markers(side: str, values: list[int], down: int, down_values: list[int] | None,
             ) -> SidePrivate:
    """A private part holding values, `down` of them face down (down_values if known)."""
    rest = sorted(values)
    if down_values is None:
        down_values = rest[:down]
    for x in down_values:
        rest.remove(x)
    return SidePrivate(unused=[Marker(id=f"?{side}-m{k}", value=x) for k, x in enumerate(rest, 1)],
                       facedown=[Marker(id=f"?{side}-f{k}", value=x)
                                 for k, x in enumerate(down_values, 1)])


def standin(view: KasserineView | dict[str, Any], side: str) -> KasserineState:
    """A full state consistent with side's view (see the module docstring for the stand-ins)."""
    raw = msgspec.to_builtins(view) if isinstance(view, KasserineView) else view
    v = msgspec.convert(raw, type=KasserineView)       # a copy: the stand-in shares nothing
    if v.side != side:
        raise PbemError(f"this view is the {v.side}'s, not the {side}'s")
    state = KasserineState(scenario=v.scenario or scenario_ids()[0],
                           options=v.options or Options(), turn=v.turn, active=v.active,
                           phase=v.phase)
    data = data_of(state)
    for u in v.units:
        printed = data.units[u.id].steps or 1
        steps = 0 if u.status == "dead" else 1 if u.depleted else printed
        state.units[u.id] = UnitState(side=u.side, hex=u.hex, status=u.status, steps=steps,
                                      moved=u.moved and not u.mobile_moved,
                                      mobile_moved=u.mobile_moved, attacked=u.attacked,
                                      barred=u.barred)
    state.released = list(v.released)
    state.triggered = dict(v.triggered)
    state.holder = dict(v.holder)
    state.max_captured = v.max_captured
    state.targets = list(v.targets)
    state.bombarded = dict(v.bombarded)
    state.loc_lost = dict(v.loc_lost)
    state.spent = {k: list(x) for k, x in v.spent.items()}
    state.combat = v.combat
    state.last_combat = v.last_combat
    state.moves = list(v.moves)
    state.wait = v.wait
    state.result = v.result
    m = v.markers
    foe = other(side)
    for s in SIDES:
        n = max(0, data.allotment(v.turn, s) - v.loc_lost.get(s, 0))
        state.allotment[s] = m.allotment if s == side else n
    mine = _markers(side, list(m.not_revealed), m.facedown, m.facedown_values)
    mine.standing = store_of(v.standing)
    left = Counter(data.pools[foe][:state.allotment[foe]])
    left.subtract(v.spent.get(foe, []))
    theirs = _markers(foe, sorted(left.elements()),
                      facedown_count(v.combat, foe, v.active), None)
    theirs.standing = {"support": "never"}          # neither asked nor drawing: see above
    state.private = {s: (mine if s == side else theirs) for s in SIDES}
    return state
