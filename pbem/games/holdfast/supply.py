"""Supply tracing (HF-10): <= 3 hexes to a road, then by road to an active friendly base.

A side's supply network depends only on the hexes of both sides' blocks (which of its own
blocks stand in an enemy ZOC), the control of its bases and whether its gray window is open.
`net_for` memoises networks per scenario on exactly that key, so a position is traced once
however many units, orders or replays ask about it; a Net never changes once built.
"""

from __future__ import annotations

from typing import AbstractSet, Iterator

from pbem.games.holdfast.data import World
from pbem.games.holdfast.roads import Segments
from pbem.games.holdfast.state import HoldfastState, enemy


def zoc_of(w: World, hexes: frozenset[str]) -> frozenset[str]:
    """HF-9.2-a: hexes in the ZOC of blocks standing in hexes (memoised per scenario)."""
    known = w.memo.get("zoc")
    if known is not None and hexes in known:         # no closure to build
        return known[hexes]

    def make() -> frozenset[str]:
        out: set[str] = set()
        for h in hexes:
            out.update(w.zoc_nbrs[h])
        return frozenset(out)
    return w.cached("zoc", hexes, make, 2048)


def _traced_prohibited(w: World) -> frozenset[str]:
    """The prohibited hexes a supply trace meets other than by a passable step: road hexes,
    bases and gray hexes (memoised per scenario)."""
    def make() -> frozenset[str]:
        bases = [b for hexes in w.home_bases.values() for b in hexes]
        return frozenset(w.prohibited.intersection({*w.road_nbrs, *bases, *w.gray}))
    return w.cached("traced-prohibited", None, make)


def block_hexes(state: HoldfastState, side: str) -> frozenset[str]:
    """Hexes holding a block of side."""
    return frozenset([u.hex for u in state.private[side].units.values() if u.where == "map"])


class Net:
    """One side's supply network in one position (immutable; queries are memoised)."""

    def __init__(self, w: World, side: str, gray_ok: bool, foe: frozenset[str],
                 own_in_ezoc: frozenset[str], control: tuple[str | None, ...]) -> None:
        self.w, self.side = w, side
        # HF-10-c/d: prohibited terrain, enemy blocks and EZOC (unless a friendly block sits
        # there) stop a supply path; gray hexes outside the side's window are not playable.
        # _stops holds them all but the prohibited hexes a trace never meets (a leg steps into
        # passable hexes only): a few hexes instead of hundreds, for the network of almost
        # every position of a game. _blocked() answers for any hex.
        extra = (foe, zoc_of(w, foe) - own_in_ezoc) + (() if gray_ok else (w.gray,))
        self._stops = frozenset().union(_traced_prohibited(w), *extra)
        self._comps: list[AbstractSet[str]] = []
        self._cut: frozenset[str] | None = None      # the road hexes _stops holds
        self._major_memo: dict[str, bool] = {}
        self._minor_memo: dict[str, list[str]] = {}
        self.major: set[str] = set()
        self.minor: list[str] = []
        for b, owner in zip(w.home_bases[side], control):
            if owner != side or self._blocked(b):
                continue
            kind = w.base_kind(b)
            if kind == "port":
                self.major.add(b)                       # HF-10-g: ports trace to sea
            elif kind == "minor_port":
                self.minor.append(b)                    # HF-10-k
            elif self.reaches_edge(b):
                self.major.add(b)                       # HF-10-g/i: inland base to the edge
        if gray_ok:
            self.major |= {g for g in w.gray if not self._blocked(g)}   # HF-10-h/j
        self.major_roads = self.road_reach(self.major)
        self.minor_roads = {p: self.road_reach({p}) for p in self.minor}

    @property
    def blocked(self) -> frozenset[str]:
        """Every hex a supply path may not enter (HF-10-c/d)."""
        return self._stops | self.w.prohibited

    def _blocked(self, hex_id: str) -> bool:
        return hex_id in self._stops or hex_id in self.w.prohibited

    def _component(self, start: str) -> AbstractSet[str]:
        # start is never blocked (both callers check), so the components found so far are
        # disjoint and start's is the one holding it, if any (a network finds a few at most)
        for comp in self._comps:
            if start in comp:
                return comp
        w = self.w
        segments = w.cached("road-segments", None, lambda: Segments(w.road_nbrs))
        if self._cut is None:
            self._cut = self._stops & segments.hexes
        comp = segments.component_in(start, self._stops, self._cut)   # _stops suffices
        self._comps.append(comp)
        return comp

    def road_reach(self, starts: AbstractSet[str]) -> AbstractSet[str]:
        """Hexes joined to starts by a continuous road path through unblocked hexes (a
        component itself, not a copy, when they all lie in one: never change it)."""
        comps: list[AbstractSet[str]] = []
        for s in starts:
            if not self._blocked(s):
                comp = self._component(s)
                if all(comp is not c for c in comps):
                    comps.append(comp)
        if len(comps) == 1:
            return comps[0]
        return set().union(*comps)

    def reaches_edge(self, hex_id: str) -> bool:
        """HF-10-i: True if hex_id traces by road to the allied edge road hexes."""
        return not self._blocked(hex_id) and not self._component(hex_id).isdisjoint(
            self.w.edge_set)

    def leg(self, hex_id: str) -> set[str]:
        """Hexes reachable from hex_id in at most road_trace_hexes (3) steps, unblocked."""
        return set(self._leg_hexes(hex_id))

    def _leg_hexes(self, hex_id: str) -> Iterator[str]:
        """The hexes of leg(hex_id), nearest first (a caller may stop at the one it needs)."""
        yield hex_id
        seen = {hex_id}
        frontier = [hex_id]
        blocked, nbrs = self._stops, self.w.pass_nbrs          # never a prohibited hex
        for _ in range(self.w.leg):
            nxt = []
            for h in frontier:
                for n in nbrs[h]:
                    if n not in seen and n not in blocked:
                        seen.add(n)
                        nxt.append(n)
                        yield n
            frontier = nxt

    def major_supplied(self, hex_id: str) -> bool:
        """True if a block in hex_id traces to a major base (port, inland base, gray hex)."""
        ok = self._major_memo.get(hex_id)
        if ok is None:
            ok = self._major_memo[hex_id] = self._major(hex_id)
        return ok

    def _major(self, hex_id: str) -> bool:
        if hex_id in self.w.prohibited:
            return False
        roads = self.major_roads
        if hex_id in self.major or not roads.isdisjoint(self.w.road_nbrs.get(hex_id, ())):
            return True
        return not roads.isdisjoint(self._leg_hexes(hex_id))     # stops at the first road hex

    def minor_options(self, hex_id: str) -> list[str]:
        """Minor ports a block in hex_id could draw supply from."""
        opts = self._minor_memo.get(hex_id)
        if opts is None:
            reach = self.leg(hex_id) if self.minor else set()
            opts = self._minor_memo[hex_id] = [p for p in self.minor
                                               if not reach.isdisjoint(self.minor_roads[p])]
        return list(opts)


def net_for(state: HoldfastState, w: World, side: str, extra: str = "", *,
            pos: tuple[frozenset[str], ...] | None = None) -> Net:
    """side's supply network in this position (with one more own block in extra), memoised.

    pos: movement.position(state, w, side) when the caller has it (the state unchanged)."""
    if pos is None:
        foe = block_hexes(state, enemy(side))
        own, ez = block_hexes(state, side), zoc_of(w, foe)
    else:
        own, foe, ez = pos
    if extra:
        own = own | {extra}
    gray_ok = w.gray_open(side, state.public.turn)
    control = tuple(map(state.public.control.get, w.home_bases[side]))
    own_ez = own & ez
    key = (side, gray_ok, foe, own_ez, control)
    known = w.memo.get("net")
    if known is not None and key in known:           # no closure to build
        return known[key]
    return w.cached("net", key, lambda: Net(w, side, gray_ok, foe, own_ez, control), 256)


def in_supply(state: HoldfastState, w: World, side: str, unit_id: str, *, claim: bool = False,
              net: Net | None = None) -> bool:
    """Supply of one map unit; a minor port is used only if free or already its own (HF-10-k).

    With claim=True a free minor port is assigned to the unit for the rest of the player turn.
    """
    return _trace(state, w, side, unit_id, net or net_for(state, w, side),
                  state.private[side].minor_ports, claim)


def _trace(state: HoldfastState, w: World, side: str, unit_id: str, net: Net,
           ports: dict[str, str], claim: bool) -> bool:
    """in_supply against the minor port claims in ports (updated in place if claim)."""
    u = state.private[side].units[unit_id]
    if net.major_supplied(u.hex):
        return True
    for p in net.minor_options(u.hex):
        holder = ports.get(p)
        if holder == unit_id:
            return True
        if holder is None or state.private[side].units[holder].where != "map":
            if claim:
                ports[p] = unit_id
            return True
    return False


def activation_supply(state: HoldfastState, w: World, side: str, unit_ids: list[str],
                      net: Net) -> tuple[dict[str, bool], dict[str, str]]:
    """HF-9-b/HF-10-k: supply of units activated together (an attack), without changing state
    (net: the side's supply network now, net_for).

    Each unit is checked in the given order and claims a free minor port it relies on, so one
    minor port supplies at most one of them. Returns (unit id -> in supply, the new claims
    port -> unit id) for the caller to record once the activation happens.
    """
    ports = dict(state.private[side].minor_ports)
    supplied = {uid: _trace(state, w, side, uid, net, ports, True) for uid in unit_ids}
    # a unit only claims a free port, so the new claims are the ports not claimed before
    claims = {p: uid for p, uid in ports.items() if p not in state.private[side].minor_ports}
    return supplied, claims


def hex_in_supply(state: HoldfastState, w: World, side: str, hex_id: str) -> bool:
    """True if a side's block placed in hex_id would be in supply via a major base."""
    net = net_for(state, w, side, extra=hex_id)
    return net.major_supplied(hex_id) or bool(
        [p for p in net.minor_options(hex_id) if p not in state.private[side].minor_ports])


def supply_report(state: HoldfastState, w: World, side: str) -> dict[str, bool]:
    """unit id -> in supply, for every map unit of side, assigning free minor ports in hex order."""
    net = net_for(state, w, side)
    out: dict[str, bool] = {}
    ports = dict(state.private[side].minor_ports)
    needing = []
    for _, u in sorted(state.private[side].units.items()):
        if u.where != "map":
            continue
        if net.major_supplied(u.hex):
            out[u.id] = True
        else:
            needing.append(u)
    for u in sorted(needing, key=lambda x: (x.hex, x.id)):
        out[u.id] = False
        opts = net.minor_options(u.hex)
        mine = [p for p in opts if ports.get(p) == u.id]
        free = [p for p in opts if p not in ports]
        if mine:
            out[u.id] = True
        elif free:
            ports[free[0]] = u.id
            out[u.id] = True
    return out


def inland_base_open(state: HoldfastState, w: World, base: str) -> bool:
    """HF-10-i: an Allied inland base can receive units only if it traces to the edge roads."""
    net = net_for(state, w, "allied")
    return state.public.control.get(base) == "allied" and net.reaches_edge(base)
