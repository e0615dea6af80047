"""The core rule-case runner with the test game Dash: any game runs its cases through one hook."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fixtures.tinygame import GAME as DASH, DashState, Private
from pbem.core.game import Context
from pbem.core.rulecases import Case, CaseRun, load_cases, run_and_check, split_side

CASES = '''
[[case]]
id = "DASH-4"
name = "one advance per turn"
position.phase = "race"
orders = ["advance", "advance"]
dice = [3]
expect = {error = "DASH-4", events = ["red advances to 3"], dice_left = 0, pending = "turn", pending_side = "red"}

[[case]]
id = "DASH-3"
name = "codewords are private"
orders = ["pick bravowolf", "blue: pick deltafox"]
expect = {private = {red = ["picked the codeword bravowolf"]}, events = ["blue picked a codeword"], not_events = ["bravowolf"], view = {blue = {lacks = ["bravowolf"]}, red = {has = ["bravowolf"]}}, codeword = {red = "bravowolf"}}

[[case]]
id = "DASH-1"
name = "a bonus codeword wins"
position.phase = "race"
position.codeword = {red = "bravowolf"}
position.pos = {red = 19}
orders = ["advance"]
dice = [1]
expect = {winner = "red", rolls = ["all"], pending = ""}
'''


class DashCases:
    """The hook: a Dash position from `phase`, `active`, `pos` and `codeword`; one extra key."""

    game = DASH
    keys = frozenset({"codeword"})

    def build(self, case: Case) -> DashState:
        p = case.position
        st = DashState(phase=p.get("phase", "setup"), active=p.get("active", "red"))
        st.pos.update(p.get("pos", {}))
        for side, word in p.get("codeword", {}).items():
            st.private[side] = Private(codeword=word)
        return st

    def default_side(self, state: DashState, case: Case) -> str:
        return state.active

    def apply(self, state: DashState, side: str, text: str, ctx: Context, case: Case) -> None:
        DASH.apply(state, side, DASH.parse_order(text), ctx)

    def check(self, case: Case, run: CaseRun) -> None:
        for side, word in case.expect.get("codeword", {}).items():
            assert run.state.private[side].codeword == word


@pytest.fixture
def cases(tmp_path: Path) -> list[Case]:
    (tmp_path / "dash.toml").write_text(CASES)
    return load_cases(tmp_path)


def test_cases_of_any_game_run_through_the_hook(cases: list[Case]) -> None:
    """The three cases pass: errors, events by visibility, views, pending, winner, rolls."""
    assert [(c.file, c.index, c.id) for c in cases] == [
        ("dash.toml", 0, "DASH-4"), ("dash.toml", 1, "DASH-3"), ("dash.toml", 2, "DASH-1")]
    for c in cases:
        run_and_check(DashCases(), c)


@pytest.mark.parametrize("index, key, value, message", [
    (0, "error", "DASH-9", "rule DASH-4"),
    (0, "dice_left", 1, "0 fixed dice left"),
    (0, "pending", "", "Decision"),
    (1, "not_events", ["blue picked"], "public event with 'blue picked'"),
    (1, "private", {"blue": ["bravowolf"]}, "no blue event with 'bravowolf'"),
    (1, "view", {"blue": {"has": ["bravowolf"]}}, "blue's view lacks 'bravowolf'"),
    (1, "codeword", {"red": "alphawolf"}, ""),
    (1, "colour", "red", "expectation keys nobody checks: ['colour']"),
    (2, "winner", "blue", "winner='red'"),
    (2, "rolls", ["red"], ""),
    (0, "error_text", "another reason", "reason"),
    (1, "logged", [{"text": "blue picked", "to": "red"}], "no event like"),
    (1, "logged", [{"line": "blue picked"}], "no event like"),
    (1, "logged", [{"text": "blue picked", "kind": "loss"}], "no event like"),
    (1, "logged", [{"text": "blue picked", "hexes": ["a1"]}], "no event like"),
    (2, "purposes", ["no such roll"], "no roll for 'no such roll'"),
    (0, "prompt", "another prompt", "Decision"),
    (0, "detail", "another detail", "Decision"),
    (0, "reaction", True, "Decision"),
])
def test_a_wrong_expectation_fails(cases: list[Case], index: int, key: str, value: Any,
                                   message: str) -> None:
    """Every shared key and the game's own key can fail; an unknown key fails too."""
    case = cases[index]
    case.expect = {**case.expect, key: value}
    pattern = message.replace("[", r"\[").replace("]", r"\]") or None
    with pytest.raises(AssertionError, match=pattern):
        run_and_check(DashCases(), case)


def test_an_illegal_order_before_the_last_fails(cases: list[Case]) -> None:
    """Only the last order may be illegal, and only when an error is expected."""
    case = cases[0]
    case.expect = {}
    with pytest.raises(AssertionError, match="order 2 'advance' is illegal"):
        run_and_check(DashCases(), case)


def test_load_cases_names_the_file_and_case(tmp_path: Path) -> None:
    """A case outside the format is refused naming its file and place."""
    (tmp_path / "bad.toml").write_text('[[case]]\nid = "X-1"\nunits = []\n')
    with pytest.raises(ValueError, match=r"bad.toml: case 1 \(X-1\): Object contains unknown "
                                         r"field `units`"):
        load_cases(tmp_path)


def test_split_side() -> None:
    """'SIDE: order' takes the side only when it is one of the game's sides."""
    sides = ("axis", "us")
    assert split_side("us: stiff no", sides) == ("us", "stiff no")
    assert split_side("advance s501:2", sides) == (None, "advance s501:2")
    assert split_side("allied: move", sides) == (None, "allied: move")
