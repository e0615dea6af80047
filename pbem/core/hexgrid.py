"""Hex geometry for printed wargame maps: flat-topped hexes in vertical columns, "CCRR" ids.

A map declares which column parity is drawn half a hex lower (``shifted``: "odd" or "even").
Hex ids are the printed column and row numbers, zero-padded to ``digits`` each ("0104" is
column 1, row 4). Directions are N, NE, SE, S, SW, NW.
"""

from __future__ import annotations

from functools import lru_cache

DIRECTIONS: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
OPPOSITE: dict[str, str] = {"N": "S", "NE": "SW", "SE": "NW", "S": "N", "SW": "NE", "NW": "SE"}


class HexGrid:
    """Coordinates, adjacency and distance on one map's grid."""

    __slots__ = ("first_col", "last_col", "first_row", "last_row", "shifted_parity", "digits")

    def __init__(self, *, first_col: int, last_col: int, first_row: int, last_row: int,
                 shifted: str = "even", digits: int = 2) -> None:
        if shifted not in ("odd", "even"):
            raise ValueError(f"shifted must be 'odd' or 'even', not {shifted!r}")
        self.first_col, self.last_col = first_col, last_col
        self.first_row, self.last_row = first_row, last_row
        self.shifted_parity = 1 if shifted == "odd" else 0
        self.digits = digits

    # -- ids -------------------------------------------------------------------------------
    def hex_id(self, col: int, row: int) -> str:
        """Return the printed id of the hex at (col, row)."""
        return f"{col:0{self.digits}d}{row:0{self.digits}d}"

    def parse(self, hex_id: str) -> tuple[int, int]:
        """Return (col, row) of a printed hex id; ValueError if malformed or off the map."""
        return _parse(self, hex_id)

    def _parse_uncached(self, hex_id: str) -> tuple[int, int]:
        d = self.digits
        if len(hex_id) != 2 * d or not hex_id.isdigit():
            raise ValueError(f"malformed hex id {hex_id!r}")
        col, row = int(hex_id[:d]), int(hex_id[d:])
        if not self.on_map(col, row):
            raise ValueError(f"hex {hex_id} is off the map")
        return col, row

    def on_map(self, col: int, row: int) -> bool:
        """True if (col, row) lies inside the grid."""
        return self.first_col <= col <= self.last_col and self.first_row <= row <= self.last_row

    def is_hex(self, hex_id: str) -> bool:
        """True if hex_id names a hex of this grid."""
        try:
            self.parse(hex_id)
        except ValueError:
            return False
        return True

    def all_hexes(self) -> list[str]:
        """Every hex id of the grid, column by column."""
        return [self.hex_id(c, r) for c in range(self.first_col, self.last_col + 1)
                for r in range(self.first_row, self.last_row + 1)]

    def is_shifted(self, col: int) -> bool:
        """True if this column is drawn half a hex lower than its neighbours."""
        return col % 2 == self.shifted_parity

    # -- adjacency -------------------------------------------------------------------------
    def step(self, col: int, row: int, direction: str) -> tuple[int, int]:
        """The (col, row) one step from (col, row) in a direction (may be off the map)."""
        low = self.is_shifted(col)
        if direction == "N":
            return col, row - 1
        if direction == "S":
            return col, row + 1
        dc = 1 if direction in ("NE", "SE") else -1
        if direction in ("NE", "NW"):
            return col + dc, row if low else row - 1
        if direction in ("SE", "SW"):
            return col + dc, row + 1 if low else row
        raise ValueError(f"unknown direction {direction!r}")

    def neighbour(self, hex_id: str, direction: str) -> str | None:
        """The id of the adjacent hex in a direction, or None off the map."""
        c, r = self.step(*self.parse(hex_id), direction)
        return self.hex_id(c, r) if self.on_map(c, r) else None

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        """Ids of the on-map hexes adjacent to hex_id, in direction order."""
        return _neighbours(self, hex_id)

    def direction(self, a: str, b: str) -> str | None:
        """The direction from hex a to adjacent hex b, or None if they are not adjacent."""
        for d in DIRECTIONS:
            if self.neighbour(a, d) == b:
                return d
        return None

    def adjacent(self, a: str, b: str) -> bool:
        """True if hexes a and b share a hexside."""
        return b in self.neighbours(a)

    # -- distance --------------------------------------------------------------------------
    def axial(self, hex_id: str) -> tuple[int, int]:
        """Axial (q, r) coordinates of a hex."""
        return _axial(self, hex_id)

    def distance(self, a: str, b: str) -> int:
        """Number of hex steps between a and b."""
        q1, r1 = self.axial(a)
        q2, r2 = self.axial(b)
        dq, dr = q1 - q2, r1 - r2
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def within(self, center: str, radius: int) -> list[str]:
        """All hexes at distance <= radius of center."""
        return [h for h in self.all_hexes() if self.distance(center, h) <= radius]

    # -- drawing ---------------------------------------------------------------------------
    def center(self, hex_id: str, size: float = 1.0) -> tuple[float, float]:
        """Pixel centre of a hex for drawing (flat-top, circumradius = size)."""
        col, row = self.parse(hex_id)
        x = (col - self.first_col) * 1.5 * size + size
        h = 3 ** 0.5 * size
        y = (row - self.first_row) * h + h / 2 + (h / 2 if self.is_shifted(col) else 0.0)
        return x, y


@lru_cache(maxsize=65536)
def _parse(grid: HexGrid, hex_id: str) -> tuple[int, int]:
    return grid._parse_uncached(hex_id)


@lru_cache(maxsize=65536)
def _axial(grid: HexGrid, hex_id: str) -> tuple[int, int]:
    col, row = grid.parse(hex_id)
    return col, row - (col + (1 - grid.shifted_parity) * (col & 1)) // 2


@lru_cache(maxsize=65536)
def _neighbours(grid: HexGrid, hex_id: str) -> tuple[str, ...]:
    out = []
    col, row = grid.parse(hex_id)
    for d in DIRECTIONS:
        c, r = grid.step(col, row, d)
        if grid.on_map(c, r):
            out.append(grid.hex_id(c, r))
    return tuple(out)


def hexside_key(a: str, b: str) -> tuple[str, str]:
    """A canonical key for the hexside between two adjacent hexes (sorted pair)."""
    return (a, b) if a <= b else (b, a)
