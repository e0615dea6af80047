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

A game may add `required_facts(state, side) -> set[str]`: the names of side's facts that any
state (a knowledge state too) knows exist, such as the unit of each block slot on the map;
before a file is resolved, each of its sender's must be committed (`Session._check_committed`),
so that no value can be chosen when the rules first open it.

A game with standing orders (`standing_topics`) may add `standing_answers(state, side,
decision) -> list[str] | None`: the order lines side's standing orders (its store in state)
give for a decision pending on it, None when they do not answer it. In a sealed game standing
orders are a hidden policy (facts `standing.TOPIC` of their owner): the stores stay empty in
every state both processors resolve, and the owner answers each such decision explicitly with
these lines (docs/sealed.md section 5c).

The invariant: play on the full state, and beside it on each side's knowledge state (own
orders as written, the other side's as projected, opened facts disclosed); with the same
dice, every public outcome is the same on all three, and no knowledge state ever holds a hidden
fact of the other side that was not opened. `check_play` runs that over bot games; a side
whose private draws the rules need opened (the game's optional `draws_due`) opens them before
its next decision, as its next file's 'draws reveal' would (pbem.core.privatedraw).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

import msgspec

from pbem.core.dice import KeyedDice
from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.game import Context, Game
from pbem.core.standing import GuardedOrder, StandingOrder, is_standing, parse_line

if TYPE_CHECKING:
    import random

SEALED_METHODS = ("facts", "conceal", "project", "reveals", "disclose", "public")
STANDING_FACT = "standing."


STANDING_UNSET = ""      # the value of a topic without a standing order


def standing_facts(policy: dict[str, str], topics: Any = ()) -> dict[str, str]:
    """A side's standing orders as hidden facts: {'standing.TOPIC': mode}, for every topic
    of the game (topics), one without a standing order as STANDING_UNSET. A side commits
    them all from its first file: the names of its commitments never say which topics it
    has standing orders for (session 30: a sealed Kasserine side's first commitment of
    `standing.retreat` told the other side that its retreats were the engine's)."""
    out = {f"{STANDING_FACT}{topic}": STANDING_UNSET for topic in topics}
    out.update({f"{STANDING_FACT}{topic}": mode for topic, mode in policy.items()})
    return dict(sorted(out.items()))


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
    game's `standing_answers` read on a copy whose store holds the policy; a game may answer
    some decisions with no policy, as BbF's opening of the Axis's objective); None if the game
    has no such hook, nothing is pending on side, or the policy does not answer it."""
    hook = getattr(game, "standing_answers", None)
    decisions = [d for d in game.pending(state) if d.side == side]
    if hook is None or not decisions:
        return None
    trial = with_policy(game, state, side, policy)
    for d in decisions:
        lines = hook(trial, side, d)
        if lines is not None:
            return list(lines)
    return None


def with_policy(game: Any, state: Any, side: str, policy: dict[str, str]) -> Any:
    """A copy of state whose side's standing store holds exactly the policy (a sealed game's
    stores stay empty; only its owner's processor knows the policy)."""
    trial = _copy(game, state)
    store = game.standing_store(trial, side)
    store.clear()
    store.update(policy)
    return trial


def answering_policy(game: Any, state: Any, side: str, policy: dict[str, str],
                     answer: list[str]) -> dict[str, str]:
    """The standing orders of policy that give this answer on their own (the ones a message
    should name); the whole policy if none does alone."""
    alone = {k: v for k, v in policy.items()
             if standing_answers(game, state, side, {k: v}) == answer}
    return alone or dict(policy)


def policy_text(policy: dict[str, str]) -> str:
    """A policy as the standing orders that set it, for messages."""
    return ", ".join(f"standing {k} {v}" for k, v in sorted(policy.items()))


def can_seal(game: Any) -> bool:
    """True if the game implements the sealed interface and offers it (a game whose port is
    under way sets ``sealed_ready = False``: its sealed functions are tested, but players
    cannot propose a sealed game yet)."""
    return (all(callable(getattr(game, m, None)) for m in SEALED_METHODS)
            and getattr(game, "sealed_ready", True))


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
        self.drawn: set[str] = set()      # the owners that opened their private draws

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
        opens = order_reveals(g, mine, side, order)
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
        return problems + self.compare(f"{side}'s {line!r}")

    def compare(self, what: str) -> list[str]:
        """The problems after `what`: a knowledge state whose public state, or whose private
        draws due, differ from the full state's, or that holds an unopened fact of the other
        side."""
        g, problems = self.game, []
        want, due = _encode(g.public(self.full)), draws_due(g, self.full)
        for s in g.sides:
            if _encode(g.public(self.know[s])) != want:
                problems.append(f"after {what}: {s}'s public state differs from the full state's")
            if draws_due(g, self.know[s]) != due:
                problems.append(f"after {what}: {s}'s knowledge state has other private draws "
                                "due than the full state")
            o = self.other(s)
            for fact in g.facts(self.know[s], o):
                if fact not in self.opened[o]:
                    problems.append(f"after {what}: {s}'s knowledge state holds {o}'s unopened "
                                    f"fact {fact}")
        return problems

    def open_draws(self, owner: str) -> list[str]:
        """owner opens its private draws, as its next file's 'draws reveal' line does
        (pbem.core.privatedraw): every processor computes their values from the dice and
        writes them in, here into the full state and both knowledge states; the problems."""
        g = self.game
        values = {d.name: self.dice.roll(d.action, d.index, d.sides, d.owner)
                  for d in g.private_draws(self.full) if d.owner == owner}
        for state in (self.full, *self.know.values()):
            g.disclose_draws(state, owner, values, True)
        problems = self.compare(f"{owner}'s opening of its private draws")
        if owner in self.drawn or owner in draws_due(g, self.full):
            problems.append(f"{owner}'s private draws are due again after its opening")
        self.drawn.add(owner)
        return problems

    def resync(self) -> None:
        """After a problem: each knowledge state concealed again from the full state, with the
        facts opened so far written in (so that a later problem is not one caused by this)."""
        g = self.game
        for s in g.sides:
            know = g.conceal(_copy(g, self.full), s)
            o = self.other(s)
            real = g.facts(self.full, o)
            opened = {f: real[f] for f in sorted(self.opened[o]) if f in real}
            if opened:
                g.disclose(know, o, opened)
            self.know[s] = know


def draws_due(game: Any, state: Any) -> set[str]:
    """The owners whose private draws the rules need opened now (the game's optional
    `draws_due`; none without it)."""
    f = getattr(game, "draws_due", None)
    return set(f(state)) if f is not None else set()


class _Standins:
    """Dice as one side's processor has them: the other side's private rolls are stand-in 1s."""

    def __init__(self, dice: Any, hidden: set[str]) -> None:
        self.dice, self.hidden = dice, hidden

    def roll(self, action: int, index: int, sides: int, cls: str = "all") -> int:
        """The real die, or 1 for a class this side cannot compute."""
        return 1 if cls in self.hidden else self.dice.roll(action, index, sides, cls)

    def stands_in(self, cls: str) -> bool:
        """True for a class this side cannot compute (a private draw then reads "not known",
        as on a real sealed processor: pbem.protocol.resolve.LazyDice)."""
        return cls in self.hidden


#: How bot_play names an owner's opening of its private draws in what it yields.
DRAWS_REVEAL = "draws reveal"


def bot_play(sp: SealedPlay, rng: random.Random, *, max_orders: int = 400,
             style: str = "random", first: Callable[[str], str | None] | None = None
             ) -> Iterator[tuple[str, str, list[str]]]:
    """Play bot orders three ways on sp; yield (side, line, problems) after each order played
    (the caller may resync sp in between). A side whose private draws are due opens them
    before its next decision (line DRAWS_REVEAL), as its next file would. Ends when nothing is
    pending, after max_orders decisions, or after yielding a side that has a decision and no
    legal order (line "") or a refused standing answer. first(side), when given, may offer a
    line to try before the bot's own at each decision (refused: the bot plays instead)."""
    game = sp.game
    for _ in range(max_orders):
        pend = game.pending(sp.full)
        if not pend:
            return
        side = pend[0].side
        if side in draws_due(game, sp.full) and side not in sp.drawn:
            yield side, DRAWS_REVEAL, sp.open_draws(side)
            continue
        answer = standing_answers(game, sp.full, side, sp.policy[side])
        if answer is not None:      # the owner's automatic answer from its standing orders
            for line in answer:
                try:
                    problems = sp.play(side, line)
                except (IllegalOrder, OrderSyntaxError) as e:
                    yield side, line, [f"{side}'s standing answer {answer!r} is refused: {e}"]
                    return
                yield side, line, problems
            continue
        line = first(side) if first is not None else None
        if line:
            try:
                problems = sp.play(side, line)
            except (IllegalOrder, OrderSyntaxError):
                pass                # the bot's own orders instead
            else:
                yield side, line, problems
                continue
        if not (yield from _bot_decision(sp, side, rng, style)):
            yield side, "", [f"{side} has a decision and no bot order is legal"]
            return


def _bot_decision(sp: SealedPlay, side: str, rng: random.Random,
                  style: str) -> Iterator[tuple[str, str, list[str]]]:
    """The bot's lines for side's decision, played until one is legal and the decision is made;
    returns whether any was legal."""
    played = False
    for line in sp.game.bot(sp.full, side, rng, style):
        try:
            problems = sp.play(side, line)
        except (IllegalOrder, OrderSyntaxError):
            continue
        played = True
        yield side, line, problems
        if not any(d.side == side for d in sp.game.pending(sp.full)):
            break
    return played


def check_play(game: Any, state: Any, rng: random.Random, *, max_orders: int = 400,
               style: str = "random", keep_going: bool = False) -> list[str]:
    """Play bot orders on the full state and on both knowledge states; the disagreements and
    leaks found (empty: the game keeps the sealed invariant on this game): the first order's
    problems, or with keep_going every order's, the knowledge states concealed again after each
    (SealedPlay.resync)."""
    sp = SealedPlay(game, state, rng.randbytes(32))
    problems: list[str] = []
    for _side, _line, found in bot_play(sp, rng, max_orders=max_orders, style=style):
        problems += found
        if found and not keep_going:
            break
        if found:
            sp.resync()
    return problems


def returns_when_held(game: Game, order: Any) -> bool:
    """Sealed mode: True if the order, held behind the other side's answer, goes back to its
    writer when it would resume (the game's optional hook: a Holdfast attack, which would
    open the other side's blocks inside a file that cannot carry their opening)."""
    hook = getattr(game, "returns_when_held", None)
    return hook is not None and order is not None and bool(hook(order))


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


def order_reveals(game: Game, state: Any, side: str, order: Any) -> list[tuple[str, str]]:
    """The facts an order opens before it runs (game.reveals): none for a standing order; for
    a guarded order, those of either branch (a sealed game sends a guarded order only if no
    branch opens any: pbem.protocol.sealing.project_guarded, so a file whose branch would is
    refused for not opening it)."""
    if isinstance(order, StandingOrder):
        return []
    if isinstance(order, GuardedOrder):
        return [x for b in (order.then, order.otherwise) if b
                for x in game.reveals(state, side, game.parse_order(b))]  # type: ignore[attr-defined]
    return game.reveals(state, side, order)  # type: ignore[attr-defined]
