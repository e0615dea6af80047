"""Baptism By Fire sealed-mode trials: whole bot games through the real signed-file exchange in
sealed mode (docs/sealed.md 5h). For each game: whether it reached its end, whether
`pbem verify` passes on both archives (the final replay with both final reveals), the files it
took, and the other side's hidden units found in what each side stores, armored payloads
decoded (the leak scan of the conformance suite). The first problem of a game that parts is printed as the processor gave it.

    .venv/bin/python bench/bcs_sealed.py --scenario 5.2 --scenario 5.4 --games 4

Progress goes to the terminal (one line per game); --quiet prints only the summary.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path


def _leaks(root: Path, game) -> list[str]:
    """Each side's units still hidden at the end (view.secrets of its own last state) that a
    file the other side stores names as a whole word."""
    from pbem.protocol.sealing import searchable
    from pbem.protocol.session import load

    found = []
    for side in game.sides:
        other = next(s for s in game.sides if s != side)
        mine = load(root / side).states
        hidden = set(game.secrets(mine[max(mine)], side))
        for p in (root / other).rglob("*"):
            if not p.is_file():
                continue
            for blob in searchable(p.read_bytes()):
                for h in hidden:
                    if re.search(rb"(?<![\w-])" + re.escape(h.encode()) + rb"(?![\w-])", blob):
                        found.append(f"{p.relative_to(root)}: {h}")
    return sorted(set(found))


def trial(scenario: str, seed: int, style: str, keep: Path | None) -> dict:
    """One sealed game of BbF through the exchange and its checks."""
    from pbem.core.registry import find_game
    from pbem.protocol.audit import verify_archive
    from pbem.protocol.demo import play_demo

    game = find_game("bcs")
    base = Path(tempfile.mkdtemp(prefix="bcs-sealed-")) if keep is None else keep
    root = base / f"{scenario}-{seed}-{style}"
    shutil.rmtree(root, ignore_errors=True)
    out = {"scenario": scenario, "seed": seed, "style": style, "files": 0, "ended": False,
           "verified": False, "leaks": [], "problem": ""}
    t0 = time.perf_counter()
    try:
        play_demo(root, game_name="bcs", scenario=scenario, mode="sealed", seed=seed,
                  style=style)
        out["ended"] = True
        audits = [verify_archive(root / s) for s in game.sides]
        out["verified"] = all(a.ok for a in audits)
        if not out["verified"]:
            out["problem"] = "; ".join(p for a in audits for p in a.problems)[:400]
        out["leaks"] = _leaks(root, game)
    except Exception as e:          # the processor's one line: what a player would read
        out["problem"] = f"{type(e).__name__}: {str(e)[:400]}"
    out["files"] = len(list((root / game.sides[0] / "files").glob("*.pbem"))) \
        if (root / game.sides[0] / "files").exists() else 0
    out["seconds"] = round(time.perf_counter() - t0, 1)
    if keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the trials and print one line per game and a summary."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", action="append", help="5.2 or 5.4 (repeat; default both)")
    ap.add_argument("--games", type=int, default=3, help="games per scenario")
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--style", default="random", choices=("random", "heuristic"))
    ap.add_argument("--keep", type=Path, help="keep the game folders under this folder")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    rows = []
    for scenario in a.scenario or ["5.2", "5.4"]:
        for seed in range(a.first_seed, a.first_seed + a.games):
            r = trial(scenario, seed, a.style, a.keep)
            rows.append(r)
            if not a.quiet:
                state = ("verified" if r["verified"] else "ended" if r["ended"] else "parted")
                print(f"{scenario} seed {seed}: {state}, {r['files']} files, {r['seconds']} s, "
                      f"{len(r['leaks'])} leaks{': ' + r['problem'] if r['problem'] else ''}",
                      flush=True)
                for leak in r["leaks"][:5]:
                    print(f"    leak {leak}")
    done = sum(r["verified"] for r in rows)
    clean = sum(r["verified"] and not r["leaks"] for r in rows)
    print(f"{len(rows)} games: {done} ended and verified, {clean} of them without a leak")
    return 0


if __name__ == "__main__":
    sys.exit(main())
