"""The move helper's data: where each own unit can move this player turn, at what cost (HF-9.1).

Computed by the movement rules' own search (``movement.reach_tree``, the search the bots'
``movement.reachable`` uses), so the report page holds no rule of its own. That every path it
offers is one ``movement.check_path`` accepts at the cost shown is held by tests
(tests/games/holdfast/test_reach.py), not re-checked on every report.
Only the viewer's own units are listed; enemy blocks count only by their public positions.
"""

from __future__ import annotations

from pbem.core.game import Reach, UnitReach
from pbem.games.holdfast.data import World
from pbem.games.holdfast.movement import allowance, position, reach_tree
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
           strategic: bool, pos: tuple[frozenset[str], ...],
           tree: tuple[dict[str, int], dict[str, str]] | None = None) -> tuple[Reach, ...]:
    """Every hex on a cheapest legal path of one activation, with the MP spent to get there
    (pos: movement.position of this state, read once for every unit). A hex holding a friendly
    block is listed only on the way to a hex the unit may end in (HF-9.1-c).

    tree: reach_tree of the same unit and kind of move with at least mp. The search with more
    MP settles every hex it can reach with mp at the same cost through the same previous hex
    (entries costing more come off its heap after all of them), so its hexes within mp are
    this search's."""
    own = pos[0]
    best, prev = tree or reach_tree(state, w, side, uid, mp, strategic, pos=pos)
    start = state.private[side].units[uid].hex
    nodes: dict[str, Reach] = {}
    for h, c in best.items():
        if h == start or h in own or c > mp:
            continue
        while h != start and h not in nodes:
            before = prev[h]
            nodes[h] = Reach(hex=h, cost=str(best[h]), prev="" if before == start else before,
                             end=h not in own)
            h = before
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
            leaders = (False, True) if has_leader else (False,)
            mps = [allowance(w, w.units[uid], weather=pub.weather, supplied=supplied,
                             leader=leader, strategic=strategic) for leader in leaders]
            tree = reach_tree(state, w, side, uid, max(mps), strategic, pos=pos)
            for leader, mp in zip(leaders, mps):
                hexes = _reach(state, w, side, uid, mp, strategic, pos, tree)
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
