"""Set-up assets (BCS-1.4F, 9.5): units listed 'in Support' and independents 'assigned to' a
Formation in scenarios 5.5 and 5.6 (not playable yet: their set-ups are incomplete, BBF-G8), read
by assignment.setup_assets on a state of scenario 5.2's counters; and scenario 5.6's first turn,
which opens with Rommel's placement (BBF-G18: 'Rommel can affect 10 Pz or KG DAK at the start',
BBF-2.1-a) although a first turn has no Assignment Phase otherwise (BCS-2.1-1c)."""

from __future__ import annotations

import pytest

from pbem.core.dice import FixedDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs import actions
from pbem.games.bcs.assignment import setup_assets
from pbem.games.bcs.board import bdata
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.orders import parse_order
from pbem.games.bcs.setup import _place


def _state(scenario: str):
    """5.2's state with the counters of another scenario's set-up, read as that scenario."""
    state = ENGINE.setup("5.2", {"entry_blocking": "attack_from_off_map"})
    scen = bdata().scenarios[scenario]
    for p in scen.setup:
        if p.counter and p.counter not in state.pieces:
            _place(state, p.counter, p.hex, p.steps)
    cal = bdata().ooa.calendar
    state.scenario = scenario
    state.dates = cal[cal.index(scen.first_turn):cal.index(scen.last_turn) + 1]
    state.phase, state.next_side, state.first_side = "activate", scen.first_player, \
        scen.first_player
    return state


@pytest.mark.parametrize("scenario", ["5.5", "5.6"])
def test_in_support_and_assigned_to(scenario):
    """BCS-1.4F: 90-mdr, listed 'in Support', is placed with its HQ (no hex), its greater AV side
    up; 894-td and Prov Arm assigned to CCB and Gore to Nick CW (9.5) from the start."""
    state = _state(scenario)
    setup_assets(state)
    mdr = state.pieces["90-mdr"]
    assert (mdr.status, mdr.hex, mdr.formation) == ("support", "", "reim")
    assert state.pieces["894-td"].formation == "ccb"
    assert state.pieces["prov-arm"].formation == "ccb"
    assert state.pieces["gore"].formation == "nick"
    assert state.pieces["2-13-arm"].status != "support"


def test_first_turn_rommel_5_6():
    """BBF-2.1-a, BBF-G18, BCS-2.1-1c: 5.6 begins on 21 Feb; the Axis places Rommel first, in
    the 10 Pz or DAK box only, and nothing else is assigned on this first turn; then the
    scenario's first player activates."""
    state = _state("5.6")
    setup_assets(state)
    assert (state.phase, state.assigning) == ("assignment", ["axis"])
    assert state.private["allied"].arty_pool == 3        # the 9 ID Divarty, from 21 Feb
    assert [d.kind for d in ENGINE.pending(state)] == ["assignment"]
    ctx = Context(FixedDice([]))
    for line, rule in (("rommel 21pz", "BBF-2.1-a"), ("assignment done", "BBF-2.1-a"),
                       ("allied: assign arty 3 to ccb", "BCS-8.0d")):
        side, _, text = line.rpartition(": ")
        with pytest.raises(IllegalOrder) as e:
            actions.apply(state, side or "axis", parse_order(text), ctx)
        assert e.value.rule == rule, e.value.describe()
    with pytest.raises(IllegalOrder) as e:
        actions.apply(state, "axis", parse_order("support 90-mdr"), ctx)
    assert e.value.rule in ("BCS-2.1-1c", "BCS-9.2a-1")
    actions.apply(state, "axis", parse_order("rommel dak"), ctx)
    actions.apply(state, "axis", parse_order("assignment done"), ctx)
    assert (state.rommel, state.phase, state.next_side) == ("dak", "activate", "axis")
    assert state.assigning == []
