"""Bots: 'random' (random legal orders, always finishing the decision) and 'heuristic'.

Bots read only what their side may know (own units, enemy block positions, public tracks),
and check every order they emit on a copy of the state, so they only produce legal orders.
A bot's answer for a player turn is either some orders then 'end', or some orders ending
with one attack (the game asks again after its dice).
"""

from __future__ import annotations

import random

from pbem.core.dice import NoDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context, NeedsDice
from pbem.games.holdfast import actions, combat
from pbem.games.holdfast.board import map_units, overstacked
from pbem.games.holdfast.data import World
from pbem.games.holdfast.movement import allowance, reachable
from pbem.games.holdfast.orders import Attack, format_order, parse_order
from pbem.games.holdfast.reinforcement import entry_hexes, setup_zone
from pbem.games.holdfast.state import HoldfastState, clone, enemy
from pbem.games.holdfast.supply import Net, in_supply


class _Sim:
    """A scratch copy of the state on which candidate orders are tried."""

    def __init__(self, state: HoldfastState, w: World, side: str) -> None:
        self.state, self.w, self.side = clone(state), w, side
        self.lines: list[str] = []

    def try_line(self, line: str) -> bool:
        """Apply a dice-free order to the copy; keep it if legal."""
        order = parse_order(line)
        trial = clone(self.state)
        try:
            actions.apply(trial, self.w, self.side, order, Context(NoDice()))
        except (IllegalOrder, NeedsDice):
            return False
        self.state = trial
        self.lines.append(format_order(order))
        return True

    def attack_ok(self, line: str) -> bool:
        """True if an attack order passes every check in the current copy."""
        order = parse_order(line)
        assert isinstance(order, Attack)
        if self.state.public.phase != "turn" or self.state.public.active != self.side:
            return False
        try:
            combat.check_attack(self.state, self.w, self.side, order)
        except IllegalOrder:
            return False
        return True


def play(state: HoldfastState, w: World, side: str, rng: random.Random, style: str) -> list[str]:
    """Order lines for side's pending decision."""
    pub = state.public
    if pub.phase == "over" or pub.active != side:
        return []
    sim = _Sim(state, w, side)
    heuristic = style == "heuristic"
    if pub.phase == "setup":
        _setup(sim, rng, heuristic)
        sim.lines.append("end")
        return sim.lines
    if pub.phase == "allocate":
        pending = state.private[side].pending_hits
        assert pending is not None
        order = list(pending.attackers)
        if heuristic:    # hits on infantry first (cheaper to replace), strongest first
            units = state.private[side].units
            order.sort(key=lambda u: (w.units[u].type == "armor", -units[u].sp))
        else:
            rng.shuffle(order)
        return [f"allocate {','.join(order)}"]
    _place(sim, rng, heuristic)
    _buy(sim, rng, heuristic)
    _moves(sim, rng, heuristic)
    attack = _attack(sim, rng, heuristic)
    if attack:
        sim.lines.append(attack)
    else:
        sim.lines.append("end")
    return sim.lines


def _targets(w: World, side: str) -> list[str]:
    v = w.scenario.victory
    names = (v.allied_hold_all or v.allied_hold_any_at_end) if side == "allied" else v.axis_hold_any
    return [w.hex_of(n) for n in names] or list(w.home_bases[enemy(side)])


def _dist(w: World, h: str, targets: list[str]) -> int:
    return min(w.grid.distance(h, t) for t in targets)


def _setup(sim: _Sim, rng: random.Random, heuristic: bool) -> None:
    w, side = sim.w, sim.side
    for uid, u in sorted(sim.state.private[side].units.items()):
        if u.where != "setup":
            continue
        zone = sorted(setup_zone(w, uid))
        if heuristic:
            zone.sort(key=lambda h: _dist(w, h, _targets(w, side)))
        else:
            rng.shuffle(zone)
        for h in zone:
            if sim.try_line(f"place {uid} {h}"):
                break


def _place(sim: _Sim, rng: random.Random, heuristic: bool) -> None:
    w, side, st = sim.w, sim.side, sim.state
    due = sorted(u.id for u in st.private[side].units.values()
                 if u.where == "track" and u.entry_turn <= st.public.turn)
    for uid in due:
        if not heuristic and rng.random() < 0.2:
            continue
        hexes = sorted(entry_hexes(sim.state, w, side, uid))
        if heuristic:
            occupied = {x.hex for x in map_units(sim.state, side)}
            hexes.sort(key=lambda h: (h in occupied, _dist(w, h, _targets(w, side))))
        else:
            rng.shuffle(hexes)
        for h in hexes:
            if sim.try_line(f"place {uid} {h}"):
                break


def _buy(sim: _Sim, rng: random.Random, heuristic: bool) -> None:
    w, side = sim.w, sim.side
    for u in list(sim.state.private[side].units.values()):
        if u.where == "eliminated" and not u.gray and (heuristic or rng.random() < 0.3):
            if not heuristic or sim.state.public.rp[side] >= 6:
                sim.try_line(f"rebuild {u.id}")
    for u in map_units(sim.state, side):
        if u.sp < w.units[u.id].max_sp and (heuristic or rng.random() < 0.3):
            if heuristic and sim.state.public.rp[side] < 5:
                break
            sim.try_line(f"buy {u.id} 1")


def _moves(sim: _Sim, rng: random.Random, heuristic: bool) -> None:
    w, side = sim.w, sim.side
    units = [u.id for u in map_units(sim.state, side) if not u.moved]
    rng.shuffle(units)
    count = rng.randint(0, 3) if not heuristic else len(units)
    reserve = 2 if heuristic else 0
    targets = _targets(w, side)
    for uid in units[:count]:
        st = sim.state
        if st.public.rp[side] <= reserve:
            break
        u = st.private[side].units[uid]
        if u.where != "map" or u.moved:
            continue
        spec = w.units[uid]
        supplied = in_supply(st, w, side, uid)
        strat = supplied and w.strategic_allowed(st.public.turn) and rng.random() < 0.5
        mp = allowance(w, spec, weather=st.public.weather, supplied=supplied, leader=False,
                       strategic=strat)
        dests = reachable(st, w, side, uid, mp, strat)
        if not dests:
            continue
        if heuristic:
            if _holds_objective(st, w, side, u.hex) and not overstacked(st, side, u.hex):
                continue
            here = _dist(w, u.hex, targets)
            options = sorted(dests, key=lambda h: (_dist(w, h, targets), len(dests[h])))
            options = [h for h in options if _dist(w, h, targets) < here][:4]
            for h in options:
                trial = clone(st)
                trial.private[side].units[uid].hex = h
                if in_supply(trial, w, side, uid, net=Net(trial, w, side)) and sim.try_line(
                        f"move {uid} {'-'.join(dests[h])}{' strat' if strat else ''}"):
                    break
        else:
            h = rng.choice(sorted(dests))
            sim.try_line(f"move {uid} {'-'.join(dests[h])}{' strat' if strat else ''}")


def _holds_objective(st: HoldfastState, w: World, side: str, h: str) -> bool:
    return h in st.public.control and h in w.home_bases[side]


def _attack(sim: _Sim, rng: random.Random, heuristic: bool) -> str | None:
    w, side, st = sim.w, sim.side, sim.state
    foe = {u.hex for u in map_units(st, enemy(side))}
    ready = [u for u in map_units(st, side) if not u.attacked and not overstacked(st, side, u.hex)]
    options: list[tuple[float, str]] = []
    support = [u.id for u in st.private[side].units.values()
               if u.where == "offmap" and not u.used]
    for target in sorted(foe):
        attackers = [u.id for u in ready if w.grid.adjacent(u.hex, target)
                     and not w.zoc_blocked(u.hex, target)]
        if not attackers:
            continue
        nats = {w.units[a].nationality for a in attackers}
        if len(nats) > 1 and heuristic:
            main = max(nats, key=lambda n: sum(w.units[a].drc for a in attackers
                                               if w.units[a].nationality == n))
            attackers = [a for a in attackers if w.units[a].nationality == main]
        sup: list[str] = []
        kinds: set[str] = set()
        for s in support:
            k = combat.support_kind(w, s)
            if k not in kinds and (k != "air" or st.public.weather == "clear"):
                kinds.add(k)
                sup.append(s)
        line = f"attack {target} with {' '.join(attackers)}"
        if sup:
            line += f" support {' '.join(sup)}"
        if not sim.attack_ok(line):
            line = f"attack {target} with {' '.join(attackers)}"
            if not sim.attack_ok(line):
                continue
        order = parse_order(line)
        assert isinstance(order, Attack)
        plan = combat.check_attack(st, w, side, order)
        dice = sum(plan.dice.values()) + plan.extra + plan.air
        score = dice - 3 * ("town" in w.map.place_kinds(target)) - 2 * (
            "port" in w.map.place_kinds(target))
        options.append((score + (5 if target in _targets(w, side) else 0), line))
    if not options:
        return None
    if heuristic:
        score, line = max(options)
        return line if score >= 4 else None
    if rng.random() < 0.5:
        return rng.choice(options)[1]
    return None
