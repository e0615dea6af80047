"""Maps of several sheets (BCS-1.1b, BCS-1.1c): hex ids, adjacency across the seam, half hexes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.errors import ScenarioError
from pbem.core.hexgrid import DIRECTIONS, OPPOSITE, Sheet, SheetGrid, parse_sheet_id, sheet_hex_id
from pbem.core.mapdata import GameMap, MapFile

# Two sheets stacked as the BbF maps are: A above B, same columns (rows count bottom to top).
A = Sheet(letter="A", first_col=1, last_col=9, first_row=0, last_row=6, col0=1, row0=0)
B = Sheet(letter="B", first_col=1, last_col=9, first_row=0, last_row=6, col0=1, row0=7)
GRID = SheetGrid([A, B], shifted="even")
HEXES = GRID.all_hexes()


def test_bcs_1_1b_ids_are_letter_column_dot_row():
    """BCS-1.1b: B10.10 is hex 10.10 on map B; the column is not padded, the row has two digits."""
    assert parse_sheet_id("B10.10") == ("B", 10, 10)
    assert parse_sheet_id("A8.26") == ("A", 8, 26)
    assert parse_sheet_id("B48.00") == ("B", 48, 0)
    assert sheet_hex_id("B", 4, 10) == "B4.10"
    for bad in ("B04.10", "b4.10", "B4.1", "B4-10", "4.10", "AB4.10", "B4.10 ", "", "B.10"):
        with pytest.raises(ValueError):
            parse_sheet_id(bad)


def test_bcs_1_1b_rows_are_numbered_bottom_to_top():
    """BCS-1.1b: reading up a column the row number grows (29.15 then 29.17 is two hexes up)."""
    assert GRID.neighbour("A3.03", "N") == "A3.04"
    assert GRID.neighbour("A3.03", "S") == "A3.02"
    x1, y1 = GRID.center("A3.03")
    x2, y2 = GRID.center("A3.04")
    assert x1 == x2 and y2 < y1


ids = st.builds(lambda letter, col, row: sheet_hex_id(letter, col, row),
                st.sampled_from("ABCZ"), st.integers(0, 999), st.integers(0, 99))


@given(ids)
def test_bcs_1_1b_id_round_trip(hex_id):
    """BCS-1.1b: every canonical id parses back to itself."""
    assert sheet_hex_id(*parse_sheet_id(hex_id)) == hex_id


@given(st.text(max_size=8))
def test_bcs_1_1b_parser_never_accepts_a_non_canonical_id(text):
    """BCS-1.1b: the parser accepts a string only if it is exactly the canonical spelling."""
    try:
        letter, col, row = parse_sheet_id(text)
    except ValueError:
        return
    assert sheet_hex_id(letter, col, row) == text


@settings(max_examples=300)
@given(st.sampled_from(HEXES), st.sampled_from(DIRECTIONS))
def test_neighbours_are_symmetric_across_the_seam(hex_id, d):
    """Adjacency is symmetric everywhere, including between sheet A's row 00 and B's top row."""
    n = GRID.neighbour(hex_id, d)
    if n is not None:
        assert GRID.neighbour(n, OPPOSITE[d]) == hex_id
        assert GRID.distance(hex_id, n) == 1
        assert hex_id in GRID.neighbours(n)


@settings(max_examples=200)
@given(st.sampled_from(HEXES), st.sampled_from(HEXES))
def test_distance_is_a_metric_on_the_whole_map(a, b):
    """Distance is symmetric, zero only on the same hex, and one step changes it by at most 1."""
    assert GRID.distance(a, b) == GRID.distance(b, a)
    assert (GRID.distance(a, b) == 0) == (a == b)
    for n in GRID.neighbours(a):
        assert abs(GRID.distance(n, b) - GRID.distance(a, b)) <= 1


def test_the_seam_joins_a_row_00_to_b_top_row():
    """Sheet A's bottom row borders sheet B's top row: units move across the seam."""
    assert GRID.neighbour("A3.00", "S") == "B3.06"
    assert "A4.00" in GRID.neighbours("B4.06")
    assert GRID.distance("A1.06", "B1.00") == 13


def test_bcs_1_1c_half_hexes_are_playable_hexes():
    """BCS-1.1c: the hexes cut by a sheet edge are hexes of the map (ids, adjacency)."""
    halves = [h for h in HEXES if GRID.is_half(h)]
    assert halves and all(GRID.is_hex(h) for h in halves)
    # top row, unshifted (odd with shifted=even) columns; bottom row, shifted columns
    assert GRID.is_half("A1.06") and not GRID.is_half("A2.06")
    assert GRID.is_half("B2.00") and not GRID.is_half("B1.00")
    assert GRID.neighbours("A1.06")


def test_sheets_must_not_overlap_or_repeat():
    with pytest.raises(ValueError, match="overlaps"):
        SheetGrid([A, Sheet(letter="B", first_col=1, last_col=3, first_row=0, last_row=2,
                            col0=1, row0=2)])
    with pytest.raises(ValueError, match="twice"):
        SheetGrid([A, A])
    with pytest.raises(ValueError, match="parity"):
        SheetGrid([Sheet(letter="A", first_col=1, last_col=3, first_row=0, last_row=2,
                         col0=0, row0=0)])


def test_off_sheet_ids_are_refused():
    assert not GRID.is_hex("A10.00") and not GRID.is_hex("C1.01") and not GRID.is_hex("A1.7")
    with pytest.raises(ValueError, match="no map sheet C"):
        GRID.parse("C1.01")
    with pytest.raises(ValueError, match="off map sheet A"):
        GRID.parse("A1.07")


def _map(**over) -> dict:
    sheet = {"letter": "A", "first_col": 1, "last_col": 3, "first_row": 0, "last_row": 1,
             "col0": 1, "row0": 0, "grid": ["..^", "..."], "source": "reconstructed: test"}
    sheet.update(over)
    return {"map": {"id": "t", "title": "t", "source": "reconstructed: test"},
            "legend": {".": "open", "^": "rough"}, "sheet": [sheet]}


def test_map_file_of_sheets_loads_top_row_first():
    """The grid of a sheet is written as the map is read: top row (highest number) first."""
    import msgspec

    gm = GameMap(msgspec.convert(_map(), MapFile))
    assert gm.terrain["A3.01"] == "rough" and gm.terrain["A3.00"] == "open"
    assert gm.grid.is_hex("A2.00")


@pytest.mark.parametrize("over,msg", [
    ({"grid": ["..."]}, "grid has 1 rows"),
    ({"grid": ["..", "..."]}, "row 01 has 2 columns|row 1 has 2 columns"),
    ({"grid": ["..x", "..."]}, r"hex A3\.01: character 'x' is not in the legend"),
    ({"letter": "a"}, "one capital letter"),
    ({"source": "guess"}, "source must start"),
])
def test_map_file_of_sheets_refusals(over, msg):
    import msgspec

    with pytest.raises(ScenarioError, match=msg):
        GameMap(msgspec.convert(_map(**over), MapFile), path="m.toml")
