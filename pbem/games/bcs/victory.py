"""Victory at the end of a scenario (BbF 5.x victory conditions) from the control of VP hexes."""

from __future__ import annotations

from pbem.games.bcs.board import bdata
from pbem.games.bcs.state import BcsState, Result

SPRING_WIND_AXIS = ("Sidi bou Zid", "Kern's Crossroads", "Sbeitla")   # BbF 5.2 victory
SPRING_WIND_ALLIED = ("Sbeitla", "Kern's Crossroads")
BUILT = ("spring_wind",)           # victory kinds built so far (setup refuses the others)


def holds(state: BcsState, side: str, places: tuple[str, ...]) -> bool:
    """Whether a side controls every named place (BbF 4.1 control)."""
    gm = bdata().game_map
    return all(state.control.get(gm.hex_of(p)) == side for p in places)


def final_result(state: BcsState) -> Result:
    """The result at the end of the last turn, by the scenario's victory conditions."""
    v = bdata().scenarios[state.scenario].victory
    assert v.kind in BUILT, v.kind
    gm = bdata().game_map
    named = {gm.hex_of(p) for p in SPRING_WIND_AXIS}
    others = [h for h, s in state.control.items() if s == "axis" and h not in named]
    if holds(state, "axis", SPRING_WIND_AXIS) and others:
        return Result(winner="axis", reason="the Axis controls Sidi bou Zid, Kern's Crossroads, "
                                            f"Sbeitla and {gm.place_name(others[0])} (BbF 5.2)")
    if holds(state, "allied", SPRING_WIND_ALLIED):
        return Result(winner="allied",
                      reason="the Allies control Sbeitla and Kern's Crossroads (BbF 5.2)")
    return Result(winner=None, reason="neither side meets its victory conditions: a draw (BbF 5.2)")
