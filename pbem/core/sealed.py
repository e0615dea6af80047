"""Sealed mode, game side: the interface a game implements to play sealed, and the check that
it keeps the invariant sealed mode rests on (docs/sealed.md sections 3 and 4).

A sealed-capable game adds to the Game interface:

- `facts(state, side) -> dict[str, value]`: side's hidden facts as the state holds them (in a
  knowledge state of the other side, only those it knows: opened ones, never stand-ins);
- `conceal(state, side) -> state`: the knowledge state of side (the other side's hidden facts
  replaced by stand-ins);
- `project(state, side, order) -> str`: the order as the other side sees it, one line for
  every order (so dice addresses stay the same on both sides), in the game's notation;
- `reveals(state, side, order) -> list[(owner, fact)]`: the facts the order's resolution
  opens (read on the sender's knowledge state, before the order is applied);
- `disclose(state, owner, facts) -> None`: write opened facts of owner into a knowledge state;
- `public(state) -> value`: what both sides may know (hashed in the results of a sealed file).

A game with standing orders (`standing_topics`) may add `standing_answers(state, side,
decision) -> list[str] | None`: the order lines side's standing orders (its store in state)
give for a decision pending on it, None when they do not answer it. In a sealed game standing
orders are a hidden policy (facts `standing.TOPIC` of their owner): the stores stay empty in
every state both processors resolve, and the owner answers each such decision explicitly with
these lines (docs/sealed.md section 5c).

The invariant: play on the full state, and beside it on each side's knowledge state (own
orders as written, the other side's as projected, opened facts disclosed); with the same
dice, every public outcome is the same on all three, and no knowledge state ever holds a hidden
fact of the other side that was not opened. `check_play` runs that over bot games.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec

from pbem.core.dice import KeyedDice
from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.game import Context, Game
from pbem.core.standing import GuardedOrder, StandingOrder, is_standing, parse_line

SEALED_METHODS = ("facts", "conceal", "project", "reveals", "disclose", "public")
STANDING_FACT = "standing."


def standing_facts(policy: dict[str, str]) -> dict[str, str]:
    """A side's standing orders as hidden facts: {'standing.TOPIC': mode}."""
    return {f"{STANDING_FACT}{topic}": mode for topic, mode in sorted(policy.items())}


def set_policy(game: Any, policy: dict[str, str], line: str) -> bool:
    """If line is a standing order, record it in policy (True); a projection or any other
    order changes nothing (False)."""
    if not is_standing(line):
        return False
    try:
        order = parse_line(game, line)
    except OrderSyntaxError:
        return False
    if isinstance(order, StandingOrder):
        policy[order.topic] = order.mode
        return True
    return False


def standing_answers(game: Any, state: Any, side: str, policy: dict[str, str]) -> list[str] | None:
    """The lines side's standing policy gives for a decision pending on it in state (the
    game's `standing_answers` read on a copy whose store holds the policy); None if the game
    has no such hook, nothing is pending on side, or the policy does not answer it."""
    hook = getattr(game, "standing_answers", None)
    decisions = [d for d in game.pending(state) if d.side == side]
    if hook is None or not decisions or not policy:
        return None
    trial = _copy(game, state)
    store = game.standing_store(trial, side)
    store.clear()
    store.update(policy)
    for d in decisions:
        lines = hook(trial, side, d)
        if lines is not None:
            return list(lines)
    return None


def can_seal(game: Any) -> bool:
    """True if the game implements the sealed interface."""
    return all(callable(getattr(game, m, None)) for m in SEALED_METHODS)


def default_mode(game: Any, referee: bool = False) -> str:
    """The mode of a game when none is asked for: hosted with a referee; between two players
    alone, sealed for a game that can seal (nobody's processor holds the other's hidden
    facts), peer for the others."""
    if referee:
        return "hosted"
    return "sealed" if can_seal(game) else "peer"


def _copy(game: Any, state: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(state), type=game.state_type)


def _encode(value: Any) -> bytes:
    return msgspec.json.encode(value, order="sorted")


class SealedPlay:
    """One game followed three ways: the full state and each side's knowledge state."""

    def __init__(self, game: Any, state: Any, key: bytes) -> None:
        self.game, self.full = game, state
        self.know = {s: game.conceal(_copy(game, state), s) for s in game.sides}
        self.opened: dict[str, set[str]] = {s: set() for s in game.sides}
        self.dice = KeyedDice(key)
        # a knowledge state rolls the other side's private dice as stand-ins, as a processor does
        self.know_dice = {s: _Standins(self.dice, {o for o in game.sides if o != s})
                          for s in game.sides}
        self.action = 0
        self.policy: dict[str, dict[str, str]] = {s: {} for s in game.sides}

    def other(self, side: str) -> str:
        """The other side."""
        a, b = self.game.sides
        return b if side == a else a

    def play(self, side: str, line: str) -> list[str]:
        """Apply one order of side three ways; the problems found (empty when all agree).
        IllegalOrder or OrderSyntaxError propagate from the full state (the order is not
        played). A standing order only changes side's hidden policy (the stores stay empty,
        as in a sealed game)."""
        g, problems = self.game, []
        if set_policy(g, self.policy[side], line):
            return []
        order = g.parse_order(line)
        mine = self.know[side]
        opens = g.reveals(mine, side, order)
        projected = g.project(mine, side, order)
        # the full state first: an illegal order is refused there (the state unchanged) and
        # opens nothing, as the sender's processor refuses it before signing
        values = {(owner, fact): g.facts(self.full, owner).get(fact) for owner, fact in opens}
        g.apply(self.full, side, order, Context(self.dice, action=self.action))
        for (owner, fact), value in values.items():
            self.opened[owner].add(fact)
            for s in g.sides:
                if s != owner:
                    g.disclose(self.know[s], owner, {fact: value})
        for s, text in ((side, line), (self.other(side), projected)):
            try:
                g.apply(self.know[s], side, g.parse_order(text),
                        Context(self.know_dice[s], action=self.action))
            except (IllegalOrder, OrderSyntaxError) as e:
                problems.append(f"{side}'s {line!r}, applied as {text!r} on {s}'s knowledge "
                                f"state, is refused: {e}")
        self.action += 1
        want = _encode(g.public(self.full))
        for s in g.sides:
            if _encode(g.public(self.know[s])) != want:
                problems.append(f"after {side}'s {line!r}: {s}'s public state differs from the "
                                "full state's")
            o = self.other(s)
            for fact in g.facts(self.know[s], o):
                if fact not in self.opened[o]:
                    problems.append(f"after {side}'s {line!r}: {s}'s knowledge state holds "
                                    f"{o}'s unopened fact {fact}")
        return problems


class _Standins:
    """Dice as one side's processor has them: the other side's private rolls are stand-in 1s."""

    def __init__(self, dice: Any, hidden: set[str]) -> None:
        self.dice, self.hidden = dice, hidden

    def roll(self, action: int, index: int, sides: int, cls: str = "all") -> int:
        """The real die, or 1 for a class this side cannot compute."""
        return 1 if cls in self.hidden else self.dice.roll(action, index, sides, cls)


def check_play(game: Any, state: Any, rng: random.Random, *, max_orders: int = 400,
               style: str = "random") -> list[str]:
    """Play bot orders on the full state and on both knowledge states; every disagreement or
    leak found (empty: the game keeps the sealed invariant on this game)."""
    sp = SealedPlay(game, state, rng.randbytes(32))
    problems: list[str] = []
    for _ in range(max_orders):
        pend = game.pending(sp.full)
        if not pend:
            break
        side = pend[0].side
        answer = standing_answers(game, sp.full, side, sp.policy[side])
        if answer is not None:      # the owner's automatic answer from its standing orders
            try:
                for line in answer:
                    problems += sp.play(side, line)
            except (IllegalOrder, OrderSyntaxError) as e:
                problems.append(f"{side}'s standing answer {answer!r} is refused: {e}")
            if problems:
                break
            continue
        played = False
        for line in game.bot(sp.full, side, rng, style):
            try:
                problems += sp.play(side, line)
            except (IllegalOrder, OrderSyntaxError):
                continue
            played = True
            if problems or not any(d.side == side for d in game.pending(sp.full)):
                break
        if problems:
            break
        if not played:
            problems.append(f"{side} has a decision and no bot order is legal")
            break
    return problems


def hidden_legality(game: Game, order: Any) -> bool:
    """Sealed mode: True if only the order's writer can check its legality (it reads the
    writer's hidden facts: a Holdfast block's MP, say); the game's optional hook decides, a
    guarded order by its branches. Both processors read it alike: a real order and its
    projection answer the same."""
    hook = getattr(game, "hidden_legality", None)
    if hook is None or order is None or isinstance(order, StandingOrder):
        return False
    if isinstance(order, GuardedOrder):
        branches = [b for b in (order.then, order.otherwise) if b]
        try:
            return any(hidden_legality(game, parse_line(game, b)) for b in branches)
        except (OrderSyntaxError, IllegalOrder):
            return True
    return bool(hook(order))
