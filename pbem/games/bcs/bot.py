"""The random bot: legal orders for the pending decision, planned on a copy of the state.

Every line is applied to the copy as it is written, so it is legal when written; the bot stops
after the first order that may roll dice (``activate``, ``second``, ``attack``, ``end``), as
later lines could not know the dice. In an Activation it places Combat OBJs on enemy hexes near
its units, moves, then now and then attacks, Shock Attacks or engages with a unit next to an
enemy (an Attack with a Suppression Barrage, a Barrage Mission spotted by the unit or an Attack
by Fire are among the choices).
"""

from __future__ import annotations

import random

import msgspec

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs import actions, heuristic
from pbem.games.bcs.combat import STANDING
from pbem.games.bcs.reactions import OWN_TOPICS
from pbem.games.bcs.board import bdata, combat_count, entry_hexes
from pbem.games.bcs.orders import (Attack, Barrage, Engage, Fire, Fires, Flip, Move, Obj, Order,
                                   Setup, Shock, Trains, format_order)
from pbem.games.bcs.terrain import hex_row
from pbem.games.bcs.supply import SUPPLY_ROADS, msr, road_hexes
from pbem.games.bcs.sequence import pending
from pbem.games.bcs.state import BcsState

MAX_MOVES = 8


class _Rolled(Exception):
    pass


class _StopAtDice:
    """A dice source that stops the planning at the first roll."""

    def roll(self, action: int, index: int, sides: int, cls: str = "all") -> int:
        """Stop: the order being planned rolls dice."""
        raise _Rolled()


def play(state: BcsState, side: str, rng: random.Random, style: str = "random") -> list[str]:
    """Order lines for side's pending decision (random legal play, or heuristic), after the
    standing orders it has not set yet."""
    decisions = [d for d in pending(state) if d.side == side]
    if not decisions:
        return []
    lines = standing(state, side, rng, style)
    d = decisions[0]
    if d.kind == "setup":
        return lines + _setup(state, side, rng, style)
    if d.choices and style == "heuristic":
        return lines + [_choose(state, side, d.kind, list(d.choices), rng)]
    if d.choices:
        return lines + [rng.choice(list(d.choices))]
    if style == "heuristic":
        return lines + _heuristic(state, side, rng)
    return lines + _activities(state, side, rng, style)


def _choose(state: BcsState, side: str, kind: str, choices: list[str],
            rng: random.Random) -> str:
    """The heuristic bot's pick: take the first Activation, try every Second Activation,
    activate the Formation with the most units near the enemy (then at random), a Minefield
    across the enemy's road nearest him (heuristic.minefield), answer a question with the
    engine's choice (it is never asked: its standing orders answer)."""
    if kind == "first-player":
        return "first take"
    if kind == "minefield":
        return heuristic.minefield(state, choices)
    if kind == "second-activation":
        return "second"
    if kind != "activate":
        return choices[0]
    grid = bdata().game_map.grid
    enemy = [p.hex for p in state.pieces.values()
             if p.side != side and p.kind == "unit" and p.status == "map"]

    def near(line: str) -> int:
        """Units of the Formation within 4 hexes of an enemy unit."""
        fid = line.split()[1]
        return sum(1 for p in state.pieces.values() if p.formation == fid and p.kind == "unit"
                   and p.status == "map" and any(grid.distance(p.hex, h) <= 4 for h in enemy))
    best = max(near(c) for c in choices)
    return rng.choice([c for c in choices if near(c) == best])


def _heuristic(state: BcsState, side: str, rng: random.Random) -> list[str]:
    """The heuristic Activation (heuristic.py): OBJs on the VP hexes it plays for and the
    nearest enemy hexes, flips (heuristic.flips), the HQ along a road toward the goals, each
    unit but the reserve and those next to an enemy unit along a greedy walk toward its goals
    (into an empty VP hex it plays for), the Trains where they are Legal, then the best Attack
    worth its dice (the stretch stops at its dice), else 'end'."""
    s = msgspec.convert(msgspec.to_builtins(state), type=BcsState)
    act = s.activation
    assert act is not None
    lines: list[str] = _goal_objs(s, side)
    if not act.began and not act.recovery:
        for uid in heuristic.flips(s, side, act.formation):
            if _try(s, side, Flip(unit=uid)) is True:
                lines.append(format_order(Flip(unit=uid)))
    keep = heuristic.reserve(s, act.formation)
    if act.recovery:
        return lines + _heuristic_trains(s, side) + ["end"]
    enemy = {q.hex for q in s.pieces.values()
             if q.side != side and q.kind == "unit" and q.status == "map"}
    enter = frozenset(h for h in heuristic.vp_goals(s, side)
                      if h not in enemy and s.control.get(h) != side)
    avoid = frozenset(q.hex for q in s.pieces.values()
                      if q.side != side and q.kind in ("hq", "trains") and q.status == "map")
    units = sorted(p.id for p in s.pieces.values()
                   if p.formation == act.formation and p.kind in ("unit", "hq")
                   and p.status in ("map", "off") and p.id != keep)
    targets = heuristic.goals(s, side, act.formation)
    grid = bdata().game_map.grid
    units.sort(key=lambda u: (s.pieces[u].kind != "hq",      # the HQ first: the units may
                              min((grid.distance(s.pieces[u].hex, t) for t in targets),
                                  default=0) if s.pieces[u].status == "map" else 0))
    for uid in units[:MAX_MOVES]:
        p = s.pieces[uid]
        if p.status == "off" and (p.arrives > s.turn or not entry_hexes(s, p)):
            continue
        if not targets:
            continue
        if p.kind == "hq" and p.status == "map":
            for path in heuristic.hq_paths(s, side, p, targets):
                if _try(s, side, Move(units=[uid], path=path)) is True:
                    lines.append(format_order(Move(units=[uid], path=path)))
                    break
            if s.wait is not None:
                return lines
            continue
        if p.status == "map" and enemy & set(grid.neighbours(p.hex)):
            continue                          # in contact: it stays and fights
        start = rng.choice(entry_hexes(s, p)) if p.status == "off" else p.hex
        path = heuristic.path_toward(s, start, targets, rng,
                                     enter=enter if p.kind == "unit" else frozenset(),
                                     avoid=avoid)
        steps = path if p.status == "off" else path[1:]
        for cut in range(len(steps), 0, -1):
            order = Move(units=[uid], path=steps[:cut])
            if p.kind == "unit" and combat_count(s, steps[cut - 1]) >= 2:
                continue
            if _try(s, side, order) is True:
                lines.append(format_order(order))
                break
        if s.wait is not None:
            return lines
    lines += _heuristic_trains(s, side)
    attack = heuristic.best_attack(s, side, keep)
    lines.append(attack or "end")
    return lines


def _heuristic_trains(s: BcsState, side: str) -> list[str]:
    """The heuristic bot's Trains line after its moves (heuristic.trains_hex), legal on the
    copy, or none."""
    act = s.activation
    assert act is not None
    to = heuristic.trains_hex(s, side, act.formation)
    if not to or (act.recovery and to != "regular"):
        return []
    order = Trains(formation=act.formation, to=to)
    return [format_order(order)] if _try(s, side, order) is True else []


#: The heuristic bot's standing orders: the best AR defends (the Combat Table reads it), losses
#: spread so that the AR unit stays (a unit with one step still defends and ZOCs), the
#: strongest AV unit is engaged. A topic not listed gets its first mode.
HEURISTIC_STANDING = {"defense": "best-ar", "losses": "spread", "engaged": "strongest"}


#: The owner's own topics the bots answer by standing order (the engine's choice): questions of
#: the Reinforcement Phase, asked inside the resumption of another side's order, after which a
#: hosted player's stand-in cannot check the rest of his stretch (docs/bcs.md, "What a hosted
#: player's check cannot see").
PRE_TURN_OWN = ("arrival-side", "rebuilt", "repls")


def standing(state: BcsState, side: str, rng: random.Random, style: str) -> list[str]:
    """`standing TOPIC MODE` for every topic of combat.STANDING side has not set yet: the
    heuristic bot's choices, or (random) a random mode, one time in four 'ask' (it is then
    asked, and answers at random); then the engine's choice for PRE_TURN_OWN; the owner's other
    topics (reactions.OWN_TOPICS: restack) it answers when asked."""
    store = state.private[side].standing
    out = []
    for topic, modes in sorted(STANDING.items()):     # OWN_TOPICS: asked, answered then
        if topic in store:
            continue
        if style == "heuristic":
            mode = HEURISTIC_STANDING.get(topic, modes[0])
            mode = mode if mode in modes else modes[0]
        else:
            mode = "ask" if rng.random() < 0.25 else rng.choice(list(modes))
        out.append(f"standing {topic} {mode}")
    for topic in PRE_TURN_OWN:
        if topic not in store:
            out.append(f"standing {topic} {OWN_TOPICS[topic][0]}")
    return out


def _trains(s: BcsState, side: str, rng: random.Random) -> list[str]:
    """Place Trains that are off the map or not Legal in a random Legal hex near the HQ."""
    act = s.activation
    assert act is not None
    form = s.formations[act.formation]
    tr, hq = s.pieces[form.trains], s.pieces[form.hq]
    if act.recovery or hq.status != "map" or (tr.status == "map" and msr(s, form) is not None) \
            or (tr.status == "off" and tr.arrives > s.turn):
        return []
    grid = bdata().game_map.grid
    near = sorted(h for h in road_hexes(SUPPLY_ROADS) if grid.distance(h, hq.hex) <= 12)
    rng.shuffle(near)
    for h in near[:12]:
        order = Trains(formation=form.id, to=h)
        try:
            actions.apply(s, side, order, Context(_StopAtDice()))
        except (IllegalOrder, _Rolled):
            continue
        return [format_order(order)]
    return []


def _setup(state: BcsState, side: str, rng: random.Random, style: str) -> list[str]:
    """The Set-up decision (1.4A, 1.4D, 1.4E): each counter of a zone placed (random: a random
    hex of the zone that takes it; heuristic: combat terrain first, then nearest its HQ, then
    the hex id), then (random) about one unit in three on its other side (the heuristic bot
    keeps the printed Move sides: mobility first); 'setup done'."""
    from pbem.games.bcs.setupphase import choosable, zone_of
    s = msgspec.convert(msgspec.to_builtins(state), type=BcsState)
    grid = bdata().game_map.grid
    out: list[str] = []
    for pid in sorted(c for c in s.setup_zones
                      if s.pieces[c].side == side and s.pieces[c].status == "setup"):
        hexes = zone_of(s, pid)
        if style == "heuristic":
            hq = s.pieces[s.formations[s.pieces[pid].formation].hq] \
                if s.pieces[pid].formation else None
            near = hq.hex if hq is not None and hq.status == "map" else hexes[0]
            hexes.sort(key=lambda h: (bdata().terrain[hex_row(h)].combat != "yes",
                                      grid.distance(near, h), h))
        else:
            rng.shuffle(hexes)
        for h in hexes:
            order = Setup(unit=pid, hex=h)
            if _try(s, side, order) is True:
                out.append(format_order(order))
                break
    if style != "heuristic":
        for uid in choosable(s, side):
            if rng.random() < 1 / 3:
                order = Setup(unit=uid, face="move" if s.pieces[uid].face == "deployed"
                              else "deployed")
                if _try(s, side, order) is True:
                    out.append(format_order(order))
    return out + ["setup done"]


def _try(s: BcsState, side: str, order: Order) -> bool | None:
    """Apply an order to the copy: True if legal, None if legal up to its first die or up to a
    question it asks the enemy (the stretch stops there too), else False."""
    try:
        actions.apply(s, side, order, Context(_StopAtDice()))
    except IllegalOrder:
        return False
    except _Rolled:
        return None
    return None if s.wait is not None else True


def _goal_objs(s: BcsState, side: str) -> list[str]:
    """The heuristic bot's Combat OBJs (4.3): on heuristic.obj_hexes in order, each legal on
    the copy, as many as the Formation may place."""
    act = s.activation
    assert act is not None
    if act.began or act.recovery:
        return []
    out: list[str] = []
    for h in heuristic.obj_hexes(s, side, act.formation)[:6]:
        if _try(s, side, Obj(hex=h)) is True:
            out.append(format_order(Obj(hex=h)))
    return out


def _objs(s: BcsState, side: str, rng: random.Random, nearest: bool = False) -> list[str]:
    """Combat OBJs on enemy hexes within 3 hexes of the active Formation's units (4.3): at
    random, or (nearest) the nearest first."""
    act = s.activation
    assert act is not None
    if act.began or act.recovery:
        return []
    grid = bdata().game_map.grid
    own = {p.hex for p in s.pieces.values()
           if p.formation == act.formation and p.kind == "unit" and p.status == "map"}
    near = sorted({p.hex for p in s.pieces.values() if p.side != side and p.kind == "unit"
                   and p.status == "map" and any(grid.distance(p.hex, o) <= 3 for o in own)})
    rng.shuffle(near)
    if nearest:
        near.sort(key=lambda h: min(grid.distance(h, o) for o in own))
    return [format_order(Obj(hex=h)) for h in near[:2] if _try(s, side, Obj(hex=h))]


def _attack(s: BcsState, side: str, rng: random.Random) -> str:
    """A Regular or Shock Attack, an Engagement or an Attack by Fire by a unit of the active
    Formation next to an enemy hex, or a Barrage it spots within 4 hexes (8.1a), or ''."""
    act = s.activation
    assert act is not None
    grid = bdata().game_map.grid
    units = sorted(p.id for p in s.pieces.values()
                   if p.formation == act.formation and p.kind == "unit" and p.status == "map")
    rng.shuffle(units)
    enemy = sorted({p.hex for p in s.pieces.values() if p.side != side and p.status == "map"})
    for uid in units:
        here = s.pieces[uid].hex
        for h in enemy:
            far = grid.distance(here, h)
            if far > 4:
                continue
            kinds: list[Order] = [Barrage(hex=h, spotter=uid, arty=1)]
            if far == 1:
                kinds += [Attack(hex=h, unit=uid), Shock(hex=h, unit=uid),
                          Engage(hex=h, unit=uid), Fire(hex=h, unit=uid),
                          Attack(hex=h, unit=uid, fires=Fires(mission="suppression", arty=1))]
            rng.shuffle(kinds)
            for order in kinds:
                if _try(s, side, order) is None:
                    return format_order(order)
    return ""


def _path(s: BcsState, p, rng: random.Random, style: str, enemy: list[str]) -> list[str]:
    """A random walk of 1-4 hexes from the piece's hex (or an Entry hex); the heuristic style
    draws six and keeps the one ending nearest an enemy unit."""
    grid = bdata().game_map.grid
    walks = []
    for _ in range(6 if style == "heuristic" and enemy else 1):
        path = [rng.choice(entry_hexes(s, p))] if p.status == "off" else [p.hex]
        for _ in range(rng.randint(1, 4)):
            path.append(rng.choice(grid.neighbours(path[-1])))
        walks.append(path)
    if len(walks) > 1:
        walks.sort(key=lambda w: min(grid.distance(w[-1], h) for h in enemy))
    return walks[0]


def _activities(state: BcsState, side: str, rng: random.Random,
                style: str = "random") -> list[str]:
    """Random OBJs and moves of the active Formation's units, each legal on the copy, then
    sometimes an Attack (the stretch stops at its dice), else 'end'. The heuristic style moves
    toward the enemy and attacks whenever it can."""
    s = msgspec.convert(msgspec.to_builtins(state), type=BcsState)
    act = s.activation
    assert act is not None
    lines: list[str] = _objs(s, side, rng) + _trains(s, side, rng)
    units = sorted(p.id for p in s.pieces.values()
                   if p.formation == act.formation and p.kind in ("unit", "hq")
                   and p.status in ("map", "off"))
    rng.shuffle(units)
    enemy = sorted({q.hex for q in s.pieces.values()
                    if q.side != side and q.kind == "unit" and q.status == "map"})
    for uid in units[:MAX_MOVES]:
        p = s.pieces[uid]
        if p.status == "off" and (p.arrives > s.turn or not entry_hexes(s, p)):
            continue
        path = _path(s, p, rng, style, enemy)
        steps = path if p.status == "off" else path[1:]
        for cut in range(len(steps), 0, -1):
            order = Move(units=[uid], path=steps[:cut])
            end = steps[cut - 1]
            if p.kind == "unit" and combat_count(s, end) >= 2:
                continue
            try:
                actions.apply(s, side, order, Context(_StopAtDice()))
            except (IllegalOrder, _Rolled):
                continue
            lines.append(format_order(order))
            break
    attack = _attack(s, side, rng) if style == "heuristic" or rng.random() < 0.5 else ""
    lines.append(attack or "end")
    return lines
