"""Commitments to hidden facts (docs/sealed.md section 2): the test vectors, hiding, binding,
versions, and a round trip over arbitrary facts and values."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.commitment import (FactBook, Opening, OwnFacts, commit, fact_key, salt,
                                  valid_fact)

DOC = (Path(__file__).resolve().parents[2] / "docs" / "sealed.md").read_text()
GID = "00112233445566778899aabbccddeeff"


def test_vectors_in_the_design_doc():
    k = fact_key(bytes([5]) * 32)
    s0, s1 = salt(k, "blk-07.strength", 0), salt(k, "blk-07.strength", 1)
    for value in (k.hex(), s0.hex(), commit(GID, "axis", "blk-07.strength", 0, 3, s0),
                  commit(GID, "axis", "blk-07.strength", 1, 3, s1)):
        assert value in DOC


def _pair(facts):
    own = OwnFacts(GID, "axis", fact_key(bytes([9]) * 32))
    book = FactBook(GID, "axis")
    for fact, (v, c) in own.update(facts).items():
        assert book.record(fact, v, c) is None
    return own, book


def test_an_unchanged_fact_is_not_committed_again_and_a_change_gets_a_fresh_salt():
    own, book = _pair({"blk-1.steps": 4, "blk-2.steps": 4})
    c1, c2 = book.commits["blk-1.steps"][0], book.commits["blk-2.steps"][0]
    assert c1 != c2, "equal values of two facts give unrelated commitments"
    assert own.update({"blk-1.steps": 4, "blk-2.steps": 4}) == {}
    new = own.update({"blk-1.steps": 3, "blk-2.steps": 4})
    assert list(new) == ["blk-1.steps"] and new["blk-1.steps"][0] == 1
    back = own.update({"blk-1.steps": 4, "blk-2.steps": 4})   # the old value again
    assert back["blk-1.steps"][1] != c1, "a change back never repeats an old commitment"


def test_openings_bind_the_value_the_version_and_the_salt():
    own, book = _pair({"blk-1.type": "armor"})
    good = own.opening("blk-1.type")
    assert book.check(good) is None and book.opened[("blk-1.type", 0)] == "armor"
    assert "does not match" in book.check(Opening(fact="blk-1.type", version=0,
                                                  value="infantry", salt=good.salt))
    assert "does not match" in book.check(Opening(fact="blk-1.type", version=0,
                                                  value="armor", salt="00" * 32))
    assert "never committed" in book.check(Opening(fact="blk-1.type", version=1,
                                                   value="armor", salt=good.salt))
    assert "never committed" in book.check(Opening(fact="blk-9.type", version=0,
                                                   value="armor", salt=good.salt))
    assert "malformed salt" in book.check(Opening(fact="blk-1.type", version=0,
                                                  value="armor", salt="zz"))
    assert "canonical profile" in book.check(Opening(fact="blk-1.type", version=0,
                                                     value=1.5, salt=good.salt))


def test_commitments_are_taken_in_version_order_only():
    book = FactBook(GID, "axis")
    assert "expected 0" in book.record("f", 1, "ab" * 32)
    assert book.record("f", 0, "ab" * 32) is None
    assert "expected 1" in book.record("f", 0, "cd" * 32)
    assert "malformed commitment" in book.record("f", 1, "xyz")
    assert "malformed fact" in book.record("bad fact", 0, "ab" * 32)


def test_another_game_or_owner_gives_another_commitment():
    s = salt(fact_key(bytes([5]) * 32), "f", 0)
    base = commit(GID, "axis", "f", 0, 1, s)
    assert commit("ff" * 16, "axis", "f", 0, 1, s) != base
    assert commit(GID, "allied", "f", 0, 1, s) != base
    assert commit(GID, "axis", "g", 0, 1, s) != base


values = st.recursive(st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1)
                      | st.text(max_size=20),
                      lambda c: st.lists(c, max_size=4) | st.dictionaries(
                          st.text(alphabet="abcdef", max_size=5), c, max_size=4),
                      max_leaves=10)
facts = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:/#?+-]{0,20}", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(facts, values, min_size=1, max_size=6), st.data())
def test_every_fact_opens_to_its_value_and_to_no_other(fs, data):
    assert all(valid_fact(f) for f in fs)
    own, book = _pair(fs)
    for f, v in fs.items():
        op = own.opening(f)
        assert book.check(op) is None and op.value == v
        other = data.draw(values.filter(lambda x: x != v))
        bad = Opening(fact=f, version=op.version, value=other, salt=op.salt)
        assert book.check(bad) is not None
