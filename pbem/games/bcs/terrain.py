"""The Terrain Effects Chart applied to one step of a move (5.2): MP cost in twelfths, STOP, P."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from pbem.games.bcs.board import bdata
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.state import MP12

PROHIBITED = -1
ROAD_KINDS = ("primary_road", "secondary_road", "track", "railroad")


class StepCost:
    """What entering hex b from hex a costs a movement class: MP12 (or PROHIBITED), whether
    the unit must STOP there (STOP terrain, 5.2e), and whether it followed a road (5.2a)."""

    __slots__ = ("mp", "stop", "road", "rule")

    def __init__(self, mp: int, stop: bool, road: bool, rule: str) -> None:
        self.mp, self.stop, self.road, self.rule = mp, stop, road, rule


def _twelfths(c: Fraction) -> int:
    return int(c * MP12)


def road_cost(a: str, b: str, cls: str, rain: bool) -> int | None:
    """The cheapest road rate across the hexside a-b for a class (5.2a), None if no usable road."""
    d = bdata()
    best: int | None = None
    for kind in ROAD_KINDS:
        if d.game_map.road_between(a, b, kind):
            c = mp_cost(d.terrain[kind], cls, rain)
            if isinstance(c, Fraction):
                v = _twelfths(c)
                best = v if best is None else min(best, v)
    return best


def hex_row(hex_id: str) -> str:
    """The TEC row of a hex's terrain; a row costed 'ot' (Village) uses the other terrain of the
    hex, which on this map (one terrain per hex) is Open."""
    d = bdata()
    t = d.game_map.terrain[hex_id]
    return "open" if d.terrain[t].leg == "ot" else t


@lru_cache(maxsize=1 << 16)       # the map and the TEC do not change: a pure function
def step_cost(a: str, b: str, cls: str, rain: bool) -> StepCost:
    """Entering b from a (adjacent): a road across the hexside is followed and ignores the hex
    and hexside terrain (5.2a, 5.2b, 5.2d); otherwise the hex's cost plus every hexside feature
    (5.2b), 'P' prohibits (5.2c) and STOP terrain costs 4 MP and stops the unit (5.2e)."""
    d = bdata()
    r = road_cost(a, b, cls, rain)
    if r is not None:
        return StepCost(r, False, True, "BCS-5.2a")
    c = mp_cost(d.terrain[hex_row(b)], cls, rain)
    if c == "P":
        return StepCost(PROHIBITED, False, False, "BCS-5.2c")
    stop = c == "STOP"
    mp = 4 * MP12 if stop else _twelfths(Fraction(c))
    for kind in sorted(d.game_map.hexside(a, b)):
        hc = mp_cost(d.terrain[kind], cls, rain)
        if hc == "P":
            return StepCost(PROHIBITED, False, False, "BCS-5.2c")
        assert isinstance(hc, str) and hc.startswith("+")
        mp += _twelfths(Fraction(hc[1:]))
    return StepCost(mp, stop, False, "BCS-5.2e" if stop else "BCS-5.2b")


def is_road_hex(hex_id: str, kinds: tuple[str, ...] = ROAD_KINDS[:3]) -> bool:
    """A hex on a road of one of these kinds (default: non-railroad roads, 5.4d)."""
    return any(hex_id in _road_hexes(k) for k in kinds)


@lru_cache(maxsize=8)
def _road_hexes(kind: str) -> frozenset[str]:
    return frozenset(bdata().game_map.road_hexes(kind))
