"""Buddies (BbF 1.3, 4.1c) and Mixed Formations (10.1e) with the Coordination they cause (4.4a).

The Simple Blob of a Formation is read as the convex outline of the hex centres of its HQ and
units in Command Radius (Combat Trains, units out of radius and independents ignored); a hex
belongs to it when its centre lies inside that outline or the outline touches the hex (its
centre within the hex's inner radius, sqrt(3)/2, of the outline): a lone unit's blob is its own
hex, two units' blob the hexes the line between them crosses or runs along. The
geometry is computed in floating point on the static map and never stored in the state.
"""

from __future__ import annotations

from pbem.core.game import Context
from pbem.games.bcs.board import bdata
from pbem.games.bcs.command import in_radius
from pbem.games.bcs.state import BcsState, FormationState

TOLERANCE = 0.87                 # a hex's inner radius (circumradius 1): the outline touches it
ARMOURED_CCS = "US 1 Arm Div"    # BbF 1.3: its Combat Commands are Buddies of every Allied one
BUDDY_ROWS = ({"21 Pz Div", "DAK"}, {"21 Pz Div"}, {"10 Pz Div"})   # BbF 1.3, Axis rows


def buddies(a: str, b: str) -> bool:
    """Two Formations that are Buddies (BbF 1.3): they skip Coordination, Mixed Formations and
    Crossing the Streams with each other (4.1c)."""
    fa, fb = bdata().formations[a], bdata().formations[b]
    if a == b or fa.side != fb.side:
        return a == b
    if fa.side == "allied":
        return ARMOURED_CCS in (fa.division, fb.division)
    return any(fa.division in row and fb.division in row for row in BUDDY_ROWS)


def _cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts
    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _seg_dist(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    x, y = a[0] + t * dx, a[1] + t * dy
    return ((p[0] - x) ** 2 + (p[1] - y) ** 2) ** 0.5


def _inside(p: tuple[float, float], hull: list[tuple[float, float]]) -> bool:
    if len(hull) >= 3 and all(_cross(hull[i], hull[(i + 1) % len(hull)], p) >= 0
                              for i in range(len(hull))):
        return True
    edges = [(hull[i], hull[(i + 1) % len(hull)]) for i in range(len(hull))] or []
    if len(hull) == 1:
        edges = [(hull[0], hull[0])]
    return any(_seg_dist(p, a, b) <= TOLERANCE for a, b in edges)


def blob_hull(state: BcsState, fid: str) -> list[tuple[float, float]]:
    """The outline of a Formation's Simple Blob (hex centres of its HQ and units in radius)."""
    grid = bdata().game_map.grid
    hexes = []
    for p in state.pieces.values():
        if p.formation != fid or p.status != "map" or p.kind == "trains":
            continue
        if p.kind == "unit" and (not in_radius(state, p) or bdata().units[p.id].independent):
            continue
        hexes.append(p.hex)
    return _hull([grid.center(h) for h in hexes])


def in_blob(state: BcsState, fid: str, hex_id: str) -> bool:
    """Whether a hex lies in a Formation's Simple Blob."""
    hull = blob_hull(state, fid)
    return bool(hull) and _inside(bdata().game_map.grid.center(hex_id), hull)


def mixed_with(state: BcsState, fid: str, hexes: list[str]) -> list[str]:
    """The inactive friendly Formations (not Buddies) in whose Simple Blob one of these hexes
    lies (10.1e)."""
    side = state.formations[fid].side
    return sorted(f.id for f in state.formations.values()
                  if f.id != fid and f.side == side and f.in_play and not buddies(fid, f.id)
                  and any(in_blob(state, f.id, h) for h in hexes))


def active_hexes(state: BcsState, fid: str) -> list[str]:
    """The hexes of the active Formation's HQ and units on the map."""
    return sorted({p.hex for p in state.pieces.values()
                   if p.formation == fid and p.status == "map" and p.kind != "trains"})


MAX_COORDINATION = 3             # Optional 5 Middle Ground Coordination: at most 3 markers


def markers(form: FormationState) -> int:
    """A Formation's Coordination markers: 0 or 1 (4.4b), up to 3 with Optional 5."""
    return 1 + form.extra_coordination if form.coordination else 0


def mark(state: BcsState, fid: str, n: int, why: str, ctx: Context) -> None:
    """Give a Formation n Coordination markers (4.4a): one at most as printed (4.4b), or with
    Optional 5 (house option middle_ground_coordination) accumulated up to 3, the excess
    ignored (BCS-OPT5-a)."""
    form = state.formations[fid]
    name = bdata().formations[fid].name
    if not state.options.get("middle_ground_coordination"):
        if not form.coordination:
            form.coordination = True
            ctx.log(f"{name} gets a Coordination marker ({why})")
        return
    before = markers(form)
    after = min(MAX_COORDINATION, before + n)
    if after == before:
        ctx.log(f"{name} has {MAX_COORDINATION} Coordination markers: the excess is ignored "
                f"({why}, BCS-OPT5-a)")
        return
    form.coordination, form.extra_coordination = True, after - 1
    got = after - before
    ctx.log(f"{name} gets {got} Coordination marker{'s' if got > 1 else ''} ({why}): {after} "
            f"in all (Optional 5, BCS-OPT5-a)")


def stacked_with(state: BcsState, fid: str, hexes: list[str]) -> list[str]:
    """The other friendly Formations (not Buddies) with a combat unit in one of these hexes:
    a stack of units of several Formations, even in passing (Optional 5, BCS-OPT5-b)."""
    side = state.formations[fid].side
    return sorted({p.formation for p in state.pieces.values()
                   if p.kind == "unit" and p.status == "map" and p.hex in hexes
                   and p.side == side and p.formation and p.formation != fid
                   and state.formations[p.formation].in_play and not buddies(fid, p.formation)})


def coordinate(state: BcsState, fid: str, others: list[str], ctx: Context,
               stacked: list[str] | None = None) -> None:
    """Mixing gives a Coordination marker to each Formation involved that lacks one (4.4a); with
    Optional 5 a stack of units of several Formations (stacked) gives each two (BCS-OPT5-b)."""
    stacks = (stacked or []) if state.options.get("middle_ground_coordination") else []
    if not others and not stacks:
        return
    for f in [fid, *sorted({*others, *stacks})]:
        two = bool(stacks) and (f == fid or f in stacks)
        mark(state, f, 2 if two else 1, "Mixed Formations, stacked" if two
             else "Mixed Formations", ctx)


HQ_MIXING = 2                    # errata v1.0 to 9.1a: a moving HQ mixes within 2 hexes of a unit


def hq_mixed_with(state: BcsState, fid: str, hexes: list[str]) -> list[str]:
    """The Formations a moving HQ mixes with (errata v1.0 to 9.1a): those of mixed_with whose
    blob holds a hex the HQ entered that lies within 2 hexes of one of their combat units."""
    grid = bdata().game_map.grid
    out = []
    for other in mixed_with(state, fid, hexes):
        units = [p.hex for p in state.pieces.values()
                 if p.formation == other and p.kind == "unit" and p.status == "map"]
        if any(in_blob(state, other, h) and any(grid.distance(h, u) <= HQ_MIXING for u in units)
               for h in hexes):
            out.append(other)
    return out
