"""The console entry point: a turn's commands run without importing click (docs/cli.md).

`pbem status|check|submit|receive|verify` with a plain command line (its arguments, its known
options, no help) is read here and runs pbem.turn_commands directly; anything else (help, a
usage error, an unknown option, every other command) goes to click in pbem.cli, which reads
the same command line the same way and runs the same bodies. tests/core/test_entry.py holds
the two readings equal.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any


class Spec:
    """One command's command line: positional names, options with values, flags, defaults."""

    __slots__ = ("args", "options", "flags", "required", "varargs", "defaults")

    def __init__(self, args: tuple[str, ...], options: dict[str, str],
                 flags: dict[str, str] | None = None, *, required: tuple[str, ...] = (),
                 varargs: str | None = None, defaults: dict[str, Any] | None = None) -> None:
        self.args, self.options, self.flags = args, options, flags or {}
        self.required, self.varargs, self.defaults = required, varargs, defaults or {}


SPECS: dict[str, Spec] = {
    "status": Spec(("directory",), {"--key": "key"}, {"--json": "as_json"}, varargs="more",
                   defaults={"as_json": False, "key": None, "more": ()}),
    "check": Spec(("directory", "orders"), {"--side": "side", "--key": "key"},
                  defaults={"side": None, "key": None}),
    "submit": Spec(("directory", "orders"),
                   {"--key": "key", "--out": "out", "--message": "message"},
                   required=("key", "out"), defaults={"message": ""}),
    "receive": Spec(("directory", "file"), {"--key": "key", "--out": "out"},
                    required=("key",), defaults={"out": None}),
    "verify": Spec(("directory",), {"--key": "key"}, varargs="extra",
                   defaults={"key": None, "extra": ()}),
}


def fast_args(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    """(command, parameters) when click would read argv the same way; None to leave it to click."""
    if len(argv) < 2 or argv[1] not in SPECS:
        return None
    spec = SPECS[argv[1]]
    params: dict[str, Any] = dict(spec.defaults)
    positional: list[str] = []
    rest = argv[2:]
    i = 0
    while i < len(rest):
        tok = rest[i]
        i += 1
        if tok == "--":
            positional.extend(rest[i:])
            break
        if tok.startswith("--"):
            name, eq, value = tok.partition("=")
            if name in spec.flags and not eq:
                params[spec.flags[name]] = True
            elif name in spec.options:
                if not eq:
                    if i >= len(rest) or rest[i].startswith("-"):
                        return None            # click words the missing or doubtful value
                    value = rest[i]
                    i += 1
                params[spec.options[name]] = value
            else:
                return None                    # --help, a typo, an unknown option: click
        elif tok.startswith("-") and tok != "-":
            return None                        # short options (-h) are click's
        else:
            positional.append(tok)
    if len(positional) < len(spec.args):
        return None
    if len(positional) > len(spec.args) and spec.varargs is None:
        return None
    params.update(zip(spec.args, positional))
    if spec.varargs is not None:
        params[spec.varargs] = tuple(positional[len(spec.args):])
    if any(params.get(r) is None for r in spec.required):
        return None
    return argv[1], params


def run_fast(command: str, params: dict[str, Any]) -> int:
    """Run one turn command as pbem.cli would; returns the exit code (errors are one line)."""
    from pbem import turn_commands
    from pbem.core import keys
    from pbem.core.errors import EXIT_REFUSED, PbemError

    keys.notice = lambda m: turn_commands.echo(m, err=True)
    keys.ask_passphrase = _ask_passphrase
    try:
        getattr(turn_commands, command)(**params)
    except (KeyboardInterrupt, EOFError):
        turn_commands.echo("\nAborted!", err=True)
        return EXIT_REFUSED
    except Exception as e:
        if not isinstance(e, (PbemError, OSError)) and os.environ.get(turn_commands.DEBUG_ENV):
            raise
        line, code = turn_commands.error_line(e)
        turn_commands.echo(f"Error: {line}", err=True)
        return code
    return 0


def _ask_passphrase(path: str) -> str | None:
    """The terminal prompt of pbem.cli (click is imported only when a passphrase is asked)."""
    from pbem.cli import _ask_passphrase as ask

    return ask(path)


def _fast_command() -> tuple[str, dict[str, Any]] | None:
    """The turn command to run without click, or None (shell completion is click's too)."""
    return None if "_PBEM_COMPLETE" in os.environ else fast_args(sys.argv)


def _click() -> None:
    from pbem.cli import main as click_main

    click_main()


def main() -> None:
    """Entry point for callers that go on after it: a turn command ends in SystemExit."""
    parsed = _fast_command()
    if parsed is None:
        _click()
        return
    sys.exit(run_fast(*parsed))


def console() -> None:
    """The `pbem` command (console script, python -m pbem): as main(), but a turn command,
    a short process, runs without the cyclic garbage collector and ends without tearing the
    interpreter down (docs/cli.md, "Fast dispatch")."""
    parsed = _fast_command()
    if parsed is None:
        _click()
        return
    if parsed[0] != "verify":        # an audit of a long game keeps its memory flat
        gc.disable()
    end_now(run_fast(*parsed))


def end_now(code: int) -> None:
    """Exit with code once standard output and error are flushed, without the interpreter's
    teardown (every file a command writes is closed by then; it registers no exit handler)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:       # None when the shell closed it (pbem ... >&-)
                stream.flush()
        except (OSError, ValueError):    # a closed pipe: Python's own exit would say 120
            code = code or 120
    os._exit(code)
