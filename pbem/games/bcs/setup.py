"""The initial state of a scenario from the data: set-up, arrivals, markers in play (BbF 5.x)."""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.core.errors import ScenarioError
from pbem.core.game import Context
from pbem.games.bcs.board import bdata
from pbem.games.bcs.data import Arrival, Scenario
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.terrain import hex_row
from pbem.games.bcs.objective import initial_turn
from pbem.games.bcs.victory import BUILT
from pbem.games.bcs.state import (FRESH, SIDES, BcsState, FormationState, Piece, SidePrivate,
                                  Smoothing)


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
                     private={side: SidePrivate() for side in SIDES},
                     sealed=bool(options.get("sealed_game")))  # the first turn's phase asks it
    if options.get("activation_smoothing"):      # Optional 9's chit cup (smoothing.py)
        state.smoothing = Smoothing()
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
    for p in s.setup:                        # BbF 3.1: Minefield markers set up (5.3-5.5)
        if p.marker == "minefield":
            state.mines[p.hex] = p.breached
    state.objective_turn = initial_turn(scenario, dates)    # BBF-4.0-a: the draw's turn
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
    from pbem.games.bcs.assignment import setup_assets
    setup_assets(state)          # 1.4F 'in Support', 'assigned to', first-turn assets
    # 1.4G: the first turn's weather as the scenario presets it (BbF 1.1: always No Rain on a
    # 14 Feb first turn), else rolled before the first Activation; the first player is preset
    if s.weather:
        state.weather = s.weather
    elif state.options.get("historical_weather"):              # BbF 1.1 Historical Note
        state.weather = historical_weather(state.date)
    elif s.first_turn != "14 Feb 43":
        state.weather_due = True
    from pbem.games.bcs.setupphase import begin
    begin(state)                 # 1.4A, 1.4D, 1.4E: the Set-up decision, if any side decides
    if state.phase == "activate":    # no Set-up decision nor Assignment Phase: turn 1 begins
        from pbem.games.bcs.smoothing import fill
        fill(state)                  # Optional 9's chit cup (BCS-OPT9-a)
    return state


HISTORICAL_RAIN = ("18 Feb 43", "19 Feb 43", "20 Feb 43")   # BbF 1.1 Historical Note


def historical_weather(date: str) -> str:
    """The weather of a turn as it was (BbF 1.1 Historical Note, option historical_weather)."""
    return "Rain" if date in HISTORICAL_RAIN else "No Rain"


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


def at_hq_only(state: BcsState, p: Piece) -> str:
    """The Formation a waiting piece arrives at when its HQ is its only way in (9.3a): an
    'hq:F' entry and no Entry Area or hex of the playing area; "" otherwise."""
    area = bdata().scenarios[state.scenario].playing_area
    hqs = [e[3:] for e in p.entry if e.startswith("hq:")]
    others = [e for e in p.entry if not e.startswith("hq:")
              and any(h[0] in area for h in _entry_hexes(e))]
    return hqs[0] if hqs and not others else ""


def _entry_hexes(e: str) -> list[str]:
    gm = bdata().game_map
    return list(gm.hexsets.get(f"entry-{e}", [])) if len(e) == 1 else \
        ([e] if gm.grid.is_hex(e) else [])


def place_at_hq(state: BcsState, ctx: Context) -> None:
    """Reinforcements due at their HQ are placed in the Reinforcement Phase (9.3a, errata v1.0),
    only while the HQ's Combat Trains are Legal (else they wait for the first Reinforcement
    Phase in which they are, 9.3i), in the HQ's hex or a hex next to it that is not Prohibited
    to them, holds no enemy piece and takes them without overstacking, the hex the owner
    chooses (retreat.at_hq_hex: his standing order `arrival`, or he is asked), on the side he
    chooses (9.3h, arrival_face). Units off the map after a retreat come back this way, Move
    side up, without the Legal Trains requirement (7.5k)."""
    from pbem.games.bcs.retreat import at_hq_hex
    from pbem.games.bcs.supply import msr

    for p in sorted(state.pieces.values(), key=lambda q: q.id):
        if p.status != "off" or p.kind != "unit" or p.arrives > state.turn:
            continue
        fid = at_hq_only(state, p)
        if not fid:
            continue
        form = state.formations[fid]
        hq = state.pieces[form.hq]
        if hq.status != "map":
            continue
        fresh = _reinforcement(state, p)
        if fresh and msr(state, form) is None:
            ctx.log(f"{p.id} waits: {bdata().formations[fid].name}'s Combat Trains are not "
                    f"Legal (9.3i)", visible_to=p.side)
            continue
        p.face = "move"
        spots = _hq_spots(state, p, hq.hex, fresh)
        if not spots:
            ctx.log(f"{p.id} waits: no hex at its HQ takes it (9.3i)", visible_to=p.side)
            continue
        to = at_hq_hex(state, p, spots, hq)      # the owner's choice (topic `arrival`)
        p.face = arrival_face(state, p, to, hq.hex) if fresh else "move"
        p.status, p.hex, p.start, p.joined = "map", to, to, False
        ctx.log(f"{p.id} arrives at its HQ in {to} (9.3a, 9.3i)", hexes=(to,))
        if p.face != "move":
            ctx.log(f"{p.id} arrives on its {p.face.capitalize()} side (9.3h)",
                    visible_to=p.side)


def _hq_spots(state: BcsState, p: Piece, hq_hex: str, fresh: bool) -> list[str]:
    """The hexes at or next to the HQ that take the unit (9.3i): in play, no enemy piece, no
    Minefield closed to it, room for it, terrain not Prohibited to a side it may show there (a
    reinforcement either side, 9.3h; a unit back from a retreat its Move side, 7.5k)."""
    from pbem.games.bcs.board import combat_count, enemy_in, on_area
    from pbem.games.bcs.mines import closed                   # BbF 3.1b

    grid = bdata().game_map.grid
    return [h for h in [hq_hex, *grid.neighbours(hq_hex)]
            if on_area(state, h) and not enemy_in(state, p.side, h)
            and not closed(state, p, h) and combat_count(state, h) < 2
            and (arrival_faces(state, p, h) if fresh else "move" in arrival_faces(state, p, h))]


def arrival_faces(state: BcsState, p: Piece, hex_id: str) -> list[str]:
    """The sides a unit may arrive on in a hex (9.3h): each side it has whose movement class
    the hex's terrain does not prohibit (1.2b)."""
    u = bdata().units[p.id]
    rain = state.weather == "Rain"
    terrain = bdata().terrain[hex_row(hex_id)]
    sides = [("move", u.move), ("deployed", u.deployed)]
    return [name for name, f in sides if f is not None and mp_cost(terrain, f.mclass, rain) != "P"]


def arrival_face(state: BcsState, p: Piece, hex_id: str, hq_hex: str) -> str:
    """The side a reinforcement placed at its HQ shows (9.3h: either side): its owner's choice
    (topic `arrival-side`: his standing order, move or deployed, else he is asked for each unit
    where the hex allows both); a side the hex prohibits is never taken."""
    from pbem.games.bcs.reactions import lookup

    faces = arrival_faces(state, p, hex_id)
    if len(faces) < 2:
        return faces[0]
    pick = lookup(state, p.side, "arrival-side", lambda: faces, hq_hex, p.id)
    return pick if pick in faces else faces[0]


def _reinforcement(state: BcsState, p: Piece) -> bool:
    """Whether a waiting unit is an Order of Arrival reinforcement (arriving on its turn of the
    calendar) rather than a unit returning from a retreat (7.5k: due the turn after it)."""
    for a in arrivals(bdata().scenarios[state.scenario]):
        if p.id in a.counters and a.turn in state.dates \
                and state.dates.index(a.turn) + 1 == p.arrives:
            return True
    return False
