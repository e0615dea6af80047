"""Retreat after combat (8.3), displacement (8.3.1), bombardment retreats (8.1.5), minefields (14.2)."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.kasserine.board import (deplete, edge_distance, eliminate, ezoc, hexside_kinds,
                                        label, nearest, occupancy)
from pbem.games.kasserine.movement import is_minefield
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.seen import record
from pbem.games.kasserine.state import KasserineState, other
from pbem.games.kasserine.victory import check_sudden_death, entered


def routes(state: KasserineState, data: KasserineData, uid: str, n: int) -> list[list[str]]:
    """Every retreat route of 1..n hexes, each hex one farther from the combat hex (8.3-e/f/h)."""
    u = state.units[uid]
    out: list[list[str]] = []
    _grow(state, data, u.side, u.hex, _blocking_zoc(state, data, uid), occupancy(state), n, [],
          out)
    return out


def _blocking_zoc(state: KasserineState, data: KasserineData, uid: str) -> frozenset[str]:
    """The EZOC hexes uid may not retreat or be displaced into: none for the Rangers, who
    "may always ignore enemy zones of control" (13.1, an exclusive rule over 8.3 and 8.3.1)."""
    if data.units[uid].commando:
        return frozenset()
    return ezoc(state, data, state.units[uid].side)


def _grow(state: KasserineState, data: KasserineData, side: str, origin: str,
          bad: frozenset[str], occ: dict[str, str], n: int, path: list[str],
          out: list[list[str]]) -> None:
    """routes: every route that extends path by one hex farther from origin, each followed by
    its own extensions (a module function, not a nested one: a recursive nested function is a
    reference cycle, and turn commands run without the cyclic collector)."""
    grid = data.map.grid
    here = path[-1] if path else origin
    for h in data.neighbours[here]:
        if grid.distance(origin, h) != len(path) + 1 or h in data.prohibited or h in bad:
            continue
        if _prohibited_side(data, here, h):
            continue
        o = occ.get(h)
        if o is not None and state.units[o].side != side:
            continue
        out.append(path + [h])
        if len(path) + 1 < n:
            _grow(state, data, side, origin, bad, occ, n, path + [h], out)


def _displace_hexes(state: KasserineState, data: KasserineData, uid: str,
                    forbidden: set[str]) -> list[str]:
    """Adjacent hexes a displaced unit might enter, in the engine's order of preference."""
    u = state.units[uid]
    bad = _blocking_zoc(state, data, uid)
    occ = occupancy(state)
    return sorted((h for h in data.neighbours[u.hex] if h not in data.prohibited
                   and h not in bad and h not in forbidden
                   and not _prohibited_side(data, u.hex, h)),
                  key=lambda h: (h in occ, edge_distance(data, u.side, h), h))


def _prohibited_side(data: KasserineData, a: str, b: str) -> bool:
    """True if a prohibited hexside lies between a and b (none on the printed map)."""
    return any(data.tec.hexside.get(k) is not None and data.tec.hexside[k].prohibited
               for k in hexside_kinds(data, a, b))


def displacement(state: KasserineState, data: KasserineData, uid: str,
                 forbidden: set[str]) -> list[tuple[str, str]] | None:
    """The engine's displacement chain [(unit, to hex), ...] moving uid one hex away (8.3.1-c/d).

    The chain is listed deepest first (the order in which the units move); None if impossible.
    Every hex left or entered joins `forbidden`, so a chain never returns on itself.
    """
    u = state.units[uid]
    occ = occupancy(state)
    for h in _displace_hexes(state, data, uid, forbidden):
        o = occ.get(h)
        if o is None:
            return [(uid, h)]
        if state.units[o].side == u.side:
            chain = displacement(state, data, o, forbidden | {u.hex, h})
            if chain is not None:
                return chain + [(uid, h)]
    return None


def displace_options(state: KasserineState, data: KasserineData, uid: str,
                     forbidden: set[str]) -> list[str]:
    """The hexes the owner may displace uid to: vacant, or a friend's that can move on (8.3.1)."""
    u = state.units[uid]
    occ = occupancy(state)
    out = []
    for h in _displace_hexes(state, data, uid, forbidden):
        o = occ.get(h)
        if o is None or (state.units[o].side == u.side
                         and displacement(state, data, o, forbidden | {u.hex, h}) is not None):
            out.append(h)
    return out


def chain_so_far(state: KasserineState, data: KasserineData, uid: str, path: list[str],
                 chain: list[str]) -> tuple[list[tuple[str, str]], str | None, set[str]]:
    """The displacements chosen so far (top first), the unit still to place (None: done), its forbidden hexes."""
    occ = occupancy(state)
    forbidden = set(path) | {state.units[uid].hex}
    moves: list[tuple[str, str]] = []
    who = occ.get(path[-1])
    for h in chain:
        if who is None:
            break
        moves.append((who, h))
        forbidden |= {state.units[who].hex, h}
        who = occ.get(h)
    return moves, who, forbidden


def check_displace(state: KasserineState, data: KasserineData, uid: str, path: list[str],
                   chain: list[str], who: str, to: str) -> None:
    """IllegalOrder naming the rule unless `who` is the unit to place next and `to` a legal hex."""
    _, expected, forbidden = chain_so_far(state, data, uid, path, chain)
    if expected is None or who != expected:
        raise IllegalOrder(f"the unit to displace now is {expected}", rule="KAS-8.3.1-a")
    here = state.units[who].hex
    if to not in data.neighbours[here]:
        raise IllegalOrder(f"a displaced unit moves to an adjacent hex of {here}",
                           rule="KAS-8.3.1-a")
    opts = displace_options(state, data, who, forbidden)
    if to not in opts:
        raise IllegalOrder(f"{who} cannot be displaced to {to} (prohibited, EZOC, the retreat's "
                           f"own hexes or a unit that cannot move on); choose from "
                           f"{', '.join(opts)}", rule="KAS-8.3.1-c")


def _prefer(state: KasserineState, data: KasserineData, uid: str, paths: list[list[str]],
            bombard: bool) -> tuple[list[list[str]], str]:
    """Filter paths by 8.3-c (closer to a friendly edge) or 8.1.5 (away from the enemy) if possible."""
    u = state.units[uid]
    origin = u.hex
    if bombard:
        near0 = nearest(state, data, origin, other(u.side))
        if near0 is not None:
            keep = [p for p in paths if (nearest(state, data, p[-1], other(u.side)) or 0) > near0]
            rule = "KAS-8.1.5-a"
        else:
            friends = [x for x in state.units if x != uid and state.units[x].status == "map"
                       and state.units[x].side == u.side]
            grid = data.map.grid
            if not friends:
                return paths, ""
            d0 = min(grid.distance(origin, state.units[f].hex) for f in friends)
            keep = [p for p in paths
                    if min(grid.distance(p[-1], state.units[f].hex) for f in friends) < d0]
            rule = "KAS-8.1.5-b"
    else:
        e0 = edge_distance(data, u.side, origin)
        keep = [p for p in paths if edge_distance(data, u.side, p[-1]) < e0]
        rule = "KAS-8.3-c"
    return (keep, rule) if keep else (paths, "")


class Choices:
    """The legal retreats of one unit: full paths, displacement paths, short paths (deplete)."""

    def __init__(self, state: KasserineState, data: KasserineData, uid: str, n: int, bombard: bool):
        occ = occupancy(state)
        all_routes = routes(state, data, uid, n)
        full = [p for p in all_routes if len(p) == n]
        vacant_final = [p for p in full if p[-1] not in occ]
        vacant_all = [p for p in vacant_final if not any(h in occ for h in p)]
        self.vacant_exists = bool(vacant_all)
        self.full, self.prefer_rule = _prefer(state, data, uid, vacant_all or vacant_final, bombard)
        self.displace: list[list[str]] = []
        self.short: list[list[str]] = []
        self.chains: dict[str, list[tuple[str, str]]] = {}
        if not self.full:
            for p in full:
                o = occ.get(p[-1])
                if o is not None and o != uid:
                    chain = displacement(state, data, o, set(p) | {state.units[uid].hex})
                    if chain is not None:
                        self.displace.append(p)
                        self.chains[p[-1]] = chain
            for k in range(n - 1, 0, -1):
                short = [p for p in all_routes if len(p) == k and p[-1] not in occ]
                if short:
                    vac = [p for p in short if not any(h in occ for h in p)]
                    self.short = vac or short
                    break
        self.routes = all_routes

    def legal(self) -> list[list[str]]:
        """Every path the owner may choose."""
        return self.full + self.displace + self.short

    def auto(self, state: KasserineState, data: KasserineData, uid: str) -> list[str] | None:
        """The engine's choice: a full retreat, else a displacement, else the longest short one."""
        side = state.units[uid].side
        for group in (self.full, self.displace, self.short):
            if group:
                return min(group, key=lambda p: (-(nearest(state, data, p[-1], other(side)) or 0),
                                                 edge_distance(data, side, p[-1]), p))
        return None


def check_path(state: KasserineState, data: KasserineData, uid: str, n: int, bombard: bool,
               path: list[str]) -> Choices:
    """IllegalOrder naming the rule unless path is one of the unit's legal retreats."""
    ch = Choices(state, data, uid, n, bombard)
    if path in ch.legal():
        return ch
    u = state.units[uid]
    grid, occ, bad = data.map.grid, occupancy(state), _blocking_zoc(state, data, uid)
    prev = u.hex
    for i, h in enumerate(path):
        if not grid.is_hex(h):
            raise IllegalOrder(f"{h} is off the map", rule="KAS-8.3-h")
        if h not in data.neighbours[prev] or grid.distance(u.hex, h) != i + 1:
            raise IllegalOrder(f"each retreat hex must be one hex farther from {u.hex}", rule="KAS-8.3-g")
        if h in data.prohibited:
            raise IllegalOrder(f"{h} is prohibited", rule="KAS-8.3-f")
        o = occ.get(h)
        if (o is not None and state.units[o].side != u.side) or h in bad:
            raise IllegalOrder(f"a retreat may not enter {h} (enemy unit or EZOC)", rule="KAS-8.3-e")
        prev = h
    if len(path) > n:
        raise IllegalOrder(f"the retreat is {n} hexes", rule="KAS-8.3-g")
    if path[-1] in occ and ch.full:
        raise IllegalOrder("no displacement while a vacant final hex exists", rule="KAS-8.3.1-b")
    if path[-1] in occ:
        raise IllegalOrder(f"the unit in {path[-1]} cannot be displaced", rule="KAS-8.3.1-c")
    if len(path) < n:
        raise IllegalOrder(f"the retreat must be {n} hexes when it can be", rule="KAS-8.3-g")
    if any(h in occ for h in path) and ch.vacant_exists:
        raise IllegalOrder("a path of vacant hexes exists: use it", rule="KAS-8.3-d")
    raise IllegalOrder("a retreat ending nearer the goal of the rule exists",
                       rule=ch.prefer_rule or "KAS-8.3-c")


def execute(state: KasserineState, data: KasserineData, uid: str, n: int, path: list[str] | None,
            moves: list[tuple[str, str]], ctx: Context) -> list[str]:
    """Carry out a retreat (path None = no legal hex: eliminated) after the displacements
    `moves` (in the order the units move); returns the vacated hexes."""
    u = state.units[uid]
    origin, side = u.hex, u.side
    name = label(data, state, uid)
    if path is None:
        eliminate(state, uid)
        ctx.log(f"{name} cannot retreat from {origin}: eliminated", kind="loss", hexes=(origin,))
        return [origin]
    for who, to in moves:
        ctx.log(f"{label(data, state, who)} is displaced {state.units[who].hex} -> {to}",
                kind="retreat", hexes=(state.units[who].hex, to))
        record(state, "displace", who, [state.units[who].hex, to])
        state.units[who].hex = to
        entered(state, data, who, to, ctx)
        if state.units[who].side == state.active:
            state.units[who].barred = "displaced"                    # 8.3.1-e
    mined = False
    prev = origin
    for h in path:
        if side == "axis":
            if state.options.minefield_retreat == "hexside" and is_minefield(data, prev, h):
                mined = True
            if state.options.minefield_retreat == "box-hex" and h in data.fortified_boxes:
                mined = True
        u.hex = h
        entered(state, data, uid, h, ctx)
        prev = h
    record(state, "retreat", uid, [origin, *path])
    ctx.log(f"{name} retreats {origin} -> {' '.join(path)}", kind="retreat", hexes=(origin, *path))
    if mined:                                                        # 14.2-b
        gone = deplete(state, data, uid)
        ctx.log(f"{uid} retreated through a US minefield: "
                + ("eliminated" if gone else "depleted"), kind="loss")
    if len(path) < n and u.status == "map":
        gone = deplete(state, data, uid)
        ctx.log(f"{uid} could retreat only {len(path)} of {n} hexes: "
                + ("eliminated" if gone else "depleted"), kind="loss")
    check_sudden_death(state, data, ctx)
    occ = occupancy(state)
    return [h for h in [origin, *path] if h not in occ]
