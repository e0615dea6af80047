"""Applying one order: check everything first, then change the state and run automatic steps."""

from __future__ import annotations

from pbem.core.standing import StandingOrder, set_standing
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.holdfast import combat, reinforcement as rf
from pbem.games.holdfast.data import World
from pbem.games.holdfast.movement import allowance, check_path, position
from pbem.games.holdfast.orders import Allocate, Attack, Buy, End, Move, Order, Place, Rebuild
from pbem.games.holdfast.sequence import (end_player_turn, roll_weather, setup_done,
                                          start_game_turn)
from pbem.games.holdfast.state import HoldfastState, MoveSeen, enemy
from pbem.games.holdfast.supply import in_supply, net_for
from pbem.games.holdfast.victory import check_axis_turn_end


def apply(state: HoldfastState, w: World, side: str, order: Order, ctx: Context) -> None:
    """Check one order for side and apply it, then run the automatic steps."""
    pub = state.public
    if isinstance(order, StandingOrder):       # answers later allocations, any time
        set_standing(state.private[side].standing, order)
        return
    if pub.phase == "over":
        raise IllegalOrder("the game is over", rule="HF-11-c")
    if side != pub.active:
        raise IllegalOrder(f"it is the {pub.active} player's decision, not the {side}'s",
                           rule="HF-5-d")
    if pub.phase == "setup":
        _setup(state, w, side, order, ctx)
    elif pub.phase == "allocate":
        if not isinstance(order, Allocate):
            raise IllegalOrder("the hits of the last combat must be allocated first "
                               "('allocate UNIT,UNIT,...')", rule="HF-9.4-g")
        combat.finish_allocation(state, w, side, order.order, ctx)
    elif isinstance(order, Allocate):
        raise IllegalOrder("no hits wait for allocation", rule="HF-9.4-g")
    elif isinstance(order, Place):
        h = rf.check_place(state, w, side, order.unit, order.hex)
        rf.do_place(state, w, side, order.unit, h, ctx)
    elif isinstance(order, Buy):
        cost = rf.check_buy(state, w, side, order.unit, order.steps)
        rf.do_buy(state, w, side, order.unit, order.steps, cost, ctx)
    elif isinstance(order, Rebuild):
        cost = rf.check_rebuild(state, w, side, order.unit)
        rf.do_rebuild(state, w, side, order.unit, cost, ctx)
    elif isinstance(order, Move):
        _move(state, w, side, order, ctx)
    elif isinstance(order, Attack):
        plan = combat.check_attack(state, w, side, order)
        combat.resolve(state, w, side, plan, ctx)
    elif isinstance(order, End):
        roll = None
        if side == "axis" and check_axis_turn_end(state, w) is None:
            roll = roll_weather(state, w, ctx)     # the next turn's weather, before any change
        ctx.log(f"{side} ends the player turn with {pub.rp[side]} RP unspent (lost)")
        end_player_turn(state, w, side, ctx, roll)
    else:  # pragma: no cover - the order union is closed
        raise IllegalOrder(f"unknown order {order!r}")


def _setup(state: HoldfastState, w: World, side: str, order: Order, ctx: Context) -> None:
    if isinstance(order, Place):
        h = rf.check_setup_place(state, w, side, order.unit, order.hex)
        u = state.private[side].units[order.unit]
        if u.where == "setup":
            rf.add_due(state, side, -1)
        u.where, u.hex = "map", h
        ctx.log(f"{order.unit} set up in {w.label(h)}", visible_to=side, hexes=(h,))
        return
    if isinstance(order, End):
        if not setup_done(state):
            todo = sorted(u.id for u in state.private["axis"].units.values() if u.where == "setup")
            left = ", ".join(todo) or f"{state.public.due.get('axis', 0)} block(s)"
            raise IllegalOrder("every set-up unit must be placed first; not yet placed: "
                               + left, rule="HF-12.1-a")
        roll = roll_weather(state, w, ctx)
        ctx.log("the Axis set-up is complete", hexes=tuple(
            u.hex for u in state.private["axis"].units.values() if u.where == "map"))
        start_game_turn(state, w, ctx, roll)
        return
    raise IllegalOrder("during set-up only 'place' and 'end' are possible", rule="HF-12.1-a")


def _move(state: HoldfastState, w: World, side: str, o: Move, ctx: Context) -> None:
    pub = state.public
    priv = state.private[side]
    u = priv.units.get(o.unit)
    if u is None or w.units[o.unit].type == "support":
        raise IllegalOrder(f"{o.unit} is not one of your combat units", rule="HF-9.1-b")
    if u.where != "map":
        raise IllegalOrder(f"{o.unit} is not on the map", rule="HF-9.1-b")
    if u.moved:
        raise IllegalOrder(f"{o.unit} has already moved this turn", rule="HF-9-a")
    rp_cost = w.rp_cost("activate_move")
    if pub.rp[side] < rp_cost:
        raise IllegalOrder(f"moving costs {rp_cost} RP; {pub.rp[side]} RP left", rule="HF-9.1-a")
    path = [w.resolve(t) for t in o.path]
    for t, h in zip(o.path, path):
        if not h:
            raise IllegalOrder(f"unknown hex or place {t!r}", rule="HF-9.1-b")
    if path and path[0] == u.hex:
        path = path[1:]
    if not path:
        raise IllegalOrder("the path enters no hex", rule="HF-9.1-b")
    leader = None
    if o.leader:
        leader = next((x.id for x in priv.units.values() if x.where == "offmap"
                       and w.units[x.id].support == "leader"), None)
        if leader is None:
            raise IllegalOrder("you have no leader in play", rule="HF-4-e")
        if priv.leader_mp_used:
            raise IllegalOrder("the leader has already given +1 MP this turn", rule="HF-4-e")
    pos = position(state, w, side)       # the position does not change until the move is applied
    net = net_for(state, w, side, pos=pos)
    supplied = in_supply(state, w, side, o.unit, net=net)
    if o.strategic:
        if not w.strategic_allowed(pub.turn):
            raise IllegalOrder("no strategic movement on turns 1 and 2", rule="ERR-HF-9.3")
        if not supplied:
            raise IllegalOrder(f"{o.unit} is out of supply: no strategic movement",
                               rule="HF-9.3-a")
    mp = allowance(w, w.units[o.unit], weather=pub.weather, supplied=supplied,
                   leader=bool(leader), strategic=o.strategic)
    check_path(state, w, side, o.unit, path, mp, o.strategic, pos=pos)
    # -- legal: apply
    if supplied:
        in_supply(state, w, side, o.unit, claim=True, net=net)
    start = u.hex
    u.hex, u.moved = path[-1], True
    pub.rp[side] -= rp_cost
    pub.step = "act"
    if leader:
        priv.leader_mp_used = True
    pub.moves.append(MoveSeen(side=side, path=[start, *path]))
    flags = (" strategically" if o.strategic else "") + (" with the leader" if leader else "")
    hexes = (start, *path)
    line = "-".join(hexes)
    ctx.log(f"{o.unit} moves {line}{flags} ({mp} MP{'' if supplied else ', out of supply'})",
            visible_to=side, kind="move", hexes=hexes)
    # what the enemy sees of it (the mover reads the line above instead: not both)
    ctx.log(f"an {side} block moves {line}", kind="move", hexes=hexes, visible_to=enemy(side))
    _capture(state, w, side, path if pub.options["base_capture"] == "enter" else path[-1:],
             supplied, ctx)


def _capture(state: HoldfastState, w: World, side: str, hexes: list[str], supplied: bool,
             ctx: Context) -> None:
    """ERR-HF-2: an in-supply unit moving into a supply base takes control of it."""
    if not supplied:
        return
    control = state.public.control
    for h in hexes:
        if h in control and control[h] != side:
            control[h] = side
            ctx.log(f"the {side} take control of {w.label(h)}", kind="control", hexes=(h,))

