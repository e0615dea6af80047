"""Complete historical games, bot against bot, straight through the Game API.

Every game must end (last turn or sudden death) with no exception and no dead end; the state
survives a msgspec round trip at every decision; neither side's encoded view or report ever
holds one of the other side's secrets; every bot line is canonical notation.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.games.kasserine import GAME

MAX_DECISIONS = 3000


def blob(state, side: str) -> bytes:
    """Every byte one side may be shown: its view and its report model."""
    return msgspec.json.encode(GAME.view(state, side)) + msgspec.json.encode(GAME.report(state, side))


def play(seed: int, styles: dict[str, str]) -> tuple:
    """Play one game; returns (state, number of decisions)."""
    rng = random.Random(seed)
    state = GAME.setup("historical", {k: v.default for k, v in GAME.options().items()})
    decisions = 0
    while GAME.outcome(state) is None:
        pending = GAME.pending(state)
        assert pending, "dead end: nothing pending and no outcome"
        side = pending[0].side
        copy = msgspec.json.decode(msgspec.json.encode(state), type=GAME.state_type)
        assert copy == state
        for viewer, other in (("axis", "us"), ("us", "axis")):
            seen = blob(state, viewer)
            leaked = [s for s in GAME.secrets(state, other) if s.encode() in seen]
            assert not leaked, f"{viewer} sees {other}'s {leaked}"
        lines = GAME.bot(state, side, rng, styles[side])
        assert lines
        dice = KeyedDice(rng.randbytes(32))
        for i, line in enumerate(lines):
            if side not in {d.side for d in GAME.pending(state)}:
                break
            order = GAME.parse_order(line)
            assert GAME.format_order(order) == line, "bots write canonical lines"
            ctx = Context(dice, action=i)
            GAME.apply(state, side, order, ctx)
            for e in ctx.events:
                if e.visible_to == "all":
                    assert not any(s.encode() in e.text.encode() for s in GAME.secrets(state, side))
        decisions += 1
        assert decisions < MAX_DECISIONS, "the game does not end"
    assert GAME.pending(state) == []
    return state, decisions


@pytest.mark.parametrize("seed,styles", [
    (1, {"axis": "random", "us": "random"}),
    (2, {"axis": "random", "us": "random"}),
    (3, {"axis": "heuristic", "us": "heuristic"}),
    (4, {"axis": "heuristic", "us": "random"}),
    (5, {"axis": "random", "us": "heuristic"}),
])
def test_bot_game(seed: int, styles: dict[str, str]) -> None:
    state, decisions = play(seed, styles)
    o = GAME.outcome(state)
    assert o is not None and o.winner in ("axis", "us", None)
    last = 10
    assert state.turn == last or o.winner == "axis", "only sudden death ends a game early"


def test_secrets_are_marker_ids() -> None:
    """At the start each side's secrets are its unrevealed marker ids, absent from the other side's bytes."""
    state = GAME.setup("historical", {})
    assert len(GAME.secrets(state, "axis")) == 5 and len(GAME.secrets(state, "us")) == 1
    assert all(s.startswith("axmk") for s in GAME.secrets(state, "axis"))
    for s in GAME.secrets(state, "axis"):
        assert s.encode() not in blob(state, "us") and s.encode() not in blob(state, "axis")
