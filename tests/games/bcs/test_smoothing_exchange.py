"""Series Optional 9 Activation Smoothing (BCS-OPT9-a, -b; house option activation_smoothing)
through the real signed-file exchange: bot games with the option on play to a result without a
dead end, in sealed mode (the chit draws are public dice both processors compute alike) and in
hosted mode (the referee's state; each player's stand-in carries the cup); every archive
verifies, the draws are in both sides' logs, and `pbem demo --option` proposes the option."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from fixtures.conformance_checks import check_exchange_game
from pbem.cli import cli
from pbem.core.registry import find_game
from pbem.protocol.demo import play_demo
from pbem.protocol.session import load

SIDES = ("allied", "axis")
ON = {"activation_smoothing": True}


@pytest.mark.parametrize("mode,scenario,seed", [("sealed", "5.2", 4), ("hosted", "5.4", 5)])
def test_a_game_with_activation_smoothing_plays_to_a_result(tmp_path, mode, scenario, seed):
    """BCS-OPT9-a, BCS-OPT9-b: the cup is filled every turn and Side-A draws; the game ends
    with its result; replay equals live play and every archive verifies."""
    root = tmp_path / "g"
    play_demo(root, game_name="bcs", scenario=scenario, mode=mode, seed=seed, options=ON)
    line = check_exchange_game(root, find_game("bcs"), mode)
    assert " at turn " in line, line
    for party in (*SIDES, *(("referee",) if mode == "hosted" else ())):
        r = CliRunner().invoke(cli, ["verify", str(root / party)])
        assert r.exit_code == 0 and "OK: the archive verifies." in r.output, r.output
    s = load(root / ("referee" if mode == "hosted" else "axis"))
    assert s.state.phase == "over" and s.genesis.p.options["activation_smoothing"] is True
    public = [e.text for log in s.log for e in log.events if e.visible_to == "all"]
    assert any("the cup holds" in t for t in public), "the cup is told to both sides"
    assert any(" draws a " in t for t in public), "Side-A drew chits"
    draws = [r for log in s.log for r in log.rolls if r.purpose.startswith("Activation Smoothing")]
    assert draws and all(r.visible_to == "all" for r in draws), "a public die drew a chit"
    if mode == "sealed":                      # the other side's processor saw the same draws
        other = load(root / "allied")
        mine = [e.text for log in other.log for e in log.events if e.visible_to == "all"
                and "Activation Smoothing" in e.text]
        assert mine == [t for t in public if "Activation Smoothing" in t]


def test_demo_takes_house_options(tmp_path):
    """`pbem demo --option NAME=VALUE` puts the option in the proposal, refused as `pbem new`
    refuses it (one line) when the game has no such option or value."""
    r = CliRunner().invoke(cli, ["demo", str(tmp_path / "d"), "--game", "bcs", "--mode", "peer",
                                 "--option", "activation_smoothing=maybe", "--quiet"])
    assert r.exit_code != 0
    assert "activation_smoothing" in r.output and "maybe" in r.output, r.output
