"""Benchmark: index a library of many game records (docs/performance.md, "Game records").

Usage: python bench/records_bench.py [--records 10000] [--jobs 2] [--keep DIR]
                                     [--write docs/performance.md]

1. Plays bot games through the real exchange (Holdfast campaign and race-to-tunis,
   Kasserine), peer mode.
2. Cuts records from them: every stage of every game (the archive after each turn file, as
   it stood while the game was in progress, and at the end), from both players' archives,
   until there are --records distinct records. Each is the record `pbem export` writes
   (its result line comes from a replay of that stage).
3. Runs `pbem library` on them in a fresh process (every record verified: signatures, chain,
   dice, replay of the rules, result), and again with nothing changed (incremental), and
   reports the time per record and the peak memory of each run.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench import machine  # noqa: E402  (bench/bench.py: one description of this machine)

GAMES = [("holdfast", "campaign"), ("kasserine", "historical"), ("holdfast", "race-to-tunis")]


def play(job: tuple[str, str, int, str]) -> tuple[str, float]:
    """One bot game (in a worker process); returns its folder and its time."""
    from pbem.protocol.demo import play_demo

    game, scenario, seed, folder = job
    t0 = time.perf_counter()
    play_demo(folder, game_name=game, scenario=scenario, seed=seed, mode="peer")
    for sub in Path(folder).iterdir():          # reports are not needed: disk only
        shutil.rmtree(sub / "reports", ignore_errors=True)
    return folder, time.perf_counter() - t0


def cut(job: tuple[str, str, str, int]) -> int:
    """Write the records of every stage of one archive (in a worker); returns how many."""
    from pbem.protocol.archive import Archive
    from pbem.protocol.session import load
    from pbem.records.record import archive_entries, render
    from pbem.records.source import Verified

    archive, out, prefix, limit = job
    entries = archive_entries(archive)
    party = Archive(archive).info().party
    full = load(archive, strict=True)
    n = 0
    for k in range(0, full.ledger.tip_seq + 1):
        if n >= limit:
            break
        target = Path(out, f"{prefix}-{k:04d}.pbemrec")
        if target.exists():                     # cut by an earlier run (--keep)
            n += 1
            continue
        s = load(archive, strict=True, upto=k)
        v = Verified(root=Path(archive), party=party, genesis=s.genesis, audit=None, session=s)
        keep = [e for e in entries if getattr(e.file.payload, "seq", 0) <= k]
        target.write_text(render(party, v.result, keep, s.genesis), encoding="ascii")
        n += 1
    return n


_PROBE = ("import resource, sys\n"
          "from pbem.cli import cli\n"
          "try:\n"
          "    cli(['library', sys.argv[1], '--out', sys.argv[2]], prog_name='pbem')\n"
          "except SystemExit as e:\n"
          "    code = e.code\n"
          "print('peak-rss-kib', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
          "file=sys.stderr)\n"
          "sys.exit(code)\n")


def library_run(records: Path, site: Path) -> tuple[float, int, str]:
    """`pbem library` in a fresh process: (seconds, its peak RSS in KiB, its output)."""
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", _PROBE, str(records), str(site)],
                       capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"pbem library failed: {r.stderr.strip()}")
    peak = int(r.stderr.split("peak-rss-kib")[1].split()[0])
    return wall, peak, r.stdout.strip()


def turn_files(text: str) -> int:
    """The number of turn files a record's header counts."""
    head = text[:text.index("\n== entry ")]
    line = next(x for x in head.splitlines() if x.startswith("files: "))
    part = [x for x in line.split("(")[1].rstrip(")").split(",") if x.strip().endswith("turn files")]
    return int(part[0].split()[0]) if part else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", default=None, help="keep the games and records in this folder")
    ap.add_argument("--write", default=None, help="append the results to this Markdown file")
    ap.add_argument("--reuse", action="store_true",
                    help="index the records already in --keep DIR (no new games)")
    args = ap.parse_args()
    if args.reuse and not args.keep:
        raise SystemExit("--reuse needs --keep DIR")

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pbem-records-"))
    games_dir, records = work / "games", work / "records"
    games_dir.mkdir(parents=True, exist_ok=True)
    records.mkdir(parents=True, exist_ok=True)
    jobs, seed = [], 0

    def stages() -> int:            # the records the games played so far give
        return sum(len(list((d / "files").glob("0*.pbem"))) - 1
                   for d in games_dir.glob("*/*") if (d / "archive.json").exists())

    if not args.reuse:
        t0 = time.perf_counter()
        before = len(list(games_dir.iterdir()))
        with multiprocessing.Pool(args.jobs) as pool:
            while stages() < args.records:   # one more game of each kind until enough
                jobs = []
                for game, scenario in GAMES:
                    seed += 1
                    folder = games_dir / f"{game}-{scenario}-{seed}"
                    if not folder.exists():
                        jobs.append((game, scenario, seed, str(folder)))
                pool.map(play, jobs)
        now = len(list(games_dir.iterdir()))
        print(f"{now - before} bot games played in {time.perf_counter() - t0:.0f} s "
              f"({now} in all)", flush=True)
        t0 = time.perf_counter()
        cuts = []
        for folder in sorted(games_dir.iterdir()):
            for side_dir in sorted(folder.iterdir()):
                if (side_dir / "archive.json").exists():
                    cuts.append((str(side_dir), str(records), f"{folder.name}-{side_dir.name}",
                                 10**9))
        with multiprocessing.Pool(args.jobs) as pool:
            sum(pool.imap(cut, cuts))
        every = sorted(records.glob("*.pbemrec"))
        random.Random(1).shuffle(every)             # keep a sample of every game's stages
        for extra in every[args.records:]:
            extra.unlink()
        print(f"records cut in {time.perf_counter() - t0:.0f} s", flush=True)
    played = sorted(games_dir.iterdir())
    files = sorted(records.glob("*.pbemrec"))
    size = sum(p.stat().st_size for p in files)
    chain = sum(turn_files(p.read_text(encoding="ascii")) for p in files)
    print(f"{len(files)} records ({size / 2**20:.0f} MiB, {chain} turn files in all)",
          flush=True)

    site = work / "site"
    shutil.rmtree(site, ignore_errors=True)
    first, peak1, out1 = library_run(records, site)
    print(f"first run: {first:.1f} s, peak {peak1 / 1024:.0f} MiB: {out1}", flush=True)
    again, peak2, out2 = library_run(records, site)
    print(f"second run: {again:.1f} s, peak {peak2 / 1024:.0f} MiB: {out2}", flush=True)
    n = len(files)
    lines = [
        f"### Library of {n} records (`pbem library`)",
        "",
        f"Machine: {machine()}.",
        "",
        f"Records: {n} distinct records cut from {len(played)} bot games (Holdfast campaign "
        f"and race-to-tunis, Kasserine; peer mode): every stage of each game, from both "
        f"players' archives, as `pbem export` writes them. {size / 2**20:.0f} MiB, "
        f"{chain} turn files in all ({chain / n:.1f} per record on average).",
        "",
        "| run | wall time | per record | per turn file | peak memory (RSS) |",
        "| --- | --- | --- | --- | --- |",
        f"| first (every record verified) | {first:.1f} s | {first / n * 1000:.1f} ms | "
        f"{first / max(chain, 1) * 1000:.2f} ms | {peak1 / 1024:.0f} MiB |",
        f"| again, nothing changed (incremental) | {again:.1f} s | {again / n * 1000:.2f} ms | "
        f"- | {peak2 / 1024:.0f} MiB |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        with open(args.write, "a", encoding="utf-8") as fh:
            fh.write(text + "\n")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
