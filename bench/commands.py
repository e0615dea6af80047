"""Benchmark: every pbem command as a player runs it (a fresh process per step), against its floors.

Usage: python bench/commands.py [--game holdfast:campaign] [--game kasserine:historical]
       [--game bcs:5.4]
       [--seeds 1 2 3] [--write docs/performance.md] [--label TEXT]

For each game and seed it plays a complete game through the command line, peer mode, exactly
as two players would: every `pbem receive`, `pbem status`, `pbem check` and `pbem submit` is
a fresh `pbem` process (the installed console script), timed from start to exit, with its peak
memory (the child's maximum resident set size). The orders are the bot's (pbem.core.planning,
the same stretches `pbem demo` writes), computed in this process and not timed: a player
writes them by hand. The genesis (keys, proposal, acceptance) is made with randomness drawn
from the seed, so a seed fixes the game id, the dice secrets and hence the whole game.

Side by side in the same run, interleaved with the commands (so both see the same load):

- the floor of every command: the interpreter plus importing pbem's dependencies (click,
  msgspec, jinja2 and the cryptography modules pbem uses), a fresh process doing nothing else;
- the floor of `pbem verify`: the bare cryptographic pass over the same files
  (bench/bare_pass.py: read, de-armor, decode, SHA-256, Ed25519 verify), as a whole process
  and timed inside the process after its imports;
- each floor also "ended alike": the same process ending with os._exit, without the
  interpreter's teardown, as pbem's turn commands end (pbem.entry.console). The issue's
  floor is the first; the second shows what pbem's own work costs when both processes end
  the same way.

"Warm" figures (imports excluded) run the same command in a fresh process that imported pbem
and the game before its clock started (bench/warm.py), on a copy of the archive as it was
before the timed command. At the end, `pbem verify` runs on each archive cut after file 3, at
the middle and at the end, to show its peak memory against game length.

On a terminal it shows progress on standard error; otherwise it prints only the results.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench import machine  # noqa: E402  (bench/bench.py: one description of this machine)

FLOOR_IMPORTS = ("import click, msgspec, jinja2; "
                 "from cryptography.hazmat.primitives.asymmetric import ed25519; "
                 "from cryptography.hazmat.primitives import hashes, serialization; "
                 "from cryptography.hazmat.primitives.kdf.hkdf import HKDF; "
                 "from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305")
FLOOR_EXIT = FLOOR_IMPORTS + "; import os; os._exit(0)"
PROGRESS = sys.stderr.isatty()


def progress(msg: str) -> None:
    """One progress line on a terminal (overwritten by the next); nothing in scripts."""
    if PROGRESS:
        sys.stderr.write("\r\033[K" + msg[:150])
        sys.stderr.flush()


class Run:
    """One timed process: wall seconds, peak memory (KiB), exit code, standard output, and
    the CPU seconds it used (user + system; other work on the machine does not inflate it)."""

    def __init__(self, wall: float, rss_kib: int, code: int, out: str, cpu: float = 0.0) -> None:
        self.wall, self.rss, self.code, self.out, self.cpu = wall, rss_kib, code, out, cpu


def run(cmd: list[str], cwd: Path, check: bool = True) -> Run:
    """Run cmd as a fresh process; its wall time from spawn to exit and its maximum RSS.

    The child finds pbem in this script's tree first (PYTHONPATH), so a copy of the code
    (say, the commit before a change) can be measured with the same installed environment.
    """
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # Peak memory: a child forked from this (large) process starts with this process's
    # high-water mark, which Linux carries across exec into ru_maxrss. GNU time, itself
    # small, forks the command and reports the command's own peak (%M).
    timer = shutil.which("time", path="/usr/bin:/bin")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r") as mem:
        full = [timer, "-q", "-f", "%M", "-o", mem.name, *cmd] if timer else cmd
        t0 = time.perf_counter()
        p = subprocess.Popen(full, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                             env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, etext = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        peak = mem.read().split()
    if check and p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(map(str, cmd))}\n{text}{etext}")
    rss = int(peak[-1]) if timer and peak and peak[-1].isdigit() else ru.ru_maxrss
    return Run(wall, rss, p.returncode, text, ru.ru_utime + ru.ru_stime)


@contextlib.contextmanager
def seeded(seed: int) -> Iterator[random.Random]:
    """os.urandom and the proposal's timestamp drawn from the seed (the genesis only)."""
    from pbem.protocol import ops

    rng = random.Random(f"pbem-bench-genesis-{seed}")
    real_urandom, real_now = os.urandom, ops._now
    os.urandom = lambda n: rng.randbytes(n)           # type: ignore[assignment]
    ops._now = lambda: "2026-01-01T00:00:00+00:00"    # type: ignore[assignment]
    try:
        yield rng
    finally:
        os.urandom, ops._now = real_urandom, real_now  # type: ignore[assignment]


def make_genesis(root: Path, game: Any, scenario: str, seed: int,
                 mode: str = "peer") -> dict[str, Path]:
    """Keys (unencrypted), the proposal and the acceptance, fixed by the seed; returns keys."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from pbem.core.keys import _private_bytes, format_public, public_raw
    from pbem.core.options import bot_choices, required_choices
    from pbem.protocol import ops

    a, b = game.sides
    keys: dict[str, Path] = {}
    with seeded(seed) as rng:
        (root / "keys").mkdir(parents=True)
        for side in (a, b):
            k = Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
            keys[side] = root / "keys" / f"{side}.key"
            keys[side].write_bytes(_private_bytes(k, None))
            keys[side].with_suffix(".pub").write_text(
                format_public(public_raw(k.public_key()), side), encoding="ascii")
        # peer mode unless asked, as before sealed mode became the default for games with
        # hidden units (a sealed game is another exchange: bench/sealed.py compares the two,
        # --mode sealed measures its commands); options
        # without a default (Baptism By Fire's) chosen as `pbem demo` chooses them
        chosen = required_choices(game.options(), bot_choices(game.options(), owner=game.id))
        ops.new_game(game.id, scenario, root / a, side=a, key_path=str(keys[a]),
                     opponent_pub=str(keys[b].with_suffix(".pub")),
                     out=str(root / "mail" / "00001-proposal.pbem"), mode=mode,
                     options=chosen or None)
        ops.join_game(str(root / "mail" / "00001-proposal.pbem"), key_path=str(keys[b]),
                      root=root / b, out=str(root / "mail" / "00002-accept.pbem"))
    return keys


class Game:
    """One game played through the command line, and every measure taken while it ran."""

    def __init__(self, game_id: str, scenario: str, seed: int, warm_every: int,
                 max_files: int | None, mode: str = "peer") -> None:
        from pbem.core.registry import find_game

        self.game = find_game(game_id)
        self.scenario, self.seed = scenario, seed
        self.warm_every, self.max_files = warm_every, max_files
        self.mode, self.over, self.keys = mode, False, {}
        self.pbem = str(Path(sys.executable).parent / "pbem")
        self.m: dict[str, list[tuple[int, Run]]] = {}   # command -> (files in archive, run)
        self.warm: dict[str, list[float]] = {}
        self.count = 2

    def note(self, what: str, files: int, r: Run) -> None:
        """Record one timed run."""
        self.m.setdefault(what, []).append((files, r))

    def floor(self, cwd: Path, files: int) -> None:
        """One interpreter-plus-imports floor process."""
        self.note("floor", files, run([sys.executable, "-c", FLOOR_IMPORTS], cwd))
        self.note("floor-exit", files, run([sys.executable, "-c", FLOOR_EXIT], cwd))

    def pbem_run(self, what: str, args: list[str], cwd: Path, files: int, *,
                 warm: bool = False, check: bool = True) -> Run:
        """Time `pbem ARGS` (and, with warm, the same on a copy of the archive, imports first)."""
        if warm:
            src = Path(args[1])
            snap = cwd / "warm" / src.name
            shutil.rmtree(snap.parent, ignore_errors=True)
            shutil.copytree(src, snap, symlinks=True)
            wargs = [str(snap) if a == args[1] else a for a in args]
            if "--out" in wargs:
                wargs[wargs.index("--out") + 1] = str(cwd / "warm" / "out.pbem")
            timing = cwd / "warm-timing.txt"
            timing.unlink(missing_ok=True)
            run([sys.executable, str(HERE / "warm.py"), self.game.id, str(timing), "--", *wargs],
                cwd)
            secs, cpu, code = timing.read_text().split()
            if code == "0":
                self.warm.setdefault(what, []).append(float(secs))
                self.warm.setdefault(what + "-cpu", []).append(float(cpu))
        r = run([self.pbem, *args], cwd, check=check)
        self.note(what, files, r)
        return r

    def play(self, root: Path) -> dict[str, Path]:
        """The whole game; returns the side archives."""
        from pbem.core.planning import plan_stretch
        from pbem.protocol import ops

        game = self.game
        a, b = game.sides
        other = {a: b, b: a}
        keys = self.keys = make_genesis(root, game, self.scenario, self.seed, self.mode)
        dirs = {a: root / a, b: root / b}
        rng = random.Random(self.seed)
        queue = [(root / "mail" / "00002-accept.pbem", a)]
        receives = 0
        while True:
            while queue:
                path, to = queue.pop(0)
                self.count += 1
                out = root / "mail" / f"{self.count:05d}-{to}-reply.pbem"
                files = len(list((dirs[to] / "files").glob("*.pbem")))
                receives += 1
                self.pbem_run("receive", ["receive", str(dirs[to]), str(path), "--key",
                                          str(keys[to]), "--out", str(out)], root, files,
                              warm=receives % self.warm_every == 0)
                self.floor(root, files)
                if out.exists():
                    queue.append((out, other[to]))
            s = ops.open_session(dirs[a])
            tip = s.ledger.tip_seq
            progress(f"{game.id} {self.scenario} seed {self.seed}: file {tip}, "
                     f"turn {game.turn(s.state)}")
            if (s.over and not s.unresolved()) or (self.max_files and tip >= self.max_files):
                self.over = s.over and not s.unresolved()
                return dirs
            movers = []
            for p in (a, b):
                sp = ops.open_session(dirs[p], key_path=str(keys[p]))
                if not sp.unresolved() and not sp.over and p in sp.pending_sides \
                        and p in sp.may_send():
                    movers.append((p, sp))
            if not movers:
                raise SystemExit("dead end: nobody owes a decision and no file is in transit")
            side, own = movers[0]
            files = len(list((dirs[side] / "files").glob("*.pbem")))
            self.pbem_run("status", ["status", str(dirs[side])], root, files)
            if self.mode == "sealed":     # as pbem demo plays a sealed game
                held = [(h.side, h.line) for h in own.held]
                lines = plan_stretch(game, own.state, side, rng, "heuristic", held=held,
                                     sealed=True) + ["pass"]
            else:
                lines = plan_stretch(game, own.state, side, rng, "heuristic") + ["pass"]
            orders = root / "orders" / f"{self.count + 1:05d}-{side}.txt"
            orders.parent.mkdir(exist_ok=True)
            orders.write_text("\n".join(lines) + "\n", encoding="utf-8")
            # the bot's stretch may go on past a die it imagined: check then names the orders
            # that would be illegal whatever the dice (exit 1) and submit skips them
            self.pbem_run("check", ["check", str(dirs[side]), str(orders)], root, files,
                          check=False)
            self.count += 1
            out = root / "mail" / f"{self.count:05d}-{side}-turn.pbem"
            self.pbem_run("submit", ["submit", str(dirs[side]), str(orders), "--key",
                                     str(keys[side]), "--out", str(out)], root, files)
            self.floor(root, files)
            queue.append((out, other[side]))

    def audit(self, root: Path, archive: Path, repeats: int) -> None:
        """Full `pbem verify` against the bare pass, interleaved; then verify on cut archives."""
        n = len(list((archive / "files").glob("*.pbem")))
        # a sealed game that did not end has no final reveals: its side audits it with its key
        keyed = ([] if self.mode == "peer" or self.over
                 else ["--key", str(self.keys[archive.name])])
        for i in range(repeats):
            progress(f"{self.game.id} seed {self.seed}: verify {i + 1}/{repeats}")
            r = run([self.pbem, "verify", str(archive), *keyed], root)
            self.note("verify", n, r)
            b = run([sys.executable, str(HERE / "bare_pass.py"), str(archive)], root)
            self.note("bare", n, b)
            self.warm.setdefault("bare", []).append(float(b.out.split()[0]))
            self.warm.setdefault("bare-cpu", []).append(float(b.out.split()[2]))
            self.note("bare-exit", n, run([sys.executable, str(HERE / "bare_pass.py"),
                                           str(archive), "--quick-exit"], root))
            timing = root / "warm-timing.txt"
            timing.unlink(missing_ok=True)
            run([sys.executable, str(HERE / "warm.py"), self.game.id, str(timing), "--",
                 "verify", str(archive), *keyed], root)
            secs, cpu, _ = timing.read_text().split()
            self.warm.setdefault("verify", []).append(float(secs))
            self.warm.setdefault("verify-cpu", []).append(float(cpu))
            self.floor(root, n)
        if self.mode == "sealed":
            return          # cut archives copy files/ only: a sealed one needs its private part
        turns = sorted(int(p.name[:4]) for p in (archive / "files").glob("[0-9]*.pbem")
                       if int(p.name[:4]) > 0)
        last = turns[-1]
        for cut in sorted({3, last // 2, last}):
            copy = root / f"cut-{cut}"
            (copy / "files").mkdir(parents=True)
            shutil.copy2(archive / "archive.json", copy / "archive.json")
            for p in (archive / "files").iterdir():
                if p.name.endswith(".pbem") and int(p.name[:4]) <= cut:
                    shutil.copy2(p, copy / "files" / p.name)
            for _ in range(3):
                self.note(f"verify-cut-{cut}", cut, run([self.pbem, "verify", str(copy)], root))


def med(xs: list[float]) -> float:
    """The median."""
    return statistics.median(xs)


def spread(xs: list[float]) -> str:
    """The 10th to 90th percentile, in ms."""
    if len(xs) < 5:
        return f"{min(xs) * 1000:.0f}-{max(xs) * 1000:.0f}"
    q = statistics.quantiles(xs, n=10)
    return f"{q[0] * 1000:.0f}-{q[-1] * 1000:.0f}"


def report(games: list[Game], title: str) -> str:
    """The Markdown section for one game and scenario over its seeds."""
    runs = {k: [r for g in games for _, r in g.m.get(k, [])]
            for k in ("floor", "floor-exit", "receive", "status", "check", "submit", "verify",
                      "bare", "bare-exit")}
    walls = {k: [r.wall for r in v] for k, v in runs.items()}
    cpus = {k: [r.cpu for r in v] for k, v in runs.items()}
    floor, floor_cpu = med(walls["floor"]), med(cpus["floor"])
    alike = med(walls["floor-exit"])
    warm = {k: [x for g in games for x in g.warm.get(k, [])]
            for k in ("receive", "verify", "bare", "receive-cpu", "verify-cpu", "bare-cpu")}
    lines = [f"### {title} (seeds {', '.join(str(g.seed) for g in games)})", "",
             f"{len(runs['receive'])} receives, {len(runs['submit'])} submits; games of "
             f"{', '.join(str(max(n for n, _ in g.m['receive'])) for g in games)} stored files "
             "at the end.", "",
             "| command, a fresh process | wall time: median | 10th-90th percentile | "
             "**ratio to its floor** | ratio to its floor ended alike | CPU time: median | "
             "ratio to its floor (CPU) | imports excluded (warm): wall, CPU |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |",
             f"| floor: interpreter + dependency imports | {floor * 1000:.0f} ms | "
             f"{spread(walls['floor'])} ms | 1.00 | {floor / alike:.2f} | "
             f"{floor_cpu * 1000:.0f} ms | 1.00 | |",
             f"| floor ended alike (os._exit, as a turn command ends) | {alike * 1000:.0f} ms | "
             f"{spread(walls['floor-exit'])} ms | {alike / floor:.2f} | 1.00 | | | |"]
    for k in ("receive", "status", "check", "submit"):
        w = (f"{med(warm[k]) * 1000:.0f} ms, {med(warm[k + '-cpu']) * 1000:.0f} ms "
             f"({len(warm[k])} runs)" if warm.get(k) else "")
        lines.append(f"| `pbem {k}` | {med(walls[k]) * 1000:.0f} ms | {spread(walls[k])} ms | "
                     f"**{med(walls[k]) / floor:.2f}** | {med(walls[k]) / alike:.2f} | "
                     f"{med(cpus[k]) * 1000:.0f} ms | "
                     f"{med(cpus[k]) / floor_cpu:.2f} | {w} |")
    bare, verify = med(walls["bare"]), med(walls["verify"])
    bare_alike = med(walls["bare-exit"])
    bare_c, verify_c = med(cpus["bare"]), med(cpus["verify"])
    wb, wv = med(warm["bare"]), med(warm["verify"])
    wbc, wvc = med(warm["bare-cpu"]), med(warm["verify-cpu"])
    lines += [f"| bare cryptographic pass, whole process (verify's floor) | {bare * 1000:.0f} ms | "
              f"{spread(walls['bare'])} ms | 1.00 | {bare / bare_alike:.2f} | "
              f"{bare_c * 1000:.0f} ms | 1.00 | {wb * 1000:.1f} ms, {wbc * 1000:.1f} ms |",
              f"| bare pass ended alike (os._exit) | {bare_alike * 1000:.0f} ms | "
              f"{spread(walls['bare-exit'])} ms | {bare_alike / bare:.2f} | 1.00 | | | |",
              f"| `pbem verify`, whole game | {verify * 1000:.0f} ms | {spread(walls['verify'])} ms "
              f"| **{verify / bare:.2f}** to the bare pass | {verify / bare_alike:.2f} | "
              f"{verify_c * 1000:.0f} ms | "
              f"{verify_c / bare_c:.2f} | {wv * 1000:.0f} ms, {wvc * 1000:.0f} ms: "
              f"**{wv / wb:.2f}** (CPU {wvc / wbc:.2f}) to the bare pass |", ""]

    def third(k: str, which: int) -> list[Run]:
        out = []
        for g in games:
            rs = g.m[k]
            n = len(rs)
            out += [r for _, r in (rs[:n // 3] if which == 0 else rs[-(n // 3):])]
        return out

    lines += ["| measure | first third of the game | last third of the game |",
              "| --- | --- | --- |"]
    for k in ("receive", "status", "submit"):
        e, l_ = third(k, 0), third(k, 1)
        ew, lw = med([r.wall for r in e]), med([r.wall for r in l_])
        ec, lc = med([r.cpu for r in e]), med([r.cpu for r in l_])
        lines.append(f"| `pbem {k}`, median wall (ratio to the floor); CPU (ratio) | "
                     f"{ew * 1000:.0f} ms ({ew / floor:.2f}); {ec * 1000:.0f} ms "
                     f"({ec / floor_cpu:.2f}) | {lw * 1000:.0f} ms ({lw / floor:.2f}); "
                     f"{lc * 1000:.0f} ms ({lc / floor_cpu:.2f}) |")
        lines.append(f"| `pbem {k}`, peak memory (RSS), median | "
                     f"{med([r.rss for r in e]) / 1024:.1f} MiB | "
                     f"{med([r.rss for r in l_]) / 1024:.1f} MiB |")
    lines += ["", f"Peak memory of the floor process: "
              f"{med([r.rss for r in runs['floor']]) / 1024:.1f} MiB.", ""]
    lines += ["| `pbem verify` of the archive cut after file | peak memory (RSS), median | "
              "wall time, median | CPU time, median |", "| --- | --- | --- | --- |"]
    for g in games:
        cuts = sorted((k for k in g.m if k.startswith("verify-cut-")),
                      key=lambda k: int(k.rsplit("-", 1)[1]))
        for k in cuts:
            rs = [r for _, r in g.m[k]]
            lines.append(f"| {k.rsplit('-', 1)[1]} (seed {g.seed}) | "
                         f"{med([r.rss for r in rs]) / 1024:.1f} MiB | "
                         f"{med([r.wall for r in rs]) * 1000:.0f} ms | "
                         f"{med([r.cpu for r in rs]) * 1000:.0f} ms |")
    lines.append("")
    return "\n".join(lines)


def _minutes(seconds: float) -> str:
    """A run's length in whole minutes, in words ("under a minute", "1 minute", "3 minutes")."""
    n = round(seconds / 60)
    return "under a minute" if n == 0 else "1 minute" if n == 1 else f"{n} minutes"


def main() -> None:
    """Play, measure, print (and append to --write)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", default=None,
                    help="GAME:SCENARIO (repeatable; default Holdfast campaign and Kasserine "
                         "historical)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--verify-repeats", type=int, default=5)
    ap.add_argument("--warm-every", type=int, default=3,
                    help="time every Nth receive warm too (imports excluded)")
    ap.add_argument("--max-files", type=int, default=None, help="stop a game after N files")
    ap.add_argument("--label", default="", help="a heading note (e.g. 'before the caches')")
    ap.add_argument("--write", default=None, help="append the results to this Markdown file")
    ap.add_argument("--keep", default=None, help="keep the games in this folder")
    ap.add_argument("--mode", choices=["peer", "sealed"], default="peer",
                    help="the games' mode (sealed: no verify of cut archives)")
    args = ap.parse_args()
    # as installed: every module byte-compiled and current (an environment that sets
    # PYTHONDONTWRITEBYTECODE would otherwise compile every edited module in every process)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "pbem")], check=True,
                   stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
    specs = args.game or ["holdfast:campaign", "kasserine:historical"]
    t_start = time.time()
    load = os.getloadavg()[0]
    sections = []
    for spec in specs:
        gid, scen = spec.split(":")
        played = []
        for seed in args.seeds:
            g = Game(gid, scen, seed, args.warm_every, args.max_files, args.mode)
            base = Path(args.keep) / f"{gid}-{scen}-{seed}" if args.keep else None
            with tempfile.TemporaryDirectory() as tmp:
                root = base or Path(tmp) / "g"
                if base:
                    shutil.rmtree(base, ignore_errors=True)
                root.mkdir(parents=True)
                dirs = g.play(root)
                g.audit(root, dirs[g.game.sides[0]], args.verify_repeats)
            played.append(g)
        sections.append(report(played, f"{played[0].game.title}, scenario {scen}"
                               + (", sealed mode" if args.mode == "sealed" else "")))
    progress("")
    if PROGRESS:
        sys.stderr.write("\r\033[K")
    head = [f"## Commands as players run them{': ' + args.label if args.label else ''}", "",
            f"Measured by `bench/commands.py` on {time.strftime('%Y-%m-%d', time.gmtime())}: "
            f"{machine()}; load average {load:.2f} at the start; "
            f"{_minutes(time.time() - t_start)}.", ""]
    out = "\n".join(head + sections)
    print(out)
    if args.write:
        with open(args.write, "a", encoding="utf-8") as fh:
            fh.write(out + "\n")


if __name__ == "__main__":
    main()
