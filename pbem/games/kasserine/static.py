"""Facts fixed by the scenario data, computed once per loaded scenario and memoised.

Nothing here depends on a game state except the ZOC memo, which is keyed by the exact hexes
of the units that exert the ZOC, so a position always maps to the same answer.
"""

from __future__ import annotations

import weakref

from pbem.games.kasserine.scenario import KasserineData

#: Positions remembered before the ZOC memo is cleared (bounded memory).
ZOC_MEMO_SIZE = 4096


class Static:
    """Memo tables of one KasserineData object (it holds no reference back to the data)."""

    def __init__(self) -> None:
        self.zoc: dict[tuple[str, ...], frozenset[str]] = {}
        self.edges: dict[tuple[str, bool, str], tuple[tuple[str, int, bool], ...]] = {}
        self.near: dict[tuple[str, ...], dict[str, int]] = {}
        self.filled: set[str] = set()    # sides whose steps all over the map are memoised


_TABLES: "weakref.WeakKeyDictionary[KasserineData, Static]" = weakref.WeakKeyDictionary()
_LAST: list = [None, None]          # the last (data, tables) pair looked up: the common case


def static(data: KasserineData) -> Static:
    """The memo tables of a scenario's data (a copied or variant data object gets its own)."""
    if _LAST[0] is data:
        return _LAST[1]
    s = _TABLES.get(data)
    if s is None:
        s = _TABLES[data] = Static()
    _LAST[0], _LAST[1] = data, s
    return s


def nearest_of(data: KasserineData, targets: tuple[str, ...], hex_id: str) -> int:
    """Hexes from hex_id to the nearest of `targets` (memoised per target set)."""
    table = static(data).near.get(targets)
    if table is None:
        table = static(data).near[targets] = {}
    out = table.get(hex_id)
    if out is None:
        grid = data.map.grid
        out = table[hex_id] = min(grid.distance(hex_id, t) for t in targets)
    return out


def zoc_of(data: KasserineData, hexes: tuple[str, ...]) -> frozenset[str]:
    """Every hex adjacent to one of `hexes` (the ZOC exerted from them), memoised per position."""
    memo = static(data).zoc
    out = memo.get(hexes)
    if out is None:
        if len(memo) >= ZOC_MEMO_SIZE:
            memo.clear()
        out = memo[hexes] = frozenset().union(*map(data.neighbours.__getitem__, hexes))
    return out
