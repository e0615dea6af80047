"""HQ retreats (9.1f, 9.1g): the ending hex of a retreating HQ and what the retreat does to its
Formation (Trains to Ghost, Prepared Defense removed, Coordination; activation status kept)."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import bdata, enemy_in, on_area
from pbem.games.bcs.mines import closed
from pbem.games.bcs.mixing import mark
from pbem.games.bcs.snafu import effect
from pbem.games.bcs.state import BcsState, Piece
from pbem.games.bcs.supply import enemy_msr_hexes, msr_possible
from pbem.games.bcs.terrain import is_road_hex
from pbem.games.bcs.zoc import engagement_zone, ezoc

RETREAT = 3                      # 9.1f: 3 hexes from its starting hex (farther: 9.1f note)


def why_not_end(state: BcsState, hq: Piece, to: str) -> tuple[str, str]:
    """("", "") when an HQ may end its retreat in ``to`` (9.1f), else (rule, reason): a
    non-railroad road hex 3 hexes from its hex, free of enemy pieces, EZOC, enemy Engagement
    Zones and existing enemy MSRs; farther only where a complete MSR is possible."""
    grid = bdata().game_map.grid
    if not grid.is_hex(to) or not on_area(state, to):
        return "BCS-1.1d", f"{to} is not a hex of the playing area"
    d = grid.distance(hq.hex, to)
    if d < RETREAT:
        return "BCS-9.1f-2", f"{to} is {d} hexes from {hq.hex}: an HQ retreats 3 hexes"
    if not is_road_hex(to):
        return "BCS-9.1a", f"an HQ ends its retreat in a non-railroad road hex, not {to}"
    if enemy_in(state, hq.side, to):
        return "BCS-9.1f-2", f"{to} holds an enemy piece"
    if closed(state, hq, to):
        return "BBF-3.1b-1", f"{to} is an unbreached Minefield"
    if ezoc(state, hq.side, to):
        return "BCS-9.1f-2", f"{to} is in an enemy ZOC"
    if engagement_zone(state, hq.side, to):
        return "BCS-9.1f-2", f"{to} is in an enemy Engagement Zone"
    if to in enemy_msr_hexes(state, hq.side):
        return "BCS-9.1f-2", f"{to} is on an existing enemy MSR"
    if d > RETREAT and not msr_possible(state, hq.side, to):
        return "BCS-9.1f-2", f"{to} is {d} hexes away: a retreat beyond 3 hexes must end " \
                             f"where a complete MSR is possible"
    return "", ""


def check_voluntary(state: BcsState, side: str, hq_id: str, to: str) -> Piece:
    """Check a Voluntary Retreat of the active Formation's HQ (9.1g, 7.5j): in the Activities,
    under any SNAFU result (Fail included), instead of its movement; returns the HQ."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side or act.recovery:
        raise IllegalOrder("an HQ retreats voluntarily in the Activities of its Formation's "
                           "Activation", rule="BCS-9.1g")
    hq = state.pieces.get(hq_id)
    if hq is None or hq.side != side or hq.kind != "hq" or hq.status != "map":
        raise IllegalOrder(f"{hq_id} is not one of your HQs on the map", rule="BCS-9.1g")
    if hq.formation != act.formation:
        raise IllegalOrder(f"only the active Formation's HQ may retreat voluntarily, not "
                           f"{hq_id}", rule="BCS-9.1g")
    if effect(act.snafu, "Voluntary Retreat?") not in ("Yes", "HQ Only"):
        raise IllegalOrder(f"SNAFU {act.snafu} allows no Voluntary Retreat", rule="BCS-7.5j-2")
    if hq.moved:
        raise IllegalOrder(f"{hq_id} has moved: a Voluntary Retreat is made instead of its "
                           f"movement", rule="BCS-7.5j-1")
    rule, why = why_not_end(state, hq, to)
    if rule:
        raise IllegalOrder(why, rule=rule)
    return hq


def retreat(state: BcsState, hq: Piece, to: str, ctx: Context) -> None:
    """Place a retreating HQ in its ending hex (no path, 9.1f): its Combat Trains turn Ghost,
    Prepared Defense goes, the HQ gets a Coordination marker on itself only (9.1a, 4.4a,
    errata v1.0); its activation status is unchanged (9.1h)."""
    form = state.formations[hq.formation]
    name = bdata().formations[form.id].name
    start = hq.hex
    hq.hex = to
    ctx.log(f"{name}'s HQ retreats from {start} to {to}", hexes=(start, to))
    trains = state.pieces[form.trains]
    if trains.status == "map" and not trains.ghost:
        trains.ghost = True
        ctx.log(f"{name}'s Combat Trains turn Ghost (HQ retreat)")
    if form.prepared_defense:
        form.prepared_defense = False
        ctx.log(f"{name} loses its Prepared Defense (HQ retreat)")
    mark(state, form.id, 1, "HQ retreat", ctx)         # 4.4a (Optional 5: accumulates)


def voluntary(state: BcsState, side: str, hq_id: str, to: str, ctx: Context) -> None:
    """A Voluntary Retreat of the active Formation's HQ (9.1g): checked, then carried out by
    9.1f; the moving stack's move ends, and the HQ moves no more this Activation."""
    hq = check_voluntary(state, side, hq_id, to)
    act = state.activation
    assert act is not None
    act.began = True
    for q in act.stack:
        state.pieces[q].done_moving = True
    act.stack = []
    retreat(state, hq, to, ctx)
    hq.moved = hq.finished = True


def hq_may_enter(state: BcsState, hq: Piece, hex_id: str) -> bool:
    """Whether an arriving HQ may be placed in an edge hex (ERR-BCS-1.0-3): a non-railroad road
    hex of the playing area (5.4d) free of enemy pieces, EZOC and enemy Engagement Zones (6.0f,
    6.1c)."""
    return on_area(state, hex_id) and is_road_hex(hex_id) and not enemy_in(state, hq.side, hex_id) \
        and not closed(state, hq, hex_id) and not ezoc(state, hq.side, hex_id) \
        and not engagement_zone(state, hq.side, hex_id)


FARTHEST = 15                    # how far a jumped HQ is looked for a hex beyond 3 (9.1f note)
TRAINS_BACK = 10                 # 10.3d: Trains are displaced 10 hexes back along the MSR


def may_jump(state: BcsState, p: Piece, hex_id: str) -> bool:
    """Whether a piece entering hex_id jumps the enemy pieces there (9.1f, 10.3d): the hex holds
    enemy HQs or Combat Trains and no enemy combat unit, and the piece is a combat unit showing a
    Prepared side (an Assault Arrow or an AV; Unprepared units, HQs and Trains never jump), not
    Screening (BbF errata to 1.5)."""
    from pbem.games.bcs.board import at, face

    enemy = [q for q in at(state, hex_id) if q.side != p.side]
    f = face(p)
    return bool(enemy) and all(q.kind != "unit" for q in enemy) and p.kind == "unit" \
        and not p.screen and f is not None and (f.assault_arrow or f.av is not None)


def jumped_hq_hex(state: BcsState, hq: Piece) -> str:
    """Where the owner places a displaced HQ (9.1f), by his choice for the topic `hq-retreat`
    (combat.mode): `rear` takes the first hex 3 away that passes 9.1f; then farther hexes where
    a complete MSR is possible; then (escape, errata v1.2 to 7.5a) a hex with a unit of its
    Formation meeting 9.1f's ending-location requirements (a non-railroad road hex free of enemy
    pieces, EZOC, Engagement Zones and enemy MSRs) at any distance. `pocket` takes such a hex
    with a unit of its Formation first (the HQ may escape into a pocket, ERR-BCS-1.2-4). Among
    equals: a complete MSR possible, nearest its own Trains, then the hex id (the escape: the
    nearest, then the hex id). "" when there is none."""
    from pbem.games.bcs.reactions import lookup

    grid = bdata().game_map.grid
    escape = _escapes(state, hq)
    choices = hq_choices(state, hq)
    how = lookup(state, hq.side, "hq-retreat", lambda: choices, hq.hex) \
        if len(choices) > 1 else "rear"  # no choice, no question
    if how not in ("rear", "pocket"):
        return how                       # the hex the owner chose (one of hq_choices)
    if escape and how == "pocket":
        return escape[0]
    trains = state.pieces[state.formations[hq.formation].trains]
    road = [h for h in grid.all_hexes() if on_area(state, h) and is_road_hex(h)
            and RETREAT <= grid.distance(hq.hex, h) <= FARTHEST]

    def key(h: str) -> tuple[bool, int, str]:
        near = grid.distance(h, trains.hex) if trains.status == "map" else 0
        return (not msr_possible(state, hq.side, h), near, h)

    three = [h for h in road if grid.distance(hq.hex, h) == RETREAT
             and not why_not_end(state, hq, h)[0]]
    if three:
        return min(three, key=key)
    for d in range(RETREAT + 1, FARTHEST + 1):
        ring = sorted(h for h in road if grid.distance(hq.hex, h) == d
                      and not why_not_end(state, hq, h)[0])
        if ring:
            return ring[0]
    return escape[0] if escape else ""


def _escapes(state: BcsState, hq: Piece) -> list[str]:
    """The hexes an HQ may escape to (errata v1.2 to 7.5a): a hex with a unit of its Formation
    meeting 9.1f's ending-location requirements (a non-railroad road hex free of enemy pieces,
    EZOC, Engagement Zones and enemy MSRs), at any distance; nearest first."""
    grid = bdata().game_map.grid
    own = {q.hex for q in state.pieces.values() if q.formation == hq.formation
           and q.kind == "unit" and q.status == "map"}
    return sorted((h for h in own if h != hq.hex and is_road_hex(h)
                   and not enemy_in(state, hq.side, h) and not ezoc(state, hq.side, h)
                   and not engagement_zone(state, hq.side, h)
                   and h not in enemy_msr_hexes(state, hq.side)),
                  key=lambda h: (grid.distance(hq.hex, h), h))


def hq_choices(state: BcsState, hq: Piece) -> list[str]:
    """Every hex the owner may place his displaced HQ in (9.1f, asked: 'answer hq-retreat
    HEX'): a hex 3 away meeting the ending location, one farther (up to FARTHEST) where a
    complete MSR is also possible, or an escape into a pocket (ERR-BCS-1.2-4); nearest first."""
    grid = bdata().game_map.grid
    out = set(_escapes(state, hq))
    for h in grid.within(hq.hex, FARTHEST):
        if RETREAT <= grid.distance(hq.hex, h) and on_area(state, h) and is_road_hex(h) \
                and not why_not_end(state, hq, h)[0]:
            out.add(h)
    return sorted(out, key=lambda h: (grid.distance(hq.hex, h), h))


def trains_back(state: BcsState, trains: Piece) -> str:
    """Where jumped Combat Trains go (10.3d): 10 hexes back along Primary or Secondary roads
    toward the nearest Supply Source by road (the one assumed last used), enemy units on the
    way ignored; within 10 hexes of it, the Source hex itself; never a hex with an enemy unit
    (the next hex back is taken). "" when no road leads to a Source."""
    from collections import deque

    from pbem.games.bcs.supply import SUPPLY_ROADS, _graph, sources

    graph = _graph(SUPPLY_ROADS)
    goals = sources(state, trains.side)
    prev = {trains.hex: ""}
    todo = deque([trains.hex])
    path: list[str] = []
    while todo and not path:
        h = todo.popleft()
        if h in goals:
            path = [h]
            while prev[path[-1]]:
                path.append(prev[path[-1]])
            path.reverse()
            break
        for n in graph.get(h, ()):
            if n not in prev and on_area(state, n):
                prev[n] = h
                todo.append(n)
    if path and len(path) <= TRAINS_BACK + 1:
        to = _trains_at_source(state, trains, path[-1], goals)
        if to:
            return to
    for h in path[TRAINS_BACK:] or path[-1:]:
        if h != trains.hex and not enemy_in(state, trains.side, h):
            return h
    return ""


def _trains_at_source(state: BcsState, trains: Piece, source: str,
                      goals: frozenset[str]) -> str:
    """Trains within 10 hexes of the Source they last used (10.3d): the owner stops them in
    that map edge hex or shifts them to another Entry hex Supply Source, by his choice for the
    topic `trains-retreat`: `edge` (that Source), `hq` (the Source nearest its HQ), or, asked,
    a Source hex ('answer trains-retreat B1.12'); only a hex without an enemy unit. Not read
    when there is one such hex only. "" when there is none."""
    from pbem.games.bcs.reactions import lookup

    grid = bdata().game_map.grid
    free = [h for h in sorted(goals) if h != trains.hex and not enemy_in(state, trains.side, h)]
    if not free:
        return ""
    if len(free) == 1:
        return free[0]
    options = sorted(free, key=lambda h: (h != source, grid.distance(source, h), h))
    how = lookup(state, trains.side, "trains-retreat", lambda: options, trains.hex)
    if how == "edge":
        return options[0]
    if how == "hq":
        hq = state.pieces[state.formations[trains.formation].hq]
        if hq.status != "map":
            return options[0]
        return min(options, key=lambda h: (grid.distance(hq.hex, h), h))
    return how


def jump(state: BcsState, side: str, hexes: list[str], ctx: Context, cause: str = "") -> None:
    """Enemy HQs and Combat Trains in the hexes a unit entered retreat (9.1f, 10.3d): the HQ as
    a retreating HQ (its Trains to Ghost, Prepared Defense gone, Coordination), the Trains 10
    hexes back along their roads to Ghost; with no hex for them they leave the map (the
    Trains return to any Legal hex, 10.3b; the HQ arrives at its Formation's Entry hexes).
    ``cause`` names why when it is not an enemy unit entering (the stack retreating, 9.1f)."""
    for h in hexes:
        why = cause or f"an enemy unit enters {h}"
        for q in sorted(state.pieces.values(), key=lambda q: q.id):
            if q.side == side or q.status != "map" or q.hex != h or q.kind == "unit":
                continue
            name = bdata().formations[q.formation].name
            if q.kind == "hq":
                to = jumped_hq_hex(state, q)
                if to:
                    ctx.log(f"{why}: {name}'s HQ must retreat (9.1f)")
                    retreat(state, q, to, ctx)
                    continue
                q.status, q.hex, q.arrives = "off", "", state.turn + 1
                q.entry = [e for e in bdata().scenarios[state.scenario].supply.get(q.side, [])
                           if len(e) == 1]
                ctx.log(f"{why}: {name}'s HQ finds no hex and leaves the map")
                continue
            to = trains_back(state, q)
            if to:
                q.hex, q.ghost = to, True
                ctx.log(f"{why}: {name}'s Combat Trains are displaced to {to} (Ghost, 10.3d)",
                        hexes=(h, to))
            else:
                q.status, q.hex = "off", ""
                ctx.log(f"{why}: {name}'s Combat Trains leave the map")
