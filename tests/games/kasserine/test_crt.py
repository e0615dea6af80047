"""Kasserine CRT data and lookups (KAS-G1; KAS-CRT-a..f, KAS-8.1.3-a, KAS-8.2.2-c, KAS-14.2-d)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.errors import ScenarioError
from pbem.games.kasserine.crt import (
    NO_EFFECT, REQUIRED_ROWS, RESULT_CODES, Crt, CrtCell, CrtColumn, CrtFile, CrtRowData, load_crt)
from pbem.games.kasserine.scenario import SCENARIO_DIR

CRT_FILE = SCENARIO_DIR / "crt.toml"


@pytest.fixture(scope="module")
def crt():
    return load_crt(CRT_FILE)


def test_every_referenced_row_exists(crt):
    """KAS-G1: Clear, Mountain, City/Rough/River, Bridge (8.2.2), Minefield (14.2), Fortification."""
    for row in REQUIRED_ROWS:
        assert row in crt.rows
    assert {"bridge", "minefield"} <= set(crt.rows)   # KAS-8.2.2-c, KAS-14.2-d


def test_no_empty_cell_and_only_legend_codes(crt):
    """KAS-G1, KAS-CRT-f: six non-empty cells per column, each a code the legend defines."""
    assert RESULT_CODES == {"De", "D3", "D2", "Ex", "A1", "A2", "A3", "(A)", "Ae", "•"}
    for row in crt.rows.values():
        for col in row.column:
            assert len(col.results) == 6 and len(col.bold) == 6
            for r in col.results:
                assert r and r in RESULT_CODES


def test_columns_are_contiguous_up_to_plus_10(crt):
    """KAS-CRT-c/d: no gap, no overlap, every row ends at +10."""
    for row in crt.rows.values():
        cols = row.column
        for a, b in zip(cols, cols[1:]):
            assert b.low == a.high + 1
        assert cols[-1].high == 10


def test_printed_mountain_columns(crt):
    """KAS-CRT-a: Mountain 0, +1, +2/+3, +4/5, +6/7, +8/9, +10 as printed."""
    labels = [c.label for c in crt.rows["mountain"].column]
    assert labels == ["0", "+1", "+2,+3", "+4,5", "+6,7", "+8,9", "+10"]
    ranges = [(c.low, c.high) for c in crt.rows["mountain"].column]
    assert ranges == [(0, 0), (1, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 10)]


def test_printed_city_rough_river_columns(crt):
    """KAS-CRT-b: City, Rough, River starts -2, -1, 0, +1, +2/+3 (the rest reconstructed)."""
    labels = [c.label for c in crt.rows["city_rough_river"].column]
    assert labels[:5] == ["-2", "-1", "0", "+1", "+2,+3"]
    assert labels[-1] == "+10"


def test_clear_row_uses_the_twelve_printed_column_slots(crt):
    assert len(crt.rows["clear"].column) == 12


def test_lookups_clamp_at_the_edges(crt):
    """KAS-CRT-c: below the first column use it; KAS-CRT-d: above +10 use +10."""
    assert crt.column("mountain", -7) == "0"
    assert crt.column("mountain", 0) == "0"
    assert crt.column("mountain", 3) == "+2,+3"
    assert crt.column("mountain", 10) == "+10"
    assert crt.column("mountain", 11) == "+10"
    assert crt.column("mountain", 99) == "+10"
    assert crt.column("city_rough_river", -3) == "-2"
    assert crt.column("city_rough_river", 2) == "+2,+3"
    assert crt.column("clear", -20) == "-4"
    assert crt.column("minefield", 0) == "+1"
    first = crt.rows["mountain"].column[0]
    assert crt.result("mountain", -9, 1) == CrtCell(first.results[0], first.bold[0])
    last = crt.rows["clear"].column[-1]
    assert crt.result("clear", 40, 6) == CrtCell(last.results[5], last.bold[5])


def test_harder_terrain_is_worse_for_the_attacker(crt):
    """At the same differential the attacker fares no better in mountain than in the open."""
    def score(row, d):
        order = ["Ae", "A3", "A2", "A1", "(A)", "•", "Ex", "D2", "D3", "De"]
        return sum(order.index(crt.result(row, d, die).result) for die in range(1, 7))
    for d in range(-4, 11):
        assert score("clear", d) >= score("city_rough_river", d) >= score("mountain", d)
        assert score("mountain", d) >= score("minefield", d) >= score("fortification", d)
        assert score("clear", d) >= score("bridge", d) >= score("city_rough_river", d)


def test_die_out_of_range(crt):
    with pytest.raises(ValueError):
        crt.result("clear", 0, 7)
    with pytest.raises(ValueError):
        crt.result("clear", 0, 0)


def test_unknown_row(crt):
    with pytest.raises(ScenarioError, match="unknown CRT row 'swamp'"):
        crt.column("swamp", 0)


def test_bombardment_bold_and_attacker_results(crt):
    """KAS-CRT-e: bold cells are No Effect in bombardment; KAS-8.1.3-a: Ae/A1-A3/Ex likewise."""
    assert CrtCell("De", True).bombardment() == NO_EFFECT
    assert CrtCell("De", False).bombardment() == "De"
    assert CrtCell("(A)", False).bombardment() == "(A)"      # KAS-8.1.3-b friendly fire stays
    for r in ("Ae", "A1", "A2", "A3", "Ex"):
        assert CrtCell(r, False).bombardment() == NO_EFFECT
    bolds = [(row.id, c.label) for row in crt.rows.values() for c in row.column if any(c.bold)]
    assert bolds, "some cells must be bold"
    assert any(not any(c.bold) for c in crt.rows["clear"].column)


@given(row=st.sampled_from(REQUIRED_ROWS), d=st.integers(-100, 100), die=st.integers(1, 6))
def test_every_lookup_gives_a_cell(row, d, die):
    crt = load_crt(CRT_FILE)
    cell = crt.result(row, d, die)
    assert cell.result in RESULT_CODES
    assert crt.column(row, d) in [c.label for c in crt.rows[row].column]


# -- validation ---------------------------------------------------------------------------------
def broken(tmp_path: Path, old: str, new: str, count: int = 1) -> Path:
    p = tmp_path / "crt.toml"
    shutil.copy(CRT_FILE, p)
    text = p.read_text(encoding="utf-8")
    assert old in text, old
    p.write_text(text.replace(old, new, count), encoding="utf-8")
    return p


@pytest.mark.parametrize("old,new,message", [
    ('results = ["Ae", "A3", "A2", "A1", "(A)", "•"]',
     'results = ["Ae", "A3", "", "A1", "(A)", "•"]', "die 3: empty cell"),
    ('results = ["Ae", "A3", "A2", "A1", "(A)", "•"]',
     'results = ["Ae", "A3", "A2", "A1", "(A)"]', "has 5 results, expected 6"),
    ('results = ["Ae", "A3", "A2", "A1", "(A)", "•"]',
     'results = ["Ae", "A3", "A2", "A1", "(A)", "NE"]', "unknown result 'NE'"),
    ('bold = [false, false, false, false, false, false]', 'bold = [false]', "expected 6"),
    ('label = "-3"\nlow = -3\nhigh = -3', 'label = "-3"\nlow = -4\nhigh = -3', "overlaps column '-4'"),
    ('label = "-3"\nlow = -3\nhigh = -3', 'label = "-2"\nlow = -2\nhigh = -2', "gap after column '-4'"),
    ('label = "+10"\nlow = 10\nhigh = 10', 'label = "+10"\nlow = 10\nhigh = 12', "expected +10"),
    ('id = "minefield"', 'id = "mines"', "row 'minefield' is missing"),
    ('source = "reconstructed: KAS-G1; see', 'source = "guessed: KAS-G1; see', "must start with"),
])
def test_broken_crt_is_refused(tmp_path, old, new, message):
    p = broken(tmp_path, old, new)
    with pytest.raises(ScenarioError) as e:
        load_crt(p)
    assert "crt.toml" in str(e.value) and message in str(e.value)
    assert "\n" not in str(e.value)


# -- validation messages, exactly (each names the file, the row and column, and the problem) ----
def _table(*rows: CrtRowData, top: int = 1) -> CrtFile:
    return CrtFile(source="reconstructed: test", max_differential=top, row=list(rows))


def _col(label: str, low: int, high: int, results: list[str] | None = None) -> CrtColumn:
    return CrtColumn(label=label, low=low, high=high, results=results or ["•"] * 6,
                     bold=[False] * 6)


def _row(rid: str, *cols: CrtColumn, source: str = "reconstructed: test") -> CrtRowData:
    return CrtRowData(id=rid, name=rid, source=source, column=list(cols))


@pytest.mark.parametrize("table,message", [
    (_table(_row("clear")), "t.toml: row 'clear': has no columns"),
    (_table(_row("clear", _col(" ", 0, 1))), "t.toml: row 'clear': a column has an empty label"),
    (_table(_row("clear", _col("0", 1, 0))), "t.toml: row 'clear' column '0': low 1 is above high 0"),
    (_table(_row("clear", _col("0", 0, 1)), _row("clear", _col("0", 0, 1))),
     "t.toml: row 'clear': defined twice"),
    (_table(_row("clear", _col("-2", -2, -2), _col("+1", 1, 1))),
     "t.toml: row 'clear' column '+1': gap after column '-2' (differentials -1..0 missing)"),
    (_table(_row("clear", _col("-1", -1, -1), _col("0", 0, 0), _col("+1", 1, 1)), top=2),
     "t.toml: row 'clear': last column ends at 1, expected +2 (KAS-CRT-d)"),
    (_table(_row("clear", _col("0", 0, 1, ["•", "•", "NE", "•", "•", "•"]))),
     "t.toml: row 'clear' column '0' die 3: unknown result 'NE' (known: (A) A1 A2 A3 Ae D2 D3 De Ex •)"),
    (_table(_row("clear", _col("0", 0, 1), source="guessed")),
     "t.toml: row 'clear': source must start with 'printed' or 'reconstructed'"),
])
def test_crt_validation_messages(table, message):
    """KAS-G1: a bad table is refused with one line naming the file, row, column and problem."""
    with pytest.raises(ScenarioError) as e:
        Crt(table, path="t.toml", required_rows=())
    assert str(e.value) == message


def test_crt_without_a_path_says_so():
    """A table built in memory (no file) is named '<crt>' in its errors."""
    with pytest.raises(ScenarioError) as e:
        Crt(_table(_row("clear")), required_rows=())
    assert str(e.value) == "<crt>: row 'clear': has no columns"


def test_crt_required_rows_are_the_callers(tmp_path):
    """KAS-G1: the rows a table must have are the ones its reader requires (none: any row set)."""
    p = broken(tmp_path, 'id = "minefield"', 'id = "mines"')
    assert "mines" in load_crt(p, required_rows=()).rows


def test_crt_lookup_messages():
    """Lookups name the file and the unknown row; a die outside 1-6 is refused with its value."""
    crt = load_crt(CRT_FILE)   # not the module fixture: mutmut credits its load to one test only
    with pytest.raises(ScenarioError) as e:
        crt.column("swamp", 0)
    assert str(e.value) == f"{CRT_FILE}: unknown CRT row 'swamp'"
    with pytest.raises(ValueError) as v:
        crt.result("clear", 0, 7)
    assert str(v.value) == "die roll must be 1-6, not 7"
