"""Scenario map files (TOML): decode strictly, validate, and compile into a queryable GameMap.

The format is described in docs/map-format.md. Every group of values carries a ``source``
string that starts with "printed" (taken from the rulebook) or "reconstructed" (authored,
with its basis), so an owner of the boxed game can find and correct authored values.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from pbem.core.errors import ScenarioError
from pbem.core.hexgrid import HexGrid, Sheet, SheetGrid, hexside_key


class _Strict(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class MapHeader(_Strict, kw_only=True):
    id: str
    title: str
    first_col: int | None = None     # one-sheet maps ("CCRR" ids); absent on a map of sheets
    last_col: int | None = None
    first_row: int | None = None
    last_row: int | None = None
    shifted: str = "even"
    digits: int = 2
    source: str


class SheetSpec(_Strict, kw_only=True):
    """One lettered map sheet: its printed ranges, its place on the whole map, its terrain."""

    letter: str
    title: str = ""
    first_col: int
    last_col: int
    first_row: int
    last_row: int
    col0: int          # whole-map column of first_col (same parity as first_col)
    row0: int          # whole-map row (counted downwards) of last_row, the sheet's top row
    grid: list[str]    # one string per printed row, top row (last_row) first
    source: str


class Place(_Strict, kw_only=True):
    name: str
    hex: str
    kinds: list[str] = []
    aliases: list[str] = []
    source: str


class Road(_Strict, kw_only=True):
    kind: str = "road"
    name: str = ""
    hexes: list[str]
    source: str


class HexsideGroup(_Strict, kw_only=True):
    kind: str
    pairs: list[tuple[str, str]]
    source: str


class HexSet(_Strict, kw_only=True):
    name: str
    hexes: list[str]
    source: str


class MapFile(_Strict, kw_only=True):
    map: MapHeader
    legend: dict[str, str]
    grid: list[str] = []
    sheet: list[SheetSpec] = []
    place: list[Place] = []
    road: list[Road] = []
    hexside: list[HexsideGroup] = []
    hexset: list[HexSet] = []


def check_source(where: str, source: str) -> None:
    """Raise ScenarioError unless a source string says printed or reconstructed."""
    if not (source.startswith("printed") or source.startswith("reconstructed")):
        raise ScenarioError(f"{where}: source must start with 'printed' or 'reconstructed'")


class GameMap:
    """A validated map: terrain per hex, hexside features, roads, places and named hex sets."""

    def __init__(self, data: MapFile, *, path: str = "<map>",
                 hex_terrains: frozenset[str] | None = None,
                 hexside_kinds: frozenset[str] | None = None,
                 road_kinds: frozenset[str] | None = None,
                 place_kinds: frozenset[str] | None = None) -> None:
        self.data = data
        self.path = path
        h = data.map
        check_source(f"{path}: [map]", h.source)
        for k, v in data.legend.items():
            if len(k) != 1:
                raise ScenarioError(f"{path}: legend key {k!r} must be one character")
            if hex_terrains is not None and v not in hex_terrains:
                raise ScenarioError(f"{path}: legend {k!r} names unknown terrain {v!r}")
        self.terrain: dict[str, str] = {}
        self.grid: HexGrid | SheetGrid
        if data.sheet:
            self._load_sheets(data, path)
        else:
            self._load_one_sheet(data, path)

        self.places: dict[str, Place] = {}
        self.place_at: dict[str, list[Place]] = {}
        for p in data.place:
            where = f"{path}: place {p.name!r}"
            check_source(where, p.source)
            self._check_hex(where, p.hex)
            for k in p.kinds:
                if place_kinds is not None and k not in place_kinds:
                    raise ScenarioError(f"{where}: unknown kind {k!r}")
            for n in [p.name, *p.aliases]:
                key = n.casefold()
                if key in self.places:
                    raise ScenarioError(f"{where}: name {n!r} is used twice")
                self.places[key] = p
            self.place_at.setdefault(p.hex, []).append(p)

        self.roads: dict[str, dict[tuple[str, str], None]] = {}
        for r in data.road:
            where = f"{path}: {r.kind} {r.name or r.hexes[:1]}"
            check_source(where, r.source)
            if road_kinds is not None and r.kind not in road_kinds:
                raise ScenarioError(f"{where}: unknown road kind {r.kind!r}")
            if len(r.hexes) < 2:
                raise ScenarioError(f"{where}: a road needs at least two hexes")
            for a, b in zip(r.hexes, r.hexes[1:]):
                self._check_hex(where, a)
                self._check_hex(where, b)
                if not self.grid.adjacent(a, b):
                    raise ScenarioError(f"{where}: hexes {a} and {b} are not adjacent")
                self.roads.setdefault(r.kind, {})[hexside_key(a, b)] = None

        self.hexsides: dict[tuple[str, str], set[str]] = {}
        for g in data.hexside:
            where = f"{path}: hexside group {g.kind!r}"
            check_source(where, g.source)
            if hexside_kinds is not None and g.kind not in hexside_kinds:
                raise ScenarioError(f"{where}: unknown hexside kind {g.kind!r}")
            for a, b in g.pairs:
                self._check_hex(where, a)
                self._check_hex(where, b)
                if not self.grid.adjacent(a, b):
                    raise ScenarioError(f"{where}: hexes {a} and {b} are not adjacent")
                self.hexsides.setdefault(hexside_key(a, b), set()).add(g.kind)

        self.hexsets: dict[str, list[str]] = {}
        for s in data.hexset:
            where = f"{path}: hexset {s.name!r}"
            check_source(where, s.source)
            if s.name in self.hexsets:
                raise ScenarioError(f"{where}: defined twice")
            for x in s.hexes:
                self._check_hex(where, x)
            self.hexsets[s.name] = list(s.hexes)

    def _load_one_sheet(self, data: MapFile, path: str) -> None:
        h = data.map
        if None in (h.first_col, h.last_col, h.first_row, h.last_row) or data.grid == []:
            raise ScenarioError(f"{path}: [map] needs first_col, last_col, first_row, last_row "
                                f"and a grid, or the map needs [[sheet]] entries")
        assert h.first_col is not None and h.last_col is not None
        assert h.first_row is not None and h.last_row is not None
        self.grid = HexGrid(first_col=h.first_col, last_col=h.last_col, first_row=h.first_row,
                            last_row=h.last_row, shifted=h.shifted, digits=h.digits)
        rows = h.last_row - h.first_row + 1
        cols = h.last_col - h.first_col + 1
        if len(data.grid) != rows:
            raise ScenarioError(f"{path}: grid has {len(data.grid)} rows, the header says {rows}")
        for i, line in enumerate(data.grid):
            row = h.first_row + i
            if len(line) != cols:
                raise ScenarioError(f"{path}: grid row {row} has {len(line)} columns, expected {cols}")
            for j, ch in enumerate(line):
                if ch not in data.legend:
                    raise ScenarioError(f"{path}: grid row {row} column {h.first_col + j}: "
                                        f"character {ch!r} is not in the legend")
                self.terrain[self.grid.hex_id(h.first_col + j, row)] = data.legend[ch]

    def _load_sheets(self, data: MapFile, path: str) -> None:
        h = data.map
        if any(v is not None for v in (h.first_col, h.last_col, h.first_row, h.last_row)) \
                or data.grid:
            raise ScenarioError(f"{path}: a map of sheets gives its ranges and grids per "
                                f"[[sheet]], not in [map] or a top-level grid")
        sheets = []
        for sp in data.sheet:
            where = f"{path}: sheet {sp.letter!r}"
            check_source(where, sp.source)
            try:
                sheets.append(Sheet(letter=sp.letter, first_col=sp.first_col,
                                    last_col=sp.last_col, first_row=sp.first_row,
                                    last_row=sp.last_row, col0=sp.col0, row0=sp.row0))
            except ValueError as e:
                raise ScenarioError(f"{where}: {e}") from None
        try:
            self.grid = SheetGrid(sheets, shifted=h.shifted)
        except ValueError as e:
            raise ScenarioError(f"{path}: {e}") from None
        for sp in data.sheet:
            rows = sp.last_row - sp.first_row + 1
            cols = sp.last_col - sp.first_col + 1
            if len(sp.grid) != rows:
                raise ScenarioError(f"{path}: sheet {sp.letter} grid has {len(sp.grid)} rows, "
                                    f"its ranges say {rows}")
            for i, line in enumerate(sp.grid):
                row = sp.last_row - i
                if len(line) != cols:
                    raise ScenarioError(f"{path}: sheet {sp.letter} row {row} has {len(line)} "
                                        f"columns, expected {cols}")
                for j, ch in enumerate(line):
                    if ch not in data.legend:
                        raise ScenarioError(f"{path}: hex {sp.letter}{sp.first_col + j}."
                                            f"{row:02d}: character {ch!r} is not in the legend")
                    self.terrain[f"{sp.letter}{sp.first_col + j}.{row:02d}"] = data.legend[ch]

    def _check_hex(self, where: str, hex_id: str) -> None:
        if not self.grid.is_hex(hex_id):
            raise ScenarioError(f"{where}: unknown hex {hex_id!r}")

    # -- queries ---------------------------------------------------------------------------
    def hex_of(self, name_or_hex: str) -> str:
        """Resolve a place name, alias or hex id to a hex id; ScenarioError if unknown."""
        if self.grid.is_hex(name_or_hex):
            return name_or_hex
        p = self.places.get(name_or_hex.casefold())
        if p is None:
            raise ScenarioError(f"{self.path}: unknown place or hex {name_or_hex!r}")
        return p.hex

    def place_kinds(self, hex_id: str) -> set[str]:
        """All place kinds (town, port, ...) present in a hex."""
        return {k for p in self.place_at.get(hex_id, ()) for k in p.kinds}

    def place_name(self, hex_id: str) -> str | None:
        """The first place name in a hex, if any."""
        ps = self.place_at.get(hex_id)
        return ps[0].name if ps else None

    def hexside(self, a: str, b: str) -> set[str]:
        """The feature kinds on the hexside between a and b (empty set if none)."""
        return self.hexsides.get(hexside_key(a, b), set())

    def road_between(self, a: str, b: str, kind: str = "road") -> bool:
        """True if a road of this kind crosses the hexside between a and b."""
        return hexside_key(a, b) in self.roads.get(kind, {})

    def road_hexes(self, kind: str = "road") -> set[str]:
        """Every hex on a road of this kind."""
        return {h for pair in self.roads.get(kind, {}) for h in pair}


def load_map(path: str | Path, **kinds: frozenset[str]) -> GameMap:
    """Read, decode strictly and validate a map file; ScenarioError names the file and problem."""
    from pbem.core.datafile import read_toml

    return GameMap(read_toml(path, MapFile), path=str(Path(path)), **kinds)
