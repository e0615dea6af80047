"""Baptism By Fire is listed by `pbem games`: scenarios 5.2 and 5.4 as playable games, every other
scenario as data only with its data status; new, host and demo refuse a scenario that is not
playable in one line, before writing anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core.errors import EXIT_REFUSED
from pbem.games.bcs.info import GAME, PLAYABLE, STATUS, data, listing


def test_games_lists_bbf_playable_scenario_then_the_data_only_ones_with_their_status() -> None:
    res = CliRunner().invoke(cli, ["games"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    game = lines.index(f"bcs: {GAME.title} (sides: allied, axis)")
    assert lines[game + 1] == "  5.2: Operation Spring Wind"
    assert lines[game + 2] == "  5.4: Between a Rock and a Hard Place"
    head = lines.index(listing()[0])
    assert STATUS in lines[head] and "data only" in lines[head]
    shown = lines[head + 1:head + len(data().scenarios)]
    assert shown == listing()[1:]
    assert PLAYABLE == ("5.2", "5.4")
    assert not any(x.startswith(("  5.2: ", "  5.4: ")) for x in shown)
    for sid in set(data().scenarios) - set(PLAYABLE):
        status, why = data().status(sid)
        line = next(x for x in shown if x.startswith(f"  {sid}: "))
        assert f"({status}" in line and (why in line if why else line.endswith(f"({status})"))
    assert any(x.startswith("holdfast:") for x in lines[:head])
    assert any(x.startswith("kasserine:") for x in lines[:head])


@pytest.mark.parametrize("args,scenario", [
    (["new", "bcs", "5.3", "{d}", "--side", "allied", "--key", "k.key", "--opponent", "o.pub",
      "--out", "{d}.pbem"], "5.3"),
    (["new", "BbF", "5.1", "{d}", "--side", "axis", "--key", "k.key", "--opponent", "o.pub",
      "--out", "{d}.pbem"], "5.1"),
    (["host", "bcs", "5.5", "{d}", "--key", "r.key", "--player", "allied=a.pub", "--player",
      "axis=b.pub", "--out", "{d}.pbem"], "5.5"),
    (["demo", "{d}", "--game", "baptism-by-fire", "--scenario", "5.6"], "5.6"),
], ids=["new", "new-alias", "host", "demo-alias"])
def test_new_host_and_demo_refuse_a_data_only_scenario_in_one_line(
        args: list[str], scenario: str, tmp_path: Path) -> None:
    d = str(tmp_path / "game")
    res = CliRunner().invoke(cli, [a.replace("{d}", d) for a in args])
    assert res.exit_code == EXIT_REFUSED, res.output
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
    assert f"unknown scenario {scenario!r} of bcs" in res.output
    assert not Path(d).exists() and not Path(d + ".pbem").exists()


def test_a_report_lists_the_sides_own_arrivals_only():
    """A player learns from the report which of its units are still to arrive, when, with
    which Formation and where (its Orders of Arrival); never the enemy's (which of them have
    entered can be hidden)."""
    from pbem.games.bcs.engine import ENGINE
    from pbem.games.bcs.report import build_report

    st = ENGINE.setup("5.2", {"entry_blocking": "attack_from_off_map"})
    lines = {side: next((p.lines for p in build_report(st, side).panels
                         if p.title == "Your arrivals"), ()) for side in ("axis", "allied")}
    off = {side: {p.id for p in st.pieces.values() if p.side == side and p.kind == "unit"
                  and p.status == "off"} for side in ("axis", "allied")}
    for side, other in (("axis", "allied"), ("allied", "axis")):
        text = " ".join(lines[side])
        assert off[side] and all(u in text for u in off[side]), text
        assert not any(u in text for u in off[other])
    assert any("Entry Area" in ln for ln in lines["axis"])
