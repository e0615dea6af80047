"""Resolving one turn file: apply its orders in order with the file's dice, record everything."""

from __future__ import annotations

from typing import Any, Callable

import msgspec

from pbem.core.dice import derive_roll
from pbem.core.encoding import sha256_hex
from pbem.core.errors import FileRejected, IllegalFile, IllegalOrder, OrderSyntaxError
from pbem.core.game import Context, Event, Game, NeedsDice
from pbem.core.records import Results, RollRecord, Turn


class LazyDice:
    """Keyed dice whose keys (one per visibility class) are computed on the first roll of each
    class (a file without rolls needs no key)."""

    def __init__(self, make_key: Callable[[str], bytes | None], why: str) -> None:
        self._make_key = make_key
        self._keys: dict[str, bytes] = {}
        self._why = why

    def roll(self, action: int, index: int, sides: int, cls: str = "all") -> int:
        """The derived die; NeedsDice if a share is still secret."""
        key = self._keys.get(cls)
        if key is None:
            key = self._make_key(cls)
            if key is None:
                raise NeedsDice(self._why)
            self._keys[cls] = key
        return derive_roll(key, action, index, sides)


def copy_state(game: Game, state: Any) -> Any:
    """A deep copy of a game state (through its canonical encoding)."""
    return msgspec.json.decode(msgspec.json.encode(state), type=game.state_type)


def state_hash(state: Any) -> str:
    """SHA-256 hex of the sorted-key JSON encoding of a state.

    The profile (no floats, safe integers, ASCII keys) is not re-checked here on every file:
    the conformance suite checks every state of every game against it.
    """
    return sha256_hex(_SORTED.encode(state))


_SORTED = msgspec.json.Encoder(order="sorted")


def parse_orders(game: Game, lines: list[str], *, name: str, canonical_only: bool) -> list[Any]:
    """Parse order lines; with canonical_only, each line must already be in canonical form."""
    out = []
    for i, line in enumerate(lines):
        try:
            order = game.parse_order(line)
        except OrderSyntaxError as e:
            raise IllegalFile(f"{name}: order {i + 1} {line!r}: {e.reason}", order=i + 1,
                              reason=e.reason, rule=e.rule) from None
        if canonical_only and game.format_order(order) != line:
            why = f"not in canonical notation ({game.format_order(order)!r})"
            raise IllegalFile(f"{name}: order {i + 1} {line!r} is {why}", order=i + 1,
                              reason=why)
        out.append(order)
    return out


class Resolution(msgspec.Struct, kw_only=True):
    """What resolving one file produced."""

    state: Any
    results: Results
    events: list[Event]


def resolve(game: Game, state: Any, turn: Turn, *, dice: Any, name: str) -> Resolution:
    """Apply a file's orders to a copy of state; FileRejected if an order before any die is illegal.

    An order that has become illegal after an earlier roll in the same file is skipped and the
    skip is logged for the sender (the sender could not know the dice when writing the file).
    """
    state = copy_state(game, state)
    orders = parse_orders(game, turn.orders, name=name, canonical_only=True)
    rolls: list[RollRecord] = []
    events: list[Event] = []
    skipped: list[int] = []
    rolled = False
    for i, (line, order) in enumerate(zip(turn.orders, orders)):
        ctx = Context(dice, action=i)
        try:
            if turn.sender not in {d.side for d in game.pending(state)}:
                raise IllegalOrder(f"{turn.sender} has no decision to make now", rule="PBEM-TURN")
            game.apply(state, turn.sender, order, ctx)
        except IllegalOrder as e:
            if not rolled:
                raise IllegalFile(f"{name}: illegal order {i + 1} {line!r}: {e.reason}"
                                  + (f" [{e.rule}]" if e.rule else ""), order=i + 1,
                                  reason=e.reason, rule=e.rule) from None
            skipped.append(i)
            events.append(Event(text=f"Order {i + 1} '{line}' was not carried out after the "
                                f"dice: {e.reason}" + (f" [{e.rule}]" if e.rule else ""),
                                visible_to=turn.sender, kind="skipped"))
            continue
        rolls.extend(RollRecord(action=r.action, index=r.index, sides=r.sides, value=r.value,
                                purpose=r.purpose, visible_to=r.visible_to) for r in ctx.rolls)
        events.extend(ctx.events)
        rolled = rolled or bool(ctx.rolls)
    results = Results(seq=turn.seq, rolls=rolls, skipped=skipped, state_hash=state_hash(state))
    return Resolution(state=state, results=results, events=events)


def compare_results(claimed: Results, actual: Results, *, name: str) -> None:
    """FileRejected naming the first difference between claimed and replayed results."""
    if claimed.seq != actual.seq:
        raise FileRejected(f"{name}: results are for file {claimed.seq}, expected {actual.seq}")
    for c, a in zip(claimed.rolls, actual.rolls):
        if c != a:
            raise FileRejected(f"{name}: results disagree with the replay of file {actual.seq}: "
                               f"roll {a.action}.{a.index} ({a.purpose}) is {a.value}, "
                               f"claimed {c.value}")
    if len(claimed.rolls) != len(actual.rolls):
        raise FileRejected(f"{name}: results of file {actual.seq} list {len(claimed.rolls)} "
                           f"rolls, the replay made {len(actual.rolls)}")
    if claimed.skipped != actual.skipped:
        raise FileRejected(f"{name}: results of file {actual.seq} disagree on skipped orders")
    if claimed.state_hash != actual.state_hash:
        raise FileRejected(f"{name}: results of file {actual.seq} claim a different state "
                           "(state hash differs from the replay)")
