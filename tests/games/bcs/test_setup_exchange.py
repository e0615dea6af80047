"""The Set-up decision (BCS-1.4E) through the real signed-file exchange, peer and hosted: the
Allies ask for it (house option setup_decision = allied: their standing order 'setup ask'),
decide first in their own file (the Axis takes the first Activation), set g-1-arm (alone in
B19.07) and 3-6-arminf (under 2-1-arm in B42.06) on their Deployed sides; the Axis's reports
show g-1-arm's Deployed side (the top unit, 1.5a) and never 3-6-arminf nor its side. Every
archive verifies."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from fixtures.table import Table
from pbem.cli import cli
from pbem.games.bcs.report import _values
from pbem.protocol.session import load

SIDES = ("allied", "axis")
OPTIONS = ("entry_blocking=attack_from_off_map", "setup_decision=allied")


def _reports(t: Table, side: str) -> str:
    where = t.dirs[side] if t.mode == "hosted" else t.dirs[side] / "reports"
    return "\n".join(f.read_text(encoding="utf-8", errors="replace")
                     for f in sorted(where.rglob("*")) if f.is_file()
                     and f.suffix in (".txt", ".html", ".json"))


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_a_side_asks_for_the_set_up_and_flips(tmp_path, mode):
    """BCS-1.4E, BCS-1.5a: the asked side's flips reach the other side's reports only for the
    top unit of a stack."""
    t = Table(tmp_path, game="bcs", scenario="5.2", mode=mode, sides=SIDES, options=OPTIONS)
    t.deliver()
    assert t.mover() == "allied"
    st = t.status("allied")
    assert "Set-up before turn 1" in st["decisions"][0]["what"], st
    t.play_one(["setup 3-6-arminf deployed", "setup g-1-arm deployed", "setup done"])
    t.deliver()
    assert t.mover() == "axis"
    axis = _reports(t, "axis")
    deployed, move = _values("g-1-arm", "deployed", None), _values("g-1-arm", "move", None)
    assert deployed != move
    assert "g-1-arm" in axis and deployed in axis, "the Axis sees g-1-arm's Deployed side"
    assert "3-6-arminf" not in axis, "the unit under 2-1-arm stays hidden"
    assert "allied ends its Set-up" in axis
    s = load(t.dirs["host" if mode == "hosted" else "allied"])
    mine = [e.text for log in s.log for e in log.events if e.visible_to == "allied"]
    assert "3-6-arminf sets up on its Deployed side (1.4E)" in mine, mine
    t.play_one()                                  # the Axis plays on (its bot)
    t.deliver()
    for party in (*SIDES, *(("host",) if mode == "hosted" else ())):
        r = CliRunner().invoke(cli, ["verify", str(t.dirs[party])])
        assert r.exit_code == 0 and "OK: the archive verifies." in r.output, r.output
