"""The report model of one side's view: map units (enemy masked), markers, arrows, panels."""

from __future__ import annotations

from pbem.core.game import MapArrow, MapMarker, MapUnit, Panel, ReportModel
from pbem.core.game import MarkerStyle
from pbem.games.holdfast.data import World
from pbem.games.holdfast.state import HoldfastState
from pbem.games.holdfast.victory import status
from pbem.games.holdfast.view import build_view

TITLE = "Holdfast: Tunisia 1942-43"

# The marker kinds this game draws on the report map, and how (pbem.core.game.MarkerStyle).
MARKER_STYLES: dict[str, MarkerStyle] = {
    "combat": MarkerStyle(shape="burst", fill="#e02020", stroke="#6b0000", accent="#ffd23f",
                          show_label=False, css="combat"),
    "supply_base": MarkerStyle(shape="circle", fill="#2b2b6b", stroke="#ffffff", css="other"),
}


def build_report(state: HoldfastState, w: World, side: str) -> ReportModel:
    """A ReportModel built only from side's view (plus public scenario facts)."""
    v = build_view(state, w, side)
    units: list[MapUnit] = []
    for u in v.units:
        if u.where == "map":
            note = "" if u.in_supply is not False else "out of supply"
            units.append(MapUnit(hex=u.hex, side=side, label=u.name,
                                 values=f"{u.drc}-{u.th}-{u.mp} SP{u.sp}", kind=u.type,
                                 note=note))
    units += [MapUnit(hex=b.hex, side=b.side, masked=True) for b in v.blocks]
    markers = [MapMarker(hex=h, kind="combat", label="combat") for h in v.combats]
    markers += [MapMarker(hex=h, kind="supply_base", label=f"{s} base")
                for h, s in sorted(v.control.items())]
    arrows = [MapArrow(path=tuple(m.path), side=m.side,
                       label="own move" if m.side == side else "enemy move") for m in v.moves]
    panels = [
        Panel(title="Resource points", lines=tuple(f"{s}: {n} RP" for s, n in v.rp.items())),
        Panel(title="Weather", lines=(f"{v.weather or 'not yet rolled'}"
                                      + (f" (roll {v.weather_roll})" if v.weather else ""),)),
        Panel(title="Supply", lines=tuple(
            f"{u.name} [{u.id}] {u.hex}: {'in supply' if u.in_supply else 'OUT OF SUPPLY'}"
            for u in v.units if u.where == "map") or ("no units on the map",)),
        Panel(title="Reinforcements due", lines=tuple(
            f"turn {u.entry_turn}: {u.name} [{u.id}] SP {u.sp}"
            for u in sorted(v.units, key=lambda x: (x.entry_turn, x.id)) if u.where == "track")
            or ("none",)),
        Panel(title="Support units", lines=tuple(
            f"{u.name} [{u.id}]: {'used this turn' if u.used else 'available'}"
            for u in v.units if u.where == "offmap") or ("none",)),
        Panel(title="Eliminated", lines=tuple(
            f"{u.name} [{u.id}]{' (out of supply: permanent)' if u.where == 'bag' else ''}"
            for u in v.units if u.where in ("eliminated", "bag")) or ("none",)),
        Panel(title="Victory", lines=tuple(status(state, w)) + (
            (f"result: {v.result.winner or 'draw'} - {v.result.reason}",) if v.result else ())),
    ]
    return ReportModel(game="holdfast", game_title=TITLE, scenario=v.scenario, side=side,
                       turn=v.turn, turn_label=v.turn_label,
                       phase=v.phase if v.phase != "turn" else f"{v.active} player turn ({v.step})",
                       units=units, markers=markers, arrows=arrows, panels=panels)
