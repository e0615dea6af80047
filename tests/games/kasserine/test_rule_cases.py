"""The one driver for Kasserine rule cases: every tests/games/kasserine/cases/*.toml case is a test.

A case builds a position on the historical map and applies order lines with fixed dice.
Keys of a case:
  id, rule                  the rule id it tests and a summary
  also = [rule ids]         other rule ids the same position exercises (documentation only)
  turn (3), active ("axis"), phase ("movement"), options ({})
  units = [{id, hex, steps, moved, mobile_moved, attacked, barred, mp}]   placed on the map;
                            every other unit is out of play unless listed in `off` (waiting)
  off = [unit ids]          reinforcements waiting off the map; released = [group ids]
  triggered = {group = turn}, holder = {hex = side}, max_captured
  markers = {axis = [values], us = [values]}   unused allotments (default none)
  standing = {us = ["standing ..."]}
  setup = true              start from the real scenario set-up instead (turn 1, axis movement)
  variant = {prohibited_hexsides = [[hex, hex]]}   a test-only data variant of the historical
                            map: these hexsides get a prohibited hexside kind ("impassable"),
                            which the printed map lacks (for 8.2-e, 5.2-f)
  orders = ["order" | "us: order"]   (side defaults to `active`)
  dice = [fixed die values, consumed in order]
  [expect] error (rule id raised by the last order; the state is left unchanged), at (hex per
    unit), steps, dead (unit ids), off (unit ids), mp (half-MP spent), phase, active, turn,
    pending (kind), pending_side, result, row, diff, winner ("axis" | "us" | "draw"),
    triggered, released, holder, allotment, unused (count per side), spent, captured (count),
    events (substrings of public events), private (substrings of events for one side),
    dice_left, barred, unused_values, rolls (visibility of each roll), view ({side: {has, lacks}}
    byte strings in that side's encoded view + report)
"""

from __future__ import annotations

import copy
from pathlib import Path

import msgspec
import pytest

from fixtures.rule_cases import load_cases
from pbem.core.dice import FixedDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.core.hexgrid import hexside_key
from pbem.games.kasserine import GAME, actions
from pbem.games.kasserine.scenario import HexsideTerrain, KasserineData
from pbem.games.kasserine.state import Marker
from pbem.games.kasserine.victory import captured
from pbem.games.kasserine.board import data_of

CASES_DIR = Path(__file__).parent / "cases"


CASES = load_cases(CASES_DIR)


def variant_data(base: KasserineData, spec: dict) -> KasserineData:
    """A copy of the scenario data with extra prohibited hexsides (the loader's cache is untouched)."""
    data = copy.copy(base)
    gmap = copy.copy(base.map)
    gmap.hexsides = {k: set(v) for k, v in base.map.hexsides.items()}
    for a, b in spec.get("prohibited_hexsides", []):
        gmap.hexsides.setdefault(hexside_key(a, b), set()).add("impassable")
    data.map = gmap
    data.tec = msgspec.structs.replace(base.tec, hexside={
        **base.tec.hexside,
        "impassable": HexsideTerrain(prohibited=True, source="test-only variant (8.2-e)")})
    return data


def case_data(case: dict, state) -> KasserineData | None:
    """The data variant a case asks for, or None for the real scenario data."""
    spec = case.get("variant")
    return variant_data(data_of(state), spec) if spec else None


def apply_line(state, side: str, text: str, ctx: Context, data: KasserineData | None) -> None:
    """Apply one order line, on the case's data variant if it has one."""
    if data is None:
        GAME.apply(state, side, GAME.parse_order(text), ctx)
    else:
        actions.apply(state, data, side, GAME.parse_order(text), ctx)


def build_state(case: dict):
    """The position a case describes."""
    state = GAME.setup("historical", case.get("options", {}))
    if case.get("setup"):
        return state
    state.turn = case.get("turn", 3)
    state.active = case.get("active", "axis")
    state.phase = case.get("phase", "movement")
    placed = {u["id"]: u for u in case.get("units", [])}
    for uid, u in state.units.items():
        spec = placed.get(uid)
        u.mp, u.moved, u.mobile_moved, u.attacked, u.barred = 0, False, False, False, ""
        if spec is not None:
            u.status, u.hex = "map", spec["hex"]
            u.steps = spec.get("steps", u.steps)
            u.moved = spec.get("moved", False)
            u.mobile_moved = spec.get("mobile_moved", False)
            u.attacked = spec.get("attacked", False)
            u.barred = spec.get("barred", "")
            u.mp = spec.get("mp", 0)
        elif uid in case.get("off", []):
            u.status, u.hex = "off", ""
        else:
            u.status, u.hex = "dead", ""
    state.released = list(case.get("released", []))
    state.triggered = dict(case.get("triggered", {}))
    state.holder = dict(case.get("holder", {}))
    state.max_captured = case.get("max_captured", 0)
    for side in ("axis", "us"):
        vals = case.get("markers", {}).get(side, [])
        state.private[side].unused = [Marker(id=f"t{side}{k}", value=v) for k, v in enumerate(vals)]
        state.private[side].facedown = []
        state.allotment[side] = len(vals)
        state.spent[side] = []
    for side, lines in case.get("standing", {}).items():
        for line in lines:
            GAME.apply(state, side, GAME.parse_order(line), Context(FixedDice([])))
    return state


def run_orders(case: dict, state, dice: FixedDice, data: KasserineData | None = None) -> list:
    """Apply the case's orders; returns the contexts."""
    ctxs = []
    for i, line in enumerate(case.get("orders", [])):
        side, _, text = line.rpartition(": ")
        side = side or state.active
        ctx = Context(dice, action=i)
        ctxs.append(ctx)
        apply_line(state, side, text, ctx, data)
    return ctxs


@pytest.mark.parametrize("case", CASES, ids=[f"{c['_file']}:{c['id']}:{i}" for i, c in enumerate(CASES)])
def test_rule_case(case: dict) -> None:
    state = build_state(case)
    dice = FixedDice(case.get("dice", []))
    expect = case.get("expect", {})
    orders = case.get("orders", [])
    data = case_data(case, state)
    if "error" in expect:
        ctxs = run_orders({"orders": orders[:-1]}, state, dice, data)
        before = msgspec.json.encode(state)
        side, _, text = orders[-1].rpartition(": ")
        with pytest.raises(IllegalOrder) as err:
            apply_line(state, side or state.active, text, Context(dice, action=len(orders)), data)
        assert err.value.rule == expect["error"], err.value.describe()
        assert msgspec.json.encode(state) == before, "an illegal order changed the state"
    else:
        ctxs = run_orders(case, state, dice, data)
    check(case, state, dice, [e for c in ctxs for e in c.events], [r for c in ctxs for r in c.rolls])


def check(case: dict, state, dice: FixedDice, events: list, rolls: list) -> None:
    """Compare the state with the case's expectations."""
    expect = case.get("expect", {})
    data = data_of(state)
    for uid, h in expect.get("at", {}).items():
        assert state.units[uid].status == "map" and state.units[uid].hex == h, \
            f"{uid} is {state.units[uid].status} at {state.units[uid].hex!r}, expected {h}"
    for uid, s in expect.get("steps", {}).items():
        assert state.units[uid].steps == s, f"{uid} has {state.units[uid].steps} steps"
    for uid in expect.get("dead", []):
        assert state.units[uid].status == "dead", f"{uid} is {state.units[uid].status}"
    for uid in expect.get("off", []):
        assert state.units[uid].status == "off", f"{uid} is {state.units[uid].status}"
    for uid, mp in expect.get("mp", {}).items():
        assert state.units[uid].mp == mp, f"{uid} spent {state.units[uid].mp} half-MP"
    for uid, b in expect.get("barred", {}).items():
        assert state.units[uid].barred == b
    for key in ("phase", "active", "turn"):
        if key in expect:
            assert getattr(state, key) == expect[key], f"{key} is {getattr(state, key)}"
    if "pending" in expect or "pending_side" in expect:
        p = GAME.pending(state)
        assert p, "nothing pending"
        if "pending" in expect:
            assert p[0].kind == expect["pending"], p
        if "pending_side" in expect:
            assert p[0].side == expect["pending_side"], p
    combat = state.combat or state.last_combat
    for key in ("result", "row", "diff"):
        if key in expect:
            assert combat is not None and getattr(combat, key) == expect[key], \
                f"{key}: {combat and getattr(combat, key)!r}"
    if "winner" in expect:
        o = GAME.outcome(state)
        assert o is not None, "the game is not over"
        assert (o.winner or "draw") == expect["winner"], o
    if expect.get("not_over"):
        assert GAME.outcome(state) is None
    for gid in expect.get("triggered", []):
        assert gid in state.triggered, state.triggered
    for gid in expect.get("not_triggered", []):
        assert gid not in state.triggered, state.triggered
    for gid in expect.get("released", []):
        assert gid in state.released, state.released
    for h, side in expect.get("holder", {}).items():
        assert state.holder.get(h) == side, state.holder
    for side, n in expect.get("allotment", {}).items():
        assert state.allotment[side] == n, state.allotment
    for side, n in expect.get("unused", {}).items():
        assert len(state.private[side].unused) == n
    for side, vals in expect.get("spent", {}).items():
        assert sorted(state.spent.get(side, [])) == sorted(vals), state.spent
    if "captured" in expect:
        assert len(captured(state, data)) == expect["captured"], captured(state, data)
    public = [e.text for e in events if e.visible_to == "all"]
    for s in expect.get("events", []):
        assert any(s in t for t in public), f"no public event with {s!r}: {public}"
    for s in expect.get("not_events", []):
        assert not any(s in t for t in public), f"public event with {s!r}"
    for side, subs in expect.get("private", {}).items():
        mine = [e.text for e in events if e.visible_to == side]
        for s in subs:
            assert any(s in t for t in mine), f"no {side} event with {s!r}: {mine}"
    for side, vals in expect.get("unused_values", {}).items():
        assert sorted(m.value for m in state.private[side].unused) == vals
    if "rolls" in expect:
        assert [r.visible_to for r in rolls] == expect["rolls"], rolls
    for side, kinds in expect.get("view", {}).items():
        blob = msgspec.json.encode(GAME.view(state, side)) + msgspec.json.encode(GAME.report(state, side))
        for s in kinds.get("has", []):
            assert s.encode() in blob, f"{side}'s view lacks {s!r}"
        for s in kinds.get("lacks", []):
            assert s.encode() not in blob, f"{side}'s view shows {s!r}"
    if "dice_left" in expect:
        assert len(dice.values) - dice.used == expect["dice_left"]
