"""Destination-only moves in Baptism By Fire (`move UNIT[+UNIT] to HEX`, BCS-5.1-1, BCS-5.1b):
the path pbem check and submit write in their place is the one the rules' own checker finds
cheapest (an oracle walks every path), and the signed file holds that full path, in peer and
sealed games alike; a receiver never searches."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.seeded import seeded
from fixtures.table import Table
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.core.rulecases import Case
from pbem.games.bcs import orders as o
from pbem.games.bcs.board import bdata
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.movement import check_move
from pbem.games.bcs.pathfind import cheapest_path
from pbem.games.bcs.rulecases import HOOKS
from pbem.protocol import ops
from pbem.core.dice import NoDice

POSITIONS = {
    "open ground, an enemy ZOC": [
        {"id": "reim-hq", "hex": "B49.17"}, {"id": "ii-86-inf", "hex": "B5.18"},
        {"id": "1-501-tgr", "hex": "B6.17"}, {"id": "drake", "hex": "B8.19"},
        {"id": "cca-hq", "hex": "B14.09"}],
    "a stack of Truck and Tac": [
        {"id": "reim-hq", "hex": "B49.17"}, {"id": "ii-86-inf", "hex": "B5.18"},
        {"id": "1-501-tgr", "hex": "B5.18"}, {"id": "drake", "hex": "B8.19"},
        {"id": "cca-hq", "hex": "B14.09"}],
}
STACKS = {"open ground, an enemy ZOC": [["ii-86-inf"], ["1-501-tgr"]],
          "a stack of Truck and Tac": [["ii-86-inf", "1-501-tgr"]]}


def build(name: str):
    return HOOKS.build(Case(id="x", position={"units": POSITIONS[name], "active": "reim"}))


def oracle(state, units: list[str], depth: int) -> dict[str, tuple[int, int, tuple[str, ...]]]:
    """Every path of up to depth hexes the rules' checker accepts, by brute force: for each
    hex a move may end in, (MP12 spent by the stack, hexes entered, the path) of the least."""
    grid = bdata().game_map.grid
    start = state.pieces[units[0]].hex
    best: dict[str, tuple[int, int, tuple[str, ...]]] = {}
    frontier = [(start,)]
    for _ in range(depth):
        nxt = []
        for path in frontier:
            for b in grid.neighbours(path[-1]):
                if b in path:
                    continue
                p = path + (b,)
                nxt.append(p)
                try:
                    walks = check_move(state, "axis", units, list(p[1:]))
                except IllegalOrder:
                    continue
                key = (sum(w.mp for w in walks.values()), len(p) - 1, p[1:])
                best[b] = min(best.get(b, key), key)
        frontier = nxt
    return best


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_the_written_out_path_is_the_rules_cheapest(name):
    """BCS-5.1b: for every hex within 3 of the stack, the path written out is one check_move
    accepts, the least-MP one (ties: fewest hexes, then the hex ids in order) among the paths
    of up to 3 hexes, or a longer one cheaper than all of them; none only where no path of up
    to 3 hexes ends there either (out of reach, an enemy unit, ZOC)."""
    state = build(name)
    grid = bdata().game_map.grid
    for units in STACKS[name]:
        pieces = [state.pieces[u] for u in units]
        want = oracle(state, units, 3)
        start = pieces[0].hex
        for h in sorted(grid.within(start, 3)):
            if h == start:
                continue
            got, _ = cheapest_path(state, units, pieces, h)
            exp = want.get(h)
            if got is None:
                assert exp is None, (units, h, exp)
                continue
            walks = check_move(state, "axis", units, got)       # legal, and ends in h
            assert {w.hex for w in walks.values()} == {h}
            key = (sum(w.mp for w in walks.values()), len(got), tuple(got))
            # the oracle sees paths of up to 3 hexes: a longer one found must be cheaper
            assert (key == exp) if len(got) <= 3 else (exp is None or key[0] < exp[0]), \
                (units, h, key, exp)


def test_a_signed_destination_only_move_is_refused_by_the_receiver():
    """BCS-5.1-1: `move UNIT to HEX` in a signed file is refused: the receiver never searches."""
    state = build("open ground, an enemy ZOC")
    with pytest.raises(IllegalOrder, match="must be written out as its full path") as e:
        ENGINE.apply(state, "axis", o.MoveTo(units=["ii-86-inf"], dest="B7.18"),
                     Context(NoDice()))
    assert e.value.rule == "BCS-5.1-1"


def _first_activation(tmp_path, mode: str) -> Table:
    """The first seeded game whose Stenkhoff KG activates with a Pass SNAFU (its whole MA: a
    Partial halves it, a Fail allows no move): the search is deterministic."""
    for seed in range(30):
        with seeded(f"move-to-{seed}"):          # keys and dice secrets: the game's dice
            t = Table(tmp_path / f"seed-{seed}", game="bcs", scenario="5.2", mode=mode,
                      sides=("allied", "axis"), options=("entry_blocking=attack_from_off_map",))
        t.deliver()
        t.play_one(["activate stenkhoff at B1.14"])
        t.deliver()
        s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
        if t.mover() == "axis" and s.state.activation.snafu == "Pass":
            return t
    raise AssertionError("no seed gives Stenkhoff a Pass SNAFU")


@pytest.mark.parametrize("mode", ["peer", "sealed"])
def test_check_and_submit_write_the_full_path_and_the_game_goes_on(tmp_path, mode):
    """BCS-5.1-1: check says what each destination-only move is written out as; submit signs
    the full path; the opponent's processor receives the file and both archives verify."""
    t = _first_activation(tmp_path, mode)
    axis = str(t.dirs["axis"])
    orders = t.tmp / "to.txt"
    orders.write_text("move stenkhoff-hq to B6.12\nmove ii-5-pz to B3.09\n"
                      "move ii-104-inf to B1.11\nend\ndone\n")
    r = t.ok("check", axis, str(orders), "--key", t.key("axis"))
    assert ("line 1: 'move stenkhoff-hq to B6.12' is written out as 'move stenkhoff-hq B1.13 "
            "B1.12 B2.12 B3.12 B4.12 B5.12 B6.12'") in r.output, r.output
    assert "'move ii-5-pz to B3.09' is written out as 'move ii-5-pz B1.10 B2.10 B3.09'" \
        in r.output, r.output
    out = t.mail("turn-axis")
    t.ok("submit", axis, str(orders), "--key", t.key("axis"), "--out", out)
    # run again (interrupted, or twice): the same signed file, written again (docs/cli.md)
    again = t.ok("submit", axis, str(orders), "--key", t.key("axis"), "--out", out + ".again")
    assert "already signed and stored" in again.output, again.output
    assert Path(out + ".again").read_text() == Path(out).read_text()
    log = t.ok("log", axis).output
    assert "move stenkhoff-hq B1.13 B1.12 B2.12 B3.12 B4.12 B5.12 B6.12" in log, log
    assert "move stenkhoff-hq to B6.12" not in log
    t.inbox.append((out, "allied"))
    t.deliver()
    for side in t.sides:
        assert "OK" in t.ok("verify", str(t.dirs[side]), "--key", t.key(side)).output


def test_a_destination_only_move_after_dice_asks_for_the_path(tmp_path):
    """After an order that rolls dice the position is not known before signing: check refuses
    the destination-only move and asks for the full path (nothing is signed), once: the dice
    probes do not also say that check would write it out."""
    t = Table(tmp_path, game="bcs", scenario="5.2", mode="peer", sides=("allied", "axis"),
              options=("entry_blocking=attack_from_off_map",))
    t.deliver()
    orders = tmp_path / "to.txt"
    orders.write_text("activate stenkhoff at B1.14\nmove ii-5-pz to B3.09\n")
    r = t.run("check", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"))
    assert r.exit_code == 1 and "write the full path" in r.output, r.output
    # one consistent message: the path cannot be written out here, not "check does it"
    assert "must be written out as its full path before signing" not in r.output, r.output
    assert r.output.count("line 2:") == 1 and "Traceback" not in r.output, r.output

