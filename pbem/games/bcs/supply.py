"""Main Supply Routes and Combat Trains (10.2, 10.3): Legal hexes, the MSR trace, Optimal
Distance, and the SNAFU DRMs they give (10.1b, 10.1f, 10.2d)."""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from pbem.games.bcs.board import ByHex, at, bdata, by_hex, on_area
from pbem.games.bcs.state import BcsState, FormationState, Piece
from pbem.games.bcs.zoc import engagement_zone, ezoc

SUPPLY_ROADS = ("primary_road", "secondary_road")
MSR_ROADS = ("primary_road", "secondary_road", "track")
OPTIMAL = (5, 15)                # 10.3c: HQ-Trains MSR of 5 to 15 hexes


@lru_cache(maxsize=4)
def _graph(kinds: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    out: dict[str, set[str]] = {}
    for k in kinds:
        for a, b in bdata().game_map.roads.get(k, {}):
            out.setdefault(a, set()).add(b)
            out.setdefault(b, set()).add(a)
    return {h: tuple(sorted(n)) for h, n in out.items()}


def road_hexes(kinds: tuple[str, ...]) -> frozenset[str]:
    """Hexes on a road of these kinds."""
    return frozenset(_graph(kinds))


def entry_area_hexes() -> frozenset[str]:
    """Every Entry Area hex of the map."""
    gm = bdata().game_map
    return frozenset(h for name, hs in gm.hexsets.items() if name.startswith("entry-")
                     for h in hs)


def sources(state: BcsState, side: str) -> frozenset[str]:
    """The side's Supply Source hexes in the scenario (BbF 1.2, 5.x): Entry Areas and hexes."""
    gm = bdata().game_map
    out: set[str] = set()
    for e in bdata().scenarios[state.scenario].supply.get(side, []):
        out |= set(gm.hexsets.get(f"entry-{e}", [])) if len(e) == 1 else {e}
    return frozenset(h for h in out if on_area(state, h))


def screens_of(state: BcsState, side: str) -> frozenset[str]:
    """The enemy's Screening units (which affect no part of the side's MSRs)."""
    return frozenset(p.id for p in state.pieces.values() if p.screen and p.side != side)


def blocked(state: BcsState, side: str, hex_id: str, pieces: ByHex | None = None,
            screens: frozenset[str] | None = None) -> bool:
    """A hex no MSR of the side may use (10.3a d, BbF 1.8): an enemy unit, an EZOC, an enemy
    Engagement Zone (friendly units negate nothing), or an enemy-controlled VP hex. Enemy
    Screening units affect no part of an MSR: not by themselves, their ZOC or their Screen Zone
    (BbF errata to 1.5). pieces and screens: board.by_hex(state) and screens_of(state, side),
    when the caller asks about many hexes of one position."""
    if screens is None:
        screens = screens_of(state, side)
    here = at(state, hex_id) if pieces is None else pieces.get(hex_id, ())
    if any(p.side != side and p.id not in screens for p in here):
        return True
    if state.control.get(hex_id, side) != side:
        return True
    return bool(ezoc(state, side, hex_id, screens, pieces)) or engagement_zone(
        state, side, hex_id, screens)


def _bfs(state: BcsState, side: str, start: str, goals: frozenset[str],
         kinds: tuple[str, ...], exempt: str = "") -> list[str] | None:
    """The shortest road path (in hexes) from start to a goal through unblocked hexes."""
    graph = _graph(kinds)
    if start in goals:
        return [start]
    pieces, screens = by_hex(state), screens_of(state, side)
    prev: dict[str, str] = {start: ""}
    todo = deque([start])
    while todo:
        h = todo.popleft()
        for n in graph.get(h, ()):
            if n in prev or not on_area(state, n):
                continue
            if n != exempt and blocked(state, side, n, pieces, screens):
                continue
            prev[n] = h
            if n in goals:
                path = [n]
                while prev[path[-1]]:
                    path.append(prev[path[-1]])
                return path[::-1]
            todo.append(n)
    return None


class Msr:
    """A Formation's MSR: the Trains-to-HQ trace and the Trains-to-Source trace."""

    def __init__(self, to_hq: list[str], to_source: list[str]) -> None:
        self.to_hq, self.to_source = to_hq, to_source


def legal_hex(state: BcsState, side: str, hex_id: str, hq: str) -> Msr | None:
    """The MSR if Combat Trains in hex_id would be Legal for an HQ in hq (10.3a), else None."""
    return why_not(state, side, hex_id, hq)[0]


def why_not(state: BcsState, side: str, hex_id: str,
            hq: str) -> tuple[Msr | None, str, str]:
    """(MSR, rule, reason): the MSR of Trains in hex_id with an HQ in hq when the hex is Legal
    (10.3a a-d), else None with the rule and reason it fails: a) a Primary or Secondary Road
    hex (Track in an Entry Area or Supply Source hex); b) linked to a Supply Source by Primary
    or Secondary roads; c) linked to the HQ by the shortest non-railroad road path; d) the hex
    and the whole MSR (the HQ's hex excepted) free of enemy units, EZOC and enemy Engagement
    Zones. (10.3a e, not blocking an enemy MSR, is not checked yet.)"""
    src = sources(state, side)
    if not on_area(state, hex_id):
        return None, "BCS-1.1d", f"{hex_id} is outside the playing area"
    on_supply_road = hex_id in road_hexes(SUPPLY_ROADS)
    track_ok = hex_id in road_hexes(MSR_ROADS) and (hex_id in src or hex_id in entry_area_hexes())
    if not (on_supply_road or track_ok):
        return None, "BCS-10.3a-a", f"{hex_id} is no Primary or Secondary Road hex"
    if blocked(state, side, hex_id):
        return None, "BCS-10.3a-d", f"{hex_id} holds an enemy unit, EZOC or Engagement Zone"
    to_source = _bfs(state, side, hex_id, src, SUPPLY_ROADS)
    if to_source is None:
        return None, "BCS-10.3a-b", f"no Primary or Secondary road from {hex_id} to a Supply " \
                                    f"Source free of the enemy"
    to_hq = _bfs(state, side, hex_id, frozenset({hq}), MSR_ROADS, exempt=hq)
    if to_hq is None:
        return None, "BCS-10.3a-c", f"no road from {hex_id} to the HQ in {hq} free of the enemy"
    return Msr(to_hq, to_source), "", ""


def msr(state: BcsState, form: FormationState) -> Msr | None:
    """The Formation's MSR if its HQ and Trains are on the map and the Trains are Legal."""
    hq, tr = state.pieces[form.hq], state.pieces[form.trains]
    if hq.status != "map" or tr.status != "map":
        return None
    return legal_hex(state, form.side, tr.hex, hq.hex)


def optimal(state: BcsState, form: FormationState, m: Msr) -> bool:
    """Optimal Distance (10.3c): an HQ-Trains MSR of 5 to 15 hexes with the Trains not forward
    of the HQ (the two traces share no hex but the Trains'); always in an Entry hex with the
    HQ at most 15 hexes away."""
    length = len(m.to_hq) - 1
    if m.to_hq[0] in entry_area_hexes() and length <= OPTIMAL[1]:
        return True
    shared = set(m.to_hq[1:]) & set(m.to_source[1:])
    return OPTIMAL[0] <= length <= OPTIMAL[1] and not shared


def uses_track(m: Msr) -> bool:
    """An HQ-Trains MSR hex (ends included) on a Track and no better road (10.1f)."""
    better = road_hexes(SUPPLY_ROADS)
    return any(h not in better for h in m.to_hq)


def crossing(state: BcsState, form: FormationState, m: Msr) -> bool:
    """Crossing the Streams (10.2d): the HQ-Trains path shares a hex with another friendly
    Formation's HQ-Trains path (Buddies excepted, 4.1c)."""
    from pbem.games.bcs.mixing import buddies

    mine = set(m.to_hq)
    for other in state.formations.values():
        if other.id == form.id or other.side != form.side or not other.in_play \
                or buddies(form.id, other.id):
            continue
        om = msr(state, other)
        if om is not None and mine & set(om.to_hq):
            return True
    return False


def trains_drms(state: BcsState, form: FormationState) -> list[tuple[str, int]]:
    """The SNAFU DRMs of the Combat Trains and MSR (SNAFU Table): Legal Trains give +1 Optimal
    Distance, -1 Ghost, -1 Crossing the Streams, -1 MSR uses Tracks; Trains not Legal or off
    the map give -3, and MSR Blocked level X gives -X."""
    m = msr(state, form)
    out: list[tuple[str, int]] = []
    if m is None:
        out.append(("Combat Trains not in a Legal hex", -3))
    else:
        if optimal(state, form, m):
            out.append(("Optimal Distance", 1))
        if state.pieces[form.trains].ghost:
            out.append(("Ghost Trains", -1))
        if crossing(state, form, m):
            out.append(("Crossing the Streams", -1))
        if uses_track(m):
            out.append(("MSR uses Tracks", -1))
    if form.msr_blocked:
        out.append((f"MSR Blocked level {form.msr_blocked}", -form.msr_blocked))
    return out


def trains_of(state: BcsState, form: FormationState) -> Piece:
    """The Formation's Combat Trains."""
    return state.pieces[form.trains]


def enemy_msr_hexes(state: BcsState, side: str) -> frozenset[str]:
    """Every hex of the enemy's existing MSRs (both traces of each Formation with Legal Trains):
    a Legal Trains hex may not block one (10.3a e), a retreating HQ may not end on one (9.1f)."""
    out: set[str] = set()
    for f in state.formations.values():
        if f.side == side or not f.in_play:
            continue
        m = msr(state, f)
        if m is not None:
            out |= set(m.to_hq) | set(m.to_source)
    return frozenset(out)


def msr_possible(state: BcsState, side: str, hq_hex: str, limit: int = 15) -> bool:
    """Whether a complete MSR is possible for an HQ in hq_hex (9.1f): some hex within ``limit``
    road hexes of it, reached along unblocked non-railroad roads, would be Legal for its
    Combat Trains."""
    graph = _graph(MSR_ROADS)
    pieces, screens = by_hex(state), screens_of(state, side)
    seen = {hq_hex: 0}
    todo = deque([hq_hex])
    while todo:
        h = todo.popleft()
        if legal_hex(state, side, h, hq_hex) is not None:
            return True
        if seen[h] >= limit:
            continue
        for n in graph.get(h, ()):
            if n not in seen and on_area(state, n) and not blocked(state, side, n, pieces,
                                                                    screens):
                seen[n] = seen[h] + 1
                todo.append(n)
    return False
