"""Sealed mode: a player's orders held behind his own decision (Holdfast: the 'end' written
after an attack whose hits he must allocate) resume as soon as his next file answers it
(docs/sealed.md, "The owner's own decisions"). check did not know: it refused the answer
alone ("the orders end while you still have a decision ... often with 'end'"), and the 'end'
the player then added waited through the opponent's turn and ended his next player turn at
once, every RP unspent and every reinforcement delayed (a newcomer's game, turn 4). check
and submit now accept the answer alone and say that the held orders come first."""

from __future__ import annotations

from types import SimpleNamespace

from pbem.protocol.checking import DECISION_RULE, Checked
from pbem.protocol.ops import _own_held_first
from pbem.protocol.resolve import HeldOrder


def _checked(*problems: str) -> Checked:
    c = Checked()
    c.problems = list(problems)
    c.blocking = list(problems)
    return c


DECISION = (f"b7.txt: the orders end while you still have a decision to make (turn 3, axis "
            f"player turn (5 RP): ...): finish it (often with 'end'), or add a line 'pass' to "
            f"send them as they are [{DECISION_RULE}]")
OTHER = "b7.txt: line 1: 'allocate pgr86': 'allocate' must list each attacking unit once [HF-9.4-f]"


def test_the_answer_alone_is_a_whole_file_when_own_orders_are_held():
    s = SimpleNamespace(party="axis", held=[HeldOrder(seq=9, index=5, side="axis", line="end",
                                                       own=True)])
    c = _checked(DECISION, OTHER)
    _own_held_first(s, c, "b7.txt")
    assert c.problems == [OTHER] and c.blocking == [OTHER]
    assert len(c.warnings) == 1
    w = c.warnings[0]
    assert w.startswith("b7.txt: your held order 6 'end' of file 9 is carried out as soon as")
    assert "do not write it again" in w


def test_nothing_changes_without_own_held_orders():
    for held in ([], [HeldOrder(seq=9, index=5, side="axis", line="end", own=False)],
                 [HeldOrder(seq=8, index=2, side="allied", line="end", own=True)]):
        s = SimpleNamespace(party="axis", held=held)
        c = _checked(DECISION)
        _own_held_first(s, c, "b7.txt")
        assert c.problems == [DECISION] and c.blocking == [DECISION] and not c.warnings, held
