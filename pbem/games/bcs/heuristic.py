"""The heuristic bot's judgement (issue 19, item 7): where to move, whether an Attack is worth
its dice, what to keep back. It knows what its side may know: the odds are read on the stand-in
built from its own view (the enemy's top units, copies of them below, full steps, no Prepared
Defense it cannot see), never on the state itself.

- **Odds.** An Attack (with an Assist, with a Suppression Mission when the Formation has an Arty
  Point left), a Shock Attack or an Engagement is scored by its expected result over the 36
  throws of 2d6 on the chart data: on the Combat Table a defender's step +1, a D: Retreat +1, a
  Situational result +0.5, a step of the Attack unit -1 ([A1] only against Prepared Defense); on
  the Engagement Table a Target Loss +1.5, a Both Loss 0, a Firer Loss -1. The best is made when
  its score is at least ``ATTACK_AT`` (on the Combat Table a net AR ahead by 2, or even with the
  Suppression's +2: at +1 the attacker's losses still outweigh the defender's).
- **Reserve.** A Formation with three or more combat units on the map keeps the one nearest its
  HQ back: it neither moves nor attacks (it still defends).
- **Goals.** The Axis goes for the VP hexes 5.2 makes it take and for enemy units near its own;
  the Allies first put a unit into (or next to) each VP hex they must hold, then close on enemy
  units within 5 hexes, otherwise hold their ground.
- **Minefields** (BbF 3.1a) go where the Axis comes: a road hex without an Allied unit (a unit
  in a minefield has the DRM against it too), nearest the Axis units.
- **Defence** is its standing orders (bot.HEURISTIC_STANDING): the best AR defends, losses
  spread, the strongest AV unit is engaged; every other topic its first mode.
"""

from __future__ import annotations

import random

import msgspec

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs import actions
from pbem.games.bcs.board import at, bdata, face, is_av
from pbem.games.bcs.combat import attacker_drms, defender_drms, defending_ar_unit, modifier
from pbem.games.bcs.engage import engagement_target, in_range
from pbem.games.bcs.orders import Attack, Engage, Fires, Order, Shock
from pbem.games.bcs.standin import standin
from pbem.games.bcs.state import BcsState, Piece, other
from pbem.games.bcs.victory import SPRING_WIND_ALLIED, SPRING_WIND_AXIS
from pbem.games.bcs.view import build_view

ATTACK_AT = 0.35             # the least expected score worth the dice
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


def score_order(know: BcsState, side: str, order: Order) -> float:
    """The expected result of an Attack, Shock Attack or Engagement on the bot's knowledge."""
    defenders = _defenders(know, side, order.hex)
    unit = know.pieces.get(order.unit)
    if not defenders or unit is None:
        return -9.0
    ar = bdata().units
    if isinstance(order, Engage):
        avs = [p for p in defenders if is_av(p)]
        if not avs:
            return -9.0
        target = engagement_target(avs)
        f, g = face(unit), face(target)
        firer = (f.av or 0) + ar[unit.id].ar if f is not None else 0
        if f is not None and f.av_class == "limited":
            firer -= 1
        return engagement_score(firer - ((g.av or 0) if g else 0) - ar[target.id].ar)
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
    """The unit a Formation keeps back: the one nearest its HQ, with three or more on the map."""
    form = state.formations[fid]
    hq = state.pieces[form.hq]
    units = sorted(p.id for p in state.pieces.values()
                   if p.formation == fid and p.kind == "unit" and p.status == "map")
    if len(units) < 3 or hq.status != "map":
        return ""
    grid = bdata().game_map.grid
    return min(units, key=lambda u: (grid.distance(state.pieces[u].hex, hq.hex), u))


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
    for u in own:
        for h in enemy:
            d = grid.distance(u.hex, h)
            if d > 4:
                continue
            if d == 1:
                helpers = [""] + [a.id for a in own if a.id != u.id
                                  and h in grid.neighbours(a.hex)
                                  and (a.hex == u.hex or a.hex in grid.neighbours(u.hex))]
                for a in helpers:
                    out.append(Attack(hex=h, unit=u.id, assist=a))
                    out.append(Attack(hex=h, unit=u.id, assist=a,
                                      fires=Fires(mission="suppression", arty=1)))
                out.append(Shock(hex=h, unit=u.id))
            if is_av(u) and in_range(u, u.hex, h):
                out.append(Engage(hex=h, unit=u.id))
    return out


def best_attack(state: BcsState, side: str, keep: str) -> str:
    """The best Attack, Shock Attack or Engagement worth its dice, or ''."""
    from pbem.games.bcs.orders import format_order
    know = standin(build_view(state, side), side)
    scored = []
    for order in candidates(state, side, keep):
        s = score_order(know, side, order)
        if s >= ATTACK_AT:
            scored.append((s, format_order(order), order))
    for s, text, order in sorted(scored, key=lambda x: (-x[0], x[1])):
        if legal(state, side, order):
            return text
    return ""


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
        vp = [gm.hex_of(x) for x in SPRING_WIND_AXIS]
        return [h for h in vp if state.control.get(h) != "axis"] + near
    vp = [gm.hex_of(x) for x in SPRING_WIND_ALLIED]
    unguarded = [h for h in vp if not any(grid.distance(p.hex, h) <= 1 for p in own)]
    return unguarded + near


def path_toward(state: BcsState, start: str, targets: list[str], rng: random.Random,
                steps: int = 6) -> list[str]:
    """A greedy walk from start toward the nearest target (ties at random)."""
    grid = bdata().game_map.grid
    if not targets:
        return [start]
    goal = min(targets, key=lambda h: (grid.distance(start, h), h))
    path = [start]
    for _ in range(steps):
        here = path[-1]
        if grid.distance(here, goal) <= 1:
            break
        options = [n for n in grid.neighbours(here) if n not in path]
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
