"""Private committed draws (pbem.core.privatedraw, docs/protocol.md section 6a): the formulas,
the commitment's binding, and that the value needs both the owner's key and the other side's
share."""

from __future__ import annotations

import pytest

from pbem.core.dice import derive_roll, file_key
from pbem.core.errors import OrderSyntaxError
from pbem.core.game import Context, PrivateDraw
from pbem.core.dice import FixedDice
from pbem.core.privatedraw import (DrawLine, check_opening, commitment, draw_key, draw_value,
                                   format_draw_line, parse_draw_line, private_share)

GAME = "00112233445566778899aabbccddeeff"
KEY = draw_key(bytes([5]) * 32)
DRAW = PrivateDraw(owner="axis", name="objective", seq=7, action=2, index=0, sides=2,
                   purpose="objective")


def test_vectors():
    """Fixed values an independent verifier can check (secret 05 x 32, the game id above)."""
    assert KEY.hex() == "d7ed9d01192b5c93103fb7b18413ef422038847fdf3178a9dc11ce0ab6f8c046"
    assert commitment(GAME, "axis", KEY) == \
        "0e73c7090ad527161821c83f220c73052f0c74fde0d18e373e00e60e382decb2"
    assert private_share(KEY, 7).hex() == \
        "142794626b92e61d3d008fd8b4fa1b0b9bc8dea6e65ccb2a59824afdaf4729cb"
    d6 = [draw_value(GAME, PrivateDraw(owner="axis", name="o", seq=7, action=0, index=i, sides=6,
                                       purpose="o"),
                     [bytes([0xa1]) * 32, bytes([0xb2]) * 32], bytes([0xc3]) * 32, KEY)
          for i in range(10)]
    assert d6 == [3, 2, 2, 5, 3, 1, 4, 5, 2, 1]
    shares = [bytes([0xa1]) * 32, bytes([0xb2]) * 32]
    k = file_key(GAME, [*shares, private_share(KEY, 7)], bytes([0xc3]) * 32, 7, "axis")
    assert draw_value(GAME, DRAW, shares, bytes([0xc3]) * 32, KEY) == derive_roll(k, 2, 0, 2)


def test_an_opening_must_match_the_commitment():
    c = commitment(GAME, "axis", KEY)
    assert check_opening(GAME, "axis", c, KEY.hex()) is None
    other = draw_key(bytes([6]) * 32)
    assert "does not match axis's commitment" in check_opening(GAME, "axis", c, other.hex())
    assert "does not match" in check_opening(GAME, "allied", c, KEY.hex())   # bound to its owner
    assert "does not match" in check_opening("ff" * 16, "axis", c, KEY.hex())  # and its game
    assert "64 hex" in check_opening(GAME, "axis", c, "zz")


def test_the_value_depends_on_the_other_sides_share_and_on_the_owners_key():
    """Neither side alone decides it: over many shares of the other side both faces come up, and
    without the owner's key (another key) the values differ."""
    file_hash = bytes([0xc3]) * 32
    faces, other_key = set(), []
    for i in range(40):
        shares = [bytes([i]) * 32, bytes([0xb2]) * 32]
        faces.add(draw_value(GAME, DRAW, shares, file_hash, KEY))
        other_key.append(draw_value(GAME, DRAW, shares, file_hash, draw_key(bytes([9]) * 32))
                         == draw_value(GAME, DRAW, shares, file_hash, KEY))
    assert faces == {1, 2}
    assert not all(other_key)
    # and the draw is not the public roll at that address (a class-axis roll of both shares)
    public = [derive_roll(file_key(GAME, [bytes([i]) * 32, bytes([0xb2]) * 32], file_hash, 7,
                                   "axis"), 2, 0, 2) for i in range(40)]
    assert public != [draw_value(GAME, DRAW, [bytes([i]) * 32, bytes([0xb2]) * 32], file_hash, KEY)
                      for i in range(40)]


def test_lines_parse_strictly():
    line = format_draw_line(DrawLine(kind="reveal", value=KEY.hex()))
    assert parse_draw_line(line) == DrawLine(kind="reveal", value=KEY.hex())
    for bad in ("draws reveal", "draws open " + KEY.hex(), "draws reveal " + KEY.hex().upper(),
                "draws commit " + KEY.hex()[:-1]):
        with pytest.raises(OrderSyntaxError):
            parse_draw_line(bad)


def test_a_context_draws_with_owner_dice_or_leaves_the_value_to_the_owner():
    ctx = Context(FixedDice([2]), action=3, seq=9)
    rec, value = ctx.private_draw(2, "objective", owner="axis", name="objective")
    assert value == 2 and rec.seq == 9 and rec.action == 3 and rec.index == 0
    assert ctx.rolls[0].visible_to == "axis" and ctx.rolls[0].purpose == "objective"
    private = Context(FixedDice([]), action=3, seq=9, private=True)
    rec2, value2 = private.private_draw(2, "objective", owner="axis", name="objective")
    assert value2 == 0 and private.rolls == [] and private.draws == [rec2] and rec2 == rec
