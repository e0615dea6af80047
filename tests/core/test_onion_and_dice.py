"""Hash onions and dice derivation: commitments, reveals, unbiased rolls, test vectors."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.dice import derive_roll, file_key
from pbem.core.game import Context
from pbem.core.dice import FixedDice, KeyedDice
from pbem.core.onion import Onion, proves, step, walk_down

GID = "00112233445566778899aabbccddeeff"


def test_onion_reveal_proves_earlier_elements():
    o = Onion(b"\x01" * 32, GID, "allied", 64)
    for k in (1, 5, 63):
        assert proves(GID, "allied", k, o.element(k), 0, o.tip)
        assert walk_down(GID, "allied", k, o.element(k), 1) == o.element(1)
    assert not proves(GID, "axis", 5, o.element(5), 0, o.tip)  # party is bound
    assert not proves(GID, "allied", 5, o.element(6), 0, o.tip)  # index is bound
    other = Onion(b"\x01" * 32, "ff" * 16, "allied", 64)
    assert other.tip != o.tip  # game id is bound


def test_onion_bounds():
    o = Onion(b"\x02" * 32, GID, "axis", 16)
    with pytest.raises(ValueError):
        o.element(16)


def test_step_matches_the_documented_formula():
    nxt = b"\x03" * 32
    lp = lambda b: len(b).to_bytes(4, "big") + b  # noqa: E731
    want = hashlib.sha256(lp(b"pbem/v1/onion") + lp(GID.encode()) + lp(b"allied")
                          + lp((7).to_bytes(4, "big")) + lp(nxt)).digest()
    assert step(GID, "allied", 7, nxt) == want


def test_chi_square_600000_d6():
    key = file_key(GID, [b"a" * 32, b"b" * 32], b"c" * 32, 1)
    counts = Counter(derive_roll(key, a, i, 6) for a in range(600) for i in range(1000))
    n = sum(counts.values())
    assert n == 600_000 and set(counts) == {1, 2, 3, 4, 5, 6}
    chi2 = sum((counts[f] - n / 6) ** 2 / (n / 6) for f in range(1, 7))
    # 5 degrees of freedom: P(chi2 > 20.5) = 0.001
    assert chi2 < 20.5, counts


@given(st.integers(0, 10_000), st.integers(0, 100), st.integers(2, 1000))
def test_rolls_in_range_and_addressed(action, index, sides):
    key = file_key(GID, [b"x" * 32], b"y" * 32, 3)
    v = derive_roll(key, action, index, sides)
    assert 1 <= v <= sides
    assert derive_roll(key, action, index, sides) == v


def test_adding_a_roll_to_one_action_never_shifts_another():
    dice = KeyedDice(file_key(GID, [b"x" * 32, b"z" * 32], b"y" * 32, 9))
    a = Context(dice, action=0)
    a.roll(6, "one")
    b_rolls = [Context(dice, action=1).roll(6, "x") for _ in range(1)]
    a2 = Context(dice, action=0)
    for _ in range(5):
        a2.roll(6, "more")
    assert [Context(dice, action=1).roll(6, "x")] == b_rolls


def test_key_depends_on_every_input():
    base = file_key(GID, [b"a" * 32, b"b" * 32], b"h" * 32, 4)
    assert base != file_key(GID, [b"a" * 32, b"c" * 32], b"h" * 32, 4)
    assert base != file_key(GID, [b"a" * 32, b"b" * 32], b"i" * 32, 4)
    assert base != file_key(GID, [b"a" * 32, b"b" * 32], b"h" * 32, 5)
    assert base != file_key("ff" * 16, [b"a" * 32, b"b" * 32], b"h" * 32, 4)


def test_vectors_in_protocol_doc():
    """The test vectors printed in docs/protocol.md are what the code computes."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    key = file_key(GID, [bytes([0xA1]) * 32, bytes([0xB2]) * 32], bytes([0xC3]) * 32, 7)
    assert key.hex() in doc
    rolls = [derive_roll(key, 0, i, 6) for i in range(10)]
    assert "first ten d6 at action 0: " + " ".join(map(str, rolls)) in doc
    assert f"d20 at action 2, index 5: {derive_roll(key, 2, 5, 20)}" in doc
    axis = file_key(GID, [bytes([0xA1]) * 32, bytes([0xB2]) * 32], bytes([0xC3]) * 32, 7, "axis")
    assert f"file key of class `axis`: `{axis.hex()}`" in doc
    assert step(GID, "allied", 7, b"\x03" * 32).hex() in doc
    from pbem.core.dicesecret import seed
    from pbem.core.dice import lp
    from pbem.protocol.genesis import GAME_ID_TAG

    assert seed(b"\x05" * 32, "host/axis").hex() in doc
    gid = hashlib.sha256(lp(GAME_ID_TAG) + lp(b"\xd4" * 32)).digest()[:16].hex()
    assert f"game id from the genesis hash `d4`×32: `{gid}`" in doc


def test_each_visibility_class_has_its_own_key():
    shares = [b"a" * 32, b"b" * 32]
    keys = {c: file_key(GID, shares, b"h" * 32, 4, c) for c in ("all", "allied", "axis", "nobody")}
    assert len(set(keys.values())) == 4


def test_shuffle_is_a_permutation_and_recorded():
    ctx = Context(KeyedDice(b"k" * 32), action=0)
    out = ctx.shuffle(list(range(10)), "markers")
    assert sorted(out) == list(range(10))
    assert len(ctx.rolls) == 9 and all("markers" in r.purpose for r in ctx.rolls)


def test_fixed_dice_refuse_out_of_range():
    with pytest.raises(AssertionError):
        FixedDice([7]).roll(0, 0, 6)
