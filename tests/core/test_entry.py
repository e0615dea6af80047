"""The click-free dispatch of a turn's commands (pbem/entry.py) reads a command line exactly as
click does, or leaves it to click; and a command run either way prints and exits the same."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.cli import cli
from pbem.entry import SPECS, fast_args


def _click_params(name: str, args: list[str]) -> dict | None:
    cmd = cli.commands[name]
    try:
        ctx = cmd.make_context(name, list(args))
    except click.exceptions.Exit:
        return None
    except click.UsageError:
        return None
    return dict(ctx.params)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_each_spec_declares_what_click_declares(name):
    """Same positional names, options, flags, required options and defaults as the click command."""
    spec, cmd = SPECS[name], cli.commands[name]
    args = [p for p in cmd.params if isinstance(p, click.Argument)]
    opts = [p for p in cmd.params if isinstance(p, click.Option) and p.name != "help"]
    assert tuple(p.name for p in args if p.nargs == 1) == spec.args
    assert [p.name for p in args if p.nargs == -1] == ([spec.varargs] if spec.varargs else [])
    declared = {o: p.name for p in opts for o in p.opts}
    assert declared == {**spec.options, **spec.flags}
    assert {p.name for p in opts if p.is_flag} == set(spec.flags.values())
    assert {p.name for p in opts if p.required} == set(spec.required)
    for p in opts:
        if not p.required:
            assert spec.defaults[p.name] == (p.default if not p.is_flag else False), p.name
    assert not any(p.secondary_opts for p in opts)


WORDS = st.sampled_from(["game-a", "turn.pbem", "orders.txt", "-", "--", "x=y", "", "--key",
                         "--out", "--json", "--side", "--message", "--help", "-h", "--ke",
                         "--key=k.key", "--json=1", "--out=", "alice.key", "-x", "--outx"])


PLAIN = st.sampled_from(["game-a", "turn.pbem", "o.txt", "-", "x=y", "", "é.pbem"])


@st.composite
def command_lines(draw):
    """A command and a line of mostly plausible tokens in any order, with some noise."""
    name = draw(st.sampled_from(sorted(SPECS)))
    spec = SPECS[name]
    groups = [[draw(PLAIN)] for _ in spec.args]
    groups += [[draw(PLAIN)] for _ in range(draw(st.integers(0, 7)) // 3)]
    others = [o for o in ("--key", "--out", "--side") if o not in spec.options]
    for opt in [*spec.options, *others]:
        if draw(st.integers(0, 3)) if opt in spec.options else not draw(st.integers(0, 7)):
            value = draw(PLAIN)
            groups.append([f"{opt}={value}"] if draw(st.booleans()) else [opt, value])
    groups += [[f] for f in spec.flags if draw(st.booleans())]
    groups += [[draw(WORDS)] for _ in range(draw(st.integers(0, 5)) // 4)]
    groups = draw(st.permutations(groups))
    return name, [t for g in groups for t in g]


@settings(max_examples=800, deadline=None)
@given(st.one_of(st.tuples(st.sampled_from(sorted(SPECS)), st.lists(WORDS, max_size=7)),
                 command_lines()))
def test_the_fast_reading_is_click_s_reading(line):
    name, args = line
    """Whenever entry reads a command line itself, click reads the same parameters from it."""
    fast = fast_args(["pbem", name, *args])
    if fast is None:
        return                                   # left to click: nothing to compare
    assert fast[0] == name
    assert fast[1] == _click_params(name, args), args


@pytest.mark.parametrize("argv", [
    ["receive", "a", "f.pbem", "--key", "k.key", "--out", "r.pbem"],
    ["receive", "--key=k.key", "a", "f.pbem"],
    ["status", "a", "--json"], ["status", "a"], ["status", "a", "b", "--json"], ["check", "a", "o.txt", "--side", "axis"],
    ["submit", "a", "o.txt", "--key", "k", "--out", "t.pbem", "--message", "hi"],
    ["verify", "a"], ["verify", "a", "x.pbem", "y.pbem", "--key", "k"], ["verify", "--", "-a"],
])
def test_plain_turn_command_lines_are_read_without_click(argv):
    fast = fast_args(["pbem", *argv])
    assert fast is not None and fast[1] == _click_params(argv[0], argv[1:])


@pytest.mark.parametrize("argv", [
    ["receive", "a", "f.pbem"],                   # --key is required: click words the error
    ["receive", "--help"], ["status", "-h"], ["status"],
    ["verify", "a", "--bogus"], ["submit", "a", "o", "--key", "k", "--out"],
    ["status", "a", "--key", "--json"], ["--version"], ["games"], ["report", "a"], [],
])
def test_help_usage_errors_and_other_commands_are_left_to_click(argv):
    assert fast_args(["pbem", *argv]) is None


def _pbem(args, cwd, fast=True):
    code = ("import sys; from pbem.entry import main; main()" if fast else
            "import sys; from pbem.cli import main; main()")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True,
                          text=True)


@pytest.mark.parametrize("args", [
    ["status", "missing-dir"], ["verify", "missing-dir"], ["status", "missing-dir", "--json"],
    ["receive", "missing-dir", "nofile.pbem", "--key", "nokey.key"],
    ["check", "missing-dir", "orders.txt"],
    ["submit", "missing-dir", "orders.txt", "--key", "k.key", "--out", "o.pbem"],
])
def test_an_error_reads_the_same_with_or_without_click(tmp_path, args):
    """One line on standard error and the same exit code, whichever way the line was read."""
    assert fast_args(["pbem", *args]) is not None
    a, b = _pbem(args, tmp_path), _pbem(args, tmp_path, fast=False)
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
    assert a.returncode == 1 and a.stderr.startswith("Error: ") and a.stderr.count("\n") == 1


def test_a_turn_command_does_not_import_click(tmp_path):
    """The point of the fast dispatch: status, check, submit, receive and verify skip click."""
    probe = ("import sys; from pbem.entry import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print('click' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", probe, "verify", "missing-dir"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.stdout.strip().splitlines()[-1] == "False", r.stdout + r.stderr



_PROBE = ("import sys; from pbem.entry import main\n"
          "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
          "print(sorted({'click', 'tempfile', 'shutil', 'random', 'jinja2'} & set(sys.modules)))")


def _modules(cwd, *args) -> list[str]:
    r = subprocess.run([sys.executable, "-c", _PROBE, *args], cwd=cwd, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    return eval(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("game,scenario", [("holdfast", "campaign"), ("kasserine", "historical")])
def test_turn_commands_import_only_what_they_need(tmp_path, game, scenario):
    """Real commands of a game start no module they have no use for (issue 12, item 5): no
    click on the fast path; `status` neither jinja2 nor tempfile (with random and shutil);
    `submit` and `receive` jinja2 for their reports (submit writes the newest report, which
    shows the decision its file answers: docs/cli.md), nothing else."""
    from fixtures.table import Table

    t = Table(tmp_path / "g", game=game, scenario=scenario, sides=("axis", "allied"))
    t.deliver()
    side = t.mover()
    orders = tmp_path / "orders.txt"
    t.ok("bot", str(t.dirs[side]), "--side", side, "--out", str(orders), "--seed", "1")
    out = tmp_path / "turn.pbem"
    mods = _modules(tmp_path, "submit", str(t.dirs[side]), str(orders), "--key", t.key(side),
                    "--out", str(out))
    assert "jinja2" in mods and set(mods) <= {"jinja2", "random", "shutil", "tempfile"}
    assert _modules(tmp_path, "status", str(t.dirs[side])) == []
    other = t.other(side)
    mods = _modules(tmp_path, "receive", str(t.dirs[other]), str(out), "--key", t.key(other),
                    "--out", str(tmp_path / "reply.pbem"))
    assert (t.dirs[other] / "reports").is_dir()
    # only Jinja2, for the reports, with what it imports itself (jinja2.bccache: tempfile)
    assert "jinja2" in mods and set(mods) <= {"jinja2", "random", "shutil", "tempfile"}
