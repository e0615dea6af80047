"""Orders files: one order per line in the game's notation; '#' starts a comment."""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

from pbem.core.dice import NoDice
from pbem.core.errors import IllegalOrder, OrderError, OrderSyntaxError, PbemError
from pbem.core.game import Context, Game, NeedsDice
from pbem.core.inputs import read_limited
from pbem.protocol.resolve import copy_state


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
    out = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append((n, line))
    return out


class Checked:
    """The outcome of checking orders: canonical lines, problems, and lines checked only later."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.problems: list[str] = []
        self.after_dice: list[int] = []
        self.notes: list[str] = []      # what was and was not checked, for the player

    @property
    def ok(self) -> bool:
        """True if no problem was found."""
        return not self.problems


def check_orders(game: Game, state: Any, side: str, numbered: list[tuple[int, str]],
                 *, name: str, syntax_only: bool = False) -> Checked:
    """Parse and check orders against a state as the resolver will, up to the first die."""
    out = Checked()
    parsed = []
    for n, line in numbered:
        try:
            order = game.parse_order(line)
        except OrderSyntaxError as e:
            out.problems.append(f"{name}: line {n}: {line!r}: {e.reason}"
                                + (f" [{e.rule}]" if e.rule else ""))
            continue
        out.lines.append(game.format_order(order))
        parsed.append((n, line, order))
    if syntax_only:
        _no_search(parsed, 0, "no position is at hand to search one in", out, name)
    if out.problems or syntax_only:
        return out
    sim = copy_state(game, state)
    dice = NoDice()
    for i, (n, line, order) in enumerate(parsed):
        try:
            if side not in {d.side for d in game.pending(sim)}:
                raise IllegalOrder(f"{side} has no decision to make now", rule="PBEM-TURN")
            if getattr(order, "needs_path", False):
                # A destination-only move is written out here, in the position it moves in,
                # so that the signed file holds the full path and no receiver searches.
                order = game.expand_order(sim, side, order)  # type: ignore[attr-defined]
                out.lines[i] = game.format_order(order)
            game.apply(sim, side, order, Context(dice, action=i))
        except NeedsDice:
            out.after_dice = [m for m, _, _ in parsed[i + 1:]]
            _no_search(parsed, i + 1, "it comes after dice", out, name)
            break
        except OrderError as e:
            out.problems.append(f"{name}: line {n}: {line!r}: {e.reason}"
                                + (f" [{e.rule}]" if e.rule else ""))
            break
    return out


def _no_search(parsed: list[tuple[int, str, Any]], start: int, why: str, out: Checked,
               name: str) -> None:
    """Destination-only moves from parsed[start] on cannot be written out before signing."""
    for n, line, order in parsed[start:]:
        if getattr(order, "needs_path", False):
            out.problems.append(f"{name}: line {n}: {line!r}: a destination-only move is "
                                f"written out as its full path before signing, which is not "
                                f"possible here ({why}): write the full path")
