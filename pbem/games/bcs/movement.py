"""Movement (5.0) with the ZOC and Engagement Zone effects on it (6.0, 6.1c): check, then move.

Every check is made before anything changes; IllegalOrder names the rule.
"""

from __future__ import annotations

from math import gcd

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import (at, bdata, combat_count, enemy_in, entry_hexes, is_combat,
                                  mclass, on_area, printed_ma)
from pbem.games.bcs import mines, screens
from pbem.games.bcs.hq_retreat import may_jump
from pbem.games.bcs.reactions import lookup
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.command import exempt, heads_away, hq_distance, radius, safe_path
from pbem.games.bcs.snafu import effect
from pbem.games.bcs.state import BcsState, Piece, arrival_group
from pbem.games.bcs.terrain import PROHIBITED, hex_row, is_road_hex, step_cost
from pbem.games.bcs.terrain import StepCost
from pbem.games.bcs.state import MP12
from fractions import Fraction
from itertools import combinations
from pbem.games.bcs.zoc import av_zone, engagement_zone, ezoc
from pbem.games.bcs import support


def current_ma(state: BcsState, p: Piece) -> int:
    """The MA in MP12 for this Activation: halved once for a Partial SNAFU or, with a Pass, for
    Truck MA on Rain turns (Mud, option snafu_mud); fractions kept (5.1f). Fail: no movement."""
    act = state.activation
    assert act is not None
    full = printed_ma(p) * 12
    move = effect(act.snafu, "Movement?")
    if move == "No":
        return 0
    half = move == "1/2 MA" or (mclass(p) == "truck" and state.weather == "Rain"
                                 and state.options.get("snafu_mud", "rain_is_mud") == "rain_is_mud")
    return full // 2 if half else full


class Walk:
    """One unit walked along a path: MP12 spent, where it ends and the STOP it executed."""

    def __init__(self, hex_id: str, mp: int, stopped: str) -> None:
        self.hex, self.mp, self.stopped = hex_id, mp, stopped
        self.entered: list[str] = []
        self.breach = ""          # the unbreached minefield hex it breaches (BbF 3.1b)


def walk(state: BcsState, p: Piece, path: list[str], moving: set[str]) -> Walk:
    """Check one unit's move along the path (the unit's own hex may come first) and return the
    result; IllegalOrder with the rule otherwise. ``moving`` are the stack's ids (5.1g-4)."""
    w = walk_steps(state, p, path, moving)
    if p.kind == "hq" and not is_road_hex(w.hex):
        raise IllegalOrder(f"an HQ ends its move in a non-railroad road hex, not {w.hex}",
                           rule="BCS-5.4d")
    return w


def walk_steps(state: BcsState, p: Piece, path: list[str], moving: set[str]) -> Walk:
    """walk without the checks of where a move ends (an HQ on a road): whether the path can
    be walked so far (the search of a destination-only move goes on from it)."""
    gm = bdata().game_map
    side, cls, rain = p.side, mclass(p), state.weather == "Rain"
    ma = current_ma(state, p)
    if p.status == "off":
        start = path[0]
        if start not in entry_hexes(state, p):
            raise IllegalOrder(f"{p.id} enters only by {', '.join(p.entry)} "
                               f"({', '.join(entry_hexes(state, p)) or 'no hex in play'}), "
                               f"not {start}", rule="BCS-9.3-1")
        if enemy_in(state, side, start):
            raise IllegalOrder(f"{start} holds an enemy unit", rule="BCS-5.4f")
        if mines.closed(state, p, start):
            raise IllegalOrder(f"{start} is an unbreached Minefield: no Axis unit enters the map "
                               f"there", rule="BBF-3.1b-1")
        w = Walk(start, 0, "")
        w.entered.append(start)
        steps = path[1:]
        first_step = True
    else:
        w = Walk(p.hex, p.mp, p.stopped)
        steps = path[1:] if path[0] == p.hex else path
        first_step = not p.moved
    if not steps and p.status != "off":
        raise IllegalOrder(f"{p.id}: the path enters no hex", rule="BCS-5.1-1")
    skip = screens.ignored(state, p, steps)
    for i, b in enumerate(steps):
        a = w.hex
        if w.stopped:
            raise IllegalOrder(f"{p.id} has stopped in {a} and cannot move on", rule=w.stopped)
        if not gm.grid.is_hex(b) or not gm.grid.adjacent(a, b):
            raise IllegalOrder(f"{b} is not adjacent to {a}: a path is contiguous hexes "
                               f"(adjacent: {', '.join(sorted(gm.grid.neighbours(a)))})",
                               rule="BCS-5.1-1")
        if not on_area(state, b):
            raise IllegalOrder(f"{b} is outside the playing area (maps "
                               f"{', '.join(bdata().scenarios[state.scenario].playing_area)})",
                               rule="BCS-1.1d")
        if enemy_in(state, side, b) and screens.may_enter(state, p, b):
            # only whether it can retreat: where is asked once the whole move is checked
            # (screens.displace); a question here would stop the check at this hex
            if not screens.retreat_spots(state, next(q for q in at(state, b) if q.side != side),
                                         a):
                raise IllegalOrder(f"the Screening unit in {b} has no hex to retreat to",
                                   rule="BBF-1.5d-2")
        elif enemy_in(state, side, b) and not may_jump(state, p, b):
            if not any(q.kind == "unit" and q.side != side for q in at(state, b)) and p.screen:
                raise IllegalOrder(f"{p.id} is Screening: it does not make enemy HQs or Combat "
                                   f"Trains retreat", rule="ERR-BBF-1")
            if not any(q.kind == "unit" and q.side != side for q in at(state, b)):
                raise IllegalOrder(f"{b} holds only an enemy HQ or Combat Trains, which only a "
                                   f"Prepared combat unit makes retreat", rule="BCS-9.1f-1")
            raise IllegalOrder(f"{b} holds an enemy unit", rule="BCS-5.4f")
        if b in state.control and state.control[b] != side and b not in state.objs:
            raise IllegalOrder(f"{b} is an enemy-controlled Victory hex without a friendly OBJ",
                               rule="BBF-4.1-c")
        breach = mines.closed(state, p, b)
        if breach:                     # BbF 3.1b: an Axis unit enters it only to breach it
            mines.check_breach(state, p, b, moving, last=i == len(steps) - 1)
        # TEC note 2: no road negates an unbreached minefield
        cost = off_road_cost(a, b, cls, rain) if breach else step_cost(a, b, cls, rain)
        if cost.mp == PROHIBITED:
            raise IllegalOrder(f"{p.id} ({cls}) cannot enter {b} from {a}: prohibited terrain",
                               rule="BCS-5.2c")
        if cost.road and unit_traffic(state, p, b, moving):      # optional 5.1h
            cost = off_road_cost(a, b, cls, rain)
            if cost.mp == PROHIBITED:
                raise IllegalOrder(f"{p.id} ({cls}) cannot enter {b} from {a}: Unit Traffic there "
                                   f"takes away the road, and the terrain is prohibited",
                                   rule="BCS-5.1h-2")
        if step_cost(b, a, cls, rain).mp == PROHIBITED:
            raise IllegalOrder(f"{p.id} ({cls}) could not move back from {b} to {a}, so it "
                               f"cannot move from {a} to {b}", rule="BCS-5.1d")
        za = "" if p.status == "off" and a == path[0] else ezoc(state, side, a, skip)  # 9.3f
        zb = ezoc(state, side, b, skip)
        if p.kind == "hq":
            if zb:
                raise IllegalOrder(f"an HQ never enters an enemy ZOC ({b})", rule="BCS-6.0f")
            if engagement_zone(state, side, b):
                raise IllegalOrder(f"an HQ never enters an enemy Engagement Zone ({b})",
                                   rule="BCS-6.1c-2")
        if za and zb:
            if cls in ("leg", "truck"):
                raise IllegalOrder(f"{p.id} ({cls}) cannot move from one enemy ZOC hex ({a}) "
                                   f"directly into another ({b})", rule="BCS-6.0g-1")
            if av_zone(za) or av_zone(zb):                         # 6.0h: Real or Support
                raise IllegalOrder(f"{p.id} (tac) moves directly from EZOC to EZOC only between "
                                   f"non-AV EZOCs ({a} to {b})", rule="BCS-6.0g-2")
        if b in state.traffic and combat_count(state, b) - _stack_in(state, b, moving) >= 2:
            raise IllegalOrder(f"{b} has a Traffic Stopped marker and two units already",
                               rule="BCS-5.1g-4")
        mp = cost.mp + screens.zone_cost(state, p, b)                    # BbF 1.5e, Optional 8
        if breach:                     # the TEC's minefield row: the rest of its MA ("all")
            if w.mp >= ma and not (first_step and ma > 0):
                raise IllegalOrder(f"{p.id} has no MP left to breach the Minefield in {b}",
                                   rule="BCS-5.1b")
            mp = max(ma - w.mp, 0)
            w.breach = b
        if w.mp + mp > ma:
            if not (first_step and ma > 0):
                raise IllegalOrder(f"{p.id} has {_mp(ma - w.mp)} MP left, entering {b} costs "
                                   f"{_mp(mp)}", rule="BCS-5.1b")
        w.mp += mp
        w.hex = b
        w.entered.append(b)
        first_step = False
        if cost.stop:
            w.stopped = "BCS-5.2e"
        elif b in state.traffic:
            w.stopped = "BCS-5.1g-1"
        elif zb and cls in ("leg", "truck"):
            w.stopped = "BCS-6.0g-1"
        elif av_zone(zb) and cls == "tac":          # Real or Support AV EZOC (6.0h, 6.0i-2)
            w.stopped = "BCS-6.0h-2"
        elif cls == "truck" and engagement_zone(state, side, b):
            w.stopped = "BCS-6.1c-1"
    return w


def unit_traffic(state: BcsState, p: Piece, hex_id: str, moving: set[str]) -> bool:
    """Optional Unit Traffic (5.1h, house option unit_traffic) in a hex a unit enters: a unit
    of the active Formation showing its Move side (or its HQ) that has completed its move, or a
    combat unit of an inactive friendly Formation, Buddies included (4.1c note; BbF 1.3 as
    printed exempts them: option buddies_traffic = buddies_exempt). Combat Trains, unassigned
    independents and the moving stack itself make none; Screening units are not affected
    (errata v1.2 to BbF 1.5)."""
    from pbem.games.bcs.mixing import buddies

    act = state.activation
    if not state.options.get("unit_traffic") or p.screen or act is None:
        return False
    exempt_buddies = state.options.get("buddies_traffic") == "buddies_exempt"
    for q in at(state, hex_id):
        if q.side != p.side or q.kind == "trains" or q.id in moving:
            continue
        if q.kind == "unit" and bdata().units[q.id].independent and not q.formation:
            continue
        if q.formation == act.formation:
            done = q.done_moving or q.finished or (q.moved and q.id not in act.stack)
            if done and (q.kind == "hq" or q.face == "move"):
                return True
        elif q.kind == "unit" and not (exempt_buddies and buddies(q.formation, p.formation)):
            return True
    return False


def off_road_cost(a: str, b: str, cls: str, rain: bool) -> StepCost:
    """Entering b from a without the road's benefit (5.1h): the hex's own cost plus every
    hexside feature; 'P' (hex or hexside) prohibits, STOP terrain costs 4 MP and stops."""
    d = bdata()
    c = mp_cost(d.terrain[hex_row(b)], cls, rain)
    if c == "P":
        return StepCost(PROHIBITED, False, False, "BCS-5.1h-2")
    stop = c == "STOP"
    mp = 4 * MP12 if stop else int(Fraction(c) * MP12)
    for kind in sorted(d.game_map.hexside(a, b)):
        hc = mp_cost(d.terrain[kind], cls, rain)
        if hc == "P":
            return StepCost(PROHIBITED, False, False, "BCS-5.1h-2")
        mp += int(Fraction(str(hc)[1:]) * MP12)
    return StepCost(mp, stop, False, "BCS-5.1h-2")


def _stack_in(state: BcsState, hex_id: str, moving: set[str]) -> int:
    return sum(1 for u in moving if state.pieces[u].hex == hex_id and state.pieces[u].kind == "unit"
               and state.pieces[u].status == "map")


def _mp(v: int) -> str:
    """MP kept in twelfths (halving for Partial SNAFU and terrain thirds), as a player reads
    them: '2', '2/3', '1 1/2'."""
    whole, rest = divmod(v, 12)
    if not rest:
        return str(whole)
    g = gcd(rest, 12)
    frac = f"{rest // g}/{12 // g}"
    return f"{whole} {frac}" if whole else frac


def check_move(state: BcsState, side: str, units: list[str], path: list[str]) -> dict[str, Walk]:
    """Check a move order: the active player moves the active Formation's units (5.4a, 3.3a), one
    stack at a time (3.3b, 3.3c), under the SNAFU result; each unit walks the path."""
    pieces = check_stack(state, side, units)
    walks = {p.id: walk(state, p, path, set(units)) for p in pieces}
    for p in pieces:
        _command_radius(state, p, walks[p.id].hex)
        _hq_leaves(state, p, walks[p.id].hex, units)
    end = next(iter(walks.values())).hex
    moving = [p for p in pieces if p.kind == "unit"]
    there = combat_count(state, end) - sum(1 for p in moving if p.status == "map" and p.hex == end)
    if moving and there + len(moving) > 2 and any(p.status == "off" for p in moving):
        raise IllegalOrder(f"{end} would hold {there + len(moving)} combat units: reinforcements "
                           f"are never placed overstacked", rule="BCS-5.5d-2")
    return walks


def check_stack(state: BcsState, side: str, units: list[str]) -> list[Piece]:
    """The checks of a move order that do not depend on its path (who moves, whether they may
    move now, one stack from one hex): the moving pieces, else IllegalOrder."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side:
        raise IllegalOrder("only the active player moves, in his Activation's Activities step",
                           rule="BCS-5.4a")
    pieces = []
    for uid in units:
        p = state.pieces.get(uid)
        if p is None or p.side != side:
            raise IllegalOrder(f"{uid} is not one of your units", rule="BCS-5.4a")
        if p.formation != act.formation:
            raise IllegalOrder(f"{uid} is not of the active Formation {act.formation}",
                               rule="BCS-3.3a")
        if p.status == "dead":
            raise IllegalOrder(f"{uid} is not in play", rule="BCS-3.3a")
        if p.kind == "trains":
            raise IllegalOrder("Combat Trains are placed, not moved (10.3b): not yet implemented",
                               rule="BCS-10.3b-1")
        if p.status == "off" and p.arrives > state.turn:
            raise IllegalOrder(f"{uid} arrives on turn {p.arrives}", rule="BCS-9.3-1")
        pieces.append(p)
    if act.recovery:
        raise IllegalOrder("a Recovery Activation moves no unit", rule="BCS-10.4c-2")
    if effect(act.snafu, "Movement?") == "No":
        raise IllegalOrder(f"SNAFU {act.snafu}: no movement this Activation", rule="BCS-CHT-SRE-2")
    if p_prepared(state, pieces):
        raise IllegalOrder("an HQ with Prepared Defense cannot move", rule="BCS-4.5-3")
    starts = {p.hex if p.status == "map" else "off" for p in pieces}
    if len(starts) != 1:
        raise IllegalOrder("a stack moves from one hex: " + ", ".join(
            f"{p.id} {p.hex or 'off map'}" for p in pieces), rule="BCS-5.1-1")
    for p in pieces:
        if p.finished:
            raise IllegalOrder(f"{p.id} is Finished", rule="BCS-3.3d")
        if p.done_moving or (p.moved and p.id not in act.stack):
            raise IllegalOrder(f"{p.id}'s stack has finished its move (another stack has moved "
                               f"since, or it was dropped off)", rule="BCS-3.3c")
    return pieces


def _command_radius(state: BcsState, p: Piece, end: str) -> None:
    """4.2f, 5.4e: a unit that began the Activation in Command Radius ends its move in radius
    (or back in its starting hex); one that began outside moves back toward its HQ (ending
    nearer than it began) or stays where it began. HQs, Trains, exempt units and reinforcements
    still catching up (9.3g) are free."""
    if p.kind != "unit" or not p.joined or exempt(p) or not p.start or end == p.start:
        return
    start_d, end_d = hq_distance(state, p, p.start), hq_distance(state, p, end)
    if start_d is None or end_d is None:
        return
    r = radius(state, p)
    if start_d <= r < end_d:
        raise IllegalOrder(f"{p.id} would end {end_d} hexes from its HQ, outside Command "
                           f"Radius {r}", rule="BCS-4.2f-1")
    if heads_away(state, p, end):
        raise IllegalOrder(f"{p.id} began {start_d} hexes from its HQ, outside Command Radius "
                           f"{r}: it moves back toward it ({end_d} is no nearer)",
                           rule="BCS-5.4e")


def _hq_leaves(state: BcsState, hq: Piece, end: str, moving: list[str]) -> None:
    """4.2f: units end the Activation in Command Radius, measured from where the HQ ends; an
    HQ may not move so that a unit of its Formation that has left its starting hex (its move is
    over: another stack is moving now) and is in radius falls out of it."""
    if hq.kind != "hq" or hq.status != "map":
        return
    grid = bdata().game_map.grid
    for q in sorted(state.pieces.values(), key=lambda q: q.id):
        if q.formation != hq.formation or q.kind != "unit" or q.status != "map" \
                or q.id in moving or q.hex == q.start or not q.joined or exempt(q):
            continue
        r = radius(state, q)
        if grid.distance(hq.hex, q.hex) <= r < grid.distance(end, q.hex):
            raise IllegalOrder(f"{hq.id} would leave {q.id} (in {q.hex}) outside Command Radius "
                               f"{r}", rule="BCS-4.2f-1")


def p_prepared(state: BcsState, pieces: list[Piece]) -> bool:
    """Whether an HQ among the pieces has Prepared Defense (4.5b)."""
    return any(p.kind == "hq" and state.formations[p.formation].prepared_defense for p in pieces)


def do_move(state: BcsState, side: str, units: list[str], walks: dict[str, Walk],
            ctx: Context | None = None) -> list[str]:
    """Apply a checked move: earlier stacks (and units dropped off) finish their move, the units
    go to the end hex with their MP spent and STOP; returns the hexes entered. Dropped Support
    markers are placed and removed as 9.2i says (logged when ctx is given)."""
    act = state.activation
    assert act is not None
    for uid in act.stack:
        if uid not in units:
            state.pieces[uid].done_moving = True
    act.stack = list(units)
    act.began = True
    entered: list[str] = []
    for uid, w in walks.items():
        p = state.pieces[uid]
        if p.status == "off":
            used = act.entries.setdefault(arrival_group(p), [])
            if w.entered[0] not in used:
                used.append(w.entered[0])
        start = p.hex
        if p.kind == "unit":
            p.trail = [*(trail_of(p) if start else []), *w.entered]
        p.status, p.hex, p.mp, p.stopped, p.moved = "map", w.hex, w.mp, w.stopped, True
        entered = w.entered
        if w.breach:
            mines.breach(state, p, w.breach, ctx)                                # BbF 3.1b
        support.drop_on_path(state, p, ([start] if start else []) + w.entered, ctx)    # 9.2i a
    support.restore(state, ctx)                                                   # 9.2i
    return entered


def flip_allowed(state: BcsState, side: str, uid: str) -> Piece:
    """Check a flip (5.6a, 5.6c): a two-sided unit of the active Formation, before the Activities
    begin, once per Activation; a Leg side turns Tac/Truck only where that class may be and
    within Command Radius, with a Safe Path of that class. Returns the unit."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side:
        raise IllegalOrder("units flip only in their own Activation", rule="BCS-5.6a")
    p = state.pieces.get(uid)
    # 9.3h: a unit due to enter by an Entry hex may enter on either side
    arriving = p is not None and p.status == "off" and p.kind == "unit" \
        and p.arrives <= state.turn and bool(entry_hexes(state, p))
    if p is not None and p.side == side and p.status == "off" and p.arrives > state.turn:
        raise IllegalOrder(f"{uid} arrives on turn {p.arrives}", rule="BCS-9.3-1")
    if p is None or p.side != side or p.kind != "unit" or (p.status != "map" and not arriving):
        raise IllegalOrder(f"{uid} is not one of your units on the map", rule="BCS-5.6a")
    if p.formation != act.formation:
        raise IllegalOrder(f"{uid} is not of the active Formation", rule="BCS-3.3a")
    u = bdata().units[uid]
    if u.deployed is None:
        raise IllegalOrder(f"{uid} has one side only", rule="BCS-1.2b-1")
    if act.began:
        raise IllegalOrder("units flip only before the Activities begin", rule="BCS-5.6a")
    if p.flipped:
        raise IllegalOrder(f"{uid} has flipped in this Activation already", rule="BCS-5.6a")
    now = u.deployed if p.face == "deployed" else u.move
    new = u.move if p.face == "deployed" else u.deployed
    if now.mclass == "leg" and new.mclass != "leg" and not arriving:
        if mp_cost(bdata().terrain[hex_row(p.hex)], new.mclass, state.weather == "Rain") == "P":
            raise IllegalOrder(f"{uid} cannot turn {new.mclass} in {p.hex}: terrain prohibited "
                               f"to that class", rule="BCS-5.6c")
        hq = state.pieces[state.formations[p.formation].hq]
        radius = bdata().hqs[hq.id].command_radius
        if hq.status != "map" or bdata().game_map.grid.distance(hq.hex, p.hex) > radius:
            raise IllegalOrder(f"{uid} is out of Command Radius ({radius} hexes of its HQ)",
                               rule="BCS-5.6c")
        if not safe_path(state, p, new.mclass):         # traced as the new side (BCS-1.6-SP-2)
            raise IllegalOrder(f"{uid} has no {new.mclass.capitalize()} Safe Path to its HQ",
                               rule="BCS-5.6c")
    return p


def restack(state: BcsState, side: str, ctx: Context,
            picks: list[tuple[list[str], int]] | None = None) -> None:
    """5.5d: stacking is enforced at the end of the Activation: from a hex holding more than two
    of the side's combat units the owner steps back his choice of the excess units (the topic
    `restack`: his standing order, else he is asked, the sets of units he may choose offered),
    each one hex at a time back the way it came (its trail) to the first hex allowing legal
    stacking; where its trail is used up or blocked, the neighbour nearest where it began the
    Activation (then the emptier, then the id). Mode `moved`: the units that moved in this
    Activation first, then by id. The owner names the hexes himself with `back` before `end`.
    picks: when given, gets each `moved` pick made, (the hex's combat units, how many step back)
    (a sealed game opens the units whose ids decided it, sealed._restack_reveals)."""
    for h in overstacked(state, side):
        choices = excess_choices(state, h)
        pick = lookup(state, side, "restack", lambda: choices, h) if len(choices) > 1 \
            else "moved"
        if pick in choices:
            chosen = [state.pieces[u] for u in pick.split("+")]
        else:
            units = _combat_in(state, h)
            chosen = sorted(units, key=lambda q: (not q.moved, q.id))[:len(units) - 2]
            if picks is not None:
                picks.append(([q.id for q in units], len(chosen)))
        for p in chosen:
            _step_back(state, p, _engine_path(state, p), ctx)


def overstacked(state: BcsState, side: str) -> list[str]:
    """The hexes holding more than two of side's combat units (5.5a)."""
    return sorted({p.hex for p in state.pieces.values() if p.side == side and p.kind == "unit"
                   and p.status == "map" and combat_count(state, p.hex) > 2})


def _combat_in(state: BcsState, hex_id: str) -> list[Piece]:
    return sorted((p for p in at(state, hex_id) if is_combat(p)), key=lambda p: p.id)


def trail_of(p: Piece) -> list[str]:
    """The hexes a unit was in during this Activation, its start first and its hex last (an
    advance after combat, which moves it without a path, is added as the last step)."""
    t = list(p.trail) or ([p.start] if p.start else [])
    if p.hex and (not t or t[-1] != p.hex):
        t.append(p.hex)
    return t


def excess_choices(state: BcsState, hex_id: str) -> list[str]:
    """The owner's choices of excess units for an overstacked hex (5.5d), 'unit+unit' sorted:
    among the units that entered it in this Activation ("back" is the way a unit came), or
    among all when fewer entered than must go."""
    units = _combat_in(state, hex_id)
    excess = len(units) - 2
    came = [p for p in units if len(trail_of(p)) > 1]
    pool = came if len(came) >= excess else units
    return sorted("+".join(c) for c in combinations([p.id for p in pool], excess))


def enterable(state: BcsState, p: Piece, a: str, b: str) -> str:
    """Why the unit may not step from a into the adjacent b when it steps back (5.5d): "" when it
    may (in play, no enemy unit, not an unbreached Minefield closed to it, not Prohibited)."""
    if not bdata().game_map.grid.adjacent(a, b):
        return f"{b} is not next to {a}"
    if not on_area(state, b):
        return f"{b} is outside the playing area"
    if enemy_in(state, p.side, b):
        return f"{b} holds an enemy piece"
    if mines.closed(state, p, b):
        return f"{b} is an unbreached Minefield"
    if step_cost(a, b, mclass(p), state.weather == "Rain").mp == PROHIBITED:
        return f"{b} is Prohibited terrain for {p.id} ({mclass(p)})"
    return ""


def _next_back(state: BcsState, p: Piece, here: str, seen: set[str]) -> str:
    """The hex back along the unit's trail from here, when it may be entered ("" otherwise)."""
    t = trail_of(p)
    if here not in t:
        return ""
    i = len(t) - 1 - t[::-1].index(here)
    back = t[i - 1] if i > 0 else ""
    return back if back and back not in seen and not enterable(state, p, here, back) else ""


def _engine_path(state: BcsState, p: Piece) -> list[str]:
    """The engine's hexes back for an excess unit: back along its trail while it can, else the
    neighbour nearest where it began (then the emptier, then the id), until a hex allows legal
    stacking; as far as it gets."""
    grid = bdata().game_map.grid
    here, seen, path = p.hex, {p.hex}, []
    while not path or combat_count(state, here) >= 2:
        nxt = _next_back(state, p, here, seen)
        if not nxt:
            free = [n for n in grid.neighbours(here) if n not in seen
                    and not enterable(state, p, here, n)]
            if not free:
                break
            start = p.start or p.hex
            nxt = min(free, key=lambda n: (grid.distance(n, start), combat_count(state, n), n))
        path.append(nxt)
        seen.add(nxt)
        here = nxt
    return path


def check_back(state: BcsState, side: str, uid: str, path: list[str]) -> list[str]:
    """Check `back UNIT [HEX ...]` (5.5d): one of the owner's excess units of an overstacked hex
    in his Activities, stepped one hex at a time back the way it came while that hex may be
    entered (elsewhere any hex it may enter), each hex enterable, stopping at the first hex that
    allows legal stacking. Returns the hexes (the engine's when none are named)."""
    act = state.activation
    rule = "BCS-5.5d-3"
    if state.phase != "activities" or act is None or act.side != side:
        raise IllegalOrder("excess units step back in their owner's Activation", rule=rule)
    p = state.pieces.get(uid)
    if p is None or p.side != side or p.kind != "unit" or p.status != "map":
        raise IllegalOrder(f"{uid} is not one of your combat units on the map", rule=rule)
    if combat_count(state, p.hex) <= 2:
        raise IllegalOrder(f"{p.hex} is not overstacked: {uid} stays", rule=rule)
    if not any(uid in c.split("+") for c in excess_choices(state, p.hex)):
        raise IllegalOrder(f"{uid} did not enter {p.hex} in this Activation: an excess unit "
                           f"steps back the way it came", rule=rule)
    if not path:
        path = _engine_path(state, p)
        if not path:
            raise IllegalOrder(f"{uid} has no hex to step back to", rule=rule)
    _check_steps(state, p, path, rule)
    return path


def _check_steps(state: BcsState, p: Piece, path: list[str], rule: str) -> None:
    """Each hex of an owner's path back: enterable, the trail's hex back where there is one,
    none passed twice, and it stops at the first hex allowing legal stacking."""
    here, seen = p.hex, {p.hex}
    for i, b in enumerate(path):
        why = enterable(state, p, here, b) or (f"{b} is passed already" if b in seen else "")
        if why:
            raise IllegalOrder(f"{p.id} cannot step back from {here} to {b}: {why}", rule=rule)
        back = _next_back(state, p, here, seen)
        if back and b != back:
            raise IllegalOrder(f"{p.id} steps back the way it came: from {here} to {back}, not "
                               f"{b}", rule=rule)
        legal = combat_count(state, b) < 2
        if legal and i < len(path) - 1:
            raise IllegalOrder(f"{b} allows legal stacking: {p.id} stops there", rule=rule)
        if not legal and i == len(path) - 1:
            raise IllegalOrder(f"{b} holds two combat units already: {p.id} steps back further",
                               rule=rule)
        seen.add(b)
        here = b


def step_back(state: BcsState, side: str, uid: str, path: list[str], ctx: Context) -> None:
    """Apply `back UNIT [HEX ...]` (5.5d): checked, the unit steps back through the hexes; its
    move is over and it is Finished (it has retreated for stacking)."""
    path = check_back(state, side, uid, path)
    p = state.pieces[uid]
    _step_back(state, p, path, ctx)
    p.done_moving = p.finished = True


def _step_back(state: BcsState, p: Piece, path: list[str], ctx: Context) -> None:
    """Move the unit back through the hexes, each step logged (the unit to its owner only)."""
    for b in path:
        here, t = p.hex, trail_of(p)
        p.trail = t[:-1] if len(t) > 1 and t[-2] == b else [*t, b]     # back the way it came
        p.hex = b
        ctx.log(f"{p.id} moves back from {here} to {b} (5.5d: no more than 2 units at the end "
                f"of an Activation)", visible_to=p.side)
        ctx.log(f"a unit of the stack in {here} moves back to {b} (5.5d)", hexes=(here, b))
