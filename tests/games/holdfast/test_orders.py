"""Holdfast order notation: parse/format round trip, canonical forms and syntax errors."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from pbem.core.errors import OrderSyntaxError
from pbem.games.holdfast import GAME
from pbem.games.holdfast.orders import Allocate, Attack, Buy, End, Move, Place, Rebuild

CANONICAL = [
    "place 1gds bone",
    "place superga 0912",
    "place us1ad-cca souk_ahras",
    "buy 11bde 1",
    "rebuild 6ad-a",
    "move 6ad-a 0812-0912-1012",
    "move 36bde 0812-0912 strat",
    "move pgr86 1012-1013 strat leader",
    "move 10pz-a 1013 leader",
    "attack 1113 with 6ad-a 36bde support cteam hits 36bde,6ad-a",
    "attack tunis with 11bde",
    "attack 1113 with superga support arnim axair1 kgruppe",
    "allocate 36bde,6ad-a",
    "end",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_round_trip(text: str) -> None:
    """Canonical text parses and formats back to itself."""
    assert GAME.format_order(GAME.parse_order(text)) == text


@pytest.mark.parametrize("text,canon", [
    ("  MOVE 6AD-A 0812-0912   strat ", "move 6ad-a 0812-0912 strat"),
    ("move x 0101 leader strat", "move x 0101 strat leader"),
    ("attack 1113 with a,b support c hits b a", "attack 1113 with a b support c hits b,a"),
    ("buy 11bde", "buy 11bde 1"),
])
def test_canonical_form(text: str, canon: str) -> None:
    """Case, spacing, flag order and list separators are normalised."""
    assert GAME.format_order(GAME.parse_order(text)) == canon


@pytest.mark.parametrize("text", [
    "", "fly 1gds 0101", "move 1gds", "move 1gds 0101 strat fast", "move 1gds 0101--0102",
    "attack 0101", "attack 0101 with", "attack 0101 with a a", "attack 0101 with a support",
    "buy 1gds 0", "buy 1gds x", "place 1gds", "allocate a,a", "end now", "place 1gds bone!",
])
def test_syntax_errors(text: str) -> None:
    """Malformed lines raise OrderSyntaxError."""
    with pytest.raises(OrderSyntaxError):
        GAME.parse_order(text)


NAME = st.from_regex(r"[a-z0-9][a-z0-9-]{2,8}", fullmatch=True)
HEX = st.from_regex(r"[0-9]{4}", fullmatch=True)
ORDERS = st.one_of(
    st.builds(Place, unit=NAME, hex=HEX),
    st.builds(Buy, unit=NAME, steps=st.integers(1, 9)),
    st.builds(Rebuild, unit=NAME),
    st.builds(Move, unit=NAME, path=st.lists(HEX, min_size=1, max_size=6).map(tuple),
              strategic=st.booleans(), leader=st.booleans()),
    st.builds(Attack, hex=HEX, units=st.lists(NAME, min_size=1, max_size=4, unique=True).map(tuple),
              support=st.lists(NAME, max_size=3, unique=True).map(tuple),
              hits=st.lists(NAME, max_size=4, unique=True).map(tuple)),
    st.builds(Allocate, order=st.lists(NAME, min_size=1, max_size=4, unique=True).map(tuple)),
    st.just(End()),
)


@given(ORDERS)
def test_struct_round_trip(order) -> None:
    """Every order struct formats to text that parses back to the same struct."""
    assert GAME.parse_order(GAME.format_order(order)) == order
