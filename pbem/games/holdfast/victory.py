"""Victory (HF-11, HF-14) from the scenario's victory data, checked at the end of Axis turns."""

from __future__ import annotations

from pbem.games.holdfast.board import map_units
from pbem.games.holdfast.data import World
from pbem.games.holdfast.state import HoldfastState, Result


def _held(state: HoldfastState, w: World, names: list[str], side: str) -> list[str]:
    control = state.public.control
    return [n for n, h in zip(names, _hexes(w, names)) if control.get(h) == side]


def _hexes(w: World, names: list[str]) -> list[str]:
    """The hex of each place name (scenario data: memoised; resolving a name costs an
    exception inside hex_of)."""
    return w.cached("victory-hexes", tuple(names), lambda: [w.hex_of(n) for n in names])


def status(state: HoldfastState, w: World) -> list[str]:
    """Plain-words victory status for reports (public facts only)."""
    v = w.scenario.victory
    lines = [f"{v.kind}: {v.text}"]
    if v.allied_hold_all:
        held = _held(state, w, v.allied_hold_all, "allied")
        lines.append(f"Allies hold {len(held)} of {', '.join(v.allied_hold_all)}"
                     + (f" ({', '.join(held)})" if held else ""))
    if v.axis_hold_any:
        held = _held(state, w, v.axis_hold_any, "axis")
        lines.append(f"Axis hold {', '.join(held) or 'none'} of {', '.join(v.axis_hold_any)}")
    lines.append(f"last turn: {w.scenario.last_turn}")
    return lines


def check_axis_turn_end(state: HoldfastState, w: World) -> Result | None:
    """HF-11-a/b each Axis turn end (HF-G16 ties), then HF-11-c / HF-14 after the last turn."""
    pub = state.public
    v = w.scenario.victory
    last = pub.turn >= w.scenario.last_turn
    if v.kind == "none":
        return Result(winner=None, reason="the scenario has no victory condition") if last else None
    allied = bool(v.allied_hold_all) and len(_held(state, w, v.allied_hold_all, "allied")) == len(
        v.allied_hold_all)
    axis = _held(state, w, v.axis_hold_any, "axis")
    if allied and axis:
        if pub.options["victory_tie"] == "axis":
            return Result(winner="axis", reason=f"the Axis control {axis[0]} (tie goes to the Axis)")
        return Result(winner=None, reason="both sides met a victory condition at once (draw)")
    if allied:
        return Result(winner="allied", reason=f"the Allies control {' and '.join(v.allied_hold_all)}")
    if axis:
        return Result(winner="axis", reason=f"the Axis control {axis[0]}")
    if not last:
        return None
    held = _held(state, w, v.axis_hold_any_at_end, "axis")
    if held:
        return Result(winner="axis", reason=f"the Axis still control {held[0]} after the last turn")
    taken = _held(state, w, v.allied_hold_any_at_end, "allied")
    if taken:
        return Result(winner="allied", reason=f"the Allies control {taken[0]} after the last turn")
    near = _hexes(w, v.allied_near_at_end)
    for u in map_units(state, "allied"):
        if any(w.grid.distance(u.hex, h) <= v.near_radius for h in near):
            return Result(winner="allied", reason="an Allied unit stands at the gates of "
                                                  f"{', '.join(v.allied_near_at_end)}")
    if v.otherwise in ("axis", "allied"):
        return Result(winner=v.otherwise, reason="no other victory condition was met at the end")
    return Result(winner=None, reason="no victory condition was met by the last turn (draw)")
