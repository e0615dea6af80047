"""The readable log: a golden move list of a fixed game, JSON lines, and one side's view only.

Regenerate the golden file after an intended change with
PBEM_REGEN_GOLDEN=1 .venv/bin/pytest tests/records/test_textlog.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixtures.table import Table
from pbem.cli import cli
from pbem.records.source import FULL, open_game
from pbem.records.textlog import json_lines, text_log

GOLDEN = Path(__file__).parent / "golden"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def fixed_game(tmp_path, deterministic) -> Table:
    """The same Dash game on every run (keys, nonces, dice secrets and bots fixed), with
    hidden dice (gusts only the mover sees, draws nobody sees) and a message."""
    t = Table(tmp_path, options=("gusts=1",))
    t.deliver()
    t.play_one(["pick bravowolf"])
    t.deliver()
    t.play_one(["pick echofox"])
    t.deliver()
    orders = tmp_path / "first.txt"
    orders.write_text("advance\nend\n")
    out = t.mail("turn-red")
    t.ok("submit", str(t.dirs["red"]), str(orders), "--key", t.key("red"), "--out", out,
         "--message", "good luck <b>&</b>")
    t.inbox.append((out, "blue"))
    t.play_to_end()
    return t


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("PBEM_REGEN_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the golden file"


def test_golden_move_list_of_a_fixed_game(fixed_game, tmp_path):
    rec = tmp_path / "fixed.pbemrec"
    r = run("export", str(fixed_game.dirs["red"]), "--out", str(rec))
    assert r.exit_code == 0, r.output
    r = run("log", str(rec))
    assert r.exit_code == 0, r.output
    _check_golden("dash-log.txt", r.output)
    assert all(len(line) <= 100 for line in r.output.splitlines())
    assert "Log of: both sides in full" in r.output
    assert "good luck <b>&</b>" in r.output
    assert "[nobody only]" in r.output and "[red only]" in r.output


def test_json_lines_are_one_object_per_file(fixed_game, tmp_path):
    out = tmp_path / "log.jsonl"
    r = run("log", str(fixed_game.dirs["blue"]), "--json", "--out", str(out))
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["type"] == "game" and lines[0]["game"] == "dash"
    assert lines[0]["view"] == FULL and lines[0]["archive_of"] == "blue"
    assert lines[-1]["type"] == "result" and lines[-1]["over"] is True
    files = [x for x in lines if x["type"] == "file"]
    assert [x["seq"] for x in files] == list(range(len(files)))
    v = open_game(fixed_game.dirs["blue"])
    assert len(files) == v.files + 1
    dice = [r for x in files for r in x["rolls"]]
    assert dice and all(1 <= r["value"] <= r["sides"] for r in dice)
    assert {r["visible_to"] for r in dice} == {"all", "red", "blue", "nobody"}


def test_a_game_in_progress_shows_one_side_only(tmp_path):
    t = Table(tmp_path, options=("gusts=1",))
    for _ in range(8):
        t.deliver()
        t.play_one()
    t.deliver()
    v = open_game(t.dirs["red"])
    assert not v.over and v.views() == ["red"]
    log = text_log(v)
    assert "Log of: red's view only" in log
    assert "[blue only]" not in log and "[nobody only]" not in log
    assert "(hidden from red)" in log            # blue's orders: a count only
    blue_word = v.session.state.private["blue"].codeword
    assert blue_word and f"codeword {blue_word}" not in log      # the prompt lists them all
    for line in json_lines(v):
        assert f"codeword {blue_word}" not in line
    r = run("log", str(t.dirs["red"]), "--view", "full")
    assert r.exit_code == 1 and "cannot show full: the game is not over" in r.output
    r = run("log", str(t.dirs["red"]), "--view", "blue")
    assert r.exit_code == 1 and "cannot show blue" in r.output
