"""Standing orders: a side's answers, given in advance, to the reactions a game asks of it.

A game declares its reaction *topics* and the *modes* each accepts (`Game.standing_topics()`);
the core owns the notation, the parsing and the store. Notation (one line, any file, also one
sent when the side has no decision to make, never held):

    standing TOPIC MODE        set the answer for TOPIC (MODE one of the topic's modes)
    standing TOPIC ask         the game asks again when the reaction comes up

The store is part of the side's private state (the game keeps it in its per-side hidden state,
so views, reports and summaries mask it like any other hidden value). When a reaction comes
up, the game asks `answer(store, topic)`: a mode means "answer with it now, without waiting".
"""

from __future__ import annotations

import re
from typing import Any, Callable

import msgspec

from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.privatedraw import (RULE as DRAW_RULE, DrawLine, format_draw_line, is_draw_line,
                                   parse_draw_line)

ASK = "ask"
RULE = "PBEM-STANDING"
#: Why a 'draws' line is never a player's order (pbem.protocol.checking refuses it anywhere)
DRAW_BY_PLAYER = ("a 'draws' line is written by the owner's processor when it signs, never by "
                  "a player")


class StandingOrder(msgspec.Struct, frozen=True, tag="standing"):
    """One standing order line."""

    topic: str
    mode: str


def is_standing(text: str) -> bool:
    """True if an order line is a standing order (its first word is 'standing')."""
    return text.split(maxsplit=1)[:1] == ["standing"]


def parse_standing(text: str, topics: dict[str, tuple[str, ...]],
                   game: Any = None) -> StandingOrder:
    """Parse 'standing TOPIC MODE [WORDS]' against the game's topics; OrderSyntaxError naming
    them. A mode is one word of the topic's modes; a game may let a mode take more words (a
    threshold, say) with `standing_mode(topic, words) -> canonical mode text`."""
    words = text.split()
    if len(words) < 3 or words[0] != "standing":
        raise OrderSyntaxError("expected 'standing TOPIC MODE'", rule=RULE)
    topic, mode = words[1], words[2]
    if topic not in topics:
        known = ", ".join(sorted(topics)) or "none"
        raise OrderSyntaxError(f"unknown standing topic {topic!r} (topics: {known})", rule=RULE)
    if mode != ASK and mode not in topics[topic]:
        raise OrderSyntaxError(f"standing {topic}: unknown mode {mode!r} (modes: "
                               f"{', '.join((*topics[topic], ASK))})", rule=RULE)
    hook = getattr(game, "standing_mode", None)
    if len(words) > 3 or hook is not None:
        if hook is None:
            raise OrderSyntaxError("expected 'standing TOPIC MODE'", rule=RULE)
        mode = hook(topic, words[2:])
    return StandingOrder(topic=topic, mode=mode)


def format_standing(order: StandingOrder) -> str:
    """The canonical text of a standing order."""
    return f"standing {order.topic} {order.mode}"


def set_standing(store: dict[str, str], order: StandingOrder) -> None:
    """Record one standing order in a side's store ('ask' is kept: the side wants to be asked,
    which for a topic the game answers by itself when nothing is set is not the same)."""
    store[order.topic] = order.mode


def answer(store: dict[str, str], topic: str) -> str | None:
    """The standing mode for a topic, or None if the side must be asked."""
    mode = store.get(topic)
    return None if mode in (None, ASK) else mode


def apply_standing(game: Any, state: Any, side: str, order: StandingOrder) -> None:
    """Set a standing order in side's store of a game that declares standing topics."""
    store = game.standing_store(state, side)
    if store is None:
        raise IllegalOrder(f"{side} keeps no standing orders", rule=RULE)
    set_standing(store, order)


def topics_of(game: Any) -> dict[str, tuple[str, ...]] | None:
    """The game's standing topics, or None if the core does not keep its standing orders."""
    f = getattr(game, "standing_topics", None)
    return f() if f is not None else None


def parse_line(game: Any, text: str) -> Any:
    """Parse one order line: a core standing order for a game that declares topics, else the
    game's own notation."""
    return line_parser(game)(text)


def line_parser(game: Any) -> Callable[[str], Any]:
    """parse_line for the lines of one game, the game's hooks and topics looked up once (a
    file's orders are parsed line by line)."""
    draws = bool(getattr(game, "private_draw_owners", ()))
    topics = topics_of(game)
    guards = hasattr(game, "condition")

    def parse(text: str) -> Any:
        if draws and is_draw_line(text):
            return parse_draw_line(text)
        if topics is not None and is_standing(text):
            return parse_standing(text, topics, game)
        if guards and is_guarded(text):
            return parse_guarded(game, text)
        return game.parse_order(text)

    return parse


def format_line(game: Any, order: Any) -> str:
    """The canonical text of an order parsed by parse_line."""
    if isinstance(order, StandingOrder):
        return format_standing(order)
    if isinstance(order, DrawLine):
        return format_draw_line(order)
    if isinstance(order, GuardedOrder):
        return format_guarded(order)
    return game.format_order(order)


def apply_order(game: Any, state: Any, side: str, order: Any, ctx: Any) -> None:
    """Apply one parsed order: a standing order to side's store, any other through the game."""
    if isinstance(order, StandingOrder):
        apply_standing(game, state, side, order)
    elif isinstance(order, DrawLine):
        raise IllegalOrder(DRAW_BY_PLAYER, rule=DRAW_RULE)
    elif isinstance(order, GuardedOrder):
        apply_guarded(game, state, side, order, ctx)
    else:
        game.apply(state, side, order, ctx)


def check_held(game: Any, state: Any, side: str, order: Any) -> None:
    """Raise IllegalOrder for an order side's file would hold at this point (the game waits for
    another side) that nothing but side's own later orders can make answerable: the game's
    optional `check_held(state, side, order)` hook (Baptism By Fire: 'done' after an 'end' that
    opened no Second Activation); plain orders only."""
    hook = getattr(game, "check_held", None)
    if hook is not None and order is not None and not isinstance(
            order, (StandingOrder, DrawLine, GuardedOrder)):
        hook(state, side, order)


# -- guarded orders ------------------------------------------------------------------------------
# `if CONDITION then ORDER [else ORDER]`: an order that depends on a result the player cannot
# know when writing. The condition is in the game's own words (`Game.parse_condition`), and is
# evaluated by the resolver on the writer's own view of the position at that point
# (`Game.condition(view, side, text)`), so it can never read a hidden fact of the other side.
# The branch taken is logged for the writer with the result.

class GuardedOrder(msgspec.Struct, frozen=True, tag="if"):
    """An order with a condition and an optional alternative."""

    condition: str
    then: str
    otherwise: str = ""


def is_guarded(text: str) -> bool:
    """True if an order line is a guarded order (its first word is 'if')."""
    return text.split(maxsplit=1)[:1] == ["if"]


def parse_guarded(game: Any, text: str) -> GuardedOrder:
    """Parse 'if CONDITION then ORDER [else ORDER]'; each part is checked in the game's notation."""
    body = text.strip()[2:].strip()
    cond, sep, rest = body.partition(" then ")
    if not sep or not cond.strip() or not rest.strip():
        raise OrderSyntaxError("expected 'if CONDITION then ORDER [else ORDER]'", rule="PBEM-GUARD")
    then, sep2, otherwise = rest.partition(" else ")
    check = getattr(game, "parse_condition", None)
    if check is None:
        raise OrderSyntaxError(f"{game.id} has no conditions for guarded orders",
                               rule="PBEM-GUARD")
    cond = check(cond.strip())
    parts = [then.strip()] + ([otherwise.strip()] if sep2 else [])
    canon = []
    for p in parts:
        if is_guarded(p) or is_standing(p):
            raise OrderSyntaxError("a guarded order's branches are plain orders",
                                   rule="PBEM-GUARD")
        canon.append(game.format_order(game.parse_order(p)))
    return GuardedOrder(condition=cond, then=canon[0], otherwise=canon[1] if sep2 else "")


def format_guarded(order: GuardedOrder) -> str:
    """The canonical text of a guarded order."""
    out = f"if {order.condition} then {order.then}"
    return out + (f" else {order.otherwise}" if order.otherwise else "")


def apply_guarded(game: Any, state: Any, side: str, order: GuardedOrder, ctx: Any) -> None:
    """Evaluate the condition on side's own view, log the branch for side, apply it (if any)."""
    truth = bool(game.condition(game.view(state, side), side, order.condition))
    chosen = order.then if truth else order.otherwise
    if ctx is not None:
        ctx.log(f"if {order.condition}: {'yes' if truth else 'no'} -> "
                + (f"'{chosen}'" if chosen else "nothing to do"), visible_to=side, kind="guard")
    if chosen:
        game.apply(state, side, game.parse_order(chosen), ctx)


PLACE_CONDITIONS = "HEX clear, HEX held, UNIT alive"


def parse_place_condition(text: str, hex_pattern: str = r"^\d{4}$") -> str:
    """The canonical text of one of the place conditions most hex games share: `HEX clear`
    (no enemy there), `HEX held` (one of yours there), `UNIT alive` (on the map); the game
    evaluates them on the writer's view. OrderSyntaxError naming the forms otherwise."""
    w = text.strip().lower().split()
    if len(w) == 2 and re.match(hex_pattern, w[0]) and w[1] in ("clear", "held"):
        return f"{w[0]} {w[1]}"
    if len(w) == 2 and w[1] == "alive" and re.match(r"^[a-z0-9][a-z0-9-]*$", w[0]):
        return f"{w[0]} alive"
    raise OrderSyntaxError(f"unknown condition {text.strip()!r} ({PLACE_CONDITIONS})",
                           rule="PBEM-GUARD")
