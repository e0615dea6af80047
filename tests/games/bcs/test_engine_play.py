"""Scenario 5.2 played by the random bot on both sides through the engine's Game interface,
to a result; the state stays integers only; views hide what the enemy may not see."""

from __future__ import annotations

import random

import msgspec
import pytest

from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.view import top_unit

OPTIONS = {"entry_blocking": "attack_from_off_map"}


def _floats(x) -> bool:
    if isinstance(x, float):
        return True
    if isinstance(x, dict):
        return any(_floats(v) for v in x.values())
    if isinstance(x, list):
        return any(_floats(v) for v in x)
    return False


def play(seed: int, max_orders: int = 3000, options: dict | None = None,
         style: str = "random"):
    """Play 5.2 bot against bot with keyed dice; returns the final state and the orders."""
    rng = random.Random(seed)
    dice = KeyedDice(seed.to_bytes(8, "big"))
    state = ENGINE.setup("5.2", options or OPTIONS)
    n = 0
    while ENGINE.pending(state):
        side = ENGINE.pending(state)[0].side
        lines = ENGINE.bot(state, side, rng, style)
        assert lines, ENGINE.pending(state)
        for line in lines:
            ENGINE.apply(state, side, ENGINE.parse_order(line), Context(dice, action=n))
            n += 1
            assert n < max_orders
    return state, n


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spring_wind_plays_to_a_result(seed):
    """BBF-5.2-c: scenario 5.2 ends after its 4th turn with a result; the state is integers."""
    state, n = play(seed)
    out = ENGINE.outcome(state)
    assert out is not None and "BbF 5.2" in out.reason
    assert state.turn == 4 and state.phase == "over"
    assert not _floats(msgspec.to_builtins(state))
    assert n > 40


@pytest.mark.parametrize("style", ["random", "heuristic"])
def test_spring_wind_plays_with_the_set_up_decision(style):
    """BCS-1.4E: both sides asked in the Set-up decision (the Allies only have set-up units in
    5.2), the bot answers it and 5.2 plays to its result."""
    state, n = play(5, options={**OPTIONS, "setup_decision": "both"}, style=style)
    out = ENGINE.outcome(state)
    assert out is not None and "BbF 5.2" in out.reason and state.setting == []


def test_enemy_sees_the_top_unit_only():
    """BCS-1.5a: of an enemy stack only the top unit (BCS-5.5e: longest Range, then AV) and the
    count show; steps never; the hidden unit's id is a secret of its side."""
    state = ENGINE.setup("5.2", OPTIONS)
    # 701-td (Range 2) tops 3-1-arm (Range 1) in Sidi bou Zid
    view = ENGINE.view(state, "axis")
    stack = next(s for s in view.enemy if s.hex == "B14.09")
    assert (stack.top, stack.units) == ("701-td", 2)
    assert "cca-hq" in stack.others
    data = msgspec.json.encode(view)
    assert b"3-1-arm" not in data
    assert b"steps" not in msgspec.json.encode(view.enemy)
    assert "3-1-arm" in ENGINE.secrets(state, "allied")
    own = msgspec.json.encode(ENGINE.view(state, "allied"))
    assert b"3-1-arm" in own


def test_top_unit_order():
    """BCS-5.5e: the longest printed Range is on top; ties go to the greater AV."""
    state = ENGINE.setup("5.2", OPTIONS)
    p = state.pieces
    assert top_unit([p["3-1-arm"], p["701-td"]]).id == "701-td"
    assert top_unit([p["2-1-arm"], p["3-6-arminf"]]).id == "2-1-arm"


def test_air_points_are_private():
    """BCS-1.5b: a side's Air Points are in its own view only."""
    state = ENGINE.setup("5.2", OPTIONS)
    ENGINE.apply(state, "axis", ENGINE.parse_order("activate reim at B20.00"),
                 Context(KeyedDice(b"k"), action=0))
    assert ENGINE.view(state, "axis").private.air_points == state.private["axis"].air_points
    assert ENGINE.view(state, "allied").private.air_points == state.private["allied"].air_points
    assert b"air_points" not in msgspec.json.encode(ENGINE.view(state, "allied").enemy)


def test_report_masks_enemy_stacks():
    """BCS-1.5a in the report: the enemy's top unit with its count, no hidden unit, no steps;
    the own side's counters carry their steps."""
    state = ENGINE.setup("5.2", OPTIONS)
    rep = ENGINE.report(state, "axis")
    top = [u for u in rep.units if u.hex == "B14.09" and u.side == "allied" and u.kind != "hq"]
    assert [(u.label, u.note) for u in top] == [("701-td", "2 units")]
    assert "-" not in top[0].values.split()[0]            # AR only: no steps
    assert b"3-1-arm" not in msgspec.json.encode(rep)
    own = ENGINE.report(state, "allied")
    assert any(u.label == "3-1-arm" and u.values.startswith("3-3") for u in own.units)


def test_stack_counts_hidden_by_option():
    """BBF-G23 house option stack_count_visible = one_plus: an enemy stack shows '1+'."""
    state = ENGINE.setup("5.2", {**OPTIONS, "stack_count_visible": "one_plus"})
    view = ENGINE.view(state, "axis")
    assert next(s for s in view.enemy if s.hex == "B14.09").units == 1
    rep = ENGINE.report(state, "axis")
    assert any(u.hex == "B14.09" and u.note == "1+ units" for u in rep.units)


@pytest.mark.parametrize("seed", [4, 5])
def test_standin_invariants(seed):
    """The stand-in (hosted checking): view(standin(view(S))) == view(S) for both sides at every
    decision of a whole game, and the orders the mover writes on S are legal on its stand-in
    with the same dice."""
    rng = random.Random(seed)
    dice = KeyedDice(seed.to_bytes(8, "big"))
    state = ENGINE.setup("5.2", OPTIONS)
    n = 0
    while ENGINE.pending(state):
        for side in ENGINE.sides:
            view = ENGINE.view(state, side)
            assert ENGINE.view(ENGINE.standin(msgspec.to_builtins(view), side), side) == view
        side = ENGINE.pending(state)[0].side
        lines = ENGINE.bot(state, side, rng)
        shadow = ENGINE.standin(ENGINE.view(state, side), side)
        for i, line in enumerate(lines):
            ENGINE.apply(shadow, side, ENGINE.parse_order(line), Context(dice, action=n + i))
        for line in lines:
            ENGINE.apply(state, side, ENGINE.parse_order(line), Context(dice, action=n))
            n += 1
    assert ENGINE.outcome(state) is not None
