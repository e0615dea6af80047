"""The sealed interface (docs/sealed.md sections 3 and 4) on the sealed test game Blind: over
whole bot games the full state and both knowledge states agree on every public outcome and
no knowledge state holds an unopened fact of the other side; a game that breaks the
invariant is caught."""

from __future__ import annotations

import random

import pytest

from fixtures.blindgame import GAME as BLIND
from fixtures.blindgame import BlindGame
from pbem.core.sealed import SealedPlay, can_seal, check_play


@pytest.mark.parametrize("seed", range(40))
def test_blind_keeps_the_sealed_invariant_over_whole_games(seed):
    rng = random.Random(seed)
    assert can_seal(BLIND)
    state = BLIND.initial()
    assert check_play(BLIND, state, rng) == []
    assert state.over, "the bot game reaches its end"


def test_knowledge_states_hold_the_other_sides_types_only_once_an_attack_opens_them():
    sp = SealedPlay(BLIND, BLIND.initial(), bytes(32))
    assert sp.play("red", "assign r1 tank r2 scout") == []
    assert sp.play("blue", "assign b1 scout b2 tank") == []
    assert sp.know["blue"].blocks["r1"].kind == "?" and sp.know["red"].blocks["b1"].kind == "?"
    assert BLIND.facts(sp.know["blue"], "red") == {}
    for side, line in [("red", "move r2 3"), ("red", "end"), ("blue", "move b1 3"),
                       ("blue", "end"), ("red", "move r2 2"), ("red", "end")]:
        assert sp.play(side, line) == [], line
    assert sp.full.blocks["r2"].pos == 5 and sp.full.blocks["b1"].pos == 6
    assert sp.play("blue", "attack b1 r2") == []
    assert sp.opened == {"red": {"r2.kind", "r2.vet"}, "blue": {"b1.kind", "b1.vet"}}
    if "r2" in sp.know["blue"].blocks:
        assert sp.know["blue"].blocks["r2"].kind == "scout"
    assert sp.know["blue"].blocks["r1"].kind == "?", "the block not in combat stays hidden"


class LeakyBlind(BlindGame):
    """A broken port: its projection of the set-up carries the types."""

    def project(self, state, side, order):
        return self.format_order(order)


class DivergentBlind(BlindGame):
    """A broken port: a move's projection is not what was played."""

    def project(self, state, side, order):
        text = super().project(state, side, order)
        return text.replace("move", "move") if not text.startswith("move") else "end"


def test_a_projection_that_leaks_a_hidden_fact_is_caught():
    problems = check_play(LeakyBlind(), BLIND.initial(), random.Random(1))
    assert problems and "unopened fact" in problems[0], problems


def test_a_projection_that_differs_from_the_order_is_caught():
    problems = check_play(DivergentBlind(), BLIND.initial(), random.Random(1))
    assert problems and ("public state differs" in problems[0] or "is refused" in problems[0]), \
        problems


def test_an_illegal_order_opens_nothing():
    from pbem.core.errors import IllegalOrder

    sp = SealedPlay(BLIND, BLIND.initial(), bytes(32))
    sp.play("red", "assign r1 tank r2 scout")
    sp.play("blue", "assign b1 scout b2 tank")
    with pytest.raises(IllegalOrder):
        sp.play("red", "attack r1 b1")           # b1 is not one position ahead
    assert sp.opened == {"red": set(), "blue": set()}
    assert sp.know["blue"].blocks["r1"].kind == "?"


def test_games_without_the_interface_cannot_seal():
    from fixtures.tinygame import GAME as DASH

    assert not can_seal(DASH) and can_seal(BLIND)


def test_disclose_ignores_a_fact_its_owner_does_not_own():
    """An opening is checked against its sender's own commitments only: a side that commits
    and opens a fact named after the other side's block must change nothing."""
    state = BLIND.initial()
    state.blocks["b1"].kind = "scout"
    BLIND.disclose(state, "red", {"b1.kind": "tank", "b1.vet": 1, "zz.kind": "tank"})
    assert state.blocks["b1"].kind == "scout" and state.blocks["b1"].vet == -1
