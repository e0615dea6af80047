"""Bots: 'random' (random legal orders, always finishing the decision) and 'heuristic'.

The heuristic's player turn is in heuristic.py; this module holds the random bot, the
scratch copy both use, and the dispatch.

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
from pbem.games.holdfast.orders import HIT_MODES
from pbem.games.holdfast import actions, combat, heuristic as heuristic_bot
from pbem.games.holdfast import heuristic_moves
from pbem.games.holdfast.board import map_units, overstacked
from pbem.games.holdfast.data import World
from pbem.games.holdfast.movement import allowance, reachable
from pbem.games.holdfast.orders import Attack, format_order, parse_order
from pbem.games.holdfast.reinforcement import entry_hexes, setup_zone
from pbem.games.holdfast.state import HoldfastState, clone, enemy
from pbem.games.holdfast.supply import in_supply


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
    heuristic = style == "heuristic"
    pre = []
    if "hits" not in state.private[side].standing and (heuristic or rng.random() < 0.5):
        pre.append(f"standing hits {'strongest-first' if heuristic else rng.choice(HIT_MODES)}")
    return pre + _play(state, w, side, rng, style)


def _play(state: HoldfastState, w: World, side: str, rng: random.Random, style: str) -> list[str]:
    pub = state.public
    sim = _Sim(state, w, side)
    heuristic = style == "heuristic"
    if pub.phase == "setup":
        if heuristic:
            heuristic_bot.setup(sim)
        else:
            _setup(sim, rng)
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
    if heuristic:
        heuristic_bot.place(sim)
        heuristic_bot.buy(sim)
        heuristic_moves.moves(sim, rng)             # bases, supply, overstacks: before attacking
        attack = heuristic_bot.attack(sim)
        if attack is None:
            heuristic_moves.advance(sim, rng)       # then the rest forward, and attack again
            attack = heuristic_bot.attack(sim)
    else:
        _place(sim, rng)
        _buy(sim, rng)
        _moves(sim, rng)
        attack = _attack(sim, rng)
    sim.lines.append(attack or "end")
    return sim.lines


def _setup(sim: _Sim, rng: random.Random) -> None:
    w, side = sim.w, sim.side
    for uid, u in sorted(sim.state.private[side].units.items()):
        if u.where != "setup":
            continue
        zone = sorted(setup_zone(w, uid))
        rng.shuffle(zone)
        for h in zone:
            if sim.try_line(f"place {uid} {h}"):
                break


def _place(sim: _Sim, rng: random.Random) -> None:
    w, side, st = sim.w, sim.side, sim.state
    due = sorted(u.id for u in st.private[side].units.values()
                 if u.where == "track" and u.entry_turn <= st.public.turn)
    for uid in due:
        if rng.random() < 0.2:
            continue
        hexes = sorted(entry_hexes(sim.state, w, side, uid))
        rng.shuffle(hexes)
        for h in hexes:
            if sim.try_line(f"place {uid} {h}"):
                break


def _buy(sim: _Sim, rng: random.Random) -> None:
    w, side = sim.w, sim.side
    for u in list(sim.state.private[side].units.values()):
        if u.where == "eliminated" and not u.gray and rng.random() < 0.3:
            sim.try_line(f"rebuild {u.id}")
    for u in map_units(sim.state, side):
        if u.sp < w.units[u.id].max_sp and rng.random() < 0.3:
            sim.try_line(f"buy {u.id} 1")


def _moves(sim: _Sim, rng: random.Random) -> None:
    w, side = sim.w, sim.side
    units = [u.id for u in map_units(sim.state, side) if not u.moved]
    rng.shuffle(units)
    count = rng.randint(0, 3)
    for uid in units[:count]:
        st = sim.state
        if st.public.rp[side] <= 0:
            break
        u = st.private[side].units[uid]
        if u.where != "map" or u.moved:
            continue
        supplied = in_supply(st, w, side, uid)
        strat = supplied and w.strategic_allowed(st.public.turn) and rng.random() < 0.5
        mp = allowance(w, w.units[uid], weather=st.public.weather, supplied=supplied,
                       leader=False, strategic=strat)
        dests = reachable(st, w, side, uid, mp, strat)
        if dests:
            h = rng.choice(sorted(dests))
            sim.try_line(f"move {uid} {'-'.join(dests[h])}{' strat' if strat else ''}")


def _attack(sim: _Sim, rng: random.Random) -> str | None:
    w, side, st = sim.w, sim.side, sim.state
    foe = {u.hex for u in map_units(st, enemy(side))}
    ready = [u for u in map_units(st, side) if not u.attacked and not overstacked(st, side, u.hex)]
    options: list[str] = []
    support = [u.id for u in st.private[side].units.values()
               if u.where == "offmap" and not u.used]
    for target in sorted(foe):
        attackers = [u.id for u in ready if w.adjacent(u.hex, target)
                     and not w.zoc_blocked(u.hex, target)]
        if not attackers:
            continue
        sup = combat.one_support_per_kind(w, support, st.public.weather)
        line = f"attack {target} with {' '.join(attackers)}"
        if sup:
            line += f" support {' '.join(sup)}"
        if not sim.attack_ok(line):
            line = f"attack {target} with {' '.join(attackers)}"
            if not sim.attack_ok(line):
                continue
        options.append(line)
    if options and rng.random() < 0.5:
        return rng.choice(options)
    return None
