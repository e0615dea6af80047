"""`pbem check` warns (never refuses) when a reinforcement is placed on an entry hex a unit
of its own side already holds: legal (HF-8.1-f: arriving units may overstack during the
turn), but unless one moves out, the later one goes back to the turn track at turn end."""

from __future__ import annotations

import random

from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.core.registry import find_game
from pbem.core.standing import apply_order, parse_line
from pbem.protocol.checking import check_orders
from pbem.protocol.ops import check_messages
from pbem.protocol.resolve import copy_state


def _axis_placing():
    """Race to Tunis, turn 1, the Axis placement step: 50bde, barenthin and 10pz-a are due,
    the last two entering at 1802 or 2005 (bots play the set-up; seed as test_guards)."""
    game = find_game("holdfast")
    rng = random.Random(3)
    state = game.setup("race-to-tunis", {})
    for _ in range(20):
        pub = state.public
        side = game.pending(state)[0].side
        if pub.phase != "setup" and pub.step == "place" and side == "axis":
            return game, state
        for k, line in enumerate(game.bot(state, side, rng, "heuristic")):
            if side not in {d.side for d in game.pending(state)}:
                break
            apply_order(game, state, side, parse_line(game, line),
                        Context(KeyedDice(rng.randbytes(32)), k))
    raise AssertionError("no Axis placement step")


def _numbered(*lines: str) -> list[tuple[int, str]]:
    return list(enumerate(lines, start=1))


def test_a_placement_on_an_own_unit_is_a_warning_naming_the_unit_and_the_hex():
    game, state = _axis_placing()
    units = state.private["axis"].units
    assert all(units[u].where == "track" for u in ("barenthin", "10pz-a", "50bde"))
    # the set-up left fjr5 on entry hex 1802 and superga on 2005
    assert (units["fjr5"].where, units["fjr5"].hex) == ("map", "1802")
    assert (units["superga"].where, units["superga"].hex) == ("map", "2005")
    lines = _numbered("place barenthin 1802", "place 10pz-a 2005", "place 50bde 2833", "pass")
    checked = check_orders(game, state, "axis", lines, name="orders.txt")
    assert checked.ok and not checked.blocking, checked.problems
    assert len(checked.warnings) == 2, checked.warnings
    one, two = checked.warnings
    assert one == ("orders.txt: line 1: 'place barenthin 1802': 1802 (Bizerte) already holds your fjr5: "
                   "at the end of the turn one unit at most may stay in a hex, the one there "
                   "first; unless barenthin moves on or it moves out, barenthin goes back to "
                   "the turn track for turn 2 [HF-8.1-f]"), one
    assert two.startswith("orders.txt: line 2: 'place 10pz-a 2005': 2005") and \
        "already holds your superga: " in two, two
    for w in checked.warnings:                     # printed by `pbem check` and `submit`
        assert w in check_messages(checked)
    # two placed in one occupied hex: the second names both units there
    both = check_orders(game, state, "axis", _numbered(
        "place barenthin 1802", "place 10pz-a 1802", "pass"), name="o")
    assert both.ok and len(both.warnings) == 2, both.warnings
    assert "1802 (Bizerte) already holds your barenthin, fjr5: " in both.warnings[1]
    assert "unless 10pz-a moves on or they move out" in both.warnings[1]
    # a free entry hex: no warning
    free = check_orders(game, state, "axis", _numbered("place 50bde 2833", "pass"), name="o")
    assert free.ok and free.warnings == [], free.warnings
    # the warning says what the rules do: at the end of the turn barenthin is back on the
    # track for turn 2, fjr5 (there first) stays
    sim = copy_state(game, state)
    dice = KeyedDice(b"k" * 32)
    for i, (_, line) in enumerate(lines[:3]):
        apply_order(game, sim, "axis", parse_line(game, line), Context(dice, action=i))
    assert sim.private["axis"].units["barenthin"].hex == "1802"
    apply_order(game, sim, "axis", parse_line(game, "end"), Context(dice, action=3))
    u = sim.private["axis"].units["barenthin"]
    assert (u.where, u.entry_turn) == ("track", 2)
    assert sim.private["axis"].units["fjr5"].hex == "1802"


def test_an_illegal_placement_is_still_a_problem_not_a_warning():
    game, state = _axis_placing()
    checked = check_orders(game, state, "axis", _numbered(
        "place 50bde 2833", "place 10pz-a 2833", "pass"), name="o")
    assert not checked.ok and checked.warnings == [], checked.warnings
    assert "10pz-a may not enter at" in checked.problems[0]
