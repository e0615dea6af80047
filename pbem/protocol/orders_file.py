"""Orders files: one order per line in the game's notation; '#' starts a comment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.core.dice import NoDice
from pbem.core.errors import IllegalOrder, OrderError, OrderSyntaxError, PbemError
from pbem.core.game import Context, Game, NeedsDice
from pbem.protocol.resolve import copy_state


def read_lines(path: str | Path) -> list[tuple[int, str]]:
    """(line number, text) of every order line in an orders file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PbemError(f"{p}: cannot read orders ({e})") from None
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

    @property
    def ok(self) -> bool:
        """True if no problem was found."""
        return not self.problems


def check_orders(game: Game, state: Any, side: str, numbered: list[tuple[int, str]],
                 *, name: str) -> Checked:
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
    if out.problems:
        return out
    sim = copy_state(game, state)
    dice = NoDice()
    for i, (n, line, order) in enumerate(parsed):
        try:
            if side not in {d.side for d in game.pending(sim)}:
                raise IllegalOrder(f"{side} has no decision to make now", rule="PBEM-TURN")
            game.apply(sim, side, order, Context(dice, action=i))
        except NeedsDice:
            out.after_dice = [m for m, _, _ in parsed[i + 1:]]
            break
        except OrderError as e:
            out.problems.append(f"{name}: line {n}: {line!r}: {e.reason}"
                                + (f" [{e.rule}]" if e.rule else ""))
            break
    return out
