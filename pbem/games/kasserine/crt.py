"""Kasserine Combat Results Table: decode ``scenarios/kasserine/crt.toml``, validate it, look it up.

The printed CRT has no result cells (KAS-G1); the data file supplies every row, column and cell,
each cell with the "bold" flag that turns it into No Effect in a bombardment (KAS-CRT-e).

Lookup: ``Crt.column(row, differential)`` gives the column label, ``Crt.result(row, differential,
die)`` the ``CrtCell``. A differential below a row's first column uses that column (KAS-CRT-c), one
above the top (+10) uses the last column (KAS-CRT-d).
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from pbem.core.datafile import read_toml
from pbem.core.errors import ScenarioError
from pbem.core.mapdata import check_source

NO_EFFECT = "•"
#: Result codes defined by 8.2.4 and the CRT legend ("•" is No Effect).
RESULT_CODES: frozenset[str] = frozenset(
    {"De", "D3", "D2", "Ex", "A1", "A2", "A3", "(A)", "Ae", NO_EFFECT})
#: Results treated as no result in a bombardment whatever their bold flag (8.1.3).
BOMBARDMENT_IGNORED: frozenset[str] = frozenset({"Ae", "A1", "A2", "A3", "Ex"})
#: Rows the rules themselves name: the printed Mountain and City/Rough/River rows, Bridge (8.2.2),
#: Minefield (14.2), plus the open-ground and fortification rows every map needs (KAS-G1).
REQUIRED_ROWS: tuple[str, ...] = (
    "clear", "mountain", "city_rough_river", "bridge", "minefield", "fortification")
DIE_FACES = 6


class _S(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class CrtColumn(_S, kw_only=True):
    label: str
    low: int
    high: int
    results: list[str]
    bold: list[bool]


class CrtRowData(_S, kw_only=True):
    id: str
    name: str
    source: str
    column: list[CrtColumn] = []


class CrtFile(_S, kw_only=True):
    source: str
    max_differential: int
    row: list[CrtRowData] = []


class CrtCell(msgspec.Struct, frozen=True):
    """One CRT cell: the result code and whether it is printed in bold."""

    result: str
    bold: bool

    def bombardment(self) -> str:
        """The result as applied to a bombardment: bold cells and Ae/A1/A2/A3/Ex are No Effect."""
        if self.bold or self.result in BOMBARDMENT_IGNORED:
            return NO_EFFECT
        return self.result


class Crt:
    """A validated CRT: rows of contiguous differential columns, six cells per column."""

    def __init__(self, data: CrtFile, *, path: str = "<crt>",
                 required_rows: tuple[str, ...] = REQUIRED_ROWS) -> None:
        self.data = data
        self.path = path
        self.max_differential = data.max_differential
        check_source(f"{path}: top level", data.source)
        self.rows: dict[str, CrtRowData] = {}
        for row in data.row:
            where = f"{path}: row {row.id!r}"
            if row.id in self.rows:
                raise ScenarioError(f"{where}: defined twice")
            check_source(where, row.source)
            self._check_row(where, row)
            self.rows[row.id] = row
        for rid in required_rows:
            if rid not in self.rows:
                raise ScenarioError(f"{path}: row {rid!r} is missing (the rules refer to it)")

    def _check_row(self, where: str, row: CrtRowData) -> None:
        if not row.column:
            raise ScenarioError(f"{where}: has no columns")
        prev: CrtColumn | None = None
        for col in row.column:
            cw = f"{where} column {col.label!r}"
            if not col.label.strip():
                raise ScenarioError(f"{where}: a column has an empty label")
            if col.low > col.high:
                raise ScenarioError(f"{cw}: low {col.low} is above high {col.high}")
            if prev is not None:
                if col.low <= prev.high:
                    raise ScenarioError(f"{cw}: overlaps column {prev.label!r}")
                if col.low != prev.high + 1:
                    raise ScenarioError(f"{cw}: gap after column {prev.label!r} "
                                        f"(differentials {prev.high + 1}..{col.low - 1} missing)")
            if len(col.results) != DIE_FACES:
                raise ScenarioError(f"{cw}: has {len(col.results)} results, expected {DIE_FACES}")
            if len(col.bold) != DIE_FACES:
                raise ScenarioError(f"{cw}: has {len(col.bold)} bold flags, expected {DIE_FACES}")
            for die, res in enumerate(col.results, start=1):
                if not res.strip():
                    raise ScenarioError(f"{cw} die {die}: empty cell")
                if res not in RESULT_CODES:
                    raise ScenarioError(f"{cw} die {die}: unknown result {res!r} "
                                        f"(known: {' '.join(sorted(RESULT_CODES))})")
            prev = col
        if row.column[-1].high != self.max_differential:
            raise ScenarioError(f"{where}: last column ends at {row.column[-1].high}, "
                                f"expected +{self.max_differential} (KAS-CRT-d)")

    # -- lookups ---------------------------------------------------------------------------
    def row(self, row: str) -> CrtRowData:
        """The row with this id; ScenarioError if unknown."""
        try:
            return self.rows[row]
        except KeyError:
            raise ScenarioError(f"{self.path}: unknown CRT row {row!r}") from None

    def _column(self, row: str, differential: int) -> CrtColumn:
        cols = self.row(row).column
        if differential < cols[0].low:          # KAS-CRT-c
            return cols[0]
        if differential > cols[-1].high:        # KAS-CRT-d
            return cols[-1]
        for c in cols:
            if c.low <= differential <= c.high:
                return c
        raise AssertionError("validated columns are contiguous")  # pragma: no cover

    def column(self, row: str, differential: int) -> str:
        """The label of the column a combat differential is resolved on in this row."""
        return self._column(row, differential).label

    def result(self, row: str, differential: int, die: int) -> CrtCell:
        """The cell for a row, a differential and a die roll (1-6)."""
        if not 1 <= die <= DIE_FACES:
            raise ValueError(f"die roll must be 1-{DIE_FACES}, not {die}")
        col = self._column(row, differential)
        return CrtCell(col.results[die - 1], col.bold[die - 1])


def load_crt(path: str | Path, *, required_rows: tuple[str, ...] = REQUIRED_ROWS) -> Crt:
    """Read, decode strictly and validate a CRT file; ScenarioError names the file and problem."""
    return Crt(read_toml(path, CrtFile), path=str(Path(path)), required_rows=required_rows)
