"""Resolving one turn file: apply its orders in order with the file's dice, record everything."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, NamedTuple

import msgspec

from pbem.core.dice import NoDice, derive_roll
from pbem.core.encoding import sha256_hex
from pbem.core.errors import FileRejected, IllegalFile, IllegalOrder, OrderSyntaxError
from pbem.core.game import Context, Event, Game, NeedsDice
from pbem.core.privatedraw import RULE as DRAW_RULE, DrawLine
from pbem.core.sealed import hidden_legality, returns_when_held
from pbem.core.standing import (StandingOrder, apply_order, apply_standing, check_held,
                                format_line, line_parser, parse_line, topics_of)
from pbem.core.records import Results, RollRecord, Turn


#: Sealed mode: what the other side sees of a standing order (a hidden policy, docs/sealed.md
#: section 5c): one line, so that every later order keeps its dice address.
SEALED_STANDING = "standing sealed"

#: What a dice key maker returns for a class this processor may not compute (sealed mode:
#: the other side's private rolls): every die of that class is a stand-in 1.
STANDIN = b"stand-in"


class LazyDice:
    """Keyed dice whose keys (one per visibility class) are computed on the first roll of each
    class (a file without rolls needs no key)."""

    def __init__(self, make_key: Callable[[str], bytes | None], why: str) -> None:
        self._make_key = make_key
        self._keys: dict[str, bytes] = {}
        self._why = why

    def roll(self, action: int, index: int, sides: int, cls: str = "all") -> int:
        """The derived die; NeedsDice if a share is still secret; 1 for a stand-in class."""
        key = self._keys.get(cls)
        if key is None:
            key = self._make_key(cls)
            if key is None:
                raise NeedsDice(self._why)
            self._keys[cls] = key
        if key is STANDIN:
            return 1
        return derive_roll(key, action, index, sides)

    def stands_in(self, cls: str) -> bool:
        """True if this processor only stands in the rolls of class cls (a sealed game's other
        side's private dice); call after a roll of that class (its key is then known)."""
        return self._keys.get(cls) is STANDIN


def copy_state(game: Game, state: Any) -> Any:
    """A deep copy of a game state (through its canonical encoding)."""
    return _state_decoder(game.state_type).decode(_PLAIN.encode(state))


_PLAIN = msgspec.json.Encoder()


@lru_cache(maxsize=16)
def _state_decoder(state_type: Any) -> msgspec.json.Decoder:
    # one decoder per state type, as msgspec.json.decode(type=...) would make on every call
    return msgspec.json.Decoder(state_type)


def state_hash(state: Any) -> str:
    """SHA-256 hex of the sorted-key JSON encoding of a state.

    The profile (no floats, safe integers, ASCII keys) is not re-checked here on every file:
    the conformance suite checks every state of every game against it.
    """
    return sha256_hex(_SORTED.encode(state))


_SORTED = msgspec.json.Encoder(order="sorted")


def parse_orders(game: Game, lines: list[str], *, name: str, canonical_only: bool,
                 sealed: bool = False) -> list[Any]:
    """Parse order lines; with canonical_only, each line must already be in canonical form.
    Sealed: the projection of a standing order (SEALED_STANDING) parses to None."""
    out: list[Any] = []
    parse = line_parser(game)
    for i, line in enumerate(lines):
        if sealed and line == SEALED_STANDING:
            out.append(None)
            continue
        try:
            order = parse(line)
        except OrderSyntaxError as e:
            raise IllegalFile(f"{name}: order {i + 1} {line!r}: {e.reason}", order=i + 1,
                              reason=e.reason, rule=e.rule) from None
        if canonical_only and format_line(game, order) != line:
            why = f"not in canonical notation ({format_line(game, order)!r})"
            raise IllegalFile(f"{name}: order {i + 1} {line!r} is {why}", order=i + 1,
                              reason=why)
        out.append(order)
    return out


class HeldOrder(msgspec.Struct, frozen=True, kw_only=True):
    """An order written after a point where the game waited for another side: it resumes, in
    order, once that side's answer has been applied (continuation)."""

    seq: int          # the file that carried it
    index: int        # its place among that file's orders
    side: str
    line: str
    own: bool = False  # sealed: held behind the writer's own standing-answered decision


class Resolution(msgspec.Struct, kw_only=True):
    """What resolving one file produced: the state, results, events and the orders still held."""

    state: Any
    results: Results
    events: list[Event]
    held: list[HeldOrder] = []


def _waits_for(game: Game, state: Any) -> str:
    """Plain words for what the game waits for (used when orders are held)."""
    ds = game.pending(state)
    if not ds:
        return "the end of the game"
    return "; ".join(f"{d.side}: {d.prompt}" for d in ds)


SEALED_RETURN_RULE = "PBEM-SEALED-RETURN"


def _orders_of(first: int, last: int, seq: int) -> str:
    """'Order 9 of file 4 waits' or 'Orders 9-12 of file 4 wait' (held orders, in a log)."""
    if first == last:
        return f"Order {first} of file {seq} waits"
    return f"Orders {first}-{last} of file {seq} wait"


def standing_decision(game: Game, state: Any, side: str) -> bool:
    """Sealed mode: True if a decision pending on side is one a standing order could answer
    (the game's `standing_answers` gives lines for it with every topic set). Public: it reads
    no side's real standing orders, so both processors agree."""
    hook = getattr(game, "standing_answers", None)
    topics = topics_of(game)
    if hook is None or not topics:
        return False
    decisions = [d for d in game.pending(state) if d.side == side]
    if not decisions:
        return False
    probe = copy_state(game, state)
    store = game.standing_store(probe, side)
    for topic, modes in topics.items():
        try:
            store[topic] = parse_line(game, f"standing {topic} {modes[0]}").mode
        except (OrderSyntaxError, IllegalOrder, IndexError):
            continue
    return any(hook(probe, side, d) is not None for d in decisions)


#: Hosted mode: an own order the full state refuses for a fact its writer's view does not show
#: is not carried out (docs/protocol.md section 7, "A refused file"): the event names the rule.
HIDDEN_RULE = "PBEM-HIDDEN"


def known_refusal(game: Game, state: Any, side: str, orders: list[Any], texts: list[str], *,
                  name: str) -> IllegalFile | None:
    """Hosted mode: the refusal side's own view gives its file, or None.

    The orders run with the real rules on the game's stand-in of side's view of state (what
    `pbem check` and `submit` run for a hosted player), as the resolver applies them, up to the
    first die or the first point where the game waits for another side: what comes later
    depends on dice or on another side's answer, which the writer cannot know. The result is a
    function of that view alone, so a refusal built from it tells the writer nothing hidden.
    """
    return refusal_on(game, _standin(game, state, side), side, orders, texts, name=name)


def refusal_on(game: Game, sim: Any, side: str, orders: list[Any], texts: list[str], *,
               name: str) -> IllegalFile | None:
    """known_refusal judged on sim, a stand-in of side's view (a hosted player holds the view
    itself: pbem.protocol.rejection re-checks a referee's rejection with it). sim changes.

    Past the first die or wait, the file is still refused where resolve refuses it whatever the
    position: at its first 'draws' line (a hosted game keeps no private draws, NO_DRAWS)."""
    for i, (line, order) in enumerate(zip(texts, orders)):
        try:
            if not _apply_on_view(game, sim, side, order, i):
                return _no_draws(texts, orders, i, name)
        except NeedsDice:
            return _no_draws(texts, orders, i + 1, name)
        except (IllegalOrder, OrderSyntaxError) as e:
            return illegal_order(name, i, line, e)
    return None


def illegal_order(name: str, i: int, line: str, e: IllegalOrder | OrderSyntaxError
                  ) -> IllegalFile:
    """The refusal of file name at its order i (counted from 0), line, for e."""
    return IllegalFile(f"{name}: illegal order {i + 1} {line!r}: {e.reason}"
                       + (f" [{e.rule}]" if e.rule else ""), order=i + 1, reason=e.reason,
                       rule=e.rule)


#: Why resolve refuses a 'draws' line of a game without a DrawBook (hosted mode), wherever the
#: line stands in the file: after a die or a wait as well as before.
NO_DRAWS = "private draws are kept by the processors of a peer game only"


def _no_draws(texts: list[str], orders: list[Any], start: int, name: str) -> IllegalFile | None:
    """The refusal resolve gives the first 'draws' line from orders[start] on (draws=None),
    or None: what known_refusal still knows past the first die or wait."""
    for i in range(start, len(orders)):
        if isinstance(orders[i], DrawLine):
            return IllegalFile(f"{name}: order {i + 1} {texts[i]!r}: {NO_DRAWS} [{DRAW_RULE}]",
                               order=i + 1, reason=NO_DRAWS, rule=DRAW_RULE)
    return None


def known_reason(game: Game, state: Any, side: str, order: Any) -> IllegalOrder | None:
    """Hosted mode: why side's own view of state refuses order there (the rules on the
    game's stand-in of that view, as `known_refusal` judges a file), or None where that view
    allows it or cannot judge it (a die, another side's decision): then only a fact hidden
    from side refuses it, and side is told the rule alone (HIDDEN_RULE)."""
    try:
        _apply_on_view(game, _standin(game, state, side), side, order, 0)
    except NeedsDice:
        return None
    except (IllegalOrder, OrderSyntaxError) as k:
        return k
    return None


def _standin(game: Game, state: Any, side: str) -> Any:
    """The game's stand-in of side's view of state: all a hosted player's check knows."""
    return game.standin(msgspec.to_builtins(game.view(state, side)), side)


def _apply_on_view(game: Game, sim: Any, side: str, order: Any, action: int) -> bool:
    """Apply one order of side to a stand-in as the resolver would, without dice; False where
    the stand-in waits for another side (nothing more can be judged there)."""
    if isinstance(order, StandingOrder):
        apply_standing(game, sim, side, order)
        return True
    pending = {d.side for d in game.pending(sim)}
    if side not in pending and pending:
        check_held(game, sim, side, order)      # an order no later answer can make legal
        return False
    if side not in pending:
        raise IllegalOrder(f"{side} has no decision to make now", rule="PBEM-TURN")
    apply_order(game, sim, side, order, Context(NoDice(), action=action, seq=0))
    return True


def _hidden_part(game: Game, state: Any, side: str, order: Any,
                 context: Callable[[], Context]) -> tuple[Context, Any] | None:
    """Hosted mode: an own order only a hidden fact forbids is carried out as far as the full
    state allows, as at a table (the game's optional `hidden_parts(state, side, order)`: what
    is left of it, longest first; a move's path cut short). The first part the rules allow is
    applied to state: (its context, the part), or None if none is (the order is skipped). Each
    try gets a fresh context, so a refused one leaves no roll behind."""
    hook = getattr(game, "hidden_parts", None)
    if hook is None:
        return None
    for part in hook(state, side, order):
        ctx = context()
        try:
            apply_order(game, state, side, part, ctx)
        except IllegalOrder:
            continue
        return ctx, part
    return None


class Told(NamedTuple):
    """What the writer of an own order not carried out is told: the text, and whether it is
    the rule alone (a fact hidden from him forbids the order: HIDDEN_RULE)."""

    text: str
    hidden: bool


def _hidden_reason(e: IllegalOrder) -> Told:
    """The rule alone, for an order only a fact hidden from its writer forbids."""
    rule = f" [{e.rule}]" if e.rule else ""
    return Told(f"a fact your view does not show forbids it{rule} [{HIDDEN_RULE}]", True)


def _told(game: Game, state: Any, side: str, order: Any, e: Any, hosted: bool) -> Told:
    """The reason an own order not carried out is logged with for its writer: the full
    state's, or in hosted mode only what the writer's own view gives (never a hidden reason,
    which may name a hidden unit or the hex of a hidden ZOC)."""
    if not hosted or order is None or isinstance(e, OrderSyntaxError):
        return Told(f"{e.reason}" + (f" [{e.rule}]" if e.rule else ""), False)
    k = known_reason(game, state, side, order)
    if k is not None:
        return Told(f"{k.reason}" + (f" [{k.rule}]" if k.rule else ""), False)
    return _hidden_reason(e)


def resolve(game: Game, state: Any, turn: Turn, *, dice: Any, name: str,
            held: list[HeldOrder] | tuple[HeldOrder, ...] = (), lines: list[str] | None = None,
            hash_of: Callable[[Any], str] | None = None,
            before: Callable[[Any, int, Any], None] | None = None,
            sealed: bool = False,
            reveal: Callable[..., None] | None = None,
            unreveal: Callable[[], None] | None = None,
            draws: Any = None, hosted: bool = False) -> Resolution:
    """Apply a file's orders to a copy of state; FileRejected if an order before any die is illegal.

    The sender's orders are applied in order while the sender has a decision to make. When the
    game waits for another side instead, orders held from that side's earlier files resume
    first (continuation), each with the next action number of this file's dice; the sender's
    own orders that come after a point where the game waits for another side are held in turn.
    An order that has become illegal after an earlier roll (or, for a held order, after the
    answer it waited for) is skipped and the skip is logged for its writer.

    Sealed mode: lines are the orders to apply instead of the file's (its sender's real
    orders, which only the sender holds), hash_of hashes the public part of the state only,
    and before(state, index, order) runs before each of the file's own orders is applied
    (FileRejected there refuses the file).

    reveal(state, side, order[, held_from]) runs just before every order is applied, a held one
    included (held_from: the file it came in)
    (sealed mode: what the order reveals is checked and written into the state there). Before
    it, the game's optional `check_before_reveal(state, side, order)` refuses an order that is
    illegal whatever the facts it would reveal (so that no processor asks for them), and
    unreveal() runs when an order refused after its reveal is skipped: an order not carried
    out reveals nothing (sealed mode: the receiver owes no opening for it).

    sealed also means: standing orders change no state (the stores stay empty on both
    processors, docs/sealed.md section 5c), so a reaction a standing order would answer waits
    for its owner's explicit answer; the owner's own later orders that come after such a
    decision of its own (one arising from this file's dice) are held and resume once it is
    answered.

    draws (peer mode, pbem.protocol.draws.DrawBook): private draws are left to their owner's
    processor (Context.private), and the core lines 'draws commit|reveal' are checked and
    applied; a file of a side whose private draws the rules need opened must open them first.
    Without it a 'draws' line is refused.

    hosted (a player's file to a referee, docs/protocol.md section 7): the file is refused only
    for what its writer's own view refuses (`known_refusal`), never for a fact hidden from him;
    an own order the full state refuses there is carried out as far as the full state allows
    (`_hidden_part`) or skipped, and its writer told only the rule (HIDDEN_RULE), as a player
    at a table learns that a move he tried is stopped.
    """
    state = copy_state(game, state)
    texts = turn.orders if lines is None else lines
    orders = parse_orders(game, texts, name=name, canonical_only=True, sealed=sealed)
    hosted_mode = hosted
    hosted = hosted and turn.sender in game.sides
    if hosted:
        refusal = known_refusal(game, state, turn.sender, orders, texts, name=name)
        if refusal is not None:
            raise refusal
    queue = [h for h in held]
    rolls: list[RollRecord] = []
    events: list[Event] = []
    skipped: list[int] = []
    rolled = False
    next_action = len(orders)

    def record(ctx: Context) -> None:
        nonlocal rolled
        rolls.extend(RollRecord(action=r.action, index=r.index, sides=r.sides, value=r.value,
                                purpose=r.purpose, visible_to=r.visible_to) for r in ctx.rolls)
        events.extend(ctx.events)
        rolled = rolled or bool(ctx.rolls)

    def resume_held() -> None:
        nonlocal next_action
        while queue:
            pending = {d.side for d in game.pending(state)}
            h = queue[0]
            if h.own:      # sealed: behind its writer's own decision, until it is answered
                if h.side not in pending or standing_decision(game, state, h.side):
                    return
            elif h.side not in pending or turn.sender in pending:
                return
            queue.pop(0)
            try:
                order, refusal = parse_line(game, h.line), None
            except (IllegalOrder, OrderSyntaxError) as e:
                order, refusal = None, e
            if sealed and order is not None and _returned_held(h, order):
                continue
            ctx = context(next_action)
            next_action += 1
            revealed = False
            try:
                if refusal is not None:
                    raise refusal
                if reveal is not None:
                    precheck(state, h.side, order)
                    reveal(state, h.side, order, h.seq)
                    revealed = True
                apply_order(game, state, h.side, order, ctx)
            except (IllegalOrder, OrderSyntaxError) as e:
                if revealed and unreveal is not None:
                    unreveal()
                why = _told(game, state, h.side, order, e, hosted_mode).text
                events.append(Event(text=f"Order {h.index + 1} '{h.line}' of file {h.seq}, held "
                                    f"until now, was not carried out: {why}",
                                    visible_to=h.side, kind="skipped"))
                continue
            check_draws(ctx, f"held order {h.index + 1} of file {h.seq}")
            record(ctx)

    def precheck(st: Any, side: str, order: Any) -> None:
        hook = getattr(game, "check_before_reveal", None)
        if hook is not None and order is not None and not isinstance(order, StandingOrder):
            hook(st, side, order)

    def context(action: int) -> Context:
        return Context(dice, action=action, seq=turn.seq, private=draws is not None)

    def _returned_held(h: HeldOrder, order: Any) -> bool:
        # Sealed: a held order runs later than its writer's processor could check it; if only
        # that processor can check it, it and the writer's later held orders of its file go
        # back to the writer on both processors alike (docs/sealed.md 5g)
        # An order the game returns when held (a Holdfast attack) would open the other side's
        # facts inside a file that cannot carry their opening: it goes back the same way
        back = not h.own and returns_when_held(game, order)
        if not (back or hidden_legality(game, order)):
            return False
        rest = [x for x in queue if x.seq == h.seq and x.side == h.side]
        for x in rest:
            queue.remove(x)
        why = ("it waited for the other side's answer and is carried out only in a file of "
               "your own" if back else
               "only your own processor can check it now that the position changed")
        events.append(Event(text=f"Order {h.index + 1} '{h.line}' of file {h.seq}"
                            + (f" and the {len(rest)} after it" if rest else "")
                            + f", held until now, went back to you: {why}; send it again "
                            f"[{SEALED_RETURN_RULE}]", visible_to=h.side, kind="skipped"))
        return True

    def check_draws(ctx: Context, where: str) -> None:
        for d in ctx.draws:
            if not draws.committed(d.owner, turn.seq):
                raise IllegalFile(f"{name}: {where}: a private draw of {d.owner} ({d.purpose}) "
                                  f"comes before {d.owner}'s draw commitment [{DRAW_RULE}]",
                                  order=ctx.action + 1, reason="private draw before its commitment",
                                  rule=DRAW_RULE)

    if draws is not None and turn.sender in draws.due(state):
        lead = [o for o in orders if isinstance(o, DrawLine)]
        if not any(o.kind == "reveal" for o in lead) or not all(
                isinstance(o, DrawLine) for o in orders[:len(lead)]):
            raise IllegalFile(f"{name}: {turn.sender} does not open its private draws, which the "
                              f"rules need now ({_waits_for(game, state)}): its file must begin "
                              f"with its 'draws reveal' line [{DRAW_RULE}]",
                              order=1, reason="missing private-draw opening", rule=DRAW_RULE)
    own_held: list[HeldOrder] = []
    for i, (line, order) in enumerate(zip(texts, orders)):
        if isinstance(order, DrawLine):
            problem = (NO_DRAWS if draws is None else draws.take(state, turn, order, events))
            if problem:
                raise IllegalFile(f"{name}: order {i + 1} {line!r}: {problem} [{DRAW_RULE}]",
                                  order=i + 1, reason=problem, rule=DRAW_RULE)
            continue
        if sealed and (order is None or isinstance(order, StandingOrder)):
            continue    # a hidden policy: the stores stay empty (docs/sealed.md section 5c)
        if isinstance(order, StandingOrder):
            # Never held, allowed without a decision: it answers reactions from now on.
            try:
                apply_standing(game, state, turn.sender, order)
            except IllegalOrder as e:
                raise illegal_order(name, i, line, e) from None
            continue
        if own_held:
            own_held.append(HeldOrder(seq=turn.seq, index=i, side=turn.sender, line=line))
            continue
        resume_held()
        pending = {d.side for d in game.pending(state)}
        if (sealed and rolled and turn.sender in pending
                and standing_decision(game, state, turn.sender)):
            # dice rolled as the other side's held orders resumed (a combat they finished) put
            # a decision on the writer that it could not know when signing: its later orders
            # wait for its answer, as after dice of its own orders (below)
            rest = [j for j in range(i, len(orders))
                    if not (orders[j] is None or isinstance(orders[j], StandingOrder))]
            own_held = [HeldOrder(seq=turn.seq, index=j, side=turn.sender, line=texts[j],
                                  own=True) for j in rest]
            events.append(Event(text=f"{_orders_of(i + 1, len(orders), turn.seq)} for "
                                f"{turn.sender}'s answer: {_waits_for(game, state)}",
                                visible_to=turn.sender, kind="held"))
            break
        held_error = None
        if turn.sender not in pending and pending:
            try:
                check_held(game, state, turn.sender, order)
            except IllegalOrder as e:
                held_error = e            # refused below, as an illegal order is
            else:
                own_held = [HeldOrder(seq=turn.seq, index=i, side=turn.sender, line=line)]
                events.append(Event(text=f"{_orders_of(i + 1, len(orders), turn.seq)} for "
                                    f"{_waits_for(game, state)}", visible_to=turn.sender,
                                    kind="held"))
                continue
        if sealed and rolled and hidden_legality(game, order):
            # Sealed: after dice its writer could not see, an order only the writer's processor
            # can check goes back to it with every later order of the file (docs/sealed.md 5g)
            back = [j for j in range(i, len(orders))
                    if not (orders[j] is None or isinstance(orders[j], StandingOrder))]
            skipped.extend(back)
            events.append(Event(text=f"Orders {i + 1}-{len(orders)} of file {turn.seq} went back "
                                f"to you: written before the dice of this file, order {i + 1} "
                                f"'{line}' can be checked only by your own processor; send them "
                                f"again [{SEALED_RETURN_RULE}]",
                                visible_to=turn.sender, kind="skipped"))
            break
        ctx = context(i)
        revealed = False
        try:
            if held_error is not None:
                raise held_error
            if turn.sender not in pending:
                raise IllegalOrder(f"{turn.sender} has no decision to make now", rule="PBEM-TURN")
            if before is not None:
                before(state, i, order)
            if reveal is not None:
                precheck(state, turn.sender, order)
                reveal(state, turn.sender, order)
                revealed = True
            apply_order(game, state, turn.sender, order, ctx)
        except IllegalOrder as e:
            if revealed and unreveal is not None:
                unreveal()
            if not rolled and not hosted:
                raise illegal_order(name, i, line, e) from None
            # hosted, before any die: the writer's view allowed it (known_refusal), so a fact
            # hidden from him forbids it; neither the reason (which may name a hidden unit) nor
            # a refusal (a free probe, re-signed with other orders) goes back to him
            why, hidden = (_told(game, state, turn.sender, order, e, hosted) if rolled
                           else _hidden_reason(e))
            if hosted and hidden:
                part = _hidden_part(game, state, turn.sender, order, lambda: context(i))
                if part is not None:     # carried out as far as the hidden fact allows
                    order_ctx, done = part
                    check_draws(order_ctx, f"order {i + 1}")
                    record(order_ctx)
                    events.append(Event(text=f"Order {i + 1} '{line}' was stopped short: "
                                        f"{why}; carried out as '{game.format_order(done)}'",
                                        visible_to=turn.sender, kind="stopped"))
                    continue
            skipped.append(i)
            events.append(Event(text=f"Order {i + 1} '{line}' was not carried out"
                                + (" after the dice" if rolled else "") + f": {why}",
                                visible_to=turn.sender, kind="skipped"))
            continue
        check_draws(ctx, f"order {i + 1}")
        record(ctx)
        if (sealed and ctx.rolls and i + 1 < len(orders)
                and standing_decision(game, state, turn.sender)):
            rest = [j for j in range(i + 1, len(orders))
                    if not (orders[j] is None or isinstance(orders[j], StandingOrder))]
            own_held = [HeldOrder(seq=turn.seq, index=j, side=turn.sender, line=texts[j],
                                  own=True) for j in rest]
            if own_held:
                events.append(Event(text=f"{_orders_of(rest[0] + 1, len(orders), turn.seq)} "
                                    f"for {turn.sender}'s answer: {_waits_for(game, state)}",
                                    visible_to=turn.sender, kind="held"))
            break
    resume_held()
    results = Results(seq=turn.seq, rolls=rolls, skipped=skipped,
                      state_hash=(hash_of or state_hash)(state))
    return Resolution(state=state, results=results, events=events, held=queue + own_held)


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
