"""The owner's own choices of BCS-5.5d-3 (the excess units of an overstacked hex, `back` and the
topic `restack`) and BCS-9.3h (the side a reinforcement placed at its HQ shows, the topic
`arrival-side`): the notation, the sides a hex allows, the standing topics and the bots'
answers. The rule cases are tests/games/bcs/cases/restack.toml and arrival_sides.toml; the
exchange, test_owner_choices_exchange.py."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.orders import Back, format_order, parse_order
from pbem.games.bcs.rulecases import HOOKS
from pbem.games.bcs.setup import arrival_faces

RESTACK = {"units": [{"id": "reim-hq", "hex": "B6.19"}, {"id": "ii-86-inf", "hex": "B5.18"},
                     {"id": "90-mdr", "hex": "B6.18"}, {"id": "1-501-tgr", "hex": "B7.18"}],
           "active": "reim", "ask": {"axis": ["restack"]}}


@pytest.mark.parametrize("text,order", [
    ("back 3-1-arm", Back(unit="3-1-arm")),
    ("back 3-1-arm B14.09", Back(unit="3-1-arm", path=["B14.09"])),
    ("back 3-1-arm B14.09 B14.10", Back(unit="3-1-arm", path=["B14.09", "B14.10"])),
])
def test_back_round_trips(text, order):
    """BCS-5.5d-3: `back UNIT [HEX ...]` parses and formats back to the same line (dashes and
    lower-case sheet letters accepted, as in `move`)."""
    assert parse_order(text) == order and format_order(order) == text


def test_back_takes_dashes():
    """BCS-5.5d-3: hexes joined by dashes, lower-case sheet letters, as in `move`."""
    assert parse_order("back 3-1-arm b14.09-b14.10") == parse_order("back 3-1-arm B14.09 B14.10")


def test_arrival_faces_follow_the_terrain():
    """BCS-9.3h: ii-86-inf (Truck Move side, Leg Deployed side) may show either side in Open
    terrain, only its Deployed side in a Mountain hex (Prohibited to Truck); drake has one side."""
    state = HOOKS.build(SimpleNamespace(position={"units": [{"id": "reim-hq", "hex": "B6.19"}]}))
    inf, drake = state.pieces["ii-86-inf"], state.pieces["drake"]
    assert arrival_faces(state, inf, "B1.04") == ["move", "deployed"]
    assert arrival_faces(state, inf, "B10.03") == ["deployed"]
    assert arrival_faces(state, drake, "B1.04") == ["move"]


def test_the_new_topics_take_standing_orders():
    """Both topics are standing-order topics of the engine (their first mode is the engine's
    usual choice) and a standing order for them applies."""
    topics = ENGINE.standing_topics()
    assert topics["restack"] == ("moved",) and topics["arrival-side"] == ("move", "deployed")
    state = HOOKS.build(SimpleNamespace(position=RESTACK))
    ENGINE.apply(state, "axis", ENGINE.parse_order("standing arrival-side deployed"),
                 Context(KeyedDice(b"s")))
    assert state.private["axis"].standing["arrival-side"] == "deployed"


@pytest.mark.parametrize("style", ["heuristic", "random"])
def test_the_bots_answer_a_restack_question(style):
    """A bot asked which excess unit steps back (BCS-5.5d-3) answers with a mode, and the
    Activation ends."""
    state = HOOKS.build(SimpleNamespace(position=RESTACK))
    ctx = Context(KeyedDice(b"s"))
    for line in ("move ii-86-inf B6.18", "move 1-501-tgr B6.18", "end"):
        ENGINE.apply(state, "axis", ENGINE.parse_order(line), ctx)
    assert state.wait is not None and state.wait.topic == "restack"
    lines = ENGINE.bot(state, "axis", random.Random(3), style)
    answers = [x for x in lines if x.startswith("answer")]
    assert answers == ["answer restack moved"], lines
    for line in lines:
        ENGINE.apply(state, "axis", ENGINE.parse_order(line), ctx)
    assert state.wait is None and state.phase == "second"
    assert state.pieces["1-501-tgr"].hex == "B7.18"
