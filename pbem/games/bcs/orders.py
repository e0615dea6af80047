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
    move 3-1-arm to B16.09         name only the destination: pbem check and submit write the
                                   cheapest legal path in its place before signing
    back 3-1-arm B15.09 B14.09     an excess unit of an overstacked hex steps back, one hex at a
                                   time, to the first hex allowing legal stacking (5.5d); with
                                   no hex named, back along the way it came
    end                            end the Activities: Clean Up, Fatigue & Isolation (3.2a f, g)
    second | done                  attempt a Second Activation, or orient the HQ Done (3.5)
    first take | first give        the First Player's choice (2.1)
    attack B8.19 with ii-86-inf assist 90-mdr
                                   a Regular Attack (7.2) on an adjacent hex by one Attack unit
                                   and at most one Assist
    attack B8.19 with ii-86-inf suppress arty    ... with a Suppression Mission (one point, 8.0f)
    attack B8.19 with ii-86-inf barrage arty 2 air 1
                                   ... with a Destruction Mission of up to three points (7.2j)
    shock B8.19 with 81-cav        a Shock Attack (7.3) by one Tac unit, for a Fire Event
                                   (with 'suppress air' or 'barrage air 1': one Air Point, 7.3b)
    retreat kern+81-cav B11.20     a Voluntary Retreat (7.5j) to a hex 3 hexes away
    engage B8.19 with ii-7-pz      an Engagement (7.1) by one AV unit, for a Fire Event
    engage B8.19 with ii-25-lw-88 from ii-104-inf
                                   a Stand Off Support shot (7.1m) from a host unit's hex
    recon B8.19 with 81-cav        a Recon (4.3d) by one Recon unit: a Combat OBJ on a 1d6 <= AR
    screen 81-cav | unscreen 81-cav  a Recon unit's Screen marker (BbF 1.5), at the start of an Activation
    barrage B8.19 arty 1 spot ii-86-inf
                                   a Barrage outside an Attack Sequence (8.0, 8.1): the points
                                   ('arty N', 'air N') and the spotting unit, which STOPs
    fire B8.19 with 90-mdr         an Attack by Fire (8.3) by one adjacent unit, for a Fire Event
    fire B8.19 with ii-25-lw-88 from ii-104-inf
                                   a Stand Off Support Attack by Fire (7.1m) from an adjacent host
    answer defense top             the answer of a side asked a reaction (reactions.py): a topic
                                   of the standing orders and one of its modes, or one of the
                                   choices his question lists: 'answer hq-retreat B17.13' (the
                                   hex), 'answer hq-order kern+drake' (the order of his units)
  In the Pre-Turn Assignment Phase (2.1 (1) 2, assignment.py):
    support 90-mdr                 a unit goes into Support (9.2e); 'concentrate 90-mdr' brings
                                   it back as a real unit in its HQ's hex (9.2f)
    assign 894-td to ccb           an unassigned independent is assigned (9.5); 'unassign
                                   894-td' takes it off the map, unassigned
    assign arty 3 to ccb           Arty Asset Points assigned to an HQ (8.0d); 'unassign arty 3
                                   from ccb' returns them to the pool
    rommel 10pz                    Rommel's box (BbF 2.1: dak, 10pz or 21pz)
    assignment done                the side's Assignment Phase is over
  In the Set-up decision before turn 1 (1.4A, 1.4D, 1.4E, setupphase.py):
    setup 3-6-arminf deployed      a unit of the set-up on its Deployed (or Move) side
    setup kern B23.15 [deployed]   a counter the set-up gives a zone placed in it (and its side)
    setup done                     the side's Set-up is over
  In the Reinforcement & Weather Phase of the Minefields' arrival (BbF 3.1a, mines.py):
    mine A31.18                    the US player places one Minefield marker, unbreached
"""

from __future__ import annotations

import difflib
import re
from typing import ClassVar, Union

import msgspec

from pbem.core.errors import OrderSyntaxError

HEX = re.compile(r"^[A-Za-z]\d{1,2}\.\d{2}$")
UNIT = re.compile(r"^[a-z0-9][a-z0-9-]*$")
RULE = "BCS-ORDERS"


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


class MoveTo(msgspec.Struct, tag="move-to"):
    """A move naming only its destination; pbem check and submit write it out as the Move along
    its cheapest legal path before signing (pathfind.py)."""

    needs_path: ClassVar[bool] = True
    units: list[str]
    dest: str


class Back(msgspec.Struct, tag="back"):
    """An excess unit of an overstacked hex stepped back by its owner (5.5d), through the hexes
    named (none: back the way it came)."""

    unit: str
    path: list[str] = []


class End(msgspec.Struct, tag="end"):
    """End the Activities step of the Activation."""


class Second(msgspec.Struct, tag="second"):
    """Attempt a Second Activation (attempt) or orient the HQ Done without one."""

    attempt: bool = True


class First(msgspec.Struct, tag="first"):
    """The First Player's choice: take the first Activation or give it."""

    take: bool = True


class Fires(msgspec.Struct):
    """The Barrage of an Attack Sequence (7.2 step 4, 7.2j): a Suppression Mission (exactly one
    point, +2 DRM) or a Destruction Mission (points rolled on the Barrage Table)."""

    mission: str                 # "suppression" | "destruction"
    arty: int = 0
    air: int = 0


class Attack(msgspec.Struct, tag="attack"):
    """A Regular Attack (7.2): the defending hex, the Attack unit, an optional Assist and an
    optional Barrage (step 4)."""

    hex: str
    unit: str
    assist: str = ""
    fires: Fires | None = None


class Shock(msgspec.Struct, tag="shock"):
    """A Shock Attack (7.3): the defending hex, the Shock unit and an optional Barrage (7.3b)."""

    hex: str
    unit: str
    fires: Fires | None = None


class Barrage(msgspec.Struct, tag="barrage"):
    """A Barrage outside an Attack Sequence (8.0, 8.1): target hex, points and the spotter."""

    hex: str
    spotter: str
    arty: int = 0
    air: int = 0


class Fire(msgspec.Struct, tag="fire"):
    """An Attack by Fire (8.3): the target hex and the firing unit; a Stand Off unit in Support
    fires from the hex of a host unit with Support access (7.1m: 'from HOST')."""

    hex: str
    unit: str
    host: str = ""


class Retreat(msgspec.Struct, tag="retreat"):
    """A Voluntary Retreat (7.5j): units of one hex and the hex 3 hexes away they retreat to."""

    units: list[str]
    to: str


class Engage(msgspec.Struct, tag="engage"):
    """An Engagement (7.1): the target hex and the Firer; a Stand Off unit in Support fires from
    the hex of a host unit with Support access (7.1m: 'from HOST')."""

    hex: str
    unit: str
    host: str = ""


class Recon(msgspec.Struct, tag="recon"):
    """A Recon (4.3d): the enemy-held hex to place a Combat OBJ on and the Recon unit."""

    hex: str
    unit: str


class Screen(msgspec.Struct, tag="screen"):
    """Place (or, with on = False, remove) a Recon unit's Screen marker (BbF 1.5b)."""

    unit: str
    on: bool = True


class Answer(msgspec.Struct, tag="answer"):
    """The answer to a reaction the game asks (reactions.py): a standing-order topic and one of
    its modes, or one of the owner's own choices the question lists (a hex, units in order)."""

    topic: str
    mode: str


class Mine(msgspec.Struct, tag="mine"):
    """A Minefield marker placed unbreached by the US player (BbF 3.1a)."""

    hex: str


class Recover(msgspec.Struct, tag="recover"):
    """Failure Flip: turn a Fail SNAFU of an Initial Activation into a Recovery (10.4c)."""


# -- the Assignment Phase (2.1 (1) 2, assignment.py) ----------------------------------------------

class Support(msgspec.Struct, tag="support"):
    """A unit goes into Support (9.2e), or (on = False, 'concentrate') re-concentrates (9.2f)."""

    unit: str
    on: bool = True


class Assign(msgspec.Struct, tag="assign"):
    """An independent unit assigned to a Formation, or unassigned (formation "") (9.5)."""

    unit: str
    formation: str = ""


class ArtyAssets(msgspec.Struct, tag="arty-assets"):
    """Arty Asset Points assigned to a Formation's HQ, or unassigned from it (8.0d, 9.5)."""

    points: int
    formation: str
    assign: bool = True


class Rommel(msgspec.Struct, tag="rommel"):
    """Rommel placed in a box of the 'Rommel Will Affect' display (BbF 2.1)."""

    box: str


class AssignmentDone(msgspec.Struct, tag="assignment-done"):
    """The side's Assignment Phase is over."""


class Setup(msgspec.Struct, tag="setup"):
    """A counter of the set-up placed in its zone (hex, 1.4A, 1.4D) and/or a unit set on a
    counter side (face: move | deployed, 1.4E); "" leaves that part as it is."""

    unit: str
    hex: str = ""
    face: str = ""


class SetupDone(msgspec.Struct, tag="setup-done"):
    """The side's Set-up decision is over."""


Order = Union[Activate, Recover, Trains, Flip, Obj, Move, MoveTo, Back, End, Second, First, Attack, Shock,
              Retreat, Engage, Recon, Screen, Barrage, Fire, Support, Assign, ArtyAssets, Rommel,
              AssignmentDone, Answer, Mine, Setup, SetupDone]
WORDS = ("answer", "activate", "recover", "trains", "flip", "obj", "move", "back", "end", "second", "done",
         "first", "attack", "shock", "retreat", "engage", "recon", "screen",
         "unscreen", "barrage", "fire", "support", "concentrate", "assign", "unassign",
         "rommel", "assignment", "mine", "setup")
FACES = ("move", "deployed")


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


def _points(words: list[str], what: str) -> tuple[int, int]:
    """'arty N', 'air N' (each at most once, N from 1 to 9): the Arty and Air Points."""
    got: dict[str, int] = {}
    if not words or len(words) % 2:
        raise OrderSyntaxError(f"{what}: name the points as 'arty N' and/or 'air N'", rule=RULE)
    for kind, n in zip(words[::2], words[1::2]):
        kind = kind.lower()
        if kind not in ("arty", "air") or kind in got or not re.fullmatch(r"[1-9]", n):
            raise OrderSyntaxError(f"{what}: name the points as 'arty N' and/or 'air N' "
                                   f"(N from 1 to 9, each once)", rule=RULE)
        got[kind] = int(n)
    return got.get("arty", 0), got.get("air", 0)


def _fires(words: list[str], what: str) -> Fires | None:
    """The Barrage words ending an attack or shock order: 'suppress arty|air' or
    'barrage arty N air N'."""
    if not words:
        return None
    head = words[0].lower()
    if head == "suppress" and len(words) == 2 and words[1].lower() in ("arty", "air"):
        kind = words[1].lower()
        return Fires(mission="suppression", arty=int(kind == "arty"), air=int(kind == "air"))
    if head == "barrage":
        arty, air = _points(words[1:], what)
        return Fires(mission="destruction", arty=arty, air=air)
    raise OrderSyntaxError(f"{what}: the Barrage is 'suppress arty|air' or 'barrage arty N "
                           f"air N'", rule=RULE)


def _format_fires(f: Fires | None) -> str:
    if f is None:
        return ""
    if f.mission == "suppression":
        return " suppress arty" if f.arty else " suppress air"
    return " barrage" + _format_points(f.arty, f.air)


def _format_points(arty: int, air: int) -> str:
    return (f" arty {arty}" if arty else "") + (f" air {air}" if air else "")


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
        if args[1].lower() == "to":
            if len(args) != 3:
                raise OrderSyntaxError("expected 'move UNIT[+UNIT] to HEX': one destination hex",
                                       rule=RULE)
            return MoveTo(units=units, dest=_hex(args[2]))
        path = [_hex(h) for h in re.split(r"[\s-]+", " ".join(args[1:]).strip()) if h]
        if not path:
            raise OrderSyntaxError("move UNIT[+UNIT] HEX [HEX ...]", rule=RULE)
        return Move(units=units, path=path)
    if w == "back" and args:
        path = [_hex(h) for h in re.split(r"[\s-]+", " ".join(args[1:]).strip()) if h]
        return Back(unit=_unit(args[0]), path=path)
    if w == "end" and not args:
        return End()
    if w == "mine" and len(args) == 1:
        return Mine(hex=_hex(args[0]))
    if w == "recover" and not args:
        return Recover()
    if w == "second" and not args:
        return Second(attempt=True)
    if w == "done" and not args:
        return Second(attempt=False)
    if w == "first" and len(args) == 1 and args[0].lower() in ("take", "give"):
        return First(take=args[0].lower() == "take")
    if w == "attack" and len(args) >= 3 and args[1].lower() == "with":
        has_assist = len(args) >= 5 and args[3].lower() == "assist"
        tail = args[5:] if has_assist else args[3:]
        if tail and tail[0].lower() not in ("suppress", "barrage"):
            raise OrderSyntaxError(f"malformed 'attack' order: {text.strip()!r} (attack HEX "
                                   f"with UNIT [assist UNIT] [suppress arty|air | barrage "
                                   f"arty N air N])", rule=RULE)
        assist = _unit(args[4]) if has_assist else ""
        unit = _unit(args[2])
        if assist == unit:
            raise OrderSyntaxError("attack: the Assist is another unit than the Attack unit",
                                   rule=RULE)
        return Attack(hex=_hex(args[0]), unit=unit, assist=assist,
                      fires=_fires(tail, "attack"))
    if w == "shock" and len(args) >= 3 and args[1].lower() == "with":
        return Shock(hex=_hex(args[0]), unit=_unit(args[2]), fires=_fires(args[3:], "shock"))
    if w == "barrage" and len(args) >= 5 and args[-2].lower() == "spot":
        arty, air = _points(args[1:-2], "barrage")
        return Barrage(hex=_hex(args[0]), spotter=_unit(args[-1]), arty=arty, air=air)
    if w == "retreat" and len(args) == 2:
        units = [_unit(u) for u in args[0].split("+")]
        if len(set(units)) != len(units) or "" in args[0].split("+"):
            raise OrderSyntaxError("retreat: name each unit of the stack once, joined by '+'",
                                   rule=RULE)
        return Retreat(units=units, to=_hex(args[1]))
    if w in ("engage", "fire") and len(args) == 5 and args[1].lower() == "with" \
            and args[3].lower() == "from":                               # 7.1m: Stand Off
        kind = Engage if w == "engage" else Fire
        return kind(hex=_hex(args[0]), unit=_unit(args[2]), host=_unit(args[4]))
    if w in ("engage", "recon", "fire") and len(args) == 3 and args[1].lower() == "with":
        kind = Engage if w == "engage" else Recon if w == "recon" else Fire
        return kind(hex=_hex(args[0]), unit=_unit(args[2]))
    if w in ("screen", "unscreen") and len(args) == 1:
        return Screen(unit=_unit(args[0]), on=w == "screen")
    assignment = _parse_assignment(w, args)
    if assignment is not None:
        return assignment
    if w == "answer" and len(args) == 2 and UNIT.match(args[0].lower()) and HEX.match(args[1]):
        return Answer(topic=args[0].lower(), mode=_hex(args[1]))    # a hex he places a piece in
    if w == "answer" and len(args) == 2 and UNIT.match(args[0].lower()) and \
            all(UNIT.match(u) for u in args[1].lower().split("+")):
        return Answer(topic=args[0].lower(), mode=args[1].lower())  # a mode, or units in order
    if w in WORDS:
        raise OrderSyntaxError(f"malformed {w!r} order: {text.strip()!r} (see docs/bcs-engine.md)",
                               rule=RULE)
    near = difflib.get_close_matches(w, WORDS, n=1)
    hint = f"; did you mean '{near[0]}'?" if near else ""
    raise OrderSyntaxError(f"unknown order {w!r}{hint}", rule=RULE)


def _parse_assignment(w: str, args: list[str]) -> Order | None:
    """The Assignment Phase's orders (support, concentrate, assign, unassign, rommel,
    assignment done), or None when the line is none of them."""
    low = [a.lower() for a in args]
    if w in ("support", "concentrate") and len(args) == 1:
        return Support(unit=_unit(args[0]), on=w == "support")
    if w == "assign" and len(args) == 4 and low[0] == "arty" and low[2] == "to":
        return ArtyAssets(points=_count(args[1]), formation=_unit(args[3]))
    if w == "unassign" and len(args) == 4 and low[0] == "arty" and low[2] == "from":
        return ArtyAssets(points=_count(args[1]), formation=_unit(args[3]), assign=False)
    if w == "assign" and len(args) == 3 and low[1] == "to":
        return Assign(unit=_unit(args[0]), formation=_unit(args[2]))
    if w == "unassign" and len(args) == 1:
        return Assign(unit=_unit(args[0]))
    if w == "rommel" and len(args) == 1:
        return Rommel(box=_unit(args[0]))
    if w == "assignment" and low == ["done"]:
        return AssignmentDone()
    if w == "setup" and low == ["done"]:
        return SetupDone()
    if w == "setup" and len(args) == 2 and low[1] in FACES:
        return Setup(unit=_unit(args[0]), face=low[1])
    if w == "setup" and len(args) == 2:
        return Setup(unit=_unit(args[0]), hex=_hex(args[1]))
    if w == "setup" and len(args) == 3 and low[2] in FACES:
        return Setup(unit=_unit(args[0]), hex=_hex(args[1]), face=low[2])
    if w == "setup":
        raise OrderSyntaxError("setup UNIT [HEX] [move | deployed], or setup done", rule=RULE)
    return None


def _count(tok: str) -> int:
    if not re.fullmatch(r"[1-9]\d?", tok):
        raise OrderSyntaxError(f"{tok!r} is not a number of Arty Asset Points (1 to 99)",
                               rule=RULE)
    return int(tok)


def _format_assignment(order: Order) -> str | None:
    """The canonical text of an Assignment Phase order, or None for any other order."""
    if isinstance(order, Support):
        return f"{'support' if order.on else 'concentrate'} {order.unit}"
    if isinstance(order, Assign):
        return f"assign {order.unit} to {order.formation}" if order.formation \
            else f"unassign {order.unit}"
    if isinstance(order, ArtyAssets):
        return f"assign arty {order.points} to {order.formation}" if order.assign \
            else f"unassign arty {order.points} from {order.formation}"
    if isinstance(order, Rommel):
        return f"rommel {order.box}"
    if isinstance(order, AssignmentDone):
        return "assignment done"
    if isinstance(order, SetupDone):
        return "setup done"
    if isinstance(order, Setup):
        return " ".join(w for w in ("setup", order.unit, order.hex, order.face) if w)
    return None


def format_order(order: Order) -> str:
    """The canonical text of an order (parse_order(format_order(o)) == o)."""
    assignment = _format_assignment(order)
    if assignment is not None:
        return assignment
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
    if isinstance(order, MoveTo):
        return f"move {'+'.join(order.units)} to {order.dest}"
    if isinstance(order, Back):
        return " ".join(["back", order.unit, *order.path])
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
    if isinstance(order, Shock):
        return f"shock {order.hex} with {order.unit}" + _format_fires(order.fires)
    if isinstance(order, (Engage, Recon, Fire)):
        word = "engage" if isinstance(order, Engage) else "recon" \
            if isinstance(order, Recon) else "fire"
        return f"{word} {order.hex} with {order.unit}" + \
            (f" from {order.host}" if isinstance(order, (Engage, Fire)) and order.host else "")
    if isinstance(order, Attack):
        return f"attack {order.hex} with {order.unit}" + \
            (f" assist {order.assist}" if order.assist else "") + _format_fires(order.fires)
    if isinstance(order, Barrage):
        return f"barrage {order.hex}{_format_points(order.arty, order.air)} spot {order.spotter}"
    if isinstance(order, Answer):
        return f"answer {order.topic} {order.mode}"
    if isinstance(order, Mine):
        return f"mine {order.hex}"
    assert isinstance(order, Screen)
    return f"{'screen' if order.on else 'unscreen'} {order.unit}"
