"""The report model of one side's view: map units (enemy masked), markers, arrows, panels."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import MapArrow, MapMarker, MapUnit, Panel, Placement, ReportModel
from pbem.core.game import MarkerStyle
from pbem.games.holdfast.data import World
from pbem.games.holdfast.reach import unit_reach
from pbem.games.holdfast.reinforcement import (check_place, check_setup_place, entry_hexes,
                                               setup_zone)
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

LEGEND = ["Counter values DRC-TH-MP SPn: DRC = dice rolled in combat per unit, TH = to-hit "
          "number (a die at or above the target's TH hits it), MP = movement points, "
          "SP = strength points (steps) now.",
          "Unit ids in [brackets] (and in the map's tooltips) are what orders use: "
          "'move UNIT HEX-HEX', 'place UNIT HEX'."]


def _values(u) -> str:
    """The printed values of one own unit, as on its block."""
    return f"{u.drc}-{u.th}-{u.mp} SP{u.sp}"


def _allowed(check, hexes) -> tuple[str, ...]:
    """The hexes among `hexes` for which check(h) raises no IllegalOrder, in order."""
    out = []
    for h in sorted(hexes):
        try:
            check(h)
        except IllegalOrder:
            continue
        out.append(h)
    return tuple(out)


def placements(state: HoldfastState, w: World, side: str) -> list[Placement]:
    """Side's units still to place now (set-up, or reinforcements due) and the legal hexes."""
    pub = state.public
    priv = state.private[side]
    units = sorted(priv.units.values(), key=lambda u: (u.entry_turn, u.id))
    out: list[Placement] = []
    if pub.phase == "setup":
        for u in units:
            if u.where == "setup":
                spec = w.units[u.id]
                hexes = _allowed(lambda h, uid=u.id: check_setup_place(state, w, side, uid, h),
                                 setup_zone(w, u.id))
                out.append(Placement(unit=u.id, name=spec.name, kind="set-up",
                                     values=f"{spec.drc}-{spec.th}-{spec.mp} SP{u.sp}",
                                     hexes=hexes, order=f"place {u.id} HEX"))
        return out
    if pub.phase != "turn" or pub.active != side or pub.step != "place":
        return out
    for u in units:
        spec = w.units[u.id]
        if u.where != "track" or spec.type == "support" or u.entry_turn > pub.turn:
            continue
        hexes = _allowed(lambda h, uid=u.id: check_place(state, w, side, uid, h),
                         entry_hexes(state, w, side, u.id))
        out.append(Placement(unit=u.id, name=spec.name, turn=u.entry_turn,
                             values=f"{spec.drc}-{spec.th}-{spec.mp} SP{u.sp}", hexes=hexes,
                             order=f"place {u.id} HEX",
                             note="" if hexes else "no entry hex open now: it is delayed"))
    return out


def _due_line(state: HoldfastState, w: World, side: str, u) -> str:
    """One reinforcement on the track: turn, name, id, values and where it may enter."""
    spec = w.units[u.id]
    head = f"turn {u.entry_turn}: {u.name} [{u.id}] {_values(u)}"
    if spec.type == "support":
        return head + " (support unit: arrives off map)"
    hexes = sorted(entry_hexes(state, w, side, u.id))
    where = ", ".join(w.label(h) for h in hexes) or "no entry hex open now"
    return f"{head}; enters at {where}"


def build_report(state: HoldfastState, w: World, side: str) -> ReportModel:
    """A ReportModel built only from side's view (plus public scenario facts)."""
    v = build_view(state, w, side)
    units: list[MapUnit] = []
    for u in v.units:
        if u.where == "map":
            note = "" if u.in_supply is not False else "out of supply"
            units.append(MapUnit(hex=u.hex, side=side, label=u.name, values=_values(u),
                                 kind=u.type, note=note, id=u.id))
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
            for u in v.units if u.where == "map" and u.in_supply is not None)
            or (("not traced: the game is over",) if any(u.where == "map" for u in v.units)
                else ("no units on the map",))),
        Panel(title="Reinforcements due", lines=tuple(
            _due_line(state, w, side, u)
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
                       units=units, markers=markers, arrows=arrows, panels=panels,
                       placements=placements(state, w, side), legend=list(LEGEND),
                       reach=unit_reach(state, w, side))
