"""Hex geometry for printed wargame maps: flat-top hexes in columns; "CCRR" ids or lettered sheets.

A map declares which column parity is drawn half a hex lower (``shifted``: "odd" or "even").
Hex ids are the printed column and row numbers, zero-padded to ``digits`` each ("0104" is
column 1, row 4). Directions are N, NE, SE, S, SW, NW.
"""

from __future__ import annotations

import re
from functools import lru_cache

DIRECTIONS: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
OPPOSITE: dict[str, str] = {"N": "S", "NE": "SW", "SE": "NW", "S": "N", "SW": "NE", "NW": "SE"}
_DIRECTION_INDEX = {d: i for i, d in enumerate(DIRECTIONS)}
# (column, row) offsets of one step in each direction, in DIRECTIONS order, from a column drawn
# half a hex lower (True) and from one that is not (False); N is row - 1
_OFFSETS: dict[bool, tuple[tuple[int, int], ...]] = {
    True: ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)),
    False: ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1))}


class _Adjacency:
    """Queries both grids answer alike from their is_shifted(), neighbour() and neighbours()."""

    def step(self, col: int, row: int, direction: str) -> tuple[int, int]:
        """The (col, row) one step away in a direction (may be off the map; N is row - 1)."""
        i = _DIRECTION_INDEX.get(direction)
        if i is None:
            raise ValueError(f"unknown direction {direction!r}")
        dc, dr = _OFFSETS[self.is_shifted(col)][i]
        return col + dc, row + dr

    def steps(self, col: int, row: int) -> list[tuple[int, int]]:
        """The (col, row) one step away in each direction, in DIRECTIONS order (may be off
        the map)."""
        return [(col + dc, row + dr) for dc, dr in _OFFSETS[self.is_shifted(col)]]

    def direction(self, a: str, b: str) -> str | None:
        """The direction from hex a to adjacent hex b, or None if they are not adjacent."""
        for d in DIRECTIONS:
            if self.neighbour(a, d) == b:
                return d
        return None

    def adjacent(self, a: str, b: str) -> bool:
        """True if hexes a and b share a hexside."""
        return b in self.neighbours(a)


class HexGrid(_Adjacency):
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
        return _id_format(self.digits) % (col, row)

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
            _parse(self, hex_id)
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
    def neighbour(self, hex_id: str, direction: str) -> str | None:
        """The id of the adjacent hex in a direction, or None off the map."""
        c, r = self.step(*self.parse(hex_id), direction)
        return self.hex_id(c, r) if self.on_map(c, r) else None

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        """Ids of the on-map hexes adjacent to hex_id, in direction order."""
        return _neighbours(self, hex_id)

    def adjacent(self, a: str, b: str) -> bool:
        """True if hexes a and b share a hexside (_Adjacency.adjacent, one call shorter)."""
        return b in _neighbours(self, a)

    # -- distance --------------------------------------------------------------------------
    def axial(self, hex_id: str) -> tuple[int, int]:
        """Axial (q, r) coordinates of a hex."""
        return _axial(self, hex_id)

    def distance(self, a: str, b: str) -> int:
        """Number of hex steps between a and b."""
        q1, r1 = _axial(self, a)
        q2, r2 = _axial(self, b)
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


@lru_cache(maxsize=None)
def _id_format(digits: int) -> str:
    # "%0Nd" formats as f"{n:0Nd}" does, without building the format spec on every call
    return f"%0{digits}d%0{digits}d"


@lru_cache(maxsize=65536)
def _parse(grid: HexGrid, hex_id: str) -> tuple[int, int]:
    return grid._parse_uncached(hex_id)


@lru_cache(maxsize=65536)
def _axial(grid: HexGrid, hex_id: str) -> tuple[int, int]:
    col, row = grid.parse(hex_id)
    return col, row - (col + (1 - grid.shifted_parity) * (col & 1)) // 2


@lru_cache(maxsize=65536)
def _neighbours(grid: HexGrid, hex_id: str) -> tuple[str, ...]:
    return tuple(grid.hex_id(c, r) for c, r in grid.steps(*grid.parse(hex_id))
                 if grid.on_map(c, r))


def hexside_key(a: str, b: str) -> tuple[str, str]:
    """A canonical key for the hexside between two adjacent hexes (sorted pair)."""
    return (a, b) if a <= b else (b, a)


# -- maps of several sheets ----------------------------------------------------------------------

_SHEET_ID = re.compile(r"^([A-Z])([1-9][0-9]{0,2}|0)\.([0-9]{2,3})$")


class Sheet:
    """One printed map sheet: its letter, printed column and row ranges, and where it lies.

    ``col0`` and ``row0`` place the sheet on the whole map: the sheet's first column is whole-map
    column ``col0`` and its top row (``last_row``: rows are numbered bottom to top) is whole-map
    row ``row0`` (whole-map rows count downwards from the top of the drawing).
    """

    __slots__ = ("letter", "first_col", "last_col", "first_row", "last_row", "col0", "row0")

    def __init__(self, *, letter: str, first_col: int, last_col: int, first_row: int,
                 last_row: int, col0: int = 0, row0: int = 0) -> None:
        if len(letter) != 1 or not letter.isupper() or not letter.isascii():
            raise ValueError(f"a sheet letter is one capital letter, not {letter!r}")
        if first_col < 0 or first_row < 0 or last_col < first_col or last_row < first_row:
            raise ValueError(f"sheet {letter}: empty or negative column or row range")
        if last_col > 999 or last_row > 999:
            raise ValueError(f"sheet {letter}: at most 999 columns and rows")
        self.letter = letter
        self.first_col, self.last_col = first_col, last_col
        self.first_row, self.last_row = first_row, last_row
        self.col0, self.row0 = col0, row0

    def to_global(self, col: int, row: int) -> tuple[int, int]:
        """Whole-map (column, row counted downwards) of this sheet's printed (col, row)."""
        return self.col0 + col - self.first_col, self.row0 + self.last_row - row

    def from_global(self, gc: int, gr: int) -> tuple[int, int] | None:
        """Printed (col, row) of a whole-map position on this sheet, or None if not on it."""
        col = gc - self.col0 + self.first_col
        row = self.last_row - (gr - self.row0)
        if self.first_col <= col <= self.last_col and self.first_row <= row <= self.last_row:
            return col, row
        return None


def sheet_hex_id(letter: str, col: int, row: int) -> str:
    """The printed id of a hex on a lettered sheet: letter, column, '.', two-digit row (B4.10)."""
    return f"{letter}{col}.{row:02d}"


def parse_sheet_id(hex_id: str) -> tuple[str, int, int]:
    """(letter, col, row) of a canonical sheet hex id such as 'B10.06'; ValueError otherwise."""
    m = _SHEET_ID.match(hex_id) if isinstance(hex_id, str) else None
    if not m:
        raise ValueError(f"malformed hex id {hex_id!r} (expected a sheet letter, column.row as "
                         f"in B10.06)")
    letter, col, row = m.group(1), int(m.group(2)), int(m.group(3))
    if sheet_hex_id(letter, col, row) != hex_id:
        raise ValueError(f"malformed hex id {hex_id!r}: write it {sheet_hex_id(letter, col, row)}")
    return letter, col, row


class SheetGrid(_Adjacency):
    """Coordinates, adjacency and distance on a map of several lettered sheets (BCS style).

    Hex ids are the sheet letter, the printed column, a dot and the printed row in two digits
    (``A12.05``, ``B4.10``); rows are numbered bottom to top. Hexes are flat-topped in vertical
    columns; ``shifted`` names the whole-map column parity drawn half a hex lower. Sheets sit
    on one whole-map lattice, so adjacency and distance run across the seams. The hexes of a
    sheet's top row in unshifted columns and of its bottom row in shifted columns are cut by
    the sheet edge (half hexes); they are playable (BCS 1.1c) and drawn clipped.
    """

    def __init__(self, sheets: list[Sheet], *, shifted: str = "even") -> None:
        if shifted not in ("odd", "even"):
            raise ValueError(f"shifted must be 'odd' or 'even', not {shifted!r}")
        if not sheets:
            raise ValueError("a map needs at least one sheet")
        self.shifted_parity = 1 if shifted == "odd" else 0
        self.sheets: dict[str, Sheet] = {}
        self._cells: dict[tuple[int, int], str] = {}
        self._pos: dict[str, tuple[int, int]] = {}
        self._order: list[str] = []
        for sh in sheets:
            if sh.letter in self.sheets:
                raise ValueError(f"sheet {sh.letter} is defined twice")
            if (sh.col0 - sh.first_col) % 2:
                raise ValueError(f"sheet {sh.letter}: col0 - first_col must be even so that "
                                 f"column parity is the same on the sheet and on the whole map")
            self.sheets[sh.letter] = sh
            for col in range(sh.first_col, sh.last_col + 1):
                for row in range(sh.last_row, sh.first_row - 1, -1):
                    g = sh.to_global(col, row)
                    hid = sheet_hex_id(sh.letter, col, row)
                    if g in self._cells:
                        raise ValueError(f"sheet {sh.letter} overlaps hex {self._cells[g]}")
                    self._cells[g] = hid
                    self._pos[hid] = g
                    self._order.append(hid)
        self.min_gc = min(g[0] for g in self._cells)
        self.max_gc = max(g[0] for g in self._cells)
        self.min_gr = min(g[1] for g in self._cells)
        self.max_gr = max(g[1] for g in self._cells)

    # -- ids -------------------------------------------------------------------------------
    def parse(self, hex_id: str) -> tuple[int, int]:
        """Whole-map (column, row downwards) of a hex id; ValueError if malformed or off the map."""
        pos = self._pos.get(hex_id) if isinstance(hex_id, str) else None
        if pos is not None:
            return pos
        letter, col, row = parse_sheet_id(hex_id)
        if letter not in self.sheets:
            raise ValueError(f"hex {hex_id}: there is no map sheet {letter}")
        raise ValueError(f"hex {hex_id} is off map sheet {letter}")

    def sheet_of(self, hex_id: str) -> Sheet:
        """The sheet a hex lies on."""
        self.parse(hex_id)
        return self.sheets[hex_id[0]]

    def printed(self, hex_id: str) -> tuple[str, int, int]:
        """(letter, printed column, printed row) of a hex id on this map."""
        self.parse(hex_id)
        return parse_sheet_id(hex_id)

    def is_hex(self, hex_id: str) -> bool:
        """True if hex_id names a hex of this map."""
        return isinstance(hex_id, str) and hex_id in self._pos

    def hex_at(self, gc: int, gr: int) -> str | None:
        """The hex id at a whole-map position, or None."""
        return self._cells.get((gc, gr))

    def all_hexes(self) -> list[str]:
        """Every hex id, sheet by sheet, column by column, top row first."""
        return list(self._order)

    def is_shifted(self, gc: int) -> bool:
        """True if this whole-map column is drawn half a hex lower than its neighbours."""
        return gc % 2 == self.shifted_parity

    def is_half(self, hex_id: str) -> bool:
        """True if the sheet edge cuts this hex in half (top row, unshifted; bottom row, shifted)."""
        gc, _ = self.parse(hex_id)
        _, _, row = parse_sheet_id(hex_id)
        sh = self.sheets[hex_id[0]]
        if row == sh.last_row and not self.is_shifted(gc):
            return True
        return row == sh.first_row and self.is_shifted(gc)

    # -- adjacency -------------------------------------------------------------------------
    def neighbour(self, hex_id: str, direction: str) -> str | None:
        """The id of the adjacent hex in a direction (across sheet seams), or None off the map."""
        return self._cells.get(self.step(*self.parse(hex_id), direction))

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        """Ids of the on-map hexes adjacent to hex_id, in direction order."""
        return _sheet_neighbours(self, hex_id)

    # -- distance --------------------------------------------------------------------------
    def axial(self, hex_id: str) -> tuple[int, int]:
        """Axial (q, r) coordinates of a hex on the whole-map lattice."""
        gc, gr = self.parse(hex_id)
        return gc, gr - (gc + (1 - self.shifted_parity) * (gc & 1)) // 2

    def distance(self, a: str, b: str) -> int:
        """Number of hex steps between a and b (across sheets)."""
        q1, r1 = self.axial(a)
        q2, r2 = self.axial(b)
        dq, dr = q1 - q2, r1 - r2
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def within(self, center: str, radius: int) -> list[str]:
        """All hexes at distance <= radius of center."""
        return [h for h in self._order if self.distance(center, h) <= radius]

    # -- drawing ---------------------------------------------------------------------------
    def center(self, hex_id: str, size: float = 1.0) -> tuple[float, float]:
        """Pixel centre of a hex for drawing (flat-top, circumradius = size), whole map."""
        gc, gr = self.parse(hex_id)
        x = (gc - self.min_gc) * 1.5 * size + size
        h = 3 ** 0.5 * size
        y = (gr - self.min_gr) * h + h / 2 + (h / 2 if self.is_shifted(gc) else 0.0)
        return x, y

    def sheet_box(self, letter: str, size: float = 1.0) -> tuple[float, float, float, float]:
        """(x, y, width, height) of a sheet's printed edge: it cuts the half hexes in half."""
        sh = self.sheets[letter]
        h = 3 ** 0.5 * size
        gc0, gr_top = sh.to_global(sh.first_col, sh.last_row)
        gc1, gr_bot = sh.to_global(sh.last_col, sh.first_row)
        x0 = (gc0 - self.min_gc) * 1.5 * size
        x1 = (gc1 - self.min_gc) * 1.5 * size + 2 * size
        y0 = (gr_top - self.min_gr) * h + h / 2        # centre line of the unshifted top hexes
        y1 = (gr_bot - self.min_gr) * h + h            # centre line of the shifted bottom hexes
        return x0, y0, x1 - x0, y1 - y0

    def extent(self, size: float = 1.0) -> tuple[float, float]:
        """(width, height) in pixels of the drawing of the whole map."""
        h = 3 ** 0.5 * size
        return ((self.max_gc - self.min_gc + 1) * 1.5 * size + 0.5 * size,
                (self.max_gr - self.min_gr + 1.5) * h)


@lru_cache(maxsize=65536)
def _sheet_neighbours(grid: SheetGrid, hex_id: str) -> tuple[str, ...]:
    cells = grid._cells
    return tuple(cells[g] for g in grid.steps(*grid.parse(hex_id)) if g in cells)
