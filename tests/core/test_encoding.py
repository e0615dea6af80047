"""Canonical payload bytes: profile, strict decode, re-encode equality."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.encoding import MAX_INT, canonical, check_profile, decode_canonical
from pbem.core.errors import FileRejected
from pbem.core.records import Payload, Results, RollRecord, Turn

ascii_keys = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=8)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-MAX_INT, MAX_INT),
                    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20))
values = st.recursive(scalars, lambda c: st.one_of(st.lists(c, max_size=4),
                                                   st.dictionaries(ascii_keys, c, max_size=4)),
                      max_leaves=20)


@given(values)
def test_canonical_is_sorted_compact_json(v):
    data = canonical(v)
    assert msgspec.json.decode(data) == v
    # Under the profile the bytes are the sorted, compact JSON any verifier can reproduce.
    assert json.loads(data) == v
    assert canonical(json.loads(data)) == data


@given(values)
def test_reencoding_is_identity(v):
    assert canonical(msgspec.json.decode(canonical(v))) == canonical(v)


def turn(**kw):
    base = dict(game_id="ab" * 16, seq=3, prev="00" * 32, sender="allied", reveal="11" * 32,
                results=Results(seq=2, rolls=[RollRecord(action=0, index=0, sides=6, value=4,
                                                         purpose="weather")], state_hash="22" * 32),
                orders=["end"])
    base.update(kw)
    return Turn(**base)


@given(st.lists(st.text(max_size=30), max_size=5), st.integers(1, 10_000))
def test_turn_round_trip(orders, seq):
    t = turn(orders=orders, seq=seq)
    data = canonical(t)
    assert decode_canonical(data, Payload) == t


def test_float_rejected():
    data = canonical(turn()).replace(b'"seq":3', b'"seq":3.0')
    with pytest.raises(FileRejected, match="float"):
        decode_canonical(data, Payload)


def test_big_integer_rejected():
    data = canonical(turn()).replace(b'"seq":3', b'"seq":9007199254740993')
    with pytest.raises(FileRejected, match="out of range"):
        decode_canonical(data, Payload)


def test_duplicate_key_rejected():
    data = canonical(turn()).replace(b'"seq":3', b'"seq":3,"seq":4')
    with pytest.raises(FileRejected):
        decode_canonical(data, Payload)


def test_unknown_field_rejected():
    data = canonical(turn()).replace(b'"seq":3', b'"seq":3,"zzz":1')
    with pytest.raises(FileRejected, match="malformed"):
        decode_canonical(data, Payload)


def test_whitespace_or_key_order_rejected():
    data = canonical(turn())
    with pytest.raises(FileRejected, match="canonical"):
        decode_canonical(data.replace(b'"seq":3', b'"seq": 3'), Payload)
    obj = json.loads(data)
    with pytest.raises(FileRejected, match="canonical"):
        decode_canonical(json.dumps(obj, separators=(",", ":")).encode()
                         if list(obj) != sorted(obj) else
                         json.dumps(dict(reversed(list(obj.items()))),
                                    separators=(",", ":")).encode(), Payload)


def test_profile_rejects_non_ascii_keys():
    with pytest.raises(ValueError):
        check_profile({"é": 1})
