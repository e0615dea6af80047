"""Attacks (HF-9.4, HF-4 support units, TEC combat effects): checks, dice, hits."""

from __future__ import annotations

from itertools import permutations
from typing import Any, Callable, Iterator, Sequence

import msgspec

from pbem.core.standing import answer
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.holdfast.board import overstacked, side_at
from pbem.games.holdfast.data import World
from pbem.games.holdfast.orders import HIT_MODES, Attack  # noqa: F401 (HIT_MODES re-exported)
from pbem.games.holdfast.state import HoldfastState, PendingHits, enemy
from pbem.games.holdfast.supply import activation_supply, in_supply, net_for

MAX_PERMUTED = 6   # beyond this many attackers the allocation choice is always asked


class Plan(msgspec.Struct, kw_only=True):
    """A checked attack, ready to resolve."""

    hex: str
    defender: str
    units: list[str]
    support: list[str]
    supplied: dict[str, bool]
    dice: dict[str, int]          # attacker id -> dice after supply and terrain
    crossing: list[str]           # attackers crossing a bridge hexside
    air: int                      # 0, or 1 + the air die's modifier (air joins the attack)
    extra: int                    # leader/kampfgruppe/combat team dice
    cost: int
    hits: list[str]
    claims: dict[str, str] = {}   # minor port -> attacker it supplies (HF-9-b, HF-10-k)


def support_kind(w: World, uid: str) -> str:
    """'leader', 'air' or 'team' (kampfgruppe or combat team) for a support unit."""
    s = w.units[uid].support
    return "team" if s in ("kampfgruppe", "combat_team") else s


def one_support_per_kind(w: World, support: list[str], weather: str) -> list[str]:
    """At most one support unit of each kind, in the given order; air only in clear weather."""
    out: list[str] = []
    kinds: set[str] = set()
    for s in support:
        k = support_kind(w, s)
        if k not in kinds and (k != "air" or weather == "clear"):
            kinds.add(k)
            out.append(s)
    return out


def unit_dice(w: World, uid: str, att_hex: str, def_hex: str, supplied: bool) -> int:
    """One attacker's dice: DRC, -1 out of supply, hex and hexside modifiers, floored at 0."""
    n = w.units[uid].drc
    if not supplied:
        n += w.oos(w.units[uid].type).dice                   # HF-10-a / HF-10-e
    n += w.hex_terrain(w.terrain(def_hex)).attacker_dice     # HF-TEC-c (rough -1)
    for k in w.side_kinds(att_hex, def_hex):
        n += w.tables.hexside[k].attacker_dice               # HF-2-d (escarpment ...)
    return max(n, 0)                                         # HF-G11


def check_support(state: HoldfastState, w: World, support: Any,
                  used: Any) -> dict[str, str]:
    """The public checks of an attack's support units (one of each kind, used once a turn,
    weather): kind -> unit id; IllegalOrder otherwise. used(sid): True if it supported an
    attack this turn. Shared with the sealed check of a projected attack."""
    pub = state.public
    kinds: dict[str, str] = {}
    for sid in support:
        if used(sid):
            raise IllegalOrder(f"{sid} has already supported an attack this turn", rule="HF-4-c")
        k = support_kind(w, sid)
        if k in kinds:
            raise IllegalOrder(f"only one {k.replace('team', 'Kampfgruppe or Combat Team')} "
                               f"may join an attack", rule="HF-9.4-b")
        kinds[k] = sid
        if k == "air" and w.air_banned(sid, pub.weather):
            raise IllegalOrder("air support is prohibited in poor weather", rule="HF-7-c")
        if (w.units[sid].support == "combat_team" and pub.weather == "poor"
                and pub.options["combat_team_weather"] == "clear-only"):
            raise IllegalOrder("the Combat Team is clear-weather only (house option)",
                               rule="HF-4-i")
    return kinds


def check_some_dice(state: HoldfastState, dice: dict[str, int], extra: int, air: int) -> None:
    """HF-G11 option min_attack_dice: an attack rolling no die at all is illegal."""
    if state.public.options["min_attack_dice"] and sum(dice.values()) + extra + bool(air) < 1:
        raise IllegalOrder("the attack would roll no die (house option)", rule="HF-9.4-e")


def _defender(state: HoldfastState, side: str, target: str) -> str | None:
    """The id of the enemy block in target (the first by key), or None where side_at would
    not name the enemy there (no enemy block; for the Allies, also an Allied block there)."""
    foe = state.private[enemy(side)].units
    keys = [k for k, u in foe.items() if u.hex == target and u.where == "map"]
    if not keys or side == "allied" and side_at(state, target) == "allied":
        return None
    return foe[min(keys)].id


def check_attack(state: HoldfastState, w: World, side: str, o: Attack) -> Plan:
    """Validate an attack order against every rule; IllegalOrder if anything forbids it."""
    pub = state.public
    units = state.private[side].units
    target = w.resolve(o.hex)
    if not target:
        raise IllegalOrder(f"unknown hex or place {o.hex!r}", rule="HF-9.4-a")
    if not o.units:
        raise IllegalOrder("an attack needs at least one attacking block", rule="HF-9.4-b")
    defender = _defender(state, side, target)
    if defender is None:
        raise IllegalOrder(f"{target} holds no enemy block", rule="HF-9.4-a")
    for uid in o.units:
        u = units.get(uid)
        if u is not None and w.units[uid].type == "support":
            raise IllegalOrder(f"support unit {uid} cannot attack by itself", rule="HF-9.4-c")
        if u is None:
            raise IllegalOrder(f"{uid} is not one of your combat units", rule="HF-9.4-b")
        if u.where != "map":
            raise IllegalOrder(f"{uid} is not on the map", rule="HF-9.4-b")
        if u.attacked:
            raise IllegalOrder(f"{uid} has already attacked this turn", rule="HF-9-a")
        if overstacked(state, side, u.hex):
            raise IllegalOrder(f"{uid} is in an overstacked hex and cannot attack",
                               rule="HF-9.4-j")
        if not w.adjacent(u.hex, target) or w.zoc_blocked(u.hex, target):
            raise IllegalOrder(f"{target} is not in the ZOC of {uid}", rule="HF-9.4-a")
    for sid in o.support:
        u = units.get(sid)
        if u is None or w.units[sid].type != "support":
            raise IllegalOrder(f"{sid} is not one of your support units", rule="HF-9.4-b")
        if u.where != "offmap":
            raise IllegalOrder(f"{sid} has not arrived", rule="HF-9.4-b")
    kinds = check_support(state, w, o.support, lambda sid: units[sid].used)
    if o.hits and sorted(o.hits) != sorted(o.units):
        raise IllegalOrder("'hits' must list each attacking unit once", rule="HF-9.4-f")
    nats = {w.units[uid].nationality for uid in o.units}
    if pub.options["joint_support"] == "count":
        nats |= {w.units[sid].nationality for sid in o.support}
    joint = len(nats) > 1
    cost = w.rp_cost("joint_attack" if joint else "attack")
    if pub.rp[side] < cost:
        raise IllegalOrder(f"the attack costs {cost} RP{' (joint nationality)' if joint else ''}; "
                           f"{pub.rp[side]} RP left", rule="HF-6-f" if joint else "HF-6-d")
    net = net_for(state, w, side)
    # HF-9-b: every attacker is checked as it is activated and claims the minor port it relies
    # on (HF-10-k); attackers of one attack are checked in the order listed.
    supplied, claims = activation_supply(state, w, side, list(o.units), net)
    dice = {uid: unit_dice(w, uid, units[uid].hex, target, supplied[uid]) for uid in o.units}
    extra = sum(1 for k in kinds if k in ("leader", "team"))
    air = 1 + getattr(w.units[kinds["air"]], "die_modifier", 1) if "air" in kinds else 0
    check_some_dice(state, dice, extra, air)
    crossing = [uid for uid in o.units if any(
        getattr(w.tables.hexside[k], "bonus_hits_to_crosser", k == "bridge")
        for k in w.side_kinds(units[uid].hex, target))]
    return Plan(hex=target, defender=defender, units=list(o.units), support=list(o.support),
                supplied=supplied, dice=dice, crossing=crossing, air=air, extra=extra,
                cost=cost, hits=list(o.hits), claims=claims)


def _signed(n: int) -> str:
    return f"{n:+d}"


def _attacker_why(w: World, uid: str, att_hex: str, def_hex: str, supplied: bool,
                  n: int) -> str:
    """Log text: one attacker's dice and where they come from (the terms of unit_dice)."""
    terms: list[tuple[str, int]] = []
    if not supplied:
        terms.append(("out of supply", w.oos(w.units[uid].type).dice))
    t = w.terrain(def_hex)
    terms.append((f"{t} defender hex", w.hex_terrain(t).attacker_dice))
    terms += [(f"attacking across {k}", w.tables.hexside[k].attacker_dice)
              for k in sorted(w.side_kinds(att_hex, def_hex))]
    raw = w.units[uid].drc + sum(m for _, m in terms)
    parts = [f"DRC {w.units[uid].drc}"] + [f"{name} {_signed(m)}" for name, m in terms if m]
    return f"{uid} {n} ({', '.join(parts)}{', at least 0' if raw < 0 else ''})"


def _attack_dice_text(w: World, plan: Plan, mine: dict[str, Any]) -> str:
    """Log text: why the attack rolls the dice it rolls (units, support, air)."""
    terms = [_attacker_why(w, u, mine[u].hex, plan.hex, plan.supplied[u], plan.dice[u])
             for u in plan.units]
    for sid in plan.support:
        k = support_kind(w, sid)
        if k in ("leader", "team"):
            terms.append(f"{w.units[sid].name} [{sid}] +1 die")
    a_n = sum(plan.dice.values()) + plan.extra
    text = f"{a_n} attack dice: " + "; ".join(terms)
    if plan.air:
        air = next(s for s in plan.support if support_kind(w, s) == "air")
        text += f"; plus {w.units[air].name} [{air}]: one separate die at {_signed(plan.air - 1)}"
    return text


def _defence_dice_text(w: World, plan: Plan, d_n: int, base_terms: list[str],
                       d_bonus_text: list[str]) -> str:
    """Log text: why the defender rolls the dice it rolls (DRC, town, port, hexsides)."""
    text = f"{d_n} defence dice ({', '.join(base_terms)})"
    if d_bonus_text:
        text += "; bonus dice: " + "; ".join(d_bonus_text)
    return text


def _marked(values: list[int], th: int) -> str:
    """Dice values with the hits (at or above th) starred."""
    return " ".join(f"{v}*" if v >= th else str(v) for v in values) or "no dice"


def _label(w: World, u: Any) -> str:
    spec = w.units[u.id]
    return f"{spec.name} [{u.id}] ({spec.type}, {spec.drc}-{spec.th}-{spec.mp}, SP {u.sp})"


def resolve(state: HoldfastState, w: World, side: str, plan: Plan, ctx: Context) -> None:
    """Reveal the blocks, roll both pools, apply simultaneous hits (HF-9.4-d..i)."""
    pub = state.public
    mine = state.private[side].units
    foe_side = enemy(side)
    dfd = state.private[foe_side].units[plan.defender]
    att_text = ", ".join(_label(w, mine[u]) + ("" if plan.supplied[u] else " out of supply")
                         for u in plan.units)
    sup_text = ", ".join(f"{w.units[s].name} [{s}]" for s in plan.support) or "none"
    ctx.log(f"combat at {w.label(plan.hex)}: {side} attacks with {att_text}; support {sup_text}; "
            f"defender {_label(w, dfd)}", kind="combat", hexes=(plan.hex,))
    # defender pool (HF-9.4-e, HF-TEC-d/e/h)
    dspec = w.units[plan.defender]
    kinds = w.map.place_kinds(plan.hex)
    d_n = dspec.drc
    d_bonus: list[tuple[int, bool]] = []     # (modifier, is bridge die)
    for k in sorted(kinds):
        row = w.tables.place.get(k)
        if row is not None:
            d_n += row.defender_dice
            d_bonus += [(row.bonus_modifier, False)] * row.defender_bonus_dice
    crossed: set[str] = set()
    for uid in plan.units:
        crossed |= w.side_kinds(mine[uid].hex, plan.hex)
    for k in sorted(crossed):
        row = w.tables.hexside[k]
        to_crosser = getattr(row, "bonus_hits_to_crosser", k == "bridge")
        d_bonus += [(row.bonus_modifier, to_crosser)] * row.defender_bonus_dice
    if pub.options["oos_defender_penalty"] and not in_supply(state, w, foe_side, plan.defender):
        d_n -= 1
    d_n = max(d_n, 0)
    a_n = sum(plan.dice.values()) + plan.extra
    where = f"combat at {plan.hex}"
    ctx.log(f"{where}: {side} rolls {_attack_dice_text(w, plan, mine)}", kind="combat",
            hexes=(plan.hex,))
    ctx.log(f"{where}: {foe_side} rolls " + _defence_dice_text(
        w, plan, d_n,
        [f"DRC {dspec.drc}"]
        + [f"{k} {_signed(w.tables.place[k].defender_dice)}" for k in sorted(kinds)
           if k in w.tables.place and w.tables.place[k].defender_dice]
        + (["defender out of supply -1 (house option)"] if pub.options["oos_defender_penalty"]
           and not in_supply(state, w, foe_side, plan.defender) else []),
        [f"{w.tables.place[k].defender_bonus_dice} {k} die at "
         f"{_signed(w.tables.place[k].bonus_modifier)}" for k in sorted(kinds)
         if k in w.tables.place and w.tables.place[k].defender_bonus_dice]
        + [f"{w.tables.hexside[k].defender_bonus_dice} {k} hexside die at "
           f"{_signed(w.tables.hexside[k].bonus_modifier)}"
           + (" (hits only a unit attacking across it)"
              if getattr(w.tables.hexside[k], "bonus_hits_to_crosser", k == "bridge")
              and pub.options["bridge_die_hits"] != "any" else "")
           for k in sorted(crossed) if w.tables.hexside[k].defender_bonus_dice]),
        kind="combat", hexes=(plan.hex,))
    a_rolls = ctx.rolls_of(a_n, 6, f"{where}: {side} attack dice") if a_n else []
    air_roll = ctx.roll(6, f"{where}: {side} air support die (+{plan.air - 1})") if plan.air else None
    d_rolls = ctx.rolls_of(d_n, 6, f"{where}: {foe_side} defence dice") if d_n else []
    b_rolls = [(ctx.roll(6, f"{where}: {foe_side} {'bridge' if br else 'terrain'} bonus die "
                           f"(+{mod})"), mod, br) for mod, br in d_bonus]
    # every die is rolled: only now does the state change (NoDice checks leave it untouched)
    pub.rp[side] -= plan.cost
    state.private[side].minor_ports.update(plan.claims)     # HF-9-b, HF-10-k
    pub.combats.append(plan.hex)
    pub.step = "act"
    for uid in plan.units:
        mine[uid].attacked = True
        mine[uid].revealed = True
    for sid in plan.support:
        mine[sid].used = True
        mine[sid].revealed = True
    dfd.revealed = True
    # hits on the defender (one block)
    a_vals = list(a_rolls) + ([air_roll + plan.air - 1] if air_roll is not None else [])
    d_hits = sum(1 for v in a_vals if v >= dspec.th)
    # hits on the attackers: every die, its modified value, and whether it is a bridge die
    dice = [[v, v, 0] for v in d_rolls] + [[v + m, v, 1 if br else 0] for v, m, br in b_rolls]
    if pub.options["bridge_die_hits"] == "any":
        dice = [[a, b, 0] for a, b, _ in dice]
    ctx.log(f"{where}: {side} rolls {a_vals or 'no dice'} -> {d_hits} hit(s) on the defender; "
            f"{foe_side} rolls {[d[0] for d in dice] or 'no dice'}", kind="combat",
            hexes=(plan.hex,))
    ctx.log(f"{where}: a die at or above the defender's TH {dspec.th} hits: "
            f"{_marked(a_vals, dspec.th)} -> {d_hits} hit(s) on {plan.defender}; the defender's "
            f"dice (after modifiers) {' '.join(str(d[0]) for d in dice) or 'none'} hit an attacker "
            f"whose TH "
            f"they meet (" + ", ".join(f"{u} TH {w.units[u].th}" for u in plan.units) + ")",
            kind="combat", hexes=(plan.hex,))
    apply_hits(state, w, foe_side, plan.defender, d_hits, ctx)
    pending = PendingHits(hex=plan.hex, attackers=list(plan.units), dice=dice,
                          crossing=list(plan.crossing))
    if plan.hits:
        _apply_allocation(state, w, side, pending, plan.hits, ctx)
    elif not has_choice(state, w, side, pending):
        _apply_allocation(state, w, side, pending, plan.units, ctx)
    elif answer(state.private[side].standing, "hits") is not None:
        mode = answer(state.private[side].standing, "hits")
        order = standing_allocation(state, w, side, plan.units, mode)
        ctx.log(f"{where}: hits allocated by {side}'s standing order", visible_to=side,
                hexes=(plan.hex,))
        _apply_allocation(state, w, side, pending, order, ctx)
    else:
        state.private[side].pending_hits = pending
        pub.phase = "allocate"
        ctx.log(f"{where}: the attacker must allocate the defender's hits", hexes=(plan.hex,))


def standing_allocation(state: HoldfastState, w: World, side: str, units: list[str] | tuple[str, ...],
                        mode: str) -> list[str]:
    """The priority order a standing 'hits' mode gives for the attacking units."""
    if mode == "as-listed":
        return list(units)
    own = state.private[side].units
    key = sorted(units, key=lambda u: (own[u].sp, w.units[u].drc, u))
    return key if mode == "weakest-first" else list(reversed(key))


def distribute(state: HoldfastState, w: World, side: str, pending: PendingHits,
               order: list[str] | tuple[str, ...]) -> dict[str, int]:
    """Hits per attacker for a priority order: each die to the first eligible unit listed."""
    return _distributor(state, w, side, pending)(order)


def _distributor(state: HoldfastState, w: World, side: str,
                 pending: PendingHits) -> Callable[[Sequence[str]], dict[str, int]]:
    """distribute for one pending combat: the dice sorted and the units read once, for as
    many priority orders as allocation_outcomes tries."""
    units = state.private[side].units
    sp = {u: units[u].sp for u in pending.attackers}
    th = {u: w.units[u].th for u in pending.attackers}
    armor = {u for u in pending.attackers if w.units[u].type == "armor"}
    dice = sorted(pending.dice, key=lambda d: (-d[2], -(d[1] == 6 or d[0] >= 6), -d[0]))

    def hits(order: Sequence[str]) -> dict[str, int]:
        cap = dict(sp)
        got = dict.fromkeys(pending.attackers, 0)
        for value, raw, bridge in dice:
            cands = [u for u in order if cap[u] > 0 and th[u] <= value]
            if bridge:
                cands = [u for u in cands if u in pending.crossing]      # HF-G12 / HF-TEC-h
            if raw == 6 or value >= 6:
                arm = [u for u in cands if u in armor]                   # HF-9.4-h
                cands = arm or cands
            if cands:
                cap[cands[0]] -= 1
                got[cands[0]] += 1
        return got
    return hits


def allocation_outcomes(state: HoldfastState, w: World, side: str,
                        pending: PendingHits) -> set[tuple[int, ...]]:
    """The distinct results the attacker could choose between (a real choice if more than one)."""
    if len(pending.attackers) > MAX_PERMUTED:
        return {(0,), (1,)}
    return set(_outcomes(state, w, side, pending))


def has_choice(state: HoldfastState, w: World, side: str, pending: PendingHits) -> bool:
    """True if allocation_outcomes holds more than one result (stops at the second found)."""
    if len(pending.attackers) > MAX_PERMUTED:
        return True
    # only the order of the units some die could hit matters (a die goes to the first listed
    # unit with SP left whose TH it meets, across the bridge for a bridge die): the others
    # never get one, whatever their place
    units = state.private[side].units
    open_to = [u for u in pending.attackers if units[u].sp > 0 and any(
        w.units[u].th <= value and (not bridge or u in pending.crossing)
        for value, _, bridge in pending.dice)]
    if len(open_to) < 2:
        return False
    hits = _distributor(state, w, side, pending)
    results = permutations(open_to)
    first = hits(next(results))
    return any(hits(order) != first for order in results)


def _outcomes(state: HoldfastState, w: World, side: str,
              pending: PendingHits) -> Iterator[tuple[int, ...]]:
    """The result of every priority order of the attackers (hits per attacker, listed order)."""
    hits = _distributor(state, w, side, pending)
    for order in permutations(pending.attackers):
        got = hits(order)
        yield tuple(got[u] for u in pending.attackers)


def _apply_allocation(state: HoldfastState, w: World, side: str, pending: PendingHits,
                      order: list[str] | tuple[str, ...], ctx: Context) -> None:
    got = distribute(state, w, side, pending, order)
    ctx.log(f"combat at {pending.hex}: the defender's dice "
            f"{' '.join(str(d[0]) + (' (bridge)' if d[2] else '') for d in pending.dice) or 'none'}"
            f" go, bridge dice first, then sixes, then the highest, each to the first unit of "
            f"the order {', '.join(order)} whose TH it meets and that has SP left"
            f"{' (a six to armor first)' if any(w.units[u].type == 'armor' for u in order) else ''}"
            + (f"; bridge dice only to {', '.join(pending.crossing) or 'no unit'} (attacking "
               f"across the bridge)" if any(d[2] for d in pending.dice) else "")
            + ": " + ", ".join(f"{u} {got[u]} hit(s)" for u in order), kind="combat",
            hexes=(pending.hex,))
    for uid in pending.attackers:
        if got[uid]:
            apply_hits(state, w, side, uid, got[uid], ctx)
    if not any(got.values()):
        ctx.log(f"combat at {pending.hex}: no hit on the attackers", kind="combat",
                hexes=(pending.hex,))


def finish_allocation(state: HoldfastState, w: World, side: str, order: tuple[str, ...],
                      ctx: Context) -> None:
    """Apply the attacker's allocation order to the pending hits and resume the turn."""
    pending = state.private[side].pending_hits
    assert pending is not None
    if sorted(order) != sorted(pending.attackers):
        raise IllegalOrder("'allocate' must list each attacking unit once", rule="HF-9.4-f")
    _apply_allocation(state, w, side, pending, order, ctx)
    state.private[side].pending_hits = None
    state.public.phase = "turn"


def apply_hits(state: HoldfastState, w: World, side: str, uid: str, hits: int,
               ctx: Context) -> None:
    """HF-9.4-i: each hit removes one SP; below 1 SP the unit is eliminated."""
    if hits <= 0:
        return
    u = state.private[side].units[uid]
    name = f"{w.units[uid].name} [{uid}]"
    u.sp -= min(hits, u.sp)
    if u.sp <= 0:
        hex_id = u.hex
        u.where, u.hex, u.sp = "eliminated", "", 0
        lost = state.public.lost
        lost[side] = lost.get(side, 0) + 1       # public: bounds a sealed 'seen rebuild'
        ctx.log(f"{side} {name} in {hex_id} is eliminated", kind="loss", hexes=(hex_id,))
    else:
        ctx.log(f"{side} {name} in {u.hex} loses {hits} SP", kind="loss", hexes=(u.hex,))
