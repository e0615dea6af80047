"""BbF order notation: parse_order and format_order round-trip; refusals are one line."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from pbem.core.errors import OrderSyntaxError
from pbem.games.bcs.orders import (Activate, Attack, Combat, Engage, Retreat, Shock, End, First, Flip, Move, Obj, Second,
                                   Recon, Recover, Screen, Trains, format_order, parse_order)

unit_ids = st.from_regex(r"\A[a-z0-9][a-z0-9-]{0,10}\Z", fullmatch=True)
hexes = st.builds(lambda s, c, r: f"{s}{c}.{r:02d}", st.sampled_from("AB"),
                  st.integers(1, 57), st.integers(0, 35))
orders = st.one_of(
    st.builds(Activate, formation=unit_ids, recover=st.booleans()),
    st.builds(Activate, formation=unit_ids, at=hexes),
    st.builds(Activate, formation=unit_ids, defense=st.sampled_from(["prepare", "unprepare"])),
    st.just(Recover()),
    st.builds(Trains, formation=unit_ids, to=st.one_of(hexes, st.sampled_from(["off", "regular"]))),
    st.builds(Flip, unit=unit_ids),
    st.builds(Obj, hex=hexes),
    st.builds(Move, units=st.lists(unit_ids, min_size=1, max_size=3, unique=True),
              path=st.lists(hexes, min_size=1, max_size=6)),
    st.just(End()),
    st.builds(Second, attempt=st.booleans()),
    st.builds(First, take=st.booleans()),
    st.builds(Attack, hex=hexes, unit=unit_ids,
              assist=st.one_of(st.just(""), unit_ids)).filter(lambda a: a.assist != a.unit),
    st.builds(Shock, hex=hexes, unit=unit_ids),
    st.builds(Engage, hex=hexes, unit=unit_ids),
    st.builds(Recon, hex=hexes, unit=unit_ids),
    st.builds(Screen, unit=unit_ids, on=st.booleans()),
    st.builds(Retreat, units=st.lists(unit_ids, min_size=1, max_size=3, unique=True), to=hexes),
    st.builds(Combat, word=st.sampled_from(["fire", "barrage"]),
              rest=st.from_regex(r"\A([a-z0-9.]+( [a-z0-9.]+)*)?\Z", fullmatch=True)),
)


@given(orders)
def test_round_trip(order):
    """format_order(order) parses back to the same order, and its text is canonical."""
    text = format_order(order)
    assert parse_order(text) == order
    assert format_order(parse_order(text)) == text


@pytest.mark.parametrize("text,canonical", [
    ("Move 3-1-arm b15.09-B16.09", "move 3-1-arm B15.09 B16.09"),
    ("move 3-1-arm+701-td B15.09 - B16.09", "move 3-1-arm+701-td B15.09 B16.09"),
    ("ACTIVATE CCA recover", "activate cca recover"),
    ("done", "done"),
    ("first  give", "first give"),
    ("activate REIM at b20.00", "activate reim at B20.00"),
    ("trains cca Off", "trains cca off"),
    ("Attack b8.19 WITH ii-86-inf", "attack B8.19 with ii-86-inf"),
    ("SHOCK b8.19 with 81-CAV", "shock B8.19 with 81-cav"),
    ("engage b8.19 With 3-1-arm", "engage B8.19 with 3-1-arm"),
    ("attack B8.19 with ii-86-inf Assist 1-501-tgr", "attack B8.19 with ii-86-inf assist 1-501-tgr"),
])
def test_forms_give_one_canonical_line(text, canonical):
    """Case, dashes and spaces vary; the canonical line is one."""
    assert format_order(parse_order(text)) == canonical


@pytest.mark.parametrize("text,msg", [
    ("mvoe 3-1-arm B15.09", "did you mean 'move'"),
    ("move 3-1-arm B1509", "not a hex id"),
    ("move 3-1-arm+3-1-arm B15.09", "each unit of the stack once"),
    ("activate cca now", "activate FORMATION"),
    ("activate cca recover at B20.00", "malformed .activate."),
    ("trains cca somewhere", "not a hex id"),
    ("first maybe", "malformed 'first'"),
    ("attack B8.19 ii-86-inf", "malformed 'attack'"),
    ("shock B8.19 ii-86-inf", "malformed 'shock'"),
    ("retreat kern", "malformed 'retreat'"),
    ("retreat kern+kern B11.20", "name each unit"),
    ("attack B8.19 with ii-86-inf assist ii-86-inf", "Assist is another unit"),
    ("", "empty order"),
])
def test_bad_text_is_one_line(text, msg):
    """Malformed orders are refused with one line saying why."""
    with pytest.raises(OrderSyntaxError, match=msg) as e:
        parse_order(text)
    assert "\n" not in str(e.value)


def test_combat_orders_are_refused_until_combat_lands():
    """Engage, shock, barrage ... parse but are refused with a clear 'not yet implemented'."""
    from pbem.core.errors import IllegalOrder
    from pbem.core.game import Context
    from pbem.core.dice import FixedDice
    from pbem.games.bcs.engine import ENGINE

    state = ENGINE.setup("5.2", {"entry_blocking": "attack_from_off_map"})
    for text in ("barrage B14.09", "fire B14.09"):
        with pytest.raises(IllegalOrder, match="not yet implemented"):
            ENGINE.apply(state, "axis", parse_order(text), Context(FixedDice([])))


@pytest.mark.parametrize("text,canonical", [
    ("if SNAFU Pass then move 2-1-arm b43.06 else end",
     "if snafu pass then move 2-1-arm B43.06 else end"),
    ("if snafu partial+ then obj B14.09", "if snafu partial+ then obj B14.09"),
    ("if second activation then end", "if second activation then end"),
    ("if b14.09 clear then move 2-1-arm B14.09", "if B14.09 clear then move 2-1-arm B14.09"),
    ("if 3-1-arm alive then done", "if 3-1-arm alive then done"),
])
def test_guarded_orders_are_canonical(text, canonical):
    """Guarded orders read BbF's conditions and print one canonical line."""
    from pbem.core.standing import format_line, parse_line
    from pbem.games.bcs.engine import ENGINE

    assert format_line(ENGINE, parse_line(ENGINE, text)) == canonical


def test_unknown_condition_names_the_forms():
    """An unknown condition is one line listing the conditions there are."""
    from pbem.core.standing import parse_line
    from pbem.games.bcs.engine import ENGINE

    with pytest.raises(OrderSyntaxError, match="snafu pass"):
        parse_line(ENGINE, "if weather rain then end")
