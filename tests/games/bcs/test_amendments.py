"""Where Baptism By Fire amends the series: BCS-1.3 (the game rules prevail) and the errata list
(ERR-BCS-1.1-5, a wording-only erratum, changes nothing), read from scenarios/bcs/amendments.toml.

The checklist is docs/bcs.md's table of every rule id (and, where this checkout sits beside it,
the shared rules/bcs.csv it was made from). No rule id but the two above is named here: the
tests run over every recorded entry.
"""

from __future__ import annotations

import csv
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from pbem.core.errors import ScenarioError
from pbem.games.bcs import load_data
from pbem.games.bcs.amendments import BOUNDARY, data_file, same
from pbem.games.bcs.loader import DATA_DIR
from pbem.games.bcs.options import OPTIONS

ROOT = Path(__file__).resolve().parents[3]
SHARED_CSV = ROOT.parent / "shared" / "rules" / "bcs.csv"


def checklist() -> dict[str, tuple[str, str]]:
    """Rule id -> (category, summary) from docs/bcs.md's table."""
    out = {}
    for ln in (ROOT / "docs" / "bcs.md").read_text(encoding="utf-8").splitlines():
        if ln.startswith("| ") and not ln.startswith(("| id ", "| ---")):
            cells = ln.split(" | ")
            out[cells[0][2:]] = (cells[2].split(" (")[0], cells[4].rstrip(" |"))
    return out


def test_the_checklist_copy_matches_the_shared_csv():
    ids = set(checklist())
    assert len(ids) >= 546
    if SHARED_CSV.exists():
        with SHARED_CSV.open(newline="", encoding="utf-8") as fh:
            assert {r["id"] for r in csv.DictReader(fh)} == ids


# -- BCS-1.3: where the game rules and the series rules disagree, the game rules prevail -------

def test_bcs_1_3_every_disagreement_names_a_series_rule_and_a_game_rule(bbf):
    rules = checklist()
    assert len(bbf.disagreements) >= 8
    for g in bbf.disagreements.values():
        assert g.series_rule in rules, g.id
        assert re.match(r"(BCS|ERR-BCS)-", g.series_rule), g.id
        assert re.match(r"(BBF|ERR-BBF)-", g.game_rule), g.id
        assert g.game_rule in rules, g.id
        assert g.apply, g.id


def test_bcs_1_3_the_loaded_data_carry_the_prevailing_value_everywhere(bbf):
    for g in bbf.disagreements.values():
        for a in g.apply:
            got = bbf.lookup(a.path)
            assert same(got, a.value), (g.id, a.path, got)
            if a.other is not None:
                assert not same(got, a.other), (g.id, a.path)


def test_bcs_1_3_the_game_prevails_unless_the_series_names_the_game_rule_incorrect(bbf):
    rules = checklist()
    for g in bbf.disagreements.values():
        assert g.prevails in ("game", "series")
        if g.prevails == "series":
            # the series text itself (its checklist row) declares the game wording incorrect
            assert g.reason and "incorrect" in rules[g.series_rule][1], g.id
            assert g.game_rule.split("-")[0] == "BBF"
    assert sum(g.prevails == "game" for g in bbf.disagreements.values()) \
        >= len(bbf.disagreements) - 1


def test_bcs_1_3_counter_values_read_independently_of_the_loader(bbf):
    """Unit paths checked against counters.toml read with tomllib, not through lookup()."""
    units = {u["id"]: u for u in tomllib.loads(
        (DATA_DIR / "counters.toml").read_text(encoding="utf-8"))["unit"]}
    checked = 0
    for g in bbf.disagreements.values():
        for a in g.apply:
            root, *rest = a.path.split("/")
            if root == "unit":
                cur = units[rest[0]]
                for seg in rest[1:]:
                    # a field left out of the file has its printed default (1.2a: Range 1)
                    defaults = {"range": 1, "non_rebuildable": False, "start_hex_exempt": False}
                    cur = cur[seg] if seg in cur else defaults[seg]
                assert cur == a.value and type(cur) is type(a.value), (g.id, a.path)
                checked += 1
            elif root == "option":
                assert getattr(OPTIONS[rest[0]], rest[1]) == a.value, (g.id, a.path)
    assert checked >= 10


def test_bcs_1_3_every_data_path_names_its_file(bbf):
    for g in bbf.disagreements.values():
        for a in g.apply:
            f = data_file(a.path)
            assert (DATA_DIR / f).exists() or (ROOT / f).exists(), (g.id, a.path, f)


# -- ERR-BCS-1.1-5: every erratum, with its effect; a wording-only one changes nothing ------

def test_err_bcs_1_1_5_the_errata_list_is_complete(bbf):
    errata = {i for i in checklist() if i.startswith("ERR-")}
    assert len(errata) >= 30
    assert set(bbf.errata) == errata


def test_err_bcs_1_1_5_wording_only_errata_are_the_no_rule_change_rows(bbf):
    rules = checklist()
    wording = {i for i, e in bbf.errata.items() if e.effect == "wording"}
    assert wording == {i for i in bbf.errata if "no rule change" in rules[i][1]}
    assert "ERR-BCS-1.1-5" in wording


def test_err_bcs_1_1_5_wording_only_errata_change_no_data(bbf):
    for i, e in bbf.errata.items():
        if e.effect != "wording":
            continue
        assert not e.apply and not e.rules, i
        pat = re.compile(BOUNDARY.format(re.escape(i)))
        for p in DATA_DIR.rglob("*.toml"):
            if p.name != "amendments.toml":
                assert not pat.search(p.read_text(encoding="utf-8")), (i, p)


def test_err_bcs_1_1_5_every_other_erratum_has_its_effect_in_data_or_rules(bbf):
    rules = checklist()
    for i, e in bbf.errata.items():
        assert e.effect in ("wording", "data", "rule"), i
        if e.effect == "data":
            assert e.apply, i
        if e.effect == "rule":
            assert e.rules and all(r in rules for r in e.rules), i
        for a in e.apply:
            assert same(bbf.lookup(a.path), a.value), (i, a.path)
    # a checklist row filed as data is never a rule-of-play erratum
    assert all(bbf.errata[i].effect in ("data", "wording")
               for i, (cat, _) in rules.items() if i.startswith("ERR-") and cat == "data")


# -- a broken entry is refused with one line naming the file ---------------------------------

@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    dst = tmp_path / "bcs"
    shutil.copytree(DATA_DIR, dst)
    return dst


def fault(root: Path, name: str, old: str, new: str) -> None:
    p = root / name
    text = p.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not in {name}"
    p.write_text(text.replace(old, new, 1), encoding="utf-8")


def refused(root: Path, pattern: str) -> str:
    with pytest.raises(ScenarioError, match=pattern) as e:
        load_data(root)
    msg = str(e.value)
    assert "\n" not in msg and "Traceback" not in msg
    assert msg.startswith(str(root / "amendments.toml"))
    return msg


def test_bcs_1_3_data_that_lose_the_game_value_are_refused(data_copy):
    text = (data_copy / "counters.toml").read_text(encoding="utf-8")
    i = text.index('id = "72-ra-at"')
    j = text.index('av_class = "stand_off" }', i)
    text = text[:j] + 'av_class = "stand_off", range = 2 }' + text[j + len('av_class = '
                                                                         '"stand_off" }'):]
    (data_copy / "counters.toml").write_text(text, encoding="utf-8")
    refused(data_copy, r"amendments\.toml: disagreement 'ra-at-range': counters\.toml "
                       r"unit/72-ra-at/move/range is 2, the game rule \S+ gives 1 "
                       r"\(rule BCS-1\.3\)")


def test_bcs_1_3_a_path_to_nothing_is_refused(data_copy):
    fault(data_copy, "amendments.toml", 'path = "unit/drake/start_hex_exempt"',
          'path = "unit/drake/start_hex_exmept"')
    refused(data_copy, r"disagreement 'drake-command-radius': no data at "
                       r"'unit/drake/start_hex_exmept' \(rule BCS-1\.3\)")


def test_bcs_1_3_the_series_prevails_only_with_a_reason(data_copy):
    text = (data_copy / "amendments.toml").read_text(encoding="utf-8")
    text = re.sub(r'\nreason = "[^"]*"', "", text, count=1)
    (data_copy / "amendments.toml").write_text(text, encoding="utf-8")
    refused(data_copy, r"disagreement 'buddies-unit-traffic': the series rule prevails only "
                       r"with a reason")


def test_bcs_1_3_a_disagreement_names_a_series_and_a_game_rule(data_copy):
    fault(data_copy, "amendments.toml", 'game_rule = "', 'game_rule = "X')
    refused(data_copy, r"disagreement 'buddies-unit-traffic': game rule 'X\S+' is not a BbF "
                       r"rule id \(rule BCS-1\.3\)")


def test_bcs_1_3_a_disagreement_that_agrees_is_refused(data_copy):
    fault(data_copy, "amendments.toml", 'value = 1, other = 2', 'value = 1, other = 1')
    refused(data_copy, r"disagreement 'ra-at-range': unit/72-ra-at/move/range: the overruled "
                       r"value is the same 1: no disagreement")


def test_bcs_1_3_a_disagreement_without_data_is_refused(data_copy):
    text = (data_copy / "amendments.toml").read_text(encoding="utf-8")
    text = text.replace('apply = [\n  { path = "table/weather', 'apply = []\nx = [\n  { path = '
                        '"table/weather', 1)
    text = re.sub(r'\nx = \[\n[^\]]*\]\n', "\n", text, count=1)
    (data_copy / "amendments.toml").write_text(text, encoding="utf-8")
    refused(data_copy, r"disagreement 'first-turn-weather': no data path applies it")


def test_err_bcs_1_1_5_a_wording_erratum_with_a_data_effect_is_refused(data_copy):
    fault(data_copy, "amendments.toml", 'effect = "wording"\n',
          'effect = "wording"\napply = [{ path = "marker/screen/count", value = 1 }]\n')
    refused(data_copy, r"erratum 'ERR-BCS-1\.1-5': a wording-only erratum changes no rule and "
                       r"no data \(rule ERR-BCS-1\.1-5\)")


def test_err_bcs_1_1_5_data_citing_a_wording_erratum_are_refused(data_copy):
    fault(data_copy, "counters.toml", 'values authored: BbF 3.3:',
          'values authored: ERR-BCS-1.1-5, BbF 3.3:')
    refused(data_copy, r"erratum 'ERR-BCS-1\.1-5': counters\.toml cites a wording-only "
                       r"erratum, which changes no data")


def test_err_bcs_1_1_5_an_erratum_of_no_known_effect_is_refused(data_copy):
    fault(data_copy, "amendments.toml", 'effect = "wording"', 'effect = "clarification"')
    refused(data_copy, r"erratum 'ERR-BCS-1\.1-5': effect must be wording, data or rule")


def test_err_bcs_1_1_5_an_erratum_listed_twice_is_refused(data_copy):
    p = data_copy / "amendments.toml"
    text = p.read_text(encoding="utf-8")
    block = text[text.index('[[erratum]]\nid = "ERR-BCS-1.1-5"'):]
    block = block[:block.index("\n\n") + 2]
    p.write_text(text + "\n" + block, encoding="utf-8")
    refused(data_copy, r"erratum 'ERR-BCS-1\.1-5': listed twice")


def test_err_bcs_1_1_5_a_missing_amendments_file_is_refused(data_copy):
    (data_copy / "amendments.toml").unlink()
    with pytest.raises(ScenarioError, match=r"amendments\.toml: cannot read"):
        load_data(data_copy)
