"""Finding pbem files in mail messages of every shape, with the email package."""

from __future__ import annotations

import base64
import io
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixtures.table import Table
from pbem.mail import extract


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    t = Table(tmp_path_factory.mktemp("x"))
    acc = t.inbox[0][0]
    t.deliver()
    t.play_one()
    turn = t.inbox[0][0]
    return open(acc).read(), open(turn).read()


def _found(raw: bytes) -> list[str]:
    return [type(f.payload).__name__ for f in extract.files(extract.parse(raw))]


def test_plain_body_in_any_charset(files):
    acc, _ = files
    for cs, hello in (("utf-8", "Grüße, привет"), ("iso-8859-1", "Grüße"),
                      ("utf-16", "привет"), ("koi8-r", "привет")):
        m = EmailMessage()
        m["From"] = "a@x.test"
        m.set_content(hello + "\n\n" + acc, charset=cs)
        assert _found(bytes(m)) == ["Acceptance"], cs


def test_html_only_quoted_reply_and_attachment(files):
    acc, turn = files
    html = "<html><body><p>my move</p><pre>" + turn.replace("\n", "<br>") + "</pre>" \
           "<blockquote>" + "".join(f"&gt; {ln}<br>" for ln in acc.splitlines()) + \
           "</blockquote></body></html>"
    m = EmailMessage()
    m.set_content(html, subtype="html")
    assert _found(bytes(m)) == ["Acceptance", "Turn"]
    m = EmailMessage()
    m.set_content("see the attachment")
    m.add_attachment(turn.encode(), maintype="application", subtype="octet-stream",
                     filename="t.pbem")
    assert _found(bytes(m)) == ["Turn"]


def test_forwarded_message(files):
    _, turn = files
    inner = EmailMessage()
    inner["Subject"] = "turn"
    inner.set_content(turn)
    outer = EmailMessage()
    outer.set_content("forwarding")
    outer.add_attachment(inner)           # message/rfc822
    assert _found(bytes(outer)) == ["Turn"]


def test_base64_body_and_the_same_file_twice(files):
    _, turn = files
    m = MIMEMultipart()
    part = MIMEText(turn, "plain", "utf-8")
    m.attach(part)
    m.attach(MIMEText("> " + turn.replace("\n", "\n> "), "plain", "utf-8"))
    assert _found(m.as_bytes()) == ["Turn"]
    assert base64.b64encode(b"x")


@pytest.mark.parametrize("raw", [
    b"", b"Subject: hi\n\nno block here\n",
    b"Content-Type: multipart/mixed; boundary=x\n\n--x\n--x--\n",
    b"Content-Type: text/plain; charset=no-such\n\n-----BEGIN PBEM FILE-----\nAAAA\n"
    b"-----END PBEM FILE-----\n",
])
def test_no_file_is_a_one_line_refusal(raw):
    with pytest.raises(extract.MessageRefused):
        extract.files(extract.parse(raw))


def test_deeply_nested_messages_are_refused():
    m = EmailMessage()
    m.set_content("x")
    for _ in range(20):
        outer = EmailMessage()
        outer.set_content("fw")
        outer.add_attachment(m)
        m = outer
    with pytest.raises(extract.MessageRefused, match="nested"):
        extract.files(extract.parse(bytes(m)))


def test_a_message_of_many_tiny_parts_is_refused_before_it_is_parsed(monkeypatch):
    """A stranger's message of 10 MiB of tiny parts took the parser most of a minute: the
    part count is bounded on the raw bytes before parsing (the parser is never called)."""
    parts = b"".join(b"--P\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(5000))
    raw = (b"From: mallory@evil.test\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: multipart/mixed; boundary=P\r\n\r\n" + parts + b"--P--\r\n")
    monkeypatch.setattr(extract.email, "message_from_bytes",
                        lambda *a, **k: pytest.fail("the parser was called"))
    with pytest.raises(extract.MessageRefused, match="too many parts"):
        extract.parse(raw)


def test_a_message_with_a_few_parts_still_parses():
    m = EmailMessage()
    m["From"] = "blue@blue.test"
    m.set_content("-- \nsignature\n" * 50)
    for i in range(30):
        m.add_attachment(f"part {i}\n-----\n", filename=f"p{i}.txt")
    assert extract.parse(bytes(m)).is_multipart()


ENDS = st.lists(st.sampled_from([b"\n", b"\r\n", b"\r"]), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(ENDS, st.integers(4 * extract.MAX_PARTS, 4 * extract.MAX_PARTS + 50))
def test_many_tiny_parts_are_refused_unparsed_whatever_ends_the_lines(ends, n):
    """The email parser ends a line at CRLF, LF or a bare CR: a message of tiny parts is
    refused before parsing with any of them, or a mix (a bare CR slipped past the count)."""
    from unittest import mock

    lines = [b"From: mallory@evil.test", b"MIME-Version: 1.0",
             b"Content-Type: multipart/mixed; boundary=P", b""]
    lines += [b"--P", b"", b"x"] * n + [b"--P--", b""]
    raw = b"".join(ln + ends[i % len(ends)] for i, ln in enumerate(lines))
    with mock.patch.object(extract.email, "message_from_bytes",
                           side_effect=AssertionError("the parser was called")):
        with pytest.raises(extract.MessageRefused, match="lines open a part"):
            extract.parse(raw)


@settings(max_examples=300)
@given(st.lists(st.sampled_from([b"--", b"-", b"\r", b"\n", b"\r\n", b"x", b"\x85", b"\x0c"]),
                max_size=40))
def test_the_part_count_sees_the_lines_the_parser_sees(chunks):
    """The pre-parse count is the number of lines beginning '--' as the parser splits them
    (io's universal newlines: CRLF, LF, bare CR; not form feeds or NEL)."""
    raw = b"".join(chunks)
    text = raw.decode("ascii", "surrogateescape")
    seen = sum(ln.startswith("--") for ln in io.StringIO(text, newline="").readlines())
    assert extract.part_lines(raw) == seen
