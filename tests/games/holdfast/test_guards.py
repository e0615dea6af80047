"""Holdfast conditions of guarded orders (issue 9 item 3), read from the writer's own view."""

from __future__ import annotations

import random

import pytest

from pbem.core.dice import KeyedDice
from pbem.core.errors import OrderSyntaxError
from pbem.core.game import Context
from pbem.core.registry import find_game
from pbem.core.standing import GuardedOrder, apply_order, format_line, parse_line
from pbem.protocol.checking import check_orders
from pbem.protocol.resolve import copy_state


def _midgame():
    game = find_game("holdfast")
    rng = random.Random(3)
    state = game.setup("race-to-tunis", {})
    for _ in range(6):
        side = game.pending(state)[0].side
        for k, line in enumerate(game.bot(state, side, rng, "heuristic")):
            if side not in {d.side for d in game.pending(state)}:
                break
            apply_order(game, state, side, parse_line(game, line),
                        Context(KeyedDice(rng.randbytes(32)), k))
    return game, state


def test_conditions_read_only_the_writers_view():
    game, state = _midgame()
    side = game.pending(state)[0].side
    v = game.view(state, side)
    enemy_hex = v.blocks[0].hex
    own = next(u for u in v.units if u.where == "map")
    empty = next(h for h in game.game_map("race-to-tunis").terrain
                 if h not in {b.hex for b in v.blocks} and h not in {u.hex for u in v.units})
    assert game.condition(v, side, f"{enemy_hex} clear") is False
    assert game.condition(v, side, f"{empty} clear") is True
    assert game.condition(v, side, f"{own.hex} held") is True
    assert game.condition(v, side, f"{own.id} alive") is True
    # an enemy unit's id is not in the writer's view: 'alive' of it is simply false
    foe = next(s for s in game.sides if s != side)
    hidden = next(iter(state.private[foe].units))
    assert game.condition(v, side, f"{hidden} alive") is False


def test_guarded_notation_round_trips_and_is_checked():
    game, state = _midgame()
    side = game.pending(state)[0].side
    o = parse_line(game, "if 1203 CLEAR then end")
    assert isinstance(o, GuardedOrder) and format_line(game, o) == "if 1203 clear then end"
    with pytest.raises(OrderSyntaxError, match="HEX clear, HEX held, UNIT alive"):
        parse_line(game, "if 1203 maybe then end")
    with pytest.raises(OrderSyntaxError, match="expected 'if CONDITION then ORDER"):
        parse_line(game, "if 1203 clear end")
    checked = check_orders(game, state, side, [(1, "if 9999 clear then end")], name="o")
    assert checked.ok
    after = copy_state(game, state)
    apply_order(game, after, side, o, Context(KeyedDice(b"k" * 32), 0))
    assert after.public.active != state.public.active or after.public.turn != state.public.turn
