"""The sequence of play (4.1): game turns, player turns, phases, arrivals released, turn end."""

from __future__ import annotations

from pbem.core.dice import NoDice
from pbem.core.game import Context, Decision
from pbem.games.kasserine.board import on_map
from pbem.games.kasserine.options import Options
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.seen import new_player_turn
from pbem.games.kasserine.state import PHASES, KasserineState, UnitState, other
from pbem.games.kasserine.support import allot
from pbem.games.kasserine.victory import final_result

PHASE_HELP = {
    "movement": "move UNIT HEX..., enter UNIT HEX... (reinforcements), then end",
    "bombardment": "bombard HEX N, then end",
    "combat": "attack HEX with U,U [sf N|ask] [advance ...] [loss U], then end",
    "mobile-movement": "move / enter mobile units, then end",
    "mobile-combat": "attack with mobile units, then end",
}


def new_state(scenario: str, data: KasserineData, options: Options) -> KasserineState:
    """The state before turn 1: US set-up on the map, nothing rolled (19.0)."""
    units = {}
    for uid, unit in data.units.items():
        u = UnitState(side=unit.side, steps=unit.steps or 1)
        if uid in data.setup:
            u.hex, u.status = data.setup[uid], "map"
        units[uid] = u
    # allot fills both sides' private parts; start_player_turn sets the active side
    state = KasserineState(scenario=scenario, options=options, units=units,
                           turn=data.scenario.first_turn)
    for uid in on_map(state):
        if state.units[uid].hex in data.objectives:
            state.holder[state.units[uid].hex] = state.units[uid].side
    allot(state, data, Context(NoDice()))     # the set-up rolls no die
    start_player_turn(state, data, data.first_player)
    return state


def released_now(state: KasserineState, data: KasserineData, side: str) -> list[str]:
    """Reinforcement groups of side whose units may arrive from this player turn (11.1, 15.0, KAS-G8)."""
    out = []
    for gid, g in data.reinforcements.items():
        if g.side != side:
            continue
        t = g.trigger
        if t.kind == "turn":
            ok = state.turn >= t.turn
        elif gid not in state.triggered:
            ok = False
        elif g.arrival == "next_game_turn":
            ok = state.turn > state.triggered[gid]
        else:
            ok = state.turn >= t.turn
        if ok:
            out.append(gid)
    return out


def start_player_turn(state: KasserineState, data: KasserineData, side: str) -> None:
    """Reset per-turn marks and release due reinforcements; the Movement Phase begins."""
    new_player_turn(state, side)
    state.active = side
    state.phase = "movement"
    state.targets = []
    state.bombarded = {}
    for u in state.units.values():
        if u.mp or u.moved or u.mobile_moved or u.attacked or u.barred:   # writes cost more
            u.mp, u.moved, u.mobile_moved, u.attacked, u.barred = 0, False, False, False, ""
    for gid in released_now(state, data, side):
        if gid not in state.released:
            state.released.append(gid)


def end_phase(state: KasserineState, data: KasserineData, ctx: Context) -> None:
    """Close the current phase and open the next (4.1); game turn end after the second player."""
    i = PHASES.index(state.phase)
    state.targets = []
    if i + 1 < len(PHASES):
        state.phase = PHASES[i + 1]
        ctx.log(f"Turn {state.turn}: {state.active} {state.phase} phase", kind="phase")
        return
    if state.active == data.first_player:
        start_player_turn(state, data, other(state.active))
        ctx.log(f"Turn {state.turn}: {state.active} player turn, movement phase", kind="phase")
        return
    if state.turn >= data.last_turn:                     # Game Turn End Phase (4.1-e)
        final_result(state, data, ctx)
        return
    state.turn += 1
    allot(state, data, ctx)
    start_player_turn(state, data, data.first_player)
    ctx.log(f"Turn {state.turn}: {state.active} player turn, movement phase", kind="phase")


def pending(state: KasserineState) -> list[Decision]:
    """The decision the game waits for (none once the game is over)."""
    if state.result is not None:
        return []
    if state.wait is not None:
        return [Decision(side=state.wait.side, kind=state.wait.kind, prompt=state.wait.prompt,
                         reaction=state.wait.side != state.active)]
    return [Decision(side=state.active, kind=state.phase, prompt=(
        f"Turn {state.turn}, {state.active} {state.phase} phase: {PHASE_HELP[state.phase]}"))]
