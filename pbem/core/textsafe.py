"""Text from files made safe for a terminal: no control characters, no escape sequences.

Anything a file carries (a player name, a message, an order echoed in an error, a field
name quoted by the decoder) may reach the terminal through the command line. A terminal
obeys escape sequences: it can be made to clear the screen, set the window title, move the
cursor to overwrite earlier lines, or (on some terminals) answer back or write files.
printable() removes every ANSI/ECMA-48 escape sequence and replaces every other control
character by '?', so no byte of a file can act on the terminal. Newlines and tabs are kept
(the CLI prints multi-line text); carriage returns are not (they overwrite a line).
"""

from __future__ import annotations

import re

# Control characters that have no business in printed text: C0 except TAB and LF, DEL, C1,
# the Unicode bidirectional overrides/isolates and marks that reorder what is displayed, and
# lone surrogates (undecodable bytes of a file name), which no terminal encoding can print.
_UNSAFE_CHARS = ("\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                 "\ud800-\udfff")
_UNSAFE_RE = f"[{_UNSAFE_CHARS}]"

# Escape sequences (ECMA-48), 7-bit and 8-bit forms; each is removed as a whole:
_SEQUENCE_RE = (
    # control strings (OSC, DCS, SOS, PM, APC) up to their terminator (BEL or ST), or up to
    # the first other control character when unterminated
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x00-\x1f\x7f-\x9f]*(?:\x07|\x1b\\|\x9c)?"
    # CSI: parameters, intermediates, one final byte
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    # any other escape: intermediates and one final byte
    r"|\x1b[ -/]*[0-~]?"
)


_compiled: list[re.Pattern[str]] = []


def _patterns() -> list[re.Pattern[str]]:
    """[unsafe characters, escape sequences], compiled when first needed (most text printed is
    plain ASCII, which printable() checks without them)."""
    if not _compiled:
        _compiled.extend((re.compile(_UNSAFE_RE), re.compile(_SEQUENCE_RE)))
    return _compiled


def printable(text: str) -> str:
    """The text with escape sequences removed and other control characters shown as '?'."""
    # ASCII text without unsafe characters: printable ASCII (space to '~'), newlines and tabs
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return text
    unsafe, sequence = _patterns()
    if unsafe.search(text) is None:
        return text
    return unsafe.sub("?", sequence.sub("", text))


#: The most characters of an error line; a longer one keeps its start and its end (where the
#: rule id is) around a note of what was left out. An opponent's file can quote a megabyte of
#: order text, which the mail gateway would otherwise log and mail back whole.
MAX_LINE = 2000


def one_line(text: str) -> str:
    """printable(), on one line (newlines and tabs become spaces), at most MAX_LINE long."""
    line = printable(text).replace("\n", " ").replace("\t", " ")
    if len(line) > MAX_LINE:
        head, tail = MAX_LINE * 2 // 3, MAX_LINE // 3 - 60
        line = (f"{line[:head]} [... {len(line) - head - tail} characters left out ...] "
                f"{line[len(line) - tail:]}")
    return line
