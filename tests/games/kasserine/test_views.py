"""Hidden information: face-down values, the enemy's allotment and standing orders never show."""

from __future__ import annotations

import msgspec

from pbem.core.dice import FixedDice
from pbem.core.game import Context
from pbem.games.kasserine import GAME
from pbem.games.kasserine.state import Marker


def position(options: dict | None = None):
    """s501 attacks gren3; the Axis has markers +1 and +4, the US +3 and +3."""
    state = GAME.setup("historical", options or {})
    for uid, u in state.units.items():
        u.status, u.hex = "dead", ""
    state.units["s501"].status, state.units["s501"].hex = "map", "3213"
    state.units["gren3"].status, state.units["gren3"].hex = "map", "3313"
    state.turn, state.phase = 3, "combat"
    state.private["axis"].unused = [Marker(id="axmk0301a", value=1), Marker(id="axmk0302b", value=4)]
    state.private["us"].unused = [Marker(id="usmk0301a", value=3), Marker(id="usmk0302b", value=3)]
    return state


def apply(state, side: str, line: str, dice: list[int]) -> Context:
    ctx = Context(FixedDice(dice))
    GAME.apply(state, side, GAME.parse_order(line), ctx)
    return ctx


def test_facedown_value_hidden_from_both() -> None:
    state = position()
    ctx = apply(state, "axis", "attack 3313 with s501 sf 1", [2])
    assert [r.visible_to for r in ctx.rolls] == ["nobody"]
    assert state.private["axis"].facedown[0].value == 4
    axis_view = GAME.view(state, "axis")
    assert axis_view.markers.facedown == 1 and axis_view.markers.facedown_values is None
    assert axis_view.markers.not_revealed == [1, 4]          # no subtraction gives the value away
    us_view = msgspec.json.encode(GAME.view(state, "us"))
    assert b"axmk" not in us_view and b'"not_revealed":[3,3]' in us_view
    report = GAME.report(state, "us")
    assert [m.kind for m in report.markers].count("support-facedown") == 1
    assert [m.label for m in report.markers if m.kind == "support-facedown"] == [
        "axis support fire marker, face down (value hidden)"]   # whose, never the value
    assert not any("+4" in line for p in report.panels for line in p.lines)


def test_owner_sees_option() -> None:
    state = position({"owner_sees_facedown": True})
    ctx = apply(state, "axis", "attack 3313 with s501 sf 1", [1])
    assert [r.visible_to for r in ctx.rolls] == ["axis"]
    assert GAME.view(state, "axis").markers.facedown_values == [1]
    assert GAME.view(state, "us").markers.facedown_values == []      # its own: none placed


def test_enemy_allotment_and_standing_orders_private() -> None:
    state = position()
    apply(state, "us", "standing support match min -1", [])
    axis_blob = msgspec.json.encode(GAME.view(state, "axis")) + msgspec.json.encode(GAME.report(state, "axis"))
    assert b"match" not in axis_blob
    assert b"usmk" not in axis_blob
    us = GAME.view(state, "us")
    assert us.standing.support == "match" and us.standing.support_min == -1
    assert GAME.view(state, "axis").markers.allotment == state.allotment["axis"]
    assert GAME.secrets(state, "us") == ["usmk0301a", "usmk0302b"]


def test_reveal_is_public() -> None:
    state = position()
    apply(state, "us", "standing support two", [])
    ctx = apply(state, "axis", "attack 3313 with s501 sf 2", [2, 1, 2])
    texts = [e.text for e in ctx.events if e.visible_to == "all"]
    assert any("markers revealed: axis +4 +1, us +3 +3" in t for t in texts)
    assert GAME.secrets(state, "axis") == [] and GAME.secrets(state, "us") == []


def test_a_late_reinforcement_shows_the_turn_it_was_due() -> None:
    """A Game Turn One unit still waiting to enter on turn 3 was listed as 'due turn 3' (the
    current turn) in the units to place: it shows the turn it was due, 1."""
    state = GAME.setup("historical", {})
    state.turn, state.phase, state.active = 3, "movement", "axis"
    state.units["k10"].status, state.units["k10"].hex = "off", ""
    places = {p.unit: p for p in GAME.report(state, "axis").placements}
    assert places["k10"].turn == 1 and places["k10"].kind == "reinforcement"
