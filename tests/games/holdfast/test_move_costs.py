"""check_path prices each step from the tables of movement.step_costs: the same MP as
hex_cost + side_cost (HF-TEC-f road, HF-2-b EZOC, HF-2-c hexsides, HF-7-e/f weather) for
every passable step of both scenario maps, both unit types, both weathers, in and out of an
enemy ZOC."""

from __future__ import annotations

import pytest

from pbem.games.holdfast import GAME
from pbem.games.holdfast.data import world
from pbem.games.holdfast.movement import check_path, hex_cost, side_cost

NONE: frozenset[str] = frozenset()


@pytest.mark.parametrize("scenario", ["campaign", "race-to-tunis"])
def test_every_passable_step_costs_hex_cost_plus_side_cost(scenario: str) -> None:
    state = GAME.setup(scenario, {})
    w = world(scenario)
    units = state.private["allied"].units
    movers = {}
    for uid in sorted(units):
        kind = w.units[uid].type
        if kind in ("armor", "infantry"):
            movers.setdefault(kind, uid)
    assert set(movers) == {"armor", "infantry"}
    checked = 0
    for kind, uid in movers.items():
        u = units[uid]
        u.where = "map"
        for weather in ("clear", "poor"):
            state.public.weather = weather
            for h, steps in w.pass_nbrs.items():
                u.hex = h
                for n in steps:
                    if n in w.gray:
                        continue
                    for ez in (NONE, frozenset((n,))):
                        got = check_path(state, w, "allied", uid, [n], 99, False,
                                         pos=(NONE, NONE, ez))
                        want = hex_cost(w, kind, h, n, n in ez) + side_cost(w, h, n, weather)
                        assert got == [want], (kind, weather, h, n, bool(ez))
                        checked += 1
    assert checked > 10_000
