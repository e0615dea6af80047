"""Kasserine's hook for the core rule-case runner (pbem.core.rulecases): positions and checks.

Position keys (``position.KEY`` in a case), on the historical map:
  turn (3), active ("axis": also the side of order lines without a prefix), phase ("movement"),
  options ({})
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
  variant = {place_mp_add = {kind = n}}   ... these place kinds (village) add n MP to the hex
                            (the '+1 village' of the 5.4 example, which the TEC lacks)
Expectation keys beyond the core's: at (hex per unit), steps, dead (unit ids), off (unit ids),
mp (half-MP spent), barred, phase, active, turn, result, row, diff (of the current or last
combat), triggered, not_triggered, released, holder, allotment, unused (count per side),
unused_values, spent, captured (count).
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from pbem.core.dice import FixedDice
from pbem.core.game import Context
from pbem.core.hexgrid import hexside_key
from pbem.core.rulecases import Case, CaseRun
from pbem.games.kasserine import actions
from pbem.games.kasserine.board import data_of
from pbem.games.kasserine.game import GAME
from pbem.games.kasserine.scenario import HexsideTerrain, KasserineData
from pbem.games.kasserine.state import KasserineState, Marker
from pbem.games.kasserine.victory import captured


def variant_data(base: KasserineData, spec: dict[str, Any]) -> KasserineData:
    """A copy of the scenario data with extra prohibited hexsides and place MP costs (the
    loader's cache is untouched)."""
    data = copy.copy(base)
    gmap = copy.copy(base.map)
    gmap.hexsides = {k: set(v) for k, v in base.map.hexsides.items()}
    for a, b in spec.get("prohibited_hexsides", []):
        gmap.hexsides.setdefault(hexside_key(a, b), set()).add("impassable")
    data.map = gmap
    data.tec = msgspec.structs.replace(base.tec, hexside={
        **base.tec.hexside,
        "impassable": HexsideTerrain(prohibited=True, source="test-only variant (8.2-e)")})
    places = spec.get("place_mp_add", {})
    if places:
        data.tec = msgspec.structs.replace(data.tec, place={
            **data.tec.place,
            **{k: msgspec.structs.replace(data.tec.place[k], mp_add=float(n),
                                          source="test-only variant (5.4 example)")
               for k, n in places.items()}})
    data.work_out_steps()                # its step costs, from this map and TEC
    return data


class KasserineCases:
    """Positions on the historical map, and Kasserine's own expectation keys."""

    game = GAME
    keys = frozenset({"at", "steps", "dead", "off", "mp", "barred", "phase", "active", "turn",
                      "result", "row", "diff", "triggered", "not_triggered", "released",
                      "holder", "allotment", "unused", "unused_values", "spent", "captured"})

    def __init__(self) -> None:
        self._variant: tuple[Case, KasserineData] | None = None

    def build(self, case: Case) -> KasserineState:
        """The position a case describes (and the data variant its orders use, if any)."""
        pos = case.position
        state = GAME.setup("historical", pos.get("options", {}))
        spec = pos.get("variant")
        self._variant = (case, variant_data(data_of(state), spec)) if spec else None
        if pos.get("setup"):
            return state
        state.turn = pos.get("turn", 3)
        state.active = pos.get("active", "axis")
        state.phase = pos.get("phase", "movement")
        placed = {u["id"]: u for u in pos.get("units", [])}
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
            elif uid in pos.get("off", []):
                u.status, u.hex = "off", ""
            else:
                u.status, u.hex = "dead", ""
        state.released = list(pos.get("released", []))
        state.triggered = dict(pos.get("triggered", {}))
        state.holder = dict(pos.get("holder", {}))
        state.max_captured = pos.get("max_captured", 0)
        for side in ("axis", "us"):
            vals = pos.get("markers", {}).get(side, [])
            state.private[side].unused = [Marker(id=f"t{side}{k}", value=v)
                                          for k, v in enumerate(vals)]
            state.private[side].facedown = []
            state.allotment[side] = len(vals)
            state.spent[side] = []
        for side, lines in pos.get("standing", {}).items():
            for line in lines:
                GAME.apply(state, side, GAME.parse_order(line), Context(FixedDice([])))
        return state

    def default_side(self, state: KasserineState, case: Case) -> str:
        """The active side at the time of the order."""
        return state.active

    def apply(self, state: KasserineState, side: str, text: str, ctx: Context, case: Case) -> None:
        """Apply one order line, on the case's data variant if it has one (a destination-only
        move expanded first, as checking an orders file does)."""
        if self._variant is None or self._variant[0] is not case:
            GAME.apply(state, side, GAME.expand_order(state, side, GAME.parse_order(text)), ctx)
        else:
            actions.apply(state, self._variant[1], side, GAME.parse_order(text), ctx)

    def check(self, case: Case, run: CaseRun) -> None:
        """Kasserine's expectation keys."""
        expect, state = case.expect, run.state
        data = data_of(state)
        for uid, h in expect.get("at", {}).items():
            assert state.units[uid].status == "map" and state.units[uid].hex == h, \
                f"{uid} is {state.units[uid].status} at {state.units[uid].hex!r}, expected {h}"
        for uid, s in expect.get("steps", {}).items():
            assert state.units[uid].steps == s, f"{uid} has {state.units[uid].steps} steps"
        for status in ("dead", "off"):
            for uid in expect.get(status, []):
                assert state.units[uid].status == status, f"{uid} is {state.units[uid].status}"
        for uid, mp in expect.get("mp", {}).items():
            assert state.units[uid].mp == mp, f"{uid} spent {state.units[uid].mp} half-MP"
        for uid, b in expect.get("barred", {}).items():
            assert state.units[uid].barred == b, f"{uid} barred {state.units[uid].barred!r}"
        for key in ("phase", "active", "turn"):
            if key in expect:
                assert getattr(state, key) == expect[key], f"{key} is {getattr(state, key)}"
        combat = state.combat or state.last_combat
        for key in ("result", "row", "diff"):
            if key in expect:
                assert combat is not None and getattr(combat, key) == expect[key], \
                    f"{key}: {combat and getattr(combat, key)!r}"
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
            assert len(state.private[side].unused) == n, state.private[side].unused
        for side, vals in expect.get("unused_values", {}).items():
            assert sorted(m.value for m in state.private[side].unused) == vals
        for side, vals in expect.get("spent", {}).items():
            assert sorted(state.spent.get(side, [])) == sorted(vals), state.spent
        if "captured" in expect:
            assert len(captured(state, data)) == expect["captured"], captured(state, data)


HOOKS = KasserineCases()
