"""Finding every pbem file in a mail message, with the standard `email` package.

Every part is walked (multipart/*, message/rfc822 forwarded messages inside): text/plain
decoded from its charset, text/html turned into text, and any other part (an attachment of
any type) decoded from its bytes when it holds an armored block. Every well-formed block of
every text is opened (pbem.core.records), duplicates (the same payload quoted twice) kept once.
"""

from __future__ import annotations

import email
import email.policy
import html
import json
import os
import re
import selectors
import signal
import time
from dataclasses import asdict, dataclass, field
from email.message import EmailMessage
from email.utils import getaddresses
from html.parser import HTMLParser

from pbem.core import armor
from pbem.core.errors import FileRejected, PbemError
from pbem.core.records import MAX_FILE_BYTES, SignedFile, decode_text, open_text

MAX_PARTS = 200
MAX_DEPTH = 8
#: The most a message may take to be read (parsed, walked, its blocks opened), in seconds of
#: CPU and of wall-clock time; a message that takes longer is refused. The standard library's
#: parsers have inputs that cost them quadratic time: a Content-Type header of 224 KB of
#: encoded words, 15 s (10 MiB: hours); 30 KB of '<a ' in an HTML part, 11 s (html.parser).
READ_SECONDS = 20


class MessageRefused(PbemError):
    """A message the gateway will not process (its reason is one line)."""


class MessageGone(PbemError):
    """A message that left the inbox between listing and reading (nothing to file)."""


class _Text(HTMLParser):
    """HTML to text: tags dropped, block ends and <br> as line ends, entities decoded."""

    _BREAK = {"br", "p", "div", "pre", "tr", "li", "blockquote", "h1", "h2", "h3", "table"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag in self._BREAK:
            self.out.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        if tag in self._BREAK:
            self.out.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def html_to_text(markup: str) -> str:
    p = _Text()
    try:
        p.feed(markup)
        p.close()
    except Exception:                     # noqa: BLE001  a broken page: strip tags crudely
        return html.unescape(re.sub(r"<[^>]*>", "\n", markup))
    return "".join(p.out)


def part_lines(raw: bytes) -> int:
    """How many lines of raw begin with '--', lines ended as the parser ends them (CRLF, LF
    or a bare CR: a line begins after every LF and after every CR not followed by LF)."""
    return raw.count(b"\n--") + raw.count(b"\r--") + raw.startswith(b"--")


def parse(raw: bytes) -> EmailMessage:
    """The parsed message; MessageRefused, before parsing, for one that could hold more parts
    than MAX_PARTS allows: every MIME part opens on a line beginning '--' (its boundary), so
    more such lines than four per allowed part mean a message the walk below would refuse
    anyway, after the parser had built every part (a stranger's 10 MiB of tiny parts cost the
    gateway most of a minute of CPU and 250 MB; separated by bare CRs, which the count once
    missed, 53 s and 372 MB for 7 MB)."""
    lines = part_lines(raw)
    if lines > 4 * MAX_PARTS:
        raise MessageRefused(f"too many parts or nested messages (limit {MAX_PARTS} parts, "
                             f"{MAX_DEPTH} levels): {lines} lines open a part or may")
    return email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[return-value]


def _part_text(part: EmailMessage) -> str | None:
    """The text of one leaf part, or None when it cannot hold a block."""
    ctype = part.get_content_type()
    try:
        raw = part.get_payload(decode=True)
    except Exception:                     # noqa: BLE001  a broken transfer encoding
        return None
    if not isinstance(raw, bytes) or len(raw) > 4 * MAX_FILE_BYTES:
        return None
    text: str | None = None
    if part.get_content_maintype() == "text":
        charset = part.get_content_charset() or "ascii"
        try:
            text = raw.decode(charset, errors="replace")
        except LookupError:               # an unknown charset: the block itself is ASCII
            text = decode_text(raw)
    else:
        text = decode_text(raw)
    if ctype == "text/html":
        text = html_to_text(text)
    return text


def texts(msg: EmailMessage) -> list[str]:
    """The text of every leaf part that mentions an armored block, forwarded ones included."""
    out: list[str] = []
    _walk(msg, 0, [0], out)
    return out


def _walk(m: EmailMessage, depth: int, count: list[int], out: list[str]) -> None:
    """texts: the parts of m (count: parts seen so far, in a one-item list; a module function,
    not a nested recursive one, which would be a reference cycle holding the message)."""
    count[0] += 1
    if count[0] > MAX_PARTS or depth > MAX_DEPTH:
        raise MessageRefused(f"too many parts or nested messages (limit {MAX_PARTS} "
                             f"parts, {MAX_DEPTH} levels)")
    if m.is_multipart():
        payload = m.get_payload()
        for sub in payload if isinstance(payload, list) else []:
            _walk(sub, depth + 1, count, out)
        return
    t = _part_text(m)
    if t is not None and "PBEM FILE" in re.sub(r"\s+", " ", armor._INVISIBLE.sub("", t)):
        out.append(t)


def files(msg: EmailMessage) -> list[SignedFile]:
    """Every distinct pbem file in a message (not yet verified against any game), in the
    order a game plays them: acceptances first, then by sequence number."""
    found: dict[bytes, SignedFile] = {}
    problems: list[str] = []
    for t in texts(msg):
        try:
            blocks = armor.dearmor_all(t, name="message")
        except FileRejected as e:
            problems.append(str(e))
            continue
        for data in blocks:
            try:
                f = open_text(armor.armor(data), name="message")
            except FileRejected as e:
                problems.append(str(e))
                continue
            found.setdefault(f.payload_bytes, f)
    if not found:
        raise MessageRefused(problems[0] if problems else "no pbem file found in the message")

    def order(f: SignedFile) -> tuple[int, int]:
        k = type(f.payload).__name__
        return ({"Proposal": 0, "Acceptance": 1}.get(k, 2), getattr(f.payload, "seq", 0) or 0)

    return sorted(found.values(), key=order)


@dataclass
class Read:
    """What the gateway needs of a message (see read). error: why it cannot be used, at the
    stage it stopped: parse (refused unparsed), headers (unreadable), files (no usable file)."""

    stage: str = ""
    error: str = ""
    msgid: str = ""
    frm: list[str] = field(default_factory=list)    # every From address, lower case
    auto: str = "no"                                # Auto-Submitted, lower case
    subject: str = ""
    files: list[str] = field(default_factory=list)  # every file's canonical text, in order


def read_here(raw: bytes) -> Read:
    """read, in this process (no time bound)."""
    try:
        msg = parse(raw)
    except MessageRefused as e:          # refused before the parser reads it
        return Read("parse", str(e))
    except Exception as e:               # noqa: BLE001  100,000 nested messages: RecursionError
        return Read("parse", f"unreadable message ({type(e).__name__})")
    try:
        msgid = str(msg.get("Message-ID", "") or "")
        frm = [a.lower() for _, a in getaddresses([str(msg.get("From", "") or "")]) if a]
        auto = str(msg.get("Auto-Submitted", "no") or "no").strip().lower()
        subject = str(msg.get("Subject", "") or "")
    except Exception as e:               # noqa: BLE001  hostile headers
        return Read("headers", f"unreadable message ({type(e).__name__})")
    got = Read(msgid=msgid, frm=frm, auto=auto, subject=subject)
    try:
        got.files = [f.text for f in files(msg)]
    except MessageRefused as e:
        got.stage, got.error = "files", str(e)
    except Exception as e:               # noqa: BLE001  anything the parser trips on
        got.stage, got.error = "files", f"unreadable message ({type(e).__name__})"
    return got


def read(raw: bytes) -> Read:
    """The message's headers and files, read in a child process that may spend READ_SECONDS
    of CPU and of wall-clock time on it (then killed: MessageRefused); see READ_SECONDS."""
    if not hasattr(os, "fork"):
        return read_here(raw)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                          # the child: read, write the result, exit at once
        code = 0
        try:
            os.close(r)
            import resource

            resource.setrlimit(resource.RLIMIT_CPU, (READ_SECONDS, READ_SECONDS + 1))
            data = json.dumps(asdict(read_here(raw))).encode("ascii")
            view = memoryview(data)
            while view:
                view = view[os.write(w, view):]
        except BaseException:             # noqa: BLE001  no exception may leave the child
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    chunks: list[bytes] = []
    late = False
    try:
        deadline = time.monotonic() + READ_SECONDS
        with selectors.DefaultSelector() as sel:
            sel.register(r, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    late = True
                    break
                chunk = os.read(r, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
    finally:
        os.close(r)
        if late:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if late or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU):
        raise MessageRefused(f"the message takes too long to read (over {READ_SECONDS} s of "
                             "CPU or time)")
    if status != 0:
        raise MessageRefused(f"unreadable message (its reader stopped: status {status})")
    return Read(**json.loads(b"".join(chunks)))
