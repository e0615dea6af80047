"""9.4 in a sealed game (docs/sealed.md 5h item 6): each side's `repls` question is public in
every Reinforcement Phase (whether it has a choice reads its hidden steps and private die), but
a side with no choice (no Repls, or no more candidates of a kind than Repls of it) is not asked:
its own processor answers 'repls priority' for it (engine.standing_answers), as a standing
order would. A side with a choice is asked as before."""

from __future__ import annotations

from typing import Any

from pbem.core.rulecases import Case, run_case
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.rulecases import HOOKS

#: Turn 2 ends (KG Reimann Done, CCA ends its Activation): turn 3's Reinforcement Phase. cca-hq
#: B14.09, its Trains Legal in B16.13; 701-td (AV, 2 of 3 steps), 3-1-arm (AV, 1 of 3) and kern
#: (no AV, 2 of 4) may take Repls. Dice: weather, Air Points allied and axis, then the
#: Replacement Points dice (Allies 1-2 none, 3-4 1 AV/1 non-AV, 5-6 2/2; Axis 1-2 none).
UNITS = [{"id": "cca-hq", "hex": "B14.09"}, {"id": "cca-trains", "hex": "B16.13"},
         {"id": "701-td", "hex": "B14.10", "steps": 2}, {"id": "kern", "hex": "B14.10", "steps": 2},
         {"id": "3-1-arm", "hex": "B15.10", "steps": 1}, {"id": "reim-hq", "hex": "B49.17"}]


def _sealed_turn_end(units: list[dict[str, Any]], dice: list[int], answers: list[str]) -> Any:
    """The state of a sealed game after turn 2's end and the answers given."""
    case = Case(id="BCS-9.4b", position={
        "turn": 2, "next_side": "allied", "units": units, "active": "cca",
        "formations": {"reim": {"status": "done"}}, "options": {"sealed_game": True},
        "ask": {"allied": ["repls"], "axis": ["repls"]}},
        orders=["end", "done", *answers], dice=dice)
    run = run_case(HOOKS, case)
    assert run.error is None, run.error
    assert run.state.sealed
    return run.state


def _asked(state: Any) -> tuple[str, list[str] | None]:
    """The side the repls question waits on, and what its processor answers for it."""
    (d,) = ENGINE.pending(state)
    assert d.kind == "repls", d
    return d.side, ENGINE.standing_answers(state, d.side, d)


def test_no_replacement_points_no_question():
    """Both dice give no Repls: each side's question is public, and its processor answers it
    ('repls priority'), so nobody is asked; the turn goes on with the same dice."""
    dice = [4, 3, 5, 1, 1, 6, 6, 1, 1]
    state = _sealed_turn_end(UNITS, dice, [])
    assert _asked(state) == ("allied", ["answer repls priority"])
    assert "nothing to choose" in state.wait.subject
    state = _sealed_turn_end(UNITS, dice, ["allied: answer repls priority"])
    assert _asked(state) == ("axis", ["answer repls priority"])
    state = _sealed_turn_end(UNITS, dice, ["allied: answer repls priority",
                                           "axis: answer repls priority"])
    assert state.turn == 3 and state.wait is None


def test_one_candidate_for_its_repls_no_question():
    """1 AV and 1 non-AV Repl with one AV candidate (701-td) and one non-AV one (kern): every
    answer gives the same result, so the Allies are not asked."""
    units = [u for u in UNITS if u["id"] != "3-1-arm"]
    state = _sealed_turn_end(units, [4, 3, 5, 3, 1, 6, 6, 1, 1], [])
    assert _asked(state) == ("allied", ["answer repls priority"])


def test_a_real_choice_is_asked():
    """1 AV Repl and two AV candidates (701-td, 3-1-arm): the Allies choose, they are asked."""
    state = _sealed_turn_end(UNITS, [4, 3, 5, 3, 1, 6, 6, 1, 1], [])
    side, answer = _asked(state)
    assert (side, answer) == ("allied", None)
    assert "units joined by +" in state.wait.subject
