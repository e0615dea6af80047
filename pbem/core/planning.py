"""Planning a whole stretch of play for a bot, as an email player writes it: one file of orders.

A game's bot answers one decision at a time and stops at the first order that rolls dice.
An email player instead writes every order of the stretch in which the opponent has nothing
to decide (all moves, all attacks, then the end of the phase), and orders after a reaction of
the opponent (they wait for its answer, then resume). The planner does the same for any
game: it plays the bot forward on a copy of the state with dice it imagines (never the real
ones: those do not exist yet), and imagines the opponent's answer to a reaction with the
opponent's bot. The real resolution then skips what the real dice or answer made illegal.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec

from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.game import Context, Game
from pbem.core.sealed import hidden_legality
from pbem.core.standing import StandingOrder, apply_order, parse_line


class ImaginedDice:
    """Dice a bot imagines while planning: uniform from its own generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.count = 0

    def roll(self, action: int, index: int, sides: int, cls: str = "all") -> int:
        """One imagined die."""
        self.count += 1
        return self.rng.randint(1, sides)


def _copy(game: Game, state: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(state), type=game.state_type)


def _pending(game: Game, state: Any) -> set[str]:
    return {d.side for d in game.pending(state)}


def plan_stretch(game: Game, state: Any, side: str, rng: random.Random, style: str = "random",
                 *, max_orders: int = 120, reactions: bool = True,
                 held: list[tuple[str, str]] | None = None, sealed: bool = False) -> list[str]:
    """Order lines for side's whole stretch: every decision it makes until the game waits for
    the other side for more than one answer (or the game ends).

    held: the other side's orders already written and waiting for an answer of side, as
    (side, line) in order (peer mode: they are in the file side received); the planner plays
    them where the game comes back to that side, as the real resolution will.

    sealed: the stretch ends before an order only its writer can check once dice have been
    imagined before it (it would go back to the writer, docs/sealed.md 5g).
    """
    sim = _copy(game, state)
    imagined = ImaginedDice(random.Random(rng.random()))
    waiting = [(s, line) for s, line in (held or []) if s != side]
    lines: list[str] = []
    action = 0
    for _ in range(max_orders):
        pend = _pending(game, sim)
        if not pend or len(lines) >= max_orders:
            break
        if side not in pend and waiting and waiting[0][0] in pend:
            if not _play_held(game, sim, waiting, imagined):
                break
            continue
        if side not in pend:
            others = game.pending(sim)
            if (not reactions or not lines or not all(d.reaction for d in others)
                    or not _imagine_answer(game, sim, side, pend, rng, style, imagined)):
                break
            continue
        progressed = False
        stop = False
        for text in game.bot(sim, side, rng, style):
            try:
                order = parse_line(game, text)
                if sealed and imagined.count and hidden_legality(game, order):
                    stop = True
                    break
                apply_order(game, sim, side, order, Context(imagined, action=action))
            except (IllegalOrder, OrderSyntaxError):
                continue
            action += 1
            lines.append(text)
            progressed = True
            if side not in _pending(game, sim):
                break
        if stop or not progressed:
            break
    return lines


def _play_held(game: Game, sim: Any, waiting: list[tuple[str, str]],
               imagined: ImaginedDice) -> bool:
    """Apply the other side's held orders in place while that side decides (they are removed
    from waiting as they are played); False if the first one cannot be played here."""
    other = waiting[0][0]
    played = False
    while waiting and waiting[0][0] == other and other in _pending(game, sim):
        _, text = waiting.pop(0)
        try:
            apply_order(game, sim, other, parse_line(game, text), Context(imagined, action=0))
        except (IllegalOrder, OrderSyntaxError):
            continue  # the real resolution skips it too
        played = True
    return played


def _imagine_answer(game: Game, sim: Any, side: str, pend: set[str], rng: random.Random,
                    style: str, imagined: ImaginedDice) -> bool:
    """Apply the other side's imagined answers in place while it has reactions to make, until
    side decides again; False (sim unchanged) if side does not decide again that way."""
    trial = _copy(game, sim)
    for _ in range(20):
        others = [d for d in game.pending(trial) if d.side != side]
        if side in _pending(game, trial) or not others:
            break
        if not all(d.reaction for d in others):
            return False
        other = others[0].side
        applied = False
        for text in game.bot(trial, other, random.Random(rng.random()), style):
            try:
                order = parse_line(game, text)
                apply_order(game, trial, other, order, Context(imagined, action=0))
                if isinstance(order, StandingOrder):
                    continue
            except (IllegalOrder, OrderSyntaxError):
                return False
            applied = True
            if other not in _pending(game, trial):
                break
        if not applied:
            return False
    if side not in _pending(game, trial):
        return False
    for f in msgspec.structs.fields(trial):
        setattr(sim, f.name, getattr(trial, f.name))
    return True
