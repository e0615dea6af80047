"""Benchmark: cryptography alone vs verifying a file, auditing an archive and processing a file.

Usage: python bench/bench.py [--game holdfast] [--scenario campaign] [--write docs/performance.md]
Plays one complete game bot against bot through the real exchange (timing every receive),
then measures medians and prints ratios against a bare Ed25519 verification, and the median
and largest size of the HTML reports the game produced.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def median_us(fn, n: int) -> float:
    """Median wall time of fn in microseconds over n runs."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000


def machine() -> str:
    """A one-line description of this machine."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def report_sizes(root: Path) -> list[int]:
    """The sizes in bytes of every HTML report the sides' archives under root hold."""
    return sorted(p.stat().st_size for p in root.glob("*/reports/*/[0-9]*.html"))


def report_parts(path: Path) -> tuple[int, int]:
    """The bytes of a report's map drawing and of its move helper's data."""
    page = path.read_text(encoding="utf-8")
    svg = re.search(r'<svg xmlns="http://www.w3.org/2000/svg" class="hexmap".*?</svg>', page,
                    re.S)
    helper = re.search(r'id="pbem-helper">(.*?)</script>', page, re.S)
    return (len(svg.group(0).encode()) if svg else 0,
            len(helper.group(1).encode()) if helper else 0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="holdfast")
    ap.add_argument("--scenario", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", default=None, help="append the results to this Markdown file")
    args = ap.parse_args()
    if args.game == "dash":
        import conftest  # noqa: F401  (registers the test game)

    from pbem.core.records import read_file
    from pbem.protocol import ops
    from pbem.protocol.demo import play_demo

    key = Ed25519PrivateKey.generate()
    pub = key.public_key()
    msg = b"x" * 100
    sig = key.sign(msg)
    bare = median_us(lambda: pub.verify(sig, msg), 3000)

    receive_times: list[float] = []
    real_receive = ops.receive_file

    def timed(*a, **kw):
        t0 = time.perf_counter_ns()
        r = real_receive(*a, **kw)
        receive_times.append((time.perf_counter_ns() - t0) / 1000)
        return r

    ops.receive_file = timed  # the demo calls ops.receive_file for every received file
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        play_demo(Path(tmp) / "g", game_name=args.game, scenario=args.scenario, seed=args.seed,
                  mode="peer")
        total = time.perf_counter() - t0
        ops.receive_file = real_receive
        from pbem.core.registry import find_game

        game = find_game(args.game)
        side = game.sides[0]
        archive = Path(tmp) / "g" / side
        files = sorted((archive / "files").glob("*.pbem"))
        sample = max(files, key=lambda p: p.stat().st_size)
        sample_size = sample.stat().st_size
        text = sample.read_text()
        from pbem.core.records import open_text
        from pbem.protocol.session import read_genesis
        from pbem.protocol.archive import Archive

        _, genesis, _ = read_genesis(Archive(archive))
        f0 = open_text(text, name=sample.name)
        signer = getattr(f0.payload, "sender", None) or getattr(f0.payload, "party", None) \
            or genesis.p.proposer
        pub_raw = genesis.pubs[signer]
        verify_file = median_us(lambda: open_text(text, name=sample.name, strict=True)
                                .signed_by(pub_raw), 500)
        # Each audit runs in a fresh process, as `pbem verify` does: no memoised signatures,
        # parsed files or rules caches (imports are done before the clock starts).
        probe = ("import sys, time; sys.path[:0] = sys.argv[2:]; "
                 "from pbem.protocol.audit import verify_archive; import pbem.games, conftest; "
                 "t = time.perf_counter(); ok = verify_archive(sys.argv[1]).ok; "
                 "print(time.perf_counter() - t if ok else -1)")
        here = Path(__file__).resolve().parents[1]
        audits = []
        for _ in range(5):
            out = subprocess.run([sys.executable, "-c", probe, str(archive), str(here),
                                  str(here / "tests")], capture_output=True, text=True,
                                 check=True).stdout
            assert float(out) > 0, "audit failed"
            audits.append(float(out))
        audit = statistics.median(audits)
        crypto_only = len(files) * verify_file / 1e6
        reports = report_sizes(Path(tmp) / "g")
        big_map, big_helper = report_parts(max(Path(tmp).glob("g/*/reports/*/[0-9]*.html"),
                                               key=lambda p: p.stat().st_size))
    per_file_audit = audit / len(files) * 1e6
    receive_med = statistics.median(receive_times)
    lines = [
        f"### {game.title}, scenario {args.scenario or next(iter(game.scenarios()))} "
        f"(seed {args.seed})",
        "",
        f"Machine: {machine()}.",
        "",
        "| measure | median | ratio to bare Ed25519 verify |",
        "| --- | --- | --- |",
        f"| bare Ed25519 verify (100 B) | {bare:.1f} us | 1.0 |",
        f"| verify one file ({sample_size} B: de-armor, strict decode, canonical "
        f"re-encode, SHA-256, signature) | {verify_file:.1f} us | {verify_file / bare:.1f} |",
        f"| full audit, per file ({len(files)} files, replay included) | {per_file_audit:.1f} us "
        f"| {per_file_audit / bare:.1f} |",
        f"| receive one file (verify, resolve, reports, cache, reply), {len(receive_times)} "
        f"files | {receive_med / 1000:.1f} ms | {receive_med / bare:.0f} |",
        f"| HTML report size ({len(reports)} reports of both sides; the largest "
        f"{max(reports) / 1024:.0f} KB: map {big_map / 1024:.0f} KB, move helper data "
        f"{big_helper / 1024:.0f} KB) | {statistics.median(reports) / 1024:.0f} KB | |",
        "",
        f"Full audit: {audit * 1000:.1f} ms for {len(files)} files, of which the file "
        f"cryptography and parsing alone is about {crypto_only * 1000:.1f} ms "
        f"({100 * crypto_only / audit:.0f}%). Whole bot-vs-bot game through the exchange: "
        f"{total:.1f} s.",
        "",
    ]
    out = "\n".join(lines)
    print(out)
    if args.write:
        with open(args.write, "a", encoding="utf-8") as fh:
            fh.write(out + "\n")


if __name__ == "__main__":
    main()
