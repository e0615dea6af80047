"""Zones of Control and Engagement Zones (6.0, 6.1): which enemy zones lie on a hex."""

from __future__ import annotations

from functools import lru_cache

from pbem.games.bcs.board import ByHex, at, bdata, face, has_zoc, is_av
from pbem.games.bcs.state import BcsState, Piece
from pbem.games.bcs.support import capability, has_access, reach

VISIBILITY = 4                   # BbF 1.1e: Engagement Zones reach at most 4 hexes


def ezoc(state: BcsState, side: str, hex_id: str, ignore: frozenset[str] = frozenset(),
         pieces: ByHex | None = None) -> str:
    """The enemy ZOC on a hex for a side's units: "" (none), "zoc" (non-AV), "support" (Support
    AV EZOC) or "real" (Real AV EZOC), the strongest that applies. Every Prepared enemy combat
    unit projects a ZOC into all adjacent hexes whatever the terrain (6.0a, 6.0b); an AV unit's
    ZOC is a Real AV ZOC, a unit with available Support's a Support AV ZOC (6.0h, 9.2g). Friendly
    units never negate it (6.0c). Retreats and Safe Paths read a Support AV EZOC as a plain one
    (6.0h). Units in ``ignore`` project none (Screening units for an MSR, or for a Leg unit
    moving into their hex: BbF 1.5). pieces: board.by_hex(state), when the caller has it."""
    grid = bdata().game_map.grid
    best = ""
    for n in grid.neighbours(hex_id):
        for p in (at(state, n) if pieces is None else pieces.get(n, ())):
            if p.side == side or not has_zoc(p) or p.id in ignore:
                continue
            if is_av(p):
                return "real"
            if best != "support":
                best = "support" if has_access(state, p) else "zoc"
    return best


def av_zone(zone: str) -> bool:
    """Either kind of AV EZOC (6.0h: Real or Support)."""
    return zone in ("real", "support")


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
    at most 4 hexes (BbF 1.1e), with a clear line beyond adjacent hexes (6.1a, 6.1b); and every
    enemy unit with available Support from a Stand Off unit, out to that unit's Range (6.1a,
    7.1m, 9.2g); units in ``ignore`` give none."""
    grid = bdata().game_map.grid
    stand_off: dict[str, list[Piece]] = {}
    for p in state.pieces.values():
        if p.status == "support" and p.side != side and capability(p) == "Stand Off AV":
            stand_off.setdefault(p.formation, []).append(p)
    for p in state.pieces.values():
        if p.side == side or p.id in ignore or p.status != "map":
            continue
        if is_av(p):
            f = face(p)
            assert f is not None
            d = grid.distance(p.hex, hex_id)
            if 1 <= d <= min(f.range, VISIBILITY) and (d == 1 or clear_line(p.hex, hex_id)):
                return True
        elif p.formation in stand_off and has_access(state, p) \
                and any(reach(sp, p.hex, hex_id) for sp in stand_off[p.formation]):
            return True
    return False
