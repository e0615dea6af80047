"""The renewal test vectors of docs/protocol.md section 6 come from the code, and the code's
generations follow the rules written there."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.core.dicesecret import seed
from pbem.core.onion import Onion, step
from pbem.core.renewal import Commitments, Exhausted, hash_label, renew_due
from pbem.core.records import Renewal

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
BIND = "00112233445566778899aabbccddeeff"


def test_renewal_vectors_in_the_protocol_doc():
    s = seed(bytes([5]) * 32, hash_label("allied", 1))
    assert hash_label("allied", 1) == "allied#1" and hash_label("allied", 0) == "allied"
    for value in (s.hex(), step(BIND, "allied#1", 7, bytes([3]) * 32).hex(),
                  Onion(s, BIND, "allied#1", 16).tip.hex()):
        assert value in DOC


def _renewal(label="red", generation=1, base=9, tip="11" * 32, length=16):
    return Renewal(game_id="g", party=label.split("/")[0], label=label, generation=generation,
                   base=base, tip=tip, length=length)


def test_files_use_the_generation_whose_base_precedes_them():
    c = Commitments({"red": b"\0" * 32}, {"red": 16})
    assert c.locate("red", 15) == (0, 15)
    with pytest.raises(Exhausted):
        c.locate("red", 16)                       # the last element is e[15]
    assert c.problem(_renewal(), game_id="g") is None
    c.add(_renewal())
    assert c.locate("red", 9) == (0, 9)           # the carrying file reveals from the old onion
    assert c.locate("red", 10) == (1, 1)
    assert c.locate("red", 24) == (1, 15)
    with pytest.raises(Exhausted):
        c.locate("red", 25)


@pytest.mark.parametrize("change, words", [
    (dict(generation=2), "expected 1"),
    (dict(base=16), "exhausted"),                 # the genesis onion ends at file 15
    (dict(base=0), "outside"),
    (dict(length=15), "length 15"),
    (dict(length=(1 << 20) + 1), "length"),
    (dict(tip="00" * 32), "reuses"),
    (dict(tip="zz" * 32), "malformed"),
    (dict(label="blue"), "not a dice commitment"),
])
def test_a_renewal_breaking_one_condition_is_refused(change, words):
    c = Commitments({"red": b"\0" * 32, "blue": b"\1" * 32}, {"red": 16, "blue": 16})
    r = _renewal(**change)
    if "label" in change:
        r = Renewal(**{**{f: getattr(r, f) for f in r.__struct_fields__}, "party": "red"})
    assert words in (c.problem(r, game_id="g") or "")


def test_boundaries_of_a_valid_renewal():
    c = Commitments({"red": b"\0" * 32}, {"red": 16})
    assert c.problem(_renewal(base=1), game_id="g") is None     # the earliest file
    assert c.problem(_renewal(base=15), game_id="g") is None    # the last file of the onion
    assert c.problem(_renewal(length=16), game_id="g") is None
    assert c.problem(_renewal(length=1 << 20), game_id="g") is None
    assert not renew_due(7, 16) and renew_due(8, 16)
