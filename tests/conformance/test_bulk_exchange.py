"""Many complete games bot against bot through the real signed-file exchange, both modes.

Holdfast: 200 Race to Tunis games (100 peer, 100 hosted, random and heuristic bots) and
three heuristic 16-turn campaigns in each mode. Baptism By Fire: 21 games of its playable
scenarios, 5.2 (4 turns) and 5.4 (5 turns), each 6 peer and 4 hosted, random and heuristic
bots alternating, and one sealed game of 5.2 with the heuristic bots (a sealed game costs
about 60-150 s of CPU against 15-18 s: the conformance suite plays 5.2 and 5.4 sealed with the
random bots, tests/games/bcs/test_sealed_attacks.py 5.4 with the heuristic ones, and
`bench/bcs_sealed.py` as many as asked). About 4 minutes on two quiet cores (longer when
other work loads the machine). Every archive of every game is verified with `pbem
verify`, replayed against the live state and searched for the other side's secrets; every
game must end with a result (no dead end). Games run in a process pool (one worker per core).
PBEM_BULK_SCALE scales the counts (e.g. 0.1 for a quick run).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from fixtures.conformance_checks import play_and_check
from fixtures.suite_games import suite_games

SCALE = float(os.environ.get("PBEM_BULK_SCALE", "1"))
PLAN = {  # game -> [(scenario, mode, games, styles)]
    "holdfast": [("race-to-tunis", "peer", 100, ("random", "heuristic")),
                 ("race-to-tunis", "hosted", 100, ("random", "heuristic")),
                 ("campaign", "peer", 3, ("heuristic",)),
                 ("campaign", "hosted", 3, ("heuristic",))],
    "bcs": [("5.2", "peer", 6, ("random", "heuristic")),
            ("5.2", "hosted", 4, ("random", "heuristic")),
            ("5.2", "sealed", 1, ("heuristic",)),
            ("5.4", "peer", 6, ("random", "heuristic")),
            ("5.4", "hosted", 4, ("random", "heuristic"))],
}


def jobs(game_id: str, tmp: str) -> list[tuple]:
    out = []
    for scenario, mode, n, styles in PLAN[game_id]:
        for i in range(max(1, int(n * SCALE))):
            out.append((game_id, scenario, mode, 7919 * i + 11, styles[i % len(styles)], tmp))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game_id", [g.id for g in suite_games() if g.id in PLAN])
def test_bulk_exchange_games(tmp_path, game_id):
    work = jobs(game_id, str(tmp_path))
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(play_and_check, work))
    assert len(results) == len(work)
    # Every game ended with a result (sudden death or the end of the last turn); dice come
    # from fresh keys each run, so which turn a game ends on is not fixed.
    assert all(" at turn " in r for r in results), results
