"""Rule cases as data, and the one runner every game's cases go through.

A rule case is a position, order lines, fixed dice and the expected result. Cases are TOML
files of ``[[case]]`` tables (docs/adding-a-game.md, "Rule cases"):

    [[case]]
    id = "KAS-8.2-a"                  # the rule id the case tests (counted by rule coverage)
    rule = "what the rule says"       # a summary; name = "..." tells cases of one id apart
    also = ["KAS-8.0-a"]              # other rule ids the same case exercises (optional)
    source = "rulebook example, 7.2"  # where the case comes from, when not the rule text (optional)
    position.phase = "combat"         # the position: keys only the game's builder reads
    position.units = [{id = "s501", hex = "3213"}]
    orders = ["attack 3313 with s501", "us: stiff no"]   # "SIDE: order" or the default side
    dice = [6, 2]                     # fixed die values, consumed in order
    expect = {error = "KAS-8.2-a"}    # core keys (below) and the game's own keys

The runner builds the position with the game's hook, applies every order through the Game
interface with ``FixedDice`` and checks the expectations. Keys every game shares:

    error         rule id of the IllegalOrder the last order raises; the state is unchanged
    error_text    that IllegalOrder's reason, exactly (what the player is told)
    events        substrings each found in one event visible to all
    not_events    substrings found in no event visible to all
    logged        [{text, kind, hexes, to}]: one event (of any visibility) has the substring
                  text (or the whole text line) and, where given, that kind, those hexes (a
                  list) and visibility (to)
    purposes      substrings each found in the purpose of one roll
    private       {side: [substrings each found in one event visible to that side only]}
    rolls         the visibility of every roll, in order
    dice_left     fixed dice not consumed
    pending       the kind of the one pending decision ("" = nothing pending)
    pending_side  the side of the first pending decision
    prompt        the prompt of the first pending decision, exactly
    detail        the private detail of the first pending decision, exactly
    reaction      whether the first pending decision is a reaction (inside another side's play)
    winner        the side that won, or "draw" (the game is over)
    not_over      true: the game is not over
    view          {side: {has = [...], lacks = [...]}} strings in that side's encoded view
                  and report

Any other expectation key must be one the game's hook declares in ``keys`` and checks in
``check``; a key nobody checks fails the case, so a misspelt expectation cannot pass unseen.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec

from pbem.core.dice import FixedDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import ALL, Context, Event, Game, Roll

CORE_KEYS = frozenset({"error", "error_text", "events", "not_events", "logged", "purposes",
                       "private", "rolls", "dice_left", "pending", "pending_side", "prompt",
                       "detail", "reaction", "winner", "not_over", "view"})


class Case(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One rule case: a position, orders, fixed dice and the expected result."""

    id: str
    rule: str = ""
    name: str = ""
    also: list[str] = []
    source: str = ""        # where the case comes from (e.g. "rulebook example, section 2")
    position: dict[str, Any] = {}
    orders: list[str] = []
    dice: list[int] = []
    expect: dict[str, Any] = {}
    file: str = ""          # the case file it came from (set by load_cases)
    index: int = 0          # its place in that file, from 0


@dataclass
class CaseRun:
    """What running a case produced: the state, the dice, events, rolls and the last error."""

    state: Any
    dice: FixedDice
    events: list[Event] = field(default_factory=list)
    rolls: list[Roll] = field(default_factory=list)
    error: IllegalOrder | None = None
    before: bytes = b""     # the encoded state before the last order (when an error is expected)


class CaseHooks(Protocol):
    """What a game supplies to run its cases: the game, a position builder, extra checks.

    ``keys`` names the expectation keys ``check`` handles beyond CORE_KEYS.
    """

    game: Game
    keys: frozenset[str]

    def build(self, case: Case) -> Any:
        """The state the case's position describes (from ``case.position``)."""
        ...

    def default_side(self, state: Any, case: Case) -> str:
        """The side giving an order line without a 'SIDE:' prefix, asked before each order."""
        ...

    def apply(self, state: Any, side: str, text: str, ctx: Context, case: Case) -> None:
        """Apply one order line (usually ``game.apply(state, side, game.parse_order(text), ctx)``)."""
        ...

    def check(self, case: Case, run: CaseRun) -> None:
        """Assert the game's own expectation keys (those in ``keys``) against the run."""
        ...


def load_cases(folder: str | Path) -> list[Case]:
    """Every case of every ``*.toml`` file of a folder, in file order; ValueError naming the file
    and case for a case that does not fit the format."""
    out = []
    for path in sorted(Path(folder).glob("*.toml")):
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)
        extra = sorted(set(raw) - {"case"})
        if extra:
            raise ValueError(f"{path}: unknown top-level keys {extra} (only [[case]] tables)")
        for i, item in enumerate(raw.get("case", [])):
            try:
                case = msgspec.convert({**item, "file": path.name, "index": i}, Case)
            except msgspec.ValidationError as e:
                raise ValueError(f"{path}: case {i + 1} ({item.get('id', '?')}): {e}") from None
            out.append(case)
    return out


def case_id(case: Case) -> str:
    """A test id for a case: file, rule id, and its name or place in the file."""
    return f"{case.file}:{case.id}:{case.name or case.index}"


def split_side(line: str, sides: tuple[str, ...]) -> tuple[str | None, str]:
    """An order line 'SIDE: order' as (side, order); (None, line) without a side prefix."""
    m = re.match(r"^\s*([A-Za-z][\w-]*)\s*:\s+(.*)$", line)
    if m and m.group(1) in sides:
        return m.group(1), m.group(2).strip()
    return None, line.strip()


def run_case(hooks: CaseHooks, case: Case) -> CaseRun:
    """Build the position and apply every order with the case's fixed dice.

    Every order must be legal except the last when an ``error`` is expected; its IllegalOrder
    is kept in the run with the state as it was before it.
    """
    state = hooks.build(case)
    dice = FixedDice(case.dice)
    run = CaseRun(state=state, dice=dice)
    for i, line in enumerate(case.orders):
        side, text = split_side(line, hooks.game.sides)
        side = side or hooks.default_side(state, case)
        ctx = Context(dice, action=i)
        last_may_fail = i == len(case.orders) - 1 and "error" in case.expect
        if last_may_fail:
            run.before = msgspec.json.encode(state)
        try:
            hooks.apply(state, side, text, ctx, case)
        except IllegalOrder as e:
            if not last_may_fail:
                raise AssertionError(f"order {i + 1} {line!r} is illegal: {e.describe()}") from None
            run.error = e
        run.events.extend(ctx.events)
        run.rolls.extend(ctx.rolls)
    return run


def _texts(events: list[Event], visible_to: str) -> list[str]:
    return [e.text for e in events if e.visible_to == visible_to]


def check_case(hooks: CaseHooks, case: Case, run: CaseRun) -> None:
    """Assert every expectation of the case: the shared keys here, the game's keys by its hook."""
    exp = case.expect
    unknown = sorted(set(exp) - CORE_KEYS - hooks.keys)
    assert not unknown, f"expectation keys nobody checks: {unknown}"
    game, state = hooks.game, run.state
    state_type = getattr(game, "state_type", None)
    if state_type is not None:       # archives, caches and replays store the state encoded
        raw = msgspec.json.encode(state)
        again = msgspec.json.encode(msgspec.json.decode(raw, type=state_type))
        assert again == raw, "the state after the case does not survive its encoding"
    if "error" in exp:
        assert run.error is not None, "expected an illegal order"
        assert run.error.rule == exp["error"], f"rule {run.error.rule}: {run.error.describe()}"
        assert msgspec.json.encode(state) == run.before, "an illegal order changed the state"
    if "error_text" in exp:
        assert run.error is not None, "expected an illegal order"
        assert run.error.reason == exp["error_text"], f"reason {run.error.reason!r}"
    public = _texts(run.events, ALL)
    for s in exp.get("events", []):
        assert any(s in t for t in public), f"no public event with {s!r}: {public}"
    for s in exp.get("not_events", []):
        assert not any(s in t for t in public), f"public event with {s!r}: {public}"
    for want in exp.get("logged", []):
        found = [e for e in run.events
                 if (e.text == want["line"] if "line" in want else want["text"] in e.text)
                 and e.kind == want.get("kind", e.kind)
                 and list(e.hexes) == want.get("hexes", list(e.hexes))
                 and e.visible_to == want.get("to", e.visible_to)]
        assert found, f"no event like {want}: {[(e.text, e.kind, e.hexes) for e in run.events]}"
    for s in exp.get("purposes", []):
        assert any(s in r.purpose for r in run.rolls), f"no roll for {s!r}: {run.rolls}"
    for side, subs in exp.get("private", {}).items():
        mine = _texts(run.events, side)
        for s in subs:
            assert any(s in t for t in mine), f"no {side} event with {s!r}: {mine}"
    if "rolls" in exp:
        assert [r.visible_to for r in run.rolls] == exp["rolls"], run.rolls
    if "dice_left" in exp:
        left = len(run.dice.values) - run.dice.used
        assert left == exp["dice_left"], f"{left} fixed dice left, expected {exp['dice_left']}"
    if {"pending", "pending_side", "prompt", "detail", "reaction"} & set(exp):
        pending = game.pending(state)
        if "pending" in exp:
            want = [exp["pending"]] if exp["pending"] else []
            assert [d.kind for d in pending] == want, pending
        if "pending_side" in exp:
            assert pending and pending[0].side == exp["pending_side"], pending
        for key in ("prompt", "detail", "reaction"):
            if key in exp:
                assert pending and getattr(pending[0], key) == exp[key], pending
    if "winner" in exp:
        o = game.outcome(state)
        assert o is not None, "the game is not over"
        assert (o.winner or "draw") == exp["winner"], o
    if exp.get("not_over"):
        assert game.outcome(state) is None, game.outcome(state)
    for side, kinds in exp.get("view", {}).items():
        blob = (msgspec.json.encode(game.view(state, side))
                + msgspec.json.encode(game.report(state, side)))
        for s in kinds.get("has", []):
            assert s.encode() in blob, f"{side}'s view lacks {s!r}"
        for s in kinds.get("lacks", []):
            assert s.encode() not in blob, f"{side}'s view shows {s!r}"
    hooks.check(case, run)


def run_and_check(hooks: CaseHooks, case: Case) -> CaseRun:
    """Run one case and check it (what a game's test module calls for each case)."""
    run = run_case(hooks, case)
    check_case(hooks, case, run)
    return run
