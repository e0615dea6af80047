"""The report model of one side: units, markers, arrows, panels (built from that side's view)."""

from __future__ import annotations

from pbem.core.game import MapArrow, MapMarker, MapUnit, Panel, ReportModel
from pbem.core.game import MarkerStyle
from pbem.core.game import Placement
from pbem.games.kasserine.board import data_of, values
from pbem.games.kasserine.movement import arrival_hexes, can_arrive
from pbem.games.kasserine.reach import unit_reach
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.seen import seen_lines
from pbem.games.kasserine.sequence import released_now
from pbem.games.kasserine.state import KasserineState, other
from pbem.games.kasserine.support import loc_losses
from pbem.games.kasserine.view import KasserineView, build_view, standing_lines
from pbem.games.kasserine.victory import status_lines

TITLE = "Kasserine: Baptism of Fire"

# The marker kinds this game draws on the report map, and how (pbem.core.game.MarkerStyle).
MARKER_STYLES: dict[str, MarkerStyle] = {
    "objective": MarkerStyle(shape="star", fill="#f2c21b", stroke="#7a5a00", css="objective"),
    "combat": MarkerStyle(shape="burst", fill="#e02020", stroke="#6b0000", accent="#ffd23f",
                          show_label=False, css="combat"),
    "support-facedown": MarkerStyle(shape="circle", fill="#2b2b6b", stroke="#ffffff",
                                    symbol="?", show_label=False, css="other"),
}

# The label of a face-down support fire marker on the map, the same for both sides' reports:
# whose it is and where are public, its value is hidden from everyone until step 5 (7.2c).
FACEDOWN = "{side} support fire marker, face down (value hidden)"


LEGEND = ["Counter values A-D-M: attack strength - defense strength - movement allowance "
          "(movement points); a depleted unit shows its reduced side.",
          "The unit id on each counter (and in the map's tooltips) is what orders use: "
          "'move UNIT HEX HEX...', 'enter UNIT HEX...', 'attack HEX with UNIT,UNIT'."]


def _unit_text(data: KasserineData, state: KasserineState, uid: str) -> str:
    """'id (name) a-d-m': how reinforcement lists name a counter."""
    a, d, m = values(data, state, uid)
    return f"{uid} ({data.units[uid].name}) {a}-{d}-{m}"


def _entry_text(data: KasserineData, state: KasserineState, uid: str) -> str:
    """Where a reinforcement may enter: the hexes open now (not enemy-occupied)."""
    return ", ".join(arrival_hexes(state, data, uid)) or "no entry hex open now"


def _due_turn(data: KasserineData, state: KasserineState, gid: str) -> int | None:
    """The game turn a reinforcement group is (or was) first due; None while it waits for an
    event that has not happened."""
    g = data.reinforcements[gid]
    if g.trigger.kind == "turn":
        return g.trigger.turn
    if gid in state.triggered:
        t = state.triggered[gid]
        return t + 1 if g.arrival == "next_game_turn" else max(t, g.trigger.turn)
    return None


def _group_when(data: KasserineData, state: KasserineState, gid: str) -> str:
    """When a reinforcement group arrives: its turn, or the event it waits for."""
    g = data.reinforcements[gid]
    due = _due_turn(data, state, gid)
    if due is not None:
        return f"turn {due}"
    earliest = f", turn {g.trigger.turn} at the earliest" if g.trigger.turn > 1 else ""
    return "on an event" + earliest


def placements(state: KasserineState, data: KasserineData, side: str) -> list[Placement]:
    """Side's reinforcements that may enter now, with the entry hexes open to each."""
    if state.active != side or state.wait is not None or state.result is not None:
        return []
    out = []
    for uid in sorted(state.units):
        if state.units[uid].side != side or not can_arrive(state, data, uid):
            continue
        a, d, m = values(data, state, uid)
        group, _ = data.arrival_of[uid]
        hexes = tuple(arrival_hexes(state, data, uid))
        out.append(Placement(unit=uid, name=data.units[uid].name, values=f"{a}-{d}-{m}",
                             turn=_due_turn(data, state, group.id) or state.turn,
                             kind="reinforcement", hexes=hexes,
                             order=f"enter {uid} HEX...",
                             note=group.title if hexes else "every entry hex is enemy-occupied"))
    return out


def reinforcement_lines(state: KasserineState, data: KasserineData,
                        released: list[str]) -> list[str]:
    """Every reinforcement not yet on the map: waiting ones with their open entry hexes, then
    the rest of the schedule with when and where each unit arrives."""
    due = []
    for s in ("axis", "us"):
        groups = set(released) | (set(released_now(state, data, s)) if s != state.active else set())
        waiting = [uid for uid, u in state.units.items() if u.side == s and u.status == "off"
                   and uid in data.arrival_of and data.arrival_of[uid][0].id in groups]
        if not waiting:
            due.append(f"{s}: none waiting to enter")
        for uid in waiting:
            due.append(f"{s}: {_unit_text(data, state, uid)} waiting to enter; "
                       f"entry hexes {_entry_text(data, state, uid)}")
        for gid, g in data.reinforcements.items():
            if g.side != s or gid in groups:
                continue
            by_entry: dict[tuple[str, ...], list[str]] = {}
            for a in g.units:
                if state.units[a.unit].status == "off":
                    by_entry.setdefault(tuple(data.entry_hexes(a.entry)), []).append(a.unit)
            for hexes, units in by_entry.items():
                due.append(f"{s}, {_group_when(data, state, gid)}: {g.title}: "
                           + ", ".join(_unit_text(data, state, uid) for uid in units)
                           + f"; entry hexes {', '.join(hexes)}")
    return due


def _facedown_counts(v: KasserineView) -> list[tuple[str, int]]:
    """(side, markers it has face down) on the combat in progress, attacker first, from the
    view's public counts of markers placed and revealed (never a value)."""
    c = v.combat
    if c is None:
        return []
    return [(v.active, c.att_down - len(c.att_values)),
            (other(v.active), c.def_down - len(c.def_values))]


def build_report(state: KasserineState, side: str) -> ReportModel:
    """Everything one side's report shows; enemy markers only as face-down counts."""
    data = data_of(state)
    v = build_view(state, side)
    units = [MapUnit(hex=u.hex, side=u.side, label=u.id, values=u.values,
                     kind=data.units[u.id].type, note="depleted" if u.depleted else "", id=u.id)
             for u in v.units if u.status == "map"]
    markers: list[MapMarker] = [MapMarker(hex=h, kind="objective", label=f"held by {v.holder[h]}"
                                          if h in v.holder else "objective")
                                for h in data.objectives]
    for c in (v.combat, v.last_combat):
        if c is None:
            continue
        markers.append(MapMarker(hex=c.target, kind="combat",
                                 label=f"{c.kind} {c.result or 'in progress'}"))
        if c is v.combat:
            markers.extend(MapMarker(hex=c.target, kind="support-facedown",
                                     label=FACEDOWN.format(side=s))
                           for s, n in _facedown_counts(v) for _ in range(n))
    for uid in state.targets:                       # combats of this phase (8.0-c)
        u = state.units[uid]
        if u.status == "map" and (v.combat is None or u.hex != v.combat.target):
            markers.append(MapMarker(hex=u.hex, kind="combat", label="attacked this phase"))
    arrows = [MapArrow(path=tuple(s.path), side=s.side, label=s.kind) for s in v.moves]
    m = v.markers
    own = [f"Allotment this turn: {m.allotment} marker(s); not yet revealed: "
           f"{' '.join(f'+{x}' for x in m.not_revealed) or 'none'}",
           f"Unused: {m.unused}; face down now: {m.facedown}"
           + (f" ({' '.join(f'+{x}' for x in m.facedown_values)})" if m.facedown_values else ""),
           f"Spent this turn: {' '.join(f'+{x}' for x in m.spent) or 'none'}"]
    due = reinforcement_lines(state, data, v.released)
    for gid, turn in sorted(v.triggered.items()):
        due.append(f"event on turn {turn}: {data.reinforcements[gid].title}")
    loc = [f"{s}: supply symbols {' '.join(sorted(data.supply[s]))}; occupied by the enemy now: "
           f"{loc_losses(state, data, s)}; markers lost this turn: {v.loc_lost.get(s, 0)}"
           for s in ("axis", "us")]
    panels = [Panel(title="Your support fire markers", lines=tuple(own)),
              Panel(title="Reinforcements due", lines=tuple(due)),
              Panel(title="Objectives and victory", lines=tuple(status_lines(state, data)
                                                               + ([f"Result: {v.result.reason}"]
                                                                  if v.result else []))),
              Panel(title="Lines of communication (12.0)", lines=tuple(loc)),
              Panel(title="Movement log", lines=tuple(seen_lines(v.moves)) or ("none",))]
    if standing_lines(v.standing):
        panels.append(Panel(title="Your standing orders", lines=tuple(standing_lines(v.standing))))
    down = [(s, n) for s, n in _facedown_counts(v) if n]
    if down and v.combat is not None:
        panels.append(Panel(title="Face-down support fire markers", lines=tuple(
            f"{s} ({'attacking' if s == v.active else 'defending'} {v.combat.target}): {n} face "
            f"down, value{'s' if n > 1 else ''} hidden until step 5" for s, n in down)))
    if v.wait is not None:
        panels.append(Panel(title="Waiting for", lines=(f"{v.wait.side}: {v.wait.prompt}",)))
    label = next((t.label for t in data.scenario.turn if t.turn == v.turn), "")
    return ReportModel(game="kasserine", game_title=TITLE, scenario=state.scenario, side=side,
                       turn=v.turn, turn_label=f"Turn {v.turn} ({label})",
                       phase=f"{v.active} {v.phase}", units=units, markers=markers, arrows=arrows,
                       panels=panels, placements=placements(state, data, side),
                       legend=list(LEGEND), reach=unit_reach(state, data, side))
