"""Applying one order: who may give it now, the rule checks, then the automatic steps."""

from __future__ import annotations

from pbem.core.standing import set_standing
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.kasserine import combat, results, retreat
from pbem.games.kasserine.movement import do_move
from pbem.games.kasserine.orders import (Advance, Attack, Bombard, Box, Displace, End, Enter,
                                         Loss, Move, Order, Retreat, StandingOrder, Stiff,
                                         Support, format_order)
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.sequence import end_phase
from pbem.games.kasserine.state import KasserineState

ANSWERS = {Support: "support", Box: "box", Stiff: "stiff", Retreat: "retreat",
           Displace: "displace", Advance: "advance", Loss: "loss"}


def apply(state: KasserineState, data: KasserineData, side: str, order: Order, ctx: Context) -> None:
    """Check and apply one order in place, then run the automatic steps up to the next decision."""
    if state.result is not None:
        raise IllegalOrder("the game is over", rule="KAS-4.1-e")
    if isinstance(order, StandingOrder):
        _standing(state, side, order, ctx)
        return
    w = state.wait
    kind = ANSWERS.get(type(order))
    if w is not None:
        if side != w.side or kind != w.kind:
            rule = ("KAS-8.2.1-a" if isinstance(order, End) else "KAS-8.0-e"
                    if isinstance(order, (Attack, Bombard, Move, Enter)) else _wait_rule(w.kind))
            raise IllegalOrder(f"the game waits for {w.side} to answer a {w.kind} decision",
                               rule=rule)
        _answer(state, data, order, ctx)
        combat.run(state, data, ctx)
        return
    if kind is not None:
        raise IllegalOrder(f"no {kind} decision is pending", rule=_wait_rule(kind))
    if side != state.active:
        rule = "KAS-8.0-a" if isinstance(order, (Attack, Bombard)) else "KAS-5.2-a"
        raise IllegalOrder(f"it is {state.active}'s {state.phase} phase", rule=rule)
    if isinstance(order, Move):
        do_move(state, data, side, order.unit, order.path, False, ctx)
    elif isinstance(order, Enter):
        do_move(state, data, side, order.unit, order.path, True, ctx)
    elif isinstance(order, Bombard):
        combat.declare_bombard(state, data, side, order, ctx)
    elif isinstance(order, Attack):
        combat.declare_attack(state, data, side, order, ctx)
    elif isinstance(order, End):
        if state.combat is not None:
            raise IllegalOrder("a declared attack cannot be called off", rule="KAS-8.2.1-a")
        end_phase(state, data, ctx)


def _wait_rule(kind: str) -> str:
    return {"support": "KAS-8.2.1-b", "box": "KAS-14.3-a", "stiff": "KAS-8.4-a",
            "retreat": "KAS-8.3-a", "displace": "KAS-8.3.1-a", "advance": "KAS-8.5-d", "loss": "KAS-8.2.4-c"}.get(kind, "KAS-4.1-b")


def _standing(state: KasserineState, side: str, order: StandingOrder, ctx: Context) -> None:
    set_standing(state.private[side].standing, order)
    if ctx is not None:
        ctx.log(f"your standing order: {format_order(order)}", visible_to=side, kind="standing")


def _answer(state: KasserineState, data: KasserineData, order: Order, ctx: Context) -> None:
    """Apply the answer to the waiting decision (checked before anything changes)."""
    c = state.combat
    assert c is not None
    if isinstance(order, Support):
        state.wait = None
        if c.step == 3:
            combat.attacker_step(state, c, order.commit, ctx)
        else:
            combat.defender_step(state, c, order.commit, ctx)
        return
    task = c.tasks[0]
    if isinstance(order, Box):
        task.box = "hold" if order.hold else "yield"
    elif isinstance(order, Stiff):
        task.stiff = "yes" if order.yes else "no"
    elif isinstance(order, Retreat):
        if order.unit != task.unit:
            raise IllegalOrder(f"the retreating unit is {task.unit}", rule="KAS-8.3-a")
        if order.path is None:
            task.auto = True
        else:
            retreat.check_path(state, data, task.unit, task.hexes, task.bombard, order.path)
            task.path = list(order.path)
    elif isinstance(order, Displace):
        assert task.path is not None
        retreat.check_displace(state, data, task.unit, task.path, task.chain, order.unit,
                               order.hex)
        task.chain.append(order.hex)
    elif isinstance(order, Loss):
        cands = [u for u in task.candidates if state.units[u].status == "map"]
        if order.unit not in cands:
            raise IllegalOrder(f"{order.unit} cannot take this loss (choose from {', '.join(cands)})",
                               rule="KAS-8.1.3-b" if task.bombard else "KAS-8.2.4-c")
        c.loss = order.unit
    elif isinstance(order, Advance):
        cands = [a for a in task.candidates if state.units[a].status == "map"]
        plan = results.plan_advance(state, c, order.units, cands, strict=True)
        state.wait = None
        results.do_advance(state, data, c, plan, ctx)
        c.advance = list(order.units)
        c.tasks.pop(0)
        return
    state.wait = None
