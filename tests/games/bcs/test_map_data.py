"""BbF maps A and B as two sheets of one map: terrain, roads, places, VP hexes, Entry Areas."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from click.testing import CliRunner

from pbem.cli import cli
from pbem.games.bcs.info import GAME
from pbem.reports.svgmap import render_svg


def test_bcs_1_1b_two_sheets_with_printed_ids(bbf):
    """BCS-1.1b: the map has sheets A and B; every hex id the scenarios print is on it."""
    g = bbf.game_map.grid
    assert set(g.sheets) == {"A", "B"}
    for h in ("A8.26", "A57.21", "A55.35", "B48.00", "B3.35", "B32.35", "B51.22", "A32.01"):
        assert g.is_hex(h), h


def test_bcs_1_1c_edge_half_hexes_are_playable(bbf):
    """BCS-1.1c: hexes cut by a sheet edge are playable hexes with terrain."""
    g = bbf.game_map.grid
    halves = [h for h in g.all_hexes() if g.is_half(h)]
    assert len(halves) == 2 * 57       # per sheet: 29 on the top edge, 28 on the bottom edge
    assert all(h in bbf.game_map.terrain for h in halves)
    assert g.is_half("B48.00")       # the 5.3 Axis Trains hex on the bottom edge


def test_sheets_join_at_a00_b35(bbf):
    """A32.01 (5.4 Axis entry) sits on A's bottom edge next to map B, as 5.4 needs."""
    g = bbf.game_map.grid
    assert g.distance("A32.01", "B32.35") == 2
    assert any(n.startswith("B") for n in g.neighbours("A32.00"))


def test_every_hex_terrain_and_feature_is_in_the_tec(bbf):
    """BBF-G2 / BBF-G3: every hex, hexside and road kind of the map has a TEC row."""
    gm = bbf.game_map
    assert len(gm.terrain) == len(gm.grid.all_hexes())
    kinds = {t.id: t.applies for t in bbf.terrain.values()}
    assert all(kinds[t] == "hex" for t in set(gm.terrain.values()))
    assert all(kinds[k] == "hexside" for ks in gm.hexsides.values() for k in ks)
    assert {k for k in gm.roads} == {"primary_road", "secondary_road", "track", "railroad"}


def test_bbf_4_1_a_victory_hexes_and_tags(bbf):
    """BBF-4.1-a / BBF-4.1-d: 14 VP hexes apply to each objective, Either counting for both."""
    teb, lek = bbf.vp_hexes("Tebessa"), bbf.vp_hexes("Le Kef")
    assert len(teb) == len(lek) == 14
    either = set(teb) & set(lek)
    assert {"A25.12", "A30.16", "B30.29"} <= either            # printed "Either"
    assert "A10.25" in set(teb) - either and {"B42.06", "B49.18"} <= set(lek) - either


def test_named_places_of_the_scenarios(bbf):
    """The places the scenarios name are at their printed hexes."""
    gm = bbf.game_map
    for name, hx in (("Kasserine", "A25.12"), ("Sbeitla", "B30.29"), ("Thelepte", "A10.25"),
                     ("Hadjeb el Aioun", "B42.06"), ("Kef el Ahmar", "B49.18"),
                     ("Bordj Chambi", "A30.16"), ("Sidi bou Zid", "B14.09"),
                     ("Kern's Crossroads", "B23.16")):
        assert gm.hex_of(name) == hx


def test_entry_areas_and_supply_sources_on_map_edges(bbf):
    """BBF-G2: Entry Areas A-H lie on map edges; 1.2a/1.2b supply sources are Entry hexes."""
    gm = bbf.game_map
    g = gm.grid
    for letter in "ABCDEFGH":
        hexes = gm.hexsets[f"entry-{letter}"]
        assert hexes and all(len(g.neighbours(h)) < 6 for h in hexes), letter
    assert set(gm.hexsets["supply-axis"]) >= set(gm.hexsets["entry-F"])
    assert set(gm.hexsets["supply-allied"]) >= set(gm.hexsets["entry-C"])


def test_full_map_renders_with_both_sheets(tmp_path):
    """`pbem map bcs 5.3` draws both sheets, their edges and the set-up in the report style."""
    out = tmp_path / "bbf.html"
    r = CliRunner().invoke(cli, ["map", "bcs", "5.3", str(out)])
    assert r.exit_code == 0, r.output
    html = out.read_text()
    assert 'class="sheets"' in html and ">Map A" in html and ">Map B" in html
    assert 'clip-path="url(#sheet-clip)"' in html
    for h in ("A25.12", "B30.29", "B48.00", "A1.35"):
        assert f'data-hex="{h}"' in html
    assert 'class="unit' in html and 'class="marker minefield"' in html
    assert "incomplete" in html and "BBF-G8" in html            # the scenario's status
    svg = html[html.index("<svg"):html.index("</svg>") + 6]
    ET.fromstring(svg)                                          # well-formed


def test_map_command_refusals_are_one_line(tmp_path):
    r = CliRunner().invoke(cli, ["map", "bcs", "9.9", str(tmp_path / "x.html")])
    assert r.exit_code != 0 and "unknown scenario '9.9'" in r.output
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_map_command_draws_a_one_sheet_game_too(tmp_path):
    out = tmp_path / "k.html"
    r = CliRunner().invoke(cli, ["map", "kasserine", "historical", str(out)])
    assert r.exit_code == 0, r.output
    assert 'class="edge-labels"' in out.read_text()


def test_data_object_lists_every_scenario_with_its_status():
    """BbF's data object (drawn by pbem map) shows every scenario with its data status."""
    titles = GAME.scenarios()
    assert titles["5.2"].endswith("(complete)") and "BBF-G7" in titles["5.1"]


def test_setup_is_drawn_where_printed():
    svg = render_svg(GAME.game_map("5.2"), GAME.setup_units("5.2"), GAME.setup_markers("5.2"),
                     marker_styles=GAME.marker_styles())
    assert 'class="unit' in svg and 'data-hex="B42.06"' in svg
    assert 'class="marker objective"' in svg


def test_bcs_1_1b_neighbours_symmetric_on_the_bbf_map(bbf):
    """BCS-1.1b: on the real two-sheet map, every neighbour relation is mutual (seam included)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pbem.core.hexgrid import DIRECTIONS, OPPOSITE

    g = bbf.game_map.grid
    seam = [h for h in g.all_hexes() if h.endswith((".00", ".35"))]

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from(seam) | st.sampled_from(g.all_hexes()), st.sampled_from(DIRECTIONS))
    def check(h, d):
        n = g.neighbour(h, d)
        if n is not None:
            assert g.neighbour(n, OPPOSITE[d]) == h and g.distance(h, n) == 1

    check()
