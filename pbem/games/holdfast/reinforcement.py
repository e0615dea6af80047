"""Set-up placement, reinforcements and replacements (HF-8, HF-12.1, ERR-HF-8.2)."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.holdfast.board import adjacent_to_enemy, map_units, side_at
from pbem.games.holdfast.data import World
from pbem.games.holdfast.state import HoldfastState, enemy
from pbem.games.holdfast.supply import hex_in_supply, in_supply, net_for

def add_due(state: HoldfastState, side: str, n: int) -> None:
    """Change the public count of units side may place at its next placement step."""
    due = state.public.due
    due[side] = due.get(side, 0) + n


def scheduled(w: World, side: str, turn: int) -> int:
    """HF-8.1-a: how many of side's combat units the turn track brings on turn (public: the
    scenario data, read as sequence.new_state reads it: a unit's first row, none set up)."""
    def make() -> dict[int, int]:
        sc = w.scenario
        seen = {p.unit for p in sc.setup}
        out: dict[int, int] = {}
        for t in range(sc.first_turn, sc.last_turn + 1):
            row = w.turns[t]
            for uid in [*row.allied, *row.axis]:
                if uid in seen:
                    continue
                seen.add(uid)
                spec = w.units[uid]
                if spec.side == side and spec.type != "support":
                    out[t] = out.get(t, 0) + 1
        return out
    return w.cached("scheduled", side, make).get(turn, 0)


def setup_zone(w: World, unit_id: str) -> set[str]:
    """HF-12.1-a: the hexes a set-up unit may be placed in."""
    return set(w.setup_zones.get(unit_id, ()))


def check_setup_place(state: HoldfastState, w: World, side: str, unit: str, target: str) -> str:
    """Validate a set-up placement; returns the hex id."""
    u = state.private[side].units.get(unit)
    if u is None or u.where not in ("setup", "map") or not setup_zone(w, unit):
        raise IllegalOrder(f"{unit} is not a unit you place at set-up", rule="HF-12.1-a")
    h = w.resolve(target)
    if h not in setup_zone(w, unit):
        raise IllegalOrder(f"{target} is not a set-up hex for {unit} (set-up hexes: "
                           f"{', '.join(sorted(setup_zone(w, unit)))})", rule="HF-12.1-a")
    if h in w.prohibited:
        raise IllegalOrder(f"{h} is prohibited terrain", rule="HF-TEC-a")
    if side_at(state, h) is not None and not (u.where == "map" and u.hex == h):
        raise IllegalOrder(f"{h} is already occupied", rule="HF-9.1-c")
    return h


def entry_hexes(state: HoldfastState, w: World, side: str, unit_id: str) -> set[str]:
    """HF-8.1-b/c/i, HF-10-i, HF-G13: hexes where this unit may enter now."""
    spec = w.units[unit_id]
    turn = state.public.turn
    if spec.gray_hex_entry:
        return set(w.entry["gray"]) if w.gray_open(side, turn) else set()
    control = state.public.control
    if side == "axis":
        out = set(w.entry["italian" if spec.nationality == "italian" else "german"])
        if spec.nationality == "italian" and state.public.options["italian_entry"] != "german":
            out |= {b for b in w.home_bases["axis"] if w.base_kind(b) == "minor_port"}
        return {h for h in out if control.get(h, "axis") == "axis"}
    out = {h for h in w.entry["allied"] if control.get(h, "allied") == "allied"}
    inland = [b for b in w.inland_fallback if b in out]
    closed = set()
    if inland:      # inland_base_open for each, the Allied network looked up once
        net = net_for(state, w, "allied")
        closed = {b for b in inland if not (control.get(b) == "allied" and net.reaches_edge(b))}
    out -= closed
    if closed:
        out |= set(w.west_edge) - closed
    return out


def check_place(state: HoldfastState, w: World, side: str, unit: str, target: str) -> str:
    """Validate a reinforcement/replacement placement; returns the hex id."""
    pub = state.public
    if pub.step != "place":
        raise IllegalOrder("units are placed before steps are bought and units activated",
                           rule="HF-5-b" if side == "allied" else "HF-5-c")
    u = state.private[side].units.get(unit)
    if u is None or u.where != "track" or w.units[unit].type == "support":
        raise IllegalOrder(f"{unit} is not one of your units on the turn track", rule="HF-8.1-a")
    if u.entry_turn > pub.turn:
        raise IllegalOrder(f"{unit} is due on turn {u.entry_turn}",
                           rule="HF-8.2-d" if u.reentry_turn else "HF-8.1-a")
    h = w.resolve(target)
    if not h:
        raise IllegalOrder(f"unknown hex or place {target!r}", rule="HF-8.1-a")
    allowed = entry_hexes(state, w, side, unit)
    if h not in allowed:
        if h in w.gray:
            rule = "HF-8.1-i" if w.gray_open(side, pub.turn) else "HF-8.1-h"
        elif side == "allied" and h in w.inland_fallback:
            rule = "HF-10-i"
        else:
            rule = "HF-8.1-b" if side == "axis" else "HF-8.1-c"
        raise IllegalOrder(f"{unit} may not enter at {w.label(h)}; it may enter at "
                           f"{', '.join(w.label(x) for x in sorted(allowed)) or 'no hex now'}",
                           rule=rule)
    if side_at(state, h) not in (None, side):
        raise IllegalOrder(f"{h} holds an enemy block", rule="HF-8.1-e")
    fallback = side == "allied" and h in w.west_edge and h not in w.entry["allied"]
    if not fallback and not hex_in_supply(state, w, side, h):
        raise IllegalOrder(f"a unit placed in {h} would be out of supply", rule="HF-8.1-e")
    return h


def overstack_warning(state: HoldfastState, w: World, side: str, unit: str, h: str) -> str | None:
    """HF-8.1-f/i: the words of a warning when a legal placement of unit in h joins a unit of
    side's own there (legal, but one must leave before the turn ends), else None."""
    here = sorted(u.id for u in state.private[side].units.values()
                  if u.where == "map" and u.hex == h and u.id != unit)
    if not here:
        return None
    return (f"{w.label(h)} already holds your {', '.join(here)}: at the end of the turn one "
            f"unit at most may stay in a hex, the one there first; unless {unit} moves on or "
            f"{'they move' if len(here) > 1 else 'it moves'} out, {unit} goes back to the turn "
            f"track for turn {state.public.turn + 1} [{'HF-8.1-i' if h in w.gray else 'HF-8.1-f'}]")


def do_place(state: HoldfastState, w: World, side: str, unit: str, h: str, ctx: Context) -> None:
    """Put a unit on the map (labels toward the owner: the enemy sees a block appear)."""
    u = state.private[side].units[unit]
    state.public.seq += 1
    u.where, u.hex, u.placed = "map", h, state.public.seq
    add_due(state, side, -1)
    if h in w.gray:
        u.gray = True
    if u.reentry_turn:
        u.reentry_turn = state.public.turn
    ctx.log(f"{w.units[unit].name} [{unit}] enters at {w.label(h)} with SP {u.sp}",
            visible_to=side, hexes=(h,))
    ctx.log(f"an {side} block appears in {h}", hexes=(h,), visible_to=enemy(side))


def step_cost(w: World, side: str, unit: str, turn: int, whole: bool) -> int:
    """RP cost of one step or one eliminated unit (HF-6-e, HF-8.2-b)."""
    armor = w.units[unit].type == "armor"
    key = ("unit_" if whole else "step_") + ("armor" if armor else "infantry")
    return w.rp_cost(key, side, turn)


def check_buy(state: HoldfastState, w: World, side: str, unit: str, steps: int) -> int:
    """Validate buying steps; returns the RP cost."""
    pub = state.public
    if pub.step == "act":
        raise IllegalOrder("steps are bought before units are activated",
                           rule="HF-5-b" if side == "allied" else "HF-5-c")
    u = state.private[side].units.get(unit)
    if u is None or w.units[unit].type == "support":
        raise IllegalOrder(f"{unit} is not one of your combat units", rule="ERR-HF-8.2-a")
    if u.where == "track":
        raise IllegalOrder(f"{unit} is on the turn track", rule="ERR-HF-8.2-c")
    if u.where != "map":
        raise IllegalOrder(f"{unit} is not in play", rule="ERR-HF-8.2-a")
    if u.reentry_turn == pub.turn:
        raise IllegalOrder(f"{unit} re-entered as a replacement this turn", rule="ERR-HF-8.2-b")
    if u.sp + steps > w.units[unit].max_sp:
        raise IllegalOrder(f"{unit} has {u.sp} of {w.units[unit].max_sp} SP", rule="HF-4-b")
    if adjacent_to_enemy(state, w, side, u.hex) and u.bought + steps > 1:
        raise IllegalOrder(f"{unit} is adjacent to an enemy block: at most 1 SP this turn",
                           rule="ERR-HF-8.2-a")
    if not in_supply(state, w, side, unit):
        raise IllegalOrder(f"{unit} is out of supply", rule="ERR-HF-8.2-a")
    cost = steps * step_cost(w, side, unit, pub.turn, False)
    if pub.rp[side] < cost:
        raise IllegalOrder(f"{steps} step(s) cost {cost} RP; {pub.rp[side]} RP left",
                           rule="HF-6-d")
    return cost


def do_buy(state: HoldfastState, w: World, side: str, unit: str, steps: int, cost: int,
           ctx: Context) -> None:
    """Add steps (hidden from the enemy: HF-8.1-j)."""
    u = state.private[side].units[unit]
    u.sp += steps
    u.bought += steps
    state.public.rp[side] -= cost
    state.public.step = "buy"
    ctx.log(f"{unit} gains {steps} SP for {cost} RP (now SP {u.sp})", visible_to=side)
    ctx.log(f"{side} spends {cost} RP on replacements")


def check_rebuild(state: HoldfastState, w: World, side: str, unit: str) -> int:
    """Validate buying back an eliminated unit; returns the RP cost."""
    pub = state.public
    if pub.step == "act":
        raise IllegalOrder("replacements are bought before units are activated",
                           rule="HF-5-b" if side == "allied" else "HF-5-c")
    u = state.private[side].units.get(unit)
    if u is None or w.units[unit].type == "support":
        raise IllegalOrder(f"{unit} is not one of your combat units", rule="HF-8.2-c")
    if u.where == "bag":
        raise IllegalOrder(f"{unit} was eliminated out of supply and cannot be replaced",
                           rule="HF-10-f")
    if u.where != "eliminated":
        raise IllegalOrder(f"{unit} has not been eliminated", rule="HF-8.2-c")
    if u.gray:
        raise IllegalOrder(f"{unit} entered play from a gray hex and cannot be replaced",
                           rule="ERR-HF-8.2-d")
    cost = step_cost(w, side, unit, pub.turn, True)
    if pub.rp[side] < cost:
        raise IllegalOrder(f"replacing {unit} costs {cost} RP; {pub.rp[side]} RP left",
                           rule="HF-6-d")
    return cost


def do_rebuild(state: HoldfastState, w: World, side: str, unit: str, cost: int,
               ctx: Context) -> None:
    """HF-8.2-c/d: the unit goes on the track for next turn at 1 SP."""
    u = state.private[side].units[unit]
    pub = state.public
    u.where, u.sp, u.entry_turn, u.reentry_turn = "track", 1, pub.turn + 1, pub.turn + 1
    add_due(state, side, 1)         # placeable next turn (no placement after a purchase now)
    pub.lost[side] = pub.lost.get(side, 0) - 1
    pub.rp[side] -= cost
    pub.step = "buy"
    ctx.log(f"{unit} rebuilt for {cost} RP; it returns on turn {pub.turn + 1} at 1 SP",
            visible_to=side)
    ctx.log(f"{side} spends {cost} RP on replacements")


def clear_overstack(state: HoldfastState, w: World, side: str, ctx: Context) -> int:
    """HF-8.1-f/i: at turn end one unit may stay per hex; later placements return to the track
    (how many: public, each a block leaving an overstacked hex)."""
    hexes = [u.hex for u in state.private[side].units.values() if u.where == "map"]
    if len(set(hexes)) == len(hexes):
        return 0                        # no hex holds two blocks (the usual case)
    by_hex: dict[str, list] = {}
    back = 0
    for u in map_units(state, side):
        by_hex.setdefault(u.hex, []).append(u)
    for h, us in sorted(by_hex.items()):
        if len(us) < 2:
            continue
        # the unit not placed this turn (placed 0) stays, else the one from the earliest
        # file (the rule leaves the choice open; placements of one file: id order)
        us.sort(key=lambda u: u.placed)
        for u in us[1:]:
            u.where, u.hex, u.entry_turn, u.placed = "track", "", state.public.turn + 1, 0
            back += 1
            ctx.log(f"{u.id} overstacked in {h}: back on the turn track for turn "
                    f"{state.public.turn + 1}", visible_to=side)
            ctx.log(f"an {side} block in overstacked {h} is removed to the turn track", hexes=(h,))
    return back


def delay_unplaced(state: HoldfastState, side: str, ctx: Context) -> None:
    """HF-8.1-g: due units not brought in move to the next turn."""
    turn = state.public.turn
    for u in state.private[side].units.values():
        if u.where == "track" and u.entry_turn <= turn:
            u.entry_turn = turn + 1
            if u.reentry_turn:
                u.reentry_turn = turn + 1
            ctx.log(f"{u.id} delayed to turn {turn + 1}", visible_to=side)
