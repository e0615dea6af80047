"""Standing orders: a side's answers, given in advance, to the reactions a game asks of it.

A game declares its reaction *topics* and the *modes* each accepts (`Game.standing_topics()`);
the core owns the notation, the parsing and the store. Notation (one line, any file, also one
sent when the side has no decision to make, never held):

    standing TOPIC MODE        set the answer for TOPIC (MODE one of the topic's modes)
    standing TOPIC ask         clear it: the game asks again when the reaction comes up

The store is part of the side's private state (the game keeps it in its per-side hidden state,
so views, reports and summaries mask it like any other hidden value). When a reaction comes
up, the game asks `answer(store, topic)`: a mode means "answer with it now, without waiting".
"""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.core.errors import IllegalOrder, OrderSyntaxError

ASK = "ask"
RULE = "PBEM-STANDING"


class StandingOrder(msgspec.Struct, frozen=True, tag="standing"):
    """One standing order line."""

    topic: str
    mode: str


def is_standing(text: str) -> bool:
    """True if an order line is a standing order (its first word is 'standing')."""
    return text.split(maxsplit=1)[:1] == ["standing"]


def parse_standing(text: str, topics: dict[str, tuple[str, ...]]) -> StandingOrder:
    """Parse 'standing TOPIC MODE' against the game's topics; OrderSyntaxError naming them."""
    words = text.split()
    if len(words) != 3 or words[0] != "standing":
        raise OrderSyntaxError("expected 'standing TOPIC MODE'", rule=RULE)
    topic, mode = words[1], words[2]
    if topic not in topics:
        known = ", ".join(sorted(topics)) or "none"
        raise OrderSyntaxError(f"unknown standing topic {topic!r} (topics: {known})", rule=RULE)
    if mode != ASK and mode not in topics[topic]:
        raise OrderSyntaxError(f"standing {topic}: unknown mode {mode!r} (modes: "
                               f"{', '.join((*topics[topic], ASK))})", rule=RULE)
    return StandingOrder(topic=topic, mode=mode)


def format_standing(order: StandingOrder) -> str:
    """The canonical text of a standing order."""
    return f"standing {order.topic} {order.mode}"


def set_standing(store: dict[str, str], order: StandingOrder) -> None:
    """Record (or clear, with 'ask') one standing order in a side's store."""
    if order.mode == ASK:
        store.pop(order.topic, None)
    else:
        store[order.topic] = order.mode


def answer(store: dict[str, str], topic: str) -> str | None:
    """The standing mode for a topic, or None if the side must be asked."""
    return store.get(topic)


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
    topics = topics_of(game)
    if topics is not None and is_standing(text):
        return parse_standing(text, topics)
    return game.parse_order(text)


def format_line(game: Any, order: Any) -> str:
    """The canonical text of an order parsed by parse_line."""
    if isinstance(order, StandingOrder):
        return format_standing(order)
    return game.format_order(order)


def apply_order(game: Any, state: Any, side: str, order: Any, ctx: Any) -> None:
    """Apply one parsed order: a standing order to side's store, any other through the game."""
    if isinstance(order, StandingOrder):
        apply_standing(game, state, side, order)
    else:
        game.apply(state, side, order, ctx)
