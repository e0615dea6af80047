"""Where a first-run `pbem verify` goes: exclusive time per phase, imports excluded.

Usage: python bench/phases.py GAME ARCHIVE [--runs N]

Imports what bench/warm.py imports, wraps the functions of each phase (reading files, Ed25519,
the genesis, the scenario set-up, order parsing, state copies and hashes, dice, the rules'
apply_order and, for Holdfast, the parts of its rules) with timers that charge each call its
own time minus the wrapped calls inside it, runs `pbem verify ARCHIVE` once, and prints the
phases. Each run is a fresh process (a second audit in one process would find its files and
signatures remembered). A diagnostic, with the timers' own cost in every figure: the ratios
the issue's targets are stated in come from bench/commands.py.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import io
import subprocess
import sys
import time
from typing import Any

MODULES = ("pbem.turn_commands", "pbem.protocol.ops", "pbem.protocol.audit",
           "pbem.protocol.session", "pbem.protocol.reporting", "pbem.reports.render",
           "pbem.reports.svgmap", "pbem.core.keys", "pbem.core.cache", "jinja2")


class Timers:
    """Exclusive time per label of the wrapped functions."""

    def __init__(self) -> None:
        self.acc: dict[str, float] = {}
        self.stack: list[float] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        """Replace owner.name by a timed wrapper charging label."""
        f = getattr(owner, name)

        @functools.wraps(f)
        def timed(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            self.stack.append(0.0)
            try:
                return f(*a, **k)
            finally:
                d = time.perf_counter() - t
                inner = self.stack.pop()
                self.acc[label] = self.acc.get(label, 0.0) + d - inner
                if self.stack:
                    self.stack[-1] += d
        setattr(owner, name, timed)


def _wrap_all(t: Timers, game: str) -> None:
    from pbem.core import signing
    from pbem.protocol import ledger, resolve, session

    t.wrap(signing, "verify", "Ed25519 verify")
    t.wrap(session, "read_file", "reading files (signatures apart)")
    t.wrap(session, "read_genesis", "genesis")
    t.wrap(session.Session, "set_initial", "scenario set-up")
    t.wrap(resolve, "apply_order", "rules (apply_order)")
    t.wrap(resolve, "derive_roll", "dice")
    t.wrap(resolve, "copy_state", "state copies")
    t.wrap(resolve, "state_hash", "state hashes")
    t.wrap(resolve, "parse_orders", "order parsing")
    t.wrap(ledger.Ledger, "check", "chain checks")
    t.wrap(session, "resolve", "resolving files (the rest)")
    t.wrap(session.Session, "advance", "advancing the chain (the rest)")
    if game == "holdfast":
        from pbem.games.holdfast import actions, game as hg, supply

        t.wrap(supply, "Net", "  rules: supply networks")
        t.wrap(actions, "check_path", "  rules: move paths")
        t.wrap(actions.combat, "check_attack", "  rules: attack checks")
        t.wrap(actions.combat, "resolve", "  rules: combat")
        t.wrap(actions.rf, "check_place", "  rules: placement checks")
        t.wrap(actions, "end_player_turn", "  rules: end of player turn")
        t.wrap(hg.sealed, "assign_slots", "  rules: block slots")


def one_run(game: str, archive: str) -> None:
    """Time one audit in this process and print 'ms label' lines, the total last."""
    import pbem.entry

    for mod in (*MODULES, f"pbem.games.{game}"):
        importlib.import_module(mod)
    t = Timers()
    _wrap_all(t, game)
    parsed = pbem.entry.fast_args(["pbem", "verify", archive])
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            pbem.entry.run_fast(*parsed)
        except SystemExit:
            pass
    total = time.perf_counter() - start
    if "rules (apply_order)" in t.acc:
        t.acc["rules (apply_order)"] += sum(v for k, v in t.acc.items() if k.startswith("  "))
    for label, v in t.acc.items():
        print(f"{v * 1000:.3f}\t{label}")
    print(f"{(total - sum(v for k, v in t.acc.items() if not k.startswith('  '))) * 1000:.3f}"
          "\tother")
    print(f"{total * 1000:.3f}\ttotal")


def main() -> None:
    """Run the audit in fresh processes and print each phase's median."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("archive")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        one_run(a.game, a.archive)
        return
    runs: dict[str, list[float]] = {}
    for i in range(a.runs):
        out = subprocess.run([sys.executable, __file__, a.game, a.archive, "--one"],
                             check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            ms, label = line.split("\t", 1)
            runs.setdefault(label, []).append(float(ms))
        if sys.stderr.isatty():
            print(f"\rrun {i + 1}/{a.runs}", end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    med = {label: sorted(v)[len(v) // 2] for label, v in runs.items()}
    top = sorted((k for k in med if not k.startswith("  ") and k != "total"), key=lambda k: -med[k])
    for label in [*top, "total"]:
        print(f"{med[label]:7.1f} ms  {label}")
        if label == "rules (apply_order)":
            for sub in sorted((k for k in med if k.startswith("  ")), key=lambda k: -med[k]):
                print(f"{med[sub]:7.1f} ms  {sub}")

if __name__ == "__main__":
    main()
