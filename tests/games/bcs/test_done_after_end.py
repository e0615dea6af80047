"""'done' (and 'second') written after 'end' in one file (BCS-3.5a-2, 3.5d).

'done' answers one question only: the Second Activation question (phase `second`) that the
writer's own 'end' opens when his Formation may roll for one. When 'end' opens none (Fatigue 4,
3.5a-1; the end of a Second Activation or of a Recovery) play passes to the other side at once,
and the 'done' after it used to be held behind the other side's decision: accepted by `pbem
check` and by the resolver, then skipped in a later file at its writer's next decision, an
'activate' it cannot answer. It is now refused where it would be held, naming the rule, as
`sequence.second` refuses it; 'end' then 'done' with a Second Activation open is unchanged."""

from __future__ import annotations

import pytest

from pbem.core.dice import FixedDice
from pbem.core.errors import IllegalFile
from pbem.core.records import Turn
from pbem.core.rulecases import Case
from pbem.games.bcs.rulecases import HOOKS
from pbem.protocol.checking import check_orders
from pbem.protocol.resolve import known_refusal, resolve

GAME = HOOKS.game
UNITS = [{"id": "ccc-hq", "hex": "B42.06"}, {"id": "ccc-trains", "hex": "B38.13"},
         {"id": "reim-hq", "hex": "B49.17"}]
# Positions where the Allied CCC ends its Activation: (name, extra position keys)
NO_SECOND = [("fatigue 4", {"formations": {"ccc": {"fatigue": 4}}}),
             ("a Second Activation ends", {"second": True})]
RULE = "BCS-3.5a-2"


def _position(**extra):
    return HOOKS.build(Case(id="done", position={"units": UNITS, "active": "ccc", **extra}))


def _turn(lines: list[str]) -> Turn:
    return Turn(game_id="ab" * 16, seq=2, prev="00" * 32, sender="allied", reveal="00" * 32,
                orders=lines)


@pytest.mark.parametrize("name,extra", NO_SECOND, ids=[n for n, _ in NO_SECOND])
@pytest.mark.parametrize("answer", ["done", "second"])
def test_BCS_3_5a_2_done_after_an_end_that_opens_no_second_activation_is_refused(
        name, extra, answer):
    """The check refuses the line and names the rule; the resolver refuses the file (no die
    was rolled before it), as does a hosted referee's check of the writer's view."""
    state = _position(**extra)
    c = check_orders(GAME, state, "allied", [(1, "end"), (2, answer)], name="f.txt")
    assert not c.waiting, c.notes
    assert len(c.blocking) == 1 and c.blocking[0].startswith(f"f.txt: line 2: '{answer}'"), \
        c.problems
    assert c.blocking[0].endswith(f"[{RULE}]") and "\n" not in c.blocking[0]
    assert "the game waits for axis" in c.blocking[0]
    with pytest.raises(IllegalFile) as e:
        resolve(GAME, state, _turn(["end", answer]), dice=FixedDice([]), name="f.pbem")
    assert (e.value.order, e.value.rule) == (2, RULE)
    refusal = known_refusal(GAME, state, "allied", [GAME.parse_order("end"),
                                                    GAME.parse_order(answer)],
                            ["end", answer], name="f.pbem")
    assert refusal is not None and (refusal.order, refusal.rule) == (2, RULE)


def test_BCS_3_5d_done_after_an_end_that_opens_a_second_activation_is_its_answer():
    """With a Second Activation open, 'done' declines it: play passes, nothing held."""
    state = _position()
    c = check_orders(GAME, state, "allied", [(1, "end"), (2, "done")], name="f.txt")
    assert c.ok and not c.problems and not c.waiting, c.problems
    r = resolve(GAME, state, _turn(["end", "done"]), dice=FixedDice([]), name="f.pbem")
    assert r.held == [] and r.results.skipped == []
    assert (r.state.phase, r.state.next_side) == ("activate", "axis")


def test_BCS_3_5a_2_a_move_after_such_an_end_still_waits():
    """Only 'second' and 'done' are refused there: any other line waits for the other side as
    before (it may answer a later decision of its writer)."""
    state = _position(formations={"ccc": {"fatigue": 4}})
    c = check_orders(GAME, state, "allied", [(1, "end"), (2, "activate ccc")], name="f.txt")
    assert c.waiting == [2] and not c.blocking, c.problems
    r = resolve(GAME, state, _turn(["end", "activate ccc"]), dice=FixedDice([]), name="f.pbem")
    assert [h.line for h in r.held] == ["activate ccc"]
