"""The move helper's data: where each own unit can move this player turn, at what cost (HF-9.1).

Computed by the movement rules themselves (``movement.reachable`` finds the cheapest paths and
``movement.check_path`` prices every step of each), so the report page holds no rule of its own.
Only the viewer's own units are listed; enemy blocks count only by their public positions.
"""

from __future__ import annotations

from pbem.core.game import Reach, UnitReach
from pbem.games.holdfast.data import World
from pbem.games.holdfast.movement import allowance, check_paths, position, reachable
from pbem.games.holdfast.state import HoldfastState
from pbem.games.holdfast.supply import in_supply


def movable(state: HoldfastState, w: World, side: str) -> list[str]:
    """Ids of side's units that may be activated to move now (its turn, RP left, not yet moved)."""
    pub = state.public
    if pub.phase != "turn" or pub.active != side or pub.rp[side] < w.rp_cost("activate_move"):
        return []
    return sorted(uid for uid, u in state.private[side].units.items()
                  if u.where == "map" and not u.moved and w.units[uid].type != "support")


def _reach(state: HoldfastState, w: World, side: str, uid: str, mp: int,
           strategic: bool, pos: tuple[frozenset[str], ...]) -> tuple[Reach, ...]:
    """Every hex on a cheapest legal path of one activation, with the MP spent to get there
    (pos: movement.position of this state, read once for every unit)."""
    own = pos[0]
    nodes: dict[str, Reach] = {}
    paths = reachable(state, w, side, uid, mp, strategic, pos=pos)
    inner = {h for p in paths.values() for h in p[:-1]}
    # a path to a hex on the way to another is a prefix of that one: checking the longest
    # paths checks every step of every path (their ends are the only free hexes they pass);
    # check_paths checks a step the paths share once
    ends = [(dest, path) for dest, path in sorted(paths.items()) if dest not in inner]
    checked = check_paths(state, w, side, uid, [path for _, path in ends], mp, strategic,
                          pos=pos)
    for (dest, path), costs in zip(ends, checked):
        if costs is None:               # the rules have the last word: never offer such a path
            continue
        total, prev = 0, ""
        for h, c in zip(path, costs):
            total += c
            if h not in nodes:
                nodes[h] = Reach(hex=h, cost=str(total), prev=prev, end=h not in own)
            prev = h
    return tuple(nodes[h] for h in sorted(nodes))


def unit_reach(state: HoldfastState, w: World, side: str) -> list[UnitReach]:
    """For each unit side may move now: every hex of a cheapest legal move and its MP; a unit
    that may also move strategically (HF-9.3), or with its leader's +1 MP while the leader has
    not given it this turn (HF-4-e), gets an entry for each (further clicks)."""
    out: list[UnitReach] = []
    pub = state.public
    priv = state.private[side]
    has_leader = not priv.leader_mp_used and any(
        x.where == "offmap" and w.units[x.id].support == "leader" for x in priv.units.values())
    pos = position(state, w, side)          # the state does not change while this runs
    for uid in movable(state, w, side):
        u = priv.units[uid]
        supplied = in_supply(state, w, side, uid)
        name = f"{w.units[uid].name} [{uid}]"
        for strategic in (False, True):
            if strategic and not (supplied and w.strategic_allowed(pub.turn)):
                continue
            for leader in (False, True) if has_leader else (False,):
                mp = allowance(w, w.units[uid], weather=pub.weather, supplied=supplied,
                               leader=leader, strategic=strategic)
                hexes = _reach(state, w, side, uid, mp, strategic, pos)
                if not hexes:
                    continue
                kind = " ".join(x for x, on in (("strategic", strategic), ("leader", leader))
                                if on)
                out.append(UnitReach(
                    unit=uid, hex=u.hex, label=name + (f" {kind} move" if kind else ""),
                    allowance=f"{mp} MP" + (" (strategic)" if strategic else "")
                    + (" (with the leader's +1)" if leader else "")
                    + ("" if supplied else " (out of supply)"),
                    order=f"move {uid} {u.hex}-{{path}}" + (" strat" if strategic else "")
                    + (" leader" if leader else ""),
                    sep="-", hexes=hexes))
    return out
