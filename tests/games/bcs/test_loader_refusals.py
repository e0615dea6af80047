"""The BbF loader refuses bad data with one line naming the file, the entry and the rule.

Each refusal has a failing fixture: a copy of scenarios/bcs with one deliberate fault.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pbem.core.errors import ScenarioError
from pbem.games.bcs import load_data
from pbem.games.bcs.loader import DATA_DIR


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    dst = tmp_path / "bcs"
    shutil.copytree(DATA_DIR, dst)
    return dst


def fault(root: Path, name: str, old: str, new: str, count: int = 1) -> None:
    p = root / name
    text = p.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not in {name}"
    p.write_text(text.replace(old, new, count), encoding="utf-8")


def refused(root: Path, pattern: str) -> str:
    with pytest.raises(ScenarioError, match=pattern) as e:
        load_data(root)
    msg = str(e.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


def test_the_shipped_data_loads():
    d = load_data()
    assert set(d.scenarios) == {"5.1", "5.2", "5.3", "5.4", "5.5", "5.6"}


def test_undefined_counter_in_a_setup(data_copy):
    fault(data_copy, "scenarios/5.2.toml", 'counter = "kern"', 'counter = "kern-tf-x"')
    msg = refused(data_copy, r"5\.2\.toml: set-up \d+ \(B23\.16 kern-tf-x\): undefined counter "
                             r"'kern-tf-x' \(rule BBF-5\.1-c\)")
    assert msg.startswith(str(data_copy))


def test_undefined_counter_in_the_dead_pile(data_copy):
    fault(data_copy, "scenarios/5.3.toml", 'dead_pile = ["prov-arm"', 'dead_pile = ["prov-armor"')
    refused(data_copy, r"5\.3\.toml: dead pile: undefined counter 'prov-armor' \(rule BBF-5\.3-a\)")


def test_undefined_terrain_type(data_copy):
    fault(data_copy, "map.toml", '"M" = "mountain"', '"M" = "jebel"')
    refused(data_copy, r"map\.toml: legend 'M' names unknown terrain 'jebel'")


def test_undefined_hexside_kind(data_copy):
    fault(data_copy, "map.toml", 'kind = "lake"', 'kind = "lagoon"')
    refused(data_copy, r"map\.toml: hexside group 'lagoon': unknown hexside kind 'lagoon'")


def test_missing_tec_cost(data_copy):
    fault(data_copy, "tec.toml", 'rain_truck = "P"\ncombat = "yes"', 'rain_truck = ""\ncombat = "yes"')
    refused(data_copy, r"tec\.toml: terrain 'rough': rain_truck cost '' is missing or malformed "
                       r"\(rule BBF-G3\)")


def test_missing_dice_table_cell(data_copy):
    fault(data_copy, "charts.toml", '{ lo = 5, hi = 6, result = "A1"', '{ lo = 6, hi = 6, result = "A1"')
    refused(data_copy, r"charts\.toml: table 'combat': missing chart cell for roll 5 \(rule BBF-G4\)")


def test_missing_matrix_cell(data_copy):
    text = (data_copy / "charts.toml").read_text()
    cut = text.index('[[cell]]\nchart = "barrage"\nrow = "City"')
    end = text.index("[[cell]]", cut + 5)
    (data_copy / "charts.toml").write_text(text[:cut] + text[end:])
    refused(data_copy, r"charts\.toml: barrage \[City / Loss Range\]: missing chart cell "
                       r"\(rule BBF-G5\)")


def test_activation_marker_without_its_hq(data_copy):
    """A complete scenario whose activation marker's HQ never appears is refused (BBF-G8)."""
    fault(data_copy, "scenarios/5.4.toml", 'axis = ["dak"]', 'axis = ["dak", "schutte"]')
    refused(data_copy, r"5\.4\.toml: scenario 5\.4: the axis activation marker 'Scht KG' is in "
                       r"play but its HQ 'schutte-hq' is neither set up nor arriving \(rule BBF-G8\)")


def test_activation_marker_without_hq_in_a_scenario_claimed_complete(data_copy):
    fault(data_copy, "scenarios/5.3.toml", 'status = "incomplete"', 'status = "complete"')
    refused(data_copy, r"5\.3\.toml: scenario 5\.3: the allied activation marker '34 Inf' .*"
                       r"\(rule BBF-G8\)")


def test_victory_hex_without_its_tag(data_copy):
    fault(data_copy, "map.toml", 'kinds = ["city", "victory", "vp_either"]', 'kinds = ["city", "victory"]')
    refused(data_copy, r"map\.toml: place 'Kasserine' \(A25\.12\): a victory hex needs exactly one "
                       r"objective tag .* \(rule BBF-4\.1-a\)")


def test_victory_hex_count_per_objective(data_copy):
    """BBF-4.1-d: 14 VP hexes apply to each objective."""
    fault(data_copy, "map.toml", 'kinds = ["village", "victory", "vp_lekef"]', 'kinds = ["village"]')
    refused(data_copy, r"map\.toml: victory hexes for Le Kef: 13 apply, the rules count 14 "
                       r"\(rule BBF-4\.1-d\)")


def test_arrival_for_a_unit_that_does_not_exist(data_copy):
    fault(data_copy, "ooa.toml", '"iii-104-inf", "220-pio"', '"iii-104-inf", "221-pio"')
    refused(data_copy, r"ooa\.toml: arrival 11 \(axis, 15 Feb 43\): arrival for a unit that does "
                       r"not exist: '221-pio' \(rule BBF-OOA-AX-2\)")


def test_arrival_in_a_scenario_for_a_unit_that_does_not_exist(data_copy):
    fault(data_copy, "scenarios/5.4.toml", '"dii-90", "xviii-pol"', '"dii-90", "xviii-police"')
    refused(data_copy, r"5\.4\.toml: arrival 6 \(axis, 21 Feb 43\): arrival for a unit that does "
                       r"not exist: 'xviii-police' \(rule BBF-5\.4-c\)")


def test_arrival_on_a_turn_outside_the_calendar(data_copy):
    fault(data_copy, "ooa.toml", 'turn = "15 Feb 43"', 'turn = "31 Feb 43"')
    refused(data_copy, r"ooa\.toml: arrival 11 \(axis, 31 Feb 43\): turn '31 Feb 43' is not in "
                       r"the calendar")


def test_unit_of_an_unknown_formation(data_copy):
    fault(data_copy, "counters.toml", 'formation = "cca"\nkind', 'formation = "cce"\nkind')
    refused(data_copy, r"counters\.toml: unit '3-1-arm': unknown formation 'cce' \(rule BCS-4\.1\)")


def test_deployed_side_must_have_the_lower_ma(data_copy):
    """BCS-1.2b-1: a Deployed side with the higher MA is refused."""
    fault(data_copy, "counters.toml", 'deployed = { ma = 4, mclass = "tac", av = 3',
          'deployed = { ma = 40, mclass = "tac", av = 3')
    refused(data_copy, r"counters\.toml: unit '3-1-arm': the Deployed side has the lower MA "
                       r"\(rule BCS-1\.2b-1\)")


def test_av_without_colour_class(data_copy):
    """BCS-1.2c-7: an Armor Value needs its colour class."""
    fault(data_copy, "counters.toml", 'av = 3, av_class = "offensive"', 'av = 3, av_class = ""')
    refused(data_copy, r"counters\.toml: unit '3-1-arm': move side: an Armor Value needs its "
                       r"colour class .*\(rule BCS-1\.2c-7\)")


def test_nationality_on_the_wrong_side(data_copy):
    """BBF-1.9: a German unit on the Allied side is refused."""
    fault(data_copy, "counters.toml", 'nation = "US"', 'nation = "German"')
    refused(data_copy, r"counters\.toml: unit '3-1-arm': a German unit is not on the allied "
                       r"side \(rule BBF-1\.9\)")


def test_setup_step_bracket_above_full_strength(data_copy):
    """BCS-1.4C: a bracketed [n] cannot exceed the unit's steps."""
    fault(data_copy, "scenarios/5.3.toml", 'counter = "601-td"\nsteps = 1', 'counter = "601-td"\nsteps = 9')
    refused(data_copy, r"5\.3\.toml: set-up \d+ \(A56\.34 601-td\): \[9\] steps of 3 "
                       r"\(rule BCS-1\.4C\)")


def test_setup_outside_the_playing_area(data_copy):
    fault(data_copy, "scenarios/5.4.toml", 'hex = "A19.18"', 'hex = "B19.18"')
    refused(data_copy, r"5\.4\.toml: set-up \d+ \(B19\.18 dak-hq\): outside the playing area")


def test_unknown_key_in_a_data_file(data_copy):
    fault(data_copy, "scenarios/5.2.toml", 'first_player = "axis"', 'first_player = "axis"\nfirst_plyer = 1')
    refused(data_copy, r"5\.2\.toml: Object contains unknown field `first_plyer`")


def test_source_must_say_printed_or_reconstructed(data_copy):
    fault(data_copy, "tec.toml", 'source = "reconstructed: BBF-G3, broken', 'source = "guessed: BBF-G3, broken')
    refused(data_copy, r"tec\.toml: terrain 'rough': source must start with 'printed' or "
                       r"'reconstructed'")
