"""Sealed mode: the answers a side's own standing orders give, written into its own file.

In a sealed game the standing stores stay empty on both processors (docs/sealed.md 5c), so a
reaction a standing order would answer is a decision even when it comes up on the writer in
the middle of its own file (Kasserine: the defender's support step 4 right after its step-2
answer, with no die between them). The writer's processor writes the answer its standing
orders give there, as an explicit order, before it checks and signs the file; the final replay
checks every such answer against the policy committed. After the file's first die nothing is
inserted: what comes up then is not known when signing, and the resolver holds the writer's
later orders behind it (its automatic reply answers it).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pbem.core.dice import NoDice
from pbem.core.errors import (FileRejected, IllegalFile, IllegalOrder, OrderSyntaxError,
                              PbemError)
from pbem.core.game import Context, NeedsDice
from pbem.core.sealed import answering_policy, policy_text, set_policy, standing_answers
from pbem.core.standing import apply_order, format_line, is_standing, parse_line
from pbem.protocol.resolve import copy_state, resolve
from pbem.protocol.sealing import policy_of

PASS = "pass"


def insert_answers(s: Any, numbered: list[tuple[int, str]], queued: list[str] = (),
                   name: str = "your orders") -> tuple[list[tuple[int, str]], list[str]]:
    """side's numbered order lines with the answers its standing orders give inserted where a
    decision they answer is pending on it, up to the first die; (lines, answers inserted).
    A line that does not read or is illegal ends the insertion (the check names it); a line
    that answers such a decision otherwise is refused (PbemError naming file and line: the
    final replay would report it, PBEM-STANDING)."""
    game, side = s.game, s.party
    policy = policy_of(game, s.private, extra=list(queued))
    out: list[tuple[int, str]] = []
    done: list[str] = []          # canonical lines so far, as resolve takes them
    added: list[str] = []
    for k, (n, line) in enumerate(numbered):
        if line.strip().lower() == PASS or is_standing(line.strip()):
            if is_standing(line.strip()):
                set_policy(game, policy, line.strip())
            out.append((n, line))
            continue
        state = _state_after(s, done)
        if state is None:
            return out + numbered[k:], added
        while side in {d.side for d in game.pending(state)}:
            answer = standing_answers(game, state, side, policy)
            if answer is None or _canonical(game, state, side, line) == answer[0]:
                break
            if _answers_otherwise(game, state, side, line, answer[0]):
                why = policy_text(answering_policy(game, state, side, policy, answer))
                raise PbemError(f"{name}: line {n}: {line.strip()!r}: your standing orders "
                                f"({why}) answer this decision with "
                                f"{'; '.join(answer)!r}, and a sealed game holds you to them: "
                                "drop the line or change the standing order [PBEM-STANDING]")
            out += [(n, a) for a in answer]
            done += answer
            added += answer
            state = _state_after(s, done)
            if state is None:
                return out + numbered[k:], added
        text = _canonical(game, state, side, line)
        if text is None:
            return out + numbered[k:], added
        out.append((n, line))
        done.append(text)
    state = _state_after(s, done)         # decisions that come up after the last line
    while state is not None and side in {d.side for d in game.pending(state)}:
        answer = standing_answers(game, state, side, policy)
        if answer is None:
            break
        last = out[-1][0] if out else 0
        out += [(last, a) for a in answer]
        done += answer
        added += answer
        state = _state_after(s, done)
    return out, added


def _answers_otherwise(game: Any, state: Any, side: str, line: str, answer: str) -> bool:
    """True if line is an order of the same kind as the standing answer and legal for the
    decision pending here: the player answers it, against the standing order."""
    try:
        order, want = parse_line(game, line.strip()), parse_line(game, answer)
    except (IllegalOrder, OrderSyntaxError):
        return False
    if type(order) is not type(want):
        return False
    try:
        apply_order(game, copy_state(game, state), side, order, Context(NoDice()))
    except NeedsDice:
        return True
    except (IllegalOrder, OrderSyntaxError):
        return False
    return True


def _canonical(game: Any, state: Any, side: str, line: str) -> str | None:
    """The line in canonical notation (a destination-only move written out), None if it does
    not read."""
    try:
        order = parse_line(game, line.strip())
        if getattr(order, "needs_path", False):
            order = game.expand_order(state, side, order)
        return format_line(game, order)
    except (IllegalOrder, OrderSyntaxError):
        return None


def _state_after(s: Any, lines: list[str]) -> Any:
    """The state once side's file with these lines is resolved as the receiver will resolve it
    (the other side's held orders resumed); None past the first die or at an illegal line."""
    turn = SimpleNamespace(seq=s.ledger.tip_seq + 1, sender=s.party, orders=list(lines))
    try:
        return resolve(s.game, s.state, turn, dice=NoDice(), name="your orders",
                       held=s.held, lines=list(lines), sealed=True).state
    except (NeedsDice, IllegalFile, FileRejected):
        return None
