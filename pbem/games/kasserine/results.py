"""Combat results (8.2.4, 8.1.3): losses, retreats, stiff resistance (8.4), boxes (14.3), advance (8.5)."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.kasserine.state import standing_of
from pbem.games.kasserine import retreat
from pbem.games.kasserine.board import deplete, eliminate, label, occupancy
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.seen import record
from pbem.games.kasserine.state import Combat, KasserineState, Task, Wait, other
from pbem.games.kasserine.victory import check_sudden_death, entered

RETREATS = {"D2": 2, "D3": 3, "A1": 1, "A2": 2, "A3": 3}


def queue(state: KasserineState, data: KasserineData, c: Combat) -> None:
    """Turn the combat result into tasks (8.2.4; 8.1.3 for bombardment)."""
    att, dfd = state.active, other(state.active)
    r = c.result
    bombard = c.kind == "bombard"
    if r == "De":
        c.tasks.append(Task(kind="eliminate", side=dfd, unit=c.defender))
    elif r in ("D2", "D3"):
        c.tasks.append(Task(kind="retreat", side=dfd, unit=c.defender, hexes=RETREATS[r],
                            bombard=bombard))
    elif r == "Ex":
        c.tasks.append(Task(kind="deplete", side=dfd, unit=c.defender))
        c.tasks.append(Task(kind="loss", side=att, candidates=list(c.attackers)))
    elif r in ("A1", "A2", "A3"):
        c.tasks.extend(Task(kind="retreat", side=att, unit=a, hexes=RETREATS[r])
                       for a in c.attackers)
    elif r == "(A)":
        if bombard:    # 8.1.3-b, KAS-G14: one of the bombarding side's units adjacent to the target
            near = sorted(u for u, s in state.units.items() if s.side == att and s.status == "map"
                          and c.target in data.neighbours[s.hex])
            if near:
                c.tasks.append(Task(kind="loss", side=att, candidates=near, bombard=True))
        else:
            c.tasks.append(Task(kind="loss", side=att, candidates=list(c.attackers)))
    elif r == "Ae":
        c.tasks.extend(Task(kind="eliminate", side=att, unit=a) for a in c.attackers)


def _alive(state: KasserineState, uid: str) -> bool:
    return uid in state.units and state.units[uid].status == "map"


def process(state: KasserineState, data: KasserineData, c: Combat, t: Task, ctx: Context) -> bool:
    """Carry out one task; False (with state.wait set) if it needs a decision first."""
    if t.kind in ("eliminate", "deplete"):
        if _alive(state, t.unit):
            name = label(data, state, t.unit)
            gone = True
            if t.kind == "eliminate":
                eliminate(state, t.unit)
            else:
                gone = deplete(state, data, t.unit)
            ctx.log(f"{name} is {'eliminated' if gone else 'depleted'}", kind="loss")
        return True
    if t.kind == "loss":
        return _loss(state, data, c, t, ctx)
    if t.kind == "advance":
        return _advance(state, data, c, t, ctx)
    return _retreat(state, data, c, t, ctx)


def _loss(state: KasserineState, data: KasserineData, c: Combat, t: Task, ctx: Context) -> bool:
    cands = [u for u in t.candidates if _alive(state, u)]
    if not cands:
        return True
    if c.loss in cands:
        who = c.loss
    elif len(cands) == 1:
        who = cands[0]
    else:
        state.wait = Wait(side=t.side, kind="loss", prompt=(
            f"Result {c.result} at {c.target}: choose the unit that takes the loss: "
            + " or ".join(f"'loss {u}'" for u in cands)))
        return False
    name = label(data, state, who)
    gone = deplete(state, data, who)
    ctx.log(f"{name} takes the {c.result} loss: {'eliminated' if gone else 'depleted'}", kind="loss")
    return True


def _retreat(state: KasserineState, data: KasserineData, c: Combat, t: Task, ctx: Context) -> bool:
    if not _alive(state, t.unit):
        return True
    u = state.units[t.unit]
    st = standing_of(state.private[t.side].standing)
    defender = t.unit == c.defender
    if t.side == "us" and u.hex in data.fortified_boxes and not t.box:      # 14.3-a
        if st.box in ("hold", "yield"):
            t.box = st.box
        else:
            state.wait = Wait(side=t.side, kind="box", prompt=(
                f"{t.unit} in the fortified box {u.hex} must retreat {t.hexes}: answer "
                "'box hold' to ignore the retreat or 'box yield' to resolve it"))
            return False
    if t.box == "hold":
        ctx.log(f"{label(data, state, t.unit)} holds the fortified box {u.hex} and ignores the "
                "retreat (14.3)", kind="retreat")
        return True
    if not t.stiff:                                                            # 8.4
        if st.stiff == "never":
            t.stiff = "no"
        elif st.stiff == "always":
            t.stiff = "yes"
        elif st.stiff == "full-strength":
            t.stiff = "yes" if u.steps == 2 and data.units[t.unit].steps == 2 else "no"
        else:
            state.wait = Wait(side=t.side, kind="stiff", prompt=(
                f"{t.unit} in {u.hex} must retreat {t.hexes} hex(es): answer 'stiff yes' to "
                "stay and deplete it (stiff resistance) or 'stiff no' to retreat"))
            return False
    if t.stiff == "yes":
        name = label(data, state, t.unit)
        gone = deplete(state, data, t.unit)
        ctx.log(f"{name} offers stiff resistance in place: {'eliminated' if gone else 'depleted'}",
                kind="loss")
        return True
    ch = retreat.Choices(state, data, t.unit, t.hexes, t.bombard)
    if t.path is None:
        legal = ch.legal()
        if len(legal) > 1 and st.retreat != "auto" and not t.auto:
            state.wait = Wait(side=t.side, kind="retreat", prompt=(
                f"{t.unit} in {u.hex} retreats {t.hexes} hex(es): answer 'retreat {t.unit} HEX ...' "
                f"(e.g. 'retreat {t.unit} {' '.join(ch.auto(state, data, t.unit) or [])}') or "
                f"'retreat {t.unit} auto'"))
            return False
        path = ch.auto(state, data, t.unit)
    else:
        path = t.path
    moves: list[tuple[str, str]] = []
    occ = occupancy(state)
    if path is not None and occ.get(path[-1]) not in (None, t.unit):
        planned = _displace(state, data, t, path, st.displace)
        if planned is None:
            return False
        moves = planned
    vacated = retreat.execute(state, data, t.unit, t.hexes, path, moves, ctx)
    if defender and c.kind == "ground":
        c.retreat_path = vacated
        movers = [a for a in c.attackers if _alive(state, a)]
        if vacated and movers:
            c.tasks.insert(1, Task(kind="advance", side=state.active, candidates=movers))
    return True


def _displace(state: KasserineState, data: KasserineData, t: Task, path: list[str],
              mode: str) -> list[tuple[str, str]] | None:
    """The displacement moves in the order units move (8.3.1); None (state.wait set) to ask."""
    while True:
        moves, who, forbidden = retreat.chain_so_far(state, data, t.unit, path, t.chain)
        if who is None:
            return moves[::-1]
        if mode != "ask":
            return (retreat.displacement(state, data, who, forbidden) or []) + moves[::-1]
        opts = retreat.displace_options(state, data, who, forbidden)
        if len(opts) == 1:
            t.chain.append(opts[0])
            continue
        occ = occupancy(state)
        t.path = list(path)
        state.wait = Wait(side=t.side, kind="displace", prompt=(
            f"{t.unit} retreats {' '.join(path)} and displaces {who} from "
            f"{state.units[who].hex} (8.3.1): answer 'displace {who} HEX' with one of "
            + ", ".join(h + (f" (displacing {occ[h]} in turn)" if h in occ else "")
                        for h in opts)))
        return None


def plan_advance(state: KasserineState, c: Combat, items: list[str], cands: list[str],
                 strict: bool) -> list[tuple[str, int]]:
    """Units and how many path hexes each advances; IllegalOrder (strict) if not legal (8.5)."""
    path = c.retreat_path
    taken: set[int] = set()
    plan: list[tuple[str, int]] = []
    for item in items:
        uid, _, n = item.partition(":")
        if uid not in cands or any(uid == p for p, _ in plan):
            if strict:
                raise IllegalOrder(f"{uid} did not take part in this attack (or is listed twice)",
                                   rule="KAS-8.5-d")
            continue
        want = int(n) if n else len(path)
        if want > len(path):
            if strict:
                raise IllegalOrder(f"the path of retreat is {len(path)} hex(es)", rule="KAS-8.5-e")
            want = len(path)
        if want in taken:
            if strict:
                raise IllegalOrder(f"another unit already ends in {path[want - 1]}", rule="KAS-8.5-f")
            free = [k for k in range(want, 0, -1) if k not in taken]
            if not free:
                continue
            want = free[0]
        taken.add(want)
        plan.append((uid, want))
    return plan


def do_advance(state: KasserineState, data: KasserineData, c: Combat,
               plan: list[tuple[str, int]], ctx: Context) -> None:
    """Move advancing units along the path of retreat, ignoring EZOC (8.5-e); they are barred."""
    for uid, n in plan:
        u = state.units[uid]
        start = u.hex
        for h in c.retreat_path[:n]:
            u.hex = h
            entered(state, data, uid, h, ctx)
        u.barred = "advanced"
        if n:
            record(state, "advance", uid, [start, *c.retreat_path[:n]])
        ctx.log(f"{label(data, state, uid)} advances {start} -> {' '.join(c.retreat_path[:n])}",
                kind="advance", hexes=(start, *c.retreat_path[:n]))
    check_sudden_death(state, data, ctx)


def _advance(state: KasserineState, data: KasserineData, c: Combat, t: Task, ctx: Context) -> bool:
    cands = [a for a in t.candidates if _alive(state, a)]
    occ = occupancy(state)
    if not cands or not c.retreat_path or any(h in occ for h in c.retreat_path):
        return True
    if c.advance is None:
        state.wait = Wait(side=t.side, kind="advance", prompt=(
            f"{c.defender} retreated from {c.target}; path of retreat "
            f"{' '.join(c.retreat_path)}: answer 'advance UNIT[:N],...' with units of "
            f"{', '.join(cands)} or 'advance none'"))
        return False
    do_advance(state, data, c, plan_advance(state, c, c.advance, cands, strict=False), ctx)
    return True
