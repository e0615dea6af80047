"""ASCII armor: a signed file as a block of base64 that survives being pasted into an email.

Reading is tolerant of what mail does to a text (see scan: CRLF, rewrapped lines, Unicode
spaces, zero-width characters, nested quote marks, joined marker lines, several blocks in
one reply); writing is canonical (64-column lines, LF), and archives store the canonical form.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
from typing import NamedTuple

from pbem.core.errors import FileRejected

BEGIN = "-----BEGIN PBEM FILE-----"
END = "-----END PBEM FILE-----"
WIDTH = 64
_B64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


def armor(data: bytes) -> str:
    """Wrap bytes as a canonical armored block (ends with a newline)."""
    b64 = base64.b64encode(data).decode("ascii")
    lines = [b64[i:i + WIDTH] for i in range(0, len(b64), WIDTH)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


class Block(NamedTuple):
    """One armored block found in a text: its bytes, or why it cannot be read."""

    data: bytes | None         # None: damaged (see problem)
    problem: str               # empty when well formed
    quote: int                 # quote depth of its BEGIN line (number of '>' or '|' marks)
    index: int                 # its place among the blocks of the text, from 0


# Characters mail clients insert that show as nothing: soft hyphen, zero-width spaces and
# joiners, direction marks, word joiner, byte-order mark.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
                        "\u2066-\u2069\ufeff]")
_QUOTE = re.compile(r"[\s>|]*")          # leading quote marks and (Unicode) spaces
_SPACES = re.compile(r"\s+")              # any run of (Unicode) spaces inside a line
_CANONICAL_BODY = re.compile(r"(?:[A-Za-z0-9+/=]{1,76}\n)+")


def canonical_b64(s: str) -> bytes | None:
    """The bytes s encodes if s is canonical standard base64 (padded, no other character);
    None otherwise (the caller's own checks then say why)."""
    try:
        data = binascii.a2b_base64(s)
    except (binascii.Error, ValueError):     # ValueError: a non-ASCII str
        return None
    return data if binascii.b2a_base64(data, newline=False) == s.encode("ascii") else None


def _canonical_lines(body: str) -> bytes | None:
    """The bytes of a block body of canonical base64 lines of 1 to 76 characters, each ending
    in a newline (what _CANONICAL_BODY and _decode_body accept alike); None if it is not."""
    lines = body.split("\n")
    if lines.pop() or not lines or not 1 <= min(map(len, lines)) <= max(map(len, lines)) <= 76:
        return None
    return canonical_b64("".join(lines))


def _decode_body(body: str) -> tuple[bytes | None, str]:
    """(bytes, "") for a well-formed base64 body (any whitespace ignored), else (None, why)."""
    b64 = "".join(body.split())
    if not b64:
        return None, "armored block is damaged (empty)"
    if not _B64.match(b64) or len(b64) % 4:
        return None, "armored block is damaged (not valid base64)"
    try:
        data = base64.b64decode(b64, validate=True)
    except binascii.Error:
        return None, "armored block is damaged (not valid base64)"
    if base64.b64encode(data).decode("ascii") != b64:
        return None, "armored block is damaged (non-canonical base64)"
    return data, ""


def _fast(text: str) -> list[Block] | None:
    """The blocks of a text that is one plain block (the stored form); None if it is not."""
    b = text.find(BEGIN)
    if b < 0 or (b and text[b - 1] != "\n") or text.find(BEGIN, b + 1) >= 0:
        return None
    e = text.find(END, b)
    body_at = b + len(BEGIN) + 1
    if (e < 0 or text[e - 1:e] != "\n" or text[body_at - 1:body_at] != "\n"
            or text.find(END, e + 1) >= 0 or not text.isascii()):
        return None
    body = text[body_at:e]
    data = _canonical_lines(body)
    if data is not None:
        return [Block(data, "", 0, 0)]
    if not _CANONICAL_BODY.fullmatch(body):
        return None
    data, problem = _decode_body(body)
    return [Block(data, problem, 0, 0)]


def scan(text: str) -> list[Block]:
    """Every armored block in a text (an email body), well formed or not, in text order.

    Tolerated: CR/CRLF line ends, any rewrapping, spaces and tabs, non-breaking and other
    Unicode spaces, zero-width characters, '>' and '|' quote marks (nested, spaced or not)
    at the start of lines, a BEGIN or END line joined to the base64 next to it, text of any
    script around the block. Inside the block only base64 (and whitespace) is accepted, so a
    quoted block that a mail client rewrapped with quote marks inside is damaged, as is a
    truncated block (no END before the next BEGIN or the end of the text).
    """
    fast = _fast(text)
    if fast is not None:
        return fast
    if not text.isascii():
        text = _INVISIBLE.sub("", text)
    lines, quotes = [], []
    for ln in text.splitlines():
        m = _QUOTE.match(ln)
        prefix = m.group()
        quotes.append(prefix.count(">") + prefix.count("|"))
        lines.append(_SPACES.sub(" ", ln[m.end():]))   # NBSP in "BEGIN PBEM FILE" too
    joined = "\n".join(lines)
    starts, at = [], 0
    for ln in lines:
        starts.append(at)
        at += len(ln) + 1
    blocks: list[Block] = []
    pos = joined.find(BEGIN)
    end = -2                    # the END line found last (-1: none left; -2: not looked yet)
    while pos >= 0:
        line = bisect.bisect_right(starts, pos) - 1
        after = pos + len(BEGIN)
        nxt = joined.find(BEGIN, after)
        if end == -2 or 0 <= end < after:
            # looked up again only once passed: a text of many BEGIN lines and no END was
            # searched to its end once per BEGIN (quadratic: 2 MB of BEGIN lines took a minute)
            end = joined.find(END, after)
        if end < 0 or 0 <= nxt < end:
            data, problem = None, "armored block is damaged (no END line: truncated?)"
        else:
            data, problem = _decode_body(joined[after:end])
        blocks.append(Block(data, problem, quotes[line], len(blocks)))
        pos = nxt
    return blocks


def dearmor_all(text: str, *, name: str = "file") -> list[bytes]:
    """The bytes of every well-formed armored block in text, in text order.

    Damaged blocks are skipped when another block is well formed; FileRejected naming the
    problem when none is.
    """
    blocks = scan(text)
    good = [b.data for b in blocks if b.data is not None]
    if good:
        return good
    raise rejection(blocks, name)


def rejection(blocks: list[Block], name: str) -> FileRejected:
    """The error for a text none of whose blocks is well formed."""
    if not blocks:
        return FileRejected(f"{name}: no '{BEGIN}' ... '{END}' block found")
    if len(blocks) == 1:
        return FileRejected(f"{name}: {blocks[0].problem}")
    return FileRejected(f"{name}: none of its {len(blocks)} armored blocks is readable "
                        f"(the last: {blocks[-1].problem})")


def dearmor(text: str, *, name: str = "file") -> bytes:
    """The bytes of the first well-formed armored block in text (see scan, dearmor_all)."""
    return dearmor_all(text, name=name)[0]


def decoded_blobs(raw: bytes) -> list[bytes]:
    """raw, then the decoded payload of every readable armored block in it; never raises."""
    import json                     # here: the commands that never scan for leaks skip it

    out = [raw]
    for block in scan(raw.decode("utf-8", "replace")):
        if block.data is None:
            continue                # damaged: only the raw bytes are left to search
        try:                        # a signed file's block: {"payload": base64, "sig", "v"}
            out.append(base64.b64decode(json.loads(block.data)["payload"], validate=True))
        except (ValueError, TypeError, KeyError, RecursionError):
            out.append(block.data)  # no envelope: the block's own bytes
    return out
