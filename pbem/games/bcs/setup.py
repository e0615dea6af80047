"""The initial state of a scenario from the data: set-up, arrivals, markers in play (BbF 5.x)."""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.core.errors import ScenarioError
from pbem.games.bcs.board import bdata
from pbem.games.bcs.data import Arrival, Scenario
from pbem.games.bcs.victory import BUILT
from pbem.games.bcs.state import FRESH, SIDES, BcsState, FormationState, Piece, SidePrivate


def arrivals(s: Scenario) -> list[Arrival]:
    """The reinforcements a scenario receives (its own list, the OOA, or the OOA's entries that
    reach the playing area: BbF 5.2 'all OOA units that can arrive on Map B')."""
    d = bdata()
    if s.reinforcements == "scenario":
        return list(s.arrival)
    if s.reinforcements not in ("ooa", "ooa_playing_area"):
        return []
    cal = d.ooa.calendar
    first, last = cal.index(s.first_turn), cal.index(s.last_turn)
    out = [a for a in d.ooa.arrival if first <= cal.index(a.turn) <= last and a.counters]
    if s.reinforcements == "ooa_playing_area":
        area = set(s.playing_area)
        out = [_with_entry(a, [e for e in a.entry if _reaches(e, area)]) for a in out]
        out = [a for a in out if a.entry]
    return out


def _with_entry(a: Arrival, entry: list[str]) -> Arrival:
    return msgspec.structs.replace(a, entry=entry)


def _reaches(entry: str, area: set[str]) -> bool:
    gm = bdata().game_map
    if entry.startswith("hq:"):
        return True
    if len(entry) == 1:
        return any(h[0] in area for h in gm.hexsets.get(f"entry-{entry}", []))
    return entry[0] in area


def new_state(scenario: str, options: dict[str, Any]) -> BcsState:
    """The state at the scenario's first decision (no dice): the first player activates."""
    d = bdata()
    s = d.check_playable(scenario)
    if s.victory.kind not in BUILT:
        raise ScenarioError(f"{d.root}/scenarios/{scenario}.toml: scenario {scenario}'s victory "
                            f"conditions ({s.victory.kind}) are not built yet: play 5.2")
    cal = d.ooa.calendar
    dates = cal[cal.index(s.first_turn):cal.index(s.last_turn) + 1]
    if len(dates) != s.turns:
        raise ScenarioError(f"{d.root}/scenarios/{scenario}.toml: {s.turns} turns but "
                            f"{len(dates)} dates from {s.first_turn} to {s.last_turn}")
    state = BcsState(scenario=scenario, options=dict(options), dates=dates,
                     next_side=s.first_player, first_side=s.first_player,
                     private={side: SidePrivate() for side in SIDES})
    for f in d.formations.values():
        state.formations[f.id] = FormationState(id=f.id, side=f.side, hq=f.hq, trains=f.trains,
                                                in_play=False)
    for p in s.setup:
        if not p.counter:
            continue
        _place(state, p.counter, p.hex, p.steps)
        pc = state.pieces[p.counter]
        pc.ghost, pc.screen, pc.home = p.ghost, p.screen, p.hex
        form = state.formations.get(pc.formation)
        if form is not None and pc.kind == "hq":
            form.fatigue = FRESH if p.fresh else (p.fatigue or 0)
            form.prepared_defense = p.prepared_defense
            if p.done:
                form.status, form.exempt = "done", True
    for side, forms in s.markers_in_play.items():
        for fid in forms:
            state.formations[fid].in_play = True
    for a in arrivals(s):
        for c in a.counters:
            _place(state, c, "", None)
            state.pieces[c].status = "off"
            state.pieces[c].joined = False
            state.pieces[c].entry = list(a.entry)
            state.pieces[c].arrives = cal.index(a.turn) - cal.index(s.first_turn) + 1
        for c in a.counters:
            if c in d.hqs:
                form = state.formations[d.hqs[c].formation]
                form.fatigue = FRESH if a.fresh else (a.fatigue or 0)
    for place in d.game_map.data.place:
        if any(k.startswith("vp_") for k in place.kinds) and place.hex[0] in s.playing_area:
            state.control[place.hex] = "axis" if place.hex in s.victory.axis_controls else "allied"
    arrive(state)
    return state


def arrive(state: BcsState) -> None:
    """Reinforcements of this turn: their Formations' activation markers join (4.6-1)."""
    for p in state.pieces.values():
        if p.status == "off" and p.kind == "hq" and p.arrives == state.turn:
            state.formations[p.formation].in_play = True


def _place(state: BcsState, counter: str, hex_id: str, steps: int | None) -> None:
    d = bdata()
    if counter in d.units:
        u = d.units[counter]
        state.pieces[counter] = Piece(id=counter, side=u.side, formation=u.formation,
                                      kind="unit", hex=hex_id,
                                      steps=u.steps if steps is None else steps)
    elif counter in d.hqs:
        h = d.hqs[counter]
        state.pieces[counter] = Piece(id=counter, side=h.side, formation=h.formation, kind="hq",
                                      hex=hex_id, steps=0)
    else:
        t = d.trains[counter]
        state.pieces[counter] = Piece(id=counter, side=t.side, formation=t.formation,
                                      kind="trains", hex=hex_id, steps=0)
