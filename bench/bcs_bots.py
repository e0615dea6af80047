"""Heuristic-vs-heuristic (or any styles) Baptism By Fire games played in-process on fixed
seeds: win counts per side, game length and the slowest bot stretch.

    .venv/bin/python bench/bcs_bots.py [--games N] [--scenarios 5.2,5.4] [--axis heuristic]
                                       [--allied heuristic]
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.core.dice import KeyedDice  # noqa: E402
from pbem.core.errors import IllegalOrder  # noqa: E402
from pbem.core.game import Context  # noqa: E402
from pbem.core.options import bot_choices  # noqa: E402
from pbem.core.standing import apply_order, parse_line  # noqa: E402
from pbem.games.bcs.board import bdata  # noqa: E402
from pbem.games.bcs.engine import ENGINE  # noqa: E402

MAX_DECISIONS = 20000


def play(scenario: str, seed: int, styles: dict[str, str]) -> dict:
    """One game to its end: the winner, the turns played, the decisions, the slowest stretch,
    the orders refused after the dice, the result's reason and the VP hexes the Axis holds."""
    rng = random.Random(seed)
    dice = KeyedDice(seed.to_bytes(8, "big"))
    state = ENGINE.setup(scenario, bot_choices(ENGINE.options()))
    decisions, n, slow, refused = 0, 0, 0.0, 0
    while ENGINE.outcome(state) is None:
        pending = ENGINE.pending(state)
        assert pending, "dead end"
        side = pending[0].side
        t = time.perf_counter()
        lines = ENGINE.bot(state, side, rng, styles[side])
        slow = max(slow, time.perf_counter() - t)
        for line in lines:
            if side not in {d.side for d in ENGINE.pending(state)}:
                break
            try:
                apply_order(ENGINE, state, side, parse_line(ENGINE, line),
                            Context(dice, action=n))
            except IllegalOrder:            # made illegal by the dice: skipped
                refused += 1
            n += 1
        decisions += 1
        assert decisions < MAX_DECISIONS, "game does not end"
    res = state.result
    gm = bdata().game_map
    held = sorted(gm.place_name(p.hex) for p in gm.data.place
                  if "victory" in p.kinds and state.control.get(p.hex) == "axis")
    return {"held": held, "winner": res.winner if res else None, "turns": state.turn,
            "decisions": decisions,
            "slow": slow, "refused": refused, "reason": res.reason if res else "",
            "exits": len(state.exits)}


def main() -> None:
    """Play the games and print the tallies."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--scenarios", default="5.2,5.4")
    ap.add_argument("--axis", default="heuristic")
    ap.add_argument("--allied", default="heuristic")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    styles = {"axis": a.axis, "allied": a.allied}
    for scenario in a.scenarios.split(","):
        wins: collections.Counter = collections.Counter()
        t0 = time.perf_counter()
        games = []
        for seed in range(a.first, a.first + a.games):
            g = play(scenario, seed, styles)
            games.append(g)
            wins[g["winner"] or "draw"] += 1
            if a.v:
                print(f"  {scenario} seed {seed}: {g['winner'] or 'draw'} turn {g['turns']} "
                      f"{g['decisions']} decisions, slowest stretch {g['slow']:.2f}s, "
                      f"{g['refused']} refused, {g['exits']} exits: {g['reason']}; "
                      f"Axis holds {', '.join(g['held'])}", flush=True)
        took = time.perf_counter() - t0
        print(f"{scenario} axis={a.axis} allied={a.allied} seeds {a.first}-"
              f"{a.first + a.games - 1}: axis {wins['axis']}, allied {wins['allied']}, "
              f"draw {wins['draw']}; decisions/game "
              f"{sum(g['decisions'] for g in games) / len(games):.0f}; slowest stretch "
              f"{max(g['slow'] for g in games):.2f}s; {took:.0f}s", flush=True)


if __name__ == "__main__":
    main()
