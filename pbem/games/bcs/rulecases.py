"""Baptism By Fire's hook for the core rule-case runner (pbem.core.rulecases): positions, checks.

Position keys (``position.KEY``), on maps A and B of scenario 5.2 (options: entry_blocking =
attack_from_off_map unless ``options`` says otherwise):
  setup = true          the real 5.2 set-up at its first decision (Axis to activate, 14 Feb)
  turn (1), weather ("No Rain"), next_side ("axis"), phase ("activate")
  units = [{id, hex, steps, face, mp, moved, stopped, ghost, start, joined, off, arrives, entry, screen}]   the pieces in play:
                        every other piece of the scenario is out of play (dead with its steps,
                        so never rebuilt); off = true leaves it
                        waiting to arrive (its entry from the data unless given, arrives = its turn);
                        support = true puts it in Support of its Formation (9.2, no hex);
                        dropped = true gives it a Dropped Support marker (9.2i)
  formations = {ID = {fatigue, status, coordination, prepared_defense, msr_blocked, in_play,
                set_up_used, recovered}}        (every formation with a listed piece is in play)
  active = "cca", snafu = "Pass", second = false, began = false, stack = [ids],
  recovery = false      an Activation under way (phase activities), without rolling
  traffic = [hexes], objs = [hexes], control = {HEX = side}
  dead_pile = [ids]     destroyed units (0 steps) that may be rebuilt (9.4c)
  air = {SIDE = n}      the sides' Air Points this turn (8.0e)
  date = "19 Feb 43"    the date of the turn (the calendar runs on from it)
  units: dead = true (destroyed); assigned = "ccb" (an independent's Formation, "" for
                        none); pool = true (unassigned, stored off the map); independents 5.2
                        lacks (gore, 894-td) are added
  arty_pool = {SIDE = n}, arty_assigned = {SIDE = {F = n}}   Arty Asset Points (8.0d)
  rebuilding = {SIDE = {UNIT = n}}   dead units rebuilt n steps, waiting in the Dead Pile (9.4c)
  rommel = "dak"        Rommel's box (BbF 2.1)
  assigning = [SIDE, ...]   the Assignment Phase under way, these sides still to decide
  scenario = "5.4"      the scenario the position is built from (5.2 unless given)
  objective_turn = N    the turn at whose start the Axis draws his Victory Objective (BbF 4.0)
  drawn = true          the objective drawn (its public record); objective = "lekef" opened;
  axis_objective = "tebessa"   the Axis's own (a referee's state)
  exits = {UNIT = HEX}  Axis units exited for victory from that hex; mines = {HEX = breached}
  mines_due = N         BbF 3.1a: the Allies place N Minefield markers now (phase mines)
  units: an HQ or Combat Trains the scenario lacks (stark-hq in 5.2) is added as listed
  setting = [SIDE, ...]  the Set-up decision under way (1.4A-E), these sides still to decide:
                        every unit on the map is one of the set-up; zones = {UNIT = {of, within,
                        hexes, box}} its counters to place (not placed yet), fixed = {UNIT =
                        face} the sides the set-up states; weather_due = true: the first turn's
                        weather is still to be rolled (1.4G)
  standing = {SIDE = {TOPIC = MODE}}   standing orders; every topic not given is set to its
                        first mode (combat.STANDING), except those listed (and not given) in
  ask = {SIDE = [TOPIC]}   topics the side has no standing order for: it is asked (reactions.py)
  cup = {side, twos, ones, again}   Optional 9's chit cup (options.activation_smoothing = true;
                        smoothing.py) as given; without it the cup is filled from the position,
                        taken as the start of the turn's Activation Phase (BCS-OPT9-a)
Expectation keys beyond the core's: at (hex per piece), mp (MP12 spent), stopped (rule id of
the STOP, "" for none), face, phase, next_side, turn, weather, snafu, second (bool), fatigue,
status, coordination, extra_coordination (Optional 5's markers beyond the first), msr_blocked,
prepared_defense, recovered, in_play (formation ids), objs,
traffic (Traffic Stopped hexes), control, air (Air Points per
side), first_side, off (ids waiting off the map), dropped ({id = bool}: Dropped Support
markers), in_support (ids in Support), screen ({id = bool}), finished ({id = bool}), trains ({trains id = "HEX", "HEX ghost" or "off"}), steps, dead (ids);
the Assignment Phase: formation ({id = F}), pool (ids), arty ({SIDE = {pool = n, F = n}}),
rommel, assigning; the Set-up decision: setting, home ({id = set-up hex});
BbF 4.0 and 3.1: drawn (bool), objective, axis_objective, exits, mines, mines_due;
Optional 9: cup ({side, twos, ones, again}: those given, or "none": the game has no cup).
"""

from __future__ import annotations

from pbem.core.game import Context, PrivateDraw
from pbem.core.rulecases import Case, CaseRun
from pbem.core.standing import apply_order, parse_line
from pbem.games.bcs.assignment import open_phase
from pbem.games.bcs.board import bdata
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.setup import _place
from pbem.games.bcs.reactions import default_store
from pbem.games.bcs.smoothing import cup, fill
from pbem.games.bcs.state import Activation, BcsState, SetupZone, Smoothing

OPTIONS = {"entry_blocking": "attack_from_off_map"}


class BcsCases:
    """Positions of scenario 5.2 and Baptism By Fire's own expectation keys."""

    game = ENGINE
    keys = frozenset({"at", "mp", "stopped", "face", "phase", "next_side", "turn", "weather",
                      "snafu", "second", "fatigue", "status", "coordination", "extra_coordination",
                      "msr_blocked", "in_play",
                      "prepared_defense", "recovered", "objs", "traffic", "off", "screen", "finished", "trains", "steps", "dead",
                      "control", "air", "first_side", "dropped", "in_support",
                      "formation", "pool", "arty", "rommel", "assigning", "setting", "home",
                      "drawn", "objective", "axis_objective", "exits", "mines",
                      "mines_due", "cup"})

    def build(self, case: Case) -> BcsState:
        """The position a case describes."""
        pos = case.position
        state = ENGINE.setup(pos.get("scenario", "5.2"), {**OPTIONS, **pos.get("options", {})})
        for s in state.private:                      # standing orders: the engine's choices
            store = default_store()
            for topic in pos.get("ask", {}).get(s, []):     # ... or none: the side is asked
                store.pop(topic, None)
            state.private[s].standing = {**store, **pos.get("standing", {}).get(s, {})}
        if pos.get("setup"):
            return state
        state.turn = pos.get("turn", 1)
        if "date" in pos:                            # the turn's date (the calendar from it)
            cal = bdata().ooa.calendar
            state.dates = cal[cal.index(pos["date"]) - state.turn + 1:]
        state.weather = pos.get("weather", "No Rain")
        state.weather_due = pos.get("weather_due", False)       # 1.4G
        state.setting, state.setup_zones, state.setup_fixed = [], {}, {}
        state.next_side = pos.get("next_side", "axis")
        state.phase = pos.get("phase", "activate")
        state.air_due = False
        for s, n in pos.get("air", {}).items():      # Air Points per side (8.0e)
            state.private[s].air_points = n
        listed = {u["id"]: u for u in pos.get("units", [])}
        dead_pile = set(pos.get("dead_pile", []))
        for f in state.formations.values():
            f.in_play = False
        for pid in listed:                           # an independent 5.2 lacks (894-td ...)
            u = bdata().units.get(pid)
            if pid not in state.pieces and ((u is not None and u.independent)
                                            or pid in bdata().hqs or pid in bdata().trains):
                _place(state, pid, "", None)         # ... or an HQ or Trains (stark-hq)
        unknown = sorted(set(listed) - set(state.pieces))
        if unknown:                                  # a case that would prove nothing
            raise ValueError(f"case {case.id} {case.name!r}: no such piece in scenario "
                             f"{pos.get('scenario', '5.2')}: {', '.join(unknown)}")
        for pid, p in state.pieces.items():
            spec = listed.get(pid)
            if spec is None:
                p.status, p.hex = "dead", ""
                if pid in dead_pile:
                    p.steps = 0
                continue
            if spec.get("support"):                  # in Support (9.2e): no hex
                p.status, p.hex = "support", ""
            elif spec.get("dead"):                   # destroyed (with its steps as given)
                p.status, p.hex = "dead", ""
            elif spec.get("pool"):                   # unassigned, stored off the map (9.5)
                p.status, p.hex = "pool", ""
            elif spec.get("off"):
                p.status, p.hex = "off", ""
                p.arrives = spec.get("arrives", p.arrives)
                p.entry = spec.get("entry", p.entry)
            else:
                p.status, p.hex = "map", spec["hex"]
            p.steps = spec.get("steps", p.steps)
            p.face = spec.get("face", "move")
            p.mp = spec.get("mp", 0)
            p.moved = spec.get("moved", False)
            p.stopped = spec.get("stopped", "")
            p.ghost = spec.get("ghost", False)
            p.start = spec.get("start", p.hex)
            p.joined = spec.get("joined", True)
            p.screen = spec.get("screen", False)
            p.dropped = spec.get("dropped", False)   # a Dropped Support marker (9.2i)
            p.formation = spec.get("assigned", p.formation)   # an independent's Formation (9.5)
            if p.formation:
                state.formations[p.formation].in_play = True
        for fid, spec in pos.get("formations", {}).items():
            f = state.formations[fid]
            for k, v in spec.items():
                setattr(f, k, v)
        if "active" in pos:
            fid = pos["active"]
            f = state.formations[fid]
            f.status = "done" if pos.get("second") else "used"
            f.activations = 2 if pos.get("second") else 1
            state.activation = Activation(formation=fid, side=f.side,
                                          snafu=pos.get("snafu", "Pass"),
                                          second=pos.get("second", False),
                                          began=pos.get("began", False),
                                          recovery=pos.get("recovery", False),
                                          stack=list(pos.get("stack", [])))
            state.next_side = f.side
            state.phase = "activities"
        state.traffic = list(pos.get("traffic", []))
        state.objs = list(pos.get("objs", []))
        state.control.update(pos.get("control", {}))
        for s, n in pos.get("arty_pool", {}).items():          # Arty Asset Points (8.0d)
            state.private[s].arty_pool = n
        for s, forms in pos.get("arty_assigned", {}).items():
            state.private[s].arty_assigned = dict(forms)
        for s, units in pos.get("rebuilding", {}).items():     # rebuilt in the Dead Pile (9.4c)
            state.private[s].rebuilding = dict(units)
        state.rommel = pos.get("rommel", "")                   # BbF 2.1
        _objective_position(state, pos)                        # BbF 4.0, 3.1
        if "setting" in pos:                                   # the Set-up decision (1.4)
            _setting(state, pos)
        if "assigning" in pos:                                 # the Assignment Phase (2.1)
            state.phase, state.assigning = "assignment", list(pos["assigning"])
            state.next_side = state.assigning[0]
            open_phase(state)
        if cup(state) is not None:                             # Optional 9 (BCS-OPT9-a)
            if "cup" in pos:
                state.smoothing = Smoothing(**pos["cup"])
            else:
                fill(state)
        return state

    def default_side(self, state: BcsState, case: Case) -> str:
        """The side whose decision is pending (the active side in an Activation; the Allies
        placing Minefield markers, BbF 3.1a)."""
        if state.phase == "mines":
            return "allied"
        return state.activation.side if state.activation is not None else state.next_side

    def apply(self, state: BcsState, side: str, text: str, ctx: Context, case: Case) -> None:
        """Apply one order line (guarded orders through the core, as a file's lines are; a
        destination-only move written out first, as checking an orders file does)."""
        order = parse_line(ENGINE, text)
        if getattr(order, "needs_path", False):
            order = ENGINE.expand_order(state, side, order)
        apply_order(ENGINE, state, side, order, ctx)

    def check(self, case: Case, run: CaseRun) -> None:
        """Baptism By Fire's expectation keys."""
        exp, state = case.expect, run.state
        for pid, h in exp.get("at", {}).items():
            p = state.pieces[pid]
            assert p.status == "map" and p.hex == h, f"{pid} is {p.status} at {p.hex!r}"
        for pid, v in exp.get("mp", {}).items():
            assert state.pieces[pid].mp == v, f"{pid} spent {state.pieces[pid].mp} MP12"
        for pid, v in exp.get("stopped", {}).items():
            assert state.pieces[pid].stopped == v, f"{pid} stopped {state.pieces[pid].stopped!r}"
        for pid, v in exp.get("steps", {}).items():
            assert state.pieces[pid].steps == v, f"{pid} has {state.pieces[pid].steps} steps"
        for pid, v in exp.get("finished", {}).items():
            assert state.pieces[pid].finished == v, f"{pid} finished {state.pieces[pid].finished}"
        for pid, v in exp.get("screen", {}).items():
            assert state.pieces[pid].screen == v, f"{pid} screen {state.pieces[pid].screen}"
        for pid, v in exp.get("dropped", {}).items():          # Dropped Support markers (9.2i)
            assert state.pieces[pid].dropped == v, f"{pid} dropped {state.pieces[pid].dropped}"
        for pid in exp.get("in_support", []):                  # still in Support (9.2)
            assert state.pieces[pid].status == "support", f"{pid} is {state.pieces[pid].status}"
        for pid in exp.get("off", []):
            assert state.pieces[pid].status == "off", f"{pid} is {state.pieces[pid].status}"
        for pid in exp.get("dead", []):
            assert state.pieces[pid].status == "dead", f"{pid} is {state.pieces[pid].status}"
        for pid, v in exp.get("face", {}).items():
            assert state.pieces[pid].face == v, f"{pid} face {state.pieces[pid].face}"
        for key in ("phase", "next_side", "turn", "weather", "first_side"):
            if key in exp:
                assert getattr(state, key) == exp[key], f"{key} is {getattr(state, key)!r}"
        act = state.activation
        for key in ("snafu", "second"):
            if key in exp:
                assert act is not None and getattr(act, key) == exp[key], \
                    f"{key}: {act and getattr(act, key)!r}"
        for key in ("fatigue", "status", "coordination", "extra_coordination", "msr_blocked",
                    "prepared_defense", "recovered"):
            for fid, v in exp.get(key, {}).items():
                got = getattr(state.formations[fid], key)
                assert got == v, f"{fid} {key} is {got!r}"
        for pid, want in exp.get("trains", {}).items():
            p = state.pieces[pid]
            got = "off" if p.status != "map" else p.hex + (" ghost" if p.ghost else "")
            assert got == want, f"{pid} is {got!r}"
        for fid in exp.get("in_play", []):
            assert state.formations[fid].in_play, f"{fid} not in play"
        if "objs" in exp:
            assert state.objs == exp["objs"], state.objs
        if "traffic" in exp:
            assert state.traffic == exp["traffic"], state.traffic
        for h, s in exp.get("control", {}).items():
            assert state.control.get(h) == s, f"{h} controlled by {state.control.get(h)}"
        for pid, fid in exp.get("formation", {}).items():       # the Assignment Phase
            assert state.pieces[pid].formation == fid, f"{pid} of {state.pieces[pid].formation!r}"
        for pid in exp.get("pool", []):
            assert state.pieces[pid].status == "pool", f"{pid} is {state.pieces[pid].status}"
        for s, want in exp.get("arty", {}).items():
            priv = state.private[s]
            got = {"pool": priv.arty_pool, **priv.arty_assigned}
            assert got == want, f"{s} Arty Asset Points {got}"
        if "rommel" in exp:
            assert state.rommel == exp["rommel"], state.rommel
        if "assigning" in exp:
            assert state.assigning == exp["assigning"], state.assigning
        if "setting" in exp:                                   # the Set-up decision (1.4)
            assert state.setting == exp["setting"], state.setting
        for pid, h in exp.get("home", {}).items():
            assert state.pieces[pid].home == h, f"{pid} home {state.pieces[pid].home!r}"
        for s, n in exp.get("air", {}).items():
            assert state.private[s].air_points == n, state.private[s].air_points
        _objective_check(exp, state)                           # BbF 4.0, 3.1
        if "cup" in exp:                                       # Optional 9's chit cup
            c = cup(state)
            if exp["cup"] == "none":
                assert c is None, c
            else:
                assert c is not None, "no chit cup (option activation_smoothing off)"
                got = {k: getattr(c, k) for k in exp["cup"]}
                assert got == exp["cup"], f"cup {c}"


def _setting(state: BcsState, pos: dict) -> None:
    """The Set-up decision under way (position keys setting, zones, fixed): every unit on the
    map is one of the set-up (its hex its home); the zones' counters wait to be placed."""
    for p in state.pieces.values():
        if p.status == "map":
            p.home = p.hex
    for pid, z in pos.get("zones", {}).items():
        p = state.pieces[pid]
        p.status, p.hex, p.home, p.start = "setup", "", "", ""
        if p.formation:
            state.formations[p.formation].in_play = True
        state.setup_zones[pid] = SetupZone(**z)
    state.setup_fixed = dict(pos.get("fixed", {}))
    state.setting = list(pos["setting"])
    state.phase, state.next_side = "setup", state.setting[0]


def _objective_position(state: BcsState, pos: dict) -> None:
    """Position keys of BbF 4.0 and 3.1: objective_turn, drawn, objective, axis_objective,
    exits, mines (see the module docstring)."""
    if "objective_turn" in pos:
        state.objective_turn = pos["objective_turn"]
    if pos.get("drawn"):
        state.objective_draw = PrivateDraw(owner="axis", name="objective", seq=1, action=0,
                                           index=0, sides=2, purpose="Axis Victory Objective")
    state.objective = pos.get("objective", state.objective)
    state.private["axis"].objective = pos.get("axis_objective", state.private["axis"].objective)
    for pid, h in pos.get("exits", {}).items():
        if pid not in state.pieces:
            _place(state, pid, "", None)
        state.pieces[pid].status, state.pieces[pid].hex = "exited", ""
        state.exits[pid] = h
    if "mines" in pos:
        state.mines = dict(pos["mines"])
    if "mines_due" in pos:                           # BbF 3.1a: the Allies place them now
        state.phase, state.mines_due = "mines", pos["mines_due"]


def _objective_check(exp: dict, state: BcsState) -> None:
    """Expectation keys of BbF 4.0 and 3.1: drawn, objective, axis_objective, exits, mines."""
    if "drawn" in exp:
        assert (state.objective_draw is not None) == exp["drawn"], state.objective_draw
    if "objective" in exp:
        assert state.objective == exp["objective"], state.objective
    if "axis_objective" in exp:
        assert state.private["axis"].objective == exp["axis_objective"], \
            state.private["axis"].objective
    if "exits" in exp:
        assert state.exits == exp["exits"], state.exits
    if "mines" in exp:
        assert state.mines == exp["mines"], state.mines
    if "mines_due" in exp:
        assert state.mines_due == exp["mines_due"], state.mines_due



HOOKS = BcsCases()
