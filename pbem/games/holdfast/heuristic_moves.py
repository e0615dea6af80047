"""The heuristic bot's movement: captures, garrisons, reserves, raider hunts, supply, advance.

Part of the heuristic player turn described in heuristic.py: `moves` runs before the first
attack of every answer, `advance` only when no attack is worth making.
"""

from __future__ import annotations

import random
from typing import Any

from pbem.games.holdfast.heuristic import (ASSAULT, NEAR_BASE, RESERVE_RANGE, RP_RESERVE,
                                           defended, nearest, objectives, threatened)
from pbem.games.holdfast.movement import allowance, reachable
from pbem.games.holdfast.state import enemy
from pbem.games.holdfast.supply import block_hexes, in_supply


class _Mover:
    """Movement options of side's units on the bot's copy of the state."""

    def __init__(self, sim: Any, rng: random.Random) -> None:
        self.sim, self.w, self.side, self.rng = sim, sim.w, sim.side, rng
        self.hold: set[str] = set()        # units that stay where they are this turn
        self._opts: dict[str, dict[str, tuple[list[str], bool]]] = {}

    def options(self, uid: str) -> dict[str, tuple[list[str], bool]]:
        """Reachable hexes -> (path, strategic), the plain move preferred (cached until a move)."""
        if uid not in self._opts:
            self._opts[uid] = self._options(uid)
        return self._opts[uid]

    def _options(self, uid: str) -> dict[str, tuple[list[str], bool]]:
        st, w, side = self.sim.state, self.w, self.side
        spec = w.units[uid]
        supplied = in_supply(st, w, side, uid)
        out: dict[str, tuple[list[str], bool]] = {}
        modes = [False]
        if supplied and w.strategic_allowed(st.public.turn):
            modes.append(True)
        for strat in modes:
            mp = allowance(w, spec, weather=st.public.weather, supplied=supplied, leader=False,
                           strategic=strat)
            for h, path in reachable(st, w, side, uid, mp, strat).items():
                out.setdefault(h, (path, strat))      # the plain move where both reach
        return out

    def supplied_at(self, uid: str, h: str) -> bool:
        """True if the unit would be in supply standing in h (checked on the copy)."""
        u = self.sim.state.private[self.side].units[uid]
        old = u.hex
        u.hex = h
        try:
            return in_supply(self.sim.state, self.w, self.side, uid)
        finally:
            u.hex = old

    def move(self, uid: str, ranked: list[str], opts: dict) -> bool:
        """Move uid to the first hex of ranked that keeps it in supply and is legal."""
        for h in ranked:
            path, strat = opts[h]
            if self.supplied_at(uid, h) and self.sim.try_line(
                    f"move {uid} {'-'.join(path)}{' strat' if strat else ''}"):
                self.hold.add(uid)
                self._opts.clear()
                return True
        return False

    def free(self) -> list[Any]:
        """side's map units that have not moved and are not held, in id order."""
        return [u for _, u in sorted(self.sim.state.private[self.side].units.items())
                if u.where == "map" and not u.moved and u.id not in self.hold
                and self.w.units[u.id].type != "support"]

    def rp(self) -> int:
        """RP left."""
        return self.sim.state.public.rp[self.side]


def moves(sim: Any, rng: random.Random) -> None:
    """Captures, garrisons, reserves, raider hunts, supply and overstacks (before attacking)."""
    m = _Mover(sim, rng)
    w, side = m.w, m.side
    st = sim.state
    keepers: dict[str, Any] = {}                     # one garrison per own base stays
    for u in sorted(st.private[side].units.values(), key=lambda x: (x.placed, x.id)):
        if u.where == "map" and u.hex in defended(w, side) and u.hex not in keepers:
            keepers[u.hex] = u
            m.hold.add(u.id)
    _capture(m)
    for base in threatened(st, w, side):
        if base in block_hexes(sim.state, side) or m.rp() < 1:
            continue
        cands = []
        for u in m.free():
            opts = m.options(u.id)
            if base in opts:                 # hardest to hit (TH), strongest, nearest
                cands.append((-w.units[u.id].th, -u.sp, len(opts[base][0]), u.id, opts))
        for *_, uid, opts in sorted(cands, key=lambda c: c[:4]):
            if m.move(uid, [base], opts):
                break
        else:
            _toward(m, base, count=1)
    _reserve(m)
    _hunt(m)
    goals = objectives(w, side)
    for u in m.free():                               # back into supply
        if m.rp() < 1:
            break
        if not in_supply(sim.state, w, side, u.id):
            opts = m.options(u.id)
            m.move(u.id, sorted(opts, key=lambda h: (nearest(w, h, goals), h)), opts)
    stacks: dict[str, list[Any]] = {}
    for u in sim.state.private[side].units.values():
        if u.where == "map":
            stacks.setdefault(u.hex, []).append(u)
    for h, us in sorted(stacks.items()):              # newly placed units leave crowded hexes
        for u in sorted(us, key=lambda x: -x.placed)[:-1]:
            if m.rp() < 1 or u.moved:
                continue
            opts = m.options(u.id)
            m.move(u.id, sorted(opts, key=lambda x: (nearest(w, x, goals), x)), opts)


def advance(sim: Any, rng: random.Random) -> None:
    """The units not needed at home move toward the objective."""
    m = _Mover(sim, rng)
    w, side = m.w, m.side
    for u in sim.state.private[side].units.values():
        if u.where == "map" and u.hex in defended(w, side):
            m.hold.add(u.id)
    goals = objectives(w, side)
    _concentrate(m, goals)
    _advance(m, goals, block_hexes(sim.state, enemy(side)))


def _concentrate(m: _Mover, goals: list[str]) -> None:
    """Gather up to ASSAULT units next to the enemy block nearest the objective, for an attack."""
    w, side, st = m.w, m.side, m.sim.state
    mine = [u for u in st.private[side].units.values() if u.where == "map"]
    foe = sorted((nearest(w, h, goals), h) for h in block_hexes(st, enemy(side))
                 if nearest(w, h, [u.hex for u in mine]) <= 4)
    done = 0
    for _, target in foe:
        ring = {h for h in w.neighbours(target) if not w.zoc_blocked(h, target)}
        have = sum(1 for u in mine if u.hex in ring and not u.attacked)
        if have == 0:
            continue                                 # only reinforce an existing contact
        done += 1
        if done > 2:
            return
        for u in sorted(m.free(), key=lambda x: (w.dist(x.hex, target), x.id)):
            if have >= ASSAULT or m.rp() <= RP_RESERVE:
                return
            if u.hex in ring or w.dist(u.hex, target) > 10:
                continue
            opts = m.options(u.id)
            spots = sorted((h for h in opts if h in ring),
                           key=lambda h: (w.hex_terrain(w.terrain(h)).attacker_dice < 0,
                                          len(opts[h][0]), h))
            if m.move(u.id, spots, opts):
                have += 1


def _capture(m: _Mover) -> None:
    """Move an in-supply unit into each empty base the enemy controls (objectives first)."""
    w, side, st = m.w, m.side, m.sim.state
    goals = objectives(w, side)
    foe = block_hexes(st, enemy(side))
    bases = sorted((h for h, owner in st.public.control.items() if owner != side and h not in foe),
                   key=lambda h: (h not in goals, h))
    for base in bases:
        for u in sorted(m.free(), key=lambda x: (w.dist(x.hex, base), x.id)):
            if m.rp() < 1 or w.dist(u.hex, base) > 17:
                break
            if not in_supply(m.sim.state, w, side, u.id):
                continue
            opts = m.options(u.id)
            if base in opts and m.move(u.id, [base], opts):
                break


def _reserve(m: _Mover) -> None:
    """Next to each own base, one more unit per enemy block within RESERVE_RANGE (up to 2)."""
    w, side, st = m.w, m.side, m.sim.state
    foe = block_hexes(st, enemy(side))
    for base in defended(w, side):
        if st.public.control.get(base) != side or base not in block_hexes(st, side):
            continue
        near = sum(1 for h in foe if w.dist(h, base) <= RESERVE_RANGE)
        ring = set(w.neighbours(base))
        have = 0
        for u in st.private[side].units.values():
            if u.where == "map" and u.hex in ring:
                have += 1
                m.hold.add(u.id)
        for u in sorted(m.free(), key=lambda x: (w.dist(x.hex, base), x.id)):
            if have >= min(2, near) or m.rp() <= 1:
                break
            if w.dist(u.hex, base) > 17:
                break
            opts = m.options(u.id)
            spots = sorted((h for h in opts if h in ring),
                           key=lambda h: (-nearest(w, h, foe), h))
            if m.move(u.id, spots, opts):
                have += 1


def _hunt(m: _Mover) -> None:
    """Enemy blocks near our bases: bring up to two free units next to each (nearest first)."""
    w, side, st = m.w, m.side, m.sim.state
    home = [b for b in defended(w, side) if st.public.control.get(b) == side]
    raiders = sorted((nearest(w, h, home), h) for h in block_hexes(st, enemy(side)))
    for d, target in raiders:
        if d > NEAR_BASE or m.rp() <= 1:
            return
        ring = set(w.neighbours(target))
        have = sum(1 for u in st.private[side].units.values()
                   if u.where == "map" and u.hex in ring)
        for u in sorted(m.free(), key=lambda x: (w.dist(x.hex, target), x.id)):
            if have >= 2 or m.rp() <= 1:
                break
            if u.hex in ring:
                m.hold.add(u.id)
                continue
            opts = m.options(u.id)
            spots = sorted((h for h in opts if h in ring and not w.zoc_blocked(h, target)),
                           key=lambda h: (w.hex_terrain(w.terrain(h)).attacker_dice < 0, h))
            if m.move(u.id, spots, opts):
                have += 1


def _toward(m: _Mover, target: str, count: int) -> None:
    """Move up to count free units (nearest first) as close to target as they can get."""
    w = m.w
    units = sorted(m.free(), key=lambda u: (w.dist(u.hex, target), u.id))
    for u in units[:count]:
        if m.rp() < 1:
            return
        opts = m.options(u.id)
        here = w.dist(u.hex, target)
        ranked = sorted((h for h in opts if w.dist(h, target) < here),
                        key=lambda h: (w.dist(h, target), h))
        m.move(u.id, ranked[:6], opts)


def _advance(m: _Mover, goals: list[str], foe: frozenset[str]) -> None:
    """Units not in contact move toward the objective, rear units first, keeping a reserve."""
    w = m.w
    units = [u for u in m.free() if not any(n in foe for n in w.neighbours(u.hex))]
    units.sort(key=lambda u: (-nearest(w, u.hex, goals), u.id))
    for u in units:
        if m.rp() <= RP_RESERVE:
            return
        opts = m.options(u.id)
        here = nearest(w, u.hex, goals)
        ranked = sorted((h for h in opts if nearest(w, h, goals) < here),
                        key=lambda h: (nearest(w, h, goals), len(opts[h][0]), h))
        m.move(u.id, ranked[:6], opts)
