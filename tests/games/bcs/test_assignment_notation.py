"""The Assignment Phase's orders (BCS-2.1-1b; docs/bcs-engine.md "Orders"): support, concentrate,
assign, unassign, assign arty, unassign arty, rommel, assignment done. They round-trip, have one
canonical form and a malformed line is one OrderSyntaxError line."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from pbem.core.errors import OrderSyntaxError
from pbem.core.standing import StandingOrder, format_standing, parse_line
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.orders import (ArtyAssets, Assign, AssignmentDone, Rommel, Support,
                                   format_order, parse_order)

unit_ids = st.from_regex(r"\A[a-z0-9][a-z0-9-]{0,10}\Z", fullmatch=True)
orders = st.one_of(
    st.builds(Support, unit=unit_ids, on=st.booleans()),
    st.builds(Assign, unit=unit_ids, formation=st.one_of(st.just(""), unit_ids)),
    st.builds(ArtyAssets, points=st.integers(1, 99), formation=unit_ids, assign=st.booleans()),
    st.builds(Rommel, box=unit_ids),
    st.just(AssignmentDone()),
)


@given(orders)
def test_round_trip(order):
    """format_order(order) parses back to the same order, and its text is canonical."""
    text = format_order(order)
    assert parse_order(text) == order
    assert format_order(parse_order(text)) == text


@pytest.mark.parametrize("text,canonical", [
    ("Support 90-MDR", "support 90-mdr"),
    ("concentrate 90-mdr", "concentrate 90-mdr"),
    ("assign 894-td TO ccb", "assign 894-td to ccb"),
    ("Unassign 894-td", "unassign 894-td"),
    ("assign ARTY 3 to ccb", "assign arty 3 to ccb"),
    ("unassign arty 3 FROM ccb", "unassign arty 3 from ccb"),
    ("rommel 10PZ", "rommel 10pz"),
    ("Assignment DONE", "assignment done"),
])
def test_forms_give_one_canonical_line(text, canonical):
    """Case and spacing do not matter; the canonical line is what the file keeps."""
    assert format_order(parse_order(text)) == canonical


@pytest.mark.parametrize("text,msg", [
    ("assign arty 0 to ccb", "not a number of Arty Asset Points"),
    ("assign arty x to ccb", "not a number of Arty Asset Points"),
    ("unassign arty 3 to ccb", "malformed 'unassign'"),
    ("support", "malformed 'support'"),
    ("assignment", "malformed 'assignment'"),
    ("rommell dak", "did you mean 'rommel'"),
])
def test_bad_text_is_one_line(text, msg):
    """A malformed assignment line is refused in one line naming the problem."""
    with pytest.raises(OrderSyntaxError, match=msg) as e:
        parse_order(text)
    assert "\n" not in str(e.value)


def test_standing_assignment_topic():
    """'standing assignment keep|ask' is core notation for the engine's 'assignment' topic."""
    assert ENGINE.standing_topics()["assignment"] == ("keep",)
    for line in ("standing assignment keep", "standing assignment ask"):
        order = parse_line(ENGINE, line)
        assert isinstance(order, StandingOrder) and format_standing(order) == line
