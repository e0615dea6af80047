"""The owner's Replacement choices (BCS-9.4b, the topic `repls`; BCS-9.4c-2, the topic `rebuilt`):
standing-order topics of the engine, and the bots' answers when asked. The rule cases are in
tests/games/bcs/cases/replacements.toml; the exchange, test_replacements_exchange.py."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from pbem.core.dice import FixedDice
from pbem.core.game import Context
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.rulecases import HOOKS

#: The Allies' 'done' ends turn 2; dice: weather 4, Air Points 3 and 5, Allied Repls 3 (1 AV,
#: 1 non-AV), Axis Repls 1, First Player 6+6 against 1+1. 3-1-arm and 701-td may both take the
#: AV Repl; kern, destroyed, takes the non-AV one and is placed at or next to CCA's HQ.
POSITION = {"turn": 2, "next_side": "allied",
            "units": [{"id": "cca-hq", "hex": "B14.09"}, {"id": "cca-trains", "hex": "B16.13"},
                      {"id": "701-td", "hex": "B14.10", "steps": 2},
                      {"id": "3-1-arm", "hex": "B15.10", "steps": 1},
                      {"id": "reim-hq", "hex": "B49.17"}],
            "dead_pile": ["kern"], "formations": {"reim": {"status": "done"}},
            "active": "cca", "ask": {"allied": ["repls", "rebuilt"]}}
DICE = [4, 3, 5, 3, 1, 6, 6, 1, 1]


def test_the_topics_take_standing_orders():
    """Both topics are standing-order topics; their first mode is the engine's choice."""
    topics = ENGINE.standing_topics()
    assert topics["repls"] == ("priority",) and topics["rebuilt"] == ("hq", "clear")


@pytest.mark.parametrize("style", ["heuristic", "random"])
def test_the_bots_answer_both_questions(style):
    """A bot asked which units take its Repls, then where kern is rebuilt, answers each with a
    mode (the engine's choices) and the turn goes on."""
    state = HOOKS.build(SimpleNamespace(position=POSITION))
    ctx = Context(FixedDice(DICE))
    for line in ("end", "done"):
        ENGINE.apply(state, "allied", ENGINE.parse_order(line), ctx)
    asked = []
    while state.wait is not None:
        asked.append(state.wait.topic)
        lines = ENGINE.bot(state, "allied", random.Random(3), style)
        answers = [x for x in lines if x.startswith("answer")]
        assert len(answers) == 1, lines
        ENGINE.apply(state, "allied", ENGINE.parse_order(answers[0]), ctx)
    assert asked == ["repls", "rebuilt"] and state.turn == 3
    assert state.pieces["3-1-arm"].steps == 2 and state.pieces["kern"].status == "map"
    assert state.pieces["kern"].hex in ("B14.09", "B14.10", "B15.09", "B13.09", "B14.08",
                                        "B15.08", "B13.08")
