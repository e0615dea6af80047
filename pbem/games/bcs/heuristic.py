"""The heuristic bot's judgement (issue 19, item 7): where to move, whether an Attack is worth
its dice, what to keep back. It knows what its side may know: the odds are read on the stand-in
built from its own view (the enemy's top units, copies of them below, full steps, no Prepared
Defense it cannot see), never on the state itself.

- **Odds.** An Attack (with an Assist, with a Suppression Mission when the Formation has an Arty
  Point left), a Shock Attack or an Engagement is scored by its expected result over the 36
  throws of 2d6 on the chart data: on the Combat Table a defender's step +1, a D: Retreat +1, a
  Situational result +0.5, a step of the Attack unit -1 ([A1] only against Prepared Defense); on
  the Engagement Table a Target Loss +1.5, a Both Loss 0, a Firer Loss -1. An Engagement is
  scored against the defender's likely target (``likely_target``): in a Stopping Engagement
  any unit giving the AV EZOC into the Firer's hex, across hexes (6.0i-5), else the AV units of
  the hex (a supported unit when there are none); the strongest unless his standing order, when
  the bot knows it, says top. Only a unit showing an Assault Arrow is an Attack unit, and a
  hex with a Screening unit is only engaged (1.5d). The best is made when its score is at least
  ``threshold``: ``ATTACK_AT`` (on the Combat Table a net AR ahead by 2, or even with the
  Suppression's +2: at +1 the attacker's losses still outweigh the defender's), but for the Axis
  against a VP hex he plays for and does not hold ``GOAL_AT`` (net +1), ``LAST_AT`` (net 0) on
  the last turn: not attacking it loses the game.
- **Reserve.** A Formation with three or more combat units on the map keeps the one nearest its
  HQ back, among those not next to an enemy unit: it neither moves nor attacks (it defends).
- **Goals** (``vp_goals``). The Axis goes for the VP hexes he plays for and does not hold (5.2:
  Sidi bou Zid, Kern's Crossroads, Sbeitla and the 'Either' hexes for his 'one other'; a
  campaign scenario such as 5.4: his drawn objective's hexes and the 'Either' ones, 4.1), then
  for enemy units near its own; his OBJs go on those VP hexes within ``REACH`` first (BbF 4.1:
  no unit enters an enemy-controlled VP hex without a friendly OBJ), then on the nearest enemy
  hexes, and a unit walks into such a hex when no enemy unit is there. The Allies (5.2) first
  put a unit into (or next to) each VP hex they must hold, then close on enemy units within 5
  hexes, otherwise hold their ground (in 5.4 they close on enemy units only). A unit next to an
  enemy unit stays.
- **HQ, Trains, flips.** The HQ moves first, along roads (it ends in a road hex, 5.4d), toward
  the goals, keeping every unit now in its Command Radius in it (``hq_paths``); after the moves
  the Combat Trains go to a Legal hex at Optimal Distance (``trains_hex``; 'regular' when they
  are Ghost there): a Formation without Legal Trains rolls its SNAFU at -3. A unit within 2
  hexes of an enemy unit flips to a side with an Assault Arrow, one far from the enemy back to
  the faster side (``flips``).
- **Minefields** (BbF 3.1a) go where the Axis comes: a road hex without an Allied unit (a unit
  in a minefield has the DRM against it too), nearest the Axis units.
- **Defence** is its standing orders (bot.HEURISTIC_STANDING): the best AR defends, losses
  spread, the strongest AV unit is engaged; every other topic its first mode.
- **Not built.** The exit victory (BbF 4.0) is not played for: the bot never writes `exit`.
"""

from __future__ import annotations

import random

import msgspec

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs import actions
from pbem.games.bcs.board import at, bdata, face, is_av
from pbem.games.bcs.combat import attacker_drms, defender_drms, defending_ar_unit, modifier
from pbem.games.bcs.engage import engagement_target, host_target, in_range
from pbem.games.bcs.orders import Attack, Engage, Fires, Order, Shock
from pbem.games.bcs.standin import standin
from pbem.games.bcs.stopping import providers, stopping_engagement
from pbem.games.bcs.support import has_access
from pbem.games.bcs.state import BcsState, Piece, other
from pbem.games.bcs.victory import SPRING_WIND_ALLIED, SPRING_WIND_AXIS
from pbem.games.bcs.view import build_view

ATTACK_AT = 0.35             # the least expected score worth the dice
GOAL_AT = -0.05              # the Axis's least score against a VP hex it must take (net +1)
LAST_AT = -0.5               # the same on the scenario's last turn (net 0 and better)
REACH = 8                    # a VP hex this near a unit of the Formation gets an OBJ first
HOLD = 5                     # Allied units close on enemy units at most this far away
THROWS = [(a + b) for a in range(1, 7) for b in range(1, 7)]


class Stop(Exception):
    """The planned order rolls dice (the bot's stretch stops there)."""


class StopAtDice:
    """A dice source that stops at the first roll."""

    def roll(self, action: int, index: int, sides: int, cls: str = "all") -> int:
        """Stop: the order rolls dice."""
        raise Stop()


def copy(state: BcsState) -> BcsState:
    """A copy of a state sharing nothing with it."""
    return msgspec.json.decode(msgspec.json.encode(state), type=BcsState)


def legal(state: BcsState, side: str, order: Order) -> bool:
    """Whether an order is legal up to its first die (or up to a question it asks): tried on a
    copy."""
    trial = copy(state)
    try:
        actions.apply(trial, side, order, Context(StopAtDice()))
    except IllegalOrder:
        return False
    except Stop:
        return True
    return True


def combat_score(total_drm: int, prepared: bool, attack_steps: int) -> float:
    """The expected result of a Combat Table roll whose net difference is total_drm."""
    rows = bdata().tables["combat"].rows
    score = 0.0
    for throw in THROWS:
        t = throw + total_drm
        band = next(b for b in rows if (b.lo is None or t >= b.lo) and (b.hi is None or t <= b.hi))
        loss = band.loss
        if loss == "[A1]":
            loss = "A1" if prepared else ""
        if loss.startswith("A"):
            score -= min(int(loss[1:]), attack_steps)
        elif loss.startswith("D"):
            score += int(loss[1:])
        if band.retreat == "D: Retreat":
            score += 1.0
        elif band.retreat == "D: Situational":
            score += 0.5
    return score / len(THROWS)


def engagement_score(diff: int) -> float:
    """The expected result of an Engagement (Support Not Involved row) at a net difference."""
    score = 0.0
    for throw in THROWS:
        t = throw + diff
        score += 1.5 if t >= 9 else 0.0 if t >= 6 else -1.0
    return score / len(THROWS)


def _defenders(know: BcsState, side: str, hex_id: str) -> list[Piece]:
    return sorted((p for p in at(know, hex_id) if p.side == other(side) and p.kind == "unit"),
                  key=lambda p: p.id)


def likely_target(know: BcsState, unit: Piece, hex_id: str) -> Piece | None:
    """The unit the defender would engage in hex_id by his likely choice (7.1e, 6.0i-5): in a
    Stopping Engagement any unit giving the AV EZOC into the Firer's hex, across hexes (Real AV
    before Support), else one in the hex (Real AV before a supported unit); the strongest unless
    his standing order, where the bot knows it, says top."""
    foe = other(unit.side)
    store = know.private.get(foe)
    how = "top" if store is not None and store.standing.get("engaged") == "top" else "strongest"
    if unit.status == "map" and stopping_engagement(know, unit, hex_id):
        group = providers(know, unit)
    else:
        units = _defenders(know, unit.side, hex_id)
        group = [p for p in units if is_av(p)] or [p for p in units if has_access(know, p)]
    if not group:
        return None
    real = [p for p in group if is_av(p)]
    if how == "top":
        here = [p for p in (real or group) if p.hex == hex_id] or \
            [p for p in (real or group) if p.hex == min(q.hex for q in (real or group))]
        return engagement_target(here, "top") if real else host_target(here, "top")
    if real:
        return max(real, key=lambda p: (target_base(p), p.hex == hex_id, p.id))
    return max(group, key=lambda p: (target_base(p), p.hex == hex_id, p.id))


def target_base(p: Piece) -> int:
    """A target's Engagement base: AV plus AR, or for a supported unit its AR and the best
    Support AV it might have (counted as 2: the bot cannot see it)."""
    g = face(p)
    ar = bdata().units[p.id].ar
    return (g.av or 0) + ar if g is not None and is_av(p) else ar + 2


def score_order(know: BcsState, side: str, order: Order) -> float:
    """The expected result of an Attack, Shock Attack or Engagement on the bot's knowledge."""
    defenders = _defenders(know, side, order.hex)
    unit = know.pieces.get(order.unit)
    if not defenders or unit is None:
        return -9.0
    ar = bdata().units
    if isinstance(order, Engage):
        target = likely_target(know, unit, order.hex)
        if target is None:
            return -9.0
        f = face(unit)
        firer = (f.av or 0) + ar[unit.id].ar if f is not None else 0
        if f is not None and f.av_class == "limited":
            firer -= 1
        return engagement_score(firer - target_base(target))
    helper = know.pieces.get(order.assist) if isinstance(order, Attack) and order.assist else None
    att = attacker_drms(know, unit, helper, order.hex)
    if isinstance(order, Shock):
        f = face(unit)
        if f is not None and f.breakthrough:
            att.append(("Breakthrough", modifier("Breakthrough AV Unit")))
    if order.fires is not None and order.fires.mission == "suppression":
        att.append(("Suppression", 2))
    ar_unit = defending_ar_unit(defenders, "best-ar")
    dfn = defender_drms(know, ar_unit, defenders, unit.hex)
    total = ar[unit.id].ar + sum(v for _, v in att) - ar[ar_unit.id].ar - sum(v for _, v in dfn)
    return combat_score(total, False, unit.steps)


def reserve(state: BcsState, fid: str) -> str:
    """The unit a Formation keeps back: with three or more on the map, the one nearest its HQ
    among those not next to an enemy unit (a unit in contact is no reserve)."""
    form = state.formations[fid]
    hq = state.pieces[form.hq]
    units = sorted(p.id for p in state.pieces.values()
                   if p.formation == fid and p.kind == "unit" and p.status == "map")
    if len(units) < 3 or hq.status != "map":
        return ""
    grid = bdata().game_map.grid
    foes = {p.hex for p in state.pieces.values()
            if p.side != form.side and p.kind == "unit" and p.status == "map"}
    free = [u for u in units if not foes & set(grid.neighbours(state.pieces[u].hex))]
    if not free:
        return ""
    return min(free, key=lambda u: (grid.distance(state.pieces[u].hex, hq.hex), u))


def candidates(state: BcsState, side: str, keep: str) -> list[Order]:
    """Every Attack, Shock Attack and Engagement the active Formation's units might make."""
    act = state.activation
    assert act is not None
    grid = bdata().game_map.grid
    own = sorted((p for p in state.pieces.values() if p.formation == act.formation
                  and p.kind == "unit" and p.status == "map" and p.id != keep),
                 key=lambda p: p.id)
    enemy = sorted({p.hex for p in state.pieces.values()
                    if p.side != side and p.kind == "unit" and p.status == "map"})
    out: list[Order] = []
    screens = {p.hex for p in state.pieces.values() if p.side != side and p.screen
               and p.status == "map"}              # never Attacked on the Combat Table (1.5d)
    for u in own:
        for h in enemy:
            d = grid.distance(u.hex, h)
            if d > 4:
                continue
            screened = h in screens
            if d == 1 and not screened:
                helpers = [""] + [a.id for a in own if a.id != u.id
                                  and h in grid.neighbours(a.hex)
                                  and (a.hex == u.hex or a.hex in grid.neighbours(u.hex))]
                for a in helpers if arrow(u) else []:
                    out.append(Attack(hex=h, unit=u.id, assist=a))
                    out.append(Attack(hex=h, unit=u.id, assist=a,
                                      fires=Fires(mission="suppression", arty=1)))
                out.append(Shock(hex=h, unit=u.id))
            if is_av(u) and in_range(u, u.hex, h):
                out.append(Engage(hex=h, unit=u.id))
    return out


def threshold(state: BcsState, side: str, hex_id: str, vp: set[str]) -> float:
    """The least score worth the dice against hex_id: ATTACK_AT, or for the Axis against a VP
    hex it plays for and does not hold GOAL_AT (LAST_AT on the scenario's last turn): sitting
    next to it loses the game."""
    if side == "axis" and hex_id in vp and state.control.get(hex_id) != side:
        return LAST_AT if state.turn >= len(state.dates) else GOAL_AT
    return ATTACK_AT


def arrow(p: Piece) -> bool:
    """Whether the unit's side showing has an Assault Arrow (the Attack unit needs one, 7.2)."""
    f = face(p)
    return f is not None and f.assault_arrow


def best_attack(state: BcsState, side: str, keep: str) -> str:
    """The best Attack, Shock Attack or Engagement worth its dice (threshold), or ''."""
    from pbem.games.bcs.orders import format_order
    know = standin(build_view(state, side), side)
    vp = set(vp_goals(state, side))
    scored = []
    for order in candidates(state, side, keep):
        s = score_order(know, side, order)
        if s >= threshold(state, side, order.hex, vp):
            scored.append((s, format_order(order), order))
    for s, text, order in sorted(scored, key=lambda x: (-x[0], x[1])):
        if legal(state, side, order):
            return text
    return ""


def vp_goals(state: BcsState, side: str) -> list[str]:
    """The VP hexes in the playing area side plays for: in 5.2 the Axis's three named places
    and the 'Either' hexes (his 'one other'), the Allies' two; in a campaign game (4.1) the
    Axis's drawn objective's hexes and the 'Either' ones (the 'Either' ones until he knows
    it), the Allies' every VP hex (they cannot know which count)."""
    from pbem.games.bcs.board import on_area
    from pbem.games.bcs.objective import NAMES
    gm = bdata().game_map
    v = bdata().scenarios[state.scenario].victory
    if v.kind == "spring_wind":
        if side == "allied":
            return [gm.hex_of(x) for x in SPRING_WIND_ALLIED]
        named = [gm.hex_of(x) for x in SPRING_WIND_AXIS]
        either = sorted(p.hex for p in gm.data.place if "vp_either" in p.kinds)
        out = named + [h for h in either if h not in named]
    elif side == "axis":
        obj = state.objective or state.private["axis"].objective
        out = bdata().vp_hexes(NAMES[obj]) if obj else \
            sorted(p.hex for p in gm.data.place if "vp_either" in p.kinds)
    else:
        out = sorted(p.hex for p in gm.data.place if "victory" in p.kinds)
    return [h for h in out if on_area(state, h)]


def goals(state: BcsState, side: str, fid: str) -> list[str]:
    """Where the Formation's units head for (the module's docstring, "Goals")."""
    gm = bdata().game_map
    grid = gm.grid
    own = [p for p in state.pieces.values() if p.side == side and p.kind == "unit"
           and p.status == "map"]
    mine = [p for p in own if p.formation == fid]
    enemy = sorted({p.hex for p in state.pieces.values() if p.side != side
                    and p.kind == "unit" and p.status == "map"})
    near = [h for h in enemy if any(grid.distance(h, p.hex) <= HOLD for p in mine)]
    if side == "axis":
        return [h for h in vp_goals(state, side) if state.control.get(h) != "axis"] or near
    if bdata().scenarios[state.scenario].victory.kind != "spring_wind":
        return near
    vp = [gm.hex_of(x) for x in SPRING_WIND_ALLIED]
    unguarded = [h for h in vp if not any(grid.distance(p.hex, h) <= 1 for p in own)]
    return unguarded + near


def obj_hexes(state: BcsState, side: str, fid: str) -> list[str]:
    """Where the Formation's Combat OBJs go first (4.3b, BbF 4.1: no unit may enter an
    enemy-controlled VP hex without a friendly OBJ in it): the VP hexes it plays for and does
    not hold within REACH of its units and the enemy hexes within 3, nearest first (a VP hex
    counted 3 nearer)."""
    grid = bdata().game_map.grid
    own = [p.hex for p in state.pieces.values()
           if p.formation == fid and p.kind == "unit" and p.status == "map"]
    if not own:
        return []
    enemy = {p.hex for p in state.pieces.values()
             if p.side != side and p.kind == "unit" and p.status == "map"}
    vp = {h for h in vp_goals(state, side) if state.control.get(h) != side} \
        if side == "axis" else set()

    def far(h: str) -> int:
        """The distance to the nearest unit of the Formation."""
        return min(grid.distance(h, o) for o in own)
    hexes = [h for h in vp if far(h) <= REACH] + [h for h in enemy - vp if far(h) <= 3]
    return sorted(hexes, key=lambda h: (far(h) - (3 if h in vp else 0), h))


def flips(state: BcsState, side: str, fid: str) -> list[str]:
    """The Formation's units to flip before the Activities (5.6a): to the side with an Assault
    Arrow when within 2 hexes of an enemy unit (an Attack unit needs one, 7.2), back to the
    faster side when no enemy unit is within HOLD hexes."""
    grid = bdata().game_map.grid
    enemy = {p.hex for p in state.pieces.values()
             if p.side != side and p.kind == "unit" and p.status == "map"}
    out = []
    for p in sorted(state.pieces.values(), key=lambda q: q.id):
        if p.formation != fid or p.kind != "unit" or p.status != "map":
            continue
        u = bdata().units[p.id]
        if u.deployed is None:
            continue
        now, new = (u.deployed, u.move) if p.face == "deployed" else (u.move, u.deployed)
        far = min((grid.distance(p.hex, h) for h in enemy), default=99)
        if far <= 2 and new.assault_arrow and not now.assault_arrow:
            out.append(p.id)
        elif far > HOLD and new.ma > now.ma and not (new.assault_arrow and far <= 2):
            out.append(p.id)
    return out


def hq_paths(state: BcsState, side: str, hq: Piece, targets: list[str],
             budget: int = 12) -> list[list[str]]:
    """Paths for an HQ toward its goals (an HQ ends a move in a non-railroad road hex, 5.4d):
    the cheapest walks (a step along a road 1, another 3) of at most budget from its hex,
    through no enemy unit, to a road hex no nearer than 2 hexes to an enemy unit, nearer the
    nearest goal and keeping every unit now in Command Radius in it (4.2a; Isolation costs
    steps), the nearest the goal first (at most 6)."""
    import heapq

    from pbem.games.bcs.supply import _graph
    from pbem.games.bcs.terrain import ROAD_KINDS, is_road_hex
    grid = bdata().game_map.grid
    if not targets or hq.status != "map":
        return []
    graph = _graph(ROAD_KINDS[:3])
    goal = min(targets, key=lambda h: (grid.distance(hq.hex, h), h))
    enemy = {p.hex for p in state.pieces.values()
             if p.side != side and p.kind == "unit" and p.status == "map"}
    cost = {hq.hex: 0}
    parent = {hq.hex: ""}
    todo = [(0, hq.hex)]
    while todo:
        c, h = heapq.heappop(todo)
        if c > cost[h]:
            continue
        roads = graph.get(h, ())
        for n in grid.neighbours(h):
            if n in enemy:
                continue
            k = c + (1 if n in roads else 3)
            if k <= budget and k < cost.get(n, budget + 1):
                cost[n], parent[n] = k, h
                heapq.heappush(todo, (k, n))
    r = bdata().hqs[hq.id].command_radius
    units = [p.hex for p in state.pieces.values() if p.formation == hq.formation
             and p.kind == "unit" and p.status == "map" and grid.distance(p.hex, hq.hex) <= r]
    now = grid.distance(hq.hex, goal)
    ends = sorted((h for h in parent if h != hq.hex and grid.distance(h, goal) < now
                   and is_road_hex(h) and all(grid.distance(h, e) > 2 for e in enemy)
                   and all(grid.distance(h, u) <= r for u in units)),
                  key=lambda h: (grid.distance(h, goal), cost[h], h))
    out = []
    for end in ends[:6]:
        path = [end]
        while parent[path[-1]] != hq.hex:
            path.append(parent[path[-1]])
        out.append(path[::-1])
    return out


def trains_hex(state: BcsState, side: str, fid: str) -> str:
    """Where the heuristic bot puts the Formation's Combat Trains (10.3): '' when they are Legal
    at Optimal Distance already (then 'regular' if Ghost, 10.3b), else the first Legal hex at
    Optimal Distance (10.3c) among the Primary and Secondary road hexes nearest 8 hexes from the
    HQ, then the Supply Sources and Entry hexes nearest it (a Legal hex only when none is at
    Optimal Distance), or ''."""
    from pbem.games.bcs.supply import SUPPLY_ROADS, legal_hex, msr, optimal, road_hexes
    form = state.formations[fid]
    tr, hq = state.pieces[form.trains], state.pieces[form.hq]
    if hq.status != "map" or (tr.status == "off" and tr.arrives > state.turn):
        return ""
    m = msr(state, form)
    if m is not None and optimal(state, form, m):
        return "regular" if tr.ghost else ""
    grid = bdata().game_map.grid
    near = sorted((h for h in road_hexes(SUPPLY_ROADS) if 3 <= grid.distance(h, hq.hex) <= 15),
                  key=lambda h: (abs(grid.distance(h, hq.hex) - 8), h))
    from pbem.games.bcs.supply import entry_area_hexes, sources
    back = sorted((h for h in sources(state, side) | entry_area_hexes()
                   if h not in near[:16] and grid.distance(h, hq.hex) <= 15),
                  key=lambda h: (grid.distance(h, hq.hex), h))
    fallback = ""
    for h in near[:16] + back[:6]:
        n = legal_hex(state, side, h, hq.hex)
        if n is None:
            continue
        if optimal(state, form, n):
            return h
        fallback = fallback or h
    return "" if m is not None else fallback


def path_toward(state: BcsState, start: str, targets: list[str], rng: random.Random,
                steps: int = 6, enter: frozenset[str] = frozenset(),
                avoid: frozenset[str] = frozenset()) -> list[str]:
    """A greedy walk from start toward the nearest target (ties at random), ending next to it,
    or in it when it is one of enter (a VP hex without an enemy unit), through no hex of avoid
    (the enemy's HQs and Trains: the engine's jump of an HQ costs about a second to plan)."""
    grid = bdata().game_map.grid
    if not targets:
        return [start]
    goal = min(targets, key=lambda h: (grid.distance(start, h), h))
    stop = 0 if goal in enter else 1
    path = [start]
    for _ in range(steps):
        here = path[-1]
        if grid.distance(here, goal) <= stop:
            break
        options = [n for n in grid.neighbours(here) if n not in path and n not in avoid]
        if not options:
            break
        best = min(grid.distance(n, goal) for n in options)
        path.append(rng.choice(sorted(n for n in options if grid.distance(n, goal) == best)))
    return path


def minefield(state: BcsState, choices: list[str]) -> str:
    """The `mine HEX` line to choose (BbF 3.1a): a hex with no Allied unit first (the DRM would
    be against it), then a road hex (no road negates a minefield), then the nearest the Axis
    units, then the hex id."""
    from pbem.games.bcs.terrain import is_road_hex

    grid = bdata().game_map.grid
    axis = [p.hex for p in state.pieces.values()
            if p.side == "axis" and p.kind == "unit" and p.status == "map"]
    allied = {p.hex for p in state.pieces.values()
              if p.side == "allied" and p.kind == "unit" and p.status == "map"}

    def key(line: str) -> tuple[bool, bool, int, str]:
        """Allied unit there, off road, distance to the Axis, hex."""
        h = line.split()[1]
        return (h in allied, not is_road_hex(h),
                min((grid.distance(h, a) for a in axis), default=0), h)
    return min(choices, key=key)
