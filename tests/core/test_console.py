"""The `pbem` command itself (console script, python -m pbem): a turn command runs without the
cyclic garbage collector and ends with os._exit once its output is flushed (pbem.entry.console,
docs/cli.md, "Fast dispatch"). Everything it writes must be complete all the same."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fixtures.table import Table


class _Result:
    def __init__(self, p: subprocess.CompletedProcess) -> None:
        self.exit_code, self.output, self.stderr = p.returncode, p.stdout, p.stderr


class ConsoleTable(Table):
    """A table whose every command is a fresh `python -m pbem` process, as a player runs it."""

    def run(self, *args: str):
        return _Result(subprocess.run([sys.executable, "-m", "pbem", *args], capture_output=True,
                                      text=True, cwd=self.tmp))


def _in_process(t: Table, *args: str) -> str:
    r = Table.run(t, *args)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("game,scenario,sides", [("holdfast", "campaign", ("axis", "allied")),
                                                 ("kasserine", "historical", ("axis", "us"))])
def test_turns_played_through_the_console_leave_complete_archives(tmp_path, game, scenario, sides):
    """Bot turns through real processes: every archive then verifies in full, its caches are
    the ones a later command believes, its reports are written, and status reads the same as
    in-process."""
    (tmp_path / "g").mkdir()
    t = ConsoleTable(tmp_path / "g", game=game, scenario=scenario, sides=sides)
    for _ in range(4):
        t.deliver()
        t.play_one()
    t.deliver()
    for side in sides:
        d = t.dirs[side]
        assert "verified" in _in_process(t, "verify", str(d), "--key", t.key(side)).lower()
        assert (d / "cache" / "chain.json").stat().st_size > 0
        assert (d / "cache" / "state.json").stat().st_size > 0
        assert list((d / "reports" / side).glob("*.html")), "the receive wrote no HTML report"
        console = t.run("status", str(d), "--json")
        assert console.exit_code == 0 and console.stderr == ""
        assert json.loads(console.output) == json.loads(_in_process(t, "status", str(d), "--json"))


def test_a_closed_output_pipe_ends_the_command_as_main_does(tmp_path):
    """Output the reader went away from: the same non-zero exit status as through main(), and
    no traceback."""
    (tmp_path / "g").mkdir()
    t = Table(tmp_path / "g")
    t.deliver()
    codes = []
    for entry in (["-m", "pbem"], ["-c", "import sys; from pbem.entry import main; main()"]):
        p = subprocess.Popen([sys.executable, *entry, "status", str(t.dirs["red"])],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
        p.stdout.close()
        err = p.stderr.read().decode()
        codes.append(p.wait())
        assert "Traceback" not in err, err
    assert codes[0] == codes[1] != 0


def test_errors_read_the_same_through_the_console(tmp_path):
    """A refused turn command: one line on standard error, the same exit code, whichever entry
    ran it."""
    code = "import sys; from pbem.entry import main; main()"
    for args in (["status", "missing-dir"], ["receive", "missing-dir", "f.pbem", "--key", "k"]):
        a = subprocess.run([sys.executable, "-m", "pbem", *args], cwd=tmp_path,
                           capture_output=True, text=True)
        b = subprocess.run([sys.executable, "-c", code, *args], cwd=tmp_path,
                           capture_output=True, text=True)
        assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
        assert a.returncode == 1 and a.stderr.startswith("Error: ") and a.stderr.count("\n") == 1


@pytest.mark.parametrize("game,scenario,sides", [("holdfast", "campaign", ("axis", "allied")),
                                                 ("kasserine", "historical", ("axis", "us")),
                                                 ("bcs", "5.2", ("axis", "allied"))])
def test_a_receive_leaves_no_game_state_in_a_reference_cycle(tmp_path, game, scenario, sides):
    """The console runs a receive without the cyclic collector, so a game state caught in a
    reference cycle would stay in memory to the end of the command (a sealed receive replays
    the chain: memory would grow with the game). Sealed games, whose receives resolve the
    other side's projected orders."""
    import gc

    from pbem.core.registry import find_game
    from pbem.entry import run_fast

    (tmp_path / "g").mkdir()
    options = ("entry_blocking=attack_from_off_map",) if game == "bcs" else ()
    t = Table(tmp_path / "g", game=game, scenario=scenario, sides=sides, mode="sealed",
              options=options)
    for _ in range(3):
        t.deliver()
        t.play_one()
    path, to = t.inbox.pop(0)
    state_type = find_game(game).state_type
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        assert run_fast("receive", {"directory": str(t.dirs[to]), "file": path,
                                    "key": t.key(to), "out": t.mail(f"reply-{to}")}) == 0
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        caught = [o for o in gc.garbage if isinstance(o, state_type)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert not caught, f"{len(caught)} {state_type.__name__} objects held only by cycles"


def test_no_nested_function_of_pbem_calls_itself():
    """A nested function that calls itself holds itself in its closure: a reference cycle that
    keeps everything it reads (a game state, a message) alive until the cyclic collector runs,
    which a turn command run by the console never does. Such helpers are module functions."""
    import ast
    from pathlib import Path

    import pbem

    found = []
    for path in sorted(Path(pbem.__file__).parent.rglob("*.py")):
        for outer in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(outer):
                if inner is outer or not isinstance(inner, (ast.FunctionDef,
                                                            ast.AsyncFunctionDef)):
                    continue
                if any(isinstance(n, ast.Name) and n.id == inner.name
                       and isinstance(n.ctx, ast.Load) for n in ast.walk(inner)):
                    found.append(f"{path.name}:{inner.lineno} {outer.name}.<locals>.{inner.name}")
    assert not found, found


def test_end_now_flushes_what_is_still_buffered():
    """Output a command wrote without flushing (a pipe buffers it) still arrives, and the exit
    status is the command's."""
    import os

    code = ("import sys; from pbem.entry import end_now; "
            "sys.stdout.write('out'); sys.stderr.write('err'); end_now(3)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}   # buffered, as usual
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert (r.returncode, r.stdout, r.stderr) == (3, "out", "err")
