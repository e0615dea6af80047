"""The Holdfast game state: a public part and one private part per side (msgspec structs)."""

from __future__ import annotations

import msgspec

from pbem.core.game import Outcome as Result  # the end of the game: the core's struct

SIDES = ("allied", "axis")


def enemy(side: str) -> str:
    """The other side."""
    return "axis" if side == "allied" else "allied"


class UnitState(msgspec.Struct, kw_only=True):
    """One block as its owner knows it. where: map|track|setup|offmap|eliminated|bag."""

    id: str
    where: str
    hex: str = ""
    sp: int = 0
    entry_turn: int = 0        # on the track: the turn it is due
    moved: bool = False        # activated to move this player turn
    attacked: bool = False     # activated to attack this player turn
    used: bool = False         # support unit: used in an attack this game turn
    gray: bool = False         # entered play from a gray hex (ERR-HF-8.2-d)
    placed: int = 0            # placement sequence number this player turn (0 = not placed)
    reentry_turn: int = 0      # turn a rebought replacement re-enters (ERR-HF-8.2-b)
    bought: int = 0            # steps bought this player turn
    revealed: bool = False     # the enemy has seen this block's label at least once


class PendingHits(msgspec.Struct, kw_only=True):
    """Defender dice that hit the attacker and wait for the attacker's allocation."""

    hex: str
    attackers: list[str]
    dice: list[list[int]]      # [value after modifier, raw value, 1 if bridge die else 0]
    crossing: list[str]        # attackers attacking across a bridge hexside


class SideState(msgspec.Struct, kw_only=True):
    """A side's private part: its units, its per-turn bookkeeping, a pending allocation."""

    units: dict[str, UnitState]
    leader_mp_used: bool = False
    minor_ports: dict[str, str] = {}     # minor port hex -> unit id it supplies this turn
    pending_hits: PendingHits | None = None
    standing: dict[str, str] = {}        # core standing orders (topic -> mode), hidden
    slots: dict[str, int] = {}           # sealed mode: unit id -> public slot number while on
                                         # the map (a knowledge state: the enemy's opened ones)
    concealed: bool = False              # sealed mode: this part is the other side's stand-ins


class MoveSeen(msgspec.Struct, kw_only=True):
    """A move both sides saw: the side and the path of hexes (block identity not recorded)."""

    side: str
    path: list[str]


class PublicState(msgspec.Struct, kw_only=True):
    """What both players see: turn, phase, weather, RP tracks, base control, moves and combats."""

    scenario: str
    options: dict[str, str | int | bool]
    turn: int = 0
    phase: str = "setup"       # setup | turn | allocate | over
    active: str = "axis"       # the side that decides now
    step: str = "place"        # within a player turn: place | buy | act
    weather: str = ""          # clear | poor ("" before turn 1)
    weather_roll: int = 0
    rp: dict[str, int] = {}
    control: dict[str, str] = {}   # supply base hex -> controlling side
    moves: list[MoveSeen] = []
    combats: list[str] = []        # hexes attacked this player turn
    seq: int = 0                   # placement counter
    due: dict[str, int] = {}       # per side: how many units it may place at its next
                                   # placement step (set-up units, then the units due on the
                                   # turn track: scheduled, delayed, rebought, overstacked back)
    lost: dict[str, int] = {}      # per side: its blocks eliminated in combat and not bought
                                   # back (public: an upper bound on what it may rebuild)
    slots: dict[str, int] = {}     # sealed mode: public slot numbers given per side so far
    result: Result | None = None


class HoldfastState(msgspec.Struct, kw_only=True):
    """The whole state: public part plus each side's private part."""

    public: PublicState
    private: dict[str, SideState]


def encode(state: HoldfastState) -> bytes:
    """The state as JSON bytes."""
    return msgspec.json.encode(state)


def decode(raw: bytes) -> HoldfastState:
    """A state from JSON bytes."""
    return msgspec.json.decode(raw, type=HoldfastState)


def clone(state: HoldfastState) -> HoldfastState:
    """A deep copy of the state."""
    return decode(encode(state))
