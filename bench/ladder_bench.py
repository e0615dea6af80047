"""Benchmark of the club ladder at scale (a script, never a timed test).

Builds a ladder with 10,000 players and 100,000 synthetic recorded games (results drawn from
hidden player strengths, 5% draws, two game titles), then measures:

- the rating update when a game is recorded (what `ladder submit` does: openskill for the
  two players, overall and per title), and a full replay of every rating (`ladder
  recompute`);
- the standings (10,000 players, as JSON) and one player's page (median player);
- `ladder submit` of real Holdfast archives (pbem demo, peer) against pbem's audit alone.

    .venv/bin/python bench/ladder_bench.py [--players N] [--games N] [--write docs/performance.md]

Progress goes to stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from pbem.core.keys import fingerprint, public_raw  # noqa: E402
from pbem.ladder import ratings  # noqa: E402
from pbem.ladder.db import init_db, now, transaction  # noqa: E402
from pbem.ladder.players import register  # noqa: E402

TTY = sys.stderr.isatty()


def progress(msg: str, end: str = "\n") -> None:
    """A progress line on a terminal only."""
    if TTY:
        print(f"\r{msg}", end=end, file=sys.stderr, flush=True)


def timed(fn, repeat: int = 1):  # type: ignore[no-untyped-def]
    """(median seconds, last result) of calling fn repeat times."""
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def timed_cpu(fn, repeat: int = 1):  # type: ignore[no-untyped-def]
    """(median seconds, median CPU seconds of this process, last result) of calling fn
    repeat times: the CPU time is what the work itself took when other work shares the
    machine's cores."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), result


def build(path: Path, players: int, games: int, seed: int) -> tuple[object, list[int]]:
    """The synthetic ladder: players, then games inserted in bulk (ratings replayed after)."""
    rng = random.Random(seed)
    conn = init_db(path, name="benchmark")
    with transaction(conn):
        pids = []
        for i in range(players):
            pids.append(register(conn, f"player{i:05d}",
                                 public_raw(Ed25519PrivateKey.generate().public_key())))
            if i % 1000 == 0:
                progress(f"players {i}/{players}", end="")
    progress(f"players {players}/{players}")
    fps = {r[0]: r[1] for r in conn.execute("SELECT player_id, fingerprint FROM keys")}
    strength = {p: rng.gauss(0, 1) for p in pids}
    when = now()
    with transaction(conn):
        for g in range(1, games + 1):
            a, b = rng.sample(pids, 2)
            title = "holdfast" if rng.random() < 0.6 else "kasserine"
            u = rng.random()
            pa = 1 / (1 + math.exp(strength[b] - strength[a]))
            ra = "draw" if u < 0.05 else "win" if u < 0.05 + 0.95 * pa else "loss"
            rb = {"win": "loss", "loss": "win", "draw": "draw"}[ra]
            conn.execute("INSERT INTO games(seq, game_id, game, title, scenario, mode, kind, "
                         "reason, files, turns, recorded) VALUES (?, ?, ?, ?, 'campaign', "
                         "'peer', 'played', 'synthetic', 40, 12, ?)",
                         (g, f"{g:032x}", title, title.title(), when))
            conn.executemany("INSERT INTO game_players(game_seq, side, player_id, fingerprint, "
                             "result, dice, dice_dev) VALUES (?, ?, ?, ?, ?, ?, ?)",
                             [(g, "allied", a, fps[a], ra, 30, rng.gauss(0, 5.5)),
                              (g, "axis", b, fps[b], rb, 30, rng.gauss(0, 5.5))])
            if g % 5000 == 0:
                progress(f"games {g}/{games}", end="")
    progress(f"games {games}/{games}")
    return conn, pids


def change_and_recompute(conn, k: int) -> None:  # type: ignore[no-untyped-def]
    """A change at game k (its result turned over, as a correction would), then the
    recompute from game k on that the change needs (`ladder recompute --from k`)."""
    with transaction(conn):
        conn.execute("UPDATE game_players SET result = CASE result WHEN 'win' THEN 'loss' "
                     "WHEN 'loss' THEN 'win' ELSE 'draw' END WHERE game_seq = ?", (k,))
    ratings.recompute(conn, k)


def openskill_cost(calls: int = 20_000) -> dict[str, float]:
    """CPU seconds per call of openskill's `rate` for one two-player game, measured apart
    from the ladder: `plain` (teams and ranks, as the library's examples call it: `rate`
    deep-copies the teams first), `copy` (that `copy.deepcopy` of the two teams alone, each
    copied rating drawing a fresh uuid4), and the forms the replay uses (`rate_owned`): a
    decided game as teams in order of finish with the copy answered by the objects
    themselves (`decided`), a draw with ranks and no copy (`draw`)."""
    import copy

    m = ratings.model()
    rng = random.Random(7)
    pool = [m.rating() for _ in range(200)]
    pairs = [rng.sample(range(200), 2) for _ in range(calls)]

    def plain() -> None:
        for a, b in pairs:
            [[pool[a]], [pool[b]]] = m.rate([[pool[a]], [pool[b]]], ranks=[1, 2])

    def copies() -> None:
        for a, b in pairs:
            copy.deepcopy([[pool[a]], [pool[b]]])

    def owned(ranks: list[int]) -> None:
        for a, b in pairs:
            pool[a], pool[b] = ratings.rate_owned([pool[a], pool[b]], ranks)

    out = {}
    for name, fn in (("plain", plain), ("copy", copies), ("decided", lambda: owned([1, 2])),
                     ("draw", lambda: owned([1, 1]))):
        out[name] = timed_cpu(fn, repeat=3)[1] / calls
    return out


def read_cost(conn) -> float:  # type: ignore[no-untyped-def]
    """CPU seconds of the replay's one query alone: every game's players and results read
    in recorded order, the rows only counted."""
    def read() -> int:
        n = 0
        for _ in ratings.game_rows(conn, 1):
            n += 1
        return n

    return timed_cpu(read, repeat=3)[1]


def demo_archives(tmp: Path, n: int, scenario: str = "race-to-tunis"
                  ) -> list[tuple[Path, Path]]:
    """n Holdfast games played by `pbem demo` (peer): (archive, keys folder)."""
    import subprocess

    out = []
    for i in range(n):
        d = tmp / f"demo-{scenario}-{i}"
        subprocess.run([sys.executable, "-m", "pbem", "demo", str(d), "--game", "holdfast",
                        "--scenario", scenario, "--seed", str(i + 1), "--quiet"],
                       check=True, capture_output=True, cwd=ROOT)
        out.append((d / "allied", d / "keys"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=10_000)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--submits", type=int, default=5, help="real archives submitted")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", default=None, help="Replace the ladder section of this file.")
    ap.add_argument("--keep", action="store_true", help="Keep the benchmark's ladder file.")
    args = ap.parse_args()

    from pbem.core.keys import load_public
    from pbem.core import records
    from pbem.ladder.site import Site
    from pbem.ladder.standings import as_json, standings
    from pbem.ladder.submit import submit
    from pbem.protocol.audit import verify_archive

    load = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="ladder-bench-"))
    db = tmp / "bench.ladder"
    t0 = time.perf_counter()
    conn, pids = build(db, args.players, args.games, args.seed)
    t_build = time.perf_counter() - t0
    progress("full rebuild of every rating ...")
    t_replay, c_replay, table = timed_cpu(lambda: ratings.replay(conn), repeat=3)
    asked = table.asked
    del table
    t_recompute, c_recompute, _ = timed_cpu(lambda: ratings.recompute(conn), repeat=3)
    progress("recompute after a change ...")
    changes = {}
    for back in (1_000, 10_000, args.games // 2):
        k = max(1, args.games - back + 1)
        changes[back] = (k, args.games - k + 1,
                         *timed_cpu(lambda: change_and_recompute(conn, k), repeat=3)[:2])
    cost = openskill_cost()
    t_read = read_cost(conn)
    drawn = conn.execute("SELECT COUNT(DISTINCT game_seq) FROM game_players WHERE result = "
                         "'draw'").fetchone()[0] / args.games
    size = db.stat().st_size
    progress("standings, player page ...")
    t_standings, rows = timed(lambda: as_json(standings(conn)), repeat=5)
    counts = sorted((r[0], r[1]) for r in conn.execute(
        "SELECT COUNT(*), player_id FROM game_players GROUP BY player_id"))
    median_games, median_pid = counts[len(counts) // 2]
    t_page, page = timed(lambda: Site(conn).player(median_pid), repeat=5)
    site = Site(conn)
    t_page_only, _ = timed(lambda: site.player(median_pid), repeat=5)

    # One synthetic game recorded the way `ladder submit` records it (incremental update).
    from pbem.ladder.record import GameRecord, SideResult, record_game

    fps = dict(conn.execute("SELECT player_id, fingerprint FROM keys"))

    def record_one() -> None:
        a, b = random.sample(pids, 2)
        n = conn.execute("SELECT MAX(seq) FROM games").fetchone()[0] + 1
        with transaction(conn):
            record_game(conn, GameRecord(
                game_id=f"{n:032x}", game="holdfast", title="Holdfast", scenario="campaign",
                mode="peer", kind="played", reason="synthetic", files=40, turns=12,
                sides=[SideResult(side="allied", player_id=a, fingerprint=fps[a], result="win"),
                       SideResult(side="axis", player_id=b, fingerprint=fps[b],
                                  result="loss")]))
    t_record, _ = timed(record_one, repeat=20)

    progress("real archives: playing Holdfast games with pbem demo ...")
    submits = []
    from pbem.ladder import archives

    inside: list[float] = []          # the audit's own time inside each submit
    real_audit = archives.audit

    def audit_timed(root):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        try:
            return real_audit(root)
        finally:
            inside.append(time.perf_counter() - t)

    archives.audit = audit_timed  # type: ignore[assignment]
    played = demo_archives(tmp, args.submits)
    progress("real archives: a whole campaign game ...")
    played += demo_archives(tmp, 1, "campaign")
    verify_archive(played[0][0])          # warm up: imports, scenario data, map graphs
    verify_archive(played[-1][0])
    for i, (archive, keys) in enumerate(played):
        with transaction(conn):
            for side in ("allied", "axis"):
                raw, _ = load_public(keys / f"{side}.pub")
                register(conn, f"demo{i}-{side}", raw)
        audits = []
        for _ in range(3):
            records._OPENED.clear()
            t_audit, audit = timed(lambda: verify_archive(archive))
            assert audit.ok, audit.problems
            audits.append(t_audit)
        records._OPENED.clear()
        inside.clear()
        t_submit, rec = timed(lambda: submit(conn, archive))
        files = len(list((archive / "files").glob("*.pbem")))
        submits.append((min(audits), t_submit, files, t_submit - inside[0]))
        progress(f"submit {i + 1}/{len(played)}: audit {min(audits) * 1e3:.0f} ms, submit "
                 f"{t_submit * 1e3:.0f} ms")
    campaign = submits.pop()
    overhead = statistics.median(o for *_, o in submits)
    audit_med = statistics.median(a for a, *_ in submits)
    submit_med = statistics.median(s for _, s, *_ in submits)
    files_med = statistics.median(f for _, _, f, _ in submits)
    assert ratings.check(conn) == [] if args.games <= 20_000 else True

    cpu = platform.processor() or platform.machine()
    mid = changes[10_000]
    lines = [
        "## Ladder",
        "",
        "Measured by `bench/ladder_bench.py` (a script, not a timed test): a ladder of "
        f"{args.players:,} players and {args.games:,} synthetic recorded games (results drawn "
        "from hidden strengths, 5% draws, two titles), then real Holdfast archives (`pbem demo`, "
        "race-to-tunis, peer) submitted into it. Run it with "
        "`.venv/bin/python bench/ladder_bench.py --write docs/performance.md`.",
        "",
        f"Machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()}; database {size / 2**20:.0f} MiB (built in {t_build:.0f} s); "
        f"load average {load:.1f} when the run started (other work on the machine slows "
        "every figure).",
        "",
        "| measure | time |",
        "| --- | --- |",
        f"| rating update when a game is recorded (openskill for both players, overall and "
        f"per title; history; one transaction with its fsync) | {t_record * 1e3:.1f} ms |",
        f"| standings: {args.players:,} players ranked, as JSON | {t_standings * 1e3:.0f} ms |",
        f"| one player's page ({median_games} games; standings for its rank included) | "
        f"{t_page * 1e3:.0f} ms |",
        f"| the same page when the site renders every page (standings computed once) | "
        f"{t_page_only * 1e3:.1f} ms |",
        f"| `ladder submit` of a real archive ({files_med:.0f} files), median of "
        f"{len(submits)} | {submit_med * 1e3:.0f} ms |",
        f"| pbem's audit alone of the same archives (`verify_archive`, best of 3) | "
        f"{audit_med * 1e3:.0f} ms |",
        f"| **`ladder submit` beyond its audit** (copy, zip, checks, record, ratings, commit; "
        f"timed inside the submit) | **{overhead * 1e3:.0f} ms** |",
        f"| a whole campaign game ({campaign[2]} files): audit {campaign[0] * 1e3:.0f} ms, "
        f"`ladder submit` {campaign[1] * 1e3:.0f} ms, **beyond its audit** | "
        f"**{campaign[3] * 1e3:.0f} ms** |",
        f"| full rebuild: every rating replayed from {args.games:,} games, from scratch "
        f"(computing only; median of 3) | {t_replay:.2f} s (CPU {c_replay:.2f} s) |",
        f"| `ladder recompute`: the full rebuild plus rewriting ratings and "
        f"{4 * args.games:,} history rows (median of 3) | {t_recompute:.1f} s "
        f"(CPU {c_recompute:.1f} s) |",
        *[f"| recompute after a change at game {k:,} (the last {n:,} games replayed "
          f"from the stored ratings before it, `ladder recompute --from {k}`; median of 3) | "
          f"{t * 1e3:.0f} ms (CPU {c * 1e3:.0f} ms) |"
          for k, n, t, c in sorted(changes.values(), key=lambda c: c[1])],
        "",
        "Reading the numbers (where a row gives CPU time, it is the time this process itself "
        "computed, which other work on the machine does not inflate; the wall-clock time also "
        "counts waiting for a core and for the disk):",
        "",
        "- Recording a game rates only its two players (two openskill updates: overall and the "
        "game's title), which gives exactly what a replay of every game would give, since a "
        "new game is always the last one; `ladder recompute --check` proves it. This, not the "
        "full rebuild, is the rating work a ladder does in use, and it is the same at any size.",
        "- A change at game k (the director correcting a game by hand; no command changes a "
        "recorded game yet) needs only the games from k on replayed: the "
        "ratings just before k are in the stored history (a checkpoint, read in two queries), "
        "so the cost follows the games after the change (about "
        f"{mid[3] / mid[1] * 1e6:.0f} us of CPU each, reading the checkpoint of their players "
        "and storing included), not the size of the ladder. Tests "
        "(`tests/ladder/test_ratings.py`) check that it gives, to the last bit, the ratings "
        "and history of a rebuild from scratch and of plain openskill calls.",
        ("- **The full rebuild from scratch does not meet the one-second target on this "
         "machine** (its CPU time is above it). " if c_replay >= 1 else
         "- The full rebuild from scratch meets the one-second target. ")
        + f"It needs two openskill updates per game ({asked:,} calls of `PlackettLuce.rate`, "
        "all the library's own: no rating arithmetic is written in pbem). Measured apart from "
        "the ladder, one call for a two-player game costs, in CPU: "
        f"{cost['plain'] * 1e6:.1f} us as the library's examples call it (teams and ranks), "
        f"of which {cost['copy'] * 1e6:.1f} us is the `copy.deepcopy` of the teams that "
        "`rate` makes first (every copied rating drawing a fresh uuid4) and most of the rest "
        "its checking and sorting of the ranks. The replay calls it in the two forms that "
        f"skip both: {cost['decided'] * 1e6:.1f} us for a decided game (teams in order of "
        "finish, the form the library documents, with the copy answered by the replay's own "
        f"rating objects through Python's `__deepcopy__` hook) and {cost['draw'] * 1e6:.1f} us "
        "for a draw (ranks, no copy); the ratings are the same to the last bit "
        "(`tests/ladder/test_ratings.py` compares them with plain calls). So the floor is "
        f"about {asked * ((1 - drawn) * cost['decided'] + drawn * cost['draw']):.2f} s of "
        f"openskill alone (it was {asked * cost['plain']:.1f} s with plain calls), "
        f"reading the {2 * args.games:,} rows of the games takes {t_read:.2f} s, and the rest "
        "is the ladder's own loop (counts, history). What is left of openskill's cost is its "
        "computation itself (team ratings, sums and exponentials, in its compiled code), which "
        "pbem cannot shorten without writing rating maths of its own. The per-title ratings "
        "depend on nothing else, so they could be replayed in a second process beside the "
        "overall ones; a prototype (a forked child, not kept) measured it on this shared "
        "machine: reading the games stays in one process and the titles' 200,000 history "
        "rows have to come back through a pipe and be merged, so the parent's CPU time fell "
        "by only a fifth while the CPU time in all rose by two fifths. Python's cyclic "
        "garbage collector is paused during a replay (it would "
        "walk the growing history again and again). The rebuild runs only when the director "
        f"asks for it; storing {4 * args.games:,} history rows adds the rest of `ladder "
        "recompute`.",
        f"- `ladder submit` costs pbem's audit plus {overhead * 1e3:.0f} ms "
        f"({campaign[3] * 1e3:.0f} ms for a {campaign[2]}-file campaign): the private copy of "
        "the archive (in memory), its zip, the checks and the one transaction, whose commit "
        "waits for the disk (`synchronous=FULL`). The result is read from the session the "
        "audit itself replayed: the game is never replayed twice.",
        "- The standings and a player's page read indexed tables; the page's cost is mostly "
        "the standings it takes its rank from (`ladder site` computes them once for every page).",
        "",
    ]
    import textwrap

    out_lines = []
    for ln in lines:
        if ln.startswith("|") or not ln:
            out_lines.append(ln)
        else:
            indent = "  " if ln.startswith("- ") else ""
            out_lines.extend(textwrap.wrap(ln, 92, subsequent_indent=indent,
                                           break_on_hyphens=False, break_long_words=False))
    text = "\n".join(out_lines)
    print(text)
    if args.write:
        p = Path(args.write)
        old = p.read_text()
        if "\n## Ladder\n" in old:          # replace the section where it stands
            head, _, rest = old.partition("\n## Ladder\n")
            nxt = rest.find("\n## ")
            tail = rest[nxt + 1:] if nxt >= 0 else ""
            p.write_text(head + "\n" + text.rstrip("\n") + ("\n\n" + tail if tail else "\n"))
        else:
            p.write_text(old.rstrip("\n") + "\n\n" + text + "\n")
        print(f"Wrote {p}", file=sys.stderr)
    del page
    conn.close()  # type: ignore[attr-defined]
    if args.keep:
        print(f"Kept {db}", file=sys.stderr)
    else:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
