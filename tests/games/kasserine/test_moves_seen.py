"""Moves seen: moves, entries, retreats, displacements and advances are arrows in both reports.

Every Kasserine counter is face up, so both sides see every path. The state keeps the current
player turn's paths and the previous player turn's (docs/kasserine.md, "Moves seen").
"""

from __future__ import annotations

import msgspec
import pytest

from pbem.core.dice import FixedDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context, MapArrow
from pbem.games.kasserine import GAME
from pbem.games.kasserine.state import KasserineState, MoveSeen, SidePrivate


def position(units: dict[str, str], off: tuple[str, ...] = (), released: tuple[str, ...] = ()):
    """Turn 3, Axis Movement Phase: only the listed units on the map, no support fire markers."""
    state = GAME.setup("historical", {})
    for uid, u in state.units.items():
        u.status, u.hex = ("off" if uid in off else "dead"), ""
    for uid, h in units.items():
        state.units[uid].status, state.units[uid].hex = "map", h
    state.turn, state.released = 3, list(released)
    for side in ("axis", "us"):
        state.private[side] = SidePrivate()
        state.allotment[side] = 0
    apply(state, "us", "standing stiff never")
    return state


def apply(state, side: str, line: str, dice: tuple[int, ...] = ()) -> Context:
    """Apply one order line with fixed dice."""
    ctx = Context(FixedDice(list(dice)))
    GAME.apply(state, side, GAME.parse_order(line), ctx)
    return ctx


def arrows(state, side: str) -> list[tuple[tuple[str, ...], str, str]]:
    """(path, side, label) of every arrow of side's report."""
    return [(a.path, a.side, a.label) for a in GAME.report(state, side).arrows]


def seen_panel(state, side: str) -> tuple[str, ...]:
    """The lines of the 'Moves seen' panel of side's report."""
    return next(p.lines for p in GAME.report(state, side).panels if p.title == "Movement log")


def test_move_retreat_and_advance_are_arrows_for_both_sides() -> None:
    state = position({"s501": "3113", "inf3-26": "3313"})
    apply(state, "us", "standing retreat auto")
    assert seen_panel(state, "axis") == ("none",) and arrows(state, "us") == []
    apply(state, "axis", "move s501 3213")
    apply(state, "axis", "end")
    apply(state, "axis", "end")
    apply(state, "axis", "attack 3313 with s501 advance s501", (2,))     # D2
    expected = [(("3113", "3213"), "axis", "move"),
                (("3313", "3412", "3512"), "us", "retreat"),
                (("3213", "3313", "3412"), "axis", "advance")]
    for side in ("axis", "us"):
        assert arrows(state, side) == expected
        assert seen_panel(state, side) == (
            "turn 3 axis player turn: s501 (axis) move 3113-3213",
            "turn 3 axis player turn: inf3-26 (us) retreat 3313-3412-3512",
            "turn 3 axis player turn: s501 (axis) advance 3213-3313-3412")
        assert [v.path for v in GAME.view(state, side).moves] == [list(p) for p, _, _ in expected]
        model = GAME.report(state, side)
        assert any(m.kind == "combat" and m.hex == "3313" for m in model.markers)
    raw = msgspec.json.encode(state)
    assert msgspec.json.decode(raw, type=KasserineState).moves == state.moves


def test_entry_and_displacement_are_arrows() -> None:
    state = position({"s501": "3213", "pz7-2": "3311", "pz5-1": "3514", "pz5-2": "3712",
                      "inf3-26": "3313", "td701": "3512"}, off=("pg86-1",), released=("axis-gt1",))
    apply(state, "axis", "enter pg86-1 3918 3818")
    for _ in range(2):
        apply(state, "axis", "end")
    apply(state, "axis", "attack 3313 with s501 advance none", (2,))
    apply(state, "us", "retreat inf3-26 3412 3512")
    want = [(("3918", "3818"), "axis", "enter"), (("3512", "3511"), "us", "displace"),
            (("3313", "3412", "3512"), "us", "retreat")]
    assert arrows(state, "axis") == arrows(state, "us") == want


def test_an_illegal_order_records_nothing() -> None:
    state = position({"s501": "3113", "inf3-26": "3313"})
    apply(state, "axis", "move s501 3213")
    before = list(state.moves)
    with pytest.raises(IllegalOrder):
        apply(state, "axis", "move s501 3113")                 # moved already (5.2-h)
    with pytest.raises(IllegalOrder):
        apply(state, "us", "move inf3-26 3413")                # not the US player turn
    assert state.moves == before


def test_reports_keep_this_player_turn_and_the_previous_one() -> None:
    state = position({"s501": "3113", "inf3-26": "3313", "td701": "2020"})
    apply(state, "axis", "move s501 3213")
    for _ in range(5):
        apply(state, "axis", "end")
    assert (state.turn, state.active) == (3, "us")
    apply(state, "us", "move td701 2019")
    both = [(("3113", "3213"), "axis", "move"), (("2020", "2019"), "us", "move")]
    assert arrows(state, "axis") == arrows(state, "us") == both
    for _ in range(5):
        apply(state, "us", "end")
    assert (state.turn, state.active) == (4, "axis")
    assert arrows(state, "axis") == arrows(state, "us") == [both[1]]
    assert state.moves == [MoveSeen(turn=3, player="us", side="us", kind="move", unit="td701",
                                    path=["2020", "2019"])]
    assert all(isinstance(a, MapArrow) for a in GAME.report(state, "axis").arrows)
