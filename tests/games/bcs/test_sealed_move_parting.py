"""A hidden unit that entered under another top and is opened as it moves on (5.2, wild bot
seed 34, order #1403; docs/sealed.md 5h, "Mended in session 22").

The Allies flipped 3-gren off the map (9.3h: deployed, Leg) and brought it on under 2-13-arm;
the Axis processor's pool took 2-cold-gds (Truck) for its stand-in, which walked the entry
path as a Truck (2 MP spent where 3-gren spent 1). When 3-gren moved on alone it became a top:
the move opened its identity and face, and the stand-in became 3-gren with the Truck's MP
spent, so 5.1b refused the move on the Axis knowledge state (Partial: 2 MP of MA, 0 left) and
the game stopped. The opening now carries the unit's MP spent and STOP (`SLOT.mp`)."""

from __future__ import annotations

from typing import Any

from pbem.core.sealed import SealedPlay
from pbem.games.bcs import sealed as bs

from games.bcs.test_sealed_port import GAME, sealed_position


def _position() -> Any:
    """A sealed position of 5.2, turn 4: the 1st Guards Brigade activated (SNAFU Partial, its
    HQ in B57.21), 2-13-arm (CCB, deployed) in B56.20; 2-cold-gds and 3-gren off the map, due
    now by Entry Area C."""
    return sealed_position("sealed-mp", {
        "turn": 4, "next_side": "allied",
        "active": "1gds", "snafu": "Partial",
        "units": [{"id": "1gds-hq", "hex": "B57.21"}, {"id": "ccb-hq", "hex": "B57.21"},
                  {"id": "2-13-arm", "hex": "B56.20", "face": "deployed"},
                  {"id": "2-cold-gds", "off": True, "arrives": 4},
                  {"id": "3-gren", "off": True, "arrives": 4},
                  {"id": "reim-hq", "hex": "B20.01"}]})


def test_a_unit_opened_as_it_moves_on_brings_the_mp_it_spent_hidden():
    sp = SealedPlay(GAME, _position(), b"k" * 32)
    assert sp.play("allied", "flip 3-gren") == []
    assert sp.play("allied", "move 3-gren B57.20 B56.20") == []
    axis = sp.know["axis"]
    # the case: the Axis pool guessed another unit of the arrival, a Truck, which spent more
    [(n, pick)] = axis.picked["allied"].items()
    assert pick.id == "2-cold-gds" + bs.POOL
    guess = axis.pieces[bs.piece_of(axis, "allied", int(n))]
    assert guess.mp > sp.full.pieces["3-gren"].mp
    slot = bs.slot_name("allied", sp.full.slots["allied"]["3-gren"])
    line = "move 3-gren B56.19"
    text = bs.project(sp.know["allied"], "allied", GAME.parse_order(line))
    # the old code: 'refused: 3-gren has 0 MP left, entering B56.19 costs 1 [BCS-5.1b]' on the
    # Axis knowledge state, whose public state then parts (the slot left in B56.20)
    assert sp.play("allied", line) == []
    assert text == f"move slot-{slot} B56.19 opens {slot}.unit {slot}.face {slot}.mp"
    assert sp.full.pieces["3-gren"].hex == axis.pieces["3-gren"].hex == "B56.19"
    assert (axis.pieces["3-gren"].mp, axis.pieces["3-gren"].stopped) == \
        (sp.full.pieces["3-gren"].mp, sp.full.pieces["3-gren"].stopped)
    assert sp.opened["allied"] == {f"{slot}.unit", f"{slot}.face", f"{slot}.mp"}


def test_a_parsed_projection_reads_the_mp_fact_back_to_its_text():
    text = "move slot-allied-2 B56.19 opens allied-2.unit allied-2.face allied-2.mp"
    assert GAME.format_order(GAME.parse_order(text)) == text


def test_an_opened_mp_or_steps_of_the_wrong_shape_is_not_taken():
    """An opening's value is only as good as its sender's commitment: `.mp` must be {mp: MP
    spent in MP12 within bounds, stopped: a BCS rule id or ""} and `.steps` a count a counter can have,
    or the knowledge state is left as it was (the public hashes, then the final replay, name
    the file)."""
    import msgspec

    sp = SealedPlay(GAME, _position(), b"k" * 32)
    assert sp.play("allied", "flip 3-gren") == []
    assert sp.play("allied", "move 3-gren B57.20 B56.20") == []
    axis = sp.know["axis"]
    n = bs.piece_of(axis, "allied", sp.full.slots["allied"]["3-gren"])
    assert n is not None
    slot = bs.slot_name("allied", sp.full.slots["allied"]["3-gren"])
    before = msgspec.json.encode(axis)
    for what, bad in (("mp", {"mp": -1, "stopped": ""}), ("mp", {"mp": 10**6, "stopped": ""}),
                      ("mp", {"mp": True, "stopped": ""}), ("mp", {"mp": "1", "stopped": ""}),
                      ("mp", {"mp": 1, "stopped": "<b>x</b>"}), ("mp", {"mp": 1}),
                      ("mp", {"mp": 1, "stopped": "", "hex": "B1.01"}), ("mp", [1, ""]),
                      ("steps", 0), ("steps", -2), ("steps", 10), ("steps", True)):
        assert not bs._disclose_one(axis, "allied", f"{slot}.{what}", bad), (what, bad)
    assert msgspec.json.encode(axis) == before
    stop = "BCS-"          # STOP values written apart: this test checks shapes, not those rules
    for good in ({"mp": 0, "stopped": ""}, {"mp": 3, "stopped": stop + "5.1g-1"},
                 {"mp": 150, "stopped": stop + "6.0h"}):
        assert bs._disclose_one(axis, "allied", f"{slot}.mp", good)
        assert (axis.pieces[n].mp, axis.pieces[n].stopped) == (good["mp"], good["stopped"])


def test_a_receiver_does_not_replay_with_identities_known_early():
    """`sealing.recheck` replays the chain with every fact committed once known from the file
    that committed it. On a BbF knowledge state that made an honest move look illegal: the
    stand-in walked as the pool's guess (a Truck, 2 MP where 3-gren spent 1), the early
    identity renamed it without the MP it really spent, and 5.1b refused 3-gren's next step
    (the real exchange, 5.4, OS keys: '0120-axis.pbem: illegal order 3 ...: xii-7-brs has -5 MP
    left', exit status 3 against an honest side). BbF therefore does not recheck: its openings
    bring `.mp` where the rules reveal a unit, and the final replay proves hidden moves."""
    import pytest

    from pbem.core.errors import IllegalOrder
    from pbem.games.bcs.engine import BcsEngine

    sp = SealedPlay(GAME, _position(), b"k" * 32)
    assert sp.play("allied", "flip 3-gren") == []
    assert sp.play("allied", "move 3-gren B57.20 B56.20") == []
    early = _copy(sp.know["axis"])
    slot = bs.slot_name("allied", sp.full.slots["allied"]["3-gren"])
    assert GAME.disclose(early, "allied", {f"{slot}.unit": "3-gren", f"{slot}.face":
                                           sp.full.pieces["3-gren"].face}) is not False
    assert early.pieces["3-gren"].mp > sp.full.pieces["3-gren"].mp      # the Truck's MP
    with pytest.raises(IllegalOrder) as e:
        GAME.apply(early, "allied", GAME.parse_order("move 3-gren B56.19"), _ctx())
    assert e.value.rule == "BCS-5.1b"
    assert sp.play("allied", "move 3-gren B56.19") == []      # legal: the real unit's walk
    assert BcsEngine.sealed_recheck is False


def _copy(state: Any) -> Any:
    import msgspec

    return msgspec.json.decode(msgspec.json.encode(state), type=type(state))


def _ctx() -> Any:
    from pbem.core.dice import NoDice
    from pbem.core.game import Context

    return Context(NoDice())
