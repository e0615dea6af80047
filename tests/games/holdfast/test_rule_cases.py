"""Holdfast rule cases: every tests/games/holdfast/cases/*.toml case through the core runner.

The case format and the shared expectation keys are in pbem.core.rulecases; Holdfast's
position keys and its own expectation keys in pbem.games.holdfast.rulecases.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pbem.core.rulecases import Case, case_id, load_cases, run_and_check
from pbem.games.holdfast.rulecases import HOOKS

CASES = load_cases(Path(__file__).parent / "cases")


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_rule_case(case: Case) -> None:
    """One rule case."""
    run_and_check(HOOKS, case)


def test_every_case_names_a_known_rule() -> None:
    """Each case id is a rule id of holdfast.csv (or a GAPS id)."""
    path = Path(__file__).resolve().parents[4] / "shared" / "rules" / "holdfast.csv"
    if not path.exists():
        pytest.skip("rules checklist not available")
    with open(path, newline="", encoding="utf-8") as fh:
        ids = {r["id"] for r in csv.DictReader(fh)}
    for c in CASES:
        assert c.id in ids or c.id.startswith("HF-G"), c.id
