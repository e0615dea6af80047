"""armor.decoded_blobs, what the leak scans search: a stored file's bytes and the decoded payload
of every armored block in it; nothing it is given makes it raise."""

from __future__ import annotations

import base64
import json

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.armor import BEGIN, END, armor, decoded_blobs
from pbem.core.records import Turn, seal

NAME = b"barenthin"


def _turn_file() -> str:
    t = Turn(game_id="0" * 32, seq=3, prev="0" * 64, sender="axis", reveal="00" * 32,
             orders=[f"move {NAME.decode()} 1512 1513"])
    return seal(t, Ed25519PrivateKey.generate()).text


@given(st.binary(max_size=2000))
def test_garbage_never_raises_and_the_raw_bytes_come_first(raw):
    out = decoded_blobs(raw)
    assert out[0] == raw and all(isinstance(b, bytes) for b in out)


@given(st.one_of(
    st.binary(min_size=1, max_size=300),
    st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                 lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c,
                                                                    max_size=3)
                 ).map(lambda v: json.dumps(v).encode()),
    st.sampled_from([b'{"payload": 7}', b'{"payload": "not base64!"}', b'{"payload": "\xe9"}',
                     b'{"payload": null}', b'{"payload": ["QUJD"]}', b"[" * 100000,
                     b'{"payload": "QUJ"}', b'"payload"'])))
def test_an_armored_block_that_is_no_envelope_never_raises(data):
    text = armor(data)
    out = decoded_blobs(text.encode())
    assert out[0] == text.encode() and len(out) == 2
    assert all(isinstance(b, bytes) for b in out)


def test_a_sealed_turn_files_payload_is_found():
    text = _turn_file()
    assert NAME not in text.encode()             # base64 in the block: a raw search misses it
    raw, payload = decoded_blobs(text.encode())
    assert raw == text.encode() and NAME in payload
    assert json.loads(payload)["type"] == "pbem/turn/v1"


def test_every_block_of_a_mailed_reply_is_decoded_and_a_damaged_one_skipped():
    text = _turn_file()
    quoted = "\r\n".join("> " + ln for ln in text.splitlines())
    damaged = f"{BEGIN}\n!!!!\n{END}\n"
    env = json.dumps({"v": 1, "payload": base64.b64encode(b"other").decode(), "sig": ""})
    mail = f"Hi,\r\n{quoted}\r\n\r\n{damaged}\r\n{armor(env.encode())}\r\nBye\r\n"
    out = decoded_blobs(mail.encode())
    assert out[0] == mail.encode() and len(out) == 3
    assert NAME in out[1] and out[2] == b"other"
