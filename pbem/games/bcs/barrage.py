"""Barrage (8.0-8.2) and Attack by Fire (8.3): Arty and Air Points, Spotting, Suppression and
Destruction Missions, the Barrage Table.

A Barrage outside an Attack Sequence (`barrage HEX arty N spot UNIT`) uses one point and STOPs
its spotter; inside one (7.2 step 4, the `attack`/`shock` order's `suppress` or `barrage`
words) up to three, a Shock Attack one Air Point only (7.3b). Arty Points are the active HQ's
printed Intrinsic points and the Arty Asset Points assigned to it (8.0d, assignment.py) as the
SNAFU Result Effects chart allows them, each once per Activation (`Activation.arty_used`); Air Points are
the side's private pool (`SidePrivate.air_points`), spent for the turn and unaffected by SNAFU.
The points spent are told to both sides; what is left only to the owner. The dice are public,
each named by its hex and its place, never by the hidden unit it is rolled against.
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.assignment import irwin, total_arty
from pbem.games.bcs.board import at, bdata, face, held_entries, hq_entering, is_av
from pbem.games.bcs.combat import (can, check_activities, has_prepared_defense, in_obj_zone, lose,
                                   modifier)
from pbem.games.bcs.command import in_radius
from pbem.games.bcs.mines import barrage_drm
from pbem.games.bcs.orders import Fires
from pbem.games.bcs.shock import FIRE_EVENTS, check_fire_events_left, check_fire_stack, fire_event
from pbem.games.bcs.snafu import effect, off_map_entries
from pbem.games.bcs.state import BcsState, Piece, other
from pbem.games.bcs.support import check_stand_off, has_access
from pbem.games.bcs.zoc import VISIBILITY, clear_line

OUTSIDE = 1                  # 8.0: one Arty or Air Point outside an Attack Sequence
IRWIN = 2                    # BbF 3.2b: two Arty Points per target hex outside one, for the
                             # Formation holding the 9 ID Divarty (Air Points: still one)
INSIDE = 3                   # 8.0: up to three inside one
SHOCK_AIR = 1                # 7.3b: one Air Point in a Shock Attack, no Arty
SPOT = VISIBILITY            # 8.1a: within 4 hexes, along a line an Engagement Zone could use
ROWS = ("Hard Unit", "City", "Terrain and/or Prepared Defense", "All other Barrage")


def arty_points(state: BcsState, hex_id: str = "") -> int:
    """The active Formation's Arty Points left in this Activation (8.0a, 8.0b): the HQ's
    Intrinsic points and its Arty Asset Points (8.0d) as the SNAFU Result Effects chart allows
    them (BBF-G6: Pass all, Partial half rounded down, Fail none), less those used in this
    Activation; all of them for an Attack on hex_id from Off Map that the HQ waits to enter
    behind (9.3f as printed: 'its full complement of Arty Points')."""
    act = state.activation
    assert act is not None
    total = total_arty(state, act.formation)        # with its Arty Asset Points (8.0d)
    allowed = effect(act.snafu, "Arty Points?") if act.snafu else "None"
    if hex_id and hq_entering(state, hex_id) is not None:
        allowed = "All"
    total = {"All": total, "None": 0}.get(allowed, total // 2)
    return max(total - act.arty_used, 0)


def loss_range(row: str) -> tuple[int, int]:
    """The Barrage Table's loss range of a row ('3-6' -> (3, 6), '6' -> (6, 6))."""
    cell = bdata().cell("barrage", row, "Loss Range")
    lo, _, hi = cell.partition("-")
    return int(lo), int(hi or lo)


def row_of(state: BcsState, p: Piece) -> str:
    """The Barrage Table row for a target unit (8.1b, 8.1c): Hard unit, City, Terrain or
    Prepared Defense, All other; the hardest row that applies (Prepared Defense never makes a
    unit easier to hit)."""
    d = bdata()
    terrain = d.game_map.terrain[p.hex]
    if d.units[p.id].hard:
        return ROWS[0]
    if terrain == "city":
        return ROWS[1]
    if d.terrain[terrain].combat == "yes" or has_prepared_defense(state, p):
        return ROWS[2]
    return ROWS[3]


def targets(state: BcsState, side: str, hex_id: str) -> list[Piece]:
    """The enemy combat units in a hex, in id order (the order of the dice)."""
    return sorted((p for p in at(state, hex_id) if p.side == other(side) and p.kind == "unit"),
                  key=lambda p: p.id)


def can_spot(state: BcsState, p: Piece, hex_id: str) -> str:
    """Why a piece cannot spot a hex (8.1a), or '' when it can: a unit or the HQ of the active
    Formation (not Combat Trains), within 4 hexes, along a line that would allow an Engagement
    Zone (6.1b)."""
    act = state.activation
    assert act is not None
    if p.formation != act.formation or p.kind == "trains" or p.status != "map" or \
            p.side != act.side:
        return f"{p.id} is not a unit or the HQ of the active Formation (Combat Trains never spot)"
    if p.kind == "unit" and not can(p, "Spot Barrage"):
        return f"{p.id} may not spot a Barrage (Unit Capabilities Chart)"
    d = bdata().game_map.grid.distance(p.hex, hex_id)
    if d > SPOT:
        return f"{hex_id} is {d} hexes from {p.id}: a spotter is within {SPOT} hexes"
    if d > 1 and not clear_line(p.hex, hex_id):
        return f"Blocking Terrain cuts the line from {p.id} in {p.hex} to {hex_id}"
    return ""


def spotted(state: BcsState, hex_id: str, sequence: bool = False) -> bool:
    """Whether any unit or the HQ of the active Formation spots the hex (8.1a); in an Attack
    Sequence, also one waiting in the virtual hex beside it (sequence, off_map_spotter)."""
    act = state.activation
    assert act is not None
    return any(not can_spot(state, p, hex_id) for p in state.pieces.values()
               if p.formation == act.formation and p.status == "map") or \
        (sequence and off_map_spotter(state, hex_id))


def off_map_spotter(state: BcsState, hex_id: str) -> bool:
    """Whether a unit (one that may spot) or the HQ of the active Formation waits in the virtual
    hex beside the held Entry hex hex_id: adjacent to it, it spots the Barrage of an Attack from
    Off Map there (9.3f as printed: they 'Attack (and Assist) from that hex normally'); which
    units wait is the fact S.offmap.F on a sealed knowledge state (snafu.off_map_entries)."""
    act = state.activation
    assert act is not None
    form = state.formations[act.formation]
    return hex_id in held_entries(state, state.pieces[form.hq]) or \
        hex_id in off_map_entries(state, form)["spot"]


def _check_target(state: BcsState, side: str, hex_id: str, sequence: bool = False) -> None:
    """8.1a-3 and 8.2a: an enemy combat unit there, the active HQ's Command Radius, an OBJ
    Zone, no Barrage Mission on it yet in this Activation. In an Attack Sequence (sequence) an
    HQ waiting off the map beside the held Entry hex is adjacent to it (9.3f as printed)."""
    act = state.activation
    assert act is not None
    if not bdata().game_map.grid.is_hex(hex_id):
        raise IllegalOrder(f"{hex_id} is not a hex of the map", rule="BCS-8.1a-3")
    if not targets(state, side, hex_id):
        raise IllegalOrder(f"{hex_id} holds no enemy combat unit to Barrage", rule="BCS-8.1b")
    _check_screen(state, side, hex_id, "Barraged")
    hq = state.pieces[state.formations[act.formation].hq]
    beside = sequence and hq_entering(state, hex_id) is not None
    if not beside and not in_radius(state, hq, hex_id):
        where = " (it is off the map)" if hq.status != "map" else ""
        raise IllegalOrder(f"{hex_id} is beyond {hq.id}'s Command Radius{where}: no Barrage "
                           f"there", rule="BCS-8.1a-3")
    if not in_obj_zone(state, hex_id):
        raise IllegalOrder(f"{hex_id} is in no OBJ Zone (within 2 hexes of a Combat OBJ): no "
                           f"Barrage there", rule="BCS-8.1a-3")
    if hex_id in act.barraged:
        raise IllegalOrder(f"{hex_id} has already had a Barrage Mission in this Activation",
                           rule="BCS-8.2a")


def _check_screen(state: BcsState, side: str, hex_id: str, what: str) -> None:
    """BbF 1.5d: a Screening unit is never Barraged; an Attack by Fire, resolved on the Barrage
    Table, is read as a Barrage here (it may be Engaged instead)."""
    if any(q.screen for q in targets(state, side, hex_id)):
        raise IllegalOrder(f"{hex_id} holds a Screening unit: it is never {what}",
                           rule="BBF-1.5d-2")


def _check_points(state: BcsState, side: str, arty: int, air: int, hex_id: str = "") -> None:
    """8.0b, 8.0e-1: the points declared are available (hex_id: an Attack Sequence's target,
    arty_points)."""
    if arty > arty_points(state, hex_id):
        raise IllegalOrder(f"{arty} Arty Point{'s' if arty > 1 else ''} declared, "
                           f"{arty_points(state, hex_id)} left in this Activation",
                           rule="BCS-8.0b")
    if air > state.private[side].air_points:
        raise IllegalOrder(f"{air} Air Point{'s' if air > 1 else ''} declared, "
                           f"{state.private[side].air_points} left this turn", rule="BCS-8.0e-1")


def check_sequence(state: BcsState, side: str, hex_id: str, fires: Fires, shock: bool) -> None:
    """Check the Barrage of an Attack Sequence (7.2 step 4, 7.2j, 7.3b, 8.0, 8.0f, 8.1a, 8.2a)
    before anything changes."""
    check_activities(state, side, "Barrages", "BCS-8.0b")
    n = fires.arty + fires.air
    if fires.mission == "suppression" and n != 1:
        raise IllegalOrder("a Suppression Mission uses exactly one Arty or Air Point",
                           rule="BCS-8.0f")
    if shock and fires.arty:
        raise IllegalOrder("Arty Points cannot be used in a Shock Attack: only one Air Point",
                           rule="BCS-7.3b")
    if shock and n > SHOCK_AIR:
        raise IllegalOrder(f"{n} Air Points declared: a Shock Attack allows only one",
                           rule="BCS-7.3b")
    if n > INSIDE:
        raise IllegalOrder(f"{n} points declared: an Attack Sequence allows up to {INSIDE} Arty "
                           f"and Air Points", rule="BCS-8.0-2")
    _check_target(state, side, hex_id, sequence=True)
    if not spotted(state, hex_id, sequence=True):
        raise IllegalOrder(f"no unit or HQ of the active Formation spots {hex_id}",
                           rule="BCS-8.1a-1")
    _check_points(state, side, fires.arty, fires.air, hex_id)


def check_barrage(state: BcsState, side: str, hex_id: str, spotter: str, arty: int,
                  air: int) -> Piece:
    """Check a Barrage outside an Attack Sequence (8.0, 8.1a, 8.2a); the spotter."""
    check_activities(state, side, "Barrages", "BCS-8.0b")
    act = state.activation
    assert act is not None
    if not air and irwin(state, act.formation):     # BbF 3.2b 'Red' Irwin: 2 Arty Points
        if arty > IRWIN:
            raise IllegalOrder(f"{arty} Arty Points declared: with the 9 ID Divarty a Barrage "
                               f"outside an Attack Sequence uses up to {IRWIN} Arty Points",
                               rule="BBF-3.2b")
    elif arty + air > OUTSIDE:
        raise IllegalOrder(f"{arty + air} points declared: a Barrage outside an Attack Sequence "
                           f"uses only one Arty or Air Point", rule="BCS-8.0-2")
    _check_target(state, side, hex_id)
    p = state.pieces.get(spotter)
    if p is None:
        raise IllegalOrder(f"{spotter} is not a piece of the game", rule="BCS-8.1a-1")
    why = can_spot(state, p, hex_id)
    if why:
        raise IllegalOrder(why, rule="BCS-8.1a-1")
    _check_points(state, side, arty, air)
    return p


def _spend(state: BcsState, side: str, hex_id: str, arty: int, air: int, mission: str,
           ctx: Context) -> None:
    """Declare and spend the points (8.2b): the points told to both sides, what is left only to
    the owner; the hex has had its Barrage Mission for this Activation (8.2a)."""
    act = state.activation
    assert act is not None
    act.began = True
    act.arty_used += arty
    state.private[side].air_points -= air
    act.barraged.append(hex_id)
    pts = " and ".join(f"{n} {k} Point{'s' if n > 1 else ''}"
                       for k, n in (("Arty", arty), ("Air", air)) if n)
    ctx.log(f"{act.formation} fires a {mission} Mission on {hex_id} with {pts}",
            hexes=(hex_id,))
    ctx.log(f"Arty Points left in this Activation: {arty_points(state)}; Air Points left this "
            f"turn: {state.private[side].air_points}", visible_to=side)


def roll_table(state: BcsState, side: str, hex_id: str, rounds: int, what: str,
               ctx: Context) -> None:
    """Destruction on the Barrage Table (8.1b, 8.3d): for each round one die per enemy unit in
    the hex (the units there when the fire began); a roll in the row's loss range costs that unit
    a step (the die modified against a unit in a minefield hex, TEC note 3). The dice are
    public; which unit each hit and its row only the owner is told."""
    units = targets(state, side, hex_id)
    owner = other(side)
    dice: list[int] = []
    for r in range(rounds):
        for i, p in enumerate(units):
            die = ctx.roll(6, f"Barrage Table: {what} on {hex_id}, point {r + 1}/{rounds}, "
                              f"target {i + 1}/{len(units)}")
            dice.append(die)
            if p.status != "map" or p.hex != hex_id:
                ctx.log(f"Barrage Table: {die} against {p.id}, already destroyed: wasted",
                        visible_to=owner)
                continue
            row = row_of(state, p)
            lo, hi = loss_range(row)
            drm = barrage_drm(state, hex_id)          # TEC note 3 (BbF 3.1c)
            got = die + drm
            hit = lo <= got and (got <= hi or hi == 6)     # every loss range ends at 6
            mod = f" {drm:+d} Minefield = {got}" if drm else ""
            ctx.log(f"Barrage Table: {die}{mod} against {p.id} ({row}, loss on "
                    f"{bdata().cell('barrage', row, 'Loss Range')}): "
                    f"{'a step lost' if hit else 'no effect'}", visible_to=owner)
            if hit:
                lose(state, p, 1, ctx)
    ctx.log(f"Barrage Table on {hex_id}: {', '.join(map(str, dice))}", hexes=(hex_id,))


def in_sequence(state: BcsState, side: str, hex_id: str, fires: Fires, ctx: Context) -> int:
    """Step 4 of the Attack Sequence (7.2j, 8.0f): the Barrage fired; the Suppression DRM it
    earns (+2 for a Suppression Mission, 0 for a Destruction Mission, which rolls instead)."""
    if fires.mission == "suppression":
        _spend(state, side, hex_id, fires.arty, fires.air, "Suppression", ctx)
        return modifier("Suppression Mission")
    _spend(state, side, hex_id, fires.arty, fires.air, "Destruction", ctx)
    roll_table(state, side, hex_id, fires.arty + fires.air, "Destruction Mission", ctx)
    return 0


def barrage(state: BcsState, side: str, hex_id: str, spotter: str, arty: int, air: int,
            ctx: Context) -> None:
    """A Barrage outside an Attack Sequence (8.0, 8.1): a Destruction Mission of one point; the
    spotter executes a STOP (8.1a); no Suppression DRM ever (8.0f)."""
    p = check_barrage(state, side, hex_id, spotter, arty, air)
    _spend(state, side, hex_id, arty, air, "Destruction", ctx)
    ctx.log(f"{p.id} spots the Barrage on {hex_id} and STOPs", visible_to=side)
    if not p.stopped:
        p.stopped = "BCS-8.1a-2"
    roll_table(state, side, hex_id, arty + air, "Destruction Mission", ctx)


def check_fire(state: BcsState, side: str, hex_id: str, uid: str, host: str = "") -> Piece:
    """Check an Attack by Fire (8.3b, 8.3c, 7.0d, 7.1m); the firing unit (a Stand Off unit in
    Support fires from its host's hex)."""
    check_activities(state, side, "Attacks by Fire", "BCS-8.0b")
    act = state.activation
    assert act is not None
    grid = bdata().game_map.grid
    if not grid.is_hex(hex_id):
        raise IllegalOrder(f"{hex_id} is not a hex of the map", rule="BCS-8.3b")
    p = state.pieces.get(uid)
    if host or (p is not None and p.status == "support"):          # 7.1m: Stand Off
        sp, h = check_stand_off(state, side, uid, host)
        _check_fire_target(state, side, hex_id, h, f"{uid}'s host {h.id}")
        return sp
    if p is None or p.side != side or p.kind != "unit" or p.status != "map":
        raise IllegalOrder(f"{uid} is not a combat unit of yours on the map", rule="BCS-8.3c")
    if p.formation != act.formation:
        raise IllegalOrder(f"{uid} is not of the active Formation", rule="BCS-8.3c")
    if p.finished:
        raise IllegalOrder(f"{uid} is Finished and cannot make an Attack by Fire",
                           rule="BCS-7.2q")
    if not can(p, "Attack by Fire"):
        raise IllegalOrder(f"{uid} may not make Attacks by Fire (Unit Capabilities Chart)",
                           rule="BCS-8.3c")
    check_fire_stack(state, p)
    check_fire_events_left(p)
    _check_fire_target(state, side, hex_id, p, uid)
    return p


def _check_fire_target(state: BcsState, side: str, hex_id: str, p: Piece, who: str) -> None:
    """The target of an Attack by Fire fired from p's hex (8.3b, 8.3c, BbF 1.5d, 9.2g)."""
    if hex_id not in bdata().game_map.grid.neighbours(p.hex):
        raise IllegalOrder(f"{who} in {p.hex} is not adjacent to {hex_id}: an Attack by Fire "
                           f"is made by an adjacent unit", rule="BCS-8.3b")
    enemies = targets(state, side, hex_id)
    if not enemies:
        raise IllegalOrder(f"{hex_id} holds no enemy combat unit", rule="BCS-8.3b")
    if not in_obj_zone(state, hex_id):
        raise IllegalOrder(f"{hex_id} is in no OBJ Zone (within 2 hexes of a Combat OBJ): no "
                           f"Attack by Fire", rule="BCS-8.3b")
    _check_screen(state, side, hex_id, "attacked by fire")
    if any(is_av(q) for q in enemies):   # an AV unit is always on top (5.5e), never hidden
        raise IllegalOrder(f"{hex_id} holds an AV unit: no Attack by Fire on it (it is "
                           f"Engaged instead)", rule="BCS-8.3c")
    if any(has_access(state, q) for q in enemies):          # 9.2g: Support protects
        raise IllegalOrder(f"{hex_id} holds a unit with Support: no Attack by Fire on it (it "
                           f"is Engaged instead)", rule="BCS-8.3c")


def attack_by_fire(state: BcsState, side: str, hex_id: str, uid: str, ctx: Context,
                   host: str = "") -> None:
    """An Attack by Fire (8.3): one Fire Event (a STOP after the second, 7.0d), one Barrage
    Table roll per enemy unit in the hex; never a Suppression Mission, never limited by 8.2a.
    A Stand Off unit in Support fires one of its shots (one per step, 7.1m) from its host."""
    p = check_fire(state, side, hex_id, uid, host)
    if host:
        act = state.activation
        assert act is not None
        p.fire_events += 1
        act.began = act.engaged = True          # 10.4b: an Attack by Fire was made
        h = state.pieces[host]
        ctx.log(f"{p.id} (Stand Off Support, from {h.id}) makes an Attack by Fire on {hex_id} "
                f"(Stand Off shot {p.fire_events})", hexes=(h.hex, hex_id))
        roll_table(state, side, hex_id, 1, "Attack by Fire", ctx)
        return
    fire_event(state, p)
    if state.activation is not None:
        state.activation.engaged = True          # 10.4b: an Attack by Fire was made
    ctx.log(f"{p.id} makes an Attack by Fire on {hex_id} (Fire Event {p.fire_events})",
            hexes=(p.hex, hex_id))
    roll_table(state, side, hex_id, 1, "Attack by Fire", ctx)
    f = face(p)
    if f is not None and p.fire_events >= FIRE_EVENTS and not p.stopped:
        p.stopped = "BCS-7.0d-2"
