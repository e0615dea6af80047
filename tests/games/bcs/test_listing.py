"""Baptism By Fire is listed by `pbem games` as data only, and refused by new, host and demo."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core.errors import EXIT_REFUSED
from pbem.games.bcs.info import GAME, STATUS, data, listing


def test_games_lists_bbf_as_data_only_with_each_scenario_and_its_status() -> None:
    res = CliRunner().invoke(cli, ["games"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    head = lines.index(f"bcs: {GAME.title} (sides: allied, axis) - {STATUS}")
    assert STATUS == "not playable yet: rules engine in progress"
    shown = lines[head + 1:head + 1 + len(data().scenarios)]
    assert shown == listing()[1:]
    for sid in data().scenarios:
        status, why = data().status(sid)
        line = next(x for x in shown if x.startswith(f"  {sid}: "))
        assert f"({status}" in line and (why in line if why else line.endswith(f"({status})"))
    # the playable games are still listed before it
    assert any(x.startswith("holdfast:") for x in lines[:head])
    assert any(x.startswith("kasserine:") for x in lines[:head])


@pytest.mark.parametrize("args", [
    ["new", "bcs", "5.2", "{d}", "--side", "allied", "--key", "k.key", "--opponent", "o.pub",
     "--out", "{d}.pbem"],
    ["new", "BbF", "5.2", "{d}", "--side", "axis", "--key", "k.key", "--opponent", "o.pub",
     "--out", "{d}.pbem"],
    ["host", "bcs", "5.4", "{d}", "--key", "r.key", "--player", "allied=a.pub", "--player",
     "axis=b.pub", "--out", "{d}.pbem"],
    ["demo", "{d}", "--game", "baptism-by-fire"],
    ["demo", "{d}", "--game", "bcs", "--scenario", "5.2"],
], ids=["new", "new-alias", "host", "demo-alias", "demo"])
def test_new_host_and_demo_refuse_bbf_in_one_line(args: list[str], tmp_path: Path) -> None:
    d = str(tmp_path / "game")
    res = CliRunner().invoke(cli, [a.replace("{d}", d) for a in args])
    assert res.exit_code == EXIT_REFUSED, res.output
    assert res.output == f"Error: {GAME.new_game_refusal()}\n"
    assert "rules engine in progress" in res.output
    assert not Path(d).exists() and not Path(d + ".pbem").exists()
