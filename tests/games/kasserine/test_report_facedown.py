"""Face-down support fire markers in both sides' reports (KAS-7.2-c, KAS-8.2.1-b, KAS-8.2.1-c):
a marker placed face down is public as a marker (whose it is, on which combat hex) and its
value is hidden from everyone until the step-5 reveal. Each side's report shows every face-down
marker of the combat in progress, its own and the opponent's, naming the side that placed it;
the opponent's report and view are the same whatever the hidden values are."""

from __future__ import annotations

import msgspec
import pytest

from pbem.core.dice import FixedDice
from pbem.core.game import Context
from pbem.games.kasserine import GAME
from pbem.games.kasserine.report import FACEDOWN
from pbem.games.kasserine.state import Marker
from pbem.games.kasserine.view import secrets
from pbem.reports import render_text
from pbem.reports.context import ReportContext


def _position(axis_values: list[int], options: dict | None = None):
    """s501 (axis) next to gren3 (us) in the Combat Phase of turn 3; the markers given."""
    state = GAME.setup("historical", options or {})
    for u in state.units.values():
        u.status, u.hex = "dead", ""
    state.units["s501"].status, state.units["s501"].hex = "map", "3213"
    state.units["gren3"].status, state.units["gren3"].hex = "map", "3313"
    state.turn, state.phase = 3, "combat"
    state.private["axis"].unused = [Marker(id=f"axmk{k}", value=v)
                                    for k, v in enumerate(axis_values)]
    state.private["us"].unused = [Marker(id="usmk1", value=2), Marker(id="usmk2", value=2)]
    return state


def _placed(axis_values: list[int], draws: list[int], options: dict | None = None):
    """Axis attacks with 'sf 2' (steps 1 and 3), the US places one marker at step 2: the game
    waits for the US step 4, three markers face down on 3313 (two axis, one us)."""
    state = _position(axis_values, options)
    dice = FixedDice(draws)
    GAME.apply(state, "axis", GAME.parse_order("attack 3313 with s501 sf 2"), Context(dice))
    GAME.apply(state, "us", GAME.parse_order("support yes"), Context(dice, action=1))
    assert state.wait is not None and state.wait.kind == "support"
    assert (state.combat.att_down, state.combat.def_down) == (2, 1)
    return state


def _facedown(report) -> list[str]:
    return [m.label for m in report.markers if m.kind == "support-facedown" and m.hex == "3313"]


def _text(state, side: str) -> str:
    ctx = ReportContext(model=GAME.report(state, side), pending=list(GAME.pending(state)),
                        answer=[], events=[], rolls=[], game_id="0" * 32, seq=1,
                        file_name="t.pbem", file_hash="0" * 64, fingerprints={})
    return render_text(ctx, GAME.game_map(state.scenario))


@pytest.mark.parametrize("side", ["axis", "us"])
def test_KAS_7_2_c_both_reports_show_every_facedown_marker_and_whose_it_is(side):
    state = _placed([1, 3, 4], [3, 1, 2])
    labels = _facedown(GAME.report(state, side))
    assert sorted(labels) == sorted([FACEDOWN.format(side="axis")] * 2
                                    + [FACEDOWN.format(side="us")])
    assert all("value hidden" in x and not any(ch.isdigit() for ch in x) for x in labels)
    panel = next(p for p in GAME.report(state, side).panels
                 if p.title == "Face-down support fire markers")
    assert panel.lines == ("axis (attacking 3313): 2 face down, values hidden until step 5",
                           "us (defending 3313): 1 face down, value hidden until step 5")
    text = _text(state, side)
    assert "3313   support-facedown: axis support fire marker" in text


def test_KAS_7_2_c_the_opponents_report_and_view_never_hold_the_hidden_values():
    """The same position with other face-down draws: the US report and view are the same byte
    for byte, and hold no Axis marker id; the Axis's own panel differs (its own values)."""
    seen = set()
    own = set()
    for draws in ([1, 1, 1], [1, 1, 2], [2, 1, 2]):
        state = _placed([1, 3, 4], draws)
        values = sorted(m.value for m in state.private["axis"].facedown)
        us = msgspec.json.encode(GAME.report(state, "us")) + msgspec.json.encode(
            GAME.view(state, "us")) + _text(state, "us").encode()
        assert not any(s.encode() in us for s in secrets(state, "axis"))
        seen.add(us)
        own.add(tuple(values))
    assert len(own) == 3            # three different hidden pairs of values were drawn ...
    assert len(seen) == 1           # ... and the US cannot tell them apart


def test_KAS_7_2_c_the_owner_sees_its_own_values_only_under_the_house_option():
    """owner_sees_facedown: the owner's own panel gives its face-down values (as before); the
    map markers never do, and the opponent's report is unchanged."""
    state = _placed([1, 3, 4], [3, 1, 2], {"owner_sees_facedown": True})
    shown = " ".join(f"+{m.value}" for m in state.private["axis"].facedown)
    own = next(p for p in GAME.report(state, "axis").panels
               if p.title == "Your support fire markers")
    assert f"Unused: 1; face down now: 2 ({shown})" in own.lines
    assert all("value hidden" in x for x in _facedown(GAME.report(state, "axis")))
    assert _facedown(GAME.report(state, "us")) == _facedown(GAME.report(state, "axis"))
