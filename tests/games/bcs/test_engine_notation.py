"""BbF order notation: parse_order and format_order round-trip; refusals are one line."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from pbem.core.errors import OrderSyntaxError
from pbem.games.bcs.orders import (Activate, Attack, Barrage, Engage, Fire, Fires, Retreat, Shock, End, First, Flip,
                                   Mine, Move, MoveTo, Obj, Second, Recon, Recover, Screen, Setup,
                                   SetupDone, Trains, format_order, parse_order)

unit_ids = st.from_regex(r"\A[a-z0-9][a-z0-9-]{0,10}\Z", fullmatch=True)
hexes = st.builds(lambda s, c, r: f"{s}{c}.{r:02d}", st.sampled_from("AB"),
                  st.integers(1, 57), st.integers(0, 35))
points = st.integers(0, 9)
fires = st.one_of(
    st.none(),
    st.builds(Fires, mission=st.just("suppression"), arty=st.just(1), air=st.just(0)),
    st.builds(Fires, mission=st.just("suppression"), arty=st.just(0), air=st.just(1)),
    st.builds(Fires, mission=st.just("destruction"), arty=points, air=points).filter(
        lambda f: f.arty + f.air > 0),
)
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
    st.builds(MoveTo, units=st.lists(unit_ids, min_size=1, max_size=3, unique=True), dest=hexes),
    st.just(End()),
    st.builds(Second, attempt=st.booleans()),
    st.builds(First, take=st.booleans()),
    st.builds(Attack, hex=hexes, unit=unit_ids, assist=st.one_of(st.just(""), unit_ids),
              fires=fires).filter(lambda a: a.assist != a.unit),
    st.builds(Shock, hex=hexes, unit=unit_ids, fires=fires),
    st.builds(Barrage, hex=hexes, spotter=unit_ids, arty=points, air=points).filter(
        lambda b: b.arty + b.air > 0),
    st.builds(Fire, hex=hexes, unit=unit_ids),
    st.builds(Engage, hex=hexes, unit=unit_ids),
    st.builds(Recon, hex=hexes, unit=unit_ids),
    st.builds(Screen, unit=unit_ids, on=st.booleans()),
    st.builds(Retreat, units=st.lists(unit_ids, min_size=1, max_size=3, unique=True), to=hexes),
    st.builds(Setup, unit=unit_ids, face=st.sampled_from(["move", "deployed"])),   # 1.4E
    st.builds(Setup, unit=unit_ids, hex=hexes, face=st.sampled_from(["", "move", "deployed"])),
    st.just(SetupDone()),
    st.builds(Mine, hex=hexes),                                                    # BBF-3.1a
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
    ("MOVE 3-1-arm+701-TD To b16.09", "move 3-1-arm+701-td to B16.09"),          # BCS-5.1-1
    ("ACTIVATE CCA recover", "activate cca recover"),
    ("done", "done"),
    ("first  give", "first give"),
    ("activate REIM at b20.00", "activate reim at B20.00"),
    ("trains cca Off", "trains cca off"),
    ("Attack b8.19 WITH ii-86-inf", "attack B8.19 with ii-86-inf"),
    ("SHOCK b8.19 with 81-CAV", "shock B8.19 with 81-cav"),
    ("engage b8.19 With 3-1-arm", "engage B8.19 with 3-1-arm"),
    ("attack B8.19 with ii-86-inf Assist 1-501-tgr", "attack B8.19 with ii-86-inf assist 1-501-tgr"),
    ("attack b8.19 with ii-86-inf SUPPRESS Arty", "attack B8.19 with ii-86-inf suppress arty"),
    ("attack B8.19 with x assist y barrage air 1 arty 2",
     "attack B8.19 with x assist y barrage arty 2 air 1"),
    ("shock B8.19 with 81-cav suppress AIR", "shock B8.19 with 81-cav suppress air"),
    ("Barrage b8.19 AIR 1 Spot cca-hq", "barrage B8.19 air 1 spot cca-hq"),
    ("FIRE b8.19 with 701-TD", "fire B8.19 with 701-td"),
    ("Setup 3-6-ARMINF Deployed", "setup 3-6-arminf deployed"),     # BCS-1.4E
    ("setup g-1-arm b16.09", "setup g-1-arm B16.09"),               # BCS-1.4A
    ("SETUP g-1-arm b16.09 MOVE", "setup g-1-arm B16.09 move"),
    ("setup  DONE", "setup done"),
    ("MINE b30.28", "mine B30.28"),                                 # BBF-3.1a
    ("answer HQ-RETREAT b13.09", "answer hq-retreat B13.09"),       # BCS-9.1f-2: a hex
    ("Answer hq-order DRAKE+waters", "answer hq-order drake+waters"),  # BCS-7.5f-7: an order
    ("answer defense Top", "answer defense top"),
])
def test_forms_give_one_canonical_line(text, canonical):
    """Case, dashes and spaces vary; the canonical line is one."""
    assert format_order(parse_order(text)) == canonical


@pytest.mark.parametrize("text,msg", [
    ("mvoe 3-1-arm B15.09", "did you mean 'move'"),
    ("setup g-1-arm", "setup UNIT .HEX. .move | deployed., or setup done"),
    ("setup g-1-arm B16.09 sideways", "setup UNIT"),
    ("setup g-1-arm upside", "not a hex id"),
    ("move 3-1-arm B1509", "not a hex id"),
    ("move 3-1-arm+3-1-arm B15.09", "each unit of the stack once"),
    ("move 3-1-arm to B15.09 B16.09", "one destination hex"),
    ("move 3-1-arm to", "one destination hex"),
    ("activate cca now", "activate FORMATION"),
    ("activate cca recover at B20.00", "malformed .activate."),
    ("trains cca somewhere", "not a hex id"),
    ("first maybe", "malformed 'first'"),
    ("attack B8.19 ii-86-inf", "malformed 'attack'"),
    ("shock B8.19 ii-86-inf", "malformed 'shock'"),
    ("retreat kern", "malformed 'retreat'"),
    ("retreat kern+kern B11.20", "name each unit"),
    ("attack B8.19 with ii-86-inf assist ii-86-inf", "Assist is another unit"),
    ("attack B8.19 with ii-86-inf suppress", "'suppress arty|air'"),
    ("attack B8.19 with ii-86-inf suppress arty 2", "'suppress arty|air'"),
    ("attack B8.19 with ii-86-inf barrage arty 0", "N from 1 to 9"),
    ("attack B8.19 with ii-86-inf barrage arty 1 arty 1", "each once"),
    ("attack B8.19 with ii-86-inf assist", "malformed 'attack'"),
    ("attack B8.19 with ii-86-inf bombard", "malformed 'attack'"),
    ("barrage B8.19 arty 1", "malformed 'barrage'"),
    ("barrage B8.19 spot cca-hq", "malformed 'barrage'"),
    ("barrage B8.19 mortar 1 spot cca-hq", "'arty N' and/or 'air N'"),
    ("fire B8.19 701-td", "malformed 'fire'"),
    ("fire B8.19 with 90-mdr suppress air", "malformed 'fire'"),   # BCS-8.3f: never Suppression
    ("mine", "malformed 'mine'"),                                   # BBF-3.1a
    ("mine B30.28 B30.29", "malformed 'mine'"),
    ("mine here", "not a hex id"),
    ("", "empty order"),
])
def test_bad_text_is_one_line(text, msg):
    """Malformed orders are refused with one line saying why."""
    with pytest.raises(OrderSyntaxError, match=msg) as e:
        parse_order(text)
    assert "\n" not in str(e.value)


def test_barrage_and_fire_orders_are_checked_not_refused_wholesale():
    """BCS-8.0b: barrage and fire orders are built: out of an Activation they are refused by
    the rule that applies, not as 'not yet implemented'."""
    from pbem.core.errors import IllegalOrder
    from pbem.core.game import Context
    from pbem.core.dice import FixedDice
    from pbem.games.bcs.engine import ENGINE

    state = ENGINE.setup("5.2", {"entry_blocking": "attack_from_off_map"})
    for text, rule in (("barrage B14.09 arty 1 spot reim-hq", "BCS-8.0b"),
                       ("fire B14.09 with 90-mdr", "BCS-8.0b")):
        with pytest.raises(IllegalOrder, match="active player") as e:
            ENGINE.apply(state, "axis", parse_order(text), Context(FixedDice([])))
        assert e.value.rule == rule and "not yet implemented" not in str(e.value)


@pytest.mark.parametrize("text,canonical", [
    ("if SNAFU Pass then move 2-1-arm b43.06 else end",
     "if snafu pass then move 2-1-arm B43.06 else end"),
    ("if snafu partial+ then obj B14.09", "if snafu partial+ then obj B14.09"),
    ("if second activation then end", "if second activation then end"),
    ("if b14.09 clear then move 2-1-arm B14.09", "if B14.09 clear then move 2-1-arm B14.09"),
    ("if 3-1-arm alive then done", "if 3-1-arm alive then done"),
    ("if b8.19 held then barrage B8.19 AIR 1 spot cca-hq else end",
     "if B8.19 held then barrage B8.19 air 1 spot cca-hq else end"),
    ("if snafu pass then attack B8.19 with kern suppress arty",
     "if snafu pass then attack B8.19 with kern suppress arty"),
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


def test_mp_in_refusals_read_as_a_player_writes_them():
    """MP are kept in twelfths; a refusal shows them reduced ('2/3', not '8/12')."""
    from pbem.games.bcs.movement import _mp

    assert [_mp(v) for v in (0, 8, 6, 18, 24, 25)] == ["0", "2/3", "1/2", "1 1/2", "2", "2 1/12"]
