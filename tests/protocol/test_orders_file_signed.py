"""A signed pbem file given where an orders file goes (`pbem check DIR turn.pbem`, a player
"checking" a file he received) is refused in one line, not with a 'cannot read order' per
line of its armor."""

from __future__ import annotations

import pytest

from pbem.core.errors import PbemError
from pbem.protocol.orders_file import read_lines


def test_a_signed_file_is_not_read_as_orders(tmp_path):
    f = tmp_path / "turn-0003.pbem"
    f.write_text("pbem turn file 3 from axis\ngame id 0123\n\n-----BEGIN PBEM FILE-----\n"
                 "eyJwYXlsb2FkIjoiZXlK\n-----END PBEM FILE-----\n")
    with pytest.raises(PbemError) as e:
        read_lines(f)
    msg = str(e.value)
    assert msg.startswith("turn-0003.pbem: a signed pbem file, not an orders file")
    assert "pbem receive DIR FILE" in msg and "\n" not in msg


def test_quoted_in_a_mail_reply_too(tmp_path):
    f = tmp_path / "reply.txt"
    f.write_text("> -----BEGIN PBEM FILE-----\n> eyJw\n> -----END PBEM FILE-----\n")
    with pytest.raises(PbemError, match="not an orders file"):
        read_lines(f)


def test_ordinary_orders_still_read(tmp_path):
    f = tmp_path / "o.txt"
    f.write_text("# my turn\nmove 36bde 1105-1204\r\nend\n")
    assert read_lines(f) == [(2, "move 36bde 1105-1204"), (3, "end")]
