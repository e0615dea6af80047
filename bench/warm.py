"""Run one pbem command in this process with the imports done first, and time only the command.

Usage: python bench/warm.py GAME TIMING_FILE -- PBEM_ARGS...

Imports pbem's entry point (pbem.entry, which runs a turn's commands without click), the
modules behind receive, submit, status and verify, the package-side cache (pbem.core.cache,
which a command imports where it first reads scenario data) and the game's package before the
clock starts, then runs the command as `pbem PBEM_ARGS` would and appends "seconds cpu_seconds
exit_code" to TIMING_FILE. This is the "imports excluded" (warm start) figure
of bench/commands.py: what the command itself costs in a fresh process, every file read and
every cache used as the real command does, with the cyclic collector off for a turn command
other than verify as the console runs it, minus starting Python and importing code.
"""

from __future__ import annotations

import gc
import importlib
import sys
import time


def main() -> None:
    """Import, then time the command."""
    game, timing = sys.argv[1], sys.argv[2]
    args = sys.argv[sys.argv.index("--") + 1:]
    import pbem.entry
    for mod in ("pbem.turn_commands", "pbem.protocol.ops", "pbem.protocol.audit", "pbem.protocol.session",
                "pbem.protocol.reporting", "pbem.reports.render", "pbem.reports.svgmap",
                "pbem.core.keys", "pbem.core.cache", "jinja2", f"pbem.games.{game}"):
        importlib.import_module(mod)
    parsed = pbem.entry.fast_args(["pbem", *args])
    if parsed is not None and parsed[0] != "verify":
        gc.disable()               # as pbem.entry.console runs a turn command
    t0, c0 = time.perf_counter(), time.process_time()
    code = 0
    try:
        if parsed is None:                     # what the console script leaves to click
            import pbem.cli

            pbem.cli.cli.main(args=args, prog_name="pbem", standalone_mode=False)
        else:
            code = pbem.entry.run_fast(*parsed)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except Exception:               # a refused command: the timing still counts, marked failed
        code = 1
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    with open(timing, "a", encoding="ascii") as fh:
        fh.write(f"{elapsed:.6f} {cpu:.6f} {code}\n")


if __name__ == "__main__":
    main()
