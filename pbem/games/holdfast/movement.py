"""Movement (HF-9.1, 9.2, 9.3, 7, TEC): MP allowance and hex-by-hex path costs."""

from __future__ import annotations

from typing import Any

from pbem.core.errors import IllegalOrder
from pbem.games.holdfast.board import ezoc
from pbem.games.holdfast.data import World
from pbem.games.holdfast.state import HoldfastState, enemy
from pbem.games.holdfast.supply import block_hexes, zoc_of


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


def step_costs(w: World, unit_type: str, weather: str
               ) -> tuple[dict[str, int], int, int, dict[str, int]]:
    """What hex_cost and side_cost read for a unit type in a weather: the MP of each hex
    terrain, of a road, of an EZOC and of each hexside kind (memoised per scenario)."""
    def make() -> tuple[dict[str, int], int, int, dict[str, int]]:
        t = w.tables
        armor = unit_type == "armor"
        return ({name: row.mp_armor if armor else row.mp_infantry for name, row in t.hex.items()},
                t.road_mp, t.ezoc_mp,
                {k: row.mp_poor if weather == "poor" else row.mp for k, row in t.hexside.items()})
    return w.cached("step-costs", (unit_type, weather), make)


def step_table(w: World, unit_type: str, weather: str) -> dict[str, tuple]:
    """Per hex, the passable steps (next hex, hex cost without EZOC, hexside cost); memoised,
    and for shipped scenario data kept in the package-side cache (pbem.core.cache) under the
    hash of the world's data and code and of this module's source."""
    def make() -> dict[str, tuple]:
        return {h: tuple((n, hex_cost(w, unit_type, h, n, False), side_cost(w, h, n, weather))
                         for n in ns) for h, ns in w.pass_nbrs.items()}

    def kept() -> dict[str, tuple]:
        world_key = getattr(w, "cache_key", None)
        if not isinstance(world_key, str):
            return make()
        import sys

        from pbem.core import cache

        key = cache.key_of("holdfast-steps", world_key, unit_type, weather,
                           cache.source_hash(sys.modules[__name__]))
        return cache.remember("holdfast-steps", key, make)
    return w.cached("steps", (unit_type, weather), kept, 64)


def position(state: HoldfastState, w: World, side: str) -> tuple[frozenset[str], ...]:
    """What movement reads of the board for side: its own block hexes, the enemy's, and the
    hexes in an enemy ZOC. Computed once by a caller that checks many moves in one position
    (the move helper), instead of once per path."""
    foe = block_hexes(state, enemy(side))
    return block_hexes(state, side), foe, zoc_of(w, foe)


def check_path(state: HoldfastState, w: World, side: str, unit_id: str, path: list[str],
               mp: int, strategic: bool, *, pos: tuple[frozenset[str], ...] | None = None
               ) -> list[int]:
    """Validate a path hex by hex and return the cost of each step; IllegalOrder if not legal.

    pos: position(state, w, side) when the caller has it (the state unchanged since)."""
    u = state.private[side].units[unit_id]
    spec = w.units[unit_id]
    own, foe, ez = pos if pos is not None else position(state, w, side)
    pub = state.public
    if strategic and u.hex in ez:
        raise IllegalOrder(f"strategic movement may not begin in an enemy ZOC ({u.hex})",
                           rule="HF-9.3-a")
    # a passable step (adjacent, not prohibited) into a hex that is neither gray, an enemy's
    # nor (moving strategically) in an EZOC is legal: only its cost is computed; any other
    # step goes to _step, which names what forbids it (or finds it legal: a gray hex open)
    stop = foe | w.gray | ez if strategic else foe | w.gray
    # _cost's arithmetic, spelled out on the tables of step_costs
    terrain_mp, road_mp, ezoc_mp, side_mp = step_costs(w, spec.type, pub.weather)
    terrain, road_adj, pass_nbrs, side_kinds = w.map.terrain, w.road_adj, w.pass_nbrs, w.side_kinds
    costs: list[int] = []
    spent = 0
    here = u.hex
    for nxt in path:
        if nxt in stop or nxt not in pass_nbrs.get(here, ()):
            cost = _step(w, side, pub, spec.type, here, nxt, foe, ez, strategic)
        else:
            cost = road_mp if nxt in road_adj.get(here, ()) else terrain_mp[terrain[nxt]]
            if nxt in ez and cost < ezoc_mp:
                cost = ezoc_mp
            for k in side_kinds(here, nxt):
                cost += side_mp[k]
        spent += cost
        costs.append(cost)
        if spent > mp:
            entered = " + ".join(f"{h} {c}" for h, c in zip(path, costs))
            raise IllegalOrder(f"entering {nxt} needs {spent} MP in all ({entered}); {unit_id} "
                               f"has {mp} MP", rule="HF-9.1-b")
        here = nxt
    if here in own:
        raise IllegalOrder(f"{here} already holds a friendly block", rule="HF-9.1-c")
    return costs


def _step(w: World, side: str, pub: Any, unit_type: str, here: str, nxt: str,
          foe: frozenset[str], ez: frozenset[str], strategic: bool) -> int:
    """One step of a move from here into nxt: its MP cost, or IllegalOrder (check_path)."""
    if not w.adjacent(here, nxt):
        raise IllegalOrder(f"{nxt} is not adjacent to {here} (adjacent: "
                           f"{', '.join(sorted(w.neighbours(here)))})", rule="HF-9.1-b")
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
    return _cost(w, pub, unit_type, here, nxt, ez)


def _cost(w: World, pub: Any, unit_type: str, here: str, nxt: str, ez: frozenset[str]) -> int:
    """The MP cost of a legal step from here into nxt (check_path)."""
    return hex_cost(w, unit_type, here, nxt, nxt in ez) + side_cost(w, here, nxt, pub.weather)


def reach_tree(state: HoldfastState, w: World, side: str, unit_id: str, mp: int,
               strategic: bool, *, pos: tuple[frozenset[str], ...] | None = None
               ) -> tuple[dict[str, int], dict[str, str]]:
    """The cheapest-first search of one activation: for every hex the unit can enter with mp,
    its least MP (best, the unit's own hex at 0) and the hex before it on a cheapest path
    (prev); friendly block hexes are included (passed through, not ended in: HF-9.1-c).

    pos: position(state, w, side) when the caller has it (the state unchanged since)."""
    import heapq

    u = state.private[side].units[unit_id]
    spec = w.units[unit_id]
    _, foe_hexes, ez = pos if pos is not None else position(state, w, side)
    best = {u.hex: 0}
    prev: dict[str, str] = {}
    if strategic and u.hex in ez:
        return best, prev
    steps = step_table(w, spec.type, state.public.weather)
    ezoc_mp = w.tables.ezoc_mp
    stop = foe_hexes | ez if strategic else foe_hexes
    if not w.gray_open(side, state.public.turn):
        stop = stop | w.gray
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
    return best, prev


def reachable(state: HoldfastState, w: World, side: str, unit_id: str, mp: int,
              strategic: bool, *, pos: tuple[frozenset[str], ...] | None = None
              ) -> dict[str, list[str]]:
    """Every hex the unit could end a move in with mp, and a cheapest path to it (for bots).

    pos: position(state, w, side) when the caller has it (the state unchanged since)."""
    pos = pos if pos is not None else position(state, w, side)
    own_hexes = pos[0]
    best, prev = reach_tree(state, w, side, unit_id, mp, strategic, pos=pos)
    start = state.private[side].units[unit_id].hex
    # each hex's path is its previous hex's path and itself (built once per hex)
    full: dict[str, list[str]] = {start: []}
    out: dict[str, list[str]] = {}
    for h in best:
        if h == start:
            continue
        chain = []
        x = h
        while x not in full:
            chain.append(x)
            x = prev[x]
        path = full[x]
        for y in reversed(chain):
            path = full[y] = path + [y]
        if h not in own_hexes:
            out[h] = path
    return out


def cheapest_path(state: HoldfastState, w: World, side: str, unit_id: str, dest: str,
                  strategic: bool) -> tuple[int, list[str]] | None:
    """The cheapest legal path to dest and its cost, ignoring the allowance; None if none.

    Ties are broken deterministically: the fewest hexes entered, then the path whose hex ids
    come first in order (compared hex by hex), so that every processor writes the same path.
    """
    import heapq

    u = state.private[side].units[unit_id]
    ez = ezoc(state, w, side)
    if strategic and u.hex in ez:
        return None
    steps = step_table(w, w.units[unit_id].type, state.public.weather)
    stop = block_hexes(state, enemy(side)) | (ez if strategic else set())
    if not w.gray_open(side, state.public.turn):
        stop = stop | w.gray
    best: dict[str, tuple[int, int, tuple[str, ...]]] = {u.hex: (0, 0, ())}
    heap = [(0, 0, (), u.hex)]
    while heap:
        c, n_steps, path, h = heapq.heappop(heap)
        if (c, n_steps, path) != best.get(h):
            continue
        if h == dest:
            return c, list(path)
        for n, hc, sc in steps[h]:
            if n in stop:
                continue
            label = (c + (max(hc, w.tables.ezoc_mp) if n in ez else hc) + sc, n_steps + 1,
                     path + (n,))
            if n not in best or label < best[n]:
                best[n] = label
                heapq.heappush(heap, (*label, n))
    return None


def expand_move(state: HoldfastState, w: World, side: str, unit_id: str, dest: str,
                mp: int, strategic: bool) -> list[str]:
    """The path a destination-only move stands for (cheapest_path); IllegalOrder if none fits mp."""
    u = state.private[side].units[unit_id]
    if dest == u.hex:
        raise IllegalOrder(f"{unit_id} is already in {dest}", rule="HF-9.1-b")
    if dest in block_hexes(state, enemy(side)):
        raise IllegalOrder(f"{dest} holds an enemy block", rule="HF-9.1-b")
    if dest in block_hexes(state, side):
        raise IllegalOrder(f"{dest} already holds a friendly block", rule="HF-9.1-c")
    found = cheapest_path(state, w, side, unit_id, dest, strategic)
    if found is None:
        raise IllegalOrder(f"{unit_id} has no legal path from {u.hex} to {dest}"
                           + (" by strategic movement" if strategic else ""), rule="HF-9.1-b")
    cost, path = found
    if cost > mp:
        # check_path names the cost of each hex entered and the allowance
        check_path(state, w, side, unit_id, path, mp, strategic)
    return path


def expand(state: HoldfastState, w: World, side: str, order: Any) -> Any:
    """A destination-only move (orders.MoveTo) as the Move along its cheapest legal path.

    Problems that are not about the path (not your unit, already moved, no RP, ...) are left
    to the rules: the Move then names the destination alone and apply refuses it with them.
    """
    from pbem.games.holdfast.orders import Move
    from pbem.games.holdfast.supply import in_supply

    def as_move(path: list[str]) -> Move:
        return Move(unit=order.unit, path=tuple(path), strategic=order.strategic,
                    leader=order.leader)

    dest = w.resolve(order.dest)
    if not dest:
        raise IllegalOrder(f"unknown hex or place {order.dest!r}", rule="HF-9.1-b")
    u = state.private[side].units.get(order.unit)
    if (state.public.phase != "turn" or side != state.public.active or u is None
            or u.where != "map" or u.moved or w.units[order.unit].type == "support"):
        return as_move([dest])
    supplied = in_supply(state, w, side, order.unit)
    if order.strategic and (not supplied or not w.strategic_allowed(state.public.turn)
                            or u.hex in ezoc(state, w, side)):
        return as_move([dest])                # apply names the strategic movement rule
    mp = allowance(w, w.units[order.unit], weather=state.public.weather, supplied=supplied,
                   leader=order.leader, strategic=order.strategic)
    return as_move(expand_move(state, w, side, order.unit, dest, mp, order.strategic))
