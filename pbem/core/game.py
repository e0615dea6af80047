"""The interface every game package implements, and the types it shares with the core.

A game is a set of pure functions over a typed msgspec state. The core owns files, keys,
dice and views on disk; the game owns the rules. The contract, in order of use:

1. ``setup(scenario, options)`` returns the initial state, already settled at its first
   decision (setup never rolls dice).
2. ``pending(state)`` lists the decisions the game is waiting for: which side must decide
   what, in plain words. An empty list means the game is over (``outcome`` is not None).
3. ``parse_order(text)`` turns one line of the game's notation into a typed order struct;
   ``format_order(order)`` turns it back, and ``format_order(parse_order(t))`` is the
   canonical text stored in signed files.
4. ``apply(state, side, order, ctx)`` checks the order against the rules and, if legal,
   applies it to ``state`` in place and runs every automatic step after it (supply checks,
   end of phase, weather, ...) until the next decision. It must check everything before it
   changes anything: an ``IllegalOrder`` leaves the state untouched. Dice come only from
   ``ctx.roll``; every roll is recorded with its purpose. Events go to ``ctx.log`` with
   their visibility.
5. ``view(state, side)`` builds what one side may know: public state plus that side's
   private state plus what has been revealed to it. Views are what reports are made from.
6. ``secrets(state, side)`` lists strings that are ``side``'s hidden information right now
   (unit names never revealed, face-down values ...); the conformance suite checks that none
   of them appears in any byte of the other side's views and reports.
7. ``bot(state, side, rng, style)`` returns order lines for the side's pending decision.
8. ``standin(view, side)`` rebuilds a full state from one side's view alone: what the side
   sees is exactly as in the view (``view(standin(v, side), side) == v``), what it cannot see
   is replaced by neutral stand-ins (a generic enemy block, standing orders that ask
   nothing). A hosted player checks its orders against it with the real rules before signing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:           # only an annotation here: commands that play no bot skip the import
    import random

import msgspec

ALL = "all"  # visibility of a public event or roll
NOBODY = "nobody"  # visibility of a roll or event that neither player may see

# A game whose orders may name only a destination marks that order type ``needs_path`` and
# implements ``expand_order(state, side, order)``: check and submit write the full order in
# its place before signing (pbem.protocol.checking); apply refuses one left unexpanded.
UNEXPANDED_MOVE = ("a destination-only move ('move UNIT to HEX') must be written out as its "
                   "full path before signing (pbem check and submit do it)")


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """One decision the game is waiting for."""

    side: str
    kind: str
    prompt: str                     # public: what any side may read
    detail: str = ""                # private to the deciding side (a hidden stack's units ...)
    choices: tuple[str, ...] = ()   # the order lines to choose from, where it is a choice
    reaction: bool = False          # an answer inside another side's stretch of play


def decisions_for(decisions: list[Decision], viewer: str) -> list[Decision]:
    """The decisions as one viewer may read them: another side's private detail is blanked
    ('full' and referees see everything)."""
    if viewer in (ALL, "full", "host"):
        return list(decisions)
    return [d if d.side == viewer or not d.detail else msgspec.structs.replace(d, detail="")
            for d in decisions]


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """The result of a finished game. winner is None for a draw."""

    winner: str | None
    reason: str


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """A log line produced while resolving a file; visible_to is 'all' or one side."""

    text: str
    visible_to: str = ALL
    kind: str = "info"
    hexes: tuple[str, ...] = ()


class Roll(msgspec.Struct, frozen=True, kw_only=True):
    """One die, addressed by (action, index) within the file that produced it."""

    action: int
    index: int
    sides: int
    value: int
    purpose: str
    visible_to: str = ALL


class PrivateDraw(msgspec.Struct, frozen=True, kw_only=True):
    """The public record of one private draw (pbem.core.privatedraw): whose, what, its address."""

    owner: str
    name: str          # the game's name for it ("objective")
    seq: int           # the file whose dice key it
    action: int
    index: int
    sides: int
    purpose: str


class OptionSpec(msgspec.Struct, frozen=True, kw_only=True):
    """A house option: its default, allowed values and the rule gap it settles.

    Resolution and the meaning of ``required``, ``when`` and ``value_when`` are in
    pbem.core.options (docs/adding-a-game.md, "House options").
    """

    default: Any = None
    choices: tuple[Any, ...]
    doc: str
    required: bool = False                        # no default: the proposer must choose
    when: dict[str, tuple[Any, ...]] = {}         # applies only when these options have these values
    value_when: dict[Any, dict[str, tuple[Any, ...]]] = {}   # a value allowed only when ...


class NeedsDice(Exception):
    """Raised by a dice source that cannot roll (order checking before the dice exist)."""


class DiceSource(Protocol):
    """Where rolls come from: the commit-reveal derivation, fixed test dice, or nothing."""

    def roll(self, action: int, index: int, sides: int, cls: str = ALL) -> int:
        """Return one die in 1..sides for this address, keyed for its visibility class."""
        ...


class Context:
    """What a game gets while applying one order: dice, and a log."""

    def __init__(self, dice: DiceSource, action: int = 0, *, seq: int = 0,
                 private: bool = False) -> None:
        self.dice = dice
        self.action = action
        self.seq = seq                # the file being resolved (0 outside a file: tests, bots)
        self.private = private        # peer mode: private draws are derived by their owner only
        self.rolls: list[Roll] = []
        self.events: list[Event] = []
        self.draws: list[PrivateDraw] = []
        self._next_index: dict[int, int] = {}

    def roll(self, sides: int, purpose: str, *, visible_to: str = ALL) -> int:
        """Roll one die with `sides` faces for a stated purpose; the roll is recorded."""
        index = self._next_index.get(self.action, 0)
        value = self.dice.roll(self.action, index, sides, visible_to)
        self._next_index[self.action] = index + 1
        self.rolls.append(Roll(action=self.action, index=index, sides=sides, value=value,
                               purpose=purpose, visible_to=visible_to))
        return value

    def private_draw(self, sides: int, purpose: str, *, owner: str,
                     name: str) -> tuple[PrivateDraw, int]:
        """A draw only `owner` may know (pbem.core.privatedraw): its public record and its value,
        which is 0 where the replicated state may not hold it (peer mode: the owner's processor
        derives it); elsewhere (a referee, tests) it is a roll of class `owner`. In a sealed
        game it is that roll too, keyed with the owner's private share: 0 on a processor that
        can only stand it in (the other side's; docs/sealed.md 5a)."""
        index = self._next_index.get(self.action, 0)
        rec = PrivateDraw(owner=owner, name=name, seq=self.seq, action=self.action, index=index,
                          sides=sides, purpose=purpose)
        if self.private:
            self._next_index[self.action] = index + 1
            self.draws.append(rec)
            return rec, 0
        value = self.roll(sides, purpose, visible_to=owner)
        standin = getattr(self.dice, "stands_in", None)
        return rec, (0 if standin is not None and standin(owner) else value)

    def rolls_of(self, count: int, sides: int, purpose: str, *, visible_to: str = ALL) -> list[int]:
        """Roll `count` dice for one purpose."""
        return [self.roll(sides, f"{purpose} ({i + 1}/{count})", visible_to=visible_to)
                for i in range(count)]

    def shuffle(self, items: list[Any], purpose: str, *, visible_to: str = ALL) -> list[Any]:
        """A uniformly random permutation of items (Fisher-Yates on recorded draws)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.roll(i + 1, f"{purpose}: draw", visible_to=visible_to) - 1
            out[i], out[j] = out[j], out[i]
        return out

    def log(self, text: str, *, visible_to: str = ALL, kind: str = "info",
            hexes: tuple[str, ...] = ()) -> None:
        """Record an event with its visibility."""
        self.events.append(Event(text=text, visible_to=visible_to, kind=kind, hexes=hexes))


class MapUnit(msgspec.Struct, frozen=True, kw_only=True):
    """A counter or block as one side sees it on the map (masked: label and values empty)."""

    hex: str
    side: str
    label: str = ""
    values: str = ""
    kind: str = ""
    masked: bool = False
    note: str = ""
    id: str = ""            # the id orders use (own and revealed units; never a masked one's)


class MapMarker(msgspec.Struct, frozen=True, kw_only=True):
    """A marker on the map: a combat, a face-down support marker, an objective ..."""

    hex: str
    kind: str
    label: str = ""


class MapArrow(msgspec.Struct, frozen=True, kw_only=True):
    """A move this side saw, as a path of hexes."""

    path: tuple[str, ...]
    side: str
    label: str = ""


class Panel(msgspec.Struct, frozen=True, kw_only=True):
    """A titled list of lines in a report (supply, reinforcements due, victory ...)."""

    title: str
    lines: tuple[str, ...]


class Placement(msgspec.Struct, frozen=True, kw_only=True):
    """A unit of the viewer still to place (set-up or reinforcement) and the hexes allowed now."""

    unit: str                       # the id orders use
    name: str = ""
    values: str = ""
    turn: int = 0                   # the turn it is due (0 for set-up)
    kind: str = "reinforcement"     # set-up | reinforcement
    hexes: tuple[str, ...] = ()     # where it may be placed or enter now (empty: nowhere now)
    order: str = ""                 # the order form, e.g. "place UNIT HEX"
    note: str = ""


class Reach(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """One hex a unit can reach: the cost of its cheapest legal path and the hex before it."""

    hex: str
    cost: str                       # as printed, e.g. "3" or "1.5" (movement points)
    prev: str                       # the hex entered before this one ("" = the first hex)
    end: bool = True                # False: passed through only (a move may not end there)


class UnitReach(msgspec.Struct, frozen=True, kw_only=True):
    """Move helper data of one own unit: its hex, allowance and the hexes it can reach."""

    unit: str
    hex: str                        # where it stands ("" for a unit entering the map)
    label: str
    allowance: str                  # e.g. "5 MP"
    order: str                      # the order line with "{path}" for the path text
    sep: str                        # between hexes of a path in the game's notation
    hexes: tuple[Reach, ...] = ()


class ReportModel(msgspec.Struct, kw_only=True):
    """Everything a report shows, built by the game from one side's view."""

    game: str
    game_title: str
    scenario: str
    side: str
    turn: int
    turn_label: str
    phase: str
    units: list[MapUnit]
    markers: list[MapMarker] = []
    arrows: list[MapArrow] = []
    panels: list[Panel] = []
    placements: list[Placement] = []   # this side's units still to place, with their hexes
    legend: list[str] = []               # what the values printed on a counter mean
    reach: list[UnitReach] = []        # move helper: where each own unit can move this phase


class Game(Protocol):
    """The interface a game package provides; see the module docstring for the contract."""

    id: str
    title: str
    sides: tuple[str, ...]
    state_type: type
    rules_version: str

    def scenarios(self) -> dict[str, str]:
        """Scenario id -> title."""
        ...

    def data_files(self, scenario: str) -> list[Path]:
        """Every data file the scenario reads (hashed into the genesis)."""
        ...

    def options(self) -> dict[str, OptionSpec]:
        """The house options and their defaults."""
        ...

    def setup(self, scenario: str, options: dict[str, Any]) -> Any:
        """Initial state of a scenario, settled at its first decision."""
        ...

    def pending(self, state: Any) -> list[Decision]:
        """Decisions the game waits for; empty once the game is over."""
        ...

    def parse_order(self, text: str) -> Any:
        """Parse one order line; OrderSyntaxError if it is not valid notation."""
        ...

    def format_order(self, order: Any) -> str:
        """The canonical text of an order."""
        ...

    def apply(self, state: Any, side: str, order: Any, ctx: Context) -> None:
        """Check and apply one order in place, then run automatic steps; IllegalOrder if not legal."""
        ...

    def view(self, state: Any, side: str) -> Any:
        """What one side may know, as a msgspec struct."""
        ...

    def turn(self, state: Any) -> int:
        """The game turn number (for status and reports)."""
        ...

    def outcome(self, state: Any) -> Outcome | None:
        """The result once the game has ended, else None."""
        ...

    def secrets(self, state: Any, side: str) -> list[str]:
        """Strings that are side's hidden information now (must not leak to the other side)."""
        ...

    def bot(self, state: Any, side: str, rng: random.Random, style: str = "random") -> list[str]:
        """Order lines answering side's pending decision."""
        ...

    def standin(self, view: Any, side: str) -> Any:
        """A full state consistent with side's view: what side cannot see is replaced by stand-ins.

        ``view`` is the game's view struct or its builtins form as decoded from JSON (a dict,
        converted with ``msgspec.convert``). The stand-in is built from the view (and the
        scenario data) only, so it holds no hidden value of the other side; checking orders
        on it gives the referee's verdict except for the cases the game's documentation lists
        under "What a hosted player's check cannot see".
        """
        ...

    def report(self, state: Any, side: str) -> ReportModel:
        """The report model of one side's view of the state."""
        ...

    def game_map(self, scenario: str) -> Any:
        """The scenario's GameMap (for drawing)."""
        ...


class MarkerStyle(msgspec.Struct, frozen=True, kw_only=True):
    """How the report map draws one marker kind; a game declares its kinds as data.

    A game may offer ``marker_styles() -> dict[str, MarkerStyle]`` (marker kind -> style); the
    renderer falls back to its built-in styles for a game without it and for kinds it lacks.
    """

    shape: str                      # burst | star | square | no_entry | circle
    fill: str
    stroke: str = "#111111"
    accent: str = ""                # burst: inner colour; square: symbol colour
    symbol: str = ""                # text drawn inside the shape ("?" for a face-down marker)
    symbol_if_unlabelled: str = ""  # text inside when the marker has no label
    show_label: bool = True         # draw the marker's label under it
    css: str = "other"              # class on the drawn group: combat, objective, support ...
