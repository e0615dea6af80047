"""HQs without units (9.1i, 9.1j) beyond one order: the removed Formation's HQ comes back with
its next arrival, and only then may the Formation activate again."""

from __future__ import annotations

from pathlib import Path

from pbem.core.rulecases import load_cases, run_case
from pbem.games.bcs.rulecases import HOOKS
from pbem.games.bcs.sequence import can_activate
from pbem.games.bcs.setup import arrive

CASES = Path(__file__).parent / "cases"


def test_removed_formation_returns_with_its_next_arrival() -> None:
    """BCS-9.1j: KG Reimann, out of play after losing its last unit on turn 1, cannot activate
    until turn 3, when 1-501-tgr arrives; then its HQ arrives with it (Entry Area F)."""
    case = next(c for c in load_cases(CASES) if c.id == "BCS-9.1j")
    state = run_case(HOOKS, case).state
    hq = state.pieces["reim-hq"]
    assert (hq.status, hq.arrives, hq.entry) == ("off", 3, ["F"])
    assert state.pieces["reim-trains"].arrives == 3
    state.activation, state.phase = None, "activate"
    for turn, playable in ((2, False), (3, True)):
        state.turn = turn
        arrive(state)
        assert ("reim" in can_activate(state, "axis")) is playable
    assert state.formations["reim"].fatigue == 2
