"""ASCII armor survives mail clients: rewrapping, CRLF, trailing spaces, quoting, surrounding text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.armor import BEGIN, END, armor, dearmor
from pbem.core.errors import FileRejected


@given(st.binary(min_size=1, max_size=600))
def test_round_trip(data):
    assert dearmor(armor(data)) == data


@given(st.binary(min_size=1, max_size=600), st.integers(8, 100), st.sampled_from(["\n", "\r\n"]),
       st.sampled_from(["", " ", "  \t"]), st.sampled_from(["", "> ", ">> "]))
def test_mail_mangling_is_tolerated(data, width, eol, trailing, quote):
    text = armor(data)
    body = "".join(text.splitlines()[1:-1])
    lines = [body[i:i + width] for i in range(0, len(body), width)]
    mangled = eol.join(quote + ln + trailing for ln in [BEGIN, *lines, END])
    mail = f"Hi,{eol}here is my turn.{eol}{eol}{mangled}{eol}{eol}Cheers{eol}"
    assert dearmor(mail) == data


def test_missing_block():
    with pytest.raises(FileRejected, match="no '-----BEGIN"):
        dearmor("hello", name="x.pbem")


def test_damaged_base64():
    text = armor(b"hello world").replace("aGVs", "a*Vs")
    with pytest.raises(FileRejected, match="damaged"):
        dearmor(text, name="x.pbem")


def test_truncated_file_is_rejected():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from pbem.core.records import Turn, open_text, seal

    f = seal(Turn(game_id="ab" * 16, seq=1, prev="00" * 32, sender="allied", reveal="11" * 32,
                  orders=["end"] * 20), Ed25519PrivateKey.generate())
    lines = f.text.splitlines()
    for cut in (lines[:3] + lines[-1:], lines[:-1], [f.text[: len(f.text) // 2]]):
        with pytest.raises(FileRejected):
            open_text("\n".join(cut), name="x.pbem")
