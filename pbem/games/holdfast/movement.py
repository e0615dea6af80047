"""Movement (HF-9.1, 9.2, 9.3, 7, TEC): MP allowance and hex-by-hex path costs."""

from __future__ import annotations

from typing import Any

from pbem.core.errors import IllegalOrder
from pbem.games.holdfast.board import ezoc
from pbem.games.holdfast.data import World
from pbem.games.holdfast.state import HoldfastState, enemy
from pbem.games.holdfast.supply import block_hexes



def allowance(w: World, unit: Any, *, weather: str, supplied: bool, leader: bool,
              strategic: bool) -> int:
    """MP for one activation: base, -poor weather, -out of supply, +leader, then x2 strategic."""
    mp = unit.mp
    if weather == "poor":
        mp += w.poor_mp(unit.type)                    # HF-7-d
    if not supplied:
        mp += w.oos(unit.type).mp                     # HF-10-a
    if leader:
        mp += w.tables.movement.leader_mp_bonus       # HF-4-e, before doubling (HF-9.3-b)
    if strategic:
        mp *= w.tables.movement.strategic_multiplier  # HF-9.3-a
    return max(mp, 0)


def hex_cost(w: World, unit_type: str, a: str, b: str, in_ezoc: bool) -> int:
    """Cost of the hex entered: terrain or road (HF-TEC-f), EZOC counted as hex terrain (HF-2-b)."""
    row = w.hex_terrain(w.terrain(b))
    cost = row.mp_armor if unit_type == "armor" else row.mp_infantry
    if w.is_road(a, b):
        cost = w.tables.road_mp
    if in_ezoc:
        cost = max(cost, w.tables.ezoc_mp)
    return cost


def side_cost(w: World, a: str, b: str, weather: str) -> int:
    """Hexside costs added to the hex cost (HF-2-c); bridges replace rivers (HF-TEC-g, HF-7-e/f)."""
    total = 0
    for k in w.side_kinds(a, b):
        row = w.tables.hexside[k]
        total += row.mp_poor if weather == "poor" else row.mp
    return total


def step_table(w: World, unit_type: str, weather: str) -> dict[str, tuple]:
    """Per hex, the passable steps (next hex, hex cost without EZOC, hexside cost); memoised."""
    def make() -> dict[str, tuple]:
        return {h: tuple((n, hex_cost(w, unit_type, h, n, False), side_cost(w, h, n, weather))
                         for n in ns) for h, ns in w.pass_nbrs.items()}
    return w.cached("steps", (unit_type, weather), make, 64)


def check_path(state: HoldfastState, w: World, side: str, unit_id: str, path: list[str],
               mp: int, strategic: bool) -> list[int]:
    """Validate a path hex by hex and return the cost of each step; IllegalOrder if not legal."""
    u = state.private[side].units[unit_id]
    spec = w.units[unit_id]
    ez = ezoc(state, w, side)
    foe = block_hexes(state, enemy(side))
    pub = state.public
    if strategic and u.hex in ez:
        raise IllegalOrder(f"strategic movement may not begin in an enemy ZOC ({u.hex})",
                           rule="HF-9.3-a")
    costs: list[int] = []
    spent = 0
    here = u.hex
    for nxt in path:
        if not w.adjacent(here, nxt):
            raise IllegalOrder(f"{nxt} is not adjacent to {here}", rule="HF-9.1-b")
        if nxt in w.prohibited:
            raise IllegalOrder(f"{nxt} is {w.terrain(nxt)}, prohibited terrain", rule="HF-TEC-a")
        if w.side_prohibited(here, nxt):
            kinds = "/".join(sorted(w.side_kinds(here, nxt)))
            raise IllegalOrder(f"the {kinds} hexside {here}-{nxt} is prohibited", rule="HF-TEC-a")
        if nxt in w.gray and not w.gray_open(side, pub.turn):
            raise IllegalOrder(f"gray hex {nxt} is not playable by the {side} on turn {pub.turn}",
                               rule="HF-8.1-h")
        if nxt in foe:
            raise IllegalOrder(f"{nxt} holds an enemy block", rule="HF-9.1-b")
        if strategic and nxt in ez:
            raise IllegalOrder(f"strategic movement may not enter an enemy ZOC ({nxt})",
                               rule="HF-9.3-a")
        cost = hex_cost(w, spec.type, here, nxt, nxt in ez) + side_cost(w, here, nxt, pub.weather)
        spent += cost
        if spent > mp:
            raise IllegalOrder(f"entering {nxt} needs {spent} MP in all; {unit_id} has {mp}",
                               rule="HF-9.1-b")
        costs.append(cost)
        here = nxt
    if here in block_hexes(state, side):
        raise IllegalOrder(f"{here} already holds a friendly block", rule="HF-9.1-c")
    return costs


def reachable(state: HoldfastState, w: World, side: str, unit_id: str, mp: int,
              strategic: bool) -> dict[str, list[str]]:
    """Every hex the unit could end a move in with mp, and a cheapest path to it (for bots)."""
    import heapq

    u = state.private[side].units[unit_id]
    spec = w.units[unit_id]
    ez = ezoc(state, w, side)
    if strategic and u.hex in ez:
        return {}
    steps = step_table(w, spec.type, state.public.weather)
    ezoc_mp = w.tables.ezoc_mp
    foe_hexes = block_hexes(state, enemy(side))
    own_hexes = block_hexes(state, side)
    stop = foe_hexes | ez if strategic else foe_hexes
    if not w.gray_open(side, state.public.turn):
        stop = stop | w.gray
    best = {u.hex: 0}
    prev: dict[str, str] = {}
    heap = [(0, u.hex)]
    while heap:
        c, h = heapq.heappop(heap)
        if c > best.get(h, 1 << 30):
            continue
        for n, hc, sc in steps[h]:
            if n in stop:
                continue
            nc = c + (max(hc, ezoc_mp) if n in ez else hc) + sc
            if nc <= mp and nc < best.get(n, 1 << 30):
                best[n] = nc
                prev[n] = h
                heapq.heappush(heap, (nc, n))
    out: dict[str, list[str]] = {}
    for h in best:
        if h == u.hex or h in own_hexes:
            continue
        path = [h]
        while path[-1] in prev and prev[path[-1]] != u.hex:
            path.append(prev[path[-1]])
        out[h] = path[::-1]
    return out
