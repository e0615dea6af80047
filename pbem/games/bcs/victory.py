"""Victory at the end of a scenario (BbF 5.x victory conditions) from the control of VP hexes:
5.2's own conditions, and the campaign conditions of 4.1 with the drawn Victory Objective."""

from __future__ import annotations

from pbem.games.bcs.board import bdata
from pbem.games.bcs.state import BcsState, Piece, Result

SPRING_WIND_AXIS = ("Sidi bou Zid", "Kern's Crossroads", "Sbeitla")   # BbF 5.2 victory
SPRING_WIND_ALLIED = ("Sbeitla", "Kern's Crossroads")
BUILT = ("spring_wind", "campaign")   # victory kinds built so far (setup refuses the others)
CAMPAIGN_WIN, CAMPAIGN_DRAW = 9, 8        # BbF 4.1: Axis VP hexes held (of 14) for each result


def may_control(state: BcsState, p: Piece) -> bool:
    """BbF 4.1: whether a unit occupying a VP hex takes control of it: within its HQ's Command
    Radius and with a working MSR (its Formation's Combat Trains Legal) at that moment."""
    from pbem.games.bcs.command import in_radius
    from pbem.games.bcs.supply import msr
    form = state.formations.get(p.formation)
    return form is not None and in_radius(state, p) and msr(state, form) is not None


def holds(state: BcsState, side: str, places: tuple[str, ...]) -> bool:
    """Whether a side controls every named place (BbF 4.1 control)."""
    gm = bdata().game_map
    return all(state.control.get(gm.hex_of(p)) == side for p in places)


def final_result(state: BcsState) -> Result | None:
    """The result at the end of the last turn, by the scenario's victory conditions (None while
    the rules may not read the Axis's drawn Victory Objective in this state, objective.known:
    in peer and sealed games until he opens it, which decides)."""
    v = bdata().scenarios[state.scenario].victory
    assert v.kind in BUILT, v.kind
    if v.kind == "campaign":
        return campaign_result(state)
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


def campaign_points(state: BcsState, objective: str) -> tuple[int, list[str]]:
    """BbF 4.1: the Axis's Victory Points for an objective: the Axis-controlled VP hexes that list
    it or 'Either', plus the scenario's bonus for it (5.4: Le Kef 4, Tebessa 1); the hexes."""
    gm = bdata().game_map
    v = bdata().scenarios[state.scenario].victory
    kinds = {"vp_either", f"vp_{objective}"}
    held = sorted(p.hex for p in gm.data.place
                  if kinds & set(p.kinds) and state.control.get(p.hex) == "axis")
    bonus = v.lekef_bonus if objective == "lekef" else v.tebessa_bonus
    return len(held) + bonus, held


def campaign_result(state: BcsState) -> Result | None:
    """BbF 4.1: 9 or more Axis VP an Axis victory, 8 a draw, 7 or less an Allied victory."""
    from pbem.games.bcs.objective import NAMES, known

    obj = known(state)
    if not obj:
        return None
    vp, held = campaign_points(state, obj)
    what = f"{vp} Axis Victory Points for {NAMES[obj]} ({len(held)} VP hexes held)"
    if vp >= CAMPAIGN_WIN:
        return Result(winner="axis", reason=f"{what}: an Axis victory (BbF 4.1)")
    if vp == CAMPAIGN_DRAW:
        return Result(winner=None, reason=f"{what}: a draw (BbF 4.1)")
    return Result(winner="allied", reason=f"{what}: an Allied victory (BbF 4.1)")
