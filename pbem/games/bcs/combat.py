"""Regular Attacks (7.2): who may attack what from where, the Net Action Ratings, the Combat
Table roll and its results (losses, Situational results, Traffic, advance after combat).

Retreats themselves are carried out by retreat.py. The defender's choices (7.2g, 7.2o) follow
his standing orders (STANDING below), or he is asked in his next file (reactions.py).
"""

from __future__ import annotations

from typing import Callable

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import at, bdata, combat_count, face, hq_of, is_combat, printed_ma
from pbem.games.bcs.data import Face
from pbem.games.bcs.command import exempt, heads_away, in_radius
from pbem.games.bcs.hq_retreat import jump
from pbem.games.bcs.mines import against, against_attacker, closed
from pbem.games.bcs.mixing import mark
from pbem.games.bcs.reactions import lookup
from pbem.games.bcs.retreat import retreat_stack
from pbem.games.bcs.sequence import control_after_move
from pbem.games.bcs.state import MP12, BcsState, Piece, other
from pbem.games.bcs.support import combat_supported
from pbem.games.bcs.terrain import PROHIBITED, step_cost
from pbem.games.bcs.view import top_unit
from pbem.games.bcs.victory import may_control
from pbem.games.bcs.board import entry_hexes, has_zoc, hq_entering
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.state import arrival_group
from pbem.games.bcs.terrain import ROAD_KINDS, StepCost, hex_row, is_road_hex

OBJ_ZONE = 2                 # 4.3c: each Combat OBJ makes a 2-hex-radius OBJ Zone
# The defender's choices answered by standing orders (`standing TOPIC MODE`); a side with none
# for a topic is asked in his next file (reactions.py); the first mode is the engine's usual
# choice (the bots' and the rule cases' default):
#   defense: the defending AR unit (7.2g): best-ar (the best AR of the stack) or top (the top
#            unit, 5.5e, which reveals nothing more);
#   losses:  further Combat Table losses (7.2o): ar-first (the AR unit until destroyed) or spread
#            (after the first on the AR unit, one step on each other unit in turn);
#   engaged: the AV unit engaged (7.1e): strongest (greatest AV + AR) or top; in a hex without
#            AV units, the supported unit engaged: strongest (best AR) or top;
#   support: which of several units in Support answers (9.2h, support.choose): strongest (the
#            greatest AV, then Range) or weakest.
STANDING = {"defense": ("best-ar", "top"), "losses": ("ar-first", "spread"),
            "engaged": ("strongest", "top"), "support": ("strongest", "weakest")}
# Owners' choices of Attacks, advances and retreats (7.2m, 7.4a, 7.5a), the same lookup:
#   retreat:    where a retreating stack goes (7.5a): rear (the 7.5a priorities in their printed
#               order: farthest from the Attack hex, free of EZOC, combat terrain, nearest the
#               HQ, off enemy MSRs, nearest the Trains), hq (free of EZOC and nearest the HQ
#               first) or edge (off the map edge when the retreat reaches one with an Entry Area,
#               7.5h); retreat.py;
#   hq-retreat: where a displaced HQ goes (9.1f, errata v1.2 to 7.5a): rear (a hex 3 away, else
#               farther) or pocket (a hex with a unit of its Formation first); hq_retreat.py;
#   advance:    the attacker's Assist stacked with the Attack unit (7.4a): alone (it stays) or
#               assist (it advances too, where its terrain allows).
# 5.5f's reordering for an Attack is the choice of the AR units: the defender's `defense` mode
# (best-ar puts the best AR unit on top for the Attack), the attacker's Attack unit named in
# his order; the normal order (5.5e) is back right after the Attack (views always show it).
#   hq-order:   the order units of an Automatic Retreat are placed by their HQ (7.5f box):
#               strongest or weakest first; retreat.hq_order;
#   trains-retreat: where displaced Combat Trains within 10 hexes of their Source go (10.3d):
#               edge (stop in that map edge hex) or hq (the Entry hex Source nearest the HQ);
#               hq_retreat.trains_back;
#   arrival:    the hex at or next to its HQ a unit back from a retreat off the map (7.5k) or a
#               reinforcement due at its HQ (9.3a) goes to: hq (the HQ's hex first) or clear
#               (free of EZOC first); retreat.at_hq_hex.
STANDING.update({"retreat": ("rear", "hq", "edge"), "hq-retreat": ("rear", "pocket"),
                 "advance": ("alone", "assist"), "hq-order": ("strongest", "weakest"),
                 "trains-retreat": ("edge", "hq"), "arrival": ("hq", "clear")})
PREPARED_RANGE = 6           # 4.5: Deployed units within 6 hexes of the HQ have Prepared Defense


def capability_row(f: Face) -> str:
    """The Unit Capabilities Chart row of a side showing (1.2c, 1.2d)."""
    if f.assault_arrow and f.av is not None:
        return "Dual"
    if f.assault_arrow:
        return "Assault Arrow"
    if f.av is None:
        return "Unprepared"
    if f.breakthrough:
        return "Breakthrough AV"
    return {"offensive": "Red AV", "limited": "Limited AV", "light": "Light AV",
            "stand_off": "Stand Off AV"}[f.av_class]


def can(p: Piece, column: str) -> bool:
    """Whether a unit's side showing may do this per the Unit Capabilities Chart."""
    f = face(p)
    return f is not None and bdata().cell("unit_capabilities", capability_row(f), column) == "yes"


def modifier(name: str) -> int:
    """The DRM of a Combat Table modifier, from the chart data."""
    for m in bdata().modifiers:
        if m.chart == "combat" and m.name == name:
            return m.drm
    raise KeyError(name)


def in_obj_zone(state: BcsState, hex_id: str) -> int:
    """How many Combat OBJs put the hex in their OBJ Zone (4.3c)."""
    gm = bdata().game_map
    return sum(1 for o in state.objs if gm.grid.distance(o, hex_id) <= OBJ_ZONE)


def double_obj(state: BcsState, hex_id: str) -> bool:
    """A Double OBJ Zone: two OBJ markers in one hex within 2 hexes of this one (4.3b)."""
    gm = bdata().game_map
    return any(state.objs.count(o) >= 2 and gm.grid.distance(o, hex_id) <= OBJ_ZONE
               for o in set(state.objs))


def check_activities(state: BcsState, side: str, what: str, rule: str, *,
                     none: str | None = None) -> None:
    """IllegalOrder unless side is the active player in the Activities of an Activation that
    is not a Fatigue Recovery (7.0b); `what` names the orders, `none` them in the refusal."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side:
        raise IllegalOrder(f"{what} are made by the active player in the Activities of an "
                           "Activation", rule=rule)
    if act.recovery:
        raise IllegalOrder(f"a Fatigue Recovery Activation makes no {none or what}",
                           rule="BCS-7.0b")


def _own_active(state: BcsState, side: str, uid: str, role: str) -> Piece:
    act = state.activation
    assert act is not None
    p = state.pieces.get(uid)
    if p is None or p.side != side or not is_combat(p):
        raise IllegalOrder(f"{uid} is not a combat unit of yours on the map", rule="BCS-7.2b")
    if p.formation != act.formation:
        raise IllegalOrder(f"{uid} is not of the active Formation: only active stacks attack "
                           f"({role})", rule="BCS-7.2b")
    if p.finished:
        raise IllegalOrder(f"{uid} is Finished and cannot be the {role}", rule="BCS-7.2q")
    if combat_count(state, p.hex) > 2:
        raise IllegalOrder(f"{uid} is overstacked in {p.hex} and cannot be the {role}",
                           rule="BCS-7.2e")
    return p


def check_attack(state: BcsState, side: str, hex_id: str, uid: str,
                 assist: str) -> tuple[Piece, Piece | None]:
    """Check a Regular Attack (7.2 requirements, 7.2b-e, 7.2i, 7.2q, 4.2f); the Attack unit and
    the Assist. 6.0d (the defending hex in the unit's ZOC) follows: both are adjacent to it, and
    every unit that may Attack or Assist projects a ZOC."""
    check_activities(state, side, "Attacks", "BCS-7.2b")
    act = state.activation
    assert act is not None
    gm = bdata().game_map
    if not gm.grid.is_hex(hex_id):
        raise IllegalOrder(f"{hex_id} is not a hex of the map", rule="BCS-7.2-r2")
    off = off_map(state, side, uid)
    unit = off_map_unit(state, side, uid, hex_id, "Attack unit") if off else \
        _own_active(state, side, uid, "Attack unit")
    f = face(unit)
    assert f is not None
    if not f.assault_arrow:
        raise IllegalOrder(f"{uid} shows no Assault Arrow and cannot be the Attack unit",
                           rule="BCS-7.2-r1")
    if printed_ma(unit) <= 0:
        raise IllegalOrder(f"{uid} has no printed MA above zero and cannot be the Attack unit",
                           rule="ERR-BCS-1.1-3")
    defenders = [p for p in at(state, hex_id) if p.side == other(side) and p.kind == "unit"]
    if not defenders:
        raise IllegalOrder(f"{hex_id} holds no enemy combat unit (HQs and Combat Trains are "
                           f"never attacked)", rule="BCS-7.2-r2")
    if not in_obj_zone(state, hex_id):
        raise IllegalOrder(f"{hex_id} is in no OBJ Zone (within {OBJ_ZONE} hexes of a Combat "
                           f"OBJ)", rule="BCS-7.2-r2")
    if not off and hex_id not in gm.grid.neighbours(unit.hex):
        raise IllegalOrder(f"{uid} in {unit.hex} is not adjacent to {hex_id}", rule="BCS-7.2b")
    if hex_id in act.attacked:
        raise IllegalOrder(f"{hex_id} has already received a Regular Attack in this Activation",
                           rule="BCS-7.2d-1")
    if not enters(state, unit, hex_id):
        raise IllegalOrder(f"{uid} could not enter {hex_id} by terrain, so cannot attack it",
                           rule="BCS-7.2e")
    if not off and not exempt(unit) and in_radius(state, unit) and \
            not in_radius(state, unit, hex_id):
        raise IllegalOrder(f"{uid} is in Command Radius and would advance out of it into "
                           f"{hex_id}", rule="BCS-4.2f-2")
    if not off and heads_away(state, unit, hex_id):
        raise IllegalOrder(f"{uid} began the Activation outside Command Radius and its advance "
                           f"into {hex_id} would not bring it nearer its HQ", rule="BCS-4.2f-1")
    helper = None
    if assist:
        if assist == uid:
            raise IllegalOrder("the Assist is another unit than the Attack unit",
                               rule="BCS-7.2i-1")
        if off_map(state, side, assist) != off:
            raise IllegalOrder(f"the Assist {assist} is neither in nor adjacent to the Attack "
                               f"unit's hex ({'off the map' if off else unit.hex})",
                               rule="BCS-7.2i-1")
        helper = off_map_unit(state, side, assist, hex_id, "Assist") if off else \
            _own_active(state, side, assist, "Assist")
        if not off and helper.hex != unit.hex and helper.hex not in gm.grid.neighbours(unit.hex):
            raise IllegalOrder(f"the Assist {assist} is neither in nor adjacent to the Attack "
                               f"unit's hex {unit.hex}", rule="BCS-7.2i-1")
        if not off and hex_id not in gm.grid.neighbours(helper.hex):
            raise IllegalOrder(f"the Assist {assist} is not adjacent to {hex_id}",
                               rule="BCS-7.2i-1")
        if not has_zoc(helper) and not off:
            raise IllegalOrder(f"{hex_id} is not in the ZOC of {assist} (Unprepared: no ZOC), "
                               f"which cannot Assist", rule="BCS-6.0d")
        if not can(helper, "Assist"):
            row = capability_row(face(helper))  # type: ignore[arg-type]
            raise IllegalOrder(f"{assist} ({row}) cannot Assist (Unit Capabilities Chart)",
                               rule="BCS-7.2i-2")
    return unit, helper


def off_map(state: BcsState, side: str, uid: str) -> bool:
    """Whether a unit named in an Attack is one of side's units waiting off the map (an Attack
    from Off Map, 9.3f as printed)."""
    p = state.pieces.get(uid)
    return p is not None and p.side == side and p.kind == "unit" and p.status == "off"


def off_map_unit(state: BcsState, side: str, uid: str, hex_id: str, role: str) -> Piece:
    """A unit attacking (or assisting) from Off Map (9.3f as printed, house option
    entry_blocking = attack_from_off_map): an arrival of the active Formation due by now, in the
    virtual hex beside an Entry hex it could use that holds an enemy unit."""
    act = state.activation
    assert act is not None
    p = state.pieces[uid]
    if state.options.get("entry_blocking") != "attack_from_off_map":
        raise IllegalOrder(f"{uid} is off the map: with the v1.0 errata (entry_blocking = "
                           f"five_hex_errata) there is no Attack from Off Map",
                           rule="ERR-BCS-1.0-3")
    if p.formation != act.formation:
        raise IllegalOrder(f"{uid} is not of the active Formation: only active stacks attack "
                           f"({role})", rule="BCS-7.2b")
    if p.arrives > state.turn:
        raise IllegalOrder(f"{uid} arrives on turn {p.arrives}", rule="BCS-9.3-1")
    if p.finished:
        raise IllegalOrder(f"{uid} is Finished and cannot be the {role}", rule="BCS-7.2q")
    if hex_id not in entry_hexes(state, p):
        raise IllegalOrder(f"{uid} is off the map and {hex_id} is not one of its Entry hexes: "
                           f"an Attack from Off Map is made into an Entry hex",
                           rule="BCS-9.3f-2")
    if not any(q.side != side and q.kind == "unit" for q in at(state, hex_id)):
        raise IllegalOrder(f"no enemy unit holds the Entry hex {hex_id}: {uid} enters it by "
                           f"moving, not by an Attack from Off Map", rule="BCS-9.3f-2")
    return p


def enters(state: BcsState, p: Piece, hex_id: str) -> bool:
    """Whether the Attack unit could move into the defender's hex by terrain (7.2e): from its
    hex, or from the virtual hex off the map (9.3f)."""
    f = face(p)
    assert f is not None
    rain = state.weather == "Rain"
    step = virtual_step(hex_id, f.mclass, rain) if p.status == "off" else \
        step_cost(p.hex, hex_id, f.mclass, rain)
    return step.mp != PROHIBITED


def virtual_step(hex_id: str, cls: str, rain: bool) -> StepCost:
    """Entering an Entry hex from the virtual hex off the map beside it (9.3f as printed): the
    virtual hex has the Entry hex's kind of road, if any, and no terrain or hexside of its own,
    so the step costs the road's rate, else the Entry hex's terrain (5.2a-e)."""
    d = bdata()
    roads = [mp_cost(d.terrain[k], cls, rain) for k in ROAD_KINDS[:3] if is_road_hex(hex_id, (k,))]
    rates = [c for c in roads if not isinstance(c, str)]
    if rates:
        return StepCost(int(min(rates) * MP12), False, True, "BCS-5.2a")
    c = mp_cost(d.terrain[hex_row(hex_id)], cls, rain)
    if c == "P":
        return StepCost(PROHIBITED, False, False, "BCS-5.2c")
    if c == "STOP":
        return StepCost(4 * MP12, True, False, "BCS-5.2e")
    assert not isinstance(c, str), c
    return StepCost(int(c * MP12), False, False, "BCS-5.2b")


def could_attack(p: Piece) -> bool:
    """Whether a combat unit could make an Attack on one of its sides: the Attack unit of a
    Regular Attack (an Assault Arrow and a printed MA, 7.2, ERR-BCS-1.1-3) or a Shock Attack (a
    Tac MA side the Unit Capabilities Chart allows, 7.3a)."""
    if p.kind != "unit":
        return False
    u = bdata().units[p.id]
    faces = [f for f in (u.move, u.deployed) if f is not None]
    return any((f.assault_arrow and f.ma > 0) or (f.mclass == "tac" and bdata().cell(
        "unit_capabilities", capability_row(f), "Shock Attack (Tac MA only)") == "yes")
        for f in faces)


def mode(state: BcsState, side: str, topic: str) -> str:
    """The mode side chooses for a topic of STANDING: its answer in this order or its standing
    order; with neither the order stops and side is asked in his next file (reactions.py)."""
    return lookup(state, side, topic)


def defending_ar_unit(units: list[Piece], how: str = "best-ar") -> Piece:
    """The defending AR unit (7.2g): the best AR of the stack, ties the top unit (5.5e); or, with
    the mode top, the top unit."""
    if how == "top":
        return top_unit(units)
    best = max(bdata().units[p.id].ar for p in units)
    return top_unit([p for p in units if bdata().units[p.id].ar == best])


def has_prepared_defense(state: BcsState, p: Piece) -> bool:
    """A unit 'has' Prepared Defense: its Formation has it, it shows its Deployed side, which is
    not Unprepared (1.2d), and it is within 6 hexes of its HQ (4.5)."""
    form = state.formations.get(p.formation)
    hq = hq_of(state, p)
    if form is None or not form.prepared_defense or hq is None or hq.status != "map" \
            or not has_zoc(p):               # 1.2d: only Unprepared units project no ZOC
        return False
    return p.face == "deployed" and \
        bdata().game_map.grid.distance(p.hex, hq.hex) <= PREPARED_RANGE


def _common(state: BcsState, p: Piece, role: str) -> list[tuple[str, int]]:
    f = face(p)
    assert f is not None
    out = []
    if (f.assault_arrow and f.av is not None) or combat_supported(state, p, role):   # 9.2g
        out.append(("Dual or Supported", modifier("Dual or Supported")))
    form = state.formations.get(p.formation)
    if form is not None and form.msr_blocked:
        out.append(("MSR Blocked marked", modifier("MSR Blocked marked")))
    return out


def attacker_drms(state: BcsState, unit: Piece, helper: Piece | None,
                  hex_id: str) -> list[tuple[str, int]]:
    """The attacker's Combat Table DRMs (7.2k): Dual or Supported, MSR Blocked, Assist,
    Prepared Defense of the attacking Formation, Double OBJ Zone, an Axis Attack unit in a
    minefield hex next to the Allied unit it attacks (TEC note 4) (Regular and Shock Attacks
    alike)."""
    out = _common(state, unit, "attack")
    if helper is not None:
        out.append(("Assist", modifier("Assist (Regular Attacks ONLY)")))
    if state.formations[unit.formation].prepared_defense:
        out.append(("Attacking Formation has Prep Def",
                    modifier("Attacking Formation has Prep Def")))
    if double_obj(state, hex_id):
        out.append(("Double OBJ Zone", modifier("Double OBJ Zone")))
    if unit.status == "off":                         # 9.3f as printed: Attack from Off Map
        out.append(("Attack from off map", modifier("Attack from off map (9.3f)")))
    out += against_attacker(state, unit, unit.hex, hex_id)      # TEC notes 3, 4 (BbF 3.1c)
    return out


def defender_drms(state: BcsState, ar_unit: Piece, units: list[Piece],
                  from_hex: str) -> list[tuple[str, int]]:
    """The defender's Combat Table DRMs (7.2k, 7.2L): Dual or Supported, MSR Blocked, combat
    terrain in the hex, the hexside attacked across, Prepared Defense, a second unit in
    defense, a minefield in the hex (TEC note 3)."""
    d = bdata()
    out = _common(state, ar_unit, "defense")
    if d.terrain[d.game_map.terrain[ar_unit.hex]].combat == "yes":
        out.append(("Terrain", modifier("Terrain (defender in combat terrain)")))
    # 7.0a, 7.2L: the hexside the Attack unit crosses (none from the virtual hex off the map)
    for kind in sorted(d.game_map.hexside(from_hex, ar_unit.hex) if from_hex else ()):
        if d.terrain[kind].combat_drm:
            out.append((f"{d.terrain[kind].name} hexside", d.terrain[kind].combat_drm))
    if has_prepared_defense(state, ar_unit):
        out.append(("Prepared Defense", modifier("Prepared Defense")))
    if len(units) >= 2:
        out.append(("Second unit in defense", modifier("Second unit in defense")))
    out += against(state, ar_unit.hex)                          # TEC note 3 (BbF 3.1c)
    return out


def key_terrain(hex_id: str) -> bool:
    """Key Terrain (7.5g): the TEC marks the hex's terrain as key."""
    d = bdata()
    return d.terrain[d.game_map.terrain[hex_id]].key


def place_traffic(state: BcsState, hex_id: str, ctx: Context) -> None:
    """A Traffic Stopped marker (5.1g): it STOPs every unit of the active side in the hex now and
    every unit entering it later (movement.py reads the marker)."""
    if hex_id not in state.traffic:
        state.traffic.append(hex_id)
    ctx.log(f"Traffic Stopped in {hex_id}", hexes=(hex_id,))
    act = state.activation
    if act is not None and state.options.get("middle_ground_coordination"):   # BCS-OPT5-b
        mark(state, act.formation, 1, "a Traffic result", ctx)
    for p in at(state, hex_id):
        if act is not None and p.side == act.side and not p.stopped:
            p.stopped = "BCS-5.1g-1"


def lose(state: BcsState, p: Piece, n: int, ctx: Context) -> int:
    """Take up to n step losses from one unit (7.0c, 1.2e); the steps actually lost."""
    if n <= 0 or p.status not in ("map", "off"):     # off: an Attack unit off the map (9.3f)
        return 0
    taken = min(n, p.steps)
    p.steps -= taken
    if taken:
        ctx.log(f"{p.id} loses {taken} step{'s' if taken > 1 else ''}", visible_to=p.side)
    if p.steps <= 0:
        p.status, p.hex = "dead", ""
        ctx.log(f"{p.id} is destroyed")
    return taken


def attack(state: BcsState, side: str, hex_id: str, uid: str, assist: str,
           ctx: Context, step4: Callable[[], int] | None = None) -> None:
    """Resolve a Regular Attack (7.2 Attack Sequence) after checking it; step4 fires its
    Barrage (barrage.in_sequence) and returns the Suppression DRM."""
    unit, helper = check_attack(state, side, hex_id, uid, assist)
    act = state.activation
    assert act is not None
    act.began = True
    act.attacked.append(hex_id)
    where = unit.hex or hex_id
    ctx.log(f"{unit.id} attacks {hex_id}" + (" from off map" if not unit.hex else "")
            + (f", {helper.id} assisting" if helper else "") + _on_top(state, unit),
            hexes=(where, hex_id))
    resolve(state, side, unit, hex_id, attacker_drms(state, unit, helper, hex_id), ctx, step4,
            helper)
    for p in (unit, helper):
        if p is not None:
            p.finished = True


def _on_top(state: BcsState, p: Piece, units: list[Piece] | None = None) -> str:
    """', on top for the Attack (5.5f)' when the AR unit is not its stack's top unit by 5.5e:
    its owner reorders the stack for the Attack (5.5g; the normal order is back after it)."""
    if units is None:
        units = [q for q in at(state, p.hex) if q.kind == "unit" and q.side == p.side] \
            if p.hex else [p]
    return ", on top for the Attack (5.5f)" if top_unit(units) is not p else ""


def resolve(state: BcsState, side: str, unit: Piece, hex_id: str,
            att: list[tuple[str, int]], ctx: Context,
            step4: Callable[[], int] | None = None, helper: Piece | None = None) -> None:
    """Steps 2 and 4-7 of the Attack Sequence (7.2g, 7.2j, 7.2k, 7.2m): the defence announced,
    the Barrage (step4 fires it and returns the Suppression DRM), the Combat Table roll with the
    attacker's DRMs given and the defender's, and its results."""
    defenders = sorted((p for p in at(state, hex_id) if p.side != side and p.kind == "unit"),
                       key=lambda p: p.id)
    ar_unit = defending_ar_unit(defenders, mode(state, other(side), "defense")
                                if len(defenders) > 1 else "best-ar")   # one unit: no choice
    prepared = has_prepared_defense(state, ar_unit)
    ctx.log(f"Defence of {hex_id}: AR unit {ar_unit.id} (AR {bdata().units[ar_unit.id].ar}), "
            f"{'with' if prepared else 'no'} Prepared Defense{_on_top(state, ar_unit, defenders)}",
            hexes=(hex_id,))
    if step4 is not None:
        drm = step4()
        if drm:
            att = att + [("Suppression Mission", drm)]
        alive = [p for p in defenders if p.status == "map" and p.hex == hex_id]
        if not alive:                    # 7.2j: destroyed by the Barrage, no Combat Table roll
            ctx.log(f"the Barrage destroyed the stack in {hex_id}: the Attack ends without a "
                    f"Combat Table roll", hexes=(hex_id,))
            _apply(state, side, unit, ar_unit, defenders, "", "", False, prepared, hex_id, ctx,
                   helper)
            return
        defenders = alive
        if ar_unit not in alive:         # the AR unit died: the defender names another (7.2g)
            ar_unit = defending_ar_unit(alive, mode(state, other(side), "defense")
                                        if len(alive) > 1 else "best-ar")
            prepared = has_prepared_defense(state, ar_unit)
            ctx.log(f"Defence of {hex_id}: new AR unit {ar_unit.id} "
                    f"(AR {bdata().units[ar_unit.id].ar})", hexes=(hex_id,))
    dfn = defender_drms(state, ar_unit, defenders, unit.hex)
    att_net = bdata().units[unit.id].ar + sum(v for _, v in att)
    def_net = bdata().units[ar_unit.id].ar + sum(v for _, v in dfn)
    dice = ctx.rolls_of(2, 6, f"Combat Table: {unit.id} attacks {hex_id}")
    total = sum(dice) + att_net - def_net
    band = next(b for b in bdata().tables["combat"].rows
                if (b.lo is None or total >= b.lo) and (b.hi is None or total <= b.hi))
    text = lambda mods: ", ".join(f"{n} {v:+d}" for n, v in mods) or "no DRM"  # noqa: E731
    ctx.log(f"Combat Table: {dice[0]}+{dice[1]}, attacker net AR {att_net} ({text(att)}), "
            f"defender net AR {def_net} ({text(dfn)}) = {total}: {band.result}",
            hexes=(hex_id,))
    _apply(state, side, unit, ar_unit, defenders, band.loss, band.retreat, band.traffic,
           prepared, hex_id, ctx, helper)


def _apply(state: BcsState, side: str, unit: Piece, ar_unit: Piece, defenders: list[Piece],
           loss: str, retreat: str, traffic: bool, prepared: bool, hex_id: str,
           ctx: Context, helper: Piece | None = None) -> None:
    """Step (7) of the sequence: losses (7.2n, 7.2o), Situational results (7.5g), retreats,
    Traffic (5.1g) and the advance after combat (7.4a), which the Assist stacked with the Attack
    unit may join (the attacker's `advance` mode)."""
    attack_hex = unit.hex or hex_id      # from off the map: the Entry hex's side (9.3f)
    if loss == "[A1]":
        loss = "A1" if prepared else ""
    if loss.startswith("A"):
        lose(state, unit, int(loss[1:]), ctx)          # 7.2n: the excess is ignored
    elif loss.startswith("D"):
        n = int(loss[1:])
        order = [ar_unit] + [q for q in defenders if q is not ar_unit]     # 7.2o
        if n > 1 and len(order) > 1 and mode(state, ar_unit.side, "losses") == "spread":
            while n > 0 and any(p.status == "map" for p in order):
                for p in order:
                    if n > 0 and p.status == "map":
                        n -= lose(state, p, 1, ctx)
        for p in order:
            n -= lose(state, p, n, ctx)
    alive = [p for p in defenders if p.status == "map"]
    if retreat == "D: Situational" and alive:
        if unit.status == "dead":
            ctx.log("the Attack unit was destroyed: the Situational result is ignored")
        elif key_terrain(hex_id) or prepared:
            why = "Key Terrain" if key_terrain(hex_id) else "Prepared Defense"
            ctx.log(f"Situational result in {why}: each unit in {hex_id} loses a step and stays")
            for p in alive:
                lose(state, p, 1, ctx)
        else:
            retreat_stack(state, alive, ar_unit, "situational", attack_hex, ctx)
    elif retreat == "D: Retreat" and alive:
        retreat_stack(state, alive, ar_unit, "automatic", attack_hex, ctx)
    retreated = bool(alive) and not any(p.hex == hex_id for p in alive)
    if not any(p.hex == hex_id and p.status == "map" and p.kind == "unit"
               for p in defenders) and (retreated or unit.status != "dead"):
        jump(state, side, [hex_id], ctx,             # 9.1f, 10.3d, 7.5i (rules helper)
             f"the stack in {hex_id} retreats" if retreated else "")
    if not any(p.hex == hex_id and p.status == "map" and p.kind == "unit"
               for p in defenders):
        if traffic:
            place_traffic(state, hex_id, ctx)
        if unit.status != "dead" and closed(state, unit, hex_id):             # BbF 3.1b
            ctx.log(f"no advance into the unbreached Minefield in {hex_id} (BbF 3.1b)",
                    hexes=(hex_id,))
        elif unit.status != "dead" and not any(p.side != side for p in at(state, hex_id)):
            frm = unit.hex
            movers = [unit]
            if helper is not None and helper.status != "dead" and helper.hex == frm and \
                    enters(state, helper, hex_id) and mode(state, side, "advance") == "assist":
                movers.append(helper)                # 7.4a: the Assist stacked with it
            for p in movers:
                _advance(state, p, hex_id, ctx)
            control_after_move(state, side, hex_id, may_control(state, unit))


def _advance(state: BcsState, p: Piece, hex_id: str, ctx: Context) -> None:
    """One unit advances after combat (7.4a-d): into the hex at no MP cost, whatever the EZOCs,
    with no Engagement made or owed; a unit from off the map enters the map by that Entry hex
    (9.3f, 9.3b); a Traffic Stopped marker there STOPs it (5.1g)."""
    frm = p.hex
    if p.status == "off":
        act = state.activation
        assert act is not None
        used = act.entries.setdefault(arrival_group(p), [])
        if hex_id not in used:
            used.append(hex_id)
        p.status, p.moved = "map", True
    p.hex = hex_id
    ctx.log(f"{p.id} advances into {hex_id}" + ("" if frm else " from off map"),
            hexes=(frm or hex_id, hex_id))
    if hex_id in state.traffic and not p.stopped:
        p.stopped = "BCS-5.1g-2"                     # the advancing unit executes the STOP
    if not frm:
        hq_follows(state, hex_id, ctx)


def hq_follows(state: BcsState, hex_id: str, ctx: Context) -> None:
    """An HQ waiting off the map to enter by an Entry hex its units have just taken with an
    Attack from Off Map is placed there with its Combat Trains due by now, as at an arrival
    (9.3b: Regular side), and the Activation goes on from there (9.3f as printed)."""
    hq = hq_entering(state, hex_id)
    if hq is None or any(q.side != hq.side for q in at(state, hex_id)):
        return
    act = state.activation
    assert act is not None
    form = state.formations[act.formation]
    trains = state.pieces[form.trains]
    hq.status, hq.hex = "map", hex_id
    placed = "HQ"
    if trains.status == "off" and trains.arrives <= state.turn:
        trains.status, trains.hex, trains.ghost = "map", hex_id, False
        placed = "HQ and Combat Trains"
    used = act.entries.setdefault(arrival_group(hq), [])
    if hex_id not in used:
        used.append(hex_id)
    ctx.log(f"{bdata().formations[form.id].name} arrives behind the Attack from Off Map: "
            f"{placed} in {hex_id}", hexes=(hex_id,))
