"""Board queries over a state: who occupies which hex, and zones of control (HF-9.2)."""

from __future__ import annotations

from pbem.games.holdfast.data import World
from pbem.games.holdfast.state import HoldfastState, UnitState, enemy
from pbem.games.holdfast.supply import block_hexes, zoc_of


def map_units(state: HoldfastState, side: str) -> list[UnitState]:
    """A side's units on the map, in id order."""
    return [u for _, u in sorted(state.private[side].units.items()) if u.where == "map"]


def side_at(state: HoldfastState, hex_id: str) -> str | None:
    """The side with a block in a hex, or None."""
    for side in ("allied", "axis"):
        for u in state.private[side].units.values():
            if u.hex == hex_id and u.where == "map":
                return side
    return None


def zoc(state: HoldfastState, w: World, side: str) -> frozenset[str]:
    """HF-9.2-a: hexes in the ZOC of side's blocks (six neighbours, not into prohibited terrain)."""
    return zoc_of(w, block_hexes(state, side))


def ezoc(state: HoldfastState, w: World, side: str) -> frozenset[str]:
    """Hexes in an enemy ZOC for side."""
    return zoc(state, w, enemy(side))


def overstacked(state: HoldfastState, side: str, hex_id: str) -> bool:
    """True if side has more than one block in the hex (reinforcement overstack)."""
    return sum(1 for u in state.private[side].units.values()
               if u.hex == hex_id and u.where == "map") > 1


def adjacent_to_enemy(state: HoldfastState, w: World, side: str, hex_id: str) -> bool:
    """True if an enemy block is in a hex adjacent to hex_id."""
    foe = block_hexes(state, enemy(side))
    return any(n in foe for n in w.neighbours(hex_id))
