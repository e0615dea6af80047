"""Baptism By Fire order notation: typed orders (a tagged union), parse_order and format_order.

One order per line (docs/bcs-engine.md):

    activate reim                  Initial Activation of a Formation (3.2a a)
    activate cca recover           ... declared a Fatigue Recovery Activation (10.4c)
    activate ccc prepare           ... creating Prepared Defense in Preparation (4.5);
                                   'unprepare' removes it
    recover                        Failure Flip: a Fail SNAFU becomes a Recovery (10.4c)
    activate reim at B20.00        an arriving Formation: its HQ and Trains placed there (9.3b)
    trains reim B20.01             place Combat Trains in a Legal hex (10.3b); 'trains reim off'
                                   takes them off the map, 'trains reim regular' flips them
                                   from Ghost
    flip 3-1-arm                   flip a unit before the Activities begin (5.6a)
    obj B14.09                     place a Combat OBJ in the Initial Actions step (4.3)
    move 3-1-arm+701-td B15.09 B16.09   move a unit or a stack (ids joined by '+') along hexes
                                   (spaces or dashes between hexes); an arriving unit's first
                                   hex is its Entry hex (9.3)
    end                            end the Activities: Clean Up, Fatigue & Isolation (3.2a f, g)
    second | done                  attempt a Second Activation, or orient the HQ Done (3.5)
    first take | first give        the First Player's choice (2.1)
    attack B8.19 with ii-86-inf assist 90-mdr
                                   a Regular Attack (7.2) on an adjacent hex by one Attack unit
                                   and at most one Assist
    shock B8.19 with 81-cav        a Shock Attack (7.3) by one Tac unit, for a Fire Event
    retreat kern+81-cav B11.20     a Voluntary Retreat (7.5j) to a hex 3 hexes away
    engage B8.19 with ii-7-pz      an Engagement (7.1) by one AV unit, for a Fire Event
    recon B8.19 with 81-cav        a Recon (4.3d) by one Recon unit: a Combat OBJ on a 1d6 <= AR
    screen 81-cav | unscreen 81-cav  a Recon unit's Screen marker (BbF 1.5), at the start of an Activation
    barrage ... | fire ... | ...   other combat orders: parsed, refused until they are built
"""

from __future__ import annotations

import difflib
import re
from typing import Union

import msgspec

from pbem.core.errors import OrderSyntaxError

HEX = re.compile(r"^[A-Za-z]\d{1,2}\.\d{2}$")
UNIT = re.compile(r"^[a-z0-9][a-z0-9-]*$")
RULE = "BCS-ORDERS"
COMBAT_WORDS = ("barrage", "fire")


class Activate(msgspec.Struct, tag="activate"):
    """Activate a Formation (optionally as a Fatigue Recovery Activation); an arriving
    Formation names the Entry hex where its HQ and Combat Trains are placed (9.3b)."""

    formation: str
    recover: bool = False
    at: str = ""
    defense: str = ""            # "prepare" or "unprepare": Prepared Defense in Preparation (4.5)


class Trains(msgspec.Struct, tag="trains"):
    """Place a Formation's Combat Trains in a hex, take them off the map ("off"), or flip them
    from Ghost to Regular ("regular") (10.3b)."""

    formation: str
    to: str


class Flip(msgspec.Struct, tag="flip"):
    """Flip a unit to its other side."""

    unit: str


class Obj(msgspec.Struct, tag="obj"):
    """Place a Combat OBJ marker."""

    hex: str


class Move(msgspec.Struct, tag="move"):
    """Move one unit or a stack along a path of hexes."""

    units: list[str]
    path: list[str]


class End(msgspec.Struct, tag="end"):
    """End the Activities step of the Activation."""


class Second(msgspec.Struct, tag="second"):
    """Attempt a Second Activation (attempt) or orient the HQ Done without one."""

    attempt: bool = True


class First(msgspec.Struct, tag="first"):
    """The First Player's choice: take the first Activation or give it."""

    take: bool = True


class Attack(msgspec.Struct, tag="attack"):
    """A Regular Attack (7.2): the defending hex, the Attack unit and an optional Assist."""

    hex: str
    unit: str
    assist: str = ""


class Shock(msgspec.Struct, tag="shock"):
    """A Shock Attack (7.3): the defending hex and the Shock unit."""

    hex: str
    unit: str


class Retreat(msgspec.Struct, tag="retreat"):
    """A Voluntary Retreat (7.5j): units of one hex and the hex 3 hexes away they retreat to."""

    units: list[str]
    to: str


class Engage(msgspec.Struct, tag="engage"):
    """An Engagement (7.1): the target hex and the Firer."""

    hex: str
    unit: str


class Recon(msgspec.Struct, tag="recon"):
    """A Recon (4.3d): the enemy-held hex to place a Combat OBJ on and the Recon unit."""

    hex: str
    unit: str


class Screen(msgspec.Struct, tag="screen"):
    """Place (or, with on = False, remove) a Recon unit's Screen marker (BbF 1.5b)."""

    unit: str
    on: bool = True


class Combat(msgspec.Struct, tag="combat"):
    """A combat order (attack, engage, barrage ...): its words, for the combat issue."""

    word: str
    rest: str = ""


class Recover(msgspec.Struct, tag="recover"):
    """Failure Flip: turn a Fail SNAFU of an Initial Activation into a Recovery (10.4c)."""


Order = Union[Activate, Recover, Trains, Flip, Obj, Move, End, Second, First, Attack, Shock,
              Retreat, Engage, Recon, Screen, Combat]
WORDS = ("activate", "recover", "trains", "flip", "obj", "move", "end", "second", "done",
         "first", "attack", "shock", "retreat", "engage", "recon", "screen",
         "unscreen") + COMBAT_WORDS


def _hex(tok: str) -> str:
    if not HEX.match(tok):
        raise OrderSyntaxError(f"{tok!r} is not a hex id (letter, column, '.', two-digit row: "
                               f"B14.09)", rule=RULE)
    return tok[0].upper() + tok[1:]


def _unit(tok: str) -> str:
    tok = tok.lower()
    if not UNIT.match(tok):
        raise OrderSyntaxError(f"{tok!r} is not a unit id", rule=RULE)
    return tok


def parse_order(text: str) -> Order:
    """Parse one order line; OrderSyntaxError names the problem."""
    words = text.split()
    if not words:
        raise OrderSyntaxError("empty order", rule=RULE)
    w, args = words[0].lower(), words[1:]
    if w == "activate" and len(args) in (1, 2, 3):
        rest = [a.lower() for a in args[1:]]
        if rest == ["recover"]:
            return Activate(formation=_unit(args[0]), recover=True)
        if rest in (["prepare"], ["unprepare"]):
            return Activate(formation=_unit(args[0]), defense=rest[0])
        if len(rest) == 2 and rest[0] == "at":
            return Activate(formation=_unit(args[0]), at=_hex(args[2]))
        if rest:
            raise OrderSyntaxError("activate FORMATION [recover | prepare | unprepare | at HEX]",
                                   rule=RULE)
        return Activate(formation=_unit(args[0]))
    if w == "trains" and len(args) == 2:
        to = args[1].lower()
        return Trains(formation=_unit(args[0]),
                      to=to if to in ("off", "regular") else _hex(args[1]))
    if w == "flip" and len(args) == 1:
        return Flip(unit=_unit(args[0]))
    if w == "obj" and len(args) == 1:
        return Obj(hex=_hex(args[0]))
    if w == "move" and len(args) >= 2:
        units = [_unit(u) for u in args[0].split("+")]
        if len(set(units)) != len(units) or "" in args[0].split("+"):
            raise OrderSyntaxError("move: name each unit of the stack once, joined by '+'",
                                   rule=RULE)
        path = [_hex(h) for h in re.split(r"[\s-]+", " ".join(args[1:]).strip()) if h]
        if not path:
            raise OrderSyntaxError("move UNIT[+UNIT] HEX [HEX ...]", rule=RULE)
        return Move(units=units, path=path)
    if w == "end" and not args:
        return End()
    if w == "recover" and not args:
        return Recover()
    if w == "second" and not args:
        return Second(attempt=True)
    if w == "done" and not args:
        return Second(attempt=False)
    if w == "first" and len(args) == 1 and args[0].lower() in ("take", "give"):
        return First(take=args[0].lower() == "take")
    if w == "attack" and len(args) in (3, 5) and args[1].lower() == "with" and \
            (len(args) == 3 or args[3].lower() == "assist"):
        assist = _unit(args[4]) if len(args) == 5 else ""
        unit = _unit(args[2])
        if assist == unit:
            raise OrderSyntaxError("attack: the Assist is another unit than the Attack unit",
                                   rule=RULE)
        return Attack(hex=_hex(args[0]), unit=unit, assist=assist)
    if w == "retreat" and len(args) == 2:
        units = [_unit(u) for u in args[0].split("+")]
        if len(set(units)) != len(units) or "" in args[0].split("+"):
            raise OrderSyntaxError("retreat: name each unit of the stack once, joined by '+'",
                                   rule=RULE)
        return Retreat(units=units, to=_hex(args[1]))
    if w in ("shock", "engage", "recon") and len(args) == 3 and args[1].lower() == "with":
        kind = Shock if w == "shock" else Engage if w == "engage" else Recon
        return kind(hex=_hex(args[0]), unit=_unit(args[2]))
    if w in ("screen", "unscreen") and len(args) == 1:
        return Screen(unit=_unit(args[0]), on=w == "screen")
    if w in COMBAT_WORDS:
        return Combat(word=w, rest=" ".join(args))
    if w in WORDS:
        raise OrderSyntaxError(f"malformed {w!r} order: {text.strip()!r} (see docs/bcs-engine.md)",
                               rule=RULE)
    near = difflib.get_close_matches(w, WORDS, n=1)
    hint = f"; did you mean '{near[0]}'?" if near else ""
    raise OrderSyntaxError(f"unknown order {w!r}{hint}", rule=RULE)


def format_order(order: Order) -> str:
    """The canonical text of an order (parse_order(format_order(o)) == o)."""
    if isinstance(order, Activate):
        return f"activate {order.formation}" + (" recover" if order.recover else "") + \
            (f" at {order.at}" if order.at else "") + (f" {order.defense}" if order.defense else "")
    if isinstance(order, Trains):
        return f"trains {order.formation} {order.to}"
    if isinstance(order, Flip):
        return f"flip {order.unit}"
    if isinstance(order, Obj):
        return f"obj {order.hex}"
    if isinstance(order, Move):
        return f"move {'+'.join(order.units)} {' '.join(order.path)}"
    if isinstance(order, End):
        return "end"
    if isinstance(order, Recover):
        return "recover"
    if isinstance(order, Second):
        return "second" if order.attempt else "done"
    if isinstance(order, First):
        return "first take" if order.take else "first give"
    if isinstance(order, Retreat):
        return f"retreat {'+'.join(order.units)} {order.to}"
    if isinstance(order, (Shock, Engage, Recon)):
        word = "shock" if isinstance(order, Shock) else "engage" \
            if isinstance(order, Engage) else "recon"
        return f"{word} {order.hex} with {order.unit}"
    if isinstance(order, Attack):
        return f"attack {order.hex} with {order.unit}" + \
            (f" assist {order.assist}" if order.assist else "")
    if isinstance(order, Screen):
        return f"{'screen' if order.on else 'unscreen'} {order.unit}"
    return f"{order.word} {order.rest}".strip()
