"""The whole-turn example of docs/kasserine.md is legal on the real scenario it names (it
used to enter a unit into a hex the US holds and move a unit due only on turn 2)."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.core.registry import find_game
from pbem.protocol.checking import check_orders

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _example(doc: str, heading: str) -> list[tuple[int, str]]:
    text = (DOCS / doc).read_text()
    at = text.index(heading)
    block = re.search(r"```\n(.*?)```", text[at:], re.S).group(1)
    return [(n, line) for n, line in enumerate(block.splitlines(), 1)]


def test_the_kasserine_turn_example_is_legal_on_turn_1():
    g = find_game("kasserine")
    state = g.setup("historical", {k: v.default for k, v in g.options().items()})
    side = g.pending(state)[0].side
    assert side == "axis"
    lines = _example("kasserine.md", "Example of an Axis Movement Phase and Combat Phase")
    out = check_orders(g, state, side, lines, name="example")
    assert out.ok, out.problems
    assert not out.warnings, out.warnings
    attack = next(n for n, line in lines if line.startswith("attack"))
    assert out.waiting and min(out.waiting) == attack + 1     # the US answers step 2 first
