"""Sealed Kasserine: which standing orders a side has set is as hidden as their modes.

A sealed file sends each standing order as the line `standing sealed` and commits it as the
fact `standing.TOPIC`; the fact was committed from the file that set the topic on, so its
name told the other side which topics its opponent had standing orders for: an Axis first
file with `standing retreat auto` and `standing box yield` reached the US committing
`standing.box` and `standing.retreat` (an attack trial, session 30), and `retreat` has one
mode besides `ask`: the US knew the Axis's retreats were the engine's, which it can compute.
Now every file commits every topic (one without a standing order as '')."""

from __future__ import annotations

from pathlib import Path

from fixtures.seeded import seeded
from fixtures.table import Table
from pbem.core.records import read_file
from pbem.games.kasserine.game import GAME

AXIS, US = GAME.sides


def _first_file(tmp: Path, standing: list[str]) -> list[tuple[str, int]]:
    """The commitments (fact, version) of the Axis's first file with these standing orders
    before the bot's orders, as the US archive received it."""
    with seeded("kas-standing-topics"):
        t = Table(tmp, game="kasserine", scenario="historical", mode="sealed", sides=(AXIS, US))
    t.deliver()
    assert t.mover() == AXIS
    orders = tmp / "bot.txt"
    t.ok("bot", str(t.dirs[AXIS]), "--side", AXIS, "--out", str(orders), "--seed", "1")
    lines = [x for x in orders.read_text().splitlines() if not x.startswith("standing ")]
    t.play_one(standing + lines)
    t.deliver()
    got = read_file(t.dirs[US] / "files" / f"0001-{AXIS}.pbem").payload
    return sorted((c.fact, c.version) for c in got.commits or [])


def test_the_us_cannot_tell_which_standing_orders_the_axis_set(tmp_path):
    a = _first_file(tmp_path / "a", ["standing retreat auto", "standing box yield"])
    b = _first_file(tmp_path / "b", ["standing stiff never", "standing support one"])
    c = _first_file(tmp_path / "c", [])
    assert a == b == c, (a, b, c)
    assert [f for f, _ in a] == [f"standing.{x}" for x in sorted(GAME.standing_topics())], a
