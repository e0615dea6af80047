"""Bombardment (8.1) and ground combat (8.2): declaration, the five support-fire steps, the CRT."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.kasserine.state import standing_of
from pbem.games.kasserine import results
from pbem.games.kasserine.board import (fortified_unit, hexside_kinds, label, occupancy, values)
from pbem.games.kasserine.orders import Attack, Bombard
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.state import Combat, KasserineState, Wait, other
from pbem.games.kasserine.support import commit_facedown, draw, reveal, unused_count
from pbem.games.kasserine.victory import check_sudden_death

#: CRT rows from best for the attacker to best for the defender (crt.toml's ladder, 8.2.2).
ROW_ORDER = ("clear", "bridge", "city_rough_river", "mountain", "minefield", "fortification")


def best_row(rows: set[str]) -> str:
    """The row most beneficial to the defender (8.2.2-d)."""
    return max(rows, key=lambda r: ROW_ORDER.index(r) if r in ROW_ORDER else len(ROW_ORDER))


def crt_row(state: KasserineState, data: KasserineData, target: str, attackers: list[str],
            bombard: bool, defender: str = "") -> str:
    """The CRT row of an attack: hex terrain, plus hexsides for ground combat (8.1.4, 8.2.2, 14.2).
    defender: the unit in target, when the caller knows it."""
    dside = state.units[defender or occupancy(state)[target]].side
    rows = data.hex_crt_rows(target, dside)
    if not bombard and attackers:
        kinds = [hexside_kinds(data, state.units[a].hex, target) for a in attackers]
        if all("river" in k for k in kinds):
            bridged = any("bridge" in k for k in kinds)
            rows.add(data.tec.hexside["bridge" if bridged else "river"].crt_row)
        mine = data.tec.hexside.get("minefield")
        if mine is not None and any("minefield" in k for k in kinds) and (
                not mine.crt_attackers or state.active in mine.crt_attackers):
            rows.add(mine.crt_row)
    rows.discard("")
    return best_row(rows)


def _common_checks(state: KasserineState, side: str, target: str, empty_rule: str = "KAS-8.0-d") -> str:
    if state.combat is not None:
        raise IllegalOrder("finish the current attack first", rule="KAS-8.0-e")
    if side != state.active:
        raise IllegalOrder("only the active player attacks", rule="KAS-8.0-a")
    occ = occupancy(state)
    defender = occ.get(target)
    if defender is None or state.units[defender].side == side:
        raise IllegalOrder(f"{target} holds no enemy unit", rule=empty_rule)
    if defender in state.targets:
        raise IllegalOrder(f"{defender} was already attacked this phase", rule="KAS-8.0-c")
    return defender


def _row_why(state: KasserineState, data: KasserineData, target: str, attackers: list[str],
             bombard: bool, row: str, defender: str) -> str:
    """Log text: the CRT rows the defender's position offers and why, and the one that applies."""
    dside = state.units[defender].side
    why = [f"{data.map.terrain[target]} hex: {data.tec.hex[data.map.terrain[target]].crt_row}"]
    why += [f"{k}: {data.tec.place[k].crt_row}" for k in sorted(data.map.place_kinds(target))
            if data.tec.place[k].crt_row]
    why += [f"{name}: {eff.crt_row}" for name, eff in sorted(data.tec.hexset.items())
            if target in data.hexset.get(name, ()) and eff.crt_row
            and (not eff.crt_sides or dside in eff.crt_sides)]
    if not bombard and attackers:
        kinds = [hexside_kinds(data, state.units[a].hex, target) for a in attackers]
        if all("river" in k for k in kinds):
            k = "bridge" if any("bridge" in x for x in kinds) else "river"
            why.append(f"every attacker across a {k}: {data.tec.hexside[k].crt_row}")
        mine = data.tec.hexside.get("minefield")
        if mine is not None and any("minefield" in k for k in kinds) and (
                not mine.crt_attackers or state.active in mine.crt_attackers):
            why.append(f"attacking across a minefield: {mine.crt_row}")
    why = [w for w in why if not w.endswith(": ")]
    return f"row {row} ({'; '.join(why)}; the row best for the defender applies)"


def _strength_text(data: KasserineData, state: KasserineState, units: list[str], index: int,
                   markers: list[int], fort: bool, double: bool) -> str:
    """Log text: a strength as the sum of each unit's value and each marker's."""
    parts = [f"{u} {values(data, state, u)[index] * (2 if double else 1)}" for u in units]
    parts += [f"marker +{v // 2 if fort else v}" + (f" (+{v} halved)" if fort else "")
              for v in markers]
    return " + ".join(parts) or "0"


def declare_bombard(state: KasserineState, data: KasserineData, side: str, order: Bombard,
                    ctx: Context) -> None:
    """Check and resolve a bombardment: up to two markers drawn and stated (8.1.2)."""
    if state.phase != "bombardment":
        raise IllegalOrder("bombardment only in the Bombardment Phase", rule="KAS-8.1-a")
    defender = _common_checks(state, side, order.target, "KAS-8.1-c")
    if state.bombarded.get(order.target, 0) + order.markers > 2:
        raise IllegalOrder(f"at most two markers may bombard {order.target} in a player turn",
                           rule="KAS-8.1-c")
    if order.markers > unused_count(state, side):
        raise IllegalOrder(f"{side} has only {unused_count(state, side)} unused marker(s)",
                           rule="KAS-7.2-a")
    if order.loss:
        u = state.units.get(order.loss)
        if (u is None or u.side != side or u.status != "map"
                or order.target not in data.neighbours[u.hex]):
            raise IllegalOrder(f"{order.loss} is not a unit of yours adjacent to {order.target}",
                               rule="KAS-8.1.3-b")
    state.targets.append(defender)
    state.bombarded[order.target] = state.bombarded.get(order.target, 0) + order.markers
    c = Combat(kind="bombard", target=order.target, defender=defender, loss=order.loss, step=6)
    state.seq += 1
    vals = [draw(state, side, f"bombardment of {order.target}", ctx, public=True).value
            for _ in range(order.markers)]
    state.spent.setdefault(side, []).extend(vals)
    c.att_values = vals
    fort = fortified_unit(state, data, defender)
    strength = sum(v // 2 if fort else v for v in vals)
    defense = values(data, state, defender)[1] * (2 if fort else 1)
    c.diff = strength - defense
    c.row = crt_row(state, data, order.target, [], True, defender)
    c.die = ctx.roll(6, f"bombardment of {order.target}")
    cell = data.crt.result(c.row, c.diff, c.die)
    c.result = cell.bombardment()
    ctx.log(f"{side} bombards {label(data, state, defender)} in {order.target} with "
            f"{len(vals)} marker(s) totalling +{sum(vals)}"
            + (" (halved: fortified)" if fort else "")
            + f": {strength} ({_strength_text(data, state, [], 0, vals, fort, False)}) vs "
            f"{defense} ({_strength_text(data, state, [defender], 1, [], False, fort)}"
            f"{', doubled: fortified' if fort else ''}), differential {c.diff:+d}, "
            f"{_row_why(state, data, order.target, [], True, c.row, defender)}, column "
            f"{data.crt.column(c.row, c.diff)} (one die on the CRT), die {c.die}: {cell.result}"
            + (" (no effect in a bombardment)" if c.result != cell.result else ""),
            kind="combat", hexes=(order.target,))
    state.combat = c
    results.queue(state, data, c)
    run(state, data, ctx)


def declare_attack(state: KasserineState, data: KasserineData, side: str, order: Attack,
                   ctx: Context) -> None:
    """Check and declare a ground attack; the attacker's step 1 marker is placed at once (8.2.1)."""
    if state.phase not in ("combat", "mobile-combat"):
        raise IllegalOrder("ground attacks only in the Combat and Mobile Combat Phases",
                           rule="KAS-4.1-b")
    defender = _common_checks(state, side, order.target)
    if len(set(order.units)) != len(order.units):
        raise IllegalOrder("a unit is named twice", rule="KAS-8.2-g")
    for uid in order.units:
        u = state.units.get(uid)
        if u is None or u.side != side or u.status != "map":
            raise IllegalOrder(f"{uid} is not a unit of yours on the map", rule="KAS-8.0-a")
        if order.target not in data.neighbours[u.hex]:
            raise IllegalOrder(f"{uid} is not adjacent to {order.target}", rule="KAS-8.2-a")
        if state.phase == "mobile-combat" and not data.units[uid].mobile:
            raise IllegalOrder(f"{uid} is a leg unit: no attack in the Mobile Combat Phase",
                               rule="KAS-2.3-c")
        if u.barred:
            rule = "KAS-8.5-g" if u.barred == "advanced" else "KAS-8.3.1-e"
            raise IllegalOrder(f"{uid} {u.barred} this turn and may not attack", rule=rule)
        if u.attacked:
            rule = "KAS-8.2-b" if state.phase == "mobile-combat" else "KAS-8.2-c"
            raise IllegalOrder(f"{uid} has already attacked this turn", rule=rule)
        for k in hexside_kinds(data, u.hex, order.target):
            t = data.tec.hexside.get(k)
            if t is not None and t.prohibited:
                raise IllegalOrder(f"{uid} cannot attack across a prohibited hexside", rule="KAS-8.2-e")
    if order.sf > unused_count(state, side):
        raise IllegalOrder(f"{side} has only {unused_count(state, side)} unused marker(s)",
                           rule="KAS-7.2-a")
    for item in order.advance or []:
        if item.split(":")[0] not in order.units:
            raise IllegalOrder(f"only attacking units may advance ({item})", rule="KAS-8.5-d")
    if order.loss and order.loss not in order.units:
        raise IllegalOrder(f"the loss must be taken by an attacking unit ({order.loss})",
                           rule="KAS-8.2.4-c")
    state.targets.append(defender)
    for uid in order.units:
        state.units[uid].attacked = True
    state.seq += 1
    c = Combat(kind="ground", target=order.target, defender=defender, attackers=list(order.units),
               sf=order.sf, sf_ask=order.sf_ask, advance=order.advance, loss=order.loss, step=1)
    state.combat = c
    strength = sum(values(data, state, a)[0] for a in order.units)
    ctx.log(f"{side} attacks {label(data, state, defender)} in {order.target} with "
            f"{', '.join(label(data, state, a) for a in order.units)} (attack strength {strength})",
            kind="combat", hexes=(order.target,))
    if order.sf >= 1:
        commit_facedown(state, side, f"step 1 at {order.target}", ctx)
        c.att_down += 1
        ctx.log(f"step 1: {side} places a face-down support fire marker", kind="support")
    else:
        ctx.log(f"step 1: {side} places no marker", kind="support")
    c.step = 2
    run(state, data, ctx)


def declared_diff(state: KasserineState, data: KasserineData, c: Combat) -> int:
    """Unit strengths only: attack total minus (possibly doubled) defense."""
    fort = fortified_unit(state, data, c.defender)
    return (sum(values(data, state, a)[0] for a in c.attackers)
            - values(data, state, c.defender)[1] * (2 if fort else 1))


def standing_support(state: KasserineState, data: KasserineData, c: Combat) -> bool | None:
    """The defender's standing answer to support-fire step 2 or 4, or None to ask him."""
    st = standing_of(state.private[other(state.active)].standing)
    if st.support in ("", "ask"):
        return None
    if st.support_min is not None and declared_diff(state, data, c) < st.support_min:
        return False
    if st.support == "one":
        return c.step == 2
    if st.support == "two":
        return True
    if st.support == "match":
        step1 = min(c.sf, 1)                 # the step-1 marker is always the pre-committed one
        return (c.step == 2 and c.att_down >= 1) or (c.step == 4 and c.att_down > step1)
    return False


def defender_step(state: KasserineState, c: Combat, commit: bool, ctx: Context) -> None:
    """Carry out the defender's step 2 or 4 choice."""
    dside = other(state.active)
    if commit:
        commit_facedown(state, dside, f"step {c.step} at {c.target}", ctx)
        c.def_down += 1
        ctx.log(f"step {c.step}: {dside} places a face-down support fire marker", kind="support")
    else:
        ctx.log(f"step {c.step}: {dside} places no marker", kind="support")
    c.step += 1


def attacker_step(state: KasserineState, c: Combat, commit: bool, ctx: Context) -> None:
    """Carry out the attacker's step 3 choice (pre-committed, or answered under 'sf ask')."""
    if commit and unused_count(state, state.active) > 0:
        commit_facedown(state, state.active, f"step 3 at {c.target}", ctx)
        c.att_down += 1
        ctx.log(f"step 3: {state.active} places a face-down support fire marker", kind="support")
    else:
        ctx.log(f"step 3: {state.active} places no marker", kind="support")
    c.step = 4


def run(state: KasserineState, data: KasserineData, ctx: Context) -> None:
    """Advance the current combat until it ends or waits for a decision."""
    while state.combat is not None and state.wait is None and state.result is None:
        c = state.combat
        dside = other(state.active)
        if c.step in (2, 4):
            if unused_count(state, dside) == 0:
                c.step += 1
                continue
            answer = standing_support(state, data, c)
            if answer is None:
                state.wait = Wait(side=dside, kind="support", prompt=(
                    f"Support fire step {c.step} of the attack on {c.target}: the attacker has "
                    f"placed {c.att_down} marker(s), the defender {c.def_down}; answer 'support "
                    "yes' to place a face-down marker or 'support no'"))
                return
            defender_step(state, c, answer, ctx)
        elif c.step == 3:
            if c.sf_ask and unused_count(state, state.active) > 0:
                state.wait = Wait(side=state.active, kind="support", prompt=(
                    f"Support fire step 3 of your attack on {c.target}: the defender placed "
                    f"{c.def_down} face-down marker(s) at step 2, you {c.att_down}; answer "
                    "'support yes' to place a face-down marker or 'support no'"))
                return
            attacker_step(state, c, c.sf == 2, ctx)
        elif c.step == 5:
            _resolve_ground(state, data, c, ctx)
            c.step = 6
        else:
            if not c.tasks:
                state.last_combat = c
                state.combat = None
                check_sudden_death(state, data, ctx)      # losses may lift a US ZOC (18.0)
                return
            if results.process(state, data, c, c.tasks[0], ctx):
                if c.tasks:
                    c.tasks.pop(0)


def _resolve_ground(state: KasserineState, data: KasserineData, c: Combat, ctx: Context) -> None:
    """Step 5 and 8.2.1c-d: reveal, total, differential, row, die, result."""
    c.att_values = reveal(state, state.active, ctx)
    c.def_values = reveal(state, other(state.active), ctx)
    fort = fortified_unit(state, data, c.defender)
    units_att = sum(values(data, state, a)[0] for a in c.attackers)
    attack = units_att + sum(v // 2 if fort else v for v in c.att_values)
    units_def = values(data, state, c.defender)[1] * (2 if fort else 1)
    defense = units_def + sum(c.def_values)
    c.diff = attack - defense
    c.row = crt_row(state, data, c.target, c.attackers, False, c.defender)
    ctx.log(f"step 5: markers revealed: {state.active} "
            f"{' '.join(f'+{v}' for v in c.att_values) or 'none'}, {other(state.active)} "
            f"{' '.join(f'+{v}' for v in c.def_values) or 'none'}", kind="support")
    c.die = ctx.roll(6, f"combat at {c.target}")
    cell = data.crt.result(c.row, c.diff, c.die)
    c.result = cell.result
    ctx.log(f"attack {attack} ({units_att} + markers{' halved' if fort else ''}) vs defense "
            f"{defense} ({units_def}{' fortified' if fort else ''} + markers): differential "
            f"{c.diff:+d}, row {c.row}, column {data.crt.column(c.row, c.diff)}, die {c.die}: "
            f"{c.result}", kind="combat", hexes=(c.target,))
    ctx.log(f"why: attack {attack} = "
            f"{_strength_text(data, state, c.attackers, 0, c.att_values, fort, False)}"
            f"{' (markers halved: the defender is fortified)' if fort else ''}; defense "
            f"{defense} = {_strength_text(data, state, [c.defender], 1, c.def_values, False, fort)}"
            f"{' (unit doubled: fortified)' if fort else ''}; "
            f"{_row_why(state, data, c.target, c.attackers, False, c.row, c.defender)}; one die on the CRT",
            kind="combat", hexes=(c.target,))
    results.queue(state, data, c)


__all__ = ["declare_attack", "declare_bombard", "run", "attacker_step", "defender_step", "crt_row"]
