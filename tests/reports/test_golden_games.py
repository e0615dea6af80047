"""Golden text reports of real games: a scripted opening with fixed dice, both sides' reports.

Regenerate with PBEM_REGEN_GOLDEN=1 after a deliberate change to a game or the renderer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pbem.core.dice import FixedDice
from pbem.core.game import Context
from pbem.core.options import bot_choices
from pbem.core.registry import find_game
from pbem.reports import render_text
from pbem.reports.context import ReportContext, visible_events, visible_rolls

GOLDEN = Path(__file__).resolve().parent / "golden"

# game, scenario, [(side, orders)], fixed dice
SCRIPTS = {
    "holdfast-opening": ("holdfast", "race-to-tunis", [
        ("axis", ["place superga tunis", "place fjr5 bizerte", "place witzig 1903", "end"]),
        ("allied", ["move 36bde 1004-1104", "end"]),
    ], [3, 4, 2, 5, 6, 1, 2, 3, 4, 5, 6, 1]),
}


def play(game, scenario, script, dice_values):
    state = game.setup(scenario, bot_choices(game.options()))
    dice = FixedDice(dice_values)
    events, rolls = [], []
    for side, lines in script:
        for n, line in enumerate(lines):
            ctx = Context(dice, action=n)
            game.apply(state, side, game.parse_order(line), ctx)
            events += ctx.events
            rolls += ctx.rolls
    return state, events, rolls


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_golden_game_reports(name):
    game_id, scenario, script, dice_values = SCRIPTS[name]
    game = find_game(game_id)
    state, events, rolls = play(game, scenario, script, dice_values)
    for side in game.sides:
        ctx = ReportContext(model=game.report(state, side), pending=list(game.pending(state)),
                            answer=[f"pbem submit game orders.txt --key {side}.key --out r.pbem"],
                            events=visible_events(events, side), rolls=visible_rolls(rolls, side),
                            game_id="0" * 32, seq=len(script), file_name="golden.pbem",
                            file_hash="0" * 64, fingerprints={})
        text = render_text(ctx, game.game_map(scenario))
        path = GOLDEN / f"{name}-{side}.txt"
        if os.environ.get("PBEM_REGEN_GOLDEN") == "1":
            path.write_text(text, encoding="utf-8")
        assert path.exists(), "run with PBEM_REGEN_GOLDEN=1 to create the golden file"
        assert text == path.read_text(encoding="utf-8"), f"{path.name} differs"
        assert max(len(line) for line in text.splitlines()) <= 100
