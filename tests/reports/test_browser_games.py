"""Every shipped game's report opens in headless Chromium with its map, units and masking.

Skipped when /usr/bin/chromium is absent (CI installs Debian's ``chromium`` package).
"""

from __future__ import annotations

import html
import random
import subprocess
from pathlib import Path

import pytest

from pbem.core.options import bot_choices
from pbem.core.standing import apply_order, parse_line
from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from fixtures.suite_games import suite_games
from pbem.reports import render_html
from pbem.reports.context import ReportContext

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")


def played_state(game, scenario: str, decisions: int = 6):
    """A state a few decisions into a bot game (units on the map, some events)."""
    rng = random.Random(5)
    state = game.setup(scenario, bot_choices(game.options()))
    for _ in range(decisions):
        if game.outcome(state) is not None:
            break
        side = game.pending(state)[0].side
        for n, line in enumerate(game.bot(state, side, rng, "heuristic")):
            if side not in {d.side for d in game.pending(state)}:
                break
            apply_order(game, state, side, parse_line(game, line),
                        Context(KeyedDice(rng.randbytes(32)), n))
    return state


def _shipped(game) -> bool:
    """A game of the package (test-only games register themselves when their tests load)."""
    return type(game).__module__.startswith("pbem.")


@pytest.mark.parametrize("game", [g for g in suite_games() if _shipped(g)], ids=lambda g: g.id)
def test_game_report_renders_in_browser(tmp_path, game):
    scenario = next(iter(game.scenarios()))
    state = played_state(game, scenario)
    side = game.sides[0]
    model = game.report(state, side)
    ctx = ReportContext(model=model, pending=list(game.pending(state)), answer=["pbem submit"],
                        events=[], rolls=[], game_id="0" * 32, seq=1, file_name="x.pbem",
                        file_hash="0" * 64, fingerprints={})
    page = tmp_path / "r.html"
    page.write_text(render_html(ctx, game.game_map(scenario)), encoding="utf-8")
    res = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
                          "--disable-quic", "--no-first-run", "--disable-background-networking",
                          "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                          page.as_uri()], capture_output=True, timeout=120, check=False)
    dom = res.stdout.decode("utf-8", errors="replace")
    assert "<svg" in dom, res.stderr.decode(errors="replace")[-2000:]
    own = [u for u in model.units if u.side == side and not u.masked]
    assert own, "no own unit on the map"
    for u in own[:5]:
        assert f'data-hex="{u.hex}"' in dom
        if u.label:
            assert html.escape(u.label, quote=False) in dom
    other = game.sides[1]
    for secret in game.secrets(state, other):
        assert secret not in dom, f"{side}'s report shows {other}'s hidden {secret}"
