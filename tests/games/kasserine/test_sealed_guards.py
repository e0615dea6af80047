"""Guarded orders in a sealed Kasserine game (docs/sealed.md 5d): a guard reads only face-up
counters, so it travels with its branches as written; both processors choose the same branch
and the final replay of `pbem verify` accepts the game."""

from __future__ import annotations

from fixtures.table import Table
from pbem.core.records import read_file
from pbem.games.kasserine import GAME
from pbem.protocol import ops

SIDES = ("axis", "us")


def _bot_lines_with_a_move(t: Table, side: str) -> tuple[list[str], str] | None:
    """The bot's lines for side, when they hold a move, and the hex of an enemy unit."""
    s = ops.open_session(t.dirs[side], key_path=t.key(side))
    lines = GAME.bot(s.state, side, t.rng)
    foe = sorted(u.hex for u in s.state.units.values()
                 if u.side != side and u.status == "map" and u.hex)
    return (lines, foe[0]) if foe and any(x.startswith("move ") for x in lines) else None


def test_a_guarded_move_plays_sealed_and_passes_the_final_replay(tmp_path):
    t = Table(tmp_path, game="kasserine", scenario="historical", mode="sealed", sides=SIDES)
    t.rng.seed(4)
    side = t.play_until(lambda s: _bot_lines_with_a_move(t, s) is not None)
    lines, enemy_hex = _bot_lines_with_a_move(t, side)
    i = next(n for n, x in enumerate(lines) if x.startswith("move "))
    line = f"if {enemy_hex} held then {lines[i]} else {lines[i]}"      # false: the else branch
    out = t.play_one(lines[:i] + [line] + lines[i + 1:])
    assert line in read_file(out).payload.orders     # nothing hidden in it: sent as written
    t.play_to_end()
    for s in SIDES:
        r = t.ok("verify", str(t.dirs[s]))
        assert "both final reveals are in" in r.output, r.output
