"""Orders files: one order per line in the game's notation; '#' starts a comment."""

from __future__ import annotations

import codecs
from pathlib import Path

from pbem.core.armor import BEGIN as ARMOR_BEGIN
from pbem.core.errors import PbemError
from pbem.core.inputs import read_limited


MAX_ORDERS_BYTES = 1024 * 1024
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))


def read_lines(path: str | Path) -> list[tuple[int, str]]:
    """(line number, text) of every order line in an orders file."""
    p = Path(path)
    data = read_limited(p, MAX_ORDERS_BYTES, what="orders file")
    # A byte-order mark says the encoding (editors on Windows write UTF-16 with one); without
    # one the file must be UTF-8. Line ends may be \n, \r\n (Windows) or \r.
    codec = next((c for bom, c in _BOMS if data.startswith(bom)), "utf-8")
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as e:
        raise PbemError(f"{p.name}: orders are not {codec.upper().replace('-SIG', '')} text "
                        f"(byte {e.start})") from None
    if ARMOR_BEGIN in text:
        # a signed file given where the orders go (pbem check DIR FILE, to "check" a received
        # file): one line, not a "cannot read order" for each line of its armor
        raise PbemError(f"{p.name}: a signed pbem file, not an orders file (a file from your "
                        "opponent or referee is read with 'pbem receive DIR FILE'; orders are "
                        "plain lines in the game's notation)")
    out = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append((n, line))
    return out
