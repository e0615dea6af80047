"""The heuristic bot: deterministic for a given rng, legal, and it plays a long campaign."""

from __future__ import annotations

import random

from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.games.holdfast import GAME
from pbem.games.holdfast.state import clone


def play(scenario: str, seed: int, styles: dict[str, str]):
    """One complete game (dice from the same rng); returns the final state."""
    rng = random.Random(seed)
    state = GAME.setup(scenario, {})
    for _ in range(3000):
        if GAME.outcome(state) is not None:
            return state
        side = GAME.pending(state)[0].side
        lines = GAME.bot(state, side, rng, styles[side])
        ctx = Context(KeyedDice(rng.randbytes(32)))
        for i, line in enumerate(lines):
            ctx.action = i
            GAME.apply(state, side, GAME.parse_order(line), ctx)   # IllegalOrder would fail
    raise AssertionError("the game did not end")


def test_heuristic_campaign_lasts_well_into_the_game() -> None:
    """Heuristic against heuristic: the Allied bases hold; games reach the late turns."""
    both = {"allied": "heuristic", "axis": "heuristic"}
    turns = [play("campaign", 1000 + s, both).public.turn for s in range(4)]
    assert min(turns) >= 10, turns
    assert sum(turns) / len(turns) >= 13, turns


def test_heuristic_beats_random() -> None:
    """The heuristic side wins more often than not against the random bot."""
    wins = 0
    for s in range(4):
        side = ("allied", "axis")[s % 2]
        styles = {side: "heuristic", ("axis" if side == "allied" else "allied"): "random"}
        out = GAME.outcome(play("campaign", 2000 + s, styles))
        wins += out is not None and out.winner == side
    assert wins >= 3


def test_heuristic_is_deterministic() -> None:
    """The same state and the same rng give the same orders, at every decision of a game."""
    rng = random.Random(5)
    state = GAME.setup("campaign", {})
    for _ in range(40):
        if GAME.outcome(state) is not None:
            break
        side = GAME.pending(state)[0].side
        seed = rng.random()
        first = GAME.bot(clone(state), side, random.Random(seed), "heuristic")
        again = GAME.bot(clone(state), side, random.Random(seed), "heuristic")
        assert first == again
        ctx = Context(KeyedDice(rng.randbytes(32)))
        for i, line in enumerate(first):
            ctx.action = i
            GAME.apply(state, side, GAME.parse_order(line), ctx)
