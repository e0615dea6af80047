"""The index of pieces by hex (board.by_hex) answers as the scan of every piece does.

Safe Paths (command.safe_path) and MSR traces (supply._bfs, msr_possible) read many hexes of
one position; they build the index once and ask zoc.ezoc and supply.blocked through it. Here
every hex of positions from random bot games is asked both ways."""

from __future__ import annotations

import random

import pytest

from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.core.options import bot_choices, required_choices
from pbem.core.registry import find_game
from pbem.core.standing import apply_order, parse_line
from pbem.games.bcs import supply
from pbem.games.bcs.board import at, bdata, by_hex
from pbem.games.bcs.zoc import ezoc

GAME = find_game("bcs")


def _positions(scenario: str, seed: int, every: int = 25, limit: int = 400):
    """Every `every`-th position of a random bot game (at most `limit` orders)."""
    rng = random.Random(seed)
    options = required_choices(GAME.options(), bot_choices(GAME.options(), owner="bcs"))
    state = GAME.setup(scenario, options)
    n = 0
    while GAME.outcome(state) is None and n < limit:
        side = GAME.pending(state)[0].side
        for i, line in enumerate(GAME.bot(state, side, rng, "random")):
            if side not in {d.side for d in GAME.pending(state)}:
                break
            apply_order(GAME, state, side, parse_line(GAME, line),
                        Context(KeyedDice(rng.randbytes(32)), action=i))
            n += 1
            if n % every == 0:
                yield state


@pytest.mark.parametrize("scenario,seed", [("5.2", 1), ("5.4", 2)])
def test_by_hex_ezoc_and_msr_blockers_equal_the_scan(scenario, seed):
    hexes = sorted(bdata().game_map.terrain)
    asked = 0
    for state in _positions(scenario, seed):
        pieces = by_hex(state)
        sample = random.Random(asked).sample(hexes, 120) + sorted(pieces)
        for side in GAME.sides:
            screens = supply.screens_of(state, side)
            for h in sample:
                assert pieces.get(h, []) == at(state, h)
                assert ezoc(state, side, h, pieces=pieces) == ezoc(state, side, h)
                assert supply.blocked(state, side, h, pieces, screens) == \
                    supply.blocked(state, side, h)
                asked += 1
    assert asked > 1000
