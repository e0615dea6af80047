"""Baptism By Fire rule cases: every tests/games/bcs/cases/*.toml case through the core runner.

The case format and the shared expectation keys are in pbem.core.rulecases; BbF's position keys
and its own expectation keys in pbem.games.bcs.rulecases.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.core.rulecases import Case, case_id, load_cases, run_and_check
from pbem.games.bcs.rulecases import HOOKS

CASES = load_cases(Path(__file__).parent / "cases")


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_rule_case(case: Case) -> None:
    """One rule case."""
    run_and_check(HOOKS, case)
