"""The report model of one side, built from that side's view only: own pieces in full, the
top unit of each enemy stack with its count, OBJ, Traffic Stopped, VP and Minefield markers,
panels."""

from __future__ import annotations

from pbem.core.game import MapMarker, MapUnit, MarkerStyle, Panel, ReportModel
from pbem.games.bcs.mines import report_lines
from pbem.games.bcs.mixing import markers as coordination_markers
from pbem.games.bcs.objective import report_line
from pbem.games.bcs.board import bdata
from pbem.games.bcs.state import FRESH, MP12, BcsState, FormationState, Piece, Smoothing
from pbem.games.bcs.view import BcsView, build_view

TITLE = "Baptism By Fire (BCS)"
ARROW = "Assault Arrow"   # the note of a unit whose side showing has one (1.2a)
LEGEND = ["Counter values AR-steps, then AV and Range where the side showing has an Armor "
          "Value, then MA and movement class; an enemy stack shows its top unit only, never "
          "its steps.",
          f"'{ARROW}' in a unit's note: its side showing has an Assault Arrow (your units; of "
          "an enemy stack only its top unit).",
          "The id on each counter is what orders use: 'move UNIT[+UNIT] HEX HEX...', "
          "'activate FORMATION', 'obj HEX', 'trains FORMATION HEX'."]

MARKER_STYLES: dict[str, MarkerStyle] = {
    "objective": MarkerStyle(shape="star", fill="#f2c21b", stroke="#7a5a00", css="objective"),
    "obj": MarkerStyle(shape="circle", fill="#e02020", stroke="#6b0000", symbol="O",
                       css="combat"),
    "traffic": MarkerStyle(shape="no_entry", fill="#ffffff", stroke="#b00000", css="other"),
    "minefield": MarkerStyle(shape="square", fill="#8b0000", stroke="#2b0000", accent="#ffffff",
                             symbol="M", css="minefield"),       # BbF 3.1 (as info.py draws it)
}


def _values(unit_id: str, face: str, steps: int | None) -> str:
    """'AR-steps AVn Rn MAclass' of a unit's side showing (steps left out when hidden)."""
    u = bdata().units[unit_id]
    f = u.deployed if face == "deployed" and u.deployed is not None else u.move
    av = f" AV{f.av} R{f.range}" if f.av is not None else ""
    head = f"{u.ar}-{steps}" if steps is not None else f"{u.ar}"
    return f"{head}{av} {f.ma}{f.mclass[0].upper()}"


def _arrow(unit_id: str, face: str) -> str:
    """', Assault Arrow' when the unit's side showing has one (1.2a), else ''."""
    u = bdata().units[unit_id]
    f = u.deployed if face == "deployed" and u.deployed is not None else u.move
    return f", {ARROW}" if f.assault_arrow else ""


def _fatigue(f: FormationState) -> str:
    return "Fresh" if f.fatigue == FRESH else f"Fat-{f.fatigue}"


def _cup(v: BcsView) -> tuple[str, ...]:
    """Optional 9's chit cup (public), a line of the Turn panel when the game plays it."""
    c = v.smoothing
    if not isinstance(c, Smoothing):
        return ()
    if not c.side:
        return ("Activation Smoothing: no chit cup this turn",)
    return (f"Activation Smoothing: {c.side} draws; cup {c.twos} x 2, {c.ones} x 1"
            + (f" ({c.side} activates a second Formation at once)" if c.again else ""),)


def build_report(state: BcsState, side: str) -> ReportModel:
    """The report model of one side (from build_view: nothing the side may not see)."""
    return report_of(build_view(state, side), _allowances(state, side))


def _allowances(state: BcsState, side: str) -> dict[str, int]:
    """side's units of the Activation under way -> their MA this Activation in MP12 (the
    SNAFU and the weather halve it); empty when no Activation of side's is under way."""
    from pbem.games.bcs.movement import current_ma

    act = state.activation
    if act is None or act.side != side or act.recovery:
        return {}
    return {p.id: current_ma(state, p) for p in state.pieces.values()
            if p.side == side and p.kind == "unit" and p.status == "map"
            and p.formation == act.formation}


def _mp(spent: int, ma: int | None) -> str:
    """', 4.5 of 6 MP spent' for a unit of the Activation (MP12 to MP)."""
    if ma is None:
        return ""
    if ma == 0:
        return ", no movement this Activation"
    return f", {spent / MP12:g} of {ma / MP12:g} MP spent"


def report_of(v: BcsView, allowances: dict[str, int] | None = None) -> ReportModel:
    """The report model of a view (allowances: _allowances, for the MP each unit of the
    Activation under way has spent and may spend)."""
    d = bdata()
    ma = allowances or {}
    units: list[MapUnit] = []
    for p in v.own:
        if p.status != "map":
            continue
        if p.kind == "unit":
            units.append(MapUnit(hex=p.hex, side=p.side, label=p.id, id=p.id,
                                 values=_values(p.id, p.face, p.steps),
                                 kind=d.units[p.id].kind,
                                 note=f"{p.face} side" + _arrow(p.id, p.face)
                                 + (", stopped" if p.stopped else "")
                                 + (", Screening" if p.screen else "")
                                 + _mp(p.mp, ma.get(p.id))))
        elif p.kind == "hq":
            units.append(MapUnit(hex=p.hex, side=p.side, label=p.id, id=p.id, kind="hq",
                                 values=f"CR{d.hqs[p.id].command_radius}"))
        else:
            units.append(MapUnit(hex=p.hex, side=p.side, label=p.id, id=p.id, kind="trains",
                                 note="Ghost" if p.ghost else "Regular"))
    enemy_side = "axis" if v.side == "allied" else "allied"
    for st in v.enemy:
        if st.top:
            count = f"{st.units} units" if st.units > 1 else "1 unit"
            units.append(MapUnit(hex=st.hex, side=enemy_side, label=st.top, id=st.top,
                                 values=_values(st.top, st.face, None),
                                 kind=d.units[st.top].kind,
                                 note=(count if v.stack_counts else "1+ units")
                                 + _arrow(st.top, st.face)     # the top unit's only (1.5a)
                                 + (", Screening" if st.screen else "")))
        for o in st.others:
            units.append(MapUnit(hex=st.hex, side=enemy_side, label=o, id=o,
                                 kind="hq" if o in d.hqs else "trains"))
    markers = [MapMarker(hex=h, kind="obj", label="OBJ") for h in v.objs]
    markers += [MapMarker(hex=h, kind="traffic", label="Traffic Stopped") for h in v.traffic]
    markers += [MapMarker(hex=h, kind="objective", label=f"VP {s}")
                for h, s in sorted(v.control.items())]
    markers += [MapMarker(hex=h, kind="minefield",                      # BbF 3.1: public
                          label="Minefield (Breached)" if b else "Minefield")
                for h, b in sorted(v.mines.items())]
    own = [f for f in v.formations if f.side == v.side and f.in_play]
    other = [f for f in v.formations if f.side != v.side]
    panels = [
        Panel(title="Turn", lines=(f"Turn {v.turn}, {v.date}", f"Weather: {v.weather}",
                                   f"Air Points: {v.private.air_points}") + _cup(v)),
        Panel(title="Your Formations", lines=tuple(
            f"{d.formations[f.id].name}: HQ {f.status}, {_fatigue(f)}"
            + _coordination(f)
            + (", Prepared Defense" if f.prepared_defense else "")
            + (f", MSR Blocked {f.msr_blocked}" if f.msr_blocked else "") for f in own)),
        Panel(title="Enemy Formations", lines=tuple(
            f"{d.formations[f.id].name}: HQ {f.status}, {_fatigue(f)}"
            + _coordination(f) for f in other)),
    ]
    arriving = _arrivals(v)
    if arriving:
        panels.append(Panel(title="Your arrivals", lines=tuple(arriving)))
    line = report_line(v.objective_draw, v.objective, v.private.objective)   # BbF 4.0
    if line or v.exits:
        panels.append(Panel(title="Victory Objective", lines=tuple(
            ([line] if line else []) + [f"{u} exited at {h}" for u, h in sorted(v.exits.items())])))
    if v.mines or v.mines_due:                                           # BbF 3.1
        panels.append(Panel(title="Minefields", lines=tuple(report_lines(v.mines, v.mines_due))))
    if v.activation is not None:
        a = v.activation
        what = "Recovery" if a.recovery else f"SNAFU {a.snafu}"
        lines = [f"{a.side}: {d.formations[a.formation].name}"
                 f"{' (Second Activation)' if a.second else ''}, {what}"]
        if a.objs:
            lines.append(f"Combat OBJs placed: {', '.join(a.objs)}")
        if a.attacked:
            lines.append(f"Hexes attacked (Regular Attack): {', '.join(a.attacked)}")
        if a.side == v.side and (a.arty_used or v.private.arty_assigned.get(a.formation)):
            lines.append(f"Arty Points used in it: {a.arty_used}")
        panels.append(Panel(title="Activation", lines=tuple(lines)))
    arty = v.private.arty_assigned
    if v.private.arty_pool or any(arty.values()):                # own, hidden from the enemy
        panels.append(Panel(title="Your Arty Asset Points", lines=tuple(
            [f"unassigned (off the map): {v.private.arty_pool}"]
            + [f"{d.formations[f].name}: {n}" for f, n in sorted(arty.items()) if n])))
    return ReportModel(game="bcs", game_title=TITLE, scenario=v.scenario, side=v.side,
                       turn=v.turn, turn_label=f"Turn {v.turn} ({v.date})", phase=v.phase,
                       units=units, markers=markers, panels=panels, legend=list(LEGEND))


def _arrivals(v: BcsView) -> list[str]:
    """The side's own units still off the map (its Orders of Arrival), by turn and Formation:
    'Turn 2, Gerhardt Pz KG: ii-7-pz, ii-69-pg (Entry Area B)'. Only its own: which
    of the enemy's have entered can be hidden (a unit entering under another top)."""
    d = bdata()
    groups: dict[tuple[int, str], list[Piece]] = {}
    for p in v.own:
        if p.status == "off" and p.kind == "unit":
            groups.setdefault((p.arrives, p.formation), []).append(p)
    out = []
    for (turn, fid), ps in sorted(groups.items()):
        name = d.formations[fid].name if fid in d.formations else fid
        entries = sorted({"with its HQ" if e.startswith("hq:") else f"Entry Area {e}"
                          for p in ps for e in p.entry})
        when = f"Turn {turn}" + (", due" if turn <= v.turn else "")
        out.append(f"{when}, {name}: {', '.join(sorted(p.id for p in ps))}"
                   + (f" ({', '.join(entries)})" if entries else ""))
    return out


def _coordination(f: FormationState) -> str:
    """A Formation's Coordination markers in the report (more than one with Optional 5)."""
    n = coordination_markers(f)
    return "" if not n else ", Coordination" + (f" x{n}" if n > 1 else "")
