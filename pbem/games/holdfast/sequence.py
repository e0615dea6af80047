"""The sequence of play (HF-5) as a state machine: which side decides what, and the automatic steps.

States (public.phase / public.step):
  setup           the Axis places its set-up units (place ..., end)            HF-12.1-a
  turn/place      the active side places reinforcements and replacements       HF-5-b/c, HF-8.1
  turn/buy        ... buys steps and eliminated units                          HF-8.2
  turn/act        ... activates units to move and attack, then 'end'           HF-9
  allocate        the attacker orders his units for the defender's hits        HF-G7
  over            the game has ended
Between them run the automatic steps: weather and RP at the start of each game turn (HF-5-a),
support units and reinforcements becoming due, the end-of-turn supply check (HF-10-f),
overstack and delay clean-up (HF-8.1-f/g) and the victory checks (HF-11).
"""

from __future__ import annotations

from typing import Any

from pbem.core.game import Context, Decision
from pbem.games.holdfast.data import World
from pbem.games.holdfast.reinforcement import (add_due, clear_overstack, delay_unplaced,
                                               scheduled)
from pbem.games.holdfast.state import (HoldfastState, PublicState, Result, SideState, UnitState,
                                       enemy)
from pbem.games.holdfast.supply import supply_report
from pbem.games.holdfast.victory import check_axis_turn_end

def new_state(w: World, options: dict[str, Any]) -> HoldfastState:
    """The state before the first decision: fixed set-up placed, the Axis to set up (HF-12.1)."""
    sc = w.scenario
    units: dict[str, dict[str, UnitState]] = {"allied": {}, "axis": {}}
    for p in sc.setup:
        spec = w.units[p.unit]
        u = UnitState(id=p.unit, where="setup", sp=spec.max_sp)      # HF-12-b: full SP
        if p.off_map or spec.type == "support":
            u.where = "offmap"
        elif p.hex:
            u.where, u.hex = "map", w.hex_of(p.hex)
        units[spec.side][p.unit] = u
    for turn in range(sc.first_turn, sc.last_turn + 1):
        row = w.turns[turn]
        for uid in [*row.allied, *row.axis]:
            spec = w.units[uid]
            if uid not in units[spec.side]:
                units[spec.side][uid] = UnitState(id=uid, where="track", sp=spec.max_sp,
                                                  entry_turn=turn)     # HF-8.1-d
    control = {h: s for s, hs in w.home_bases.items() for h in hs}   # HF-2-e
    due = {s: sum(u.where == "setup" for u in units[s].values()) for s in units}
    pub = PublicState(scenario=w.id, options=dict(options), turn=0, phase="setup",
                      active="axis", rp={"allied": 0, "axis": 0}, control=control, due=due)
    return HoldfastState(public=pub, private={s: SideState(units=units[s]) for s in units})


def setup_done(state: HoldfastState) -> bool:
    """True once every Axis set-up unit stands on the map (a knowledge state of the Allies
    reads the public count: the Axis units are not in it)."""
    return state.public.due.get("axis", 0) <= 0 and \
        not any(u.where == "setup" for u in state.private["axis"].units.values())


def next_turn(state: HoldfastState, w: World) -> int:
    """The number of the game turn that starts next."""
    return w.scenario.first_turn if state.public.turn == 0 else state.public.turn + 1


def roll_weather(state: HoldfastState, w: World, ctx: Context) -> int:
    """HF-7-a: the weather die of the next game turn (rolled before anything changes)."""
    return ctx.roll(w.tables.weather.die, f"weather, turn {next_turn(state, w)}")


def start_game_turn(state: HoldfastState, w: World, ctx: Context, roll: int) -> None:
    """HF-5-a, HF-6-a, HF-7-a: set the weather and both RP tracks, then the Allied turn."""
    pub = state.public
    pub.turn = next_turn(state, w)
    row = w.turns[pub.turn]
    pub.weather_roll = roll
    pub.weather = "poor" if w.poor_weather(roll, row.weather_add) else "clear"
    pub.rp = {"allied": row.allied_rp, "axis": row.axis_rp}
    for side in ("allied", "axis"):
        add_due(state, side, scheduled(w, side, pub.turn))
    ctx.log(f"turn {pub.turn} ({row.label}): weather roll {roll}+{row.weather_add} -> "
            f"{pub.weather}; RP Allied {row.allied_rp}, Axis {row.axis_rp}", kind="turn")
    for side in ("allied", "axis"):
        state.private[side].leader_mp_used = False
        for u in state.private[side].units.values():
            u.used = False
    begin_player_turn(state, w, "allied", ctx)


def begin_player_turn(state: HoldfastState, w: World, side: str, ctx: Context) -> None:
    """HF-5-b/c: reset the side's activations; support units due arrive off map."""
    pub = state.public
    pub.phase, pub.active, pub.step = "turn", side, "place"
    pub.moves = [m for m in pub.moves if m.side != side]
    pub.combats = []
    priv = state.private[side]
    priv.minor_ports = {}
    due = []
    for u in priv.units.values():
        u.moved = u.attacked = False
        u.bought = u.placed = 0
        if u.where == "track" and u.entry_turn <= pub.turn:
            if w.units[u.id].type == "support":
                u.where = "offmap"
                ctx.log(f"support unit {w.units[u.id].name} [{u.id}] arrives", visible_to=side)
            else:
                due.append(u.id)
    if due:
        ctx.log(f"due for placement: {', '.join(sorted(due))}", visible_to=side)


def end_player_turn(state: HoldfastState, w: World, side: str, ctx: Context,
                    roll: int | None = None) -> None:
    """Overstack and delays (HF-8.1-f/g), supply check (HF-10-f), victory, next turn."""
    pub = state.public
    add_due(state, side, clear_overstack(state, w, side, ctx))     # placeable next turn
    delay_unplaced(state, side, ctx)
    checked = [side] if pub.options["end_supply_check"] == "phasing" else [side, enemy(side)]
    for s in checked:
        report = supply_report(state, w, s)
        for uid, ok in sorted(report.items()):
            if not ok:
                u = state.private[s].units[uid]
                h = u.hex
                u.where, u.hex, u.sp = "bag", "", 0
                ctx.log(f"{w.units[uid].name} [{uid}] in {h} is out of supply and eliminated",
                        visible_to=s, kind="loss", hexes=(h,))
                ctx.log(f"an {s} block in {h} is eliminated out of supply", kind="loss",
                        hexes=(h,))
    if side == "allied":
        begin_player_turn(state, w, "axis", ctx)
        return
    result = check_axis_turn_end(state, w)
    if result is not None:
        finish(state, result, ctx)
    else:
        assert roll is not None, "the weather of the next turn is rolled before the turn ends"
        start_game_turn(state, w, ctx, roll)


def finish(state: HoldfastState, result: Result, ctx: Context) -> None:
    """End the game."""
    state.public.result = result
    state.public.phase = "over"
    state.public.active = ""
    ctx.log(f"game over: {result.winner or 'draw'} - {result.reason}", kind="end")


def pending(state: HoldfastState) -> list[Decision]:
    """Who must decide what now, in plain words (no hidden facts in the prompt)."""
    pub = state.public
    if pub.phase == "over":
        return []
    if pub.phase == "setup":
        return [Decision(side="axis", kind="setup",
                         prompt="Axis set-up: 'place UNIT HEX' for each set-up unit within 2 "
                                "hexes of Tunis or Bizerte, then 'end'")]
    side = pub.active
    if pub.phase == "allocate":
        ph = state.private[side].pending_hits
        detail = ""
        if ph is not None:
            units = state.private[side].units
            detail = (f"combat at {ph.hex}: attackers " + ", ".join(
                f"{u} ({units[u].sp} SP)" for u in ph.attackers) + "; the defender's dice "
                + " ".join(str(d[0]) + (" (bridge)" if d[2] else "") for d in ph.dice)
                + "; 'standing hits as-listed|weakest-first|strongest-first' answers this "
                  "in advance")
        return [Decision(side=side, kind="allocate", detail=detail,
                         prompt="order your attacking units for the defender's hits: "
                                "'allocate UNIT,UNIT,...'")]
    return [Decision(side=side, kind="turn",
                     prompt=f"turn {pub.turn}, {side} player turn ({pub.rp[side]} RP): "
                            f"{_STEPS[pub.step]}{_ACTS}")]


_STEPS = {"place": "place reinforcements ('place UNIT HEX'), buy steps ('buy UNIT N') or "
                   "units ('rebuild UNIT'), ",
          "buy": "buy steps ('buy UNIT N') or units ('rebuild UNIT'), ",
          "act": ""}
_ACTS = ("move ('move UNIT HEX-HEX [strat] [leader]') and attack "
         "('attack HEX with UNIT... [support S...] [hits U,U]'), then 'end'")
