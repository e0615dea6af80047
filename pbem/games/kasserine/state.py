"""The Kasserine game state: msgspec structs, integers only; public part and one private part per side."""

from __future__ import annotations

import msgspec

from pbem.core.game import NOBODY
from pbem.core.game import Outcome as Result  # the end of the game: the core's struct
from pbem.games.kasserine.options import Options

SIDES = ("axis", "us")
PHASES = ("movement", "bombardment", "combat", "mobile-movement", "mobile-combat")
HIDDEN = NOBODY  # visibility of a draw that neither player may see (face-down markers)


def other(side: str) -> str:
    """The opposing side."""
    return "us" if side == "axis" else "axis"


class UnitState(msgspec.Struct, kw_only=True):
    """One counter: where it is, how many steps it has, what it did this player turn."""

    side: str
    hex: str = ""
    status: str = "off"          # off (not yet arrived) | map | dead
    steps: int = 2               # 2 full, 1 depleted (or a one-step unit)
    mp: int = 0                  # half-MP spent this player turn
    moved: bool = False          # moved in the Movement Phase (or arrived) this player turn
    mobile_moved: bool = False   # moved in the Mobile Movement Phase
    attacked: bool = False       # attacked in this player turn (8.2-b, 8.2-c)
    barred: str = ""             # "advanced" or "displaced": no more attacks this player turn


class Marker(msgspec.Struct, kw_only=True):
    """A support fire marker of the turn allotment (private: its id is a secret token)."""

    id: str
    value: int


class Task(msgspec.Struct, kw_only=True):
    """One step of resolving a combat result, waiting perhaps for a choice."""

    kind: str                    # retreat | loss | advance
    side: str                    # who decides / who owns the unit
    unit: str = ""
    hexes: int = 0               # retreat length
    candidates: list[str] = []   # loss: units that may take it; advance: units that may advance
    box: str = ""                # "", hold, yield
    stiff: str = ""              # "", yes, no
    path: list[str] | None = None
    chain: list[str] = []        # displacement hexes chosen so far (8.3.1): the unit in the
                                 # path's last hex goes to chain[0], the one there to chain[1], ...
    auto: bool = False
    bombard: bool = False


class Combat(msgspec.Struct, kw_only=True):
    """The attack being resolved (public part; face-down values live in the private parts)."""

    kind: str                    # ground | bombard
    target: str                  # defending hex
    defender: str                # defending unit
    attackers: list[str] = []
    sf: int = 0                  # markers the attacker pre-committed (steps 1 and 3)
    sf_ask: bool = False         # step 3 is asked after step 2 (then sf is 0 or 1: step 1 only)
    advance: list[str] | None = None   # pre-committed advance ("unit" or "unit:n"); None = ask
    loss: str = ""               # pre-committed Ex/(A) loss unit
    step: int = 1                # next support-fire step (1-5), 6 = resolved
    att_down: int = 0            # face-down markers committed by the attacker
    def_down: int = 0
    att_values: list[int] = []   # revealed values
    def_values: list[int] = []
    result: str = ""
    die: int = 0
    row: str = ""
    diff: int = 0
    tasks: list[Task] = []
    retreat_path: list[str] = [] # path of retreat of the defender (8.5)


class Wait(msgspec.Struct, kw_only=True):
    """A decision the game waits for in the middle of a phase."""

    side: str
    kind: str                    # support | box | stiff | retreat | displace | advance | loss
    prompt: str


class Standing(msgspec.Struct, kw_only=True):
    """A side's standing orders (private)."""

    support: str = ""            # "", never, one, two, match
    support_min: int | None = None   # commit only if the declared differential >= this
    stiff: str = ""              # "", never, always, full-strength
    retreat: str = ""            # "", auto
    box: str = ""                # "", hold, yield
    displace: str = "auto"       # auto (the engine places displaced units), ask


def standing_of(store: dict[str, str]) -> Standing:
    """The typed reading of a side's core standing-order store (pbem.core.standing)."""
    st = Standing()
    for topic, mode in store.items():
        words = mode.split()
        if topic == "support":
            st.support = words[0]
            st.support_min = int(words[2]) if len(words) == 3 and words[1] == "min" else None
        elif topic in ("stiff", "retreat", "box", "displace"):
            setattr(st, topic, words[0])
    for topic in ("support", "stiff", "retreat", "box"):
        if getattr(st, topic) == "ask":
            setattr(st, topic, "")           # asked: the same as no standing order
    return st


def store_of(st: Standing) -> dict[str, str]:
    """A store whose typed reading is st (the inverse of standing_of, up to equivalence)."""
    out = {}
    if st.support:
        out["support"] = st.support + (f" min {st.support_min:+d}"
                                       if st.support_min is not None else "")
    for topic in ("stiff", "retreat", "box"):
        if getattr(st, topic):
            out[topic] = getattr(st, topic)
    if st.displace != "auto":
        out["displace"] = st.displace
    return out


class SidePrivate(msgspec.Struct, kw_only=True):
    """What only one side may know: its unused allotment, face-down markers, standing orders."""

    unused: list[Marker] = []
    facedown: list[Marker] = []
    standing: dict[str, str] = {}    # core standing orders (topic -> mode); read with standing_of


class MoveSeen(msgspec.Struct, kw_only=True):
    """A move both sides saw (every counter is face up): its player turn, mover, kind and path."""

    turn: int                    # game turn of the player turn it happened in
    player: str                  # the side whose player turn it was
    side: str                    # the mover's side
    kind: str                    # move | enter | retreat | displace | advance
    unit: str
    path: list[str]              # hexes from the start hex (none for "enter") to the last one


class KasserineState(msgspec.Struct, kw_only=True):
    """The whole game: public part plus private parts keyed by side."""

    scenario: str
    options: Options
    turn: int = 1
    active: str = "axis"
    phase: str = "movement"
    units: dict[str, UnitState] = {}
    released: list[str] = []          # reinforcement groups whose units may arrive
    triggered: dict[str, int] = {}    # event group -> game turn of the event
    holder: dict[str, str] = {}       # objective hex -> side of its last occupant
    max_captured: int = 0
    targets: list[str] = []           # units attacked in the current phase (8.0-c)
    bombarded: dict[str, int] = {}    # hex -> markers that bombarded it this player turn
    allotment: dict[str, int] = {}    # markers each side received this game turn (public count)
    loc_lost: dict[str, int] = {}     # markers lost this turn by occupied supply hexes (12.0)
    spent: dict[str, list[int]] = {}  # revealed values spent this game turn
    combat: Combat | None = None
    last_combat: Combat | None = None
    moves: list[MoveSeen] = []        # this player turn's and the previous one's (seen.py)
    wait: Wait | None = None
    seq: int = 0                      # combats declared this game (ids for face-down markers)
    private: dict[str, SidePrivate] = {}
    result: Result | None = None
