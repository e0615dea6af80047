"""Supply tracing (HF-10): <= 3 hexes to a road, then by road to an active friendly base."""

from __future__ import annotations

from collections import deque

from pbem.games.holdfast.board import ezoc, map_units
from pbem.games.holdfast.data import World
from pbem.games.holdfast.state import HoldfastState, enemy

class Net:
    """One side's supply network in the current position."""

    def __init__(self, state: HoldfastState, w: World, side: str, extra: str = "") -> None:
        self.w, self.side, self.turn = w, side, state.public.turn
        own = {u.hex for u in map_units(state, side)} | ({extra} if extra else set())
        foe = {u.hex for u in map_units(state, enemy(side))}
        ez = ezoc(state, w, side)
        gray_ok = w.gray_open(side, self.turn)
        # HF-10-c/d: prohibited terrain, enemy blocks and EZOC (unless a friendly block sits
        # there) stop a supply path; gray hexes outside the side's window are not playable.
        self.blocked = set(w.prohibited) | foe | (ez - own)
        if not gray_ok:
            self.blocked |= w.gray
        control = state.public.control
        self.major: set[str] = set()
        self.minor: list[str] = []
        for b in w.home_bases[side]:
            if control.get(b) != side or b in self.blocked:
                continue
            kind = w.base_kind(b)
            if kind == "port":
                self.major.add(b)                       # HF-10-g: ports trace to sea
            elif kind == "minor_port":
                self.minor.append(b)                    # HF-10-k
            elif self.road_reach({b}) & set(w.edge_roads):
                self.major.add(b)                       # HF-10-g/i: inland base to the edge
        if gray_ok:
            self.major |= {g for g in w.gray if g not in self.blocked}   # HF-10-h/j
        self.major_roads = self.road_reach(self.major)
        self.minor_roads = {p: self.road_reach({p}) for p in self.minor}

    def road_reach(self, starts: set[str]) -> set[str]:
        """Hexes joined to starts by a continuous road path through unblocked hexes."""
        seen = {s for s in starts if s not in self.blocked}
        todo = deque(seen)
        while todo:
            h = todo.popleft()
            for n in self.w.road_adj.get(h, ()):
                if n not in seen and n not in self.blocked and not self.w.side_prohibited(h, n):
                    seen.add(n)
                    todo.append(n)
        return seen

    def leg(self, hex_id: str) -> set[str]:
        """Hexes reachable from hex_id in at most road_trace_hexes (3) steps, unblocked."""
        seen = {hex_id}
        frontier = [hex_id]
        for _ in range(self.w.leg):
            nxt = []
            for h in frontier:
                for n in self.w.neighbours(h):
                    if n in seen or n in self.blocked or self.w.side_prohibited(h, n):
                        continue
                    seen.add(n)
                    nxt.append(n)
            frontier = nxt
        return seen

    def major_supplied(self, hex_id: str) -> bool:
        """True if a block in hex_id traces to a major base (port, inland base, gray hex)."""
        if hex_id in self.w.prohibited:
            return False
        if hex_id in self.major or any(n in self.major_roads and not self.w.side_prohibited(hex_id, n)
                                       for n in self.w.road_adj.get(hex_id, ())):
            return True
        return bool(self.leg(hex_id) & self.major_roads)

    def minor_options(self, hex_id: str) -> list[str]:
        """Minor ports a block in hex_id could draw supply from."""
        reach = self.leg(hex_id)
        return [p for p in self.minor if reach & self.minor_roads[p]]


def in_supply(state: HoldfastState, w: World, side: str, unit_id: str, *, claim: bool = False,
              net: Net | None = None) -> bool:
    """Supply of one map unit; a minor port is used only if free or already its own (HF-10-k).

    With claim=True a free minor port is assigned to the unit for the rest of the player turn.
    """
    u = state.private[side].units[unit_id]
    net = net or Net(state, w, side)
    if net.major_supplied(u.hex):
        return True
    ports = state.private[side].minor_ports
    for p in net.minor_options(u.hex):
        holder = ports.get(p)
        if holder == unit_id:
            return True
        if holder is None or state.private[side].units[holder].where != "map":
            if claim:
                ports[p] = unit_id
            return True
    return False


def hex_in_supply(state: HoldfastState, w: World, side: str, hex_id: str) -> bool:
    """True if a side's block placed in hex_id would be in supply via a major base."""
    net = Net(state, w, side, extra=hex_id)
    return net.major_supplied(hex_id) or bool(
        [p for p in net.minor_options(hex_id) if p not in state.private[side].minor_ports])


def supply_report(state: HoldfastState, w: World, side: str) -> dict[str, bool]:
    """unit id -> in supply, for every map unit of side, assigning free minor ports in hex order."""
    net = Net(state, w, side)
    out: dict[str, bool] = {}
    ports = dict(state.private[side].minor_ports)
    needing = []
    for u in map_units(state, side):
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
    net = Net(state, w, "allied")
    return state.public.control.get(base) == "allied" and base not in net.blocked and bool(
        net.road_reach({base}) & set(w.edge_roads))
