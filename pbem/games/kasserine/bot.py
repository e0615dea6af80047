"""Bots: 'random' (random legal orders) and 'heuristic' (simple but sensible), for any decision.

A bot plans on a copy of the state and applies each order it writes, so every line is legal when
written; it stops after the first order that rolls dice (later lines could not know the dice).
"""

from __future__ import annotations

import heapq
import random

import msgspec

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.kasserine.state import standing_of
from pbem.games.kasserine import actions
from pbem.games.kasserine.board import (data_of, ezoc, occupancy, on_map, values)
from pbem.games.kasserine.movement import arrival_hexes, can_arrive, move_edges, step_cost
from pbem.games.kasserine.orders import parse_order
from pbem.games.kasserine.retreat import Choices, chain_so_far, displace_options
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.sealed import standing_answers
from pbem.games.kasserine.sequence import pending
from pbem.games.kasserine.state import KasserineState, other
from pbem.games.kasserine.static import nearest_of, static
from pbem.games.kasserine.victory import captured

MAX_LINES = 120


class _Rolled(Exception):
    pass


class _StopAtDice:
    """A dice source that stops the bot's planning at the first roll."""

    def roll(self, action: int, index: int, sides: int, cls: str = "all") -> int:
        """Stop: the order being planned rolls dice."""
        raise _Rolled()


class Plan:
    """What the bot already tried during one call."""

    def __init__(self) -> None:
        self.done: set[str] = set()
        self.failed: set[str] = set()
        self.bombards = 0


def play(state: KasserineState, side: str, rng: random.Random, style: str = "random") -> list[str]:
    """Legal order lines for side's pending decision (at least one)."""
    data = data_of(state)
    sim = msgspec.json.decode(msgspec.json.encode(state), type=KasserineState)
    lines: list[str] = []
    plan = Plan()
    for text in _standing(sim, side, rng, style):
        actions.apply(sim, data, side, parse_order(text), Context(_StopAtDice()))
        lines.append(text)
    for _ in range(MAX_LINES * 4):
        if sim.result is not None or side not in {d.side for d in pending(sim)}:
            break
        if len(lines) >= MAX_LINES:
            break
        text = _own_standing_answer(sim, side)
        if text is None or text in plan.failed:
            text = _choose(sim, data, side, rng, style, plan)
        try:
            actions.apply(sim, data, side, parse_order(text), Context(_StopAtDice()))
        except _Rolled:
            lines.append(text)
            break
        except IllegalOrder:
            plan.failed.add(text)
            continue
        lines.append(text)
    return lines or ["end"]


def _own_standing_answer(state: KasserineState, side: str) -> str | None:
    """The answer side's standing orders give to the decision pending on it (one it set in
    this file for a decision already pending), so the bot never answers against them: a
    sealed game answers from the policy (docs/sealed.md 5c)."""
    for d in pending(state):
        if d.side == side:
            lines = standing_answers(state, side, d)
            if lines:
                return lines[0]
    return None


def _standing(state: KasserineState, side: str, rng: random.Random, style: str) -> list[str]:
    st = standing_of(state.private[side].standing)
    out = []
    if style == "heuristic":
        if not st.support:
            out.append("standing support two min +1" if side == "us" else "standing support one min +1")
        if not st.stiff:
            out.append("standing stiff full-strength")
        if not st.retreat:
            out.append("standing retreat auto")
        if not st.box and side == "us":
            out.append("standing box hold")
        return out
    if not st.support and rng.random() < 0.6:
        out.append(f"standing support {rng.choice(['never', 'one', 'two', 'match'])}")
    if not st.stiff and rng.random() < 0.6:
        out.append(f"standing stiff {rng.choice(['never', 'always', 'full-strength'])}")
    if not st.retreat and rng.random() < 0.6:
        out.append("standing retreat auto")
    if not st.box and side == "us" and rng.random() < 0.6:
        out.append(f"standing box {rng.choice(['hold', 'yield'])}")
    if st.displace == "auto" and rng.random() < 0.3:
        out.append("standing displace ask")
    return out


def _choose(state: KasserineState, data: KasserineData, side: str, rng: random.Random,
            style: str, plan: Plan) -> str:
    w = state.wait
    if w is not None:
        return _answer(state, data, side, rng, style)
    if state.phase in ("movement", "mobile-movement"):
        return _move(state, data, side, rng, style, plan)
    if state.phase == "bombardment":
        return _bombard(state, data, side, rng, style, plan)
    return _attack(state, data, side, rng, style, plan)


def _answer(state: KasserineState, data: KasserineData, side: str, rng: random.Random,
            style: str) -> str:
    w, c = state.wait, state.combat
    assert w is not None and c is not None
    heur = style == "heuristic"
    if w.kind == "support":
        return "support yes" if (rng.random() < 0.5 if not heur else True) else "support no"
    if w.kind == "box":
        return "box hold" if heur or rng.random() < 0.5 else "box yield"
    t = c.tasks[0]
    if w.kind == "stiff":
        full = state.units[t.unit].steps == 2 and data.units[t.unit].steps == 2
        return "stiff yes" if (full if heur else rng.random() < 0.3) else "stiff no"
    if w.kind == "retreat":
        if heur or rng.random() < 0.5:
            return f"retreat {t.unit} auto"
        legal = Choices(state, data, t.unit, t.hexes, t.bombard).legal()
        return f"retreat {t.unit} {' '.join(rng.choice(legal))}" if legal else f"retreat {t.unit} auto"
    if w.kind == "displace":
        assert t.path is not None
        _, who, forbidden = chain_so_far(state, data, t.unit, t.path, t.chain)
        assert who is not None
        opts = displace_options(state, data, who, forbidden)
        return f"displace {who} {opts[0] if heur else rng.choice(opts)}"
    if w.kind == "advance":
        cands = [a for a in t.candidates if state.units[a].status == "map"]
        if heur:
            return f"advance {cands[0]}:1"
        return "advance none" if rng.random() < 0.4 else f"advance {rng.choice(cands)}"
    cands = [u for u in t.candidates if state.units[u].status == "map"]
    if heur:
        cands.sort(key=lambda u: values(data, state, u)[0])
        return f"loss {cands[0]}"
    return f"loss {rng.choice(cands)}"


def reach(state: KasserineState, data: KasserineData, uid: str, starts: list[str] | None,
          ) -> "Reach":
    """Cheapest paths to the hexes a unit can probably reach (approximate; apply decides).

    One Dijkstra search over hexes with parent pointers; terrain costs come memoised from
    movement.step_cost and the enemy ZOC is computed once for the position.
    """
    u = state.units[uid]
    unit = data.units[uid]
    mobile, side = bool(unit.mobile), u.side
    ma2 = values(data, state, uid)[2] * 2 - u.mp
    zoc = frozenset() if unit.commando else ezoc(state, data, side)
    penalty = (ma2 // 2) // 2 * 2 if mobile else 0
    occ = occupancy(state)
    enemy = {h for h, o in occ.items() if state.units[o].side != side}
    mined = side == "axis"
    heap: list[tuple[int, int, str, str | None]] = []
    if starts is None:
        heap.append((0, 0, u.hex, None))
        root: str | None = u.hex
    else:
        root = None
        for i, h in enumerate(starts):
            c = step_cost(data, side, mobile, None, h)
            if c is None:
                continue
            if h in zoc:
                c += penalty
            if c <= ma2:
                heap.append((c, i, h, None))
    heapq.heapify(heap)
    tick = len(starts or ()) + 1         # unique tie-breaks: start entries use 0..len-1
    best: dict[str, int] = {}
    parent: dict[str, str | None] = {}
    edges = static(data).edges
    while heap:
        cost, _, here, came = heapq.heappop(heap)
        if here in best:
            continue
        best[here] = cost
        parent[here] = came
        if here != root and here in zoc and not mobile:
            continue
        adj = edges.get((side, mobile, here))
        if adj is None:
            adj = move_edges(data, side, mobile, here)
        for h, c, mine in adj:
            if h in best or h in enemy or (mined and mine):
                continue
            if h in zoc:
                if not mobile:
                    if here in zoc:
                        continue
                else:
                    c += penalty
            total = cost + c
            if total <= ma2:
                tick += 1
                heapq.heappush(heap, (total, tick, h, here))
    return Reach([h for h in best if h not in occ], parent, root)


class Reach:
    """The hexes a unit can probably end its move in, and the cheapest path to each."""

    def __init__(self, hexes: list[str], parent: dict[str, str | None], root: str | None) -> None:
        self.hexes, self._parent, self._root = hexes, parent, root

    def __bool__(self) -> bool:
        return bool(self.hexes)

    def path(self, h: str) -> list[str]:
        """The hexes entered on the way to h, in order (the start hex excluded)."""
        out = [h]
        p = self._parent[h]
        while p is not None and p != self._root:
            out.append(p)
            p = self._parent[p]
        return out[::-1]


def _move(state: KasserineState, data: KasserineData, side: str, rng: random.Random, style: str,
          plan: Plan) -> str:
    mobile_phase = state.phase == "mobile-movement"
    movers = [uid for uid in on_map(state, side) if not state.units[uid].moved
              and not state.units[uid].mobile_moved and state.units[uid].barred != "advanced"
              and (data.units[uid].mobile or not mobile_phase)]
    arrivals = [uid for uid, u in state.units.items() if u.side == side and can_arrive(state, data, uid)]
    todo = [x for x in arrivals + movers if x not in plan.done]
    if style == "random":
        rng.shuffle(todo)
    for uid in todo[:1]:
        plan.done.add(uid)
        entering = uid in arrivals
        if not entering and style == "random" and rng.random() < 0.3:
            return _move(state, data, side, rng, style, plan)
        starts = arrival_hexes(state, data, uid) if entering else None
        dests = reach(state, data, uid, starts)
        if not dests:
            return _move(state, data, side, rng, style, plan)
        verb = "enter" if entering else "move"
        if style == "random":
            h = rng.choice(sorted(dests.hexes))
        else:
            score = _scorer(state, data, side, uid)
            h = min(sorted(dests.hexes), key=score)
            if not entering and score(h) >= score(state.units[uid].hex):
                return _move(state, data, side, rng, style, plan)
        text = f"{verb} {uid} {' '.join(dests.path(h))}"
        if text in plan.failed:
            return _move(state, data, side, rng, style, plan)
        return text
    return "end"


def _scorer(state: KasserineState, data: KasserineData, side: str, uid: str):
    """Score of a hex for one unit, lower is better (the Axis heads for objectives it has not
    captured, the US covers free ones); the position is read once, not per hex."""
    if side == "axis":
        caps = set(captured(state, data))
        goals = tuple(o for o in data.objectives if o not in caps) or data.objectives
        return lambda h: (nearest_of(data, goals, h) * 10
                          + nearest_of(data, ("2014",), h) // 4)
    occ = occupancy(state)
    free = tuple(o for o in data.objectives if occ.get(o) in (None, uid))
    targets = free or data.objectives
    return lambda h: nearest_of(data, targets, h)


def _bombard(state: KasserineState, data: KasserineData, side: str, rng: random.Random,
             style: str, plan: Plan) -> str:
    left = len(state.private[side].unused)
    enemies = [u for u in on_map(state, other(side)) if u not in state.targets
               and state.bombarded.get(state.units[u].hex, 0) == 0]
    if not left or not enemies or plan.bombards >= 1:
        return "end"
    plan.bombards += 1
    if style == "random":
        if rng.random() < 0.5:
            return "end"
        t = rng.choice(enemies)
        return f"bombard {state.units[t].hex} {rng.randint(1, min(2, left))}"
    if side == "axis" or left < 3:
        return "end"
    t = min(enemies, key=lambda u: (values(data, state, u)[1], u))
    return f"bombard {state.units[t].hex} {min(2, left)}"


def _attack(state: KasserineState, data: KasserineData, side: str, rng: random.Random,
            style: str, plan: Plan) -> str:
    grid = data.map.grid
    mobile_phase = state.phase == "mobile-combat"
    ready = [u for u in on_map(state, side) if not state.units[u].attacked
             and not state.units[u].barred and (data.units[u].mobile or not mobile_phase)]
    options = []
    for e in on_map(state, other(side)):
        if e in state.targets:
            continue
        eh = state.units[e].hex
        atts = sorted(a for a in ready if grid.adjacent(state.units[a].hex, eh))
        if atts:
            diff = sum(values(data, state, a)[0] for a in atts) - values(data, state, e)[1]
            options.append((diff, eh, atts))
    left = len(state.private[side].unused)
    if style == "random":
        options = [o for o in options if f"x{o[1]}" not in plan.done]
        if not options or rng.random() < 0.3:
            return "end"
        diff, eh, atts = rng.choice(options)
        plan.done.add(f"x{eh}")
        units = rng.sample(atts, rng.randint(1, len(atts)))
        text = f"attack {eh} with {','.join(units)}"
        sf = rng.randint(0, min(2, left))
        if sf and rng.random() < 0.3:
            text += " sf ask" if sf == 1 or rng.random() < 0.5 else " sf 0+ask"
        elif sf:
            text += f" sf {sf}"
        r = rng.random()
        text += " advance none" if r < 0.3 else (f" advance {units[0]}" if r < 0.7 else "")
        if rng.random() < 0.5:
            text += f" loss {units[-1]}"
        return text
    threshold = 1 if side == "axis" else 3
    options = [o for o in options if o[0] >= threshold and f"x{o[1]}" not in plan.done]
    if not options:
        return "end"
    diff, eh, atts = max(options)
    plan.done.add(f"x{eh}")
    weakest = min(atts, key=lambda a: (values(data, state, a)[0], a))
    sf = min(2, left) if diff < 6 else 0
    text = f"attack {eh} with {','.join(atts)}"
    if sf:
        text += f" sf {sf}"
    mover = next((a for a in atts if data.units[a].mobile), atts[0])
    return text + f" advance {mover}:1 loss {weakest}"
