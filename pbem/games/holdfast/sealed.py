"""Holdfast in sealed mode (docs/sealed.md section 5e).

The other side knows a block only by its public slot: `?axis-7`, given when the block is
placed on the map (the fixed Allied set-up: slots 1.. in unit id order) and kept while it
stays there; a block that leaves the map and comes back gets a new slot. The block's
identity and strength are the facts of its slot (`axis-7.unit`, `axis-7.sp`). Orders travel
as projections over slots that carry what the other side may see, and what its processor
cannot compute (the RP cost of steps, which depends on the hidden type), as `seen ...` lines:

    seen place ?axis-7 1803             a block appears (or, in the set-up, is placed again)
    seen buy ?axis-7 1 rp 2             a block gains steps, for that many RP
    seen rebuild rp 3                   an eliminated unit is bought back
    seen move ?axis-7 1803-1903 [strat] a block moves along a path
    seen attack 1903 with ?axis-7 ... [support S ...] [hits ?axis-7,...]
                                        an attack: its blocks open their slots, its support
                                        units are named (the combat reveals them)

An allocation names the attacking units, which the combat revealed, and travels as written,
as `end` does. Supply needs no hidden value: it reads block hexes, base control and the minor
port claims, and every activation's claim is made on the knowledge state as on the full
state, so each processor computes the other side's supply (its moves' captures, its
attackers' dice, its losses at the end of its turn) itself.

A knowledge state holds the other side's unopened blocks as stand-ins keyed by their slot id
(the generic block of standin.py); an opening renames a stand-in to its unit and gives its
strength, and the other side remembers it while the block stays on the map. Projected orders
are applied leniently (the checks that read a hidden value are the final replay's).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any

import msgspec

from pbem.core.dice import NoDice
from pbem.core.errors import IllegalOrder, OrderError, OrderSyntaxError
from pbem.core.game import Context, Decision, NeedsDice
from pbem.core.standing import StandingOrder, answer, apply_order, parse_line
from pbem.games.holdfast import combat, reinforcement as rf
from pbem.games.holdfast.board import map_units, overstacked, side_at
from pbem.games.holdfast.data import STANDIN_PREFIX, World, world
from pbem.games.holdfast.movement import check_path
from pbem.games.holdfast.orders import Attack, Buy, Move, Place, Rebuild
from pbem.games.holdfast.state import (SIDES, HoldfastState, MoveSeen, SideState, UnitState,
                                       clone, enemy)
from pbem.games.holdfast.supply import activation_supply, in_supply, net_for

KNOWN = "known"      # where: an opened unit whose slot is not on the map yet (this file)
_SLOT = re.compile(r"^\?(allied|axis)-([1-9][0-9]{0,4})$")
MOVE_FAR = 999       # a projected move's cost is not checked against MP (a hidden value);
                     # its length is, against the longest move of any block (most_steps)


class SeenPlace(msgspec.Struct, frozen=True, tag="seen-place"):
    """A block appears in a hex (or is placed again in the set-up)."""

    slot: str
    hex: str


class SeenBuy(msgspec.Struct, frozen=True, tag="seen-buy"):
    """A block gains steps for RP."""

    slot: str
    steps: int
    rp: int


class SeenRebuild(msgspec.Struct, frozen=True, tag="seen-rebuild"):
    """An eliminated unit is bought back for RP."""

    rp: int


class SeenMove(msgspec.Struct, frozen=True, tag="seen-move"):
    """A block moves along a path (start hex first)."""

    slot: str
    path: tuple[str, ...]
    strategic: bool = False


class SeenAttack(msgspec.Struct, frozen=True, tag="seen-attack"):
    """An attack as the defender sees it."""

    hex: str
    units: tuple[str, ...]
    support: tuple[str, ...] = ()
    hits: tuple[str, ...] = ()


SEEN = (SeenPlace, SeenBuy, SeenRebuild, SeenMove, SeenAttack)


# -- slots ---------------------------------------------------------------------------------
def slot_id(side: str, n: int) -> str:
    """The public id of side's slot n."""
    return f"{STANDIN_PREFIX}{side}-{n}"


def parse_slot(tok: str) -> tuple[str, int]:
    """(side, number) of a slot id; OrderSyntaxError otherwise."""
    m = _SLOT.match(tok)
    if not m:
        raise OrderSyntaxError(f"bad block slot {tok!r} (expected ?allied-N or ?axis-N)")
    return m.group(1), int(m.group(2))


def slot_of(state: HoldfastState, side: str, uid: str) -> int:
    """The slot number of one of side's units on the map (a stand-in's from its key)."""
    if uid.startswith(STANDIN_PREFIX):
        return parse_slot(uid)[1]
    n = state.private[side].slots.get(uid)
    if n is None:
        raise IllegalOrder(f"{uid} has no block slot (it is not on the map)", rule="HF-9.1-b")
    return n


def key_of(state: HoldfastState, side: str, slot: str) -> str | None:
    """The key of side's unit in slot (its id once known, else the stand-in's); None if the
    state holds no unit in that slot."""
    s, n = parse_slot(slot)
    if s != side:
        return None
    priv = state.private[side]
    for uid, m in priv.slots.items():
        if m == n and uid in priv.units:
            return uid
    return slot if slot in priv.units else None


def _slots_settled(units: dict[str, UnitState], slots: dict[str, int]) -> bool:
    """True if assign_slots has nothing to do for a side: every unit on the map holds a slot,
    no other unit does, and no unit is a stand-in (most orders move no unit on or off the
    map). It runs for both sides after every order: one plain pass over the units (cheaper
    than a set of them), then C-level string operations."""
    n = len(slots)
    for k, u in units.items():
        if u.where == "map":
            if k not in slots:
                return False
            n -= 1
    # a stand-in's id starts with the prefix (another id holding NUL and the prefix only
    # sends the side to the full pass)
    return n == 0 and "\0" + STANDIN_PREFIX not in "\0" + "\0".join(units)


def assign_slots(state: HoldfastState) -> None:
    """Give every unit that stands on the map without a slot the next slot of its side (in
    unit id order); drop the slots of units that left the map, and the stand-ins that did."""
    pub = state.public
    for side in SIDES:
        priv = state.private[side]
        units, slots = priv.units, priv.slots
        if _slots_settled(units, slots):
            continue
        # one pass over the units: the stand-ins that left the map, and the units on the map
        # without a slot (dropping slots below never drops the slot of a unit on the map)
        # (called after every order of every replay: the tests are ordered cheapest first)
        gone, need = [], []
        kept = 0                       # slots held by units on the map
        for k, u in units.items():
            if u.where == "map":
                if k in slots:
                    kept += 1
                elif not k.startswith(STANDIN_PREFIX):
                    need.append(k)
            elif k.startswith(STANDIN_PREFIX):
                gone.append(k)
        for key in gone:
            del units[key]
        if kept != len(slots):         # else no slot can be dropped: each holder is on the map
            drop = [uid for uid in slots if (x := units.get(uid)) is None
                    or (x.where != "map" and x.where != KNOWN)]
            for uid in drop:
                del slots[uid]
        # called after every order: usually no unit needs a slot, so sort only those that do
        for uid in sorted(need):
            n = pub.slots.get(side, 0) + 1
            pub.slots[side] = n
            slots[uid] = n


# -- the sealed interface ------------------------------------------------------------------
def facts(state: HoldfastState, side: str) -> dict[str, Any]:
    """side's hidden facts: the unit and strength of each of its slots on the map (in a
    knowledge state of the other side, those it knows)."""
    out: dict[str, Any] = {}
    priv = state.private[side]
    for uid, n in sorted(priv.slots.items()):
        u = priv.units.get(uid)
        if u is None or u.where != "map" or uid.startswith(STANDIN_PREFIX):
            continue
        out[f"{side}-{n}.unit"] = uid
        out[f"{side}-{n}.sp"] = u.sp
    return out


def required_facts(state: HoldfastState, side: str) -> set[str]:
    """The names of side's facts any state knows exist: the unit and strength of each of its
    block slots on the map (a knowledge state holds them as stand-ins keyed by slot)."""
    priv = state.private[side]
    out: set[str] = set()
    for uid, u in priv.units.items():
        if u.where == "map":
            n = slot_of(state, side, uid)
            out |= {f"{side}-{n}.unit", f"{side}-{n}.sp"}
    return out


def conceal(state: HoldfastState, side: str) -> HoldfastState:
    """side's knowledge state: the other side's blocks on the map become stand-ins keyed by
    their slots; nothing else of its private part is kept."""
    w = world(state.public.scenario)
    o = enemy(side)
    priv = state.private[o]
    units = {}
    for uid, u in priv.units.items():
        if u.where != "map":
            continue
        k = slot_id(o, slot_of(state, o, uid))
        units[k] = UnitState(id=k, where="map", hex=u.hex, sp=w.units[k].max_sp, moved=u.moved,
                             attacked=u.attacked, placed=u.placed)
    state.private[o] = SideState(units=units, concealed=True)
    return state


def public(state: HoldfastState) -> dict[str, Any]:
    """What both sides know: the public part and every block on the map by slot and hex."""
    pub = state.public
    blocks: dict[str, Any] = {}
    for side in SIDES:
        for uid, u in state.private[side].units.items():
            if u.where == "map":
                blocks[slot_id(side, slot_of(state, side, uid))] = [u.hex, u.moved, u.attacked,
                                                                    u.placed]
    out = msgspec.to_builtins(pub)
    return {**out, "blocks": dict(sorted(blocks.items()))}


def _slot(state: HoldfastState, side: str, uid: str) -> str:
    try:
        return slot_id(side, slot_of(state, side, uid))
    except IllegalOrder:
        return slot_id(side, 99999)


def project(state: HoldfastState, side: str, order: Any) -> str:
    """The order as the other side sees it (section above), read on side's state before the
    order is applied."""
    w = world(state.public.scenario)
    units = state.private[side].units
    if isinstance(order, Place):
        n = state.private[side].slots.get(order.unit)
        u = units.get(order.unit)
        if n is None or u is None or u.where != "map":
            n = state.public.slots.get(side, 0) + 1
        return f"seen place {slot_id(side, n)} {w.resolve(order.hex) or order.hex}"
    if isinstance(order, Buy):
        try:
            cost = rf.check_buy(state, w, side, order.unit, order.steps)
        except (IllegalOrder, KeyError):
            cost = 0
        return f"seen buy {_slot(state, side, order.unit)} {order.steps} rp {cost}"
    if isinstance(order, Rebuild):
        try:
            cost = rf.check_rebuild(state, w, side, order.unit)
        except (IllegalOrder, KeyError):
            cost = 0
        return f"seen rebuild rp {cost}"
    if isinstance(order, Move):
        return _project_move(state, w, side, order)
    if isinstance(order, Attack):
        return format_seen(SeenAttack(
            hex=w.resolve(order.hex) or order.hex,
            units=tuple(_slot(state, side, u) for u in order.units),
            support=tuple(order.support), hits=tuple(_slot(state, side, u) for u in order.hits)))
    from pbem.games.holdfast.orders import format_order

    return format_order(order)      # 'end', and an allocation: the combat revealed its units


def _project_move(state: HoldfastState, w: World, side: str, order: Move) -> str:
    u = state.private[side].units.get(order.unit)
    start = u.hex if u is not None else ""
    path = [w.resolve(t) or t for t in order.path]
    if path and path[0] == start:
        path = path[1:]
    return format_seen(SeenMove(slot=_slot(state, side, order.unit), path=(start, *path),
                                strategic=order.strategic))


def reveals(state: HoldfastState, side: str, order: Any) -> list[tuple[str, str]]:
    """An attack opens the unit and strength of every attacking block and of the defender."""
    if isinstance(order, Attack):
        mine = [slot_of(state, side, u) for u in order.units
                if state.private[side].units.get(u) is not None
                and state.private[side].units[u].where == "map"]
        target = world(state.public.scenario).resolve(order.hex)
    elif isinstance(order, SeenAttack):
        mine = [parse_slot(s)[1] for s in order.units]
        target = order.hex
    else:
        return []
    foe = enemy(side)
    out = [(side, f"{side}-{n}.{what}") for n in mine for what in ("unit", "sp")]
    for uid, u in sorted(state.private[foe].units.items()):
        if u.where == "map" and u.hex == target:
            n = slot_of(state, foe, uid)
            out += [(foe, f"{foe}-{n}.unit"), (foe, f"{foe}-{n}.sp")]
    return out


def disclose(state: HoldfastState, owner: str, opened: dict[str, Any]) -> None:
    """Write opened facts of owner's slots into a knowledge state: a stand-in takes its unit's
    id and strength (facts of the other side, or of unknown units, are ignored)."""
    w = world(state.public.scenario)
    priv = state.private[owner]
    if not priv.concealed:
        return                  # owner's real part (its own processor): it holds them already
    ordered = sorted(opened.items(), key=lambda kv: (not kv[0].endswith(".unit"), kv[0]))
    for fact, value in ordered:
        name, _, what = fact.partition(".")
        m = _SLOT.match(f"?{name}")      # the one spelling of a slot: no 'axis-01' alias
        if m is None or m.group(1) != owner:
            continue
        n = int(m.group(2))
        key = key_of(state, owner, slot_id(owner, n))
        if what == "unit":
            if not isinstance(value, str) or value not in w.units or \
                    w.units[value].side != owner:
                continue
            if key == value:
                continue
            if key is not None and key.startswith(STANDIN_PREFIX):
                u = priv.units.pop(key)
                u.id = value
                priv.units[value] = u
                _rename(priv, key, value)
            elif value not in priv.units or priv.units[value].where == "map":
                priv.units[value] = UnitState(id=value, where=KNOWN)
            else:
                priv.units[value].where = KNOWN
            for uid in [x for x, m in priv.slots.items() if m == n]:
                del priv.slots[uid]
            priv.slots[value] = n
        elif what == "sp" and isinstance(value, int) and key is not None and \
                not key.startswith(STANDIN_PREFIX):
            priv.units[key].sp = value


def _rename(priv: SideState, old: str, new: str) -> None:
    """A stand-in renamed to its unit: its minor port claims and pending hits follow it."""
    for port, holder in list(priv.minor_ports.items()):
        if holder == old:
            priv.minor_ports[port] = new
    ph = priv.pending_hits
    if ph is not None:
        ph.attackers = [new if u == old else u for u in ph.attackers]
        ph.crossing = [new if u == old else u for u in ph.crossing]


def standing_answers(state: HoldfastState, side: str, decision: Decision) -> list[str] | None:
    """The allocation side's standing 'hits' order gives for its pending hits (HF-G7)."""
    if decision.kind != "allocate":
        return None
    mode = answer(state.private[side].standing, "hits")
    pending = state.private[side].pending_hits
    if mode is None or pending is None:
        return None
    w = world(state.public.scenario)
    return ["allocate " + ",".join(combat.standing_allocation(state, w, side, pending.attackers,
                                                             mode))]


# -- notation ------------------------------------------------------------------------------
def parse_seen(text: str) -> Any:
    """Parse a projection line ('seen ...'); OrderSyntaxError if it is not one."""
    t = text.strip().lower().split()
    if len(t) < 2 or t[0] != "seen":
        raise OrderSyntaxError(f"not a projection: {text!r}")
    verb, a = t[1], t[2:]
    if verb == "place" and len(a) == 2:
        parse_slot(a[0])
        return SeenPlace(slot=a[0], hex=a[1])
    if verb == "buy" and len(a) == 4 and a[1].isdigit() and a[2] == "rp" and a[3].isdigit():
        parse_slot(a[0])
        return SeenBuy(slot=a[0], steps=int(a[1]), rp=int(a[3]))
    if verb == "rebuild" and len(a) == 2 and a[0] == "rp" and a[1].isdigit():
        return SeenRebuild(rp=int(a[1]))
    if verb == "move" and len(a) in (2, 3) and a[2:] in ([], ["strat"]):
        parse_slot(a[0])
        return SeenMove(slot=a[0], path=tuple(a[1].split("-")), strategic=a[2:] == ["strat"])
    if verb == "attack" and len(a) >= 3 and a[1] == "with":
        groups: dict[str, list[str]] = {"with": [], "support": [], "hits": []}
        cur = "with"
        for tok in a[2:]:
            if tok in groups and tok != "with":
                cur = tok
                continue
            groups[cur] += [x for x in tok.split(",") if x]
        for g in ("with", "hits"):
            for x in groups[g]:
                parse_slot(x)
        return SeenAttack(hex=a[0], units=tuple(groups["with"]), support=tuple(groups["support"]),
                          hits=tuple(groups["hits"]))
    raise OrderSyntaxError(f"cannot read projection {text.strip()!r}")


def format_seen(o: Any) -> str:
    """The canonical text of a projection."""
    if isinstance(o, SeenPlace):
        return f"seen place {o.slot} {o.hex}"
    if isinstance(o, SeenBuy):
        return f"seen buy {o.slot} {o.steps} rp {o.rp}"
    if isinstance(o, SeenRebuild):
        return f"seen rebuild rp {o.rp}"
    if isinstance(o, SeenMove):
        return f"seen move {o.slot} {'-'.join(o.path)}" + (" strat" if o.strategic else "")
    if isinstance(o, SeenAttack):
        out = f"seen attack {o.hex} with {' '.join(o.units)}"
        out += f" support {' '.join(o.support)}" if o.support else ""
        return out + (f" hits {','.join(o.hits)}" if o.hits else "")
    raise TypeError(f"not a Holdfast projection: {o!r}")


# -- applying a projection on a knowledge state ----------------------------------------------
def apply_seen(state: HoldfastState, w: World, side: str, order: Any, ctx: Context) -> None:
    """Apply the other side's projected order to a knowledge state: its public effects, with
    the checks that read only public facts (the hidden ones are the final replay's)."""
    pub = state.public
    if not state.private[side].concealed:
        raise IllegalOrder("a 'seen ...' line is what the other side sees of an order in a "
                           "sealed game, not an order", rule="PBEM-SEALED")
    if pub.phase == "over":
        raise IllegalOrder("the game is over", rule="HF-11-c")
    if side != pub.active:
        raise IllegalOrder(f"it is the {pub.active} player's decision, not the {side}'s",
                           rule="HF-5-d")
    if pub.phase == "allocate":
        raise IllegalOrder("the hits of the last combat must be allocated first",
                           rule="HF-9.4-g")
    if pub.phase == "setup" and not isinstance(order, SeenPlace):
        raise IllegalOrder("during set-up only 'place' and 'end' are possible", rule="HF-12.1-a")
    if isinstance(order, SeenPlace):
        _place(state, side, order, ctx)
    elif isinstance(order, (SeenBuy, SeenRebuild)):
        if pub.step == "act":
            raise IllegalOrder("steps and units are bought before units are activated",
                               rule="HF-5-b" if side == "allied" else "HF-5-c")
        if pub.rp[side] < order.rp:
            raise IllegalOrder(f"{order.rp} RP needed; {pub.rp[side]} RP left", rule="HF-6-d")
        _check_price(state, w, side, order)
        if isinstance(order, SeenBuy):
            key = _on_map(state, side, order.slot)
            if not key.startswith(STANDIN_PREFIX):
                state.private[side].units[key].sp += order.steps
                state.private[side].units[key].bought += order.steps
        else:
            if pub.lost.get(side, 0) <= 0:
                raise IllegalOrder(f"{side} has no block eliminated in combat left to buy back "
                                   "(the eliminations are public, and each is rebuilt)",
                                   rule="HF-8.2-c")
            pub.lost[side] -= 1
            rf.add_due(state, side, 1)      # the unit bought back is placeable next turn
        pub.rp[side] -= order.rp
        pub.step = "buy"
        ctx.log(f"{side} spends {order.rp} RP on replacements")
    elif isinstance(order, SeenMove):
        _move(state, w, side, order, ctx)
    else:
        _attack(state, w, side, order, ctx)


def _check_price(state: HoldfastState, w: World, side: str, o: SeenBuy | SeenRebuild) -> None:
    """The RP a projected purchase states must be a price the rules can give (HF-6-e, HF-8.2-b):
    for a block whose type is hidden, between the infantry and the armor price (public), for
    one opened, its own; the final replay checks the real order."""
    from pbem.games.holdfast.reinforcement import step_cost

    pub = state.public
    steps = o.steps if isinstance(o, SeenBuy) else 1
    kind = "step" if isinstance(o, SeenBuy) else "unit"
    if steps < 1:
        raise IllegalOrder(f"a purchase of {steps} steps", rule="HF-6-e")
    prices = sorted({steps * w.rp_cost(f"{kind}_{t}", side, pub.turn)
                     for t in ("infantry", "armor")})
    if isinstance(o, SeenBuy):
        key = _on_map(state, side, o.slot)
        if not key.startswith(STANDIN_PREFIX):
            prices = [steps * step_cost(w, side, key, pub.turn, False)]
    if o.rp not in prices:
        raise IllegalOrder(f"{o.rp} RP is not a price of {steps} {kind}"
                           f"{'s' if steps > 1 else ''} ({' or '.join(map(str, prices))} RP)",
                           rule="HF-6-e")


def _on_map(state: HoldfastState, side: str, slot: str) -> str:
    key = key_of(state, side, slot)
    if key is None or state.private[side].units[key].where != "map":
        raise IllegalOrder(f"no {side} block in slot {slot}", rule="HF-9.1-b")
    return key


def _place(state: HoldfastState, side: str, o: SeenPlace, ctx: Context) -> None:
    pub = state.public
    s, n = parse_slot(o.slot)
    if s != side:
        raise IllegalOrder(f"{o.slot} is not a {side} slot", rule="HF-8.1-a")
    if pub.phase != "setup" and pub.step != "place":
        raise IllegalOrder("units are placed before steps are bought and units activated",
                           rule="HF-5-b" if side == "allied" else "HF-5-c")
    priv = state.private[side]
    key = key_of(state, side, o.slot)
    w = world(pub.scenario)
    _check_place_public(state, w, side, o.hex, key)
    arrives = key is None or priv.units[key].where != "map"
    if arrives:
        _check_due(state, side, o.slot)
    elif pub.phase != "setup":
        raise IllegalOrder(f"{o.slot} is on the map, not on the turn track", rule="HF-8.1-a")
    if key is None:
        if n != pub.slots.get(side, 0) + 1:
            raise IllegalOrder(f"{o.slot} is not {side}'s next slot", rule="HF-8.1-a")
        key = o.slot
        priv.units[key] = UnitState(id=key, where="map", sp=w.units[key].max_sp)
    if arrives:
        rf.add_due(state, side, -1)
    u = priv.units[key]
    u.where, u.hex = "map", o.hex
    pub.slots[side] = max(pub.slots.get(side, 0), n)
    if pub.phase != "setup":
        pub.seq += 1
        u.placed = pub.seq
        ctx.log(f"an {side} block appears in {o.hex}", hexes=(o.hex,))


def _check_due(state: HoldfastState, side: str, slot: str) -> None:
    """A block may appear only while side has a unit to place (public: the set-up list, the
    turn track, rebuilds and units sent back by overstacking, PublicState.due); which unit it
    is, and whether that one may enter here, is the final replay's."""
    pub = state.public
    if pub.due.get(side, 0) > 0:
        return
    if pub.phase == "setup":
        raise IllegalOrder(f"{slot}: every {side} set-up unit is already placed",
                           rule="HF-12.1-a")
    raise IllegalOrder(f"{slot}: {side} has no unit left to place on turn {pub.turn} (the "
                       "units due on the turn track, delayed, rebought or sent back by "
                       "overstacking are public, and all of them are placed)", rule="HF-8.1-a")


def _check_place_public(state: HoldfastState, w: World, side: str, hex_id: str,
                        key: str | None) -> None:
    """The checks of a placement that read no hidden fact (rf.check_place and
    rf.check_setup_place make them on the real unit): a map hex, not prohibited, no other
    block there (an enemy's, HF-8.1-e; at set-up any other, HF-9.1-c) and, after set-up, an
    entry hex in supply (_check_entry_public)."""
    if w.resolve(hex_id) != hex_id:
        raise IllegalOrder(f"unknown hex {hex_id!r}", rule="HF-8.1-a")
    if hex_id in w.prohibited:
        raise IllegalOrder(f"{hex_id} is prohibited terrain", rule="HF-TEC-a")
    there = side_at(state, hex_id)
    if state.public.phase == "setup":
        u = state.private[side].units.get(key) if key else None
        if there is not None and not (u is not None and u.where == "map" and u.hex == hex_id):
            raise IllegalOrder(f"{hex_id} is already occupied", rule="HF-9.1-c")
    elif there not in (None, side):
        raise IllegalOrder(f"{hex_id} holds an enemy block", rule="HF-8.1-e")
    else:
        _check_entry_public(state, w, side, hex_id)


def _check_entry_public(state: HoldfastState, w: World, side: str, hex_id: str) -> None:
    """A reinforcement's entry as far as public facts decide it (rf.check_place, on the real
    unit, is stricter): some combat unit of side may enter at hex_id now (the entry hexes
    depend on the unit's kind), and a block there could trace supply (every minor port it
    reaches read as free: the claims are the side's own)."""
    allowed: set[str] = set()
    for uid, spec in w.units.items():
        if spec.side == side and spec.type != "support":
            allowed |= rf.entry_hexes(state, w, side, uid)
    if hex_id not in allowed:
        raise IllegalOrder(f"no {side} unit may enter at {w.label(hex_id)} now",
                           rule="HF-8.1-b" if side == "axis" else "HF-8.1-c")
    if side == "allied" and hex_id in w.west_edge and hex_id not in w.entry["allied"]:
        return                                  # the west-edge fallback (HF-10-i)
    net = net_for(state, w, side, extra=hex_id)
    if not (net.major_supplied(hex_id) or net.minor_options(hex_id)):
        raise IllegalOrder(f"a unit placed in {hex_id} would be out of supply", rule="HF-8.1-e")


def most_steps(w: World, side: str, weather: str, strategic: bool) -> int:
    """The most hexes any block of side may move in one activation, from public data: the
    largest allowance of its types (in supply, with a leader) over the cheapest step (a road:
    no hex costs less). A hidden move is checked against it on receipt; its real MP at the end."""
    from pbem.games.holdfast.movement import allowance

    def make() -> int:        # scenario data only: memoised (it reads every unit's type)
        mp = max((allowance(w, u, weather=weather, supplied=True, leader=True,
                            strategic=strategic)
                  for u in w.units.values() if u.side == side and u.type != "support"),
                 default=0)
        cheapest = min([w.tables.road_mp, *(min(r.mp_infantry, r.mp_armor)
                                            for r in w.tables.hex.values())])
        return mp // max(cheapest, 1)
    return w.cached("most-steps", (side, weather, strategic), make)


def _move(state: HoldfastState, w: World, side: str, o: SeenMove, ctx: Context) -> None:
    pub = state.public
    key = _on_map(state, side, o.slot)
    u = state.private[side].units[key]
    if u.moved:
        raise IllegalOrder(f"{o.slot} has already moved this turn", rule="HF-9-a")
    if pub.rp[side] < w.rp_cost("activate_move"):
        raise IllegalOrder("no RP left to move", rule="HF-9.1-a")
    if not o.path or o.path[0] != u.hex or len(o.path) < 2:
        raise IllegalOrder(f"{o.slot} is not in {o.path[0] if o.path else '?'}",
                           rule="HF-9.1-b")
    if o.strategic and not w.strategic_allowed(pub.turn):
        raise IllegalOrder("no strategic movement on turns 1 and 2", rule="ERR-HF-9.3")
    supplied = in_supply(state, w, side, key)
    if o.strategic and not supplied:
        raise IllegalOrder(f"{o.slot} is out of supply: no strategic movement", rule="HF-9.3-a")
    path = list(o.path[1:])
    most = most_steps(w, side, pub.weather, o.strategic)
    if len(path) > most:
        raise IllegalOrder(f"{o.slot} moves {len(path)} hexes: no {side} block moves more than "
                           f"{most} this turn{' strategically' if o.strategic else ''} (its "
                           "type is hidden, the longest any may move is public)", rule="HF-9.1-b")
    check_path(state, w, side, key, path, MOVE_FAR, o.strategic)
    if supplied:
        in_supply(state, w, side, key, claim=True)
    u.hex, u.moved = path[-1], True
    pub.rp[side] -= w.rp_cost("activate_move")
    pub.step = "act"
    pub.moves.append(MoveSeen(side=side, path=list(o.path)))
    ctx.log(f"an {side} block moves {'-'.join(o.path)}", kind="move", hexes=tuple(o.path))
    if supplied:                      # ERR-HF-2: an in-supply unit takes the bases it enters
        control = pub.control
        for h in path if pub.options["base_capture"] == "enter" else path[-1:]:
            if h in control and control[h] != side:
                control[h] = side
                ctx.log(f"the {side} take control of {w.label(h)}", kind="control", hexes=(h,))


def _attack(state: HoldfastState, w: World, side: str, o: SeenAttack, ctx: Context) -> None:
    pub = state.public
    priv = state.private[side]
    keys = []
    # every public check of combat.check_attack, so that the receiver refuses (or, after
    # dice, skips) exactly what the writer's processor refuses, before it owes any opening
    if not o.units:
        raise IllegalOrder("an attack needs at least one attacking block", rule="HF-9.4-b")
    for s in o.units:
        k = _on_map(state, side, s)
        if k.startswith(STANDIN_PREFIX):
            raise IllegalOrder(f"attacking block {s} was not opened", rule="HF-9.4-d")
        if priv.units[k].attacked:
            raise IllegalOrder(f"{k} has already attacked this turn", rule="HF-9-a")
        if overstacked(state, side, priv.units[k].hex):
            raise IllegalOrder(f"{k} is in an overstacked hex and cannot attack",
                               rule="HF-9.4-j")
        keys.append(k)
    if o.hits and sorted(o.hits) != sorted(o.units):
        raise IllegalOrder("'hits' must list each attacking unit once", rule="HF-9.4-f")
    foe = enemy(side)
    target = o.hex
    defender = next((u.id for u in map_units(state, foe) if u.hex == target), None)
    if defender is None:
        raise IllegalOrder(f"{target} holds no enemy block", rule="HF-9.4-a")
    for k in keys:
        if not w.adjacent(priv.units[k].hex, target) or w.zoc_blocked(priv.units[k].hex, target):
            raise IllegalOrder(f"{target} is not in the ZOC of {k}", rule="HF-9.4-a")
    for sid in o.support:
        if sid not in w.units or w.units[sid].type != "support" or w.units[sid].side != side:
            raise IllegalOrder(f"{sid} is not a {side} support unit", rule="HF-9.4-b")
        if not _support_arrived(w, sid, pub.turn):
            raise IllegalOrder(f"{sid} has not arrived", rule="HF-9.4-b")
    kinds = combat.check_support(state, w, o.support,
                                 lambda sid: sid in priv.units and priv.units[sid].used)
    for sid in o.support:
        priv.units.setdefault(sid, UnitState(id=sid, where="offmap"))
    supplied, claims = activation_supply(state, w, side, keys, net_for(state, w, side))
    nats = {w.units[k].nationality for k in keys}
    if pub.options["joint_support"] == "count":
        nats |= {w.units[s].nationality for s in o.support}
    cost = w.rp_cost("joint_attack" if len(nats) > 1 else "attack")
    if pub.rp[side] < cost:
        raise IllegalOrder(f"the attack costs {cost} RP; {pub.rp[side]} RP left", rule="HF-6-d")
    dice = {k: combat.unit_dice(w, k, priv.units[k].hex, target, supplied[k]) for k in keys}
    air = 1 + getattr(w.units[kinds["air"]], "die_modifier", 1) if "air" in kinds else 0
    combat.check_some_dice(state, dice, sum(1 for k in kinds if k in ("leader", "team")), air)
    crossing = [k for k in keys if any(
        getattr(w.tables.hexside[x], "bonus_hits_to_crosser", x == "bridge")
        for x in w.side_kinds(priv.units[k].hex, target))]
    hits = [key_of(state, side, s) or s for s in o.hits]
    plan = combat.Plan(hex=target, defender=defender, units=keys, support=list(o.support),
                       supplied=supplied, dice=dice, crossing=crossing, air=air,
                       extra=sum(1 for k in kinds if k in ("leader", "team")), cost=cost,
                       hits=hits, claims=claims)
    combat.resolve(state, w, side, plan, ctx)


def _support_arrived(w: World, sid: str, turn: int) -> bool:
    """True if a support unit is in play on game turn turn: set up at the start, or due on the
    turn track by then (public: support units arrive off the map when due, HF-5-b/c, as
    sequence.new_state and start_player_turn place them)."""
    sc = w.scenario
    if any(p.unit == sid for p in sc.setup):
        return True
    return any(sid in (*w.turns[t].allied, *w.turns[t].axis)
               for t in range(sc.first_turn, min(turn, sc.last_turn) + 1))


def canonical_lines(game: Any, state: HoldfastState, side: str, lines: list[str],
                    secret: bytes = b"") -> list[str]:
    """side's checked order lines as a sealed file signs them: each run of placements in the
    canonical order of the set, never the order written (placement_order)."""
    try:
        orders = [parse_line(game, x) for x in lines]
    except OrderError:
        return list(lines)
    runs: list[list[int]] = []
    last = -2                         # the latest placement; standing lines do not part runs
    for k, o in enumerate(orders):
        if isinstance(o, Place):
            between = orders[last + 1:k] if last >= 0 else [None]
            if runs and all(isinstance(x, StandingOrder) for x in between):
                runs[-1].append(k)
            else:
                runs.append([k])
            last = k
    runs = [r for r in runs if len(r) > 1]
    perm = placement_order(game, state, side, orders, runs, secret) if runs else None
    return list(lines) if perm is None else [lines[k] for k in perm]


def _played(game: Any, state: HoldfastState, side: str, orders: list[Any],
            perm: list[int]) -> tuple[int, HoldfastState, bool]:
    """perm's orders up to the first die or refusal: how many ran, the state then, and
    whether an order was refused (not a die)."""
    st = clone(state)
    for i, k in enumerate(perm):
        if isinstance(orders[k], StandingOrder):
            continue                      # sealed: a hidden policy, no store changes
        try:
            apply_order(game, st, side, orders[k], Context(NoDice(), action=i))
        except NeedsDice:
            return i, st, False
        except OrderError:
            return i, st, True
    return len(perm), st, False


def _outcome(st: HoldfastState, side: str, ran: int, later: frozenset[str]) -> tuple:
    """What a file of side's orders did up to its first die (ran: the orders played): where
    every unit is, with its strength, and of each hex holding two or more blocks those that
    may stay when the turn ends, in the order placed (HF-8.1-f: the first placed stays; if
    it moves out after the die, the next does): the first, and while one is named by an
    order after the die (later), the next too. Placements that play to the same outcome in
    another order differ only in their slots."""
    units = st.private[side].units
    where = tuple(sorted((k, u.where, u.hex, u.sp) for k, u in units.items()))
    by_hex: dict[str, list[tuple[int, str]]] = {}
    for k, u in units.items():
        if u.where == "map":
            by_hex.setdefault(u.hex, []).append((u.placed, k))
    stacks = []
    for h, us in sorted(by_hex.items()):
        if len(us) > 1:
            placed = [k for _, k in sorted(us)]
            n = next((n for n, k in enumerate(placed) if k not in later), len(placed) - 1)
            stacks.append((h, tuple(placed[:n + 1])))
    return ran, where, tuple(stacks)


def placement_order(game: Any, state: HoldfastState, side: str, orders: list[Any],
                    runs: list[list[int]], secret: bytes = b"", budget: int = 4000
                    ) -> list[int] | None:
    """The order a sealed file signs side's orders in (indices into orders), each run of
    placements (runs) rearranged; None to sign them as written.

    A placed block takes the next slot of its side and the other side sees one 'seen place'
    per placement, in order: in the order written, slots would say which due unit is which
    block (the bots, and a player who lists his units as his report does, write them in unit
    id order). So each run is signed in the first order, by a canonical key, that plays out
    as the written one up to the file's first die (the same orders run, every unit where the
    written order puts it, the same block first in each stack, and the next while an order
    after the die may move it out): the smallest legal placement next, backtracking where a choice would make a later placement illegal or change what
    the file does. It reads the placements as a set, the position and what the file does,
    never the order written, which is one order that plays out: the search always finds one.
    The written order is kept only where a placement of it is refused before the first die
    (no file to sign), after budget placements tried, or in a file of more than
    MAX_PLACEMENTS placements (never met in play). The key is the
    hex, then a hash of the unit keyed with secret (the writer's: the other side cannot
    recompute it); in a hex the units that stay in a stack or go back to the track from it
    (HF-8.1-f) come after those that part before the first die, those that may stay first
    in the order placed (the first placed stays at the end of the turn, or the next if it
    moves out after the die: the file's choice), so the slot of a block moving out of a
    stack before the die does not tell which one moved. A set-up unit placed again keeps its
    placements in their order (the last counts). A run after
    the first die is signed in key order."""
    run_of = {k: r for r in runs for k in r}
    if len(run_of) > MAX_PLACEMENTS:
        return None                       # the search walks one frame a placement
    ran, first, refused = _played(game, state, side, orders, list(range(len(orders))))
    if refused and ran in run_of:
        return None
    # the units an order after the first die names (one may move out of a stack)
    later = frozenset(x for o in orders[ran:] for x in (getattr(o, "unit", None),
                                                        *getattr(o, "units", ()))
                      if isinstance(x, str))
    search = _PlacementSearch(game, side, orders, runs, run_of, first,
                              _outcome(first, side, ran, later), later, secret, budget)
    try:
        return search.walk(0, clone(state), list(range(len(orders))), frozenset(), ())
    except _Budget:
        return None


class _PlacementSearch:
    """placement_order's search (module-level, not nested closures: a nested function that
    calls itself keeps what it reads alive, tests/core/test_console.py)."""

    def __init__(self, game: Any, side: str, orders: list[Any], runs: list[list[int]],
                 run_of: dict[int, list[int]], first: HoldfastState, target: tuple,
                 later: frozenset[str], secret: bytes, budget: int) -> None:
        self.game, self.side, self.orders, self.runs, self.run_of = game, side, orders, runs, run_of
        self.w = world(first.public.scenario)
        self.target, self.secret, self.left = target, secret, budget
        self.at = first.private[side].units
        self.crowded = {h for h, n in _counts(u.hex for u in self.at.values()
                                              if u.where == "map").items() if n > 1}
        self.later = later
        # a stack's blocks that may stay (_outcome), in the order placed: unit -> (hex, rank)
        self.stays = dict(target[2])
        self.rank = {u: (h, n) for h, us in target[2] for n, u in enumerate(us)}
        self.index = {orders[k].unit: k for k in run_of}
        # (position, units placed, their order by the hexes of tags): reached, and no order
        # from there plays out as written. Only the order of placements that meet in a hex can
        # change the outcome; where moves after them meet units of other hexes too, this may
        # prune an order that would have played out: the search then takes a later one (still
        # read from the set, never from the order written) or gives up (as written)
        self.dead: set[tuple] = set()

    def hexof(self, k: int) -> str:
        """The hex placement k names."""
        return self.w.resolve(self.orders[k].hex) or self.orders[k].hex

    def key(self, k: int) -> tuple:
        """The canonical key of placement k (hex, held in a stack or not, keyed hash)."""
        u = self.at.get(self.orders[k].unit)
        held = u is not None and (u.where == "track" or (u.where == "map"
                                                         and u.hex in self.crowded))
        if held and u.where == "map" and u.id in self.rank:
            # a block that may stay: in the order placed (which one stays is the file's choice)
            return (self.hexof(k), 1, 0, self.rank[u.id][1])
        return (self.hexof(k), int(held), 1, hmac.new(
            self.secret, b"pbem/v1/holdfast-place-order|" + self.orders[k].unit.encode(),
            hashlib.sha256).digest())

    def too_soon(self, k: int, used: frozenset[int]) -> bool:
        """k ends in a stack (at the first die) where a block that may stay and is placed
        before it, one of these placements, is not placed yet: placed now, k would come
        before it."""
        u = self.at.get(self.orders[k].unit)
        if u is None or u.where != "map" or u.hex not in self.stays:
            return False
        first = self.stays[u.hex][:self.rank[u.id][1]] if u.id in self.rank else self.stays[u.hex]
        return any(f in self.index and self.index[f] not in used for f in first)

    def before(self, k: int, used: frozenset[int]) -> bool:
        """k places a unit that an unused placement of the run places earlier (a set-up unit
        placed again: its placements keep their order, the last one counts)."""
        return any(j < k and j not in used and self.orders[j].unit == self.orders[k].unit
                   for j in self.run_of[k])

    def filled(self, perm: list[int], used: frozenset[int], i: int) -> list[int]:
        """perm with the run positions from i on given the unused units in key order (a
        unit placed again after its earlier placements)."""
        out = list(perm)
        for r in self.runs:
            todo = sorted((k for k in r if k not in used), key=self.key)
            for u in {self.orders[k].unit for k in todo}:
                at_u = [n for n, k in enumerate(todo) if self.orders[k].unit == u]
                for n, k in zip(at_u, sorted(todo[n] for n in at_u)):
                    todo[n] = k
            for pos in (p for p in r if p >= i):
                out[pos] = todo.pop(0)
        return out

    def tags(self, k: int) -> set[str]:
        """The hexes where k's order among the placements can matter: where it is placed,
        and where it is at the first die (stacks, and which of a stack goes back, read it)."""
        u = self.at.get(self.orders[k].unit)
        return {self.hexof(k), u.hex if u is not None and u.where == "map" else self.hexof(k)}

    def walk(self, i: int, st: HoldfastState, perm: list[int], used: frozenset[int],
             stacks: tuple) -> list[int] | None:
        """The first order of the run positions from i on that plays out as the written one
        from st (the state after position i - 1); None if none does. stacks: the units of
        the runs placed so far by the hexes of tags, in order."""
        game, side, orders, run_of = self.game, self.side, self.orders, self.run_of
        while i < len(orders) and i not in run_of:
            if not isinstance(orders[i], StandingOrder):
                try:
                    apply_order(game, st, side, orders[i], Context(NoDice(), action=i))
                except (NeedsDice, OrderError):
                    break
            i += 1
        if i == len(orders) or i not in run_of:       # the end, or the first die
            return (self.filled(perm, used, i) if _outcome(st, side, i, self.later) == self.target
                    else None)
        for k in sorted((k for k in run_of[i] if k not in used), key=self.key):
            if self.too_soon(k, used) or self.before(k, used):
                continue
            grown = dict(stacks)
            for h in self.tags(k):
                grown[h] = (*grown.get(h, ()), k)
            nxt, now = tuple(sorted(grown.items())), used | {k}
            if (i, now, nxt) in self.dead:
                continue
            self.left -= 1
            if self.left < 0:
                raise _Budget
            sub, mine = clone(st), [*perm[:i], k, *perm[i + 1:]]
            try:
                apply_order(game, sub, side, orders[k], Context(NoDice(), action=i))
            except NeedsDice:
                got = (self.filled(mine, now, i + 1)
                       if _outcome(sub, side, i, self.later) == self.target else None)
            except OrderError:
                continue                  # not here: the same units may come by another way
            else:
                got = self.walk(i + 1, sub, mine, now, nxt)
            if got is not None:
                return got
            self.dead.add((i, now, nxt))
        return None


MAX_PLACEMENTS = 256     # placements in a file's runs that placement_order reorders (no side
                         # has as many units; a set-up unit may be placed again and again)


class _Budget(Exception):
    """placement_order tried as many placements as it may."""


def _counts(items: Any) -> dict[Any, int]:
    """How many times each item occurs."""
    out: dict[Any, int] = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out


def hidden_legality(order: Any) -> bool:
    """True for an order whose legality reads its writer's hidden facts (MP, steps by type,
    entry hexes by nationality): only the writer's processor can check it (docs/sealed.md 5g)."""
    return isinstance(order, (Place, Buy, Rebuild, Move, SeenPlace, SeenBuy, SeenRebuild,
                              SeenMove))
