"""Checking an orders file before signing: every order, every problem, and which orders wait.

The check simulates the orders on a copy of the state as the resolver will apply them:

- up to the first order that rolls dice, exactly (an illegal order here makes the file refused);
- after it, with several dice outcomes tried (every die 1, every die at its maximum, and a few
  spread ones): an order illegal with every outcome tried is reported as a problem ("whatever
  the dice"), one illegal with some outcomes as a warning (it may be skipped when resolved);
- orders written after a point where the game waits for another side are reported as waiting,
  with that side's decision in plain words: they resume when its answer arrives.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pbem.core.dice import NoDice
from pbem.core.errors import IllegalOrder, OrderError, OrderSyntaxError
from pbem.core.game import Context, Game, NeedsDice
from pbem.core.privatedraw import RULE as DRAW_RULE, DrawLine
from pbem.core.sealed import hidden_legality, order_reveals, returns_when_held
from pbem.core.standing import (DRAW_BY_PLAYER, StandingOrder, apply_order, apply_standing,
                                check_held, format_line, parse_line)
from pbem.protocol.resolve import SEALED_RETURN_RULE, copy_state, standing_decision

PASS = "pass"      # "send these orders as they are", never signed
DECISION_RULE = "PBEM-DECISION"   # the orders stop while the writer's decision is unfinished
PROBES = ("low", "high", "spread-1", "spread-2", "spread-3", "spread-4")


class Checked:
    """The outcome of checking orders: canonical lines, problems, and what is checked later."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.problems: list[str] = []
        self.warnings: list[str] = []
        self.after_dice: list[int] = []     # line numbers checked again when resolved
        self.waiting: list[int] = []        # line numbers held until another side answers
        self.wait_reason: str = ""
        self.notes: list[str] = []          # what was and was not checked, for the player
        self.blocking: list[str] = []       # problems that make the resolver refuse the file
        self.unexpanded: list[int] = []     # destination-only moves no position could write out
        # problems that only hold if the file could be sent now: a destination-only move
        # "after a wait" when the wait is the other side's file still due (check_file drops
        # them when the player may not send now, which it says instead)
        self.moot_if_not_now: list[str] = []

    @property
    def ok(self) -> bool:
        """True if no problem was found."""
        return not self.problems


class ProbeDice:
    """Dice for trying orders after the first roll: a fixed pattern, never the real dice."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def roll(self, action: int, index: int, sides: int, cls: str = "all") -> int:
        """One die of the pattern."""
        if self.pattern == "low":
            return 1
        if self.pattern == "high":
            return sides
        h = hashlib.sha256(f"{self.pattern}/{action}/{index}".encode()).digest()
        return 1 + int.from_bytes(h[:8], "big") % sides


def _line_error(name: str, n: int, line: str, e: OrderError) -> str:
    return f"{name}: line {n}: {line!r}: {e.reason}" + (f" [{e.rule}]" if e.rule else "")


def _pending(game: Game, state: Any) -> set[str]:
    return {d.side for d in game.pending(state)}


def _waits_for(game: Game, state: Any) -> str:
    ds = game.pending(state)
    if not ds:
        return "the game is over by then"
    return "; ".join(f"waits for a decision of {d.side}: {d.prompt}" for d in ds)


def check_orders(game: Game, state: Any, side: str, numbered: list[tuple[int, str]],
                 *, name: str, syntax_only: bool = False, sealed: bool = False,
                 held: list[tuple[str, str]] | tuple[()] = ()) -> Checked:
    """Parse and check every order against a state as the resolver will apply them (sealed: a
    standing order is a hidden policy that leaves the store empty, docs/sealed.md 5c).

    held: side's own orders held from its earlier file behind its own decision (sealed), as
    (where, line): they resume as the resolver resumes them, as soon as that decision is
    answered and before the next line (resolve.resume_held), so the lines are checked after
    them, and the player is told where they run.

    A file with no order, or whose orders end while this side still has a decision to make
    (nothing rolled, nothing waiting: a forgotten 'end', say), is refused unless it holds a
    line 'pass' (the player's explicit "send it as it is"; the line itself is not signed).
    """
    out = Checked()
    explicit = any(line.strip().lower() == PASS for _, line in numbered)
    numbered = [(n, line) for n, line in numbered if line.strip().lower() != PASS]
    parsed = []
    if not numbered and not explicit and not syntax_only:
        msg = (f"{name}: no orders: write your orders, or a line '{PASS}' to send a file "
               "without any")
        out.problems.append(msg)
        out.blocking.append(msg)
        return out
    for n, line in numbered:
        try:
            order = parse_line(game, line)
        except OrderSyntaxError as e:
            msg = _line_error(name, n, line, e)
            out.problems.append(msg)
            out.blocking.append(msg)
            continue
        if isinstance(order, DrawLine):
            # refused wherever it stands (after a die or a wait too: resolve, NO_DRAWS), so
            # never signed: a hosted referee's rejection of it would be the player's dead end
            msg = _line_error(name, n, line, IllegalOrder(DRAW_BY_PLAYER, rule=DRAW_RULE))
            out.problems.append(msg)
            out.blocking.append(msg)
            continue
        out.lines.append(format_line(game, order))
        parsed.append((n, line, order))
    if syntax_only:
        _no_search(parsed, 0, "no position is at hand to search one in", out, name)
        return out
    # a line that does not parse is left out, as an illegal one is below: one check names
    # every problem of the file, not the syntax errors first and the rest on the next run
    sim = copy_state(game, state)
    bad: set[int] = set()
    queue = list(held)
    warn = getattr(game, "order_warning", None)   # optional: a legal order's pitfall
    for i, (n, line, order) in enumerate(parsed):
        if isinstance(order, StandingOrder):
            try:
                if not sealed:
                    apply_standing(game, sim, side, order)
            except OrderError as e:
                msg = _line_error(name, n, line, e)
                out.problems.append(msg)
                out.blocking.append(msg)
            continue
        if not _resume_own(game, sim, side, queue, out, name, f"before line {n}"):
            out.after_dice = [m for m, _, _ in parsed[i:]]
            _no_search(parsed, i, "it comes after dice", out, name)
            return out
        pend = _pending(game, sim)
        if side not in pend and pend:
            try:
                check_held(game, sim, side, order)    # refused here, as the resolver does
            except OrderError as e:
                msg = _line_error(name, n, line, e)
                out.problems.append(msg)
                out.blocking.append(msg)
                bad.add(i)
                continue
            out.waiting = [m for m, _, _ in parsed[i:]]
            out.wait_reason = _waits_for(game, sim)
            _no_search(parsed, i, WAITS_WHY, out, name)
            _held_back(game, parsed[i:], sealed, out, name)
            return out
        try:
            if side not in pend:
                raise IllegalOrder(f"{side} has no decision to make now", rule="PBEM-TURN")
            if getattr(order, "needs_path", False):
                # A destination-only move is written out here, in the position it moves in,
                # so that the signed file holds the full path and no receiver searches.
                order = game.expand_order(sim, side, order)  # type: ignore[attr-defined]
                parsed[i] = (n, line, order)
                out.lines[i] = game.format_order(order)
                out.notes.append(f"{name}: line {n}: {line.strip()!r} is written out as "
                                 f"{out.lines[i]!r}")
            warned = warn(sim, side, order) if warn is not None else None
            apply_order(game, sim, side, order, Context(NoDice(), action=i))
            if warned:
                out.warnings.append(f"{name}: line {n}: {line!r}: {warned}")
        except NeedsDice:
            out.after_dice = [m for m, _, _ in parsed[i + 1:]]
            _no_search(parsed, i + 1, "it comes after dice", out, name)
            _probe(game, state, side, parsed, i, bad, out, name, sealed)
            back = [m for m, _, o in parsed[i + 1:] if sealed and hidden_legality(game, o)]
            if back:
                out.warnings.append(
                    f"{name}: line {back[0]}: in a sealed game an order that reads your hidden "
                    f"facts goes back to you when it comes after dice (line {n}): it and the "
                    "lines after it will not be carried out; put it before that line or send "
                    "it in your next file (docs/sealed.md 5g)")
            return out
        except OrderError as e:
            msg = _line_error(name, n, line, e)
            out.problems.append(msg)
            out.blocking.append(msg)
            bad.add(i)          # go on as the player would after fixing it: without this order
    if not _resume_own(game, sim, side, queue, out, name, "after the last line"):
        return out
    pend = _pending(game, sim)
    if side in pend and not explicit and not out.problems:
        d = next(d for d in game.pending(sim) if d.side == side)
        msg = (f"{name}: the orders end while you still have a decision to make ({d.prompt}): "
               f"finish it ({_finishing(d)}), or add a line '{PASS}' to send them as they are "
               f"[{DECISION_RULE}]")
        out.problems.append(msg)
        out.blocking.append(msg)
    return out


def _resume_own(game: Game, sim: Any, side: str, queue: list[tuple[str, str]], out: Checked,
                name: str, when: str) -> bool:
    """Run side's own held orders that resume now (its decision answered, as
    resolve.resume_held); False if one of them rolls dice (the rest is checked on resolution)."""
    while queue:
        if side not in _pending(game, sim) or standing_decision(game, sim, side):
            return True
        where, line = queue.pop(0)
        try:
            order = parse_line(game, line)
            if hidden_legality(game, order):     # sealed: it goes back to its writer, and
                gone = [x for _, x in queue]      # every later held order with it (5g)
                queue.clear()
                out.warnings.append(
                    f"{name}: your held {where} '{line}'"
                    + (f" and the {len(gone)} after it" if gone else "")
                    + f" will go back to you {when}: only your own processor can check it "
                    "now that the position changed; write it again if you still want it "
                    f"[{SEALED_RETURN_RULE}]")
                return True
            apply_order(game, sim, side, order, Context(NoDice(), action=0))
            out.notes.append(f"{name}: your held {where} '{line}' is carried out {when}")
        except NeedsDice:
            out.notes.append(f"{name}: your held {where} '{line}' is carried out {when}; it "
                             "rolls dice, so what follows is checked when the file is resolved")
            return False
        except OrderError as e:
            out.warnings.append(f"{name}: your held {where} '{line}' will not be carried out "
                                f"{when}: {e.reason}" + (f" [{e.rule}]" if e.rule else ""))
    return True


def _finishing(d: Any) -> str:
    """How a pending decision is usually finished, in the words of its choices when it has
    them ('one of: second, done'), else the games' usual 'end'."""
    if d.choices:
        shown = ", ".join(d.choices[:6]) + (", ..." if len(d.choices) > 6 else "")
        return f"one of: {shown}"
    return "often with 'end'"


WAITS_WHY = "it waits for another side's answer"


def _no_search(parsed: list[tuple[int, str, Any]], start: int, why: str, out: Checked,
               name: str) -> None:
    """Destination-only moves from parsed[start] on cannot be written out before signing."""
    for n, line, order in parsed[start:]:
        if getattr(order, "needs_path", False):
            msg = (f"{name}: line {n}: {line!r}: a destination-only move is written out as its "
                   f"full path before signing, which is not possible here ({why}): write the "
                   "full path")
            out.problems.append(msg)
            out.blocking.append(msg)
            out.unexpanded.append(n)
            if why == WAITS_WHY:
                out.moot_if_not_now.append(msg)


def _probe(game: Game, state: Any, side: str, parsed: list[tuple[int, str, Any]], first: int,
           bad: set[int], out: Checked, name: str, sealed: bool = False) -> None:
    """Try the orders from the first rolling one on with each probe pattern of dice."""
    fails: dict[int, list[str]] = {}
    waits: dict[int, int] = {}
    reasons: dict[int, str] = {}
    prefix = [(j, p) for j, p in enumerate(parsed[:first]) if j not in bad]
    for pattern in PROBES:
        sim = copy_state(game, state)
        dice = ProbeDice(pattern)
        for j, (n, line, order) in prefix:
            try:
                apply_order(game, sim, side, order, Context(dice, action=j))
            except OrderError:
                pass
        for j, (n, line, order) in enumerate(parsed[first:], start=first):
            if isinstance(order, StandingOrder):
                if not sealed:
                    apply_standing(game, sim, side, order)
                continue
            pend = _pending(game, sim)
            if side not in pend and pend:
                try:
                    check_held(game, sim, side, order)
                except OrderError as e:
                    fails.setdefault(n, []).append(_line_error(name, n, line, e))
                    continue
                waits[n] = waits.get(n, 0) + 1
                reasons.setdefault(n, _waits_for(game, sim))
                break
            if getattr(order, "needs_path", False):
                continue        # _no_search said it: its path cannot be written out here
            try:
                if side not in pend:
                    raise IllegalOrder(f"{side} has no decision to make now", rule="PBEM-TURN")
                apply_order(game, sim, side, order, Context(dice, action=j))
            except OrderError as e:
                fails.setdefault(n, []).append(_line_error(name, n, line, e))
    for n, line, order in parsed[first:]:
        got = fails.get(n, [])
        own = _opens_own(game, state, side, order) if sealed and got else []
        if len(got) == len(PROBES):
            msg = (f"{got[0]} (whatever the dice: illegal with each of {len(PROBES)} dice "
                   "outcomes tried)")
            if own:
                # the file opens a sealed order's own facts when it is signed, even if the
                # order is then skipped: an order that can never run would open them for nothing
                msg += (f"; in a sealed game it would open your own {', '.join(own)} when you "
                        "sign, though it can never be carried out: remove it")
                out.blocking.append(msg)
            out.problems.append(msg)
        elif got:
            opened = (f"; in a sealed game your {', '.join(own)} are opened when you sign all "
                      "the same" if own else "")
            out.warnings.append(f"{got[0]} (with some dice outcomes: it may be skipped when "
                                f"the file is resolved{opened})")
    if waits:
        first_wait = min(waits)
        out.waiting = [n for n, _, _ in parsed if n >= first_wait]
        out.wait_reason = reasons[first_wait]
        _held_back(game, [p for p in parsed if p[0] >= first_wait], sealed, out, name)


def _opens_own(game: Game, state: Any, side: str, order: Any) -> list[str]:
    """The facts of side's own that an order opens (a sealed file opens them when signed)."""
    try:
        return sorted(f for owner, f in order_reveals(game, state, side, order) if owner == side)
    except OrderError:
        return []


def _held_back(game: Game, held: list[tuple[int, str, Any]], sealed: bool, out: Checked,
               name: str) -> None:
    """Sealed: warn of the first waiting order the game sends back to its writer when it
    would resume (a Holdfast attack), with the lines after it."""
    back = [n for n, _, o in held if sealed and returns_when_held(game, o)]
    if back:
        out.warnings.append(
            f"{name}: line {back[0]}: in a sealed game this order, written after a point where "
            "the game waits for the other side, goes back to you when it would resume, with the "
            f"lines after it: send it in your next file [{SEALED_RETURN_RULE}]")
