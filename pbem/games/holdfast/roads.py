"""Road components for supply tracing (HF-10), found segment by segment.

A Holdfast road net is mostly chains of hexes with two road neighbours between a few
junctions. `Segments` keeps each chain once (both directions), so a search steps from
junction to junction and takes a whole unblocked chain in one set operation. The component
it returns is the same set a plain hex-by-hex search finds (`plain_component`, which the
tests compare it with); only the number of Python steps differs (docs/performance.md).
`Segments.component_in` also hands back a component found for another blocked set when the
hexes blocked in one set and not the other can neither split it nor join it to more.
"""

from __future__ import annotations

from typing import AbstractSet, Iterable, Mapping

Roads = Mapping[str, tuple[str, ...]]


def plain_component(road: Roads, start: str, blocked: Iterable[str]) -> frozenset[str]:
    """start and every hex joined to it by road through hexes not in blocked (start always
    counts, blocked or not)."""
    blocked = blocked if isinstance(blocked, (set, frozenset)) else set(blocked)
    seen = {start}
    todo = [start]
    while todo:
        h = todo.pop()
        for n in road.get(h, ()):
            if n not in seen and n not in blocked:
                seen.add(n)
                todo.append(n)
    return frozenset(seen)


class Segments:
    """The road net as junctions (hexes with other than two road neighbours) and the chains
    between them."""

    #: how many recent components component_in keeps to compare a new blocked set with
    RECENT = 16

    def __init__(self, road: Roads) -> None:
        self.road = road
        self.hexes = frozenset(road)
        self._recent: list[tuple[frozenset[str], AbstractSet[str]]] = []
        self.symmetric = all(h in road.get(n, ()) for h, ns in road.items() for n in ns)
        self.arcs: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        self.inside: dict[str, tuple[tuple[str, ...], str, str, int]] = {}
        if not self.symmetric:
            return                                 # plain searches only
        for j, ns in road.items():
            if len(ns) == 2:
                continue
            arcs = self.arcs[j] = []
            for n in ns:
                chain: list[str] = []
                prev, h = j, n
                while len(road[h]) == 2 and h != j:
                    chain.append(h)
                    a, b = road[h]
                    prev, h = h, (b if a == prev else a)
                arcs.append((tuple(chain), h))
        for j, arcs in self.arcs.items():
            for chain, k in arcs:
                for i, h in enumerate(chain):
                    self.inside.setdefault(h, (chain, j, k, i))
        # hexes of a ring without junctions are in neither table: searched plainly

    def component(self, start: str, blocked: AbstractSet[str]) -> AbstractSet[str]:
        """plain_component(road, start, blocked), a chain at a time (the set it built, not a
        frozen copy: never change it)."""
        road = self.road
        if start not in road:
            return frozenset((start,))
        if start in self.arcs:
            seen, todo = {start}, [start]
        elif start in self.inside:
            chain, j, k, i = self.inside[start]
            seen, todo = {start}, []
            for part, end in ((chain[i + 1:], k), (chain[i - 1::-1] if i else (), j)):
                for h in part:
                    if h in blocked:
                        break
                    seen.add(h)
                else:
                    if end not in seen and end not in blocked:
                        seen.add(end)
                        todo.append(end)
        else:
            return plain_component(road, start, blocked)
        arcs = self.arcs
        while todo:
            for chain, k in arcs[todo.pop()]:
                if blocked.isdisjoint(chain):
                    seen.update(chain)
                    if k not in seen and k not in blocked:
                        seen.add(k)
                        todo.append(k)
                else:
                    for h in chain:
                        if h in blocked:
                            break
                        seen.add(h)
        return seen

    def component_in(self, start: str, blocked: AbstractSet[str],
                     cut: frozenset[str]) -> AbstractSet[str]:
        """component(start, blocked) for a start not in blocked, where cut is blocked & hexes
        (the road hexes it blocks); a recent component is reused when it is still the answer."""
        if not self.symmetric or start not in self.road or start in blocked:
            return self.component(start, blocked)
        for old, comp in reversed(self._recent):
            if start in comp:                  # the latest one found for start only: an
                if self._unchanged(comp, old, cut):    # older one rarely fits when it does not
                    return comp
                break
        comp = self.component(start, blocked)
        self._recent.append((cut, comp))
        if len(self._recent) > self.RECENT:
            del self._recent[0]
        return comp

    def _unchanged(self, comp: AbstractSet[str], old: frozenset[str],
                   cut: frozenset[str]) -> bool:
        """True if comp, a component with the road hexes old blocked, is one with cut blocked:
        no hex newly blocked lies in it (none splits it) and no hex unblocked borders it (none
        joins it to more); every other road neighbour of it stays blocked."""
        if old is cut or old == cut:
            return True
        if not comp.isdisjoint(cut - old):
            return False
        road = self.road
        return all(comp.isdisjoint(road[h]) for h in old - cut)
