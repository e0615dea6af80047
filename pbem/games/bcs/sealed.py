"""Baptism By Fire in sealed mode: groundwork (docs/sealed.md section 5h, port in progress).

Pure functions over the state, as Holdfast's and Kasserine's sealed modules are; the engine
(engine.py) delegates the sealed interface to them. ``BcsState`` holds the slot table and the
flag ``sealed``, which marks every state of a sealed game (the house option ``sealed_game``, set
by ``sealed_options``), the full state of the final replay included: there the rules read the
Axis's Victory Objective only once opened (``objective.opened_only``).

**Slots.** The other side knows a combat unit on the map only by its public slot ``axis-7``:
a number given when the unit comes onto the map (the set-up, an arrival, a unit back from
Support or from off the map), next of its side, kept while it stays on the map. A stack is
followed by its slots without its contents; a slot's unit, face and Formation (while it is
not the top, 5.5e) and its steps are the slot's facts:

    axis-7.unit    the counter id            (a fact while under the top)
    axis-7.face    move | deployed           (a fact while under the top)
    axis-7.formation  its Formation          (a fact while under the top)
    axis-7.mp      {mp, stopped}: MP spent, STOP (under the top, once it moved in the Activation)
    axis-7.steps   steps remaining            (always hidden, 1.5a)

and, per side: ``S.air`` (Air Points), ``S.arty`` (the pool, the free points and the points
assigned to each HQ, 8.0d), ``S.rebuilding`` (9.4c), ``S.pd.FORMATION`` (Prepared Defense,
1.5b), ``S.support.FORMATION.I.unit|steps`` (the units in Support, 9.2: the markers are public,
the units are not), ``S.off`` (the steps of each unit off the map, one fact: the
scenario's order of arrival is printed), ``S.offmap.FORMATION`` (the held Entry hexes beside
which its units waiting off the map could attack or spot, 9.3f: ``{"attack": [], "spot": []}``
unless an enemy unit holds one), and ``axis.objective``: the Axis's Victory Objective,
a private draw (docs/sealed.md 5a) that his processor alone holds, opened by his order
``open objective`` when the rules need it (objective.py).

**Projections.** An order travels as written with every one of the sender's combat units on
the map named by its slot (``move slot-axis-7+slot-axis-9 B15.09 B16.09``); off-map units, HQs,
Trains, hexes and Formations by their ids; an Activation without the Prepared Defense it makes;
a unit entering unseen under another top by the slot it will hold, with its arrival
(``... arrivals axis-12=2:H``: the other processor takes a unit of that arrival from its pool).
``reveals`` opens what the rules show (docs/sealed.md 5h lists them and what is still open). ``resolve_slots`` maps the slot tokens back to the
pieces a state holds (the real unit, or a knowledge state's stand-in
``TOP--standinN``, N the slot) before the engine applies the order.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from pbem.core.dice import NoDice
from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.game import Context, NeedsDice
from pbem.games.bcs.assignment import SEEN_ARTY
from pbem.games.bcs.board import (air_bound, by_hex as pieces_by_hex, face, has_zoc, is_av,
                                  mclass, printed_ma)
from pbem.games.bcs.loader import STANDIN_MARK
from pbem.games.bcs.objective import OBJECTIVES
from pbem.games.bcs.replacements import REBUILT, SEEN
from pbem.games.bcs.snafu import OFF_MAP, off_map_entries
from pbem.games.bcs.state import (SIDES, BcsState, Piece, SidePrivate, Smoothing, arrival_group,
                                  other)
from pbem.games.bcs.support import (has_access, in_support, markers, stand_off_range,
                                    temp_dropped)
from pbem.games.bcs.view import build_view, secrets, top_unit
from pbem.games.bcs.zoc import VISIBILITY

TOKEN = "slot-"                              # a slot in an order: slot-axis-7
_TOKEN = re.compile(r"^slot-(allied|axis)-([1-9][0-9]{0,4})$")
_FACT = re.compile(r"^(allied|axis)-([1-9][0-9]{0,4})\.(unit|face|steps|formation|pd|mp)$")
#: A STOP a unit executed, as an opened `.mp` fact may name it: a BCS rule id or none.
_STOP = re.compile(r"^(BCS-[0-9]{1,2}\.[0-9]{1,2}[a-z]?(-[0-9])?)?$")
_MAX_MP = 12 * 40     # MP12: far above any MA (16 MP at most), so a larger value is malformed
_OWN_FACT = re.compile(r"^(allied|axis)(-[1-9][0-9]{0,4}\.(unit|face|steps|formation|mp)"
                       r"|\.((pd|offmap)\.[a-z0-9-]+|objective))$")
SEALED_RULE = "PBEM-SEALED"
_SEEN_ITEM = re.compile(r"^[a-z0-9][a-z0-9/-]*@[A-Z][0-9]{1,2}\.[0-9]{2}$")
_WORD = re.compile(r"[a-z0-9][a-z0-9-]*")
#: a unit entering unseen and its arrival (``arrival_group``: its turn and Entry hexes)
_ARRIVAL = re.compile(r"^((allied|axis)-[1-9][0-9]{0,4})=([0-9]{1,3}:[A-Za-z0-9:.,-]*)$")
OBJECTIVE_FACT = "objective"                 # axis.objective: his drawn Victory Objective


# -- slots ---------------------------------------------------------------------------------
def _map_units(state: BcsState, side: str) -> list[Piece]:
    return [p for p in state.pieces.values()
            if p.side == side and p.kind == "unit" and p.status == "map"]


def slot_name(side: str, n: int) -> str:
    """The public name of side's slot n (the prefix of its facts)."""
    return f"{side}-{n}"


def assign_slots(state: BcsState) -> None:
    """Drop the slots of units that left the map; give each unit on the map without one the next
    slot of its side (several at once: by hex, then the top first, then by id)."""
    for side in SIDES:
        slots = state.slots.setdefault(side, {})
        on = {p.id: p for p in _map_units(state, side)}
        for pid in [pid for pid in slots if pid not in on]:
            del slots[pid]
        need = [p for pid, p in on.items() if pid not in slots]
        # a knowledge state gives a unit that entered unseen the slot its projection named
        # (take_from_pool): the others skip it, as they did on the owner's state
        used = set(slots.values())
        n = base = state.nslots.get(side, 0)
        tops = _tops(state, side, known_only=side in state.concealed) if need else {}
        for p in sorted(need, key=lambda p: (p.hex, tops.get(p.hex) != p.id, p.id)):
            n += 1
            while n in used:
                n += 1
            slots[p.id] = n
            used.add(n)
        state.nslots[side] = max([base, *used])


def _tops(state: BcsState, side: str, known_only: bool = False) -> dict[str, str]:
    by_hex: dict[str, list[Piece]] = {}
    for p in _map_units(state, side):
        if not (known_only and STANDIN_MARK in p.id):
            by_hex.setdefault(p.hex, []).append(p)
    return {h: top_unit(units).id for h, units in by_hex.items()}


def piece_of(state: BcsState, side: str, n: int) -> str | None:
    """The id of the piece that holds side's slot n in this state (None: no such slot)."""
    for pid, m in state.slots.get(side, {}).items():
        if m == n:
            return pid
    return None


# -- the sealed interface ------------------------------------------------------------------
def _hidden_id(state: BcsState, p: Piece, tops: dict[str, str]) -> bool:
    """A unit under the top: its id and face are facts (a public event that named it,
    ``Piece.revealed``, is one of the reveals that open them)."""
    return tops.get(p.hex) != p.id


def required_facts(state: BcsState, side: str) -> set[str]:
    """The names of side's facts any state knows exist: the steps of each of its combat units
    on the map, by slot (a knowledge state holds the hidden ones as stand-ins)."""
    out: set[str] = set()
    for pid, n in state.slots.get(side, {}).items():
        p = state.pieces.get(pid)
        if p is not None and p.status == "map" and p.kind == "unit":
            out.add(f"{slot_name(side, n)}.steps")
    return out


def facts(state: BcsState, side: str) -> dict[str, Any]:
    """side's hidden facts (the module docstring lists them); in a knowledge state of the other
    side, only those opened there."""
    out: dict[str, Any] = {}
    tops = _tops(state, side)
    for pid, n in sorted(state.slots.get(side, {}).items(), key=lambda kv: kv[1]):
        p = state.pieces.get(pid)
        if p is None or p.status != "map" or p.kind != "unit":
            continue
        name = slot_name(side, n)
        if _hidden_id(state, p, tops):
            out[f"{name}.unit"] = pid
            out[f"{name}.face"] = p.face
            out[f"{name}.formation"] = p.formation
            if p.moved:       # its MP spent and STOP in this Activation (5.1b, 7.3c, 7.3e)
                out[f"{name}.mp"] = {"mp": p.mp, "stopped": p.stopped}
        out[f"{name}.steps"] = p.steps
        f = state.formations.get(p.formation)
        out[f"{name}.pd"] = bool(f and f.prepared_defense)    # its Formation's (1.5b, 7.2)
    priv = state.private.get(side) or SidePrivate()
    out[f"{side}.air"] = priv.air_points
    out[f"{side}.arty"] = {"pool": priv.arty_pool, "free": priv.arty_free,
                           "assigned": dict(sorted(priv.arty_assigned.items()))}
    out[f"{side}.rebuilding"] = dict(sorted(priv.rebuilding.items()))
    for fid, f in sorted(state.formations.items()):
        if f.side == side:
            out[f"{side}.pd.{fid}"] = f.prepared_defense
            # 9.3f: empty unless an Entry hex of the Formation is held, so its versions follow
            # public events and the units that enter unseen, never their names
            out[f"{side}.{OFF_MAP}.{fid}"] = off_map_entries(state, f)
    for fid in sorted(f for f, x in state.formations.items() if x.side == side):
        for i, p in enumerate(sorted(in_support(state, fid), key=lambda p: p.id), 1):
            out[f"{side}.support.{fid}.{i}.unit"] = p.id
            out[f"{side}.support.{fid}.{i}.steps"] = p.steps
    # one fact for every unit off the map: a fact per unit would show, by its name leaving the
    # commitments, which unit of an arrival entered under another top
    out[f"{side}.off"] = {p.id: p.steps for p in sorted(state.pieces.values(), key=lambda p: p.id)
                          if p.side == side and p.kind == "unit" and p.status == "off"}
    if priv.objective:                 # BbF 4.0: the Axis's drawn Victory Objective
        out[f"{side}.{OBJECTIVE_FACT}"] = priv.objective
    if side in state.concealed:
        known = set(state.known.get(side, []))
        out = {k: v for k, v in out.items() if k in known}
    return out


def conceal(state: BcsState, side: str) -> BcsState:
    """side's knowledge state: the other side's hidden facts become stand-ins (the hosted
    stand-in of side's view, its copies of a stack's top unit named by slot), its Arty and
    Prepared Defense unknown, its Air Points the most its die can give (board.air_bound);
    its off-map units kept (the order of arrival is public)."""
    from pbem.games.bcs.standin import standin

    o = other(side)
    k = standin(build_view(state, side), side)
    out = msgspec.convert(msgspec.to_builtins(k), type=BcsState)
    out.resolving = state.resolving if state.resolving is None else msgspec.convert(
        msgspec.to_builtins(state.resolving), type=type(state.resolving))
    out.private[o] = SidePrivate(standing=dict(state.private[o].standing))
    if state.weather != "Rain" and not state.air_due:    # its Air Points: the most it may have
        out.private[o].air_points = air_bound(o)
    out.first_side, out.objective_turn = state.first_side, state.objective_turn   # public
    out.nslots, out.sealed = dict(state.nslots), state.sealed
    out.slots = {side: dict(state.slots.get(side, {})), o: {}}
    out.concealed = [o]
    out.known = {o: []}
    # the other side's units on the map: the top keeps its id, each copy takes a slot's number
    real = state.slots.get(o, {})
    by_hex: dict[str, list[tuple[int, str]]] = {}
    for pid, n in real.items():
        p = state.pieces.get(pid)
        if p is not None and p.status == "map" and p.kind == "unit":
            by_hex.setdefault(p.hex, []).append((n, pid))
    tops = _tops(state, o)
    for h, held in by_hex.items():
        top = tops[h]
        copies = sorted(pid for pid, p in out.pieces.items() if p.side == o and p.hex == h
                        and p.kind == "unit" and p.status == "map" and pid != top)
        rest = sorted(n for n, pid in held if pid != top)
        for pid, n in zip(copies, rest):
            p = out.pieces.pop(pid)
            p.id = f"{top}{STANDIN_MARK}{n}"
            out.pieces[p.id] = p
            out.slots[o][p.id] = n
        if top in out.pieces:
            out.slots[o][top] = real[top]
    # what the public record of the Activation says of each unit (named by slot): where it
    # began, what it did (moved, fired, finished, stopped), and whether it has joined (9.3g)
    for pid, n in real.items():
        p, q = state.pieces.get(pid), out.pieces.get(piece_of(out, o, n) or "")
        if p is not None and q is not None:
            for f in _HISTORY:
                setattr(q, f, getattr(p, f))
    # off-map units: the real ones (public order of arrival), at full strength; HQs and
    # Combat Trains as they are (never hidden, 1.5)
    for pid in [pid for pid, p in out.pieces.items()
                if p.side == o and (p.status == "off" or p.kind != "unit")]:
        del out.pieces[pid]
    from pbem.games.bcs.board import bdata

    for p in state.pieces.values():
        if p.side == o and (p.status == "off" or p.kind != "unit"):
            q = msgspec.convert(msgspec.to_builtins(p), type=Piece)
            if p.kind == "unit":
                q.steps = bdata().units[p.id].steps
            out.pieces[p.id] = q
    _rename_activation(out, state, o)
    _keep_waiting_order(out, state, side)
    return out


def _keep_waiting_order(out: BcsState, state: BcsState, side: str) -> None:
    """A question waiting keeps the order it stopped, so that the order resumes once answered:
    side's own as written, the other side's as projected, by this state's piece ids (the view
    copies the question without it)."""
    from pbem.games.bcs.engine import ENGINE

    w = state.wait
    if w is None or out.wait is None or not w.order:
        return
    text = w.order
    if w.by != side:
        text = project(state, w.by, ENGINE.parse_order(text))
        text = ENGINE.format_order(resolve_slots(out, ENGINE.parse_order(text)))
    # the run so far as the full state has it; what is private to the side asked as the view has it
    out.wait = msgspec.structs.replace(w, order=text, options=list(out.wait.options),
                                       subject=out.wait.subject)


_HISTORY = ("start", "mp", "moved", "done_moving", "stopped", "flipped", "finished",
            "fire_events", "joined", "home")


def _rename_activation(out: BcsState, state: BcsState, o: str) -> None:
    """The moving stack of the other side's Activation, by the knowledge state's piece ids."""
    act = state.activation
    if act is None or out.activation is None or act.side != o:
        return
    names = []
    for uid in act.stack:
        n = state.slots.get(o, {}).get(uid)
        pid = piece_of(out, o, n) if n is not None else uid
        if pid is not None and pid in out.pieces:
            names.append(pid)
    out.activation.stack = names


def _pub_name(state: BcsState, p: Piece) -> str:
    n = state.slots.get(p.side, {}).get(p.id)
    return f"?{slot_name(p.side, n)}" if n is not None else p.id


def public(state: BcsState) -> dict[str, Any]:
    """What both sides know: nothing that either side's view (view.py) masks from the other,
    and each combat unit on the map by its slot and hex."""
    out: dict[str, Any] = {
        "scenario": state.scenario, "options": dict(sorted(state.options.items())),
        "turn": state.turn, "weather": state.weather, "phase": state.phase,
        "next_side": state.next_side, "first_side": state.first_side,
        "traffic": sorted(state.traffic), "objs": list(state.objs),
        "control": dict(sorted(state.control.items())), "air_due": state.air_due,
        "result": msgspec.to_builtins(state.result),
        "assigning": list(state.assigning), "unassigned": list(state.unassigned),
        "rommel": state.rommel, "objective_draw": msgspec.to_builtins(state.objective_draw),
        "objective": state.objective, "exits": dict(sorted(state.exits.items())),
        "mines": dict(sorted(state.mines.items())), "mines_due": state.mines_due,
        "setting": list(state.setting),
        "setup_zones": msgspec.to_builtins(dict(sorted(state.setup_zones.items()))),
        "setup_fixed": dict(sorted(state.setup_fixed.items())), "weather_due": state.weather_due,
        "nslots": dict(sorted(state.nslots.items())),
    }
    if isinstance(state.smoothing, Smoothing):       # Optional 9's chit cup (only with it)
        out["smoothing"] = msgspec.to_builtins(state.smoothing)
    w = state.wait
    out["wait"] = None if w is None else [w.side, w.topic, w.by, w.hex]
    counts = state.options.get("stack_count_visible", "count") == "count"
    hidden = set(secrets(state, "allied")) | set(secrets(state, "axis"))
    act = state.activation
    if act is not None:
        a = msgspec.to_builtins(act)
        a["stack"] = []
        a["dropped"] = sorted(_pub_name(state, state.pieces[u]) for u in act.dropped
                              if u not in hidden and u in state.pieces
                              and STANDIN_MARK not in u)
        out["activation"] = a
    else:
        out["activation"] = None
    for side in SIDES:
        v = build_view(state, other(side))           # what the other side sees of side
        stacks = {}
        for st in v.enemy:
            stacks[st.hex] = {"top": st.top, "face": st.face,
                              "units": st.units if counts else 1, "others": st.others,
                              "dropped": st.dropped, "screen": st.screen,
                              "supported": st.supported}
        slots = {}
        if counts:
            for pid, n in state.slots.get(side, {}).items():
                p = state.pieces.get(pid)
                if p is not None and p.status == "map" and p.kind == "unit":
                    slots[slot_name(side, n)] = p.hex
        forms = {f.id: {**msgspec.to_builtins(f), "prepared_defense": None}
                 for f in v.formations if f.side == side}
        out[side] = {
            "stacks": dict(sorted(stacks.items())), "slots": dict(sorted(slots.items())),
            "hqs": {p.id: [p.status, p.hex, p.face, p.ghost, p.arrives, p.entry]
                    for p in sorted(state.pieces.values(), key=lambda p: p.id)
                    if p.side == side and p.kind != "unit" and p.status in ("map", "off")},
            "arriving": v.enemy_arriving,
            "formations": dict(sorted(forms.items())),
            "support": {f: markers(state, f) for f in sorted(state.formations)
                        if state.formations[f].side == side and in_support(state, f)},
            "stand_off_range": {f: r for f in sorted(state.formations)
                                if state.formations[f].side == side
                                and (r := stand_off_range(state, f))},
        }
    return out


def project(state: BcsState, side: str, order: Any) -> str:
    """The order as the other side sees it: its text with side's combat units on the map named
    by their slots, without the Prepared Defense an Activation makes or removes (read on side's
    state before the order is applied), and an Arty Asset Points order as 'seen arty' (its
    points and HQ are private, 1.5b, 8.0d)."""
    from pbem.games.bcs.engine import ENGINE

    from pbem.games.bcs import orders as o

    if isinstance(order, o.Activate) and order.defense:
        # Prepared Defense is hidden (1.5b): the projection does not say it is made or removed
        order = msgspec.structs.replace(order, defense="")
    if isinstance(order, Revealing):
        order = order.order               # a writer's own list is never taken: recomputed
    if isinstance(order, o.Answer) and order.topic == "repls" and state.sealed:
        return _seen_repls(state, side, order)
    opens = [f for w, f in own_reveals(state, side, order) if w == side]
    text = SEEN_ARTY if isinstance(order, o.ArtyAssets) and state.sealed \
        else ENGINE.format_order(order)
    entering = entering_tokens(state, side, order)
    slots = {**state.slots.get(side, {}), **entering}
    # the arrival of each unit entering by slot (9.3b: the Activation's public record of the
    # Entry hexes used is kept by arrival), so that the other processor's pool gives one of it
    arrivals = [f"{slot_name(side, n)}={arrival_group(state.pieces[u])}"
                for u, n in sorted(entering.items(), key=lambda kv: kv[1])]

    def sub(m: re.Match[str]) -> str:
        """A word that is one of side's units on the map (or entering it unseen under another
        top) -> its slot token."""
        w = m.group(0)
        p = state.pieces.get(w)
        if p is not None and p.side == side and w in slots:
            return f"{TOKEN}{slot_name(side, slots[w])}"
        return w
    return _WORD.sub(sub, text) + (ARRIVALS + " ".join(arrivals) if arrivals else "") + \
        (OPENS + " ".join(opens) if opens else "")


SEEN_REPLS = "seen repls"


def _seen_repls(state: BcsState, side: str, order: Any) -> str:
    """A `repls` answer as the other side sees it: the units it places from the Dead Pile and
    where ('seen repls kern@B12.08+...', 'seen repls none'), found by resolving the answer on a
    copy up to the next die (the Replacement Points roll it answers was made before)."""
    from pbem.games.bcs.engine import ENGINE

    trial = msgspec.convert(msgspec.to_builtins(state), type=BcsState)
    ctx = Context(NoDice())
    try:
        ENGINE.apply(trial, side, order, ctx)
    except (NeedsDice, IllegalOrder):
        pass
    placed = [f"{e.text.split()[0]}@{e.hexes[0]}" for e in ctx.events
              if e.kind == REBUILT and e.hexes]
    return f"{SEEN_REPLS} {'+'.join(placed) or 'none'}"


def parse_seen(text: str) -> Any:
    """'seen repls UNIT@HEX+...|none' -> the `repls` answer that places them (an Answer whose
    mode is 'seen:...', read by replacements.place_seen)."""
    from pbem.games.bcs import orders as o

    w = text.split()
    if len(w) != 3 or " ".join(w[:2]) != SEEN_REPLS or not all(
            _SEEN_ITEM.match(x) for x in ([] if w[2] == "none" else w[2].split("+"))):
        raise OrderSyntaxError("expected 'seen repls UNIT@HEX+...' or 'seen repls none'",
                               rule=SEALED_RULE)
    return o.Answer(topic="repls", mode=SEEN + ("" if w[2] == "none" else w[2]))


def format_seen(order: Any) -> str:
    """The text of a `repls` answer's projection."""
    return f"{SEEN_REPLS} {order.mode[len(SEEN):] or 'none'}"


#: Orders that read nothing hidden of their writer and open nothing of its (their projection
#: and reveals are the same whenever they run); every other order is `hidden_legality`.
PUBLIC_ORDERS = ("Obj", "Trains", "Second", "First", "Rommel", "AssignmentDone", "Mine",
                 "Recover", "OpenObjective", "SetupDone")


def hidden_legality(order: Any) -> bool:
    """Sealed mode (docs/sealed.md 5g): True for an order only its writer's processor can
    check, or whose projection names what it opens from its writer's state (a move's new tops,
    Isolation's steps at `end`, an answer's Dead Pile placements): after dice in the same file,
    or held across files, the position it was written in may be gone, so it goes back to its
    writer instead of running."""
    if isinstance(order, Revealing):
        order = order.order
    if type(order).__name__ == "Second" and order.attempt:
        return True       # it opens S.offmap.F as it stands after the `end` before it (9.3b)
    return type(order).__name__ not in PUBLIC_ORDERS


def resolve_slots(state: BcsState, order: Any) -> Any:
    """The order with every slot token replaced by the id of the piece holding that slot in
    state (a token of an unknown slot is left as it is: the engine refuses it)."""
    if isinstance(order, Revealing):
        return msgspec.structs.replace(order, order=resolve_slots(state, order.order))
    if not isinstance(order, msgspec.Struct):
        return order
    return msgspec.convert(_fix_slots(state, msgspec.to_builtins(order)), type=type(order))


def _fix_slots(state: BcsState, x: Any) -> Any:
    """x (strings, '+'-joined strings, lists, dicts) with slot tokens replaced, as
    resolve_slots does (a module function: a nested recursive one would be a reference cycle
    holding the state until the cyclic collector runs)."""
    if isinstance(x, str):
        return "+".join(_fix_word(state, w) for w in x.split("+"))
    if isinstance(x, list):
        return [_fix_slots(state, y) for y in x]
    if isinstance(x, dict):
        return {k: _fix_slots(state, v) for k, v in x.items()}
    return x


def _fix_word(state: BcsState, w: str) -> str:
    m = _TOKEN.match(w)
    if not m:
        return w
    pid = piece_of(state, m.group(1), int(m.group(2)))
    return pid if pid is not None else w


_SLOT_FACTS = ("unit", "face", "steps")


def _slot_facts(state: BcsState, side: str, pid: str, what: tuple[str, ...] = _SLOT_FACTS
                ) -> list[tuple[str, str]]:
    n = state.slots.get(side, {}).get(pid)
    return [] if n is None else [(side, f"{slot_name(side, n)}.{w}") for w in what]


def _hex_units(state: BcsState, side: str, hex_id: str) -> list[Piece]:
    return [p for p in _map_units(state, side) if p.hex == hex_id]


class Revealing(msgspec.Struct, frozen=True, tag="revealing"):
    """A projected order with what only its writer's processor can name
    (``ORDER [arrivals SLOT=ARRIVAL ...] [opens FACT ...]``): the facts of its writer that its
    resolution opens (which unit becomes a stack's top, whose steps Isolation reaches), as
    Holdfast's ``seen`` lines carry what the other processor cannot compute; and the arrival
    (``arrival_group``, its turn and Entry hexes: ``axis-12=2:H``) of each unit a move brings
    onto the map unseen under another top, named by the slot it will hold (the other processor
    takes a unit of that arrival from its pool, ``take_from_pool``). The final replay checks
    the projection against the real order's, so a wrong list is caught."""

    order: Any
    opens: tuple[str, ...] = ()
    arrivals: tuple[str, ...] = ()


OPENS = " opens "
ARRIVALS = " arrivals "


def parse_revealing(text: str, parse: Any) -> Any:
    """'ORDER [arrivals SLOT=ARRIVAL ...] [opens FACT ...]' -> Revealing (parse reads the
    order); any other text -> parse."""
    if OPENS not in text and ARRIVALS not in text:
        return parse(text)
    base, has_opens, rest = text.partition(OPENS)
    facts_ = tuple(rest.split())
    if has_opens and (not facts_ or any(not _OWN_FACT.match(f) for f in facts_)
                      or len(set(facts_)) != len(facts_)):
        raise OrderSyntaxError(f"expected 'ORDER opens FACT ...' with facts as "
                               f"'axis-7.unit' or 'axis.pd.reim', each once, not "
                               f"{rest.strip()!r}",
                               rule=SEALED_RULE)
    base, has_arrivals, rest = base.partition(ARRIVALS)
    arrivals = tuple(rest.split())
    if has_arrivals and (not arrivals or any(not _ARRIVAL.match(a) for a in arrivals)
                         or len({a.partition("=")[0] for a in arrivals}) != len(arrivals)):
        raise OrderSyntaxError(f"expected 'ORDER arrivals SLOT=ARRIVAL ...' with arrivals as "
                               f"'axis-7=2:H', one per slot, not {rest.strip()!r}",
                               rule=SEALED_RULE)
    return Revealing(order=parse(base), opens=facts_, arrivals=arrivals)


def format_revealing(order: Revealing, fmt: Any) -> str:
    """The canonical text of a Revealing."""
    return (fmt(order.order) + (ARRIVALS + " ".join(order.arrivals) if order.arrivals else "")
            + (OPENS + " ".join(order.opens) if order.opens else ""))


def arrivals_of(order: Any) -> dict[str, str]:
    """The arrivals a projection names for the units it brings on unseen: slot -> arrival."""
    if not isinstance(order, Revealing):
        return {}
    return dict(a.partition("=")[::2] for a in order.arrivals)


def reveals(state: BcsState, side: str, order: Any) -> list[tuple[str, str]]:
    """The facts an order opens before it is resolved: side's own (``own_reveals``; for a
    projection, those it names) and the other side's in the hex it targets (``target_reveals``),
    which both processors compute alike from public slots."""
    if isinstance(order, Revealing):
        own = [(side, f) for f in order.opens]
        order = order.order
    else:
        own = own_reveals(state, side, order)
    return own + target_reveals(state, side, order)


def own_reveals(state: BcsState, side: str, order: Any) -> list[tuple[str, str]]:
    """side's facts its order opens (read on side's state, which holds them all): the units
    an order names to act (Attack, Assist, Shock unit, Firer, Engagement Firer and host,
    spotter, Recon unit, a Voluntary Retreat's units, an exiting unit) with the Prepared
    Defense of an attacker's Formation (4.5c); a move's new tops (5.5e); an Activation's
    (4.5a, 10.1b, 4.4, 10.5) and Isolation's (10.5) facts; the Axis's objective when he opens
    it. Only facts side holds are named."""
    from pbem.games.bcs import orders as o

    order = resolve_slots(state, order)
    named: list[str] = []
    out: list[tuple[str, str]] = []
    if isinstance(order, o.Attack):
        named = [order.unit] + ([order.assist] if order.assist else [])
    elif isinstance(order, (o.Shock, o.Fire, o.Engage)):
        named = [order.unit] + ([getattr(order, "host", "")] if getattr(
            order, "host", "") else [])
    elif isinstance(order, o.Barrage):
        named = [order.spotter]
    elif type(order).__name__ == "Recon":
        named = [order.unit]
    elif isinstance(order, o.Retreat):
        named = list(order.units)
    elif isinstance(order, o.Support) and order.on:     # 9.2e: its Support markers read it
        named = [order.unit]
    elif isinstance(order, o.Flip):
        # 5.6a/c read the unit's counter, classes and Safe Path; a stand-in (a copy of its top)
        # would flip otherwise, or not at all, and then walk, retreat and meet Isolation
        # otherwise: a unit under a top is opened (identity and face; a top's are public)
        out = _slot_facts(state, side, order.unit, ("unit", "face"))
    elif type(order).__name__ == "Exit":              # BbF 4.0: exits are public by unit
        named = [order.unit]
    elif type(order).__name__ == "OpenObjective":     # BbF 4.0: the Axis opens his objective
        out = [(side, f"{side}.{OBJECTIVE_FACT}")]
    elif isinstance(order, o.Move):
        out = _move_reveals(state, side, order)
    elif isinstance(order, o.Activate):
        out = _activation_reveals(state, side, order.formation)
    elif isinstance(order, o.Second) and order.attempt and state.activation is not None:
        # its SNAFU reads 9.3f's units off the map (snafu.free_pass), as an Activation's does
        out = [(side, f"{side}.{OFF_MAP}.{state.activation.formation}")]
    elif isinstance(order, o.End):
        picks: list[tuple[list[str], int]] = []
        out = _isolation_reveals(_restacked(state, side, {}, picks), side)
        out += _restack_reveals(state, side, picks)
    elif isinstance(order, o.Answer):
        out = _resumed_end_reveals(state, side, order)
    if state.sealed and hidden_legality(order) and not _SIMULATING \
            and side not in state.concealed:   # (on a knowledge state: only facts known)
        out += _trial_reveals(state, side, order)
    for pid in named:
        out += _slot_facts(state, side, pid)
    if isinstance(order, (o.Attack, o.Shock)) and order.unit in state.pieces:
        f = state.pieces[order.unit].formation      # 4.5c: -1 when it attacks
        if f in state.formations and state.formations[f].side == side:
            out.append((side, f"{side}.pd.{f}"))
        if order.fires is not None and state.activation is not None:
            # its Barrage may be spotted from the virtual hex (9.3f, barrage.off_map_spotter)
            out.append((side, f"{side}.{OFF_MAP}.{state.activation.formation}"))
    # a unit opened after it moved in this Activation: its MP spent and STOP go with it (they
    # follow from its identity, its face and its public path; the other side's stand-in walked
    # that path as the unit its pool guessed, and 5.1b, 7.3c-1 and 7.3e-b read them)
    out += [(w, f"{f[:-len('unit')]}mp") for w, f in out if f.endswith(".unit")]
    have = facts(state, side)
    seen: set[str] = set()
    return [(w, f) for w, f in out if f in have and not (f in seen or seen.add(f))]


def target_reveals(state: BcsState, side: str, order: Any) -> list[tuple[str, str]]:
    """The other side's facts an attack, Engagement, Attack by Fire or Barrage opens in the
    hex it targets (7.2 step 2): every unit's identity and face (under the top), steps and
    Prepared Defense, by slot; the same list on both processors (the slots in a hex and its
    top are public)."""
    from pbem.games.bcs import orders as o

    order = resolve_slots(state, order)
    if not isinstance(order, (o.Attack, o.Shock, o.Fire, o.Engage, o.Barrage)):
        return []
    foe = other(side)
    units = _hex_units(state, foe, order.hex)
    tops = _tops(state, foe)
    out: list[tuple[str, str]] = []
    for p in sorted(units, key=lambda p: state.slots.get(foe, {}).get(p.id, 0)):
        what = ("steps", "pd") if tops.get(p.hex) == p.id else ("unit", "face", "steps", "pd")
        out += _slot_facts(state, foe, p.id, what)
    return out


def _activation_reveals(state: BcsState, side: str, fid: str) -> list[tuple[str, str]]:
    """An Activation of F: F's Prepared Defense (4.5a: no better than Partial), and the
    Formation of every hidden unit in a hex that holds one of F's units (10.1b Mixed
    Formations, 4.4 Coordination, and whose units Isolation checks at its end, 10.5)."""
    f = state.formations.get(fid)
    if f is None or f.side != side:
        return []
    out = [(side, f"{side}.pd.{fid}"), (side, f"{side}.{OFF_MAP}.{fid}")]   # 4.5a, 9.3f
    units = _map_units(state, side)
    hexes = {p.hex for p in units if p.formation == fid}
    tops = _tops(state, side)
    for p in sorted(units, key=lambda p: p.id):
        if p.hex in hexes and _hidden_id(state, p, tops):
            out += _slot_facts(state, side, p.id, ("formation",))
    return out


def _restacked(state: BcsState, side: str, answers: dict[str, str],
               picks: list[tuple[list[str], int]] | None = None) -> BcsState | None:
    """A copy of state with the restacking an `end` of side begins with done (5.5d), with the
    answers given; None when it asks its owner (the `end` then waits for the answer). picks
    gets its `moved` picks (movement.restack), those before a question included."""
    from pbem.games.bcs.movement import restack
    from pbem.games.bcs.reactions import Ask
    from pbem.games.bcs.state import Reaction

    trial = msgspec.json.decode(msgspec.json.encode(state), type=BcsState)
    trial.resolving = Reaction(side="", topic="", by=side, order="end", answers=dict(answers))
    try:
        restack(trial, side, Context(NoDice()), picks)
    except (Ask, NeedsDice, IllegalOrder):
        return None
    trial.resolving = None
    return trial


def _resumed_end_reveals(state: BcsState, side: str, order: Any) -> list[tuple[str, str]]:
    """An answer that resumes side's own `end` (its restacking asked him, 5.5d): Isolation's
    reveals, judged on the position after the restacking."""
    from pbem.games.bcs import orders as o
    from pbem.games.bcs.reactions import answer_key

    w = state.wait
    if w is None or w.by != side or w.side != side or not w.order:
        return []
    try:
        if not isinstance(o.parse_order(w.order), o.End):
            return []
    except OrderSyntaxError:
        return []
    answers = {**w.answers, answer_key(w, side, order.mode): order.mode}
    picks: list[tuple[list[str], int]] = []
    out = _isolation_reveals(_restacked(state, side, answers, picks), side)
    return out + _restack_reveals(state, side, picks)


def _restack_reveals(state: BcsState, side: str, picks: list[tuple[list[str], int]]
                     ) -> list[tuple[str, str]]:
    """5.5d: a restacking's `moved` pick (the answer `moved`, or a hex with one choice) steps
    back the units that moved in the Activation first, then by id. Where the ids decide
    between units alike in that (some of them step back, some stay), the other side orders its
    stand-ins by their names (copies of the top, ``TOP--standinN``) and would step back another
    unit (another slot moved, another top). Opens the identity and face of each of them under
    the top that steps back, and of each that stays whose stand-in's name would come before
    one of those."""
    tops = _tops(state, side)
    slots = state.slots.get(side, {})
    out: list[tuple[str, str]] = []
    for ids, n in picks:
        units = sorted((state.pieces[u] for u in ids), key=lambda q: (not q.moved, q.id))
        if not 0 < n < len(units) or units[n - 1].moved != units[n].moved:
            continue                    # whether they moved decides alone
        top = tops.get(units[0].hex, "")
        go = [q for q in units[:n] if q.moved == units[n].moved]
        last = max(q.id for q in go)
        stay = [q for q in units[n:] if q.moved == units[n].moved and q.id != top
                and f"{top}{STANDIN_MARK}{slots.get(q.id, 0)}" < last]
        for q in go + stay:
            out += _slot_facts(state, side, q.id, ("unit", "face"))
    return out


def _isolation_reveals(state: BcsState | None, side: str) -> list[tuple[str, str]]:
    """10.5: the steps of the active Formation's units that Isolation reaches, as side's state
    judges it (out of Command Radius or without a Safe Path)."""
    from pbem.games.bcs.command import exempt, in_radius, safe_path

    if state is None:                  # the restacking asks first: the answer opens them
        return []
    act = state.activation
    if act is None or act.side != side:
        return []
    out: list[tuple[str, str]] = []
    dead: set[str] = set()
    blocked = state.formations[act.formation].msr_blocked == 2
    pieces = pieces_by_hex(state)
    for p in sorted(_map_units(state, side), key=lambda p: p.id):
        if p.formation != act.formation or not p.joined or exempt(p):
            continue
        out_, nosafe = not in_radius(state, p), not safe_path(state, p, pieces=pieces)
        if out_ or nosafe:
            out += _slot_facts(state, side, p.id, ("steps",))
            loss = (2 if out_ and nosafe else 1) + (1 if blocked else 0)
            if p.steps <= loss:
                dead.add(p.id)
    for u in sorted(dead):          # named as it dies (a public event): its stand-in, a copy
        out += _slot_facts(state, side, u, ("unit", "face"))     # of its top, may be exempt
    for h in sorted({state.pieces[u].hex for u in dead}):      # 5.5e: the tops left
        rest = [p for p in _hex_units(state, side, h) if p.id not in dead]
        if rest:
            out += _slot_facts(state, side, top_unit(rest).id, ("unit", "face"))
    return out


# -- what a stack shows of the units under its top (docs/sealed.md 5h, item 8) ---------------
_SIMULATING: list[bool] = []          # a trial resolution of an order is under way


def _profile(state: BcsState, units: list[Piece]) -> tuple[bool, bool, int, frozenset[str]]:
    """What the other side's rules read of a stack's units without naming them: whether one
    projects a ZOC (6.0a, 6.0b), whether one is an AV unit (a Real AV EZOC, 6.0h), the longest
    Engagement Zone of its AV units (6.1a, at most 4 hexes), and the Formations whose Support
    its units have now (a Support AV EZOC, the supported flag, Stand Off Engagement Zones:
    6.0h, 9.2g, 7.1m)."""
    av = [p for p in units if is_av(p)]
    rng = max((min(face(p).range, VISIBILITY) for p in av), default=0)   # type: ignore[union-attr]
    return (any(has_zoc(p) for p in units), bool(av), rng,
            frozenset(p.formation for p in units if has_access(state, p)))


def _join(a: tuple[bool, bool, int, frozenset[str]], b: tuple[bool, bool, int, frozenset[str]]
          ) -> tuple[bool, bool, int, frozenset[str]]:
    return (a[0] or b[0], a[1] or b[1], max(a[2], b[2]), a[3] | b[3])


def exceeding(state: BcsState, side: str) -> list[str]:
    """side's units under a top, not seen by the other side (``Piece.revealed``), whose ZOC,
    Engagement Zone or Support the other side's stand-in would not give: its stand-in is a copy
    of the top (conceal, rebase_standins) with the top's Formation or, once opened, the unit's
    own, so a unit matters when its hex shows another profile with it than with either copy."""
    by_hex: dict[str, list[Piece]] = {}
    for p in _map_units(state, side):
        by_hex.setdefault(p.hex, []).append(p)
    slots = state.slots.get(side, {})
    out: list[str] = []
    for units in by_hex.values():
        if len(units) < 2:
            continue
        top = top_unit(units)
        known = [p for p in units if p.id == top.id or p.revealed]
        base = _profile(state, known)
        for u in sorted((p for p in units if p not in known),
                        key=lambda p: (slots.get(p.id, 0), p.id)):
            real = _join(base, _profile(state, [u]))
            gone = u.dropped or temp_dropped(state, u)        # its marker is public (9.2i)
            copies = [msgspec.structs.replace(top, id=f"{top.id}{STANDIN_MARK}0", formation=g,
                                              dropped=gone)
                      for g in sorted({top.formation, u.formation})]
            if any(_join(base, _profile(state, [c])) != real for c in copies):
                out.append(u.id)
                base = real
    return out


def _trial_reveals(state: BcsState, side: str, order: Any) -> list[tuple[str, str]]:
    """What side's order changes that the other side sees, found by resolving it on a copy up
    to its first die or question: the identity and face of each hidden unit that becomes a
    stack's top (5.5e: a restacking, a retreat, an answer placing units ...), and of each hidden
    unit that matters to its stack's profile after it (``exceeding``), and of each hidden unit
    to which the order gives a Dropped Support marker or from which it takes one (9.2i, public
    by count per stack); opened before the order runs, so the other side's knowledge state
    holds the unit itself from then on."""
    trial = _trial(state, side, order)
    before = _tops(state, side)
    out: list[tuple[str, str]] = []
    for h, top in sorted(_tops(trial, side).items()):
        if before.get(h) != top:
            out += _slot_facts(state, side, top, ("unit", "face"))
    for pid in exceeding(trial, side):
        out += _slot_facts(state, side, pid, ("unit", "face"))
    # which units 9.2i b marks reads their type: a stand-in (the top's copy) would gain or
    # lose another count (a marker a hidden unit carries away is still left open: the
    # knowledge state puts a stack's markers on its first units, docs/sealed.md 5h)
    for pid in sorted(state.slots.get(side, {})):
        p, q = state.pieces.get(pid), trial.pieces.get(pid)
        if p is None or q is None or p.status != "map" or before.get(p.hex) == pid:
            continue
        if q.dropped != p.dropped:
            out += _slot_facts(state, side, pid, ("unit", "face"))
    return out


_TRIALS: dict[bytes, BcsState] = {}


def _trial(state: BcsState, side: str, order: Any) -> BcsState:
    """A copy of state with the order resolved on it up to its first die or question (not to
    be changed: the last few are kept by the encoded state, side and order, since an order's
    reveals and projection are read several times before it runs)."""
    from pbem.games.bcs.engine import ENGINE

    raw = msgspec.json.encode(state)
    key = b"\0".join((raw, side.encode(), msgspec.json.encode(order)))
    if key in _TRIALS:
        return _TRIALS[key]
    trial = msgspec.json.decode(raw, type=BcsState)
    _SIMULATING.append(True)
    try:
        ENGINE.apply(trial, side, order, Context(NoDice()))
    except (NeedsDice, IllegalOrder):
        pass
    finally:
        _SIMULATING.pop()
    if len(_TRIALS) >= 8:
        del _TRIALS[next(iter(_TRIALS))]
    _TRIALS[key] = trial
    return trial


# -- units entering from off the map (docs/sealed.md 5h, item 1) ----------------------------
def arriving(state: BcsState, side: str, order: Any) -> list[str]:
    """side's combat units off the map that a move brings on."""
    from pbem.games.bcs import orders as o

    if not isinstance(order, o.Move):
        return []
    return [u for u in order.units if (p := state.pieces.get(u)) is not None
            and p.side == side and p.kind == "unit" and p.status == "off"]


def entering_tokens(state: BcsState, side: str, order: Any) -> dict[str, int]:
    """side's units a move brings onto the map under another top, unseen by the other side,
    each with the slot it will hold: the projection names them by that slot, never by id (the
    other processor takes a unit of its pool for each, ``take_from_pool``). A unit that becomes
    a top, or whose stack's profile needs it (``exceeding``), is named: the other side sees it."""
    ins = arriving(state, side, order)
    if not ins or not state.sealed:
        return {}
    trial = _trial(state, side, order)
    tops = _tops(trial, side)
    shown = set(exceeding(trial, side))
    out: dict[str, int] = {}
    for u in ins:
        q, n = trial.pieces.get(u), trial.slots.get(side, {}).get(u)
        if q is not None and q.status == "map" and n is not None and tops.get(q.hex) != u \
                and u not in shown:
            out[u] = n
    return out


def from_off_map(state: BcsState, side: str, order: Any) -> list[str]:
    """side's combat units not on the map that an order names to bring on: a move's arrivals,
    a unit re-concentrating from Support (9.2f) or an independent assigned (9.5)."""
    from pbem.games.bcs import orders as o

    if isinstance(order, o.Move):
        return arriving(state, side, order)
    if (isinstance(order, o.Support) and not order.on) or \
            (isinstance(order, o.Assign) and order.formation):
        p = state.pieces.get(order.unit)
        if p is not None and p.side == side and p.kind == "unit" and p.status != "map":
            return [order.unit]
    return []


def named_entering(state: BcsState, side: str, ins: list[str], order: Any) -> list[str]:
    """Of the units an order brought onto the map (``ins``, from_off_map, ids before it), those
    its projection named under another top, which the other side now knows
    (``Piece.revealed``): every one an order other than a move names (a re-concentration or an
    assignment names its unit: the sealed port shows it, docs/sealed.md 5h); of a move's, on a
    knowledge state of side every one named by its id, on side's own state those ``exceeding``
    names (as ``entering_tokens`` chose them)."""
    from pbem.games.bcs import orders as o

    tops = _tops(state, side)
    under = [u for u in ins if (p := state.pieces.get(u)) is not None and p.status == "map"
             and tops.get(p.hex) != u]
    if side in state.concealed or not isinstance(order, o.Move):
        return [u for u in under if STANDIN_MARK not in u]
    shown = set(exceeding(state, side))
    return [u for u in under if u in shown]


POOL = f"{STANDIN_MARK}pool"                  # a pool unit whose name is not certain


def _base(pid: str) -> str:
    return pid.partition(STANDIN_MARK)[0]


def _uncertain(state: BcsState, p: Piece) -> Piece:
    """p, off the map, renamed as a unit of the pool whose name is not certain (the counter's
    data, the id ``UNIT--standinpool``: a stand-in's id never names a unit)."""
    state.pieces.pop(p.id, None)
    q = msgspec.structs.replace(p, id=_base(p.id) + POOL)
    state.pieces[q.id] = q
    return q


def take_from_pool(state: BcsState, side: str, order: Any,
                   arrivals: dict[str, str] | None = None) -> None:
    """On a knowledge state, before a projected move of the concealed side runs: each unit it
    brings on by a slot not given yet takes a unit of that side's pool (the units off the map:
    one of the active Formation and of the arrival the projection names for that slot,
    ``arrivals``, due, able to enter by the path's first hex and to walk it), which becomes that
    slot's stand-in (``PICK--standinN``) and is kept aside in ``picked``; the other due units of
    that arrival off the map are then of uncertain name (``UNIT--standinpool``: any of them may
    be the one that entered). A unit the move names comes back to its name: from an uncertain
    one, from the unit an earlier stand-in took (another unit of its arrival taking its place
    there), or from a unit of the pool. IllegalOrder when the projection does not name the
    arrival of exactly the units it brings on by slot, or when no unit of a named arrival in
    the pool is due and can enter by the path's first hex (the caller puts back what
    pool_snapshot kept: a refused order takes nothing)."""
    from pbem.games.bcs import orders as o
    from pbem.games.bcs.board import entry_hexes
    from pbem.games.bcs.movement import walk

    arrivals = dict(arrivals or {})
    if isinstance(order, o.Flip) and side in state.concealed:
        # 9.3h: an arriving unit flipped by its name comes back to its name first, as a unit a
        # move names does (the pool may have given its name to a stand-in that entered)
        order = o.Move(units=[order.unit], path=[])
    if side not in state.concealed or not isinstance(order, o.Move):
        if arrivals:
            raise IllegalOrder("only a move of the other side brings units on unseen "
                               "('arrivals ...')", rule=SEALED_RULE)
        return

    given = set(state.slots.get(side, {}).values())
    tokens = {}
    for w in order.units:
        m = _TOKEN.match(w)
        if m and m.group(1) == side and int(m.group(2)) not in given:
            tokens[slot_name(side, int(m.group(2)))] = int(m.group(2))
    if set(arrivals) != set(tokens):
        raise IllegalOrder(f"the projection must name the arrival of each unit it brings on "
                           f"unseen ({', '.join(sorted(tokens)) or 'none'}), not of "
                           f"{', '.join(sorted(arrivals)) or 'none'}", rule=SEALED_RULE)
    picked = state.picked.setdefault(side, {})
    named = [u for u in order.units if not _TOKEN.match(u)]
    for u in named:
        p = state.pieces.get(u)
        if (p is not None and p.status == "off") or (p is None and STANDIN_MARK in u):
            continue
        if p is None and (q := state.pieces.get(u + POOL)) is not None and q.status == "off":
            state.pieces.pop(q.id)
            state.pieces[u] = msgspec.structs.replace(q, id=u)
            continue
        where = next((n for n, q in picked.items() if _base(q.id) == u), None)
        if where is None:
            _fill(state, side, u, named)
            continue
        back = picked[where]
        spare = _pool(state, side, back.formation, named)
        # (the unit aside stands for one of the arrival its slot's projection named)
        spare = [p for p in spare if arrival_group(p) == arrival_group(back)] or spare
        if spare:
            picked[where] = msgspec.structs.replace(state.pieces.pop(spare[0].id),
                                                    id=_base(spare[0].id) + POOL)
            state.pieces[u] = msgspec.structs.replace(back, id=u)
    act = state.activation
    for name_, n in tokens.items():
        group = arrivals[name_]
        due = [p for p in _pool(state, side, act.formation if act is not None else "", named)
               if arrival_group(p) == group and p.arrives <= state.turn and order.path
               and order.path[0] in entry_hexes(state, p)]
        if not due:
            raise IllegalOrder(f"{TOKEN}{name_} enters as a unit of the arrival {group}, but "
                               f"no {side} unit of that arrival off the map can enter by "
                               f"{order.path[0] if order.path else 'no hex'} now",
                               rule=SEALED_RULE)
        pick = next((p for p in due if _walks(walk, state, p, order)), None)
        if pick is None:
            pick = _give_back(state, side, group, due[0], walk, order)
        pick = pick or due[0]
        state.pieces.pop(pick.id)
        picked[str(n)] = msgspec.structs.replace(pick, id=_base(pick.id) + POOL)
        sid = f"{_base(pick.id)}{STANDIN_MARK}{n}"
        state.pieces[sid] = msgspec.structs.replace(pick, id=sid)
        state.slots.setdefault(side, {})[sid] = n
        for q in list(state.pieces.values()):
            if q.side == side and q.kind == "unit" and q.status == "off" \
                    and q.formation == pick.formation and q.arrives <= state.turn \
                    and arrival_group(q) == group and STANDIN_MARK not in q.id \
                    and q.id not in named:
                _uncertain(state, q)


def _give_back(state: BcsState, side: str, group: str, spare: Piece, walk: Any,
               order: Any) -> Piece | None:
    """No unit left in the pool can make this move: an earlier stand-in of the same arrival may
    keep aside the one that can (its guess took it). That one comes back to the pool, to be
    taken now, and the earlier stand-in keeps spare aside instead: its identity stays as
    unknown, and the stand-in on the map is a copy of its top either way."""
    picked = state.picked.setdefault(side, {})
    for k, q in sorted(picked.items()):
        if arrival_group(q) != group or not _walks(walk, state, q, order):
            continue
        state.pieces.pop(spare.id)
        picked[k] = msgspec.structs.replace(spare, id=_base(spare.id) + POOL)
        back = msgspec.structs.replace(q, id=_base(q.id) + POOL)
        state.pieces[back.id] = back
        return back
    return None


def pool_snapshot(state: BcsState, side: str, order: Any) -> Any:
    """What take_from_pool may change, kept so that a refused order changes nothing."""
    from pbem.games.bcs import orders as o

    if side not in state.concealed or not isinstance(order, (o.Move, o.Flip)):
        return None
    return msgspec.to_builtins((state.pieces, state.slots, state.picked))


def pool_restore(state: BcsState, snapshot: Any) -> None:
    """Put back what pool_snapshot kept (nothing when it kept nothing)."""
    if snapshot is None:
        return
    pieces, slots, picked = snapshot
    state.pieces = msgspec.convert(pieces, type=dict[str, Piece])
    state.slots = msgspec.convert(slots, type=dict[str, dict[str, int]])
    state.picked = msgspec.convert(picked, type=dict[str, dict[str, Piece]])


def _fill(state: BcsState, side: str, uid: str, named: list[str]) -> None:
    """A unit a move names that this state has nowhere (its name went with a pool unit a
    stand-in took and later gave up): a unit of its Formation leaves the pool for it, one of
    its arrival in the Order of Arrival if the pool holds one, whose Entry hexes it takes
    (those 9.3b narrowed since, alike for every unit of an arrival still off the map)."""
    from pbem.games.bcs.board import bdata
    from pbem.games.bcs.setup import new_state

    u = bdata().units.get(uid)
    if uid in state.pieces or u is None or u.side != side or STANDIN_MARK in uid:
        return
    printed = new_state(state.scenario, dict(state.options)).pieces
    fresh = printed.get(uid)
    spare = _pool(state, side, u.formation, named)
    if not spare or fresh is None:
        return
    same = [p for p in spare if (q := printed.get(_base(p.id))) is not None
            and arrival_group(q) == arrival_group(fresh)]
    gone = (same or spare)[0]
    del state.pieces[gone.id]
    fresh.status, fresh.hex = "off", ""
    if same:
        fresh.arrives, fresh.entry = gone.arrives, list(gone.entry)
    state.pieces[uid] = fresh


def _pool(state: BcsState, side: str, formation: str, named: list[str]) -> list[Piece]:
    """side's units off the map of a Formation (any, if it has none), not named by the order,
    those of uncertain name first, then by counter."""
    off = [p for p in sorted(state.pieces.values(),
                             key=lambda p: (not p.id.endswith(POOL), _base(p.id)))
           if p.side == side and p.kind == "unit" and p.status == "off" and p.id not in named]
    return [p for p in off if p.formation == formation] or off


def _walks(walk: Any, state: BcsState, p: Piece, order: Any) -> bool:
    try:
        walk(state, p, list(order.path), {p.id})
    except IllegalOrder:
        return False
    return True


def _move_reveals(state: BcsState, side: str, order: Any) -> list[tuple[str, str]]:
    """The tops a move makes (5.5e): of the units left behind, and of the stack it ends in; and
    each moving unit under a top, unseen by the other side, whose stand-in there would walk
    otherwise: one that moved before in this Activation (its stand-in walked that way as the
    unit its pool guessed or as a copy of a top, so its class, MA and MP spent are a guess's,
    which 5.1b, 5.2c and 6.0g read), and one that leaves its top behind when a copy of that
    top would walk with another class or MA (a Truck's copy refused a Leg's step into
    prohibited terrain: the bulk exchange's sealed 5.2, session 23)."""
    moving = [state.pieces[u] for u in order.units if u in state.pieces
              and state.pieces[u].kind == "unit" and state.pieces[u].status == "map"]
    if not moving:
        return []
    out: list[tuple[str, str]] = []
    tops = _tops(state, side)
    ids = {p.id for p in moving}
    for p in sorted(moving, key=lambda p: p.id):
        if p.revealed or not _hidden_id(state, p, tops):
            continue
        top = state.pieces[tops[p.hex]]
        if p.moved or (top.id not in ids and _walk_profile(p) != _walk_profile(top)):
            out += _slot_facts(state, side, p.id, ("unit", "face"))     # (.mp goes with .unit)
    for h in {p.hex for p in moving}:
        rest = [p for p in _hex_units(state, side, h) if p.id not in ids]
        if rest:
            out += _slot_facts(state, side, top_unit(rest).id, ("unit", "face"))
    end = order.path[-1] if order.path else ""
    if end:
        there = [p for p in _hex_units(state, side, end) if p.id not in ids] + moving
        out += _slot_facts(state, side, top_unit(there).id, ("unit", "face"))
    return out


def _walk_profile(p: Piece) -> tuple[tuple[str, int], ...]:
    """What a walk reads of a unit's counter, on either of its sides (a stand-in's side may be
    a guess): its movement class and printed MA."""
    return tuple((mclass(q), printed_ma(q))
                 for q in (msgspec.structs.replace(p, face=f) for f in ("move", "deployed")))


def opened_units(state: BcsState, side: str, order: Any) -> list[str]:
    """The units whose identity an order opens (its reveals' `.unit` facts), by this state's
    piece ids."""
    out = []
    for owner, fact in reveals(state, side, order):
        m = _FACT.match(fact)
        if m and m.group(3) == "unit":
            pid = piece_of(state, owner, int(m.group(2)))
            if pid is not None:
                out.append(pid)
    return out


def mark_seen(state: BcsState, units: list[str] = ()) -> None:
    """``Piece.revealed`` for what the other side has seen of a unit's identity in a sealed
    game: the units given (opened by an order) and every stack's top (5.5e); its knowledge
    state keeps them (view.secrets lists the others)."""
    for pid in units:
        if pid in state.pieces:
            state.pieces[pid].revealed = True
    for side in SIDES:
        for top in _tops(state, side).values():
            state.pieces[top].revealed = True


def disclose(state: BcsState, owner: str, opened: dict[str, Any]) -> None:
    """Write opened facts of owner into a knowledge state (facts of the other side, of unknown
    slots, or of a state where owner is not concealed, are ignored)."""
    if owner not in state.concealed:
        return
    known = state.known.setdefault(owner, [])
    ordered = sorted(opened.items(), key=lambda kv: (not kv[0].endswith(".unit"), kv[0]))
    for fact, value in ordered:
        if not fact.startswith(f"{owner}-") and not fact.startswith(f"{owner}."):
            continue
        if _disclose_one(state, owner, fact, value) and fact not in known:
            known.append(fact)
    rebase_standins(state)


_MAX_STEPS = 9         # no BCS counter has more steps


def _is_mp(value: Any) -> bool:
    """True if an opened `.mp` value has the shape facts() gives: {mp: MP spent, stopped: the
    rule id of a STOP executed or ""}, within bounds (a cheater's commitment may hold anything)."""
    return (isinstance(value, dict) and set(value) == {"mp", "stopped"}
            and isinstance(value["mp"], int) and not isinstance(value["mp"], bool)
            and 0 <= value["mp"] <= _MAX_MP and isinstance(value["stopped"], str)
            and _STOP.match(value["stopped"]) is not None)


def _disclose_one(state: BcsState, owner: str, fact: str, value: Any) -> bool:
    from pbem.games.bcs.board import bdata

    m = _FACT.match(fact)
    if m:
        n = int(m.group(2))
        pid = piece_of(state, owner, n)
        if pid is None:
            return False
        p = state.pieces[pid]
        what = m.group(3)
        if what == "unit":
            if not isinstance(value, str) or value == pid:
                return value == pid
            try:
                u = bdata().units[value]
            except KeyError:
                return False
            if STANDIN_MARK in value or u.side != owner or not _unpick(state, owner, n, value):
                return False
            state.pieces.pop(pid)
            p.id, p.formation = value, u.formation
            state.pieces[value] = p
            state.slots[owner].pop(pid)
            state.slots[owner][value] = n
            _rename_refs(state, pid, value)
            return True
        if what == "formation":
            f = state.formations.get(value) if isinstance(value, str) else None
            if f is None or f.side != owner:
                return False
            p.formation = value
            return True
        if what == "face" and value in ("move", "deployed"):
            p.face = value
            return True
        if what == "steps" and isinstance(value, int) and not isinstance(value, bool) \
                and 1 <= value <= _MAX_STEPS:
            p.steps = value
            return True
        if what == "mp" and _is_mp(value):
            p.mp, p.stopped = value["mp"], value["stopped"]
            return True
        if what == "pd" and isinstance(value, bool):
            f = state.formations.get(p.formation)
            if f is None or f.side != owner:
                return False
            f.prepared_defense = value
            return True
        return False
    priv = state.private[owner]
    if fact == f"{owner}.air" and isinstance(value, int):
        priv.air_points = value
        return True
    if fact == f"{owner}.arty" and isinstance(value, dict):
        priv.arty_pool, priv.arty_free = value.get("pool", 0), value.get("free", 0)
        priv.arty_assigned = dict(value.get("assigned", {}))
        return True
    if fact == f"{owner}.{OBJECTIVE_FACT}" and value in OBJECTIVES and owner == "axis":
        priv.objective = value
        return True
    if fact == f"{owner}.rebuilding" and isinstance(value, dict):
        priv.rebuilding = dict(value)
        return True
    parts = fact.split(".")
    if len(parts) == 3 and parts[1] == OFF_MAP and _entries_value(value):
        f = state.formations.get(parts[2])
        if f is not None and f.side == owner:
            priv.off_map[parts[2]] = {k: list(value[k]) for k in ("attack", "spot")}
            return True
        return False
    if len(parts) == 3 and parts[1] == "pd" and isinstance(value, bool):
        f = state.formations.get(parts[2])
        if f is not None and f.side == owner:
            f.prepared_defense = value
            return True
    return False


def _entries_value(value: Any) -> bool:
    """Whether value has the shape of an S.offmap.F fact: {"attack": [hex...], "spot": [...]}."""
    return isinstance(value, dict) and set(value) == {"attack", "spot"} and all(
        isinstance(v, list) and all(isinstance(h, str) for h in v) for v in value.values())


def _unpick(state: BcsState, owner: str, n: int, uid: str) -> bool:
    """Before slot n's stand-in becomes the unit uid: the unit its entry took from the pool
    (``picked``) goes back there if uid was still in the pool, or to the stand-in that took uid;
    False when uid is a piece elsewhere (the opening does not fit this state)."""
    picked = state.picked.setdefault(owner, {})
    mine = picked.pop(str(n), None)
    q = state.pieces.get(uid) or state.pieces.get(uid + POOL)
    if q is not None:
        if q.status != "off" or q.side != owner:
            if mine is not None:
                picked[str(n)] = mine
            return False
        del state.pieces[q.id]               # uid was in the pool: the unit taken goes back
        if mine is not None:
            _uncertain(state, mine)
        return True
    where = next((k for k, x in picked.items() if _base(x.id) == uid), None)
    if where is not None:                    # another stand-in took uid: it takes this one's
        if mine is not None:
            picked[where] = mine
        else:
            del picked[where]
    return True


def rebase_standins(state: BcsState) -> None:
    """Keep a knowledge state's stand-ins under their tops (5.5e): in each hex where the
    concealed side has stand-ins and known units, every stand-in becomes a copy of the known
    top (``TOP--standinN``, N its slot), so none outranks the unit the view shows on top."""
    for side in state.concealed:
        by_hex: dict[str, list[Piece]] = {}
        for p in _map_units(state, side):
            by_hex.setdefault(p.hex, []).append(p)
        for units in by_hex.values():
            known = [p for p in units if STANDIN_MARK not in p.id]
            if not known:
                continue
            top = top_unit(known)
            for p in units:
                base = p.id.partition(STANDIN_MARK)[0]
                if STANDIN_MARK not in p.id or base == top.id:
                    continue
                n = state.slots.get(side, {}).get(p.id)
                if n is None:
                    continue
                new = f"{top.id}{STANDIN_MARK}{n}"
                old = p.id
                state.pieces.pop(old)
                p.id = new
                if f"{slot_name(side, n)}.formation" not in state.known.get(side, []) \
                        and str(n) not in state.picked.get(side, {}):
                    # (a unit that entered in an Activation is of its Formation: public)
                    p.formation = top.formation
                state.pieces[new] = p
                state.slots[side].pop(old)
                state.slots[side][new] = n
                _rename_refs(state, old, new)


def _rename_refs(state: BcsState, old: str, new: str) -> None:
    """A stand-in renamed to its unit: the Activation's lists follow it."""
    act = state.activation
    if act is not None:
        act.stack = [new if u == old else u for u in act.stack]
        act.dropped = [new if u == old else u for u in act.dropped]
