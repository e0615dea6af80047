"""Crash safety: `kill -9` inside any write of receive, submit, join, new or host.

Each command runs as a real process (tests/fixtures/crashkill.py, forked from a warm server)
that SIGKILLs itself at the N-th call of os.replace, os.rename or os.fsync, before or after
performing it, for N = 1, 2, ... up to the calls of an uninterrupted run. (Killing after an
fsync, or after a rename that the folder's fsync follows, leaves the disk exactly as killing
before the next call does, so "after" is tried only for the other renames and the last
call. The fsyncs are counted but not performed: a killed process, unlike a power cut, loses
nothing the kernel already has. Each sweep is split between two fork servers.) After each
kill:

- the archive verifies (`pbem verify` exit 0); a genesis still being made (new, host, join)
  is absent or complete, never half-built; where a received file is stored but its answer
  is not, `pbem status` says to run the same `pbem receive` again;
- the same command run again succeeds, and the archive and the output files are byte-identical
  to those of an uninterrupted run from the same start (reports and cache included); for
  proposals and acceptances, which are random, the output reproduces the stored file, the
  key's registry records the game once, and the next step of the game works.

A second test kills the commands from outside after seeded random delays.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pbem.core.records import read_file
from fixtures.table import Table, snapshot

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
TEMP = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")


def _env() -> dict[str, str]:
    paths = [str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))


class Server:
    """The fork server of tests/fixtures/crashkill.py: each command is a fresh child process."""

    def __init__(self, scratch: Path) -> None:
        self.log, self.count = scratch / "run.log", scratch / "calls.json"
        self.p = subprocess.Popen([sys.executable, "-m", "fixtures.crashkill", "--serve"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=_env(), cwd=str(TESTS))

    def run(self, argv: list[str], n: int = 0, when: str = "before",
            cwd: str | None = None) -> dict:
        self.count.unlink(missing_ok=True)
        req = {"argv": argv, "n": n, "when": when, "log": str(self.log),
               "count": str(self.count), "sync": False, "cwd": cwd}
        assert self.p.stdin and self.p.stdout
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        res = json.loads(self.p.stdout.readline())
        res["output"] = self.log.read_text()
        res["calls"] = json.loads(self.count.read_text()) if self.count.exists() else None
        return res

    def close(self) -> None:
        assert self.p.stdin
        self.p.stdin.close()
        self.p.wait(10)


@dataclass
class Case:
    """One command from one prepared starting folder ({W} is the working copy)."""

    name: str
    template: Path
    argv: list[str]
    archives: list[str] = field(default_factory=list)   # verified and compared
    outputs: list[str] = field(default_factory=list)    # output files or folders compared
    may_be_stale: bool = False        # no reply owed: a completed run makes a re-run 'stale'
    hint: tuple[str, str, str] | None = None   # (archive, stored, missing): status says re-run
    genesis: str | None = None        # new/host/join: the archive folder created
    stored: str = ""                  # ... the file in its files/ that the output reproduces
    key: str = ""                     # ... the key whose registry records the game
    verifies: bool = False            # ... a complete one verifies (the genesis is complete)
    after: list[str] = field(default_factory=list)  # ... the next step, which must work
    cwd: str | None = None            # run in this folder (default: tests/)

    def args(self, work: Path) -> list[str]:
        return [a.replace("{W}", str(work)) for a in self.argv]

    def where(self, work: Path) -> str | None:
        return self.cwd.replace("{W}", str(work)) if self.cwd else None


def _rel(t: Table, path: str) -> str:
    return "{W}/" + str(Path(path).relative_to(t.tmp))


def _save(t: Table, base: Path, name: str, *keep: str) -> Path:
    """A copy of the table's folder as a starting point: keys, mail, orders and the archives
    named in keep (copying fewer folders keeps the test fast)."""
    dst = base / "templates" / name
    skip = {p.name for p in t.dirs.values()} - set(keep)
    shutil.copytree(t.tmp, dst, ignore=lambda d, names: skip if Path(d) == t.tmp else [])
    return dst


def _orders(t: Table, name: str, lines: list[str]) -> str:
    (t.tmp / name).write_text("\n".join(lines) + "\n")
    return "{W}/" + name


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> dict[str, Case]:
    base = tmp_path_factory.mktemp("crash")
    out: dict[str, Case] = {}
    K = "{W}/keys/"

    # Peer mode, red proposes: red receives the acceptance and owes its codeword (no reply).
    p = Table(base / "peer")
    acc = _rel(p, p.inbox[0][0])
    red_orders = _orders(p, "red-orders.txt", ["pick bravowolf"])
    out["accept"] = Case("accept", _save(p, base, "accept", "red"),
                         ["receive", "{W}/red", acc, "--key", K + "red.key"],
                         archives=["red"], may_be_stale=True)
    p.deliver()
    out["submit"] = Case("submit", _save(p, base, "submit", "red"),
                         ["submit", "{W}/red", red_orders, "--key", K + "red.key",
                          "--out", "{W}/mail/out.pbem"],
                         archives=["red"], outputs=["mail/out.pbem"])
    f1 = p.play_one(["pick alphawolf"])
    out["turn"] = Case("turn", _save(p, base, "turn", "blue"),
                       ["receive", "{W}/blue", _rel(p, f1), "--key", K + "blue.key",
                        "--out", "{W}/mail/out.pbem"],
                       archives=["blue"], outputs=["mail/out.pbem"], may_be_stale=True)
    p.deliver()
    p.play_one(["pick deltafox"])
    p.deliver()
    f3 = p.play_one(["advance"])          # red does not end its turn: blue replies at once
    seq = read_file(f3).payload.seq  # type: ignore[union-attr]
    out["reply"] = Case("reply", _save(p, base, "reply", "blue"),
                        ["receive", "{W}/blue", _rel(p, f3), "--key", K + "blue.key",
                         "--out", "{W}/mail/out.pbem"],
                        archives=["blue"], outputs=["mail/out.pbem"],
                        hint=("blue", f"{seq:04d}-red.pbem", f"{seq + 1:04d}-blue.pbem"))

    # Making a genesis: new, join, host.
    g = Table(base / "gen")
    out["new"] = Case("new", _save(g, base, "new"),
                      ["new", "dash", "short", "{W}/g", "--side", "red", "--key", K + "red.key",
                       "--opponent", K + "blue.pub", "--out", "{W}/mail/prop.pbem"],
                      genesis="g", stored="0000-proposal.pbem", key="red",
                      after=["join", "{W}/mail/prop.pbem", "--key", K + "blue.key", "--dir",
                             "{W}/gb", "--out", "{W}/mail/acc.pbem"])
    out["host"] = Case("host", out["new"].template,
                       ["host", "dash", "short", "{W}/ref", "--key", K + "host.key",
                        "--player", f"red={K}red.pub", "--player", f"blue={K}blue.pub",
                        "--out", "{W}/mail/hprop.pbem"],
                       genesis="ref", stored="0000-proposal.pbem", key="host",
                       after=["join", "{W}/mail/hprop.pbem", "--key", K + "red.key", "--dir",
                              "{W}/hr", "--out", "{W}/mail/hacc.pbem"])
    g.ok("new", "dash", "short", str(g.tmp / "g"), "--side", "red", "--key", g.key("red"),
         "--opponent", g.pub("blue"), "--out", str(g.tmp / "mail" / "prop.pbem"))
    out["join"] = Case("join", _save(g, base, "join"),
                       ["join", "{W}/mail/prop.pbem", "--key", K + "blue.key", "--dir", "{W}/gb",
                        "--out", "{W}/mail/acc.pbem"],
                       genesis="gb", stored="0000-accept-blue.pbem", key="blue", verifies=True,
                       after=["receive", "{W}/g", "{W}/mail/acc.pbem", "--key", K + "red.key"])
    (out["join"].template / "gb").mkdir()     # an empty folder made first, joined from inside
    out["join-here"] = Case("join-here", base / "templates" / "join-here",
                            ["join", "{W}/mail/prop.pbem", "--key", K + "blue.key", "--dir", ".",
                             "--out", "{W}/mail/acc.pbem"], cwd="{W}/gb",
                            genesis="gb", stored="0000-accept-blue.pbem", key="blue",
                            verifies=True, after=out["join"].after)
    shutil.copytree(out["join"].template, out["join-here"].template)
    (out["join"].template / "gb").rmdir()

    # Hosted mode: the referee completes the genesis, a hosted player submits, the referee
    # receives a player's file (its record and both views).
    h = Table(base / "hosted", mode="hosted")
    first, _ = h.inbox.pop(0)
    h.ok("receive", str(h.dirs["host"]), first, "--key", h.key("host"))
    out["ref-accept"] = Case("ref-accept", _save(h, base, "ref-accept", "referee"),
                             ["receive", "{W}/referee", _rel(h, h.inbox[0][0]), "--key",
                              K + "host.key", "--out", "{W}/mail/views"],
                             archives=["referee"], outputs=["mail/views"])
    h.deliver()
    h_orders = _orders(h, "red-orders.txt", ["pick bravowolf"])
    out["hsubmit"] = Case("hsubmit", _save(h, base, "hsubmit", "red"),
                          ["submit", "{W}/red", h_orders, "--key", K + "red.key",
                           "--out", "{W}/mail/out.pbem"],
                          archives=["red"], outputs=["mail/out.pbem"])
    h.play_one(["pick alphawolf"])
    pick, _ = h.inbox.pop(0)
    vdir = h.tmp / "mail" / "views-pick"
    h.ok("receive", str(h.dirs["host"]), pick, "--key", h.key("host"), "--out", str(vdir))
    # blue decides next, so the referee owes blue a view (red's comes when it decides again)
    blue_view = sorted(vdir.glob("view-blue-*.pbem"))[-1]
    out["view"] = Case("view", _save(h, base, "view", "blue"),
                       ["receive", "{W}/blue", _rel(h, str(blue_view)), "--key",
                        K + "blue.key"], archives=["blue"], may_be_stale=True)
    h.inbox += [(str(v), v.name.split("-")[1]) for v in sorted(vdir.glob("view-*.pbem"))]
    h.deliver()
    h.play_one(["pick deltafox"])
    h.deliver()
    hf = h.play_one(["advance", "end"])
    hseq = read_file(hf).payload.seq  # type: ignore[union-attr]
    out["ref-turn"] = Case("ref-turn", _save(h, base, "ref-turn", "referee"),
                           ["receive", "{W}/referee", _rel(h, hf), "--key", K + "host.key",
                            "--out", "{W}/mail/views"],
                           archives=["referee"], outputs=["mail/views"],
                           hint=("referee", f"{hseq:04d}-red.pbem",
                                 f"view-blue-{hseq + 1:04d}.pbem"))
    return out


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """One fork server per CPU (at most two): a sweep is split between them."""
    n = 2 if (os.cpu_count() or 1) > 1 else 1
    out = [Server(tmp_path_factory.mktemp("crashserver")) for _ in range(n)]
    yield out
    for srv in out:
        srv.close()


def _fresh(case: Case, work: Path) -> None:
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(case.template, work)


def _temps(folder: Path) -> list[str]:
    return [str(p) for p in folder.rglob(".*") if TEMP.match(p.name)] if folder.exists() else []


def _state(case: Case, work: Path) -> dict[str, object]:
    """What an uninterrupted run must leave: archives and outputs, byte for byte."""
    st: dict[str, object] = {a: snapshot(work / a) for a in case.archives}
    for o in case.outputs:
        p = work / o
        st[o] = snapshot(p) if p.is_dir() else (p.read_bytes() if p.exists() else None)
    st["temporary files in mail/"] = _temps(work / "mail")
    return st


def _registry(work: Path, key: str) -> list[list[str]]:
    p = work / "keys" / f"{key}.key.games"
    return [ln.split(" ", 3) for ln in p.read_text().splitlines() if ln] if p.exists() else []


def _check_chain(case: Case, srv: Server, work: Path, ref: dict[str, object], why: str) -> None:
    for a in case.archives:
        r = srv.run(["verify", str(work / a)])
        assert r["code"] == 0, (why, r["output"])
    if case.hint:
        a, stored, missing = case.hint
        files = work / a / "files"
        r = srv.run(["status", str(work / a)])
        assert r["code"] == 0, (why, r["output"])
        if (files / stored).exists() and not (files / missing).exists():
            assert "run the same 'pbem receive" in r["output"], (why, r["output"])
    again = srv.run(case.args(work), cwd=case.where(work))
    if again["code"] != 0:
        assert case.may_be_stale and "stale" in again["output"], (why, again["output"])
    assert _state(case, work) == ref, (why, again["output"])


def _check_genesis(case: Case, srv: Server, work: Path, why: str) -> None:
    d = work / case.genesis  # type: ignore[operator]
    # Absent (or, made beforehand, without archive.json), or complete: never half-built.
    if d.exists() and (case.cwd is None or (d / "archive.json").exists()):
        assert (d / "archive.json").is_file(), why
        read_file(d / "files" / case.stored, strict=True)
        if case.verifies:
            r = srv.run(["verify", str(d)])
            assert r["code"] == 0, (why, r["output"])
    again = srv.run(case.args(work), cwd=case.where(work))
    assert again["code"] == 0, (why, again["output"])
    out = Path(case.args(work)[case.argv.index("--out") + 1])
    assert out.read_bytes() == (d / "files" / case.stored).read_bytes(), why
    mine = [e for e in _registry(work, case.key) if e[3] == str(d.resolve())]
    assert len(mine) == 1, (why, mine)
    assert not [p for p in d.parent.iterdir() if p.name.startswith(f".{d.name}.partial-")], why
    assert not [p for p in d.iterdir() if p.name.startswith(".pbem-partial-")], why
    assert not _temps(work / "mail") and not _temps(d), why
    nxt = srv.run([a.replace("{W}", str(work)) for a in case.after])
    assert nxt["code"] == 0, (why, nxt["output"])


def _reference(case: Case, srv: Server, work: Path) -> tuple[dict[str, object], list[str]]:
    _fresh(case, work)
    r = srv.run(case.args(work), cwd=case.where(work))
    assert r["code"] == 0 and not r["killed"], r["output"]
    return _state(case, work), r["calls"]


def _sweep(case: Case, srv: Server, work: Path, points: list[tuple[int, str]]) -> None:
    """Kill the command at each point, then check (in its own working copy)."""
    ref, calls = _reference(case, srv, work)
    for n, when in points:
        _fresh(case, work)
        r = srv.run(case.args(work), n, when, cwd=case.where(work))
        why = f"{case.name}: killed {when} call {n} of {len(calls)} ({calls[n - 1]})"
        assert r["killed"], (why, r["output"])
        if case.genesis:
            _check_genesis(case, srv, work, why)
        else:
            _check_chain(case, srv, work, ref, why)


@pytest.mark.parametrize("name", ["accept", "turn", "reply", "submit", "new",
                                  "join", "join-here", "host", "ref-accept", "ref-turn",
                                  "hsubmit", "view"])
def test_kill_inside_every_write(cases, servers, tmp_path, name):
    case = cases[name]
    _, calls = _reference(case, servers[0], tmp_path / "w0")
    assert calls, "the command made no durable write"
    points = [(n, "before") for n in range(1, len(calls) + 1)]
    points += [(n, "after") for n, kind in enumerate(calls, 1)
               if n == len(calls) or kind != "fsync" and calls[n] != "fsync"]
    k = len(servers)
    with ThreadPoolExecutor(k) as pool:
        jobs = [pool.submit(_sweep, case, srv, tmp_path / f"w{i}", points[i::k])
                for i, srv in enumerate(servers)]
        for job in jobs:
            job.result()


@pytest.mark.parametrize("name", ["reply", "ref-turn", "join", "hsubmit"])
def test_kill_at_random_moments(cases, servers, tmp_path, name):
    """Killed from outside (a fresh interpreter each time) after seeded random delays."""
    case, server = cases[name], servers[0]
    work = tmp_path / "w"
    ref, _ = _reference(case, server, work)
    cmd = [sys.executable, "-m", "fixtures.crashkill", "0", "before"]
    _fresh(case, work)
    t0 = time.monotonic()
    done = subprocess.run(cmd + case.args(work), env=_env(), cwd=case.where(work) or TESTS,
                          capture_output=True, text=True)
    duration = time.monotonic() - t0
    assert done.returncode == 0, done.stdout + done.stderr
    rng = random.Random(f"crash-{name}")
    # Most of a run is starting the interpreter: two delays anywhere, three in the late part.
    delays = [rng.uniform(0, 1) for _ in range(2)] + [rng.uniform(0.6, 1) for _ in range(3)]
    for delay in sorted(d * duration for d in delays):
        _fresh(case, work)
        proc = subprocess.Popen(cmd + case.args(work), env=_env(), cwd=case.where(work) or TESTS,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        why = f"{name}: killed after {delay:.3f}s of {duration:.3f}s"
        if case.genesis:
            _check_genesis(case, server, work, why)
        else:
            _check_chain(case, server, work, ref, why)


# -- the rules for running a command again, directly -----------------------------------------
def test_join_and_new_run_again_reuse_what_is_stored(tmp_path):
    t = Table(tmp_path)
    acc = Path(t.inbox[0][0])
    prop = sorted((tmp_path / "mail").glob("*-proposal.pbem"))[0]
    stored = t.dirs["blue"] / "files" / "0000-accept-blue.pbem"
    again = tmp_path / "again.pbem"
    r = t.ok("join", str(prop), "--key", t.key("blue"), "--dir", str(t.dirs["blue"]),
             "--out", str(again))
    assert "already holds your acceptance" in r.output
    assert again.read_bytes() == acc.read_bytes() == stored.read_bytes()
    nonce = read_file(prop).payload.nonce  # type: ignore[union-attr]
    assert [e[0] for e in _registry(tmp_path, "blue")].count(nonce) == 1
    # The same proposal into another folder is still a second join: refused.
    r = t.run("join", str(prop), "--key", t.key("blue"), "--dir", str(tmp_path / "other"),
              "--out", str(tmp_path / "x.pbem"))
    assert r.exit_code == 1 and "already joined a game with this proposal nonce" in r.output
    assert not (tmp_path / "other").exists()
    # new: the same terms give the stored proposal again; other terms are refused.
    r = t.ok("new", "dash", "short", str(t.dirs["red"]), "--side", "red", "--key", t.key("red"),
             "--opponent", t.pub("blue"), "--out", str(again))
    assert again.read_bytes() == prop.read_bytes()
    r = t.run("new", "dash", "long", str(t.dirs["red"]), "--side", "red", "--key", t.key("red"),
              "--opponent", t.pub("blue"), "--out", str(tmp_path / "y.pbem"))
    assert r.exit_code == 1 and "an archive already exists here" in r.output
    t.deliver()                       # the game goes on from the stored files
    t.ok("verify", str(t.dirs["red"]))


def test_leftovers_of_a_killed_run_are_removed_or_ignored(tmp_path):
    t = Table(tmp_path)
    red = t.dirs["red"]
    junk = red / "files" / ".0000-accept-blue.pbem.ab12cd34.tmp"
    junk.write_text("half a file")
    r = t.ok("verify", str(red))
    assert "temporary file" in r.output and "waiting for the acceptance of blue" in r.output
    t.deliver()                       # takes the archive lock: the temporary file goes
    assert not junk.exists()
    t.ok("verify", str(red))
    # A half-built archive beside DIR, and a registry line cut short, from killed runs.
    partial = tmp_path / ".again.partial-0123456789ab"
    (partial / "files").mkdir(parents=True)
    with open(t.key("red") + ".games", "a") as fh:
        fh.write("0123abcd")          # no newline: the next entry must stay on its own line
    out = tmp_path / "p2.pbem"
    t.ok("new", "dash", "short", str(tmp_path / "again"), "--side", "red", "--key",
         t.key("red"), "--opponent", t.pub("blue"), "--out", str(out))
    assert not partial.exists()
    nonce = read_file(out).payload.nonce  # type: ignore[union-attr]
    assert any(e[0] == nonce for e in _registry(tmp_path, "red"))


def test_status_and_submit_name_an_unfinished_receive(tmp_path):
    """The state 'received but the automatic reply not stored', made by hand: red's file rolls
    a die and red decides again, so blue owes the reply that reveals its dice share."""
    t = Table(tmp_path)
    t.deliver()
    t.play_one(["pick alphawolf"])
    t.deliver()
    t.play_one(["pick deltafox"])
    t.deliver()
    roll = t.play_one(["advance"])
    t.inbox.clear()
    blue = t.dirs["blue"]
    shutil.copy(roll, blue / "files" / "0003-red.pbem")
    for args in (("status", str(blue), "--key", t.key("blue")),):
        r = t.ok(*args)
        assert "run the same 'pbem receive" in r.output, r.output
    (tmp_path / "o.txt").write_text("end\n")
    r = t.run("submit", str(blue), str(tmp_path / "o.txt"), "--key", t.key("blue"),
              "--out", str(tmp_path / "o.pbem"))
    assert r.exit_code == 1 and "pbem receive" in r.output
    out = tmp_path / "reply.pbem"
    r = t.ok("receive", str(blue), roll, "--key", t.key("blue"), "--out", str(out))
    assert "already in the archive" in r.output and out.exists()
    t.inbox.append((str(out), "red"))
    t.play_to_end()
    for side in t.sides:
        t.ok("verify", str(t.dirs[side]))


def test_an_old_file_after_this_party_moved_on_is_stale(tmp_path):
    """Delivered again once this party has sent more than the automatic answer: 'stale',
    exit 1, archive untouched (only an interrupted step is ever completed)."""
    t = Table(tmp_path)
    acc, _ = t.inbox[0]
    t.deliver()
    f1 = t.play_one(["pick alphawolf"])             # red moved on after the acceptance
    t.deliver()
    t.play_one(["pick deltafox"])                   # blue moved on after file 1
    for side, path in (("red", acc), ("blue", f1)):
        before = snapshot(t.dirs[side])
        r = t.run("receive", str(t.dirs[side]), path, "--key", t.key(side),
                  "--out", str(tmp_path / "x.pbem"))
        assert r.exit_code == 1 and "stale" in r.output, r.output
        assert snapshot(t.dirs[side]) == before and not (tmp_path / "x.pbem").exists()
