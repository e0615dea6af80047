"""Kasserine conditions of guarded orders (issue 9 item 3), read from the writer's own view."""

from __future__ import annotations

import pytest

from pbem.core.dice import FixedDice
from pbem.core.errors import OrderSyntaxError
from pbem.core.game import Context
from pbem.core.registry import find_game
from pbem.core.standing import GuardedOrder, apply_order, format_line, parse_line
from pbem.protocol.checking import check_orders
from pbem.protocol.resolve import copy_state


def _start():
    g = find_game("kasserine")
    state = g.setup("historical", {k: v.default for k, v in g.options().items()})
    return g, state


def test_conditions_on_the_writers_view():
    g, state = _start()
    side = g.pending(state)[0].side
    v = g.view(state, side)
    foe = next(u for u in v.units if u.status == "map" and u.side != side)
    own = [u for u in v.units if u.status == "map" and u.side == side]
    assert g.condition(v, side, f"{foe.hex} clear") is False
    assert g.condition(v, side, f"{foe.id} alive") is True
    empty = next(h for h in g.game_map("historical").terrain
                 if h not in {u.hex for u in v.units if u.status == "map"})
    assert g.condition(v, side, f"{empty} clear") is True
    assert g.condition(v, side, f"{empty} held") is False
    if own:
        assert g.condition(v, side, f"{own[0].hex} held") is True


def test_guarded_order_takes_the_branch_and_logs_it_for_the_writer():
    g, state = _start()
    side = g.pending(state)[0].side
    v = g.view(state, side)
    foe = next(u for u in v.units if u.status == "map" and u.side != side)
    o = parse_line(g, f"if {foe.hex} CLEAR then end")
    assert isinstance(o, GuardedOrder) and format_line(g, o) == f"if {foe.hex} clear then end"
    after = copy_state(g, state)
    ctx = Context(FixedDice([]), 0)
    apply_order(g, after, side, o, ctx)             # false, no else: nothing happens
    assert after.phase == state.phase
    assert [e.visible_to for e in ctx.events if e.kind == "guard"] == [side]
    o2 = parse_line(g, f"if {foe.hex} held then end else end")
    ctx = Context(FixedDice([]), 0)
    apply_order(g, after, side, o2, ctx)            # false: the else branch ends the phase
    assert after.phase != state.phase
    with pytest.raises(OrderSyntaxError, match="HEX clear, HEX held, UNIT alive"):
        parse_line(g, "if 3313 soon then end")
    checked = check_orders(g, state, side, [(1, f"if {foe.hex} clear then end"), (2, "end"),
                                            (3, "pass")],
                           name="o")
    assert checked.ok, checked.problems
