"""What sealed mode costs against peer mode, on the games that implement the sealed interface.

For each seed it plays the same game bot against bot through the real exchange (`pbem demo`)
in peer and in sealed mode and reports, per game turn: files, bytes of the files sent, the
in-process time to receive a file (median), and the time of the final `pbem verify` (the
sealed one replays the game a second time with full information), for the games in GAMES:
the sealed test game Blind, Kasserine and Baptism By Fire's scenario 5.4 (docs/sealed.md).

    .venv/bin/python bench/sealed.py [--seeds 1 2 3 4 5] [--write docs/performance.md]
    .venv/bin/python bench/sealed.py --game bcs --seeds 1      # one game, printed only
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import conftest  # noqa: E402,F401  (registers the test games, Blind among them)

from pbem.core.records import Turn, read_file  # noqa: E402
from pbem.protocol import ops  # noqa: E402
from pbem.protocol.audit import verify_archive  # noqa: E402
from pbem.protocol.demo import play_demo  # noqa: E402
from pbem.protocol.session import load  # noqa: E402

BEGIN, END = "<!-- sealed-cost:begin -->", "<!-- sealed-cost:end -->"
#: (row label, game, the side whose archive is measured, scenario) of every game measured
GAMES = [("blind (test game)", "blind", "red", None),
         ("kasserine historical", "kasserine", "axis", None),
         ("bcs 5.4", "bcs", "axis", "5.4")]


def measure(game: str, mode: str, seeds: list[int], first: str = "red",
            scenario: str | None = None) -> dict[str, float]:
    """Totals over the seeds: game turns, files, bytes, receive times, verify times."""
    out: dict[str, float] = {"turns": 0, "files": 0, "bytes": 0, "verify": 0.0}
    receives: list[float] = []
    real = ops.receive_file

    def timed(*a, **k):
        t0 = time.perf_counter()
        try:
            return real(*a, **k)
        finally:
            receives.append(time.perf_counter() - t0)

    ops.receive_file = timed   # play_demo calls ops.receive_file for every file delivered
    try:
        for seed in seeds:
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp) / "g"
                play_demo(root, game_name=game, scenario=scenario, seed=seed, mode=mode,
                          style="random")
                side = root / first
                s = load(side)
                out["turns"] += max(1, s.game.turn(s.state))
                for p in sorted((side / "files").glob("[0-9]*-*.pbem")):
                    if isinstance(read_file(p).payload, Turn):
                        out["files"] += 1
                        out["bytes"] += p.stat().st_size
                t0 = time.perf_counter()
                assert verify_archive(side).ok
                out["verify"] += time.perf_counter() - t0
            if sys.stderr.isatty():
                print(f"  {game} {mode} seed {seed} done", file=sys.stderr)
    finally:
        ops.receive_file = real
    out["receive_ms"] = 1000 * statistics.median(receives)
    return out


def table(seeds: list[int], games: list[str] | None = None) -> str:
    """The Markdown section (of the games named, or all)."""
    rows = ["| game | mode | files per game turn | bytes per file | receive, median | "
            "`pbem verify` per game |", "| --- | --- | --- | --- | --- | --- |"]
    for label, game, first, scenario in GAMES:
        if games and game not in games:
            continue
        for mode in ("peer", "sealed"):
            m = measure(game, mode, seeds, first, scenario)
            rows.append(f"| {label} | {mode} | {m['files'] / m['turns']:.2f} | "
                        f"{m['bytes'] / m['files']:.0f} | {m['receive_ms']:.1f} ms | "
                        f"{1000 * m['verify'] / len(seeds):.0f} ms |")
    return (f"{BEGIN}\n### Sealed mode against peer mode\n\nMeasured by `bench/sealed.py` over "
            f"seeds {', '.join(map(str, seeds))}, in process (receive: `ops.receive_file`, "
            "reports included; verify: `verify_archive` of one side's archive; bots of the random "
            "style). Kasserine plays sealed with the face-down markers drawn at the reveal and "
            "every standing answer sent explicitly (docs/sealed.md); Holdfast is not measured "
            "here yet.\n\n"
            + "\n".join(rows) + f"\n{END}")


def main() -> None:
    """Measure, print, and optionally write the section into a Markdown file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--write", default=None, help="Markdown file to update")
    ap.add_argument("--game", action="append", default=None,
                    help="measure only this game (repeat; --write then needs every game)")
    a = ap.parse_args()
    if a.write and a.game:
        ap.error("--write rewrites the whole section: measure every game")
    section = table(a.seeds, a.game)
    print(section)
    if a.write:
        p = Path(a.write)
        text = p.read_text()
        if BEGIN in text:
            b, e = text.index(BEGIN), text.index(END) + len(END)
            text = text[:b] + section + text[e:]
        else:
            text = text.rstrip("\n") + "\n\n" + section + "\n"
        p.write_text(text)


if __name__ == "__main__":
    main()
