"""Sealed Baptism By Fire: the other side's Air Points are its secret (BCS-8.0e-1). Its
processor stands in its Air Points die, so the receiving processor may refuse a use only
beyond the most that die can give (board.air_bound); the writer's own processor checks the
real total, and the final replay checks it again. A player found an honest attack with two Air
Points refused as cheating: the receiver had judged it against its stand-in die's one point."""

from __future__ import annotations

from fixtures.seeded import seeded
from fixtures.table import Table
from pbem.games.bcs.board import air_bound
from pbem.protocol import ops

SIDES = ("allied", "axis")
ENTRY = ("entry_blocking=attack_from_off_map",)
# the first seed whose dice give the position below is used: the search is deterministic, and
# survives a change of the genesis bytes (which changes every die)
SEEDS = range(30)


def _activated(tmp_path):
    """The table of the first seeded game in which the Axis's Gerhardt activates with a Pass
    SNAFU (the whole MA for the move below) and the Axis holds at least 2 Air Points."""
    for seed in SEEDS:
        with seeded(f"air-{seed}"):               # keys and dice secrets: the game's dice
            t = Table(tmp_path / f"seed-{seed}", game="bcs", scenario="5.2", mode="sealed",
                      sides=SIDES, options=ENTRY)
        t.deliver()
        t.play_one(["standing retreat rear", "activate gerhardt at B20.00"])
        t.deliver()
        axis = ops.open_session(t.dirs["axis"], key_path=t.key("axis")).state
        if axis.private["axis"].air_points >= 2 and axis.activation.snafu == "Pass":
            return t
    raise AssertionError(f"none of seeds {SEEDS} gives the position")


def test_an_honest_attack_with_two_air_points_is_received(tmp_path):
    """BCS-8.0e-1: the Axis, holding 2 or more Air Points, attacks with 2 in a sealed game;
    the Allied processor receives the file (exit 0, it used to exit 3 calling it cheating),
    the game goes on and both archives verify with their keys."""
    t = _activated(tmp_path)
    orders = t.tmp / "attack.txt"
    orders.write_text("obj B19.07\nmove gerhardt-hq B20.00 B20.01 B19.01 B19.02\n"
                      "move ii-69-pg B20.00 B20.01 B19.01 B19.02 B18.03 B18.04 B17.04 B17.05 "
                      "B18.06 B19.06\nattack B19.07 with ii-69-pg barrage air 2\n")
    out = t.mail("turn-axis")
    t.ok("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"), "--out", out)
    r = t.run("receive", str(t.dirs["allied"]), out, "--key", t.key("allied"),
              "--out", t.mail("reply-allied"))
    assert r.exit_code == 0, r.output
    assert "Air Points declared" not in r.output
    allied = ops.open_session(t.dirs["allied"], key_path=t.key("allied")).state
    # the bound, less the 2 declared once the attack is resolved (its dice may still wait)
    assert allied.private["axis"].air_points in (air_bound("axis"), air_bound("axis") - 2)
    for side in SIDES:
        assert "OK" in t.ok("verify", str(t.dirs[side]), "--key", t.key(side)).output
