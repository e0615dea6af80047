"""ASCII armor: a signed file as a block of base64 that survives being pasted into an email.

Reading is tolerant (CRLF, rewrapped lines, trailing spaces, '>' quote marks, text around
the block); writing is canonical (64-column lines, LF), and archives store the canonical form.
"""

from __future__ import annotations

import base64
import binascii
import re

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


def dearmor(text: str, *, name: str = "file") -> bytes:
    """Extract the bytes of the first armored block in text (tolerant of mail mangling)."""
    lines = [ln.strip().lstrip(">").strip() for ln in text.replace("\r", "\n").split("\n")]
    try:
        start = lines.index(BEGIN)
        end = lines.index(END, start + 1)
    except ValueError:
        raise FileRejected(f"{name}: no '{BEGIN}' ... '{END}' block found") from None
    body = "".join("".join(ln.split()) for ln in lines[start + 1:end])
    if not body or not _B64.match(body) or len(body) % 4:
        raise FileRejected(f"{name}: armored block is damaged (not valid base64)")
    try:
        data = base64.b64decode(body, validate=True)
    except binascii.Error:
        raise FileRejected(f"{name}: armored block is damaged (not valid base64)") from None
    if base64.b64encode(data).decode("ascii") != body:
        raise FileRejected(f"{name}: armored block is damaged (non-canonical base64)")
    return data
