"""Holdfast's hit allocation through the core's standing orders (issue 9 item 2, HF-G7): with
'standing hits MODE' the attacker is not asked to allocate: the hits go by the standing order,
exactly as an 'allocate' with that order would have sent them."""

from __future__ import annotations

import pytest

from pbem.core.dice import KeyedDice
from pbem.core.errors import OrderSyntaxError
from pbem.core.game import Context
from pbem.core.registry import find_game
from pbem.core.standing import apply_order, parse_line
from pbem.games.holdfast.combat import HIT_MODES, standing_allocation
from pbem.games.holdfast.data import world
from pbem.protocol.resolve import copy_state

from fixtures.holdfast_positions import allocation_positions as _allocation_positions


@pytest.mark.parametrize("mode", HIT_MODES)
def test_standing_hits_allocate_without_asking(mode):
    game = find_game("holdfast")
    positions = _allocation_positions()
    assert positions, "no allocation choice met in the sample games"
    for before, side, line, key, k in positions:
        asked = copy_state(game, before)
        game.apply(asked, side, game.parse_order(line), Context(KeyedDice(key), k))
        assert asked.public.phase == "allocate"
        attackers = asked.private[side].pending_hits.attackers
        order = standing_allocation(asked, world("campaign"), side, attackers, mode)
        game.apply(asked, side, game.parse_order(f"allocate {','.join(order)}"),
                   Context(KeyedDice(key), k + 1))
        standing = copy_state(game, before)
        apply_order(game, standing, side, parse_line(game, f"standing hits {mode}"), None)
        game.apply(standing, side, game.parse_order(line), Context(KeyedDice(key), k))
        assert standing.public.phase != "allocate"
        assert {u: x.sp for u, x in standing.private[side].units.items()} == \
            {u: x.sp for u, x in asked.private[side].units.items()}
        # the other side never sees the standing order
        foe = next(s for s in game.sides if s != side)
        assert game.view(standing, foe).standing == {}
        assert game.view(standing, side).standing == {"hits": mode}


def test_standing_hits_notation():
    game = find_game("holdfast")
    o = parse_line(game, "standing hits weakest-first")
    assert o.topic == "hits" and o.mode == "weakest-first"
    with pytest.raises(OrderSyntaxError, match="modes: as-listed, weakest-first, strongest-first, ask"):
        parse_line(game, "standing hits randomly")
    with pytest.raises(OrderSyntaxError, match="topics: hits"):
        parse_line(game, "standing retreat auto")


def test_the_allocate_decision_details_only_for_the_attacker():
    """The allocation's private detail (the attacking blocks) reaches the attacker's view and
    report, never the defender's."""
    from pbem.core.game import decisions_for

    game = find_game("holdfast")
    before, side, line, key, k = _allocation_positions(1)[0]
    state = copy_state(game, before)
    game.apply(state, side, game.parse_order(line), Context(KeyedDice(key), k))
    (d,) = game.pending(state)
    attackers = state.private[side].pending_hits.attackers
    assert d.kind == "allocate" and all(u in d.detail for u in attackers)
    foe = next(s for s in game.sides if s != side)
    (masked,) = decisions_for(game.pending(state), foe)
    assert masked.detail == "" and masked.prompt == d.prompt
    (mine,) = decisions_for(game.pending(state), side)
    assert mine.detail == d.detail
