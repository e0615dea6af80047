"""Exit codes through the real command line (docs/cli.md, "Exit codes"), the top-level catch of
unexpected exceptions, and passphrases asked on a terminal when $PBEM_PASSPHRASE is not set."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixtures.table import Table
from pbem.cli import cli
from pbem.core.errors import (EXIT_CHEATING, EXIT_INTERNAL, EXIT_OK, EXIT_REFUSED, EXIT_USAGE)

PASS = "correct horse battery staple"


def run(*args: str, env: dict[str, str] | None = None, input: str | None = None):
    return CliRunner().invoke(cli, list(args), env=env, input=input)


def test_the_codes_are_distinct():
    assert len({EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_CHEATING, EXIT_INTERNAL}) == 5
    assert (EXIT_OK, EXIT_REFUSED, EXIT_USAGE) == (0, 1, 2)


@pytest.mark.parametrize("args", [["check"], ["no-such-command"], ["verify", "--bogus", "x"],
                                  ["demo", "d", "--mode", "sideways"]])
def test_usage_error_is_2(args):
    r = run(*args)
    assert r.exit_code == EXIT_USAGE and "Usage:" in r.output


def test_refused_input_is_1(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    bad = tmp_path / "bad.txt"
    bad.write_text("pick zulu\n")
    r = run("check", str(t.dirs["red"]), str(bad))
    assert r.exit_code == EXIT_REFUSED and "[DASH-3]" in r.output
    r = run("submit", str(t.dirs["red"]), str(bad), "--key", t.key("red"), "--out",
            str(tmp_path / "x.pbem"))
    assert r.exit_code == EXIT_REFUSED and r.output.startswith("Error: ")
    r = run("verify", str(tmp_path / "nowhere"))
    assert r.exit_code == EXIT_REFUSED and "not a pbem archive" in r.output
    r = run("status", str(tmp_path / "nowhere"))
    assert r.exit_code == EXIT_REFUSED and r.output.count("\n") == 1


def _played(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    t.play_one(["pick alphawolf"])
    t.deliver()
    t.play_one(["pick echofox"])
    t.deliver()
    return t


def test_failed_audit_is_3(tmp_path):
    """A signed file altered in the archive: the audit fails with code 3, not 1."""
    t = _played(tmp_path)
    assert run("verify", str(t.dirs["blue"])).exit_code == EXIT_OK
    import base64
    import json

    from pbem.core.armor import armor, dearmor

    f = sorted((t.dirs["blue"] / "files").glob("0001-*.pbem"))[0]
    env = json.loads(dearmor(f.read_text()))
    payload = base64.b64decode(env["payload"])
    assert b"alphawolf" in payload
    env["payload"] = base64.b64encode(payload.replace(b"alphawolf", b"alphawolx")).decode()
    f.write_text(armor(json.dumps(env).encode()))     # other orders under red's old signature
    r = run("verify", str(t.dirs["blue"]))
    assert r.exit_code == EXIT_CHEATING and "Error:" in r.output


def test_equivocation_is_3(tmp_path):
    """Red signs two different files 3: verify with the second as extra evidence exits 3."""
    import shutil

    t = _played(tmp_path)
    twin = tmp_path / "red-twin"
    shutil.copytree(t.dirs["red"], twin)          # red's archive before its file 3
    t.play_one(["end"])
    t.deliver()
    o = tmp_path / "other.txt"
    o.write_text("advance\nend\n")
    out = tmp_path / "other.pbem"
    r = run("submit", str(twin), str(o), "--key", t.key("red"), "--out", str(out))
    assert r.exit_code == EXIT_OK, r.output
    assert run("verify", str(t.dirs["blue"])).exit_code == EXIT_OK
    r = run("verify", str(t.dirs["blue"]), str(out))
    assert r.exit_code == EXIT_CHEATING and "equivocation" in r.output
    r = run("receive", str(t.dirs["blue"]), str(out), "--key", t.key("blue"))
    assert r.exit_code == EXIT_CHEATING and "equivocation" in r.output


def test_internal_error_is_4_with_where_to_report_and_no_traceback(tmp_path, monkeypatch):
    import pbem.protocol.ops as ops

    def boom(*a, **k):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(ops, "status_lines", boom)
    t = Table(tmp_path)
    monkeypatch.delenv("PBEM_DEBUG", raising=False)
    r = run("status", str(t.dirs["blue"]))
    assert r.exit_code == EXIT_INTERNAL
    assert "Traceback" not in r.output and r.output.count("\n") == 1
    assert "internal error" in r.output and "ZeroDivisionError" in r.output
    assert "issue tracker" in r.output and "PBEM_DEBUG" in r.output
    r = run("status", str(t.dirs["blue"]), env={"PBEM_DEBUG": "1"})
    assert isinstance(r.exception, ZeroDivisionError)     # the traceback is not hidden


def _pbem(*args: str, env: dict[str, str] | None = None, **kw):
    return subprocess.run([sys.executable, "-m", "pbem", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, **kw)


def test_codes_through_the_installed_entry_point(tmp_path):
    """The same codes from a separate process (python -m pbem), as scripts see them."""
    assert _pbem("check").returncode == EXIT_USAGE
    r = _pbem("verify", str(tmp_path / "nowhere"))
    assert r.returncode == EXIT_REFUSED and r.stderr.startswith("Error: ")
    assert "Traceback" not in r.stderr


# -- passphrases ---------------------------------------------------------------------------


@pytest.fixture
def encrypted_key(tmp_path, monkeypatch):
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    r = run("keygen", "alice", "--dir", str(tmp_path / "keys"), env={"PBEM_PASSPHRASE": PASS})
    assert r.exit_code == 0
    run("keygen", "bob", "--dir", str(tmp_path / "keys"), "--no-passphrase")
    return tmp_path / "keys"


def _new_args(tmp_path: Path, keys: Path) -> list[str]:
    return ["new", "holdfast", "race-to-tunis", str(tmp_path / "game"), "--side", "allied",
            "--key", str(keys / "alice.key"), "--opponent", str(keys / "bob.pub"), "--out",
            str(tmp_path / "prop.pbem")]


def test_no_terminal_and_no_passphrase_says_to_set_it(encrypted_key, tmp_path):
    r = run(*_new_args(tmp_path, encrypted_key))
    assert r.exit_code == EXIT_REFUSED
    assert r.output.count("\n") == 1 and "set $PBEM_PASSPHRASE" in r.output
    assert not (tmp_path / "game").exists()


def test_passphrase_asked_on_the_terminal(encrypted_key, tmp_path, monkeypatch):
    import pbem.cli

    monkeypatch.setattr(pbem.cli, "_interactive", lambda: True)
    r = run(*_new_args(tmp_path, encrypted_key), input=PASS + "\n")
    assert r.exit_code == EXIT_OK, r.output
    assert "Passphrase for" in r.output and PASS not in r.output
    assert (tmp_path / "prop.pbem").exists()


def test_wrong_passphrase_at_the_prompt_is_refused(encrypted_key, tmp_path, monkeypatch):
    import pbem.cli

    monkeypatch.setattr(pbem.cli, "_interactive", lambda: True)
    r = run(*_new_args(tmp_path, encrypted_key), input="nope\n")
    assert r.exit_code == EXIT_REFUSED and "wrong passphrase" in r.output


def test_environment_still_wins_for_scripts(encrypted_key, tmp_path, monkeypatch):
    import pbem.cli

    monkeypatch.setattr(pbem.cli, "_interactive", lambda: True)
    r = run(*_new_args(tmp_path, encrypted_key), env={"PBEM_PASSPHRASE": PASS}, input="")
    assert r.exit_code == EXIT_OK and "Passphrase for" not in r.output


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_prompt_on_a_real_terminal_is_not_echoed(encrypted_key, tmp_path):
    """A real pseudo-terminal: the prompt appears, the typed passphrase is never echoed."""
    import select

    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k != "PBEM_PASSPHRASE"}
    p = subprocess.Popen([sys.executable, "-m", "pbem", *_new_args(tmp_path, encrypted_key)],
                         stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    seen = b""

    def read_until(pred, timeout=60.0):
        nonlocal seen
        end = time.monotonic() + timeout
        while not pred() and time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk

    try:
        read_until(lambda: b"Passphrase for" in seen)
        assert b"Passphrase for" in seen, seen
        os.write(master, PASS.encode() + b"\n")
        read_until(lambda: p.poll() is not None and not select.select([master], [], [], 0.2)[0])
        assert p.wait(timeout=60) == EXIT_OK, seen
    finally:
        if p.poll() is None:
            p.kill()
        os.close(master)
    assert PASS.encode() not in seen
    assert (tmp_path / "prop.pbem").exists()
    assert re.search(rb"prop\.pbem", seen)


# -- help texts, plurals and the fast test selection ---------------------------------------


def test_demo_help_names_the_scenario_the_demo_plays():
    """`pbem demo --help` names the default the demo really uses: the first scenario listed."""
    from pbem.core.registry import find_game

    r = run("demo", "--help")
    assert r.exit_code == EXIT_OK and "shortest" not in r.output
    first = next(iter(find_game("holdfast").scenarios()))
    assert first == "campaign" and "(Holdfast: campaign)" in " ".join(r.output.split())


def test_one_order_is_singular(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    one = tmp_path / "one.txt"
    one.write_text("pick alphawolf\n")
    assert "one.txt: 1 order is legal." in run("check", str(t.dirs["red"]), str(one)).output
    out = tmp_path / "turn.pbem"
    r = run("submit", str(t.dirs["red"]), str(one), "--key", t.key("red"), "--out", str(out))
    assert "signed with 1 order:" in r.output and "1 orders" not in r.output


def test_fast_selection_names_only_existing_tests():
    """Every path `./scripts/test --fast` leaves out exists (the selection cannot rot)."""
    root = Path(__file__).resolve().parents[2]
    text = (root / "scripts" / "test").read_text()
    named = re.findall(r"^\s+(tests/\S+)", text, flags=re.M)
    assert len(named) >= 10
    for n in named:
        path, _, test = n.partition("::")
        assert (root / path).exists(), n
        if test:
            assert f"def {test}(" in (root / path).read_text(), n


def test_a_closed_or_broken_standard_output_is_no_traceback(tmp_path):
    """`pbem verify DIR >&-` (standard output closed) and `pbem ... | head` with the reader
    gone (a broken pipe): no traceback and no 'Error: : ...' without a name; a closed output
    is not an error, a broken pipe is one line."""
    t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", mode="peer",
              sides=("allied", "axis"))               # a game the installed pbem knows
    t.deliver()
    t.play_one()
    t.deliver()
    cmd = [sys.executable, "-m", "pbem", "verify", str(t.dirs["allied"])]
    closed = subprocess.run(cmd, capture_output=False, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: os.close(1), timeout=120)
    assert closed.returncode == EXIT_OK and "Traceback" not in closed.stderr, closed.stderr
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()                                       # the reader is gone
    err = p.stderr.read()
    p.wait(timeout=120)
    assert "Traceback" not in err and "Error: :" not in err, err
    if p.returncode != EXIT_OK:                            # the pipe broke before the end
        assert err.strip().splitlines() == ["Error: standard output was closed before the "
                                            "command finished (broken pipe)"], err


def test_a_mistyped_archive_folder_is_named_as_missing_not_as_lacking_archive_json(tmp_path):
    """A folder that does not exist (a typo) is not "no archive.json"; an existing folder
    without an archive still is."""
    for cmd in (["verify"], ["status"], ["log"]):
        r = run(*cmd, str(tmp_path / "nowhere"))
        assert r.exit_code == EXIT_REFUSED, (cmd, r.output)
        if cmd != ["log"]:
            assert r.output == f"Error: {tmp_path / 'nowhere'}: not a pbem archive (no such folder)\n", \
                (cmd, r.output)
    (tmp_path / "empty").mkdir()
    r = run("verify", str(tmp_path / "empty"))
    assert r.exit_code == EXIT_REFUSED and "(no archive.json)" in r.output
