"""A hidden unit that moves on under cover, from under one top to under another, after it
moved unseen earlier in the same Activation (5.4, bench/bcs_wild.py --p 0.5 --select hidden,
seed 64, order #1539; docs/sealed.md 5h).

ii-69-pg (Gerhardt, Tactical, MA 12) entered by A32.01 and ended under i-86-inf in A34.02.
The Allied processor's pool took 49-pio for its stand-in (the first of the arrival by id that
can walk the path), which walked the path as 49-pio; after the move the stand-in became a
copy of the top, i-86-inf--standinN (a Truck, MA 10), with the MP 49-pio spent. When
ii-69-pg moved on alone, back to A31.00 under 10-krad, it stayed under a top, so nothing
opened it: on the Allied knowledge state 5.1b refused the move ('i-86-inf--standin24 has 1 MP
left, entering A33.01 costs 2') and the game stopped. A unit under a top, unseen, that moved
before in the Activation now has its identity and face opened by its move (and with them its
MP spent and STOP, SLOT.mp)."""

from __future__ import annotations

from typing import Any

from pbem.core.sealed import SealedPlay
from pbem.games.bcs import sealed as bs

from games.bcs.test_sealed_port import GAME, sealed_position


def _position() -> Any:
    """A sealed position of 5.4, turn 4: Gerhardt activated (SNAFU Partial, its HQ in
    A32.01); i-86-inf (Lang, deployed) in A34.02 and 10-krad (Lang) in A31.00; ii-69-pg and
    49-pio of Gerhardt off the map, due by A32.01; the objective drawn (BbF 4.0: the Axis's
    first order would draw it, a die the trial of a move stops at)."""
    return sealed_position("sealed-cover", {
        "scenario": "5.4", "turn": 4,
        "next_side": "axis", "active": "gerhardt", "snafu": "Partial", "began": True,
        "drawn": True,
        "units": [{"id": "gerhardt-hq", "hex": "A32.01"}, {"id": "lang-hq", "hex": "A32.01"},
                  {"id": "i-86-inf", "hex": "A34.02", "face": "deployed"},
                  {"id": "10-krad", "hex": "A31.00"},
                  {"id": "ii-69-pg", "off": True, "arrives": 2, "entry": ["A32.01"]},
                  {"id": "49-pio", "off": True, "arrives": 2, "entry": ["A32.01"]}]})


def test_a_unit_moving_on_under_cover_opens_what_its_stand_in_guessed():
    sp = SealedPlay(GAME, _position(), b"k" * 32)
    assert sp.play("axis", "move ii-69-pg A32.01 A33.01 A34.02") == []
    allied = sp.know["allied"]
    slot = bs.slot_name("axis", sp.full.slots["axis"]["ii-69-pg"])
    # the case: the Allied pool guessed 49-pio, and its stand-in is now a copy of i-86-inf
    # that spent what 49-pio spent
    standin = bs.piece_of(allied, "axis", int(slot.split("-")[1]))
    assert standin is not None and standin.startswith("i-86-inf" + bs.STANDIN_MARK)
    assert allied.pieces[standin].mp != sp.full.pieces["ii-69-pg"].mp
    line = "move ii-69-pg A33.01 A32.01 A31.00"
    text = bs.project(sp.know["axis"], "axis", GAME.parse_order(line))
    # the old code: 'i-86-inf--standin24 has 1 MP left, entering A33.01 costs 2 [BCS-5.1b]'
    # on the Allied knowledge state, whose public state then parts
    assert sp.play("axis", line) == []
    assert text == f"move slot-{slot} A33.01 A32.01 A31.00 opens {slot}.unit {slot}.face " \
                   f"{slot}.mp"
    assert sp.full.pieces["ii-69-pg"].hex == allied.pieces["ii-69-pg"].hex == "A31.00"
    assert (allied.pieces["ii-69-pg"].mp, allied.pieces["ii-69-pg"].stopped) == \
        (sp.full.pieces["ii-69-pg"].mp, sp.full.pieces["ii-69-pg"].stopped)
    assert sp.opened["axis"] >= {f"{slot}.unit", f"{slot}.face", f"{slot}.mp"}


def test_an_entry_under_cover_and_a_seen_unit_open_nothing_of_it():
    """Entering under a top, the unit had not moved before: its move opens nothing of it (it
    travels by its slot, with its arrival). Once opened it is seen (Piece.revealed): moving on
    under cover opens nothing more of it."""
    sp = SealedPlay(GAME, _position(), b"k" * 32)
    first = GAME.parse_order("move ii-69-pg A32.01 A33.01 A34.02")
    assert bs.OPENS not in bs.project(sp.know["axis"], "axis", first)
    assert sp.play("axis", "move ii-69-pg A32.01 A33.01 A34.02") == []
    assert sp.play("axis", "move ii-69-pg A33.01 A32.01 A31.00") == []
    slot = bs.slot_name("axis", sp.full.slots["axis"]["ii-69-pg"])
    assert sp.full.pieces["ii-69-pg"].revealed
    on = GAME.parse_order("move ii-69-pg A32.01 A33.01 A34.02")      # under i-86-inf again
    assert not [f for _, f in bs.own_reveals(sp.know["axis"], "axis", on)
                if f.startswith(f"{slot}.")]
