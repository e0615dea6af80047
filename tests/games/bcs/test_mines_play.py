"""BbF 3.1 in whole games. BBF-3.1a: scenario 5.2 as printed places no minefield ("No
minefields can be placed as Stark Inf TF HQ is not in play"), so here the Stark Inf TF HQ is
added in Sbeitla (B30.29): on 17 Feb both bots are asked to place the three Minefield markers
and the game plays on to its result, the stand-in of each side agreeing with its view and the
mover's orders legal on it. Scenario 5.4 (unbreached minefields set up in the Kasserine Pass)
plays to its result bot against bot in hosted mode through the real exchange (peer mode:
tests/games/bcs/test_objective_exchange.py)."""

from __future__ import annotations

import random

import msgspec
import pytest
from click.testing import CliRunner

from fixtures.conformance_checks import check_exchange_game
from pbem.cli import cli
from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.core.registry import find_game
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.mines import AXIS_DISTANCE
from pbem.games.bcs.setup import _place
from pbem.protocol.demo import play_demo
from pbem.protocol.session import load

OPTIONS = {"entry_blocking": "attack_from_off_map"}
STARK_AT = "B30.29"


def _with_stark() -> object:
    """5.2 with the Stark Inf TF HQ on the map (its Formation not in play)."""
    state = ENGINE.setup("5.2", OPTIONS)
    _place(state, "stark-hq", STARK_AT, None)
    return state


def _play(state, seed: int, style: str, standin: bool = False):
    """Bot against bot to the end; the kinds of the decisions met and the mines' placements."""
    rng = random.Random(seed)
    dice = KeyedDice(seed.to_bytes(8, "big"))
    kinds, placed, n = [], {}, 0
    while ENGINE.pending(state):
        d = ENGINE.pending(state)[0]
        kinds.append(d.kind)
        if standin:
            for side in ENGINE.sides:
                view = ENGINE.view(state, side)
                assert ENGINE.view(ENGINE.standin(msgspec.to_builtins(view), side), side) == view
        lines = ENGINE.bot(state, d.side, rng, style)
        assert lines, d
        if standin:
            shadow = ENGINE.standin(ENGINE.view(state, d.side), d.side)
            for i, line in enumerate(lines):
                ENGINE.apply(shadow, d.side, ENGINE.parse_order(line), Context(dice, action=n + i))
        for line in lines:
            if d.kind == "minefield" and line.startswith("mine "):
                axis = [p.hex for p in state.pieces.values()
                        if p.side == "axis" and p.kind == "unit" and p.status == "map"]
                placed[line.split()[1]] = axis
            ENGINE.apply(state, d.side, ENGINE.parse_order(line), Context(dice, action=n))
            n += 1
            assert n < 4000
    return kinds, placed


@pytest.mark.parametrize("seed,style", [(4, "random"), (2, "heuristic")])
def test_bbf_3_1a_both_bots_place_the_minefields_and_play_on(seed, style):
    """BBF-3.1a: on 17 Feb (turn 4) the Allies are asked; each bot places the three markers
    unbreached within the Stark HQ's Command Radius 4 or more hexes from every Axis unit, and
    the game ends with 5.2's result."""
    state = _with_stark()
    kinds, placed = _play(state, seed, style, standin=style == "random")
    assert kinds.count("minefield") == 3 and len(placed) == 3
    grid = ENGINE.game_map("5.2").grid
    for h, axis in placed.items():
        assert state.mines[h] is False or state.mines[h] is True
        assert grid.distance(STARK_AT, h) <= 6
        assert all(grid.distance(a, h) >= AXIS_DISTANCE for a in axis)
    assert state.mines_due == 0
    out = ENGINE.outcome(state)
    assert out is not None and "BbF 5.2" in out.reason


def test_bbf_3_1a_the_heuristic_bot_keeps_its_units_out_of_its_minefields():
    """The heuristic bot's pick (heuristic.minefield): no hex with an Allied unit (the DRM
    would be against it), a road hex nearest the Axis first."""
    from pbem.games.bcs.heuristic import minefield
    from pbem.games.bcs.mines import legal_hexes
    from pbem.games.bcs.terrain import is_road_hex

    state = _with_stark()
    state.phase, state.mines_due = "mines", 3
    state.pieces["3-1-arm"].hex = "B30.30"
    choices = [f"mine {h}" for h in legal_hexes(state)]
    assert "mine B30.30" in choices
    pick = minefield(state, choices).split()[1]
    assert pick != "B30.30" and is_road_hex(pick)


def test_bbf_3_1_scenario_5_4_plays_to_a_result_hosted(tmp_path):
    """Scenario 5.4 starts with three unbreached minefields in the Kasserine Pass (A29.16,
    A29.17, A30.15): bot against bot in hosted mode through signed files it ends with the
    campaign result; both players' states hold the minefields; every archive verifies."""
    where = tmp_path / "g"
    play_demo(where, game_name="bcs", scenario="5.4", mode="hosted", seed=3, style="random")
    line = check_exchange_game(where, find_game("bcs"), "hosted")
    assert "BbF 4.1" in line or "BbF 4.0" in line, line
    for party in ("allied", "axis", "referee"):
        r = CliRunner().invoke(cli, ["verify", str(where / party)])
        assert r.exit_code == 0 and "OK: the archive verifies." in r.output, r.output
    ref = load(where / "referee")
    assert ref.state.phase == "over" and ref.state.result is not None
    assert set(ref.state.mines) == {"A29.16", "A29.17", "A30.15"}
    for side in ("allied", "axis"):                  # public markers: in both sides' reports
        reports = "\n".join(p.read_text() for p in (where / side / "reports").rglob("*.txt"))
        for h in ref.state.mines:
            assert f"{h}: unbreached" in reports or f"{h}: Breached" in reports, (side, h)
