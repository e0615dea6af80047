"""Apply one order: check it against the rules, then change the state (pbem.core.game.apply)."""

from __future__ import annotations

import re
from typing import Callable

import msgspec

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs import assignment, setupphase
from pbem.games.bcs import orders as o
from pbem.games.bcs import barrage, hq_retreat, mines, reactions, screens, sequence, stopping
from pbem.games.bcs.combat import attack, check_attack
from pbem.games.bcs.engage import check_engage, engage
from pbem.games.bcs.recon import check_recon, recon
from pbem.games.bcs.retreat import voluntary
from pbem.games.bcs.shock import check_shock, shock
from pbem.games.bcs.command import formations_lost, on_map_units
from pbem.games.bcs.mixing import coordinate, hq_mixed_with, mixed_with, stacked_with
from pbem.games.bcs.movement import check_move, do_move, flip_allowed, step_back
from pbem.games.bcs.state import BcsState, other
from pbem.games.bcs.victory import may_control


def apply(state: BcsState, side: str, order: o.Order, ctx: Context) -> None:
    """Check and apply one order, then run the automatic steps up to the next decision; a
    Formation that lost its last unit leaves play (9.1i)."""
    if state.phase == "over":
        raise IllegalOrder("the game is over", rule="BCS-2.1-3")
    if isinstance(order, o.Answer):
        _answer(state, side, order, ctx)
        return
    reactions.check_waiting(state, side)
    reactions.run(state, side, order, o.format_order(order), ctx, _run, reveal_named)


def _run(state: BcsState, side: str, order: o.Order, ctx: Context) -> None:
    """One order and the automatic steps after it (reactions.run may run it again)."""
    before = on_map_units(state)
    seen = len(ctx.events)
    _apply(state, side, order, ctx)
    screens.unstack(state, ctx)
    formations_lost(state, before, ctx)
    reveal_named(state, ctx.events[seen:])


def _answer(state: BcsState, side: str, order: o.Answer, ctx: Context) -> None:
    """The answer to the question waiting: the order it stopped runs again with it
    (reactions.py); on a stand-in, which does not know that order, the question just goes."""
    w = reactions.check_answer(state, side, order.topic, order.mode)
    ctx.log(f"{side} answers {order.topic} {order.mode}", visible_to=side, kind="answer")
    state.wait = None
    if not w.order:
        return
    again = msgspec.structs.replace(w, answers={**w.answers,
                                                reactions.answer_key(w, side, order.mode):
                                                order.mode})
    try:
        reactions.run(state, w.by, o.parse_order(w.order), w.order, ctx, _run, reveal_named,
                      again=again)
    except IllegalOrder:
        state.wait = w
        raise


def reveal_named(state: BcsState, events: list) -> None:
    """A combat unit that an event visible to both sides names (an Attack, a defending AR unit,
    an arrival ...) is known to the enemy from then on: ``Piece.revealed``, no secret (1.5a)."""
    for e in events:
        if e.visible_to != "all":
            continue
        for word in set(re.findall(r"[\w-]+", e.text)):
            p = state.pieces.get(word)
            if p is not None and p.kind == "unit":
                p.revealed = True


def _apply(state: BcsState, side: str, order: o.Order, ctx: Context) -> None:
    """Check and apply one order."""
    if isinstance(order, o.Activate):
        sequence.activate(state, side, order.formation, order.recover, order.at, ctx,
                          defense=order.defense)
    elif isinstance(order, o.Recover):
        sequence.failure_flip(state, side, ctx)
    elif isinstance(order, o.Trains):
        sequence.place_trains(state, side, order.formation, order.to, ctx)
    elif isinstance(order, o.Move):
        walks = check_move(state, side, order.units, order.path)
        _leave_stack(state, order.units, ctx)
        entered = do_move(state, side, order.units, walks, ctx)
        end = entered[-1] if entered else ""
        # the enemy reads what it sees of the move, the mover its own line: not both
        ctx.log(_public_move(state, order.units, end), hexes=tuple(entered),
                visible_to=other(side))
        ctx.log(f"{'+'.join(order.units)} moves to {end}", visible_to=side,
                hexes=tuple(entered))
        hq_retreat.jump(state, side, entered, ctx)
        screens.displace(state, side, entered, ctx)
        for uid in order.units:
            p = state.pieces[uid]
            if p.kind == "unit":
                sequence.control_after_move(state, side, p.hex, may_control(state, p))
        act = state.activation
        assert act is not None
        combat = any(state.pieces[u].kind == "unit" for u in order.units)
        mixing = mixed_with if combat else hq_mixed_with
        coordinate(state, act.formation, mixing(state, act.formation, entered), ctx,
                   stacked_with(state, act.formation, entered))          # BCS-OPT5-b
    elif isinstance(order, o.Flip):
        p = flip_allowed(state, side, order.unit)
        p.face = "move" if p.face == "deployed" else "deployed"
        p.flipped = True
        ctx.log(f"{p.id} flips to its {p.face.capitalize()} side", visible_to=side)
    elif isinstance(order, o.Obj):
        sequence.place_obj(state, side, order.hex, ctx)
    elif isinstance(order, o.Back):
        step_back(state, side, order.unit, order.path, ctx)                          # 5.5d
    elif isinstance(order, o.End):
        sequence.end_activities(state, side, ctx)
    elif isinstance(order, o.Second):
        sequence.second(state, side, order.attempt, ctx)
    elif isinstance(order, o.Attack):
        mines.check_attack_from(state, side, [order.unit, order.assist])      # BbF 3.1b
        screens.check_order(state, [order.unit, order.assist], order.hex, "attack")
        for uid in (order.unit, order.assist):
            stopping.check_free(state, uid, "Attack")
        fires = order.fires
        if fires is not None:
            check_attack(state, side, order.hex, order.unit, order.assist)
            barrage.check_sequence(state, side, order.hex, fires, shock=False)
        attack(state, side, order.hex, order.unit, order.assist, ctx,
               _step4(state, side, order.hex, fires, ctx))
        stopping.lift(state, ctx)
    elif isinstance(order, o.Retreat):
        if any(state.pieces[u].kind == "hq" for u in order.units if u in state.pieces):
            if len(order.units) != 1:
                raise IllegalOrder("an HQ retreats alone (9.1f: no path, placed in its hex)",
                                   rule="BCS-9.1g")
            hq_retreat.voluntary(state, side, order.units[0], order.to, ctx)
        else:
            voluntary(state, side, order.units, order.to, ctx)
    elif isinstance(order, o.Engage):
        mines.check_attack_from(state, side, [order.host or order.unit])      # BbF 3.1b
        screens.check_order(state, [order.host or order.unit], order.hex, "engage")
        _leave_stack(state, [order.host or order.unit], ctx, check=lambda: check_engage(
            state, side, order.hex, order.unit, order.host))
        engage(state, side, order.hex, order.unit, ctx, order.host)
        stopping.lift(state, ctx)
    elif isinstance(order, o.Screen):
        screens.mark(state, side, order.unit, order.on, ctx)
    elif isinstance(order, o.Recon):
        stopping.check_free(state, order.unit, "Recon")
        _leave_stack(state, [order.unit], ctx, check=lambda: check_recon(
            state, side, order.hex, order.unit))
        recon(state, side, order.hex, order.unit, ctx)
    elif isinstance(order, o.Shock):
        mines.check_attack_from(state, side, [order.unit])                    # BbF 3.1b
        screens.check_order(state, [order.unit], order.hex, "attack")
        stopping.check_free(state, order.unit, "Shock Attack")
        fires = order.fires

        def check() -> None:
            """The Shock Attack and its Barrage (7.3b), before anything changes."""
            check_shock(state, side, order.hex, order.unit)
            if fires is not None:
                barrage.check_sequence(state, side, order.hex, fires, shock=True)
        check()
        _leave_stack(state, [order.unit], ctx, check=check)
        shock(state, side, order.hex, order.unit, ctx, _step4(state, side, order.hex, fires, ctx))
        stopping.lift(state, ctx)
    elif isinstance(order, o.Barrage):
        barrage.barrage(state, side, order.hex, order.spotter, order.arty, order.air, ctx)
        stopping.lift(state, ctx)
    elif isinstance(order, o.Fire):
        mines.check_attack_from(state, side, [order.host or order.unit])      # BbF 3.1b
        screens.check_order(state, [order.host or order.unit], order.hex, "fire")
        stopping.check_free(state, order.host or order.unit, "Attack by Fire")
        _leave_stack(state, [order.host or order.unit], ctx, check=lambda: barrage.check_fire(
            state, side, order.hex, order.unit, order.host))
        barrage.attack_by_fire(state, side, order.hex, order.unit, ctx, order.host)
        stopping.lift(state, ctx)
    elif isinstance(order, (o.Support, o.Assign, o.ArtyAssets, o.Rommel, o.AssignmentDone)):
        _assignment(state, side, order, ctx)
    elif isinstance(order, o.Setup):                     # the Set-up decision (1.4A, 1.4D, 1.4E)
        setupphase.setup(state, side, order.unit, order.hex, order.face, ctx)
    elif isinstance(order, o.SetupDone):
        setupphase.done(state, side, ctx)
    elif isinstance(order, o.Mine):
        sequence.place_mine(state, side, order.hex, ctx)                      # BbF 3.1a
    else:
        assert isinstance(order, o.First)
        sequence.first(state, side, order.take, ctx)


def _assignment(state: BcsState, side: str, order: o.Order, ctx: Context) -> None:
    """An order of the Pre-Turn Assignment Phase (assignment.py)."""
    if isinstance(order, o.Support):
        assignment.support(state, side, order.unit, order.on, ctx)
    elif isinstance(order, o.Assign):
        assignment.assign(state, side, order.unit, order.formation, ctx)
    elif isinstance(order, o.ArtyAssets):
        assignment.arty(state, side, order.points, order.formation, order.assign, ctx)
    elif isinstance(order, o.Rommel):
        assignment.rommel(state, side, order.box, ctx)
    else:
        sequence.end_assignment(state, side, ctx)


def _step4(state: BcsState, side: str, hex_id: str, fires: o.Fires | None,
           ctx: Context) -> Callable[[], int] | None:
    """Step 4 of the Attack Sequence: the Barrage the order declared (7.2j), or none."""
    if fires is None:
        return None
    return lambda: barrage.in_sequence(state, side, hex_id, fires, ctx)


def _public_move(state: BcsState, units: list[str], end: str) -> str:
    """What the enemy is told of a move (1.5a): HQs and Trains by name, combat units by their
    count only (the enemy sees the top unit of the stack on the map, never who is under it)."""
    pieces = [state.pieces[u] for u in units]
    n = sum(1 for p in pieces if p.kind == "unit")
    shown = [p.id for p in pieces if p.kind != "unit"]
    if n:
        shown.append(f"{n} unit{'s' if n > 1 else ''}")
    verb = "move" if len(shown) == 1 and n > 1 else "moves"
    return f"{' with '.join(shown)} {verb} to {end}"


def _leave_stack(state: BcsState, units: list[str], ctx: Context,
                 check: Callable[[], object] | None = None) -> None:
    """Before another stack moves or fires, the stack now moving is left: if it owed a Stopping
    Engagement it declined it (6.0i, 3.3e). ``check`` runs the order's own checks first, so that
    a refused order changes nothing."""
    act = state.activation
    if act is None or not act.stack or all(u in act.stack for u in units):
        return
    if check is not None:
        check()
    stopping.decline(state, [u for u in act.stack if u not in units], ctx)
