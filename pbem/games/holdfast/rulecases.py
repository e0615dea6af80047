"""Holdfast's hook for the core rule-case runner (pbem.core.rulecases): positions and checks.

Position keys (``position.KEY`` in a case):
  start = "setup"          start from the scenario set-up instead of a built position
  scenario = "race"        the synthetic map with the Race to Tunis length and victory
  scenario = "campaign"    the real campaign data (scenarios/holdfast/); default: the synthetic
                           map (pbem.games.holdfast.synthetic)
  victory = {kind, otherwise, ...}   the synthetic map, last turn 3, with these fields of its
                           victory conditions replaced (kinds and results no shipped scenario has)
  side ("allied")          the active side, and the side of order lines without a prefix
  turn (3), step ("place"), phase ("turn"), weather ("clear"), rp ({allied = 8, axis = 8}),
  control (hex -> side, over the home bases), options, leader_mp_used, minor_ports
  units = [{id, hex | where, sp, entry_turn, moved, attacked, used, gray, reentry_turn,
            bought, placed, revealed}]   every other unit is out of play
Expectation keys beyond the core's: at (hex per unit, on the map), sp, where, entry_turn (per
unit), rp (per side), control (hex -> side or "none"), phase, step, active, weather, turn,
minor_ports (the Axis minor port claims, port hex -> unit id).
"""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.core.game import Context
from pbem.core.rulecases import Case, CaseRun
from pbem.games.holdfast import synthetic
from pbem.games.holdfast.data import register_data, world
from pbem.games.holdfast.game import GAME
from pbem.games.holdfast.options import resolve_options
from pbem.games.holdfast.state import HoldfastState, PublicState, SideState, UnitState

UNIT_FIELDS = ("entry_turn", "moved", "attacked", "used", "gray", "reentry_turn", "bought",
               "placed", "revealed")
RACE_ID = "test-race"


class HoldfastCases:
    """Positions on the synthetic (or real) map, and Holdfast's own expectation keys."""

    game = GAME
    keys = frozenset({"at", "sp", "where", "entry_turn", "rp", "control", "phase", "step",
                      "active", "weather", "turn", "minor_ports"})

    def __init__(self) -> None:
        self._scenarios: dict[Any, str] = {}

    def _scenario(self, name: str | None) -> str:
        """The scenario id for a case's `scenario` key (the synthetic ones registered once)."""
        if name not in (None, "race"):
            return str(name)
        if name not in self._scenarios:
            self._scenarios[name] = (synthetic.register(RACE_ID, last_turn=3,
                                                        victory="race-to-tunis")
                                     if name == "race" else synthetic.register())
        return self._scenarios[name]

    def _victory_scenario(self, fields: dict[str, Any]) -> str:
        """The synthetic scenario (last turn 3) with these victory fields, registered once."""
        key = ("victory", msgspec.json.encode(fields, order="sorted"))
        if key not in self._scenarios:
            sid = f"test-victory-{len(self._scenarios)}"
            data = synthetic.build(last_turn=3)
            data.scenario = msgspec.structs.replace(
                data.scenario, victory=msgspec.structs.replace(data.scenario.victory, **fields))
            register_data(sid, data)
            self._scenarios[key] = sid
        return self._scenarios[key]

    def build(self, case: Case) -> HoldfastState:
        """The position a case describes."""
        pos = case.position
        scenario = (self._victory_scenario(pos["victory"]) if "victory" in pos
                    else self._scenario(pos.get("scenario")))
        if pos.get("start") == "setup":
            return GAME.setup(scenario, pos.get("options", {}))
        w = world(scenario)
        side = pos.get("side", "allied")
        priv = {"allied": SideState(units={}), "axis": SideState(units={})}
        for spec in pos.get("units", []):
            uid = spec["id"]
            u = UnitState(id=uid, where=spec.get("where", "map" if "hex" in spec else "offmap"),
                          hex=spec.get("hex", ""), sp=spec.get("sp", w.units[uid].max_sp))
            for k in UNIT_FIELDS:
                if k in spec:
                    setattr(u, k, spec[k])
            priv[w.units[uid].side].units[uid] = u
        control = {h: s for s, hs in w.home_bases.items() for h in hs}
        control.update(pos.get("control", {}))
        pub = PublicState(scenario=scenario, options=resolve_options(pos.get("options", {})),
                          turn=pos.get("turn", 3), phase=pos.get("phase", "turn"), active=side,
                          step=pos.get("step", "place"), weather=pos.get("weather", "clear"),
                          rp=pos.get("rp", {"allied": 8, "axis": 8}), control=control)
        st = HoldfastState(public=pub, private=priv)
        st.private[side].leader_mp_used = pos.get("leader_mp_used", False)
        st.private["axis"].minor_ports = pos.get("minor_ports", {})
        return st

    def default_side(self, state: HoldfastState, case: Case) -> str:
        """The position's side (not the state's active side, which orders may change)."""
        return case.position.get("side", "allied")

    def apply(self, state: HoldfastState, side: str, text: str, ctx: Context, case: Case) -> None:
        """Apply one order line through the Game interface (a destination-only move expanded
        first, as checking an orders file does)."""
        GAME.apply(state, side, GAME.expand_order(state, side, GAME.parse_order(text)), ctx)

    def check(self, case: Case, run: CaseRun) -> None:
        """Holdfast's expectation keys."""
        exp, st = case.expect, run.state
        units = {**st.private["allied"].units, **st.private["axis"].units}
        for uid, h in exp.get("at", {}).items():
            assert units[uid].hex == h and units[uid].where == "map", (uid, units[uid])
        for key in ("sp", "where", "entry_turn"):
            for uid, v in exp.get(key, {}).items():
                assert getattr(units[uid], key) == v, (uid, key, getattr(units[uid], key))
        for s, n in exp.get("rp", {}).items():
            assert st.public.rp[s] == n, (s, st.public.rp)
        for h, s in exp.get("control", {}).items():
            assert st.public.control.get(h, "none") == s, (h, st.public.control.get(h))
        for key in ("phase", "step", "active", "weather", "turn"):
            if key in exp:
                assert getattr(st.public, key) == exp[key], (key, getattr(st.public, key))
        if "minor_ports" in exp:
            assert st.private["axis"].minor_ports == exp["minor_ports"], st.private["axis"].minor_ports


HOOKS = HoldfastCases()
