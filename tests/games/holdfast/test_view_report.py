"""Views and reports: enemy blocks masked (HF-4-a), own panels present, options and data files."""

from __future__ import annotations

import msgspec

from pbem.core.registry import find_game
from pbem.games.holdfast import GAME, synthetic
from pbem.games.holdfast.state import HoldfastState

SCEN = synthetic.register("test-view")


def _started() -> HoldfastState:
    state = GAME.setup(SCEN, {})
    from pbem.core.dice import FixedDice
    from pbem.core.game import Context
    ctx = Context(FixedDice([1]))
    for line in ("place ger1 1003", "place ger2 1002", "place ita1 0903", "end"):
        GAME.apply(state, "axis", GAME.parse_order(line), ctx)
    return state


def test_registered() -> None:
    """The game is registered under its id and alias."""
    assert find_game("holdfast") is GAME
    assert find_game("holdfast-tunisia") is GAME


def test_enemy_blocks_are_masked() -> None:
    """The Allied report shows Axis blocks as masked units with no label or values."""
    state = _started()
    rep = GAME.report(state, "allied")
    enemy = [u for u in rep.units if u.side == "axis"]
    assert {u.hex for u in enemy} == {"1003", "1002", "0903", "1005"}
    assert all(u.masked and not u.label and not u.values and not u.kind for u in enemy)
    own = [u for u in rep.units if u.side == "allied"]
    assert any(u.values == "3-5-4 SP3" for u in own)
    raw = msgspec.json.encode(rep)
    for secret in GAME.secrets(state, "axis"):
        assert secret.encode() not in raw


def test_report_panels() -> None:
    """RP, weather, supply, reinforcements, support and victory panels."""
    rep = GAME.report(_started(), "allied")
    titles = [p.title for p in rep.panels]
    for t in ("Resource points", "Weather", "Supply", "Reinforcements due", "Support units",
              "Victory"):
        assert t in titles
    panels = {p.title: p.lines for p in rep.panels}
    assert any("ct" in line for line in panels["Support units"])
    assert any("inf3" in line for line in panels["Reinforcements due"])
    assert rep.turn == 1 and rep.phase.startswith("allied")


def test_view_round_trip() -> None:
    """Views are msgspec structs that encode to JSON."""
    v = GAME.view(_started(), "axis")
    assert msgspec.json.decode(msgspec.json.encode(v))["side"] == "axis"


def test_options_and_files() -> None:
    """Every option has a default among its choices; data files name the scenario file."""
    for name, spec in GAME.options().items():
        assert spec.default in spec.choices, name
        assert spec.doc.startswith("HF-") or spec.doc.startswith("ERR-"), name
    files = [p.name for p in GAME.data_files("campaign")]
    assert files[-1] == "campaign.toml" and "map.toml" in files
    assert set(GAME.scenarios()) >= {"campaign", "race-to-tunis"}


def test_supply_panel_of_a_finished_game_claims_nothing() -> None:
    """Once the game is over no supply is traced: the panel says so instead of listing every
    unit as OUT OF SUPPLY (a newcomer's demo showed all 48 units out of supply at the end)."""
    from pbem.games.holdfast.state import Result

    state = _started()
    panels = {p.title: p.lines for p in GAME.report(state, "allied").panels}
    assert any("in supply" in line for line in panels["Supply"])
    state.public.phase = "over"
    state.public.result = Result(winner="axis", reason="test")
    for side in ("allied", "axis"):
        panels = {p.title: p.lines for p in GAME.report(state, side).panels}
        assert panels["Supply"] == ("not traced: the game is over",)
