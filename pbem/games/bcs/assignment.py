"""The Pre-Turn Assignment Phase (BCS 2.1 (1) 2): units into and out of Support (9.2d-f),
independent units and Arty Asset Points assigned or unassigned (8.0d, 9.1k, 9.5), BbF's 9 ID
Divarty (3.2) and Rommel (BbF 2.1); the set-up's 'in Support' and 'assigned to' (1.4F).

Who decides: both sides, the side that made the previous turn's last Activation first (its file
ends that turn, so its lines written after it answer at once), then the other. A side is asked
only if it wants to be (``standing assignment ask``) or must (Rommel not yet placed); the
default, ``standing assignment keep``, answers "no changes", so a side with nothing to change
sends no file. Arty Asset Points are private (1.5b): their orders and events go to their owner
only. docs/bcs-engine.md, "The Assignment Phase as built".
"""

from __future__ import annotations

from collections import deque

import msgspec

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import bdata, combat_count, on_area
from pbem.games.bcs.state import SIDES, BcsState, FormationState, Piece

TOPIC = "assignment"
STANDING = {TOPIC: ("keep",)}    # keep: no changes (the default); 'ask': the side is asked

ROMMEL_FROM = "19 Feb 43"        # BbF 2.1: 'after his arrival on the 19th'
ROMMEL_BOXES = {"dak": "DAK", "10pz": "10 Pz Div", "21pz": "21 Pz Div"}   # box -> division
SCENARIO_BOXES = {"DAK": "dak", "10 Pz": "10pz", "21 Pz": "21pz"}      # scenario 5.6's names


class Asset(msgspec.Struct, frozen=True, kw_only=True):
    """Arty Asset Points a side receives on a date (into its unassigned pool)."""

    id: str
    side: str
    points: int
    arrives: str
    together: bool               # all its points go to a single Formation (BbF 3.2a)
    rule: str
    source: str


ASSETS = (
    Asset(id="divarty_9id", side="allied", points=3, arrives="21 Feb 43", together=True,
          rule="BBF-3.2a",
          source="reconstructed: BBF-G7, the 9 ID Divarty is in no Order of Arrival or set-up; "
                 "its guns reached Thala on 21 Feb 43 (designer's notes: 'a rushed "
                 "reinforcement'); 3 points, as a 3-point Allied armoured HQ's"),
)


def _name(fid: str) -> str:
    return bdata().formations[fid].name


def _day(date: str) -> int:
    return bdata().ooa.calendar.index(date)


def rommel_here(state: BcsState) -> bool:
    """Rommel has arrived (BbF 2.1: from the 19 Feb turn)."""
    return _day(state.date) >= _day(ROMMEL_FROM)


def rommel_due(state: BcsState) -> bool:
    """Rommel must be placed in this Assignment Phase before the Axis is done (BbF 2.1); not on
    a scenario's first turn when BBF-G18's option says he may not be placed then."""
    if state.turn == 1 and state.options.get("rommel_first_turn") == "assignment_phase_only":
        return False
    return rommel_here(state) and not state.rommel


def rommel_affects(state: BcsState, form: FormationState) -> bool:
    """Rommel's box holds this Formation's division this turn (BbF 2.1: 10 Pz and 21 Pz cover
    all their KGs; never Centauro)."""
    return bool(state.rommel) and rommel_here(state) and \
        bdata().formations[form.id].division == ROMMEL_BOXES.get(state.rommel)


def rommel_drm(state: BcsState, form: FormationState, chart: str) -> list[tuple[str, int]]:
    """Rommel's DRM on a chart ('snafu', 'second_activation') from the charts' Game Specific:
    Rommel rows (BbF 2.1: +1 to each)."""
    if not rommel_affects(state, form):
        return []
    return [("Rommel", m.drm) for m in bdata().modifiers
            if m.chart == chart and m.group == "Game Specific: Rommel"]


def total_arty(state: BcsState, fid: str) -> int:
    """A Formation's Arty Points: its HQ's Intrinsic points plus the Arty Asset Points assigned
    to it (8.0a, 8.0d). On a sealed game's knowledge state of the other side, where its Arty
    Asset Points are is its secret (1.5b): any of its HQs may hold every point it has received
    (``asset_points``), an upper bound, so that a use is never refused there (its legality is
    its writer's: sealed.hidden_legality; the final replay checks it)."""
    form = state.formations[fid]
    if form.side in state.concealed:
        return bdata().hqs[form.hq].arty_points + asset_points(state, form.side)
    return bdata().hqs[form.hq].arty_points + state.private[form.side].arty_assigned.get(fid, 0)


def asset_points(state: BcsState, side: str, only: str = "") -> int:
    """The Arty Asset Points side has received by this date (public: the ASSETS' dates; none is
    ever lost, 9.5), of the asset ``only`` if given."""
    return sum(a.points for a in ASSETS if a.side == side and (not only or a.id == only)
               and _day(a.arrives) <= _day(state.date))


def irwin(state: BcsState, fid: str) -> bool:
    """BbF 3.2b 'Red' Irwin: the Formation holds the 9 ID Divarty's points (on a knowledge
    state of the other side: it may hold them, total_arty)."""
    form = state.formations[fid]
    if form.side in state.concealed:
        return asset_points(state, form.side, "divarty_9id") > 0
    return any(a.id == "divarty_9id" and a.side == form.side for a in ASSETS) and \
        state.private[form.side].arty_assigned.get(fid, 0) > 0


def wants(state: BcsState, side: str) -> bool:
    """Whether a side decides in this Assignment Phase: it asked to (standing assignment ask)
    or must (Rommel not placed yet). In a sealed game every side, every phase: its standing
    order is a hidden policy (docs/sealed.md 5c), so its processor answers for it
    (``sealed_answer``) unless it asked to be asked."""
    if side == "axis" and rommel_due(state):
        return True
    if state.sealed:
        return True
    return state.private[side].standing.get(TOPIC) == "ask"


def sealed_answer(state: BcsState, side: str) -> list[str] | None:
    """A sealed game: the lines side's standing order (the store of this state: its processor's
    copy holding its policy) gives in its Assignment Phase: 'assignment done' unless it asked
    to be asked (``standing assignment ask``) or must place Rommel; None: the player decides."""
    if side == "axis" and rommel_due(state):
        return None
    if state.private[side].standing.get(TOPIC, STANDING[TOPIC][0]) == "ask":
        return None
    return ["assignment done"]


def _new_assets(state: BcsState, ctx: Context | None) -> None:
    """Arty Asset Points arriving on this date join their side's pool (private)."""
    for a in ASSETS:
        if a.arrives == state.date and a.side not in state.concealed:   # (a knowledge state:
            state.private[a.side].arty_pool += a.points                # the other's unknown)
            if ctx is not None:
                ctx.log(f"{a.points} Arty Asset Points ({a.id}) arrive in the pool",
                        visible_to=a.side)


def arrive_in_support(state: BcsState, arrivals: list, ctx: Context | None) -> None:
    """Reinforcements due this turn that the Order of Arrival lists 'in Support', and
    Support-only units (9.2a), go into Support with their HQ (9.3a, 9.3h)."""
    listed = {c for a in arrivals for c in a.support}
    for p in state.pieces.values():
        if p.status != "off" or p.kind != "unit" or p.arrives != state.turn:
            continue
        if p.id in listed or bdata().units[p.id].support_only:
            _into_support(p)
            if ctx is not None:
                ctx.log(f"{p.id} arrives in Support of {_name(p.formation)} (9.3a)",
                        visible_to=p.side)


def begin(state: BcsState, order: list[str], ctx: Context) -> bool:
    """Open the Assignment Phase (2.1 (1) 2): new Arty Asset Points join the pool, destroyed
    independents are unassigned (9.1k), what is unassigned now may be assigned (9.5); the sides
    that decide, in order. False when no side decides (the phase passes at once)."""
    _new_assets(state, ctx)
    open_phase(state)
    state.assigning = [s for s in order if wants(state, s)]
    if not state.assigning:
        close(state, ctx)
        return False
    state.phase = "assignment"
    state.next_side = state.assigning[0]
    return True


def open_phase(state: BcsState) -> None:
    """What may be assigned in the phase now beginning: destroyed independents become
    unassigned (9.1k); independents and Arty Asset Points unassigned now (9.5)."""
    for p in state.pieces.values():
        if p.kind == "unit" and p.status == "dead" and _independent(p) and p.formation:
            p.formation = ""
    state.unassigned = sorted(p.id for p in state.pieces.values()
                              if _independent(p) and not p.formation and p.status != "dead")
    for s in SIDES:
        state.private[s].arty_free = state.private[s].arty_pool


def close(state: BcsState, ctx: Context) -> None:
    """End of the Assignment Phase: a Formation left without an Arty Point loses its Prepared
    Defense (4.5a); nothing stays assignable."""
    for f in sorted(state.formations.values(), key=lambda f: f.id):
        if f.prepared_defense and total_arty(state, f.id) < 1:
            f.prepared_defense = False
            ctx.log(f"{_name(f.id)} has no Arty Point after the Assignment Phase: its Prepared "
                    f"Defense is removed (4.5a)", visible_to=f.side)
    state.assigning, state.unassigned = [], []
    for s in SIDES:
        state.private[s].arty_free = 0


def check_done(state: BcsState, side: str) -> None:
    """'assignment done': the side's turn in the phase, Rommel placed (BbF 2.1)."""
    _check_phase(state, side, "BCS-2.1-1b", "the Assignment Phase is not yours to end now")
    if side == "axis" and rommel_due(state):
        raise IllegalOrder("Rommel must be placed in a box first ('rommel dak', 'rommel 10pz' or "
                           "'rommel 21pz')", rule="BBF-2.1-a")


def _check_phase(state: BcsState, side: str, rule: str, what: str) -> None:
    if state.phase != "assignment" or not state.assigning or state.assigning[0] != side:
        raise IllegalOrder(what, rule=rule)


def _first_turn(state: BcsState, p: Piece | None, what: str) -> None:
    """2.1-1c: on a scenario's first turn only newly arriving reinforcements (waiting to enter,
    or arrived in Support) are assigned."""
    if state.turn == 1 and (p is None or p.arrives != 1 or p.status not in ("off", "support")):
        raise IllegalOrder(f"{what}: on a scenario's first turn the Assignment Phase serves "
                           f"newly arriving reinforcements only", rule="BCS-2.1-1c")


def _independent(p: Piece) -> bool:
    u = bdata().units.get(p.id)
    return u is not None and u.independent


def _own(state: BcsState, side: str, uid: str, rule: str) -> Piece:
    p = state.pieces.get(uid)
    if p is None or p.side != side or p.kind != "unit":
        raise IllegalOrder(f"{uid} is not one of your combat units", rule=rule)
    return p


def _own_formation(state: BcsState, side: str, fid: str, rule: str) -> FormationState:
    form = state.formations.get(fid)
    if form is None or form.side != side:
        raise IllegalOrder(f"{fid} is not one of your Formations", rule=rule)
    if not form.in_play or state.pieces[form.hq].status == "dead":
        raise IllegalOrder(f"{_name(fid)} is not in play", rule=rule)
    return form


def _legal(state: BcsState, form: FormationState, rule: str, verb: str) -> None:
    from pbem.games.bcs.supply import msr
    if state.pieces[form.trains].status != "map" or msr(state, form) is None:
        raise IllegalOrder(f"{_name(form.id)}'s Combat Trains are not Legal: it cannot {verb} "
                           f"now", rule=rule)


# -- Support (9.2d-f) -----------------------------------------------------------------------------

def _support_face(p: Piece) -> str:
    """The side with the greater printed AV (9.2e)."""
    u = bdata().units[p.id]
    if u.deployed is None:
        return "move"
    return "deployed" if (u.deployed.av or 0) > (u.move.av or 0) else "move"


def _into_support(p: Piece) -> None:
    p.status, p.hex, p.face, p.start = "support", "", _support_face(p), ""


def reaches_hq(state: BcsState, p: Piece, hq_hex: str) -> bool:
    """9.2e: the unit could physically move to its HQ's hex on its Move side (Support-only
    units as Tac MA), given terrain (no Prohibited step) and enemy units (no hex holding one);
    distance does not matter."""
    from pbem.games.bcs.terrain import PROHIBITED, step_cost
    u = bdata().units[p.id]
    cls = "tac" if u.support_only else u.move.mclass
    rain = state.weather == "Rain"
    enemy = {q.hex for q in state.pieces.values() if q.side != p.side and q.status == "map"}
    grid = bdata().game_map.grid
    seen, todo = {p.hex}, deque([p.hex])
    while todo:
        h = todo.popleft()
        if h == hq_hex:
            return True
        for n in grid.neighbours(h):
            if n in seen or n in enemy or not on_area(state, n):
                continue
            if step_cost(h, n, cls, rain).mp == PROHIBITED:
                continue
            seen.add(n)
            todo.append(n)
    return False


def support(state: BcsState, side: str, uid: str, on: bool, ctx: Context) -> None:
    """'support UNIT' (9.2d, 9.2e) or 'concentrate UNIT' (9.2f)."""
    _check_phase(state, side, "BCS-9.2d", "units change into or out of Support only in the "
                                          "Assignment Phase")
    p = _own(state, side, uid, "BCS-9.2e" if on else "BCS-9.2f")
    _first_turn(state, p, f"{uid} cannot change into or out of Support")
    form = state.formations.get(p.formation)
    if form is None:
        raise IllegalOrder(f"{uid} is unassigned: Support goes with a Formation's HQ",
                           rule="BCS-9.2e")
    hq = state.pieces[form.hq]
    name = _name(form.id)
    if not on:
        if p.status != "support":
            raise IllegalOrder(f"{uid} is not in Support", rule="BCS-9.2f")
        if bdata().units[uid].support_only:
            raise IllegalOrder(f"{uid} has only a Support side: it is permanently in Support",
                               rule="BCS-9.2a-1")
        if hq.status != "map":
            raise IllegalOrder(f"{name}'s HQ is not on the map: the unit re-concentrates in its "
                               f"hex", rule="BCS-9.2f")
        if combat_count(state, hq.hex) >= 2:
            raise IllegalOrder(f"{hq.hex} holds two combat units: {uid} cannot re-concentrate "
                               f"there", rule="BCS-9.2f")
        p.status, p.hex, p.face, p.start, p.dropped = "map", hq.hex, "move", hq.hex, False
        ctx.log(f"A unit of {name} re-concentrates from Support in {hq.hex}", hexes=(hq.hex,))
        ctx.log(f"{uid} leaves Support: Move side up in {hq.hex} (9.2f)", visible_to=side)
        return
    from pbem.games.bcs.support import may_enter_support
    why = may_enter_support(state, p)
    if why:
        text, _, rule = why.rpartition(" (")
        raise IllegalOrder(text, rule=rule.rstrip(")").split(",")[0].strip() or "BCS-9.2a-1")
    if p.status == "pool":
        raise IllegalOrder(f"{uid} is unassigned: Support goes with a Formation's HQ",
                           rule="BCS-9.2e")
    arriving = p.status == "off" and p.arrives == state.turn
    if not arriving:
        if p.status != "map":
            raise IllegalOrder(f"{uid} is not on the map", rule="BCS-9.2e")
        if hq.status != "map" or not reaches_hq(state, p, hq.hex):
            raise IllegalOrder(f"{uid} could not move to {name}'s HQ hex on its Move side "
                               f"(terrain, enemy units)", rule="BCS-9.2e")
    was = p.hex
    had = any(q.status == "support" and q.formation == form.id for q in state.pieces.values())
    _into_support(p)
    ctx.log(f"A unit of {name} goes into Support", hexes=(was,) if was else ())
    ctx.log(f"{uid} goes into Support of {name}, its {p.face.capitalize()} side showing (9.2e)",
            visible_to=side)
    if not had:
        _cannot_get_to(state, form, ctx)


def _cannot_get_to(state: BcsState, form: FormationState, ctx: Context) -> None:
    """9.2i b: a Formation without Support assigns new Support; each of its units that could
    have it but that it 'cannot get to' (out of Command Radius, or no Support Establishment Safe
    Path) gets a Dropped Support marker."""
    from pbem.games.bcs.support import eligible, may_restore
    for q in sorted(state.pieces.values(), key=lambda q: q.id):
        if q.formation != form.id or q.kind != "unit" or q.status != "map" or q.dropped:
            continue
        if eligible(q) and not may_restore(state, q):
            q.dropped = True
            ctx.log(f"{q.hex}: a Dropped Support marker (the new Support cannot get to it, "
                    f"9.2i)", hexes=(q.hex,))
            ctx.log(f"{q.id} in {q.hex}: a Dropped Support marker (the new Support cannot get "
                    f"to it, 9.2i)", hexes=(q.hex,), visible_to=q.side)


# -- independents and Arty Asset Points (8.0d, 9.1k, 9.5) ----------------------------------------

def assign(state: BcsState, side: str, uid: str, fid: str, ctx: Context) -> None:
    """'assign UNIT to F' (9.5: unassigned when the phase began, the receiving Trains Legal,
    placed in the HQ's hex) or 'unassign UNIT' (the losing Trains Legal, taken off the map)."""
    _check_phase(state, side, "BCS-9.1k", "independent units are assigned only in the "
                                          "Assignment Phase")
    p = _own(state, side, uid, "BCS-9.5-1")
    if not _independent(p):
        raise IllegalOrder(f"{uid} is not an independent unit", rule="BCS-9.5-1")
    _first_turn(state, p, f"{uid} cannot be {'assigned' if fid else 'unassigned'}")
    if not fid:
        if not p.formation or p.status == "dead":
            raise IllegalOrder(f"{uid} is not assigned", rule="BCS-9.5-2")
        form = state.formations[p.formation]
        _legal(state, form, "BCS-9.5-2", "lose an asset")
        p.formation, p.status, p.hex, p.dropped = "", "pool", "", False
        ctx.log(f"{uid} is unassigned from {_name(form.id)} and leaves the map (9.5)")
        return
    if uid not in state.unassigned:
        raise IllegalOrder(f"{uid} was not unassigned when the Assignment Phase began",
                           rule="BCS-9.5-1")
    form = _own_formation(state, side, fid, "BCS-9.5-1")
    _legal(state, form, "BCS-9.5-1", "accept an assignment")
    hq = state.pieces[form.hq]
    if hq.status != "map":
        raise IllegalOrder(f"{_name(fid)}'s HQ is not on the map", rule="BCS-9.5-1")
    if combat_count(state, hq.hex) - (1 if p.status == "map" and p.hex == hq.hex else 0) >= 2:
        raise IllegalOrder(f"{hq.hex} holds two combat units: {uid} cannot be placed there",
                           rule="BCS-9.5-1")
    p.formation, p.status, p.hex, p.start, p.joined = fid, "map", hq.hex, hq.hex, True
    state.unassigned.remove(uid)
    ctx.log(f"{uid} is assigned to {_name(fid)} and placed in {hq.hex} (9.5)", hexes=(hq.hex,))


SEEN_ARTY = "seen arty"          # a sealed game's projection of an Arty Asset Points order


class SeenArty(msgspec.Struct, frozen=True, tag="seen-arty"):
    """'assign arty N to F' or 'unassign arty N from F' as the other side sees it in a sealed
    game ('seen arty'): neither the points nor the HQ (1.5b, 8.0d: hidden, as in a hosted
    game, whose referee tells the enemy nothing of it); the owner's ``S.arty`` fact, committed,
    holds them, and the final replay checks the real order."""


def _check_arty_phase(state: BcsState, side: str) -> None:
    """What anyone may check of an Arty Asset Points order: its phase and its turn."""
    _check_phase(state, side, "BCS-8.0d", "Arty Asset Points are assigned only in the "
                                          "Assignment Phase")
    if state.turn == 1 and not any(a.arrives == state.date and a.side == side for a in ASSETS):
        raise IllegalOrder("Arty Asset Points: on a scenario's first turn the Assignment Phase "
                           "serves newly arriving reinforcements only", rule="BCS-2.1-1c")


def seen_arty(state: BcsState, side: str, ctx: Context) -> None:
    """'seen arty' on the other side's processor: the public checks, nothing else (its points
    stay unknown there: total_arty). A player's own Arty orders name their points."""
    if side not in state.concealed:
        raise IllegalOrder("'seen arty' is the other side's view of an Arty Asset Points order; "
                           "yours is 'assign arty N to F' or 'unassign arty N from F'",
                           rule="PBEM-SEALED")
    _check_arty_phase(state, side)


def arty(state: BcsState, side: str, points: int, fid: str, give: bool, ctx: Context) -> None:
    """'assign arty N to F' / 'unassign arty N from F' (8.0d, 9.5; BbF 3.2a: the Divarty's
    points all together). Private to the owner (1.5b)."""
    _check_arty_phase(state, side)
    form = _own_formation(state, side, fid, "BCS-8.0d")
    priv = state.private[side]
    together = any(a.side == side and a.together for a in ASSETS)
    if give:
        if points > priv.arty_free:
            raise IllegalOrder(f"{points} Arty Asset Points: {priv.arty_free} were unassigned "
                               f"when the Assignment Phase began", rule="BCS-9.5-1")
        if together and points != priv.arty_free:
            raise IllegalOrder(f"the 9 ID Divarty's {priv.arty_free} Arty Points are assigned "
                               f"all together to a single Formation", rule="BBF-3.2a")
        _legal(state, form, "BCS-9.5-1", "accept an assignment")
        priv.arty_free -= points
        priv.arty_pool -= points
        priv.arty_assigned[fid] = priv.arty_assigned.get(fid, 0) + points
        ctx.log(f"{points} Arty Asset Points assigned to {_name(fid)} (8.0d)", visible_to=side)
        return
    have = priv.arty_assigned.get(fid, 0)
    if points > have:
        raise IllegalOrder(f"{_name(fid)} has {have} Arty Asset Points", rule="BCS-8.0d")
    if together and points != have:
        raise IllegalOrder(f"the 9 ID Divarty's {have} Arty Points are unassigned all together",
                           rule="BBF-3.2a")
    _legal(state, form, "BCS-9.5-2", "lose an asset")
    priv.arty_pool += points
    if have == points:
        del priv.arty_assigned[fid]
    else:
        priv.arty_assigned[fid] = have - points
    ctx.log(f"{points} Arty Asset Points unassigned from {_name(fid)} (8.0d)", visible_to=side)


def formation_destroyed(state: BcsState, fid: str, ctx: Context) -> None:
    """A destroyed Formation (9.1i, 10.5): its Arty Asset Points return to the pool, its
    assigned independents are removed from play, never rebuilt (9.5, errata v1.2), and so are
    its units partly rebuilt in the Dead Pile, their Repls wasted (9.4c)."""
    form = state.formations[fid]
    priv = state.private[form.side]
    for uid in sorted(u for u in priv.rebuilding if state.pieces[u].formation == fid):
        state.pieces[uid].steps = priv.rebuilding.pop(uid)    # removed from play: > 0 steps
        ctx.log(f"{uid}, partly rebuilt in the Dead Pile, is removed from play: its Repls are "
                f"wasted (9.4c)", visible_to=form.side)
    n = priv.arty_assigned.pop(fid, 0)
    if n:
        priv.arty_pool += n
        ctx.log(f"{n} Arty Asset Points of {_name(fid)} return to the pool (9.5)",
                visible_to=form.side)
    for p in sorted(state.pieces.values(), key=lambda q: q.id):
        if p.formation == fid and p.kind == "unit" and _independent(p) and p.status != "dead":
            p.status, p.hex = "dead", ""
            p.steps = max(p.steps, 1)      # removed from play: not in the dead pile (9.4c)
            ctx.log(f"{p.id}, assigned to {_name(fid)}, is removed from play (9.5)")


# -- Rommel (BbF 2.1) -----------------------------------------------------------------------------

def rommel(state: BcsState, side: str, box: str, ctx: Context) -> None:
    """'rommel BOX': Rommel in the DAK, 10 Pz or 21 Pz box for the whole turn (BbF 2.1)."""
    _check_phase(state, side, "BBF-2.1-a", "Rommel is placed only in the Assignment Phase")
    if side != "axis":
        raise IllegalOrder("Rommel is the Axis player's", rule="BBF-2.1-a")
    if not rommel_here(state):
        raise IllegalOrder(f"Rommel arrives on {ROMMEL_FROM}", rule="BBF-2.1-a")
    f = bdata().formations.get(box)
    if box == "centauro" or (f is not None and "Centauro" in f.division):
        raise IllegalOrder("Rommel can never be assigned to the Italian Centauro Division",
                           rule="BBF-2.1-c")
    if box not in ROMMEL_BOXES:
        raise IllegalOrder(f"{box!r} is not a box of the 'Rommel Will Affect' display (dak, "
                           f"10pz, 21pz)", rule="BBF-2.1-a")
    if state.turn == 1:
        allowed = [SCENARIO_BOXES.get(b, b) for b in bdata().scenarios[state.scenario].rommel]
        if state.options.get("rommel_first_turn") == "assignment_phase_only":
            raise IllegalOrder("Rommel: a scenario's first turn has no Assignment Phase",
                               rule="BCS-2.1-1c")
        if allowed and box not in allowed:
            raise IllegalOrder(f"at the start of this scenario Rommel affects "
                               f"{' or '.join(allowed)}", rule="BBF-2.1-a")
    state.rommel = box
    ctx.log(f"Rommel will affect {ROMMEL_BOXES[box]} this turn (BbF 2.1)")


# -- set-up (1.4F) --------------------------------------------------------------------------------

def setup_assets(state: BcsState) -> None:
    """The set-up's assets (1.4E, 1.4F): units listed 'in Support' go into Support of their
    Formation (no hex), independents listed 'assigned to' a Formation join it, Support-only
    units and first-turn arrivals listed in Support arrive in Support, the first date's Arty
    Asset Points join the pool; a scenario that begins once Rommel has arrived opens with the
    Axis placing him (BBF-G18)."""
    from pbem.games.bcs.setup import arrivals
    scen = bdata().scenarios[state.scenario]
    for p in scen.setup:
        pc = state.pieces.get(p.counter)
        if pc is None:
            continue
        if p.assigned_to:
            pc.formation = p.assigned_to
        if p.support or (pc.kind == "unit" and bdata().units[pc.id].support_only):
            _into_support(pc)
    arrive_in_support(state, arrivals(scen), None)
    for a in ASSETS:
        if _day(a.arrives) <= _day(state.date):
            state.private[a.side].arty_pool += a.points
    if rommel_due(state) and state.options.get("rommel_first_turn",
                                               "allowed_from_19_feb") == "allowed_from_19_feb":
        open_phase(state)
        state.assigning = ["axis"]
        state.phase, state.next_side = "assignment", "axis"
