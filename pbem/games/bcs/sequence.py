"""The sequence of play as a state machine (2.0, 3.0): pre-turn rolls, first player, Activations,
Second Activations, passing, turn end; ``pending(state)`` says who must decide what.

Phases: ``setup`` (the Set-up decision before turn 1, setupphase.py: the sides that decide, in
order), ``assignment`` (the Pre-Turn Assignment Phase, assignment.py: the sides that decide, in
order), ``first_player`` (the winner of the First Player roll chooses), ``activate`` (the side
to play must activate a Formation: it cannot pass, 3.6a), ``activities`` (the active Formation's
Initial Actions and Activities until ``end``), ``second`` (attempt a Second Activation or not),
``mines`` (the Allies place the Minefield markers of their arrival turn, BbF 3.1a, mines.py),
``over``.
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context, Decision
from pbem.games.bcs import assignment, mines, smoothing
from pbem.games.bcs.board import air_bound, bdata, enemy_in, entry_hexes, held_entries
from pbem.games.bcs.command import in_radius, isolation
from pbem.games.bcs.mixing import active_hexes, coordinate, mixed_with
from pbem.games.bcs.movement import restack
from pbem.games.bcs.reactions import decision
from pbem.games.bcs.replacements import roll_and_apply
from pbem.games.bcs.setup import arrivals, arrive, historical_weather, place_at_hq
from pbem.games.bcs.supply import enemy_msr_hexes, msr, optimal, why_not
from pbem.games.bcs.support import restore
from pbem.games.bcs.snafu import obj_allowance, roll_second, roll_snafu
from pbem.games.bcs.state import (FRESH, SIDES, Activation, BcsState, FormationState,
                                  arrival_group, other)
from pbem.games.bcs.victory import final_result


def name(fid: str) -> str:
    """A Formation's printed name."""
    return bdata().formations[fid].name


def can_activate(state: BcsState, side: str) -> list[str]:
    """The side's Formations that may still be selected: marker in play, HQ in play and not Done
    (3.4d), and, for one arriving, an Entry hex free of the enemy (else it waits off the map, 9.3c)."""
    return sorted(f.id for f in state.formations.values()
                  if f.side == side and f.in_play and f.status != "done"
                  and state.pieces[f.hq].status != "dead"
                  and (state.pieces[f.hq].status != "off" or _free_entries(state, f.id)))


def _free_entries(state: BcsState, fid: str) -> list[str]:
    """The Entry hexes an arriving Formation's HQ may be placed in: no enemy piece there."""
    hq = state.pieces[state.formations[fid].hq]
    return [h for h in entry_hexes(state, hq) if not enemy_in(state, hq.side, h)]


def pending(state: BcsState) -> list[Decision]:
    """The one decision the game waits for, or none once the game is over."""
    if state.phase == "over":
        return []
    if state.wait is not None:          # a side asked a reaction (reactions.py)
        return [decision(state)]
    if state.phase == "mines":          # BbF 3.1a: the US player places Minefield markers
        return [mines.decision(state)]
    side = state.next_side
    turn = f"turn {state.turn}, {state.date}"
    if state.phase == "setup":
        return [_setup_decision(state, side)]
    if state.phase == "assignment":
        rommel = side == "axis" and assignment.rommel_due(state)
        return [Decision(side=side, kind="assignment",
                         prompt=f"Assignment Phase: Support, independents, Arty Asset "
                                f"Points{', Rommel (he must be placed)' if rommel else ''}; "
                                f"then 'assignment done' ({turn})",
                         choices=tuple(f"rommel {b}" for b in assignment.ROMMEL_BOXES)
                         if rommel else ("assignment done",))]
    if state.phase == "first_player":
        return [Decision(side=side, kind="first-player",
                         prompt=f"won the First Player roll: take or give the first "
                                f"Activation ({turn})", choices=("first take", "first give"))]
    if state.phase == "activate":
        cup = smoothing.cup(state)
        what = "a second Formation at once (Activation Smoothing drew a 2)" \
            if cup is not None and cup.again and cup.side == side else "a Formation"
        return [Decision(side=side, kind="activate",
                         prompt=f"activate {what} ({turn})",
                         choices=tuple(c for f in can_activate(state, side)
                                       for c in _activate_lines(state, f)))]
    act = state.activation
    assert act is not None
    if state.phase == "second":
        return [Decision(side=act.side, kind="second-activation",
                         prompt=f"attempt a Second Activation of "
                                f"{name(act.formation)}, or orient its HQ Done ({turn})",
                         choices=("second", "done"))]
    what = "Recovery Activation" if act.recovery else f"SNAFU {act.snafu}"
    return [Decision(side=act.side, kind="activation",
                     prompt=f"{name(act.formation)} "
                            f"{'Second ' if act.second else ''}Activation ({what}): "
                            f"move, then end ({turn})",
                     detail=_units_detail(state, act.formation))]


def _setup_decision(state: BcsState, side: str) -> Decision:
    """The Set-up decision (1.4A, 1.4D, 1.4E; setupphase.py): the counters to place in their
    zones and the units whose side the owner chooses (the detail is the deciding side's)."""
    from pbem.games.bcs.setupphase import choosable, describe
    zones = [f"{c} {describe(state.setup_zones[c])}" for c in sorted(state.setup_zones)
             if state.pieces[c].side == side and state.pieces[c].status == "setup"]
    sides = [f"{u} {state.pieces[u].face}" for u in choosable(state, side)]
    detail = "; ".join(([f"to place: {', '.join(zones)}"] if zones else [])
                       + ([f"sides: {', '.join(sides)}"] if sides else []))
    return Decision(side=side, kind="setup",
                    prompt=f"Set-up before turn 1 ({state.date}): 'setup UNIT HEX' places "
                           f"a counter of a set-up zone, 'setup UNIT move|deployed' chooses a "
                           f"unit's side; then 'setup done'", detail=detail)


def _units_detail(state: BcsState, fid: str) -> str:
    """The active Formation's pieces with hex and steps: private to the deciding side."""
    out = []
    for p in sorted(state.pieces.values(), key=lambda p: p.id):
        if p.formation != fid or p.status == "dead":
            continue
        where = p.hex if p.status == "map" else "off map"
        steps = f", {p.steps} step{'s' if p.steps != 1 else ''}" if p.kind == "unit" else ""
        out.append(f"{p.id} {where}{steps}")
    return "; ".join(out)


def _activate_lines(state: BcsState, fid: str) -> list[str]:
    """The activate orders of one Formation: one per Entry hex when it arrives."""
    hq = state.pieces[state.formations[fid].hq]
    if hq.status == "off":
        return [f"activate {fid} at {h}" for h in _free_entries(state, fid)]
    return [f"activate {fid}"]


def place_trains(state: BcsState, side: str, fid: str, to: str, ctx: Context) -> None:
    """Combat Trains in the Activities (10.3b): placed (not moved) Legal to Legal, off the map to
    Legal, Illegal to Legal, or Illegal to off the map, once an Activation, and then Ghost;
    'regular' flips Legal Trains at Optimal Distance that did not move out of Ghost."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side:
        raise IllegalOrder("Combat Trains move in their Formation's Activities",
                           rule="BCS-10.3b-1")
    if fid != act.formation:
        raise IllegalOrder(f"{fid} is not the active Formation", rule="BCS-3.3a")
    form = state.formations[fid]
    trains, hq = state.pieces[form.trains], state.pieces[form.hq]
    here = msr(state, form)
    if to == "regular":
        if trains.status != "map" or not trains.ghost:
            raise IllegalOrder("the Combat Trains are not on the map on their Ghost side",
                               rule="BCS-10.3b-2")
        if act.trains_moved or here is None or not optimal(state, form, here):
            raise IllegalOrder("Trains leave Ghost only in a Legal hex at Optimal Distance, "
                               "not having moved this Activation", rule="BCS-10.3b-2")
        trains.ghost = False
        ctx.log(f"{name(fid)}'s Combat Trains return to their Regular side")
        return
    if act.recovery:
        raise IllegalOrder("a Recovery Activation only flips its Trains from Ghost",
                           rule="BCS-10.4c-2")
    if act.trains_moved:
        raise IllegalOrder("the Combat Trains have moved in this Activation already",
                           rule="BCS-10.3b-1")
    if trains.status == "off" and trains.arrives > state.turn:
        raise IllegalOrder(f"{name(fid)}'s Combat Trains arrive later", rule="BCS-9.3-1")
    if to == "off":
        if trains.status != "map" or here is not None:
            raise IllegalOrder("only Trains in an Illegal hex are taken off the map",
                               rule="BCS-10.3b-1")
        trains.status, trains.hex = "off", ""
        act.trains_moved = True
        ctx.log(f"{name(fid)}'s Combat Trains leave the map")
        return
    if hq.status != "map":
        raise IllegalOrder(f"{name(fid)}'s HQ is not on the map", rule="BCS-10.3a-c")
    if mines.closed(state, trains, to):
        raise IllegalOrder(f"{to} is an unbreached Minefield: no Axis piece is placed there",
                           rule="BBF-3.1b-1")
    m, rule, why = why_not(state, side, to, hq.hex)
    if m is None:
        raise IllegalOrder(f"{to} is not a Legal hex for {name(fid)}'s Combat Trains: {why}",
                           rule=rule)
    if to in enemy_msr_hexes(state, side):
        raise IllegalOrder(f"{to} is not a Legal hex for {name(fid)}'s Combat Trains: it would "
                           f"block an existing enemy MSR", rule="BCS-10.3a-e")
    trains.status, trains.hex, trains.ghost = "map", to, True
    act.trains_moved = True
    ctx.log(f"{name(fid)}'s Combat Trains are placed in {to} (Ghost)", hexes=(to,))


def _reset_units(state: BcsState, fid: str = "") -> None:
    """Clear the per-Activation marks; the active Formation's units note where they begin and
    whether they begin in Command Radius (9.3g)."""
    for p in state.pieces.values():
        p.mp, p.moved, p.done_moving, p.stopped, p.flipped, p.finished = 0, False, False, "", \
            False, False
        p.fire_events, p.trail = 0, []
        p.start = p.hex
        if p.formation == fid and p.status == "map" and not p.joined and in_radius(state, p):
            p.joined = True


def activate(state: BcsState, side: str, fid: str, recover: bool, at: str,
             ctx: Context, defense: str = "") -> None:
    """Initial Activation (3.2a a-c): choose a Formation whose HQ is not Done, flip it Used (an
    arriving Formation's HQ and Combat Trains are placed in the chosen Entry hex first, 9.3b),
    then either a Recovery Activation (10.4c) or Preparation (MSR Blocked, 10.2b) and the SNAFU
    roll (10.1a)."""
    if state.phase != "activate":
        raise IllegalOrder("no Formation may be activated now: finish the current step first",
                           rule="BCS-3.4a")
    if side != state.next_side:
        raise IllegalOrder(f"it is {state.next_side}'s turn to activate", rule="BCS-2.1-2")
    form = state.formations.get(fid)
    if form is None or form.side != side:
        raise IllegalOrder(f"{fid} is not one of your Formations", rule="BCS-4.1a")
    if not form.in_play:
        raise IllegalOrder(f"{name(fid)}'s activation marker is not in play", rule="BCS-4.6-1")
    if form.status == "done":
        raise IllegalOrder(f"{name(fid)}'s HQ is Done this turn", rule="BCS-3.4d")
    hq, trains = state.pieces[form.hq], state.pieces[form.trains]
    if hq.status == "off":
        if at not in entry_hexes(state, hq):
            raise IllegalOrder(f"{name(fid)} arrives: name the Entry hex of its HQ and Trains "
                               f"('activate {fid} at HEX', one of "
                               f"{', '.join(entry_hexes(state, hq)) or 'none in play'})",
                               rule="BCS-9.3b-3")
        if enemy_in(state, side, at) and at not in held_entries(state, hq):
            raise IllegalOrder(f"{at} holds an enemy unit", rule="BCS-5.4f")
        if recover:
            raise IllegalOrder("an arriving Formation has nothing to recover",
                               rule="BCS-10.4c-1")
    elif at:
        raise IllegalOrder(f"{name(fid)}'s HQ is on the map already", rule="BCS-9.3b-3")
    if defense == "prepare":
        if form.prepared_defense:
            raise IllegalOrder(f"{name(fid)} has Prepared Defense already", rule="BCS-4.5-1")
        if assignment.total_arty(state, fid) < 1:
            raise IllegalOrder("Prepared Defense needs at least one Arty Point", rule="BCS-4.5a")
        if _blocked_after_preparation(state, form):
            raise IllegalOrder("no Prepared Defense with an MSR Blocked marker",
                               rule="BCS-4.5a")
    if defense == "unprepare" and not form.prepared_defense:
        raise IllegalOrder(f"{name(fid)} has no Prepared Defense", rule="BCS-4.5-1")
    if recover:
        _check_recovery(state, form)
    _pre_turn_air(state, ctx)
    state.objs = []
    group = arrival_group(hq) if at else ""
    if at and at in held_entries(state, hq):     # 9.3f as printed: it enters behind an Attack
        ctx.log(f"{name(fid)} arrives: HQ and Combat Trains wait off the map beside {at}, held "
                f"by the enemy (Attack from Off Map, 9.3f)", hexes=(at,))
    elif at:
        hq.status, hq.hex = "map", at
        if trains.status == "off" and trains.arrives <= state.turn:
            trains.status, trains.hex, trains.ghost = "map", at, False
        ctx.log(f"{name(fid)} arrives: HQ and Combat Trains in {at}", hexes=(at,))
    _reset_units(state, fid)
    if form.set_up_used:
        form.status = "done"
        if form.fatigue >= 4:
            form.activations += 1
            ctx.log(f"{name(fid)} began the turn Used at Fatigue 4: no Second Activation")
            _pass_play(state, side, ctx)
            return
        ctx.log(f"{name(fid)} began the turn Used: it tries a Second Activation")
        if not roll_second(state, form, ctx):
            form.activations += 1
            _pass_play(state, side, ctx)
            return
        state.activation = Activation(formation=fid, side=side, second=True)
        form.activations += 1
        _start(state, form, ctx)
        return
    form.status = "used"
    form.activations += 1
    state.activation = Activation(formation=fid, side=side, recovery=recover,
                                  entries={group: [at]} if at else {})
    ctx.log(f"{side} activates {name(fid)}{' (Recovery Activation)' if recover else ''}")
    if recover:
        form.recovered = True
        form.coordination = False
        form.prepared_defense = False
        restore(state, ctx)           # Dropped Support markers may go (9.2i, ERR-BCS-1.0-7)
        state.phase = "activities"
        return
    if defense:
        form.prepared_defense = defense == "prepare"
        ctx.log(f"{name(fid)} {'takes up' if defense == 'prepare' else 'leaves'} Prepared "
                f"Defense")
    _start(state, form, ctx)


def _check_recovery(state: BcsState, form: FormationState) -> None:
    """Recovery eligibility (10.4c): not set up Used, not recovered this turn, not Fresh or
    Fat-0, Trains in a Legal hex with a complete MSR."""
    fid = form.id
    if form.set_up_used:
        raise IllegalOrder("a Formation that set up Used has only a Second Activation",
                           rule="BCS-3.5a-2")
    if form.recovered:
        raise IllegalOrder(f"{name(fid)} has recovered this turn already", rule="BCS-10.4c-1")
    if form.fatigue <= 0:
        raise IllegalOrder(f"{name(fid)} is {'Fresh' if form.fatigue == FRESH else 'Fat-0'}: "
                           f"nothing to recover", rule="BCS-10.4c-1")
    if msr(state, form) is None:
        raise IllegalOrder(f"{name(fid)}'s Combat Trains are not in a Legal hex with a "
                           f"complete MSR", rule="BCS-10.4c-1")


def failure_flip(state: BcsState, side: str, ctx: Context) -> None:
    """Failure Flip (10.4c): a Fail SNAFU of an Initial Activation becomes a Recovery
    Activation before anything else is done; no Second Activation follows."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side:
        raise IllegalOrder("no Activation of yours to turn into a Recovery", rule="BCS-10.4c-3")
    if act.snafu != "Fail" or act.second or act.began or act.recovery:
        raise IllegalOrder("only a Fail SNAFU of an Initial Activation, before anything is "
                           "done, becomes a Recovery", rule="BCS-10.4c-3")
    form = state.formations[act.formation]
    _check_recovery(state, form)
    act.recovery, act.snafu = True, ""
    form.recovered = True
    form.coordination = False
    form.prepared_defense = False
    ctx.log(f"{name(form.id)}: Failure Flip, a Recovery Activation")
    restore(state, ctx)               # Dropped Support markers may go (9.2i, ERR-BCS-1.0-7)


def _blocked_after_preparation(state: BcsState, form: FormationState) -> int:
    """The MSR Blocked level once Preparation has dealt with it (10.2b)."""
    if state.pieces[form.trains].status != "map":
        return min(2, form.msr_blocked + 1)
    return 0 if msr(state, form) is not None else form.msr_blocked


def _prepare(state: BcsState, form: FormationState, ctx: Context) -> None:
    """Preparation (3.2a b, 10.2b): Trains off the map raise the MSR Blocked level (at most 2)
    and end Prepared Defense (4.5a); Trains on the map in a Legal hex remove the marker."""
    trains = state.pieces[form.trains]
    if trains.status != "map" and state.pieces[form.hq].status == "off":
        return                        # arriving with the HQ behind an Attack from Off Map (9.3f)
    if trains.status != "map":
        form.msr_blocked = min(2, form.msr_blocked + 1)
        form.prepared_defense = False
        ctx.log(f"{name(form.id)}: Combat Trains off the map, MSR Blocked level "
                f"{form.msr_blocked}")
    elif form.msr_blocked and msr(state, form) is not None:
        form.msr_blocked = 0
        ctx.log(f"{name(form.id)}: MSR Blocked marker removed")


def _start(state: BcsState, form: FormationState, ctx: Context) -> None:
    """Steps (b)-(c): the SNAFU roll; then the Coordination marker is removed (3.2a c, 4.4c)."""
    act = state.activation
    assert act is not None
    _prepare(state, form, ctx)
    act.snafu, act.snafu_roll = roll_snafu(state, form, ctx)
    others = mixed_with(state, form.id, active_hexes(state, form.id))
    keep = others and state.options.get("keep_coordination_if_mixed", False)
    form.coordination = bool(keep)
    coordinate(state, form.id, others, ctx)
    if not keep:
        form.coordination, form.extra_coordination = False, 0     # all paid (BCS-OPT5-a)
    state.phase = "activities"


def place_obj(state: BcsState, side: str, hex_id: str, ctx: Context) -> None:
    """Initial Actions (3.2a d, 4.3): a Combat OBJ on a hex with an enemy unit or a Victory hex,
    within the SNAFU allowance, before the Activities begin; with Prepared Defense within 6
    hexes of the HQ."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side or act.recovery:
        raise IllegalOrder("Combat OBJs are placed in the Initial Actions of an Activation",
                           rule="BCS-3.2a-d")
    if act.began:
        raise IllegalOrder("Combat OBJs are placed before the Activities begin",
                           rule="BCS-3.2a-d")
    allowed = obj_allowance(act.snafu)
    if len(state.objs) >= allowed:
        raise IllegalOrder(f"SNAFU {act.snafu} allows {allowed} Combat OBJ"
                           f"{'' if allowed == 1 else 's'}", rule="BCS-4.3a")
    gm = bdata().game_map
    if not gm.grid.is_hex(hex_id):
        raise IllegalOrder(f"{hex_id} is not a hex of the map", rule="BCS-4.3b-1")
    enemy = any(p.side != side and p.status == "map" and p.hex == hex_id
                for p in state.pieces.values())
    victory = any(k.startswith("vp_") for k in gm.place_kinds(hex_id))
    if not enemy and not victory:
        raise IllegalOrder(f"{hex_id} holds no enemy unit and is no Victory hex",
                           rule="BCS-4.3b-1")
    form = state.formations[act.formation]
    hq = state.pieces[form.hq]
    if form.prepared_defense and (hq.status != "map"
                                  or gm.grid.distance(hq.hex, hex_id) > 6):
        raise IllegalOrder("with Prepared Defense a Combat OBJ goes within 6 hexes of the HQ",
                           rule="BCS-4.3b-2")
    state.objs.append(hex_id)
    act.objs.append(hex_id)
    ctx.log(f"{name(act.formation)} places a Combat OBJ in {hex_id}", hexes=(hex_id,))


def end_activities(state: BcsState, side: str, ctx: Context) -> None:
    """End the Activities: Clean Up (3.2a f), Fatigue & Isolation (g), then step (h)."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side:
        raise IllegalOrder("there is no Activation of yours to end", rule="BCS-3.2a-e")
    restack(state, side, ctx)
    form = state.formations[act.formation]
    # (f) Clean Up: OBJ, Traffic Stopped and Temporary Support Dropped markers go; Trains not
    # Legal leave the map, Legal Trains without Optimal Distance turn Ghost (10.3b, 10.3c).
    state.objs = []
    state.traffic = []
    act.dropped = []
    mines.flip_breached(state, ctx)              # BbF 3.1b: at the end of the Activation
    trains = state.pieces[form.trains]
    if trains.status == "map":
        m = msr(state, form)
        if m is None:
            trains.status, trains.hex = "off", ""
            ctx.log(f"{name(form.id)}'s Combat Trains are not in a Legal hex: removed")
        elif not optimal(state, form, m) and not trains.ghost:
            trains.ghost = True
            ctx.log(f"{name(form.id)}'s Combat Trains turn Ghost (not at Optimal Distance)")
    # (g) Fatigue & Isolation.
    if act.recovery:
        form.fatigue -= 1
        ctx.log(f"{name(form.id)} recovers to Fatigue {form.fatigue}")
    elif act.objs or act.attacked or act.shocked or act.engaged:
        # 10.4b: one roll, on the worst case that applies (Combat Table, Engagement, OBJs)
        table, why = ("fatigue_combat", "Combat Table used") if act.attacked or act.shocked \
            else ("fatigue_engagement", "Engagement made") if act.engaged \
            else ("fatigue_obj", "OBJs placed")
        die = ctx.roll(6, f"Fatigue increase: {name(form.id)} ({why})")
        if bdata().roll(table, die) == "Increase" and form.fatigue < 4:
            form.fatigue = 0 if form.fatigue == FRESH else form.fatigue + 1
            ctx.log(f"{name(form.id)} Fatigue increase roll {die}: now Fatigue {form.fatigue}")
        else:
            ctx.log(f"{name(form.id)} Fatigue increase roll {die}: no increase")
    isolation(state, form, ctx)
    # 9.3b: the Entry hexes an arrival used in this Activation are its Entry hexes from now on.
    # On a sealed game's knowledge state the units off the map include those its stand-ins
    # took from the pool and keep aside (sealed.take_from_pool): one may be given back to the
    # pool later, and must come back with the Entry hexes of its arrival (docs/sealed.md 5h).
    aside = [p for kept in state.picked.values() for p in kept.values()]
    for p in [*state.pieces.values(), *aside]:
        if p.formation == form.id and p.status == "off" and arrival_group(p) in act.entries:
            p.entry = list(act.entries[arrival_group(p)])
    # (h) the HQ is Done; a Second Activation may follow.
    form.status = "done"
    _reset_units(state)
    if act.second or act.recovery or form.fatigue >= 4:
        _pass_play(state, side, ctx)
        return
    state.phase = "second"


def second(state: BcsState, side: str, attempt: bool, ctx: Context) -> None:
    """Step (h): attempt a Second Activation (3.5b; it restarts at step b) or decline (3.5d)."""
    act = state.activation
    if state.phase != "second" or act is None or act.side != side:
        raise IllegalOrder("no Second Activation is open to you now", rule="BCS-3.5a-2")
    form = state.formations[act.formation]
    if not attempt:
        ctx.log(f"{name(form.id)} takes no Second Activation")
        _pass_play(state, side, ctx)
        return
    form.activations += 1
    if not roll_second(state, form, ctx):
        _pass_play(state, side, ctx)
        return
    state.activation = Activation(formation=form.id, side=side, second=True)
    state.objs = []
    _reset_units(state, form.id)
    _start(state, form, ctx)


def refuse_held(waits_for: list[str], attempt: bool) -> None:
    """IllegalOrder for 'second' or 'done' that would wait behind another side's decision: they
    answer only the Second Activation question the writer's own 'end' opens (3.5a, 3.5d), and
    no other side's order can open it for him."""
    word = "second" if attempt else "done"
    raise IllegalOrder(f"no Second Activation is open to you now (the game waits for "
                       f"{' and '.join(waits_for)}): '{word}' answers only the question your own "
                       "'end' opens when the Formation may roll for one", rule="BCS-3.5a-2")


def first(state: BcsState, side: str, take: bool, ctx: Context) -> None:
    """The First Player's choice (2.1): take the first Activation or give it."""
    if state.phase != "first_player" or side != state.next_side:
        raise IllegalOrder("only the winner of the First Player roll chooses, before the "
                           "Activation Phase", rule="BCS-2.1-1d")
    state.next_side = side if take else other(side)
    state.first_side = state.next_side
    state.phase = "activate"
    ctx.log(f"{side} {'takes' if take else 'gives'} the first Activation: "
            f"{state.next_side} activates first")
    _begin_activations(state, ctx)


def _begin_activations(state: BcsState, ctx: Context) -> None:
    """The turn's Activation Phase begins: Optional 9's chit cup is filled (BCS-OPT9-a)."""
    smoothing.fill(state)
    if line := smoothing.describe(state):
        ctx.log(line)


def _pass_play(state: BcsState, side: str, ctx: Context) -> None:
    """Step (i) and 3.6: play passes to the other side while it has Formations to activate;
    otherwise the same side goes on (3.2c); when every HQ is Done the turn ends (3.6b). With
    Optional 9 the side with more Formations first draws a chit: a 2 keeps play with it for
    one more Formation (BCS-OPT9-b, smoothing.after)."""
    state.activation = None
    if smoothing.after(state, side, bool(can_activate(state, side)),
                       bool(can_activate(state, other(side))), ctx):
        state.next_side, state.phase = side, "activate"
        return
    for nxt in (other(side), side):
        if can_activate(state, nxt):
            state.next_side, state.phase = nxt, "activate"
            return
    _end_turn(state, ctx, side)


def _end_turn(state: BcsState, ctx: Context, last: str) -> None:
    """Admin Phase (2.1 (3)): every HQ back to Unused; then the next turn's Pre-Turn Phase, or
    the end of the game after the last turn (last: the side that made the last Activation)."""
    for f in state.formations.values():
        f.status, f.activations, f.recovered, f.set_up_used, f.exempt = \
            "unused", 0, False, False, False
    smoothing.end_turn(state)
    ctx.log(f"End of turn {state.turn} ({state.date})")
    if state.turn >= len(state.dates):
        state.phase = "over"
        state.result = final_result(state)
        ctx.log(f"Game over: {state.result.reason}" if state.result is not None else
                "Game over: the result waits for the Axis to reveal his Victory Objective "
                "(BbF 4.0)")
        return
    state.turn += 1
    _pre_turn(state, ctx, last)


MAX_TIES = 20   # First Player ties rolled again; 20 in a row has odds below 1 in 10^17


def _pre_turn(state: BcsState, ctx: Context, last: str = "") -> None:
    """Pre-Turn Phase (2.1 (1)): reinforcements (those due at their HQ placed now, 9.3a; those
    arriving in Support with their HQ), weather (BbF 1.1), Air Points, Replacement Points applied
    at once (9.4, BbF 1.7), the Assignment Phase (the side that made the last Activation decides
    first), First Player. Minefield markers arriving (BbF 3.1a) are placed by the Allies after
    the reinforcements, before the weather roll (phase mines, then _weather)."""
    arrive(state)
    assignment.arrive_in_support(state, arrivals(bdata().scenarios[state.scenario]), ctx)
    place_at_hq(state, ctx)
    state.next_side = last or state.next_side      # kept through the phase mines
    if mines.arrive(state, ctx):
        return
    _weather(state, ctx)


def place_mine(state: BcsState, side: str, hex_id: str, ctx: Context) -> None:
    """`mine HEX` (BbF 3.1a): a Minefield marker placed; after the last one the Pre-Turn Phase
    goes on with the weather."""
    mines.place(state, side, hex_id, ctx)
    if not state.mines_due:
        _weather(state, ctx)


def _weather(state: BcsState, ctx: Context) -> None:
    """The rest of the Pre-Turn Phase after the reinforcements: weather (BbF 1.1), Air Points,
    Replacement Points, the Assignment Phase (state.next_side, the side that made the last
    Activation, decides first), First Player."""
    if state.date == "14 Feb 43":
        state.weather = "No Rain"
    elif state.options.get("historical_weather"):              # BbF 1.1 Historical Note
        state.weather = historical_weather(state.date)
        ctx.log(f"Historical weather, {state.date}: {state.weather} (no roll, BBF-1.1f)")
    else:
        die = ctx.roll(6, f"Weather, {state.date}")
        state.weather = bdata().roll("weather", die)
        ctx.log(f"Weather roll {die}: {state.weather}")
    state.air_due = True
    _pre_turn_air(state, ctx)
    roll_and_apply(state, ctx)
    last = state.next_side
    if not assignment.begin(state, [last, other(last)], ctx):
        _first_player(state, ctx)


def end_assignment(state: BcsState, side: str, ctx: Context) -> None:
    """'assignment done': the side's Assignment Phase is over; the other side's follows, then
    the First Player roll (on a scenario's first turn, the scenario's first player activates)."""
    assignment.check_done(state, side)
    state.assigning.pop(0)
    ctx.log(f"{side} ends its Assignment Phase")
    if state.assigning:
        state.next_side = state.assigning[0]
        return
    assignment.close(state, ctx)
    if state.turn == 1:
        state.phase, state.next_side = "activate", state.first_side
        _begin_activations(state, ctx)
        return
    _first_player(state, ctx)


def _first_player(state: BcsState, ctx: Context) -> None:
    """First Player Determination (2.1 (1) 3): 2d6 each, ties rolled again; the winner chooses."""
    for _ in range(MAX_TIES):
        rolls = {s: sum(ctx.rolls_of(2, 6, f"First Player: {s}")) for s in SIDES}
        ctx.log("First Player roll: " + ", ".join(f"{s} {rolls[s]}" for s in SIDES))
        if rolls["allied"] != rolls["axis"]:
            state.next_side = max(SIDES, key=lambda s: rolls[s])
            break
    else:   # only dice that always tie (order checking's fixed probes) get here
        state.next_side = other(state.first_side)
        ctx.log(f"First Player: {MAX_TIES} ties; {state.next_side} chooses")
    state.phase = "first_player"


def _pre_turn_air(state: BcsState, ctx: Context) -> None:
    """Air Points (BbF 1.1d), each side's own hidden roll; none on Rain turns (1.1c). On a
    scenario's first turn whose weather is not preset (1.4G, BbF 1.1) the weather is rolled
    first, before the first Activation."""
    if state.weather_due and state.options.get("historical_weather"):     # BbF 1.1 note
        state.weather_due = False
        state.weather = historical_weather(state.date)
        ctx.log(f"Historical weather, {state.date}: {state.weather} (no roll, BBF-1.1f)")
    if state.weather_due:
        state.weather_due = False
        die = ctx.roll(6, f"Weather, {state.date}")
        state.weather = bdata().roll("weather", die)
        ctx.log(f"Weather roll {die}: {state.weather} (first turn, 1.4G)")
    if not state.air_due:
        return
    state.air_due = False
    for s in SIDES:
        if state.weather == "Rain":
            state.private[s].air_points = 0
            continue
        die = ctx.roll(6, f"Air Points: {s}", visible_to=s)
        # a sealed game's knowledge state of the other side holds the most its die can give
        # (its die is a stand-in there): a use is refused on receipt only beyond that bound,
        # its legality is its writer's, and the final replay checks it (board.air_bound)
        state.private[s].air_points = air_bound(s) if s in state.concealed else \
            int(bdata().roll(f"air_{s}", die))
        ctx.log(f"{s} Air Points: {state.private[s].air_points}", visible_to=s)


def control_after_move(state: BcsState, side: str, hex_id: str, qualifies: bool) -> None:
    """BbF 4.1: a VP hex belongs to the side whose combat unit occupies it (or did last), if
    that unit qualifies: within Command Radius with a working MSR (victory.may_control)."""
    if hex_id in state.control and qualifies and state.control[hex_id] != side:
        state.control[hex_id] = side

