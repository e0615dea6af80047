"""Holdfast orders: typed structs (a tagged union) and the text notation, both ways.

Notation (tokens separated by spaces, case-insensitive, canonical form lower case):
  place UNIT HEX                           set-up or reinforcement/replacement placement
  buy UNIT N                               add N steps to a unit on the map
  rebuild UNIT                             buy back an eliminated unit (returns next turn, 1 SP)
  move UNIT HEX-HEX-... [strat] [leader]   move along a path (the start hex may be listed);
                                           the hexes may be separated by dashes or spaces
  move UNIT to HEX [strat] [leader]        destination only: pbem check/submit write the
                                           cheapest legal path in its place before signing
  attack HEX with UNIT... [support S...] [hits UNIT,UNIT...]
  allocate UNIT,UNIT...                    priority order for hits on the attacking units
  end                                      end the set-up or the player turn
HEX is a hex id (0812) or a place name with underscores for spaces (souk_ahras).
"""

from __future__ import annotations

import re
from typing import ClassVar

import msgspec

from pbem.core.errors import OrderSyntaxError
from pbem.core.game import UNEXPANDED_MOVE
from pbem.core.standing import StandingOrder, format_standing, is_standing, parse_standing



class Place(msgspec.Struct, tag="place", frozen=True, kw_only=True):
    """Place a set-up unit, reinforcement or returning replacement in a hex."""

    unit: str
    hex: str


class Buy(msgspec.Struct, tag="buy", frozen=True, kw_only=True):
    """Add steps to a unit on the map."""

    unit: str
    steps: int


class Rebuild(msgspec.Struct, tag="rebuild", frozen=True, kw_only=True):
    """Buy back an eliminated unit."""

    unit: str


class Move(msgspec.Struct, tag="move", frozen=True, kw_only=True):
    """Activate a unit to move along a path."""

    unit: str
    path: tuple[str, ...]
    strategic: bool = False
    leader: bool = False


class MoveTo(msgspec.Struct, tag="move-to", frozen=True, kw_only=True):
    """A move naming only its destination; expanded to a full Move before signing."""

    needs_path: ClassVar[bool] = True
    unit: str
    dest: str
    strategic: bool = False
    leader: bool = False


class Attack(msgspec.Struct, tag="attack", frozen=True, kw_only=True):
    """Activate units to attack one hex, with optional support and hit priority."""

    hex: str
    units: tuple[str, ...]
    support: tuple[str, ...] = ()
    hits: tuple[str, ...] = ()


class Allocate(msgspec.Struct, tag="allocate", frozen=True, kw_only=True):
    """Priority order of the attacking units for the defender's hits."""

    order: tuple[str, ...]


class End(msgspec.Struct, tag="end", frozen=True, kw_only=True):
    """End the set-up or the player turn."""


Order = Place | Buy | Rebuild | Move | MoveTo | Attack | Allocate | End | StandingOrder

VERBS = ("place", "buy", "rebuild", "move", "attack", "allocate", "end", "standing")

#: Standing hit allocation (core standing orders, topic "hits", HF-G7): the order of the
#: attack's units as written, or by strength (SP, then DRC, then id), weakest or strongest first.
HIT_MODES = ("as-listed", "weakest-first", "strongest-first")
FLAGS = ("strat", "leader")


# A unit name is [a-z0-9][a-z0-9_.'()+-]*, a hex or place [a-z0-9][a-z0-9_.']*, checked with
# string methods (a fraction of a regex match's cost: every replay parses every line); the
# tokens come from str.split(), so no newline can end one
_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_.'()+-"
_HEX_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_.'"
_PATH = re.compile(r"[a-z0-9][a-z0-9_.']*(?:-[a-z0-9][a-z0-9_.']*)*")


def _unit(tok: str) -> str:
    if tok[:1] not in _FIRST or tok.strip(_NAME_CHARS):
        raise OrderSyntaxError(f"bad unit name {tok!r}")
    return tok


def _hex(tok: str) -> str:
    if tok[:1] not in _FIRST or tok.strip(_HEX_CHARS):
        raise OrderSyntaxError(f"bad hex or place {tok!r}")
    return tok


def _list(tok: str) -> tuple[str, ...]:
    items = tuple(_unit(t) for t in tok.split(",") if t)
    if not items or len(set(items)) != len(items):
        raise OrderSyntaxError(f"bad unit list {tok!r}")
    return items


UNEXPANDED = UNEXPANDED_MOVE


def parse_order(text: str) -> Order:
    """Parse one order line; OrderSyntaxError naming the problem if it is not valid notation."""
    toks = text.strip().lower().split()
    if not toks:
        raise OrderSyntaxError("empty order")
    verb, args = toks[0], toks[1:]
    if verb == "end" and not args:
        return End()
    if verb == "standing":
        return parse_standing(" ".join(toks), {"hits": HIT_MODES})
    if verb == "place" and len(args) == 2:
        return Place(unit=_unit(args[0]), hex=_hex(args[1]))
    if verb == "buy" and len(args) in (1, 2):
        n = args[1] if len(args) == 2 else "1"
        if not n.isdigit() or not 1 <= int(n) <= 9:
            raise OrderSyntaxError(f"bad step count {n!r} (1-9)")
        return Buy(unit=_unit(args[0]), steps=int(n))
    if verb == "rebuild" and len(args) == 1:
        return Rebuild(unit=_unit(args[0]))
    if verb == "move" and len(args) >= 2:
        return _move(args)
    if verb == "attack" and len(args) >= 3 and args[1] == "with":
        return _attack(args)
    if verb == "allocate" and len(args) == 1:
        return Allocate(order=_list(args[0]))
    raise OrderSyntaxError(f"cannot read order {text.strip()!r}{suggest(verb, VERBS)}: "
                           "see docs/holdfast.md")


def suggest(word: str, known: tuple[str, ...]) -> str:
    """' (did you mean X?)' for a word close to a known one, '' otherwise."""
    if word in known:
        return ""
    import difflib      # only to suggest a word after a mistake

    close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _move(args: list[str]) -> Move | MoveTo:
    """move UNIT PATH [strat] [leader]: the path's hexes joined by dashes and/or spaces."""
    unit = _unit(args[0])
    rest = args[1:]
    cut = len(rest)                     # the first flag, if any
    for f in FLAGS:
        if f in rest:
            cut = min(cut, rest.index(f))
    words, flags = rest[:cut], rest[cut:]
    if flags:
        bad = [f for f in flags if f not in FLAGS]
        if bad or len(set(flags)) != len(flags):
            raise OrderSyntaxError(f"unknown move flags {' '.join(flags)!r} (strat, leader, "
                                   f"after the path){suggest(bad[0], FLAGS) if bad else ''}")
    if not words:
        raise OrderSyntaxError("a move needs a path (HEX-HEX-...) or 'to HEX'")
    if words[0] == "to":
        if len(words) != 2 or "-" in words[1]:
            raise OrderSyntaxError("expected 'move UNIT to HEX': one destination hex")
        return MoveTo(unit=unit, dest=_hex(words[1]), strategic="strat" in flags,
                      leader="leader" in flags)
    joined = "-".join(words)
    if _PATH.fullmatch(joined):         # every hex well formed: one match for the whole path
        path = tuple(joined.split("-"))
    else:                               # name the first fault, as hex by hex
        parts = joined.split("-")
        if "" in parts:
            raise OrderSyntaxError(f"bad path {' '.join(words)!r}")
        path = tuple(map(_hex, parts))
    return Move(unit=unit, path=path, strategic="strat" in flags, leader="leader" in flags)


def _attack(args: list[str]) -> Attack:
    target = _hex(args[0])
    groups: dict[str, list[str]] = {"with": [], "support": [], "hits": []}
    cur = "with"
    seen = {"with"}
    for tok in args[2:]:
        if tok in ("support", "hits"):
            if tok in seen:
                raise OrderSyntaxError(f"{tok!r} given twice")
            cur = tok
            seen.add(tok)
            continue
        groups[cur].extend(t for t in tok.split(",") if t)
    units = tuple(_unit(t) for t in groups["with"])
    support = tuple(_unit(t) for t in groups["support"])
    hits = tuple(_unit(t) for t in groups["hits"])
    if not units:
        raise OrderSyntaxError("an attack needs at least one attacking unit")
    for name, g in (("attacking units", units), ("support", support), ("hits", hits)):
        if len(set(g)) != len(g):
            raise OrderSyntaxError(f"{name} list repeats a unit")
    if "support" in seen and not support or "hits" in seen and not hits:
        raise OrderSyntaxError("empty support or hits list")
    return Attack(hex=target, units=units, support=support, hits=hits)


def _format_move(order: Move) -> str:
    flags = (" strat" if order.strategic else "") + (" leader" if order.leader else "")
    return f"move {order.unit} {'-'.join(order.path)}{flags}"


def _format_move_to(order: MoveTo) -> str:
    flags = (" strat" if order.strategic else "") + (" leader" if order.leader else "")
    return f"move {order.unit} to {order.dest}{flags}"


def _format_attack(order: Attack) -> str:
    out = f"attack {order.hex} with {' '.join(order.units)}"
    if order.support:
        out += f" support {' '.join(order.support)}"
    if order.hits:
        out += f" hits {','.join(order.hits)}"
    return out


_FORMATS = {
    End: lambda order: "end",
    Place: lambda order: f"place {order.unit} {order.hex}",
    Buy: lambda order: f"buy {order.unit} {order.steps}",
    Rebuild: lambda order: f"rebuild {order.unit}",
    Move: _format_move,
    MoveTo: _format_move_to,
    Attack: _format_attack,
    Allocate: lambda order: f"allocate {','.join(order.order)}",
    StandingOrder: format_standing,
}


def format_order(order: Order) -> str:
    """The canonical text of an order."""
    fmt = _FORMATS.get(type(order))
    if fmt is None:                     # a subclass of an order type: the first it is one of
        fmt = next((f for t, f in _FORMATS.items() if isinstance(order, t)), None)
        if fmt is None:
            raise TypeError(f"not a Holdfast order: {order!r}")
    return fmt(order)
