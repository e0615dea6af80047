"""Baptism By Fire supply rules that no position of scenario 5.2 reaches through orders alone.

BCS-10.3a-e (a Legal Trains hex may not block an existing enemy MSR): on map B every road hex
that lies on one side's MSR is cut from the other side's Supply Sources by that MSR's own
pieces or by a Victory hex the other side controls (BbF 1.8); a search of every road junction
of the map found no hex Legal for both. The test takes a real MSR of the Allies and checks that
the Axis may not place Trains on it once its other conditions (10.3a a-d) hold.
"""

from __future__ import annotations

import pytest

from pbem.core.dice import FixedDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.core.rulecases import Case
from pbem.games.bcs import sequence, supply
from pbem.games.bcs.rulecases import HOOKS


def _state():
    """KG Reimann active; CCA's Trains in B16.13 give it an MSR to its HQ in B14.09."""
    return HOOKS.build(Case(id="x", position={
        "units": [{"id": "reim-hq", "hex": "B19.02"}, {"id": "reim-trains", "hex": "B20.01"},
                  {"id": "cca-hq", "hex": "B14.09"}, {"id": "cca-trains", "hex": "B16.13"}],
        "active": "reim"}))


def test_enemy_msr_hexes_are_both_traces() -> None:
    """BCS-10.3a-e: the enemy MSR is the Trains-HQ trace and the Trains-Source trace."""
    state = _state()
    m = supply.msr(state, state.formations["cca"])
    assert m is not None
    hexes = supply.enemy_msr_hexes(state, "axis")
    assert {"B14.09", "B15.11", "B16.13"} <= hexes
    assert set(m.to_source) <= hexes
    assert not supply.enemy_msr_hexes(state, "allied") & {"B14.09", "B16.13"}


def test_trains_may_not_block_enemy_msr(monkeypatch: pytest.MonkeyPatch) -> None:
    """BCS-10.3a-e: Trains are not placed on an enemy MSR hex even when 10.3a a-d hold."""
    state = _state()
    real = supply.why_not

    def a_to_d_hold(st, side, hex_id, hq):          # B15.11 passes a-d for the Axis
        return (supply.Msr([hex_id, hq], [hex_id]), "", "") if hex_id in ("B15.11", "B17.04") \
            else real(st, side, hex_id, hq)

    monkeypatch.setattr(sequence, "why_not", a_to_d_hold)
    ctx = Context(FixedDice([]))
    with pytest.raises(IllegalOrder) as err:
        sequence.place_trains(state, "axis", "reim", "B15.11", ctx)
    assert err.value.rule == "BCS-10.3a-e"
    sequence.place_trains(state, "axis", "reim", "B17.04", ctx)   # off the enemy MSR
    assert state.pieces["reim-trains"].hex == "B17.04"


def test_supply_sources_are_the_symbol_hexes() -> None:
    """BBF-1.2: a side's Supply Sources are the map hexes with its Supply Source symbol (the
    map's supply hex sets), as scenario 5.2 restricts them: the Axis E, F and G Areas on map B;
    the Allies Entry Area C and the printed sources B32.35 and B3.35."""
    from pbem.games.bcs.board import bdata

    state = _state()
    gm = bdata().game_map
    axis = supply.sources(state, "axis")
    assert axis == {h for h in gm.hexsets["supply-axis"] if h.startswith("B")}
    assert axis == {h for e in "EFG" for h in gm.hexsets[f"entry-{e}"] if h.startswith("B")}
    allied = supply.sources(state, "allied")
    assert allied == {h for h in gm.hexsets["entry-C"] if h.startswith("B")} | {"B32.35", "B3.35"}
    assert {h for h in allied if h in gm.hexsets["supply-allied"]} \
        == {h for h in gm.hexsets["entry-C"] if h.startswith("B")}
    assert not axis & allied
