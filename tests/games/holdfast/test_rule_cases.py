"""The one driver for Holdfast rule cases: every tests/games/holdfast/cases/*.toml case is a test.

A case sets up a position on the synthetic map (pbem.games.holdfast.synthetic), applies order
lines with fixed dice and checks the result. Keys of a case:
  id, rule                 the rule id it tests and a summary
  start = "setup"          start from the scenario set-up instead of a built position
  scenario = "race"        the synthetic map with the Race to Tunis length and victory
  scenario = "campaign"    the real campaign data (scenarios/holdfast/)
  turn, side, step, phase, weather, rp, control, options, leader_mp_used, minor_ports
  units = [{id, hex | where, sp, entry_turn, moved, attacked, used, gray, reentry_turn}]
  orders = ["order" | "axis: order"]   (side defaults to `side`)
  dice = [fixed d6 values, consumed in order]
  [expect] error (rule id, raised by the last order, state unchanged), at (hex per unit),
    sp, where, rp, control, phase, step, active, weather, turn, result, events (substrings
    of events visible to all), private (substrings of events visible to `side` only),
    not_events (substrings that must not appear in public events), dice_left, pending_kind,
    minor_ports (the Axis minor port claims, port hex -> unit id)
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from fixtures.rule_cases import load_cases
from pbem.core.dice import FixedDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.holdfast import GAME, synthetic
from pbem.games.holdfast.data import world
from pbem.games.holdfast.options import resolve_options
from pbem.games.holdfast.state import (HoldfastState, PublicState, SideState, UnitState)

CASES_DIR = Path(__file__).parent / "cases"
SCENARIO = synthetic.register()
RACE = synthetic.register("test-race", last_turn=3, victory="race-to-tunis")


CASES = load_cases(CASES_DIR)


def build_state(case: dict) -> HoldfastState:
    """The position a case describes."""
    scenario = {"race": RACE, None: SCENARIO}.get(case.get("scenario"), case.get("scenario"))
    if case.get("start") == "setup":
        return GAME.setup(scenario, case.get("options", {}))
    w = world(scenario)
    w_units = w.units
    side = case.get("side", "allied")
    priv = {"allied": SideState(units={}), "axis": SideState(units={})}
    for spec in case.get("units", []):
        uid = spec["id"]
        u = UnitState(id=uid, where=spec.get("where", "map" if "hex" in spec else "offmap"),
                      hex=spec.get("hex", ""), sp=spec.get("sp", w_units[uid].max_sp))
        for k in ("entry_turn", "moved", "attacked", "used", "gray", "reentry_turn", "bought",
                  "placed", "revealed"):
            if k in spec:
                setattr(u, k, spec[k])
        priv[w_units[uid].side].units[uid] = u
    control = {h: s for s, hs in w.home_bases.items() for h in hs}
    control.update(case.get("control", {}))
    pub = PublicState(scenario=scenario, options=resolve_options(case.get("options", {})),
                      turn=case.get("turn", 3), phase=case.get("phase", "turn"), active=side,
                      step=case.get("step", "place"), weather=case.get("weather", "clear"),
                      rp=case.get("rp", {"allied": 8, "axis": 8}), control=control)
    st = HoldfastState(public=pub, private=priv)
    st.private[side].leader_mp_used = case.get("leader_mp_used", False)
    st.private["axis"].minor_ports = case.get("minor_ports", {})
    return st


def run(case: dict) -> tuple[HoldfastState, list, Exception | None, FixedDice, bytes]:
    """Apply the case's orders; returns state, events, the error of the last order, dice."""
    st = build_state(case)
    dice = FixedDice(case.get("dice", []))
    ctx = Context(dice)
    err = None
    before = b""
    orders = case.get("orders", [])
    for i, line in enumerate(orders):
        side = case.get("side", "allied")
        if ":" in line:
            side, line = (x.strip() for x in line.split(":", 1))
        ctx.action = i
        before = msgspec.json.encode(st)
        try:
            GAME.apply(st, side, GAME.parse_order(line), ctx)
        except IllegalOrder as e:
            if i != len(orders) - 1:
                raise
            err = e
    return st, ctx.events, err, dice, before


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']}:{c.get('name', '')}" for c in CASES])
def test_rule_case(case: dict) -> None:
    """One rule case."""
    st, events, err, dice, before = run(case)
    exp = case.get("expect", {})
    side = case.get("side", "allied")
    if "error" in exp:
        assert err is not None, "expected an illegal order"
        assert err.rule == exp["error"], f"rule {err.rule}: {err}"
        assert msgspec.json.encode(st) == before, "an illegal order changed the state"
    else:
        assert err is None, f"unexpected IllegalOrder: {err}"
    units = {**st.private["allied"].units, **st.private["axis"].units}
    for uid, h in exp.get("at", {}).items():
        assert units[uid].hex == h and units[uid].where == "map", (uid, units[uid])
    for uid, sp in exp.get("sp", {}).items():
        assert units[uid].sp == sp, (uid, units[uid].sp)
    for uid, where in exp.get("where", {}).items():
        assert units[uid].where == where, (uid, units[uid].where)
    for uid, t in exp.get("entry_turn", {}).items():
        assert units[uid].entry_turn == t, (uid, units[uid].entry_turn)
    for s, n in exp.get("rp", {}).items():
        assert st.public.rp[s] == n, (s, st.public.rp)
    for h, s in exp.get("control", {}).items():
        assert st.public.control.get(h, "none") == s, (h, st.public.control.get(h))
    for key in ("phase", "step", "active", "weather", "turn"):
        if key in exp:
            assert getattr(st.public, key) == exp[key], (key, getattr(st.public, key))
    if "result" in exp:
        assert st.public.result is not None
        assert (st.public.result.winner or "draw") == exp["result"], st.public.result
    public = " | ".join(e.text for e in events if e.visible_to == "all")
    private = " | ".join(e.text for e in events if e.visible_to == side)
    for text in exp.get("events", []):
        assert text in public, f"{text!r} not in public events: {public}"
    for text in exp.get("private", []):
        assert text in private, f"{text!r} not in {side} events: {private}"
    for text in exp.get("not_events", []):
        assert text not in public, f"{text!r} leaked into public events: {public}"
    if "minor_ports" in exp:
        assert st.private["axis"].minor_ports == exp["minor_ports"], st.private["axis"].minor_ports
    if "dice_left" in exp:
        assert len(dice.values) - dice.used == exp["dice_left"]
    for viewer, strings in exp.get("hidden_from", {}).items():
        raw = msgspec.json.encode(GAME.view(st, viewer)).decode()
        for text in strings:
            assert text not in raw, f"{text!r} appears in the {viewer} view"
    if "pending_kind" in exp:
        kinds = [d.kind for d in GAME.pending(st)]
        assert kinds == [exp["pending_kind"]] if exp["pending_kind"] else kinds == []


def test_every_case_names_a_known_rule() -> None:
    """Each case id is a rule id of holdfast.csv (or a GAPS id)."""
    import csv
    path = Path(__file__).resolve().parents[4] / "shared" / "rules" / "holdfast.csv"
    if not path.exists():
        pytest.skip("rules checklist not available")
    with open(path, newline="", encoding="utf-8") as fh:
        ids = {r["id"] for r in csv.DictReader(fh)}
    for c in CASES:
        assert c["id"] in ids or c["id"].startswith("HF-G"), c["id"]
