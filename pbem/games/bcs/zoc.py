"""Zones of Control and Engagement Zones (6.0, 6.1): which enemy zones lie on a hex."""

from __future__ import annotations

from functools import lru_cache

from pbem.games.bcs.board import at, bdata, face, has_zoc, is_av
from pbem.games.bcs.state import BcsState

VISIBILITY = 4                   # BbF 1.1e: Engagement Zones reach at most 4 hexes


def ezoc(state: BcsState, side: str, hex_id: str, ignore: frozenset[str] = frozenset()) -> str:
    """The enemy ZOC on a hex for a side's units: "" (none), "zoc" (non-AV) or "real" (Real AV
    EZOC). Every Prepared enemy combat unit projects a ZOC into all adjacent hexes whatever the
    terrain (6.0a, 6.0b); an AV unit's ZOC is a Real AV ZOC (6.0h). Friendly units never negate
    it (6.0c). Support AV ZOCs come with Support (not modelled yet). Units in ``ignore`` project
    none (Screening units for an MSR, or for a Leg unit moving into their hex: BbF 1.5)."""
    grid = bdata().game_map.grid
    best = ""
    for n in grid.neighbours(hex_id):
        for p in at(state, n):
            if p.side == side or not has_zoc(p) or p.id in ignore:
                continue
            if is_av(p):
                return "real"
            best = "zoc"
    return best


def blocking(hex_id: str) -> bool:
    """A hex of Blocking Terrain per the TEC (6.1b); 'ot' rows use the other terrain (open)."""
    d = bdata()
    return d.terrain[d.game_map.terrain[hex_id]].blocking


@lru_cache(maxsize=65536)
def clear_line(a: str, b: str) -> bool:
    """A straight line from a to b that no intermediate Blocking hex cuts (6.1b); end hexes are
    ignored, and a line running along a hexside between a blocking and a non-blocking hex is not
    blocked (the line is tried nudged to either side; either one clear will do)."""
    grid = bdata().game_map.grid
    n = grid.distance(a, b)
    if n <= 1:
        return True
    (ax, ay), (bx, by) = grid.center(a), grid.center(b)
    near = grid.within(a, n)
    centres = {h: grid.center(h) for h in near}
    eps = 1e-4
    for nudge in (eps, -eps):
        blocked = False
        for i in range(1, n):
            t = i / n
            x = ax + (bx - ax) * t + nudge
            y = ay + (by - ay) * t + nudge
            h = min(near, key=lambda k: (centres[k][0] - x) ** 2 + (centres[k][1] - y) ** 2)
            if h not in (a, b) and blocking(h):
                blocked = True
                break
        if not blocked:
            return True
    return False


def engagement_zone(state: BcsState, side: str, hex_id: str,
                    ignore: frozenset[str] = frozenset()) -> bool:
    """An enemy Engagement Zone on the hex: an enemy AV unit (not in Support) within its Range,
    at most 4 hexes (BbF 1.1e), with a clear line beyond adjacent hexes (6.1a, 6.1b); units in
    ``ignore`` give none."""
    grid = bdata().game_map.grid
    for p in state.pieces.values():
        if p.side == side or not is_av(p) or p.id in ignore:
            continue
        f = face(p)
        assert f is not None
        d = grid.distance(p.hex, hex_id)
        if 1 <= d <= min(f.range, VISIBILITY) and (d == 1 or clear_line(p.hex, hex_id)):
            return True
    return False
