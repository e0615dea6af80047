"""A "wild" bot for BbF sealed play: the random bot, but when a side has a decision it
sometimes writes instead one of the orders the bots never write (support, concentrate, assign,
unassign in the Assignment Phase; flip, screen, unscreen at the start of an Activation; moves
that stack with another Formation's units or end overstacked, and `back` of an overstacked
unit), each tried first on a copy of the full state and kept only if legal.

Plays whole games three ways (pbem.core.sealed.SealedPlay) and records every divergence as
tests/games/bcs/test_sealed_port.py's analyse does (kind by _kind, paths by _where), then
resyncs and goes on.

    .venv/bin/python bench/bcs_wild.py --scenario 5.2 --seeds 0 1 2 --out results-5.2.json

Found in session 21 and mended: the flips of hidden and arriving units, the Screen retreat asked
inside a move's check, the mark of a stacked Recon unit, the Dropped Support markers of a first
Support (docs/sealed.md 5h, "What the port still leaves open", for what is left).

By default (the "fake", kept so that the seeds docs/sealed.md names replay the same games) the
script writes standing assignment=ask into the full state's store before the knowledge states
are concealed, as if the policy were public. Since session 22 a sealed game asks every side in
every Assignment Phase and its processor answers from the hidden policy, so --no-ask plays the
real thing: each side writes its hidden `standing assignment --policy` (ask, keep or mixed),
and the wild orders include Arty Asset Points (`arty`) and Arty uses above the Intrinsic
points (`arty-use`). Mended in session 22: 9.3f's reads of the pool, the restacking pick read by
id, the MP spent of a unit opened as it moves on (docs/sealed.md 5h).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import time
from typing import Any

from pathlib import Path  # noqa: E402

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT))
sys.path.insert(0, str(_ROOT / "tests"))

import msgspec  # noqa: E402

from pbem.core.sealed import SealedPlay, bot_play  # noqa: E402
from pbem.games.bcs import bot as B  # noqa: E402
from pbem.games.bcs.board import bdata, entry_hexes  # noqa: E402
from pbem.games.bcs.orders import (ArtyAssets, Assign, Attack, Back, Barrage,  # noqa: E402
                                   Fires, Flip, Move, Screen, Support, format_order)
from pbem.games.bcs.movement import overstacked  # noqa: E402
from pbem.games.bcs.combat import in_obj_zone  # noqa: E402
from pbem.games.bcs.command import in_radius  # noqa: E402
from pbem.games.bcs.state import BcsState  # noqa: E402
from pbem.games.bcs.view import secrets  # noqa: E402
from games.bcs.test_sealed_port import GAME, OPTIONS, _kind, _where  # noqa: E402

WILD_KINDS = ("support", "concentrate", "assign", "unassign", "flip", "screen", "unscreen",
              "move-mix", "move-overstack", "back", "arty", "arty-use")


def copy(state: BcsState) -> BcsState:
    """A copy of a state (msgspec round trip)."""
    return msgspec.json.decode(msgspec.json.encode(state), type=BcsState)


def legal(state: BcsState, side: str, order: Any) -> bool:
    """The order is legal on a copy of the state (up to its first die or question)."""
    s = copy(state)
    return B._try(s, side, order) is not False


class Stats:
    """Counts of the wild orders tried, legal, offered, played and refused, by kind."""
    def __init__(self) -> None:
        self.tried = collections.Counter()      # candidates tried on the copy
        self.legal = collections.Counter()      # of them legal
        self.offered = collections.Counter()    # decisions where the kind had a legal candidate
        self.played = collections.Counter()     # written and played (accepted by the full state)
        self.refused = collections.Counter()    # written, refused by the full state


# -- candidates -------------------------------------------------------------------------
def assignment_candidates(s: BcsState, side: str) -> list[tuple[str, Any]]:
    """The Assignment Phase orders side could write: support, concentrate, assign, unassign."""
    out: list[tuple[str, Any]] = []
    units = bdata().units
    mine = [p for p in s.pieces.values() if p.side == side and p.kind == "unit"]
    forms = sorted(f.id for f in s.formations.values() if f.side == side)
    for p in sorted(mine, key=lambda p: p.id):
        if p.status in ("map", "off"):
            out.append(("support", Support(unit=p.id)))
        if p.status == "support":
            out.append(("concentrate", Support(unit=p.id, on=False)))
        u = units.get(p.id)
        if u is not None and u.independent:
            if p.formation and p.status != "dead":
                out.append(("unassign", Assign(unit=p.id)))
            if p.id in s.unassigned:
                for f in forms:
                    out.append(("assign", Assign(unit=p.id, formation=f)))
    priv = s.private[side]                      # Arty Asset Points (8.0d): all or none (3.2a)
    if priv.arty_free:
        out += [("arty", ArtyAssets(points=priv.arty_free, formation=f)) for f in forms]
    out += [("arty", ArtyAssets(points=n, formation=f, assign=False))
            for f, n in sorted(priv.arty_assigned.items())]
    return out


def arty_use_candidates(s: BcsState, side: str) -> list[tuple[str, Any]]:
    """Uses of more Arty Points than the active HQ's Intrinsic ones allow alone, by a Formation
    holding Arty Asset Points: a Barrage of 2 outside an Attack Sequence (BbF 3.2b), an Attack
    Sequence's Barrage of 3 (8.0)."""
    act = s.activation
    if act is None or act.side != side or not s.private[side].arty_assigned.get(act.formation):
        return []
    grid = bdata().game_map.grid
    hq = s.pieces[s.formations[act.formation].hq]
    # 8.1a-3: a Barrage target is in the active HQ's Command Radius and in an OBJ Zone
    enemy = sorted({p.hex for p in s.pieces.values() if p.side != side and p.status == "map"
                    and in_radius(s, hq, p.hex) and in_obj_zone(s, p.hex)})
    out: list[tuple[str, Any]] = []
    for p in sorted(s.pieces.values(), key=lambda p: p.id):
        if p.formation != act.formation or p.kind != "unit" or p.status != "map":
            continue
        for h in enemy:
            far = grid.distance(p.hex, h)
            if far <= 4:
                out.append(("arty-use", Barrage(hex=h, spotter=p.id, arty=2)))
            if far == 1:
                out.append(("arty-use", Attack(hex=h, unit=p.id,
                                               fires=Fires(mission="destruction", arty=3))))
    return out


def start_candidates(s: BcsState, side: str) -> list[tuple[str, Any]]:
    """The orders at the start of an Activation: flip, screen, unscreen."""
    act = s.activation
    out: list[tuple[str, Any]] = []
    if act is None or act.began or act.side != side:
        return out
    for p in sorted(s.pieces.values(), key=lambda p: p.id):
        if p.side != side or p.kind != "unit" or p.formation != act.formation:
            continue
        if p.status in ("map", "off"):
            out.append(("flip", Flip(unit=p.id)))
        if p.status == "map" and bdata().units[p.id].recon:
            out.append(("screen" if not p.screen else "unscreen",
                        Screen(unit=p.id, on=not p.screen)))
    return out


def _paths(start: str, goal: str, limit: int = 6) -> list[str] | None:
    """A shortest hex path from start to goal (start excluded), grid only."""
    grid = bdata().game_map.grid
    if grid.distance(start, goal) > limit:
        return None
    prev = {start: ""}
    todo = collections.deque([start])
    while todo:
        h = todo.popleft()
        if h == goal:
            break
        for n in grid.neighbours(h):
            if n not in prev and grid.distance(n, goal) < grid.distance(h, goal) + 1:
                prev[n] = h
                todo.append(n)
    if goal not in prev:
        return None
    path = [goal]
    while prev[path[-1]] != start:
        path.append(prev[path[-1]])
    return path[::-1]


def move_candidates(s: BcsState, side: str, rng: random.Random) -> list[tuple[str, Any]]:
    """Moves of one unit (or a two-unit stack) of the active Formation into a hex holding own
    combat units: 'move-overstack' when it ends with more than 2 combat units, 'move-mix' when
    it ends with a unit of another Formation."""
    act = s.activation
    out: list[tuple[str, Any]] = []
    if act is None or act.side != side or act.recovery:
        return out
    grid = bdata().game_map.grid
    own = [p for p in s.pieces.values() if p.side == side and p.kind == "unit"
           and p.status == "map"]
    targets = sorted({p.hex for p in own})
    movers = [p for p in s.pieces.values() if p.side == side and p.formation == act.formation
              and p.kind == "unit" and p.status in ("map", "off") and not p.finished]
    rng.shuffle(movers)
    for p in movers[:10]:
        if p.status == "off":
            if p.arrives > s.turn or not entry_hexes(s, p):
                continue
            starts = entry_hexes(s, p)
        else:
            starts = [p.hex]
        stack = [p.id]
        if p.status == "map":
            mates = [q.id for q in own if q.hex == p.hex and q.id != p.id
                     and q.formation == act.formation]
            if mates and rng.random() < 0.3:
                stack.append(mates[0])
        near = [h for h in targets if h not in starts and grid.distance(starts[0], h) <= 4]
        rng.shuffle(near)
        for h in near[:4]:
            there = [q for q in own if q.hex == h]
            n = len(there) + len(stack)
            other_f = any(q.formation != act.formation for q in there)
            kind = "move-overstack" if n > 2 else "move-mix" if other_f else ""
            if not kind:
                continue
            path = _paths(starts[0], h)
            if not path:
                continue
            full = ([starts[0]] + path) if p.status == "off" else path
            out.append((kind, Move(units=stack, path=full)))
    return out


def back_candidates(s: BcsState, side: str) -> list[tuple[str, Any]]:
    """'back UNIT' for each unit of an overstacked hex of side."""
    act = s.activation
    if act is None or act.side != side:
        return []
    out = []
    for h in overstacked(s, side):
        for p in sorted(s.pieces.values(), key=lambda p: p.id):
            if p.side == side and p.hex == h and p.kind == "unit" and p.status == "map":
                out.append(("back", Back(unit=p.id)))
    return out


SELECT = "kind"


def _units_of(order: Any) -> set[str]:
    if isinstance(order, Move):
        return set(order.units)
    return {getattr(order, "unit", "")}


def wild_order(state: BcsState, side: str, rng: random.Random, stats: Stats,
               budget: dict[str, int]) -> tuple[str, str] | None:
    """One wild order legal on the full state for side's decision, or None."""
    d = [x for x in GAME.pending(state) if x.side == side]
    if not d:
        return None
    kind = d[0].kind
    if kind == "assignment":
        cands = assignment_candidates(state, side)
    elif kind == "activation":
        cands = start_candidates(state, side) + move_candidates(state, side, rng) + \
            back_candidates(state, side) + arty_use_candidates(state, side)
    else:
        return None
    if SELECT == "candidate":           # the first version: the first legal of all, shuffled
        rng.shuffle(cands)
        seen_kinds: set[str] = set()
        picked = None
        for k, order in cands[:40]:
            if budget.get(k, 0) <= 0:
                continue
            stats.tried[k] += 1
            if legal(state, side, order):
                stats.legal[k] += 1
                seen_kinds.add(k)
                if picked is None:
                    picked = (k, format_order(order))
        for k in seen_kinds:
            stats.offered[k] += 1
        return picked
    if SELECT == "hidden":              # units under a top first (their orders travel by slot)
        hid = set(secrets(state, side))
        cands = [c for c in cands if _units_of(c[1]) & hid] or cands
    by_kind: dict[str, list[Any]] = collections.defaultdict(list)
    for k, order in cands:
        if budget.get(k, 0) > 0:
            by_kind[k].append(order)
    legal_by_kind: dict[str, Any] = {}
    for k in sorted(by_kind):
        orders = by_kind[k]
        rng.shuffle(orders)
        for order in orders[:12]:
            stats.tried[k] += 1
            if legal(state, side, order):
                stats.legal[k] += 1
                legal_by_kind[k] = order
                break
    for k in legal_by_kind:
        stats.offered[k] += 1
    if not legal_by_kind:
        return None
    k = rng.choice(sorted(legal_by_kind))
    return k, format_order(legal_by_kind[k])


# -- the game ---------------------------------------------------------------------------
def wild_play(sp: SealedPlay, rng: random.Random, stats: Stats, p_wild: float,
              max_orders: int):
    """pbem.core.sealed.bot_play (random bots) offering a wild order first at a decision with
    probability p_wild: yields (side, line, problems, wild kind or "")."""
    budget_key = None
    budget: dict[str, int] = {}
    offered: list[tuple[str, str]] = []        # the wild (kind, line) bot_play tries next

    def first(side: str) -> str | None:
        nonlocal budget_key, budget
        pend = GAME.pending(sp.full)
        act = sp.full.activation
        key = (sp.full.turn, sp.full.phase if pend[0].kind != "activation" else "act",
               act.formation if act else "", act.second if act else False, side)
        if key != budget_key:
            budget_key = key
            budget = {k: (4 if k.startswith("move") else 3) for k in WILD_KINDS}
        if rng.random() >= p_wild:
            return None
        w = wild_order(sp.full, side, rng, stats, budget)
        if w is None:
            return None
        budget[w[0]] -= 1
        offered.append(w)
        return w[1]

    for side, line, problems in bot_play(sp, rng, max_orders=max_orders, first=first):
        wk = ""
        if offered:
            k, wild = offered.pop()
            if line == wild:
                stats.played[k] += 1
                wk = k
            else:                               # refused: the bot's own order was played
                stats.refused[k] += 1
        yield side, line, problems, wk


def play(scenario: str, seed: int, p_wild: float, max_orders: int, ask: bool,
         stats: Stats, policy: str = "ask") -> dict[str, Any]:
    """One whole game three ways with the wild bot: its divergences and statistics. Without
    the fake (ask False) each side writes its real, hidden `standing assignment POLICY`
    (policy: ask, keep, or mixed: each side at random) before its first decision."""
    rng = random.Random(seed)
    state = GAME.setup(scenario, OPTIONS)
    if ask:
        for s in GAME.sides:
            state.private[s].standing["assignment"] = "ask"
    sp = SealedPlay(GAME, state, rng.randbytes(32))
    if not ask:
        for s in GAME.sides:
            mode = policy if policy != "mixed" else rng.choice(("ask", "keep"))
            assert sp.play(s, f"standing assignment {mode}") == []
    found: list[dict[str, Any]] = []
    n = 0
    history: list[tuple[str, str, str]] = []
    t0 = time.time()
    for side, line, problems, wk in wild_play(sp, rng, stats, p_wild, max_orders):
        n += 1
        history.append((side, line, wk))
        if problems:
            w = _where(sp)
            f = {"scenario": scenario, "seed": seed, "index": n - 1, "turn": sp.full.turn,
                 "phase": sp.full.phase, "side": side, "order": line, "wild": wk,
                 "prev": history[-4:-1], "problems": problems, **w}
            f["kind"] = _kind(f)
            found.append(f)
            print(f"  DIVERGENCE {scenario} seed {seed} #{n - 1} {side} {line!r} [{wk}] "
                  f"-> {f['kind'][:100]}", flush=True)
            sp.resync()
        GAME.trace.clear()          # keep the class-level trace from growing (ids of dead states)
    return {"scenario": scenario, "seed": seed, "orders": n, "turn": sp.full.turn,
            "phase": sp.full.phase, "result": msgspec.to_builtins(sp.full.result),
            "found": found, "seconds": round(time.time() - t0, 1)}


def main() -> None:
    """Play the games asked for and print one line each (and the results as JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", default="5.2")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--p", type=float, default=0.4)
    ap.add_argument("--max-orders", type=int, default=3000)
    ap.add_argument("--no-ask", action="store_true",
                    help="no fake: each side writes its hidden standing assignment --policy")
    ap.add_argument("--policy", default="ask", choices=("ask", "keep", "mixed"))
    ap.add_argument("--out", default="")
    ap.add_argument("--select", default="kind", choices=("kind", "candidate", "hidden"),
                    help="kind: a kind at random among those with a legal candidate; "
                         "candidate: the first legal of all candidates shuffled (the first "
                         "version); hidden: as kind, among candidates naming a unit under a "
                         "top when there are any")
    a = ap.parse_args()
    global SELECT
    SELECT = a.select
    games = []
    for seed in a.seeds:
        stats = Stats()
        g = play(a.scenario, seed, a.p, a.max_orders, not a.no_ask, stats, a.policy)
        g["stats"] = {k: dict(getattr(stats, k)) for k in
                      ("tried", "legal", "offered", "played", "refused")}
        kinds = collections.Counter(f["kind"] for f in g["found"])
        print(f"{a.scenario} seed {seed}: {g['orders']} orders, turn {g['turn']}, "
              f"{g['phase']}, {g['seconds']}s, played {g['stats']['played']}, "
              f"divergences {dict(kinds)}", flush=True)
        games.append(g)
        if a.out:
            with open(a.out, "w") as fh:
                json.dump(games, fh, indent=1, default=str)


if __name__ == "__main__":
    main()
