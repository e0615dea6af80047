"""Sealed mode: a player's orders held behind his own decision (Holdfast: the 'end' written
after an attack whose hits he must allocate) resume as soon as his next file answers it,
before that file's next line (docs/sealed.md 5c, "The owner's own decisions";
resolve.resume_held). check did not replay them: it refused the answer alone ("the orders end
while you still have a decision ... often with 'end'"), and the 'end' the player then added
waited through the opponent's turn and ended his next player turn at once, every RP unspent
and every reinforcement delayed (a newcomer's game, session 30). check and submit now replay
the held orders where the resolver will (`check_orders(held=...)`, which ops gives the
session's own held orders).

On real allocation positions met in random Holdfast bot games (the game API, as
test_standing_hits finds them)."""

from __future__ import annotations

import pytest

from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.core.registry import find_game
from pbem.protocol.checking import DECISION_RULE, check_orders
from pbem.protocol.resolve import copy_state

from fixtures.holdfast_positions import allocation_positions

HELD = [("order 6 of file 9", "end")]


@pytest.fixture(scope="module")
def allocations():
    game = find_game("holdfast")
    out = []
    for before, side, line, key, k in allocation_positions(4):
        state = copy_state(game, before)
        game.apply(state, side, game.parse_order(line), Context(KeyedDice(key), k))
        attackers = state.private[side].pending_hits.attackers
        out.append((state, side, f"allocate {','.join(attackers)}"))
    assert out, "no allocation met in the sample games"
    return game, out


def test_without_held_orders_the_answer_alone_still_asks_for_the_rest(allocations):
    game, cases = allocations
    for state, side, answer in cases:
        c = check_orders(game, state, side, [(1, answer)], name="b7.txt", sealed=True)
        assert any(p.endswith(f"[{DECISION_RULE}]") for p in c.blocking), c.problems


def test_the_held_end_runs_after_the_answer_and_the_answer_alone_is_a_whole_file(allocations):
    game, cases = allocations
    for state, side, answer in cases:
        c = check_orders(game, state, side, [(1, answer)], name="b7.txt", sealed=True,
                         held=HELD)
        assert c.ok and not c.blocking, c.problems
        assert any("your held order 6 of file 9 'end' is carried out after the last line" in n
                   for n in c.notes), c.notes


def test_an_end_written_after_the_answer_waits_for_the_other_side(allocations):
    """The second 'end' would end the writer's next player turn: check shows it waiting, not
    legal now, and says where the held one runs."""
    game, cases = allocations
    for state, side, answer in cases:
        c = check_orders(game, state, side, [(1, answer), (2, "end")], name="b7.txt",
                         sealed=True, held=HELD)
        ran = any("your held order 6 of file 9 'end' is carried out before line 2" in n
                  for n in c.notes)
        assert ran, c.notes
        if not c.after_dice:                   # the held 'end' rolled no die (no turn change)
            assert c.waiting == [2] and c.wait_reason, (c.waiting, c.notes)
