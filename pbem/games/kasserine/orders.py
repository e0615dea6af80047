"""Kasserine order notation: typed orders (a tagged union), parse_order and format_order.

One order per line; unit ids as in units.toml, hexes as four digits (see docs/kasserine.md).
A path's hexes are separated by spaces or dashes (`move s501 3214 3215` = `move s501 3214-3215`);
the unit's own hex may be listed first. `move UNIT to HEX` names only the destination: pbem
check/submit write the cheapest legal path in its place before signing.
"""

from __future__ import annotations

import re
from typing import ClassVar, Union

import msgspec

from pbem.core.errors import OrderSyntaxError
from pbem.core.game import UNEXPANDED_MOVE
from pbem.core.standing import StandingOrder, format_standing, parse_standing

UNIT = re.compile(r"^[a-z][a-z0-9-]*$")
RULE = "KAS-ORDERS"
#: `sf` values that ask for step 3 after step 2: the step-1 marker placed (ask, 1+ask) or not (0+ask).
SF_ASK = {"ask": 1, "1+ask": 1, "0+ask": 0}


class Move(msgspec.Struct, tag="move"):
    """Move a unit on the map along a path of hexes."""

    unit: str
    path: list[str]


class MoveTo(msgspec.Struct, tag="move-to"):
    """A move naming only its destination; expanded to a full Move before signing."""

    needs_path: ClassVar[bool] = True
    unit: str
    dest: str


class EnterTo(msgspec.Struct, tag="enter-to"):
    """An arrival naming its entry hex and destination only; expanded to a full Enter before
    signing."""

    needs_path: ClassVar[bool] = True
    unit: str
    entry: str
    dest: str


class Enter(msgspec.Struct, tag="enter"):
    """Bring a reinforcement onto the map at its first hex, then move on."""

    unit: str
    path: list[str]


class End(msgspec.Struct, tag="end"):
    """End the current phase."""

    pass


class Bombard(msgspec.Struct, tag="bombard"):
    """Bombard an enemy-occupied hex with one or two markers (8.1)."""

    target: str
    markers: int
    loss: str = ""


class Attack(msgspec.Struct, tag="attack"):
    """A ground attack with pre-committed support steps, advance and loss."""

    target: str
    units: list[str]
    sf: int = 0                    # markers pre-committed: 1 = step 1, 2 = steps 1 and 3
    sf_ask: bool = False           # step 3 asked after the defender's step 2 (sf is then 0 or 1)
    advance: list[str] | None = None
    loss: str = ""


class Support(msgspec.Struct, tag="support"):
    """The answer to a support-fire step: the defender's 2 or 4, the attacker's 3 under 'sf ask'."""

    commit: bool


class Box(msgspec.Struct, tag="box"):
    """A fortified-box holder: ignore the retreat or not (14.3)."""

    hold: bool


class Stiff(msgspec.Struct, tag="stiff"):
    """Stiff resistance instead of a retreat (8.4)."""

    yes: bool


class Retreat(msgspec.Struct, tag="retreat"):
    """The retreat path of a unit, or None for the engine to choose."""

    unit: str
    path: list[str] | None = None  # None = let the engine choose (auto)


class Displace(msgspec.Struct, tag="displace"):
    """Where the owner moves a unit displaced by a friendly retreat (8.3.1)."""

    unit: str
    hex: str


class Advance(msgspec.Struct, tag="advance"):
    """Units advancing after combat ("unit" or "unit:n"); empty for none."""

    units: list[str]               # "unit" or "unit:n"; empty = no advance


class Loss(msgspec.Struct, tag="loss"):
    """The attacking unit that takes an Ex or (A) loss."""

    unit: str


Order = Union[Move, MoveTo, Enter, EnterTo, End, Bombard, Attack, Support, Box, Stiff, Retreat, Displace,
              Advance, Loss, StandingOrder]

STANDING_MODES = {"support": ("never", "one", "two", "match", "ask"),
                  "stiff": ("never", "always", "full-strength", "ask"),
                  "retreat": ("auto", "ask"),
                  "box": ("hold", "yield", "ask"),
                  "displace": ("auto", "ask")}
#: Core standing orders (pbem.core.standing): topic -> modes ('ask' is always allowed).
STANDING_TOPICS = {t: tuple(m for m in modes if m != "ask") for t, modes in STANDING_MODES.items()}


def standing_mode(topic: str, words: list[str]) -> str:
    """The canonical mode text of 'standing TOPIC MODE [min D]' (support may add a minimum
    declared differential); OrderSyntaxError otherwise."""
    if len(words) == 3 and topic == "support" and words[1] == "min" and words[0] != "ask":
        m = words[2]
        if not re.match(r"^[+-]?\d{1,2}$", m):
            raise OrderSyntaxError(f"min must be a differential like -2 or +3, not {m!r}",
                                   rule="PBEM-STANDING")
        return f"{words[0]} min {int(m):+d}"
    if len(words) != 1:
        raise OrderSyntaxError("expected 'standing TOPIC MODE' (support may add 'min D')",
                               rule="PBEM-STANDING")
    return words[0]


class _Modes:
    """The hook pbem.core.standing.parse_standing calls for modes with more words."""

    standing_mode = staticmethod(standing_mode)


VERBS = ("move", "enter", "end", "bombard", "attack", "support", "box", "stiff", "retreat",
         "displace", "advance", "loss", "standing")
USAGE = ("move UNIT HEX... (or move UNIT to HEX), enter UNIT HEX..., end, bombard HEX N [loss UNIT], "
         "attack HEX with U,U [sf 0|1|2|ask|0+ask] [advance U[:N],...|none] [loss U], "
         "support yes|no, box hold|yield, stiff yes|no, retreat UNIT HEX...|auto, "
         "displace UNIT HEX, advance U[:N],...|none, loss UNIT, "
         "standing support|stiff|retreat|box|displace MODE")


def _path(words: list[str]) -> list[str]:
    """The hexes of a path written with spaces and/or dashes between them."""
    return [h for w in words for h in w.split("-")]


#: A path of four-digit hex ids joined by dashes (\d: a Unicode decimal digit, as isdecimal).
_DASHED_HEXES = re.compile(r"\d{4}(?:-\d{4})*")


def _path_hexes(words: list[str], what: str) -> list[str]:
    """_hexes(_path(words), what): a well-formed path in one match, any other through them
    (for their error)."""
    joined = "-".join(words)
    if _DASHED_HEXES.fullmatch(joined):
        return joined.split("-")
    return _hexes(_path(words), what)


def _hexes(words: list[str], what: str) -> list[str]:
    if not words:
        raise OrderSyntaxError(f"{what} needs at least one hex", rule=RULE)
    for w in words:
        if not (len(w) == 4 and w.isdecimal()):      # four Unicode decimal digits, as r"^\d{4}$"
            raise OrderSyntaxError(f"{w!r} is not a four-digit hex id", rule=RULE)
    return words


def _unit(w: str) -> str:
    if not UNIT.match(w):
        raise OrderSyntaxError(f"{w!r} is not a unit id", rule=RULE)
    return w


def _units(w: str) -> list[str]:
    return [_unit(x) for x in w.split(",") if x] or [_unit("")]


def _advance_list(w: str) -> list[str]:
    if w == "none":
        return []
    out = []
    for item in w.split(","):
        name, _, n = item.partition(":")
        _unit(name)
        if n and (not n.isdigit() or not 1 <= int(n) <= 3):
            raise OrderSyntaxError(f"advance distance {n!r} must be 1-3", rule=RULE)
        out.append(item)
    return out


def _yes_no(words: list[str], yes: str, no: str) -> bool:
    if len(words) != 2 or words[1] not in (yes, no):
        raise OrderSyntaxError(f"expected '{words[0]} {yes}|{no}'", rule=RULE)
    return words[1] == yes


def _count(w: str, low: int, high: int, what: str) -> int:
    if not w.isdigit() or not low <= int(w) <= high:
        raise OrderSyntaxError(f"{what} must be {low}-{high}, not {w!r}", rule=RULE)
    return int(w)


def _attack(words: list[str]) -> Attack:
    if len(words) < 4 or words[2] != "with":
        raise OrderSyntaxError("expected 'attack HEX with U,U ...'", rule=RULE)
    order = Attack(target=_hexes([words[1]], "attack")[0], units=_units(words[3]))
    rest = words[4:]
    seen: set[str] = set()
    while rest:
        if len(rest) < 2 or rest[0] not in ("sf", "advance", "loss") or rest[0] in seen:
            raise OrderSyntaxError(f"unexpected {' '.join(rest)!r} (clauses: sf N|ask|0+ask, advance "
                                   "U[:N],..|none, loss U, each once)", rule=RULE)
        key, val, rest = rest[0], rest[1], rest[2:]
        seen.add(key)
        if key == "sf" and val in SF_ASK:
            order.sf, order.sf_ask = SF_ASK[val], True
        elif key == "sf":
            order.sf = _count(val, 0, 2, "sf")
        elif key == "advance":
            order.advance = _advance_list(val)
        else:
            order.loss = _unit(val)
    return order


UNEXPANDED = UNEXPANDED_MOVE


def parse_order(text: str) -> Order:
    """Parse one order line; OrderSyntaxError if it is not valid notation."""
    words = text.strip().lower().split()
    if not words:
        raise OrderSyntaxError("empty order", rule=RULE)
    verb = words[0]
    if verb in ("move", "enter"):
        if len(words) < 3:
            raise OrderSyntaxError(f"expected '{verb} UNIT HEX ...'", rule=RULE)
        if verb == "move" and words[2] == "to":
            if len(words) != 4:
                raise OrderSyntaxError("expected 'move UNIT to HEX': one destination hex", rule=RULE)
            return MoveTo(unit=_unit(words[1]), dest=_hexes([words[3]], "move")[0])
        if verb == "enter" and "to" in words[2:]:
            if len(words) != 5 or words[3] != "to":
                raise OrderSyntaxError("expected 'enter UNIT ENTRYHEX to HEX': the entry hex, "
                                       "then one destination hex", rule=RULE)
            entry, dest = _hexes([words[2], words[4]], "enter")
            return EnterTo(unit=_unit(words[1]), entry=entry, dest=dest)
        cls = Move if verb == "move" else Enter
        return cls(unit=_unit(words[1]), path=_path_hexes(words[2:], verb))
    if verb == "end" and len(words) == 1:
        return End()
    if verb == "bombard":
        if len(words) not in (3, 5) or (len(words) == 5 and words[3] != "loss"):
            raise OrderSyntaxError("expected 'bombard HEX N [loss UNIT]'", rule=RULE)
        return Bombard(target=_hexes([words[1]], "bombard")[0],
                       markers=_count(words[2], 1, 2, "markers"),
                       loss=_unit(words[4]) if len(words) == 5 else "")
    if verb == "attack":
        return _attack(words)
    if verb == "support":
        return Support(commit=_yes_no(words, "yes", "no"))
    if verb == "box":
        return Box(hold=_yes_no(words, "hold", "yield"))
    if verb == "stiff":
        return Stiff(yes=_yes_no(words, "yes", "no"))
    if verb == "retreat":
        if len(words) < 3:
            raise OrderSyntaxError("expected 'retreat UNIT HEX ...' or 'retreat UNIT auto'", rule=RULE)
        if words[2:] == ["auto"]:
            return Retreat(unit=_unit(words[1]))
        path = _path_hexes(words[2:], "retreat")
        if len(path) > 3:
            raise OrderSyntaxError("a retreat is at most three hexes", rule=RULE)
        return Retreat(unit=_unit(words[1]), path=path)
    if verb == "displace":
        if len(words) != 3:
            raise OrderSyntaxError("expected 'displace UNIT HEX'", rule=RULE)
        return Displace(unit=_unit(words[1]), hex=_hexes([words[2]], "displace")[0])
    if verb == "advance" and len(words) == 2:
        return Advance(units=_advance_list(words[1]))
    if verb == "loss" and len(words) == 2:
        return Loss(unit=_unit(words[1]))
    if verb == "standing" and len(words) >= 3:
        return parse_standing(" ".join(words), STANDING_TOPICS, _Modes)
    import difflib      # only to suggest a word after a mistake

    close = difflib.get_close_matches(verb, VERBS, n=1, cutoff=0.6) if verb not in VERBS else []
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise OrderSyntaxError(f"unknown order ({hint}expected one of: {USAGE})", rule=RULE)


def format_order(order: Order) -> str:
    """The canonical text of an order."""
    if isinstance(order, (Move, Enter)):
        return f"{'move' if isinstance(order, Move) else 'enter'} {order.unit} {' '.join(order.path)}"
    if isinstance(order, MoveTo):
        return f"move {order.unit} to {order.dest}"
    if isinstance(order, EnterTo):
        return f"enter {order.unit} {order.entry} to {order.dest}"
    if isinstance(order, End):
        return "end"
    if isinstance(order, Bombard):
        return f"bombard {order.target} {order.markers}" + (f" loss {order.loss}" if order.loss else "")
    if isinstance(order, Attack):
        s = f"attack {order.target} with {','.join(order.units)}"
        if order.sf_ask:
            s += " sf ask" if order.sf else " sf 0+ask"
        elif order.sf:
            s += f" sf {order.sf}"
        if order.advance is not None:
            s += f" advance {','.join(order.advance) or 'none'}"
        if order.loss:
            s += f" loss {order.loss}"
        return s
    if isinstance(order, Support):
        return f"support {'yes' if order.commit else 'no'}"
    if isinstance(order, Box):
        return f"box {'hold' if order.hold else 'yield'}"
    if isinstance(order, Stiff):
        return f"stiff {'yes' if order.yes else 'no'}"
    if isinstance(order, Retreat):
        return f"retreat {order.unit} {' '.join(order.path) if order.path else 'auto'}"
    if isinstance(order, Displace):
        return f"displace {order.unit} {order.hex}"
    if isinstance(order, Advance):
        return f"advance {','.join(order.units) or 'none'}"
    if isinstance(order, Loss):
        return f"loss {order.unit}"
    if isinstance(order, StandingOrder):
        return format_standing(order)
    raise TypeError(f"not a Kasserine order: {order!r}")
