"""The Baptism By Fire game state: msgspec structs, integers only; public part, private parts.

Movement Points are kept in twelfths of an MP (``MP12``): every TEC cost (1/2, 1/3, 1/4, 1/6 of
an MP on roads) is then a whole number, and halved MAs keep their fractions (5.1f).
"""

from __future__ import annotations

import msgspec

from pbem.core.game import PrivateDraw

SIDES = ("allied", "axis")
MP12 = 12                      # twelfths of an MP per MP
FRESH = -1                     # Formation.fatigue value of a Fresh Formation (10.4a)
PHASES = ("setup", "assignment", "first_player", "activate", "activities", "second", "over",
          "mines")


def arrival_group(p: "Piece") -> str:
    """The arrival a piece belongs to: its turn and its Entry Areas (9.3b chooses per arrival)."""
    return f"{p.arrives}:{','.join(p.entry)}"


def other(side: str) -> str:
    """The opposing side."""
    return "axis" if side == "allied" else "allied"


class Piece(msgspec.Struct, kw_only=True):
    """One counter on (or waiting to enter) the map: a combat unit, an HQ or Combat Trains."""

    id: str
    side: str
    formation: str
    kind: str                    # unit | hq | trains
    hex: str = ""                # "" while off the map
    status: str = "map"          # map | off (arriving, 9.3) | dead | support (in Support, 9.2:
                                 # with its HQ or off the map, hex "", never a real unit) |
                                 # pool (an unassigned independent stored off the map, 9.5) |
                                 # setup (set up in a zone, not placed yet: 1.4A, 1.4D)
    entry: list[str] = []        # off: where it may enter (Entry Area letters, "hq:FORMATION")
    arrives: int = 0             # off: the game turn it arrives (its Formation's marker joins)
    steps: int = 1               # combat units: steps remaining (1.2e); hidden from the enemy
    face: str = "move"           # move | deployed (1.2b, 5.6)
    ghost: bool = False          # Combat Trains on their Ghost side (10.3b)
    screen: bool = False         # BbF 1.5a Screen marker
    dropped: bool = False        # a Dropped Support marker on this unit (9.2i)
    home: str = ""               # its set-up hex (BbF 3.3 starting-hex exemption)
    joined: bool = True          # has started an Activation in Command Radius (9.3g)
    # this Activation (reset when an Activation starts):
    start: str = ""              # where it began the Activation (4.2f)
    trail: list[str] = []        # the hexes it was in during the Activation, its start first
                                 # (5.5d: an excess unit goes back the way it came)
    mp: int = 0                  # MP12 spent (5.1a)
    moved: bool = False          # has begun to move (5.1c: the one-hex minimum is used up)
    done_moving: bool = False    # its stack's chance to move has passed (3.3b, 3.3c)
    stopped: str = ""            # the rule id of a STOP it executed ("" = none)
    flipped: bool = False        # flipped this Activation (5.6a)
    finished: bool = False       # Finished (3.3e)
    fire_events: int = 0         # Fire Events used this Activation (7.0d)
    revealed: bool = False       # named in an event both sides see (actions.reveal_named)


class FormationState(msgspec.Struct, kw_only=True):
    """A Formation: its HQ's activation status, Fatigue and command markers (4.0, 10.4)."""

    id: str
    side: str
    hq: str
    trains: str
    in_play: bool = True         # its activation marker is available (4.6)
    status: str = "unused"       # HQ: unused | used | done (3.2a, 3.4d, 3.5c)
    set_up_used: bool = False    # set up or arrived Used: one Activation, as a Second (3.5a)
    exempt: bool = False         # set up Done: need not activate on the first turn (3.4b)
    activations: int = 0         # this turn
    fatigue: int = 0             # FRESH (-1), 0 .. 4 (10.4a)
    coordination: bool = False   # Coordination marker (4.4)
    extra_coordination: int = 0  # markers beyond the first, 0-2 (Optional 5, BCS-OPT5-a)
    prepared_defense: bool = False
    msr_blocked: int = 0         # MSR Blocked level 0-2 (10.2b)
    recovered: bool = False      # made a Recovery Activation this turn (10.4c)


class Activation(msgspec.Struct, kw_only=True):
    """The Activation under way (3.2a): its Formation, SNAFU result and stack sequencing."""

    formation: str
    side: str
    second: bool = False         # a Second Activation (3.5)
    recovery: bool = False       # a Fatigue Recovery Activation (10.4c)
    snafu: str = ""              # Pass | Partial | Fail ("" for a Recovery Activation)
    snafu_roll: int = 0          # the modified roll
    began: bool = False          # the Activities step has begun (5.6a)
    stack: list[str] = []        # the stack now moving (3.3b, 3.3c)
    objs: list[str] = []         # Combat OBJ hexes placed in Initial Actions (4.3)
    trains_moved: bool = False   # the Combat Trains were placed in this Activation (10.3b)
    entries: dict[str, list[str]] = {}   # arrival group -> Entry hexes used in it (9.3b)
    attacked: list[str] = []     # hexes that received a Regular Attack (7.2d)
    shocked: bool = False        # a Shock Attack used the Combat Table (10.4b)
    engaged: bool = False        # an Engagement was made (10.4b)
    arty_used: int = 0           # Arty Points used in this Activation (8.0b)
    barraged: list[str] = []     # hexes that had a Barrage Mission in this Activation (8.2a)
    dropped: list[str] = []      # units Temporarily Dropped from Support for its rest (9.2j)
    breaches: list[str] = []     # minefield hexes breached in it, Breached at its end (BbF 3.1b)


class Smoothing(msgspec.Struct, kw_only=True):
    """Optional 9 Activation Smoothing (BCS-OPT9-a, -b; house option activation_smoothing,
    smoothing.py): this turn's chit cup, public (both sides see every chit drawn)."""

    side: str = ""               # Side-A, the side with more Formations to activate at the
                                 # start of the turn ("": no cup this turn, equal counts)
    twos: int = 0                # chits marked 2 still in the cup
    ones: int = 0                # chits marked 1 still in the cup
    again: bool = False          # a 2 was drawn: Side-A's next Activation is the second one at
                                 # once, with no draw after it


class SidePrivate(msgspec.Struct, kw_only=True):
    """What only one side knows: its Air Points (1.5b) and its standing orders (the core's
    store: topic -> mode)."""

    air_points: int = 0
    standing: dict[str, str] = {}
    # Arty Asset Points (8.0d, 9.5; BbF 3.2: the 9 ID Divarty), hidden from the enemy (1.5b):
    arty_pool: int = 0           # unassigned, off the map
    arty_free: int = 0           # of the pool, those unassigned when this Assignment Phase began
    arty_assigned: dict[str, int] = {}   # Formation -> Arty Asset Points assigned to its HQ
    rebuilding: dict[str, int] = {}      # dead unit -> steps its Repls rebuilt, waiting in the
                                         # Dead Pile for Legal Trains (9.4c)
    objective: str = ""          # the Axis's Victory Objective where this state holds it
                                 # (BBF-4.0-a: a referee's state, his own reports; objective.py)
    off_map: dict[str, dict[str, list[str]]] = {}   # a sealed knowledge state: Formation ->
                                 # what waits off the map beside its held Entry hexes, as its
                                 # owner opened it (the fact S.offmap.F, snafu.off_map_entries)


class SetupZone(msgspec.Struct, kw_only=True):
    """A set-up zone of one counter (1.4A, 1.4D; data.Zone): 'w/i X' of a hex, a list of hexes
    or the hexes between two corners' columns and rows (boundary lines included)."""

    of: str = ""
    within: int = 0
    hexes: list[str] = []
    box: list[str] = []


class Reaction(msgspec.Struct, kw_only=True):
    """A choice of a side asked while an order is resolved (reactions.py): who is asked which
    topic of combat.STANDING, whose order it is, and the order's run so far."""

    side: str                    # the side asked ("" while an order runs)
    topic: str
    by: str                      # the side whose order is being resolved
    order: str = ""              # that order's canonical text (never in a view)
    hex: str = ""                # the hex concerned (the defending hex ...)
    answers: dict[str, str] = {} # "SIDE TOPIC" -> mode, every choice read so far in the order
    rolls: list[int] = []        # the dice rolled so far in the order (replayed on answering)
    events: int = 0              # the order's events already told
    options: list[str] = []      # the owner's own choices besides the modes (a hex, an order of
                                 # units), private to the side asked (view._wait)
    subject: str = ""            # his unit the choice places, when units are placed one by one
                                 # (private to the side asked, like options)


class Result(msgspec.Struct, kw_only=True):
    """The end of the game."""

    winner: str | None
    reason: str


class BcsState(msgspec.Struct, kw_only=True):
    """The whole game: public part and one private part per side."""

    scenario: str
    options: dict[str, str | bool | int] = {}
    turn: int = 1                # game turn, from 1
    dates: list[str] = []        # the calendar of the scenario's turns ("14 Feb 43", ...)
    weather: str = "No Rain"     # No Rain | Rain (BbF 1.1)
    phase: str = "activate"      # one of PHASES
    next_side: str = "axis"      # who must activate (or, in first_player, who chooses)
    first_side: str = "axis"     # who took the turn's first Activation
    pieces: dict[str, Piece] = {}
    formations: dict[str, FormationState] = {}
    activation: Activation | None = None
    traffic: list[str] = []      # Traffic Stopped hexes (5.1g)
    objs: list[str] = []         # Combat OBJ hexes of the current Activation (4.3)
    control: dict[str, str] = {} # VP hex -> side that controls it (BbF 4.1)
    air_due: bool = True         # this turn's Air Points are still to be rolled (BbF 1.1d)
    private: dict[str, SidePrivate] = {}
    result: Result | None = None
    wait: Reaction | None = None       # a question waiting for a side's answer (reactions.py)
    resolving: Reaction | None = None  # the order being resolved (None between orders)
    # the Pre-Turn Assignment Phase (2.1 (1) 2, assignment.py):
    assigning: list[str] = []    # the sides still to decide in it, in order
    unassigned: list[str] = []   # independents unassigned when it began (9.5: assignable)
    rommel: str = ""             # BbF 2.1: Rommel's box (dak, 10pz, 21pz; "" not yet placed)
    # BbF 4.0 and 3.1 (objective.py, mines.py):
    objective_turn: int = 0      # the turn at whose start the Axis draws (0: no draw)
    objective_draw: PrivateDraw | None = None   # the draw's public record (pbem.core.privatedraw)
    objective: str = ""          # the opened Victory Objective (tebessa | lekef; "" while secret)
    exits: dict[str, str] = {}   # Axis units exited for victory -> the hex they left from
    mines: dict[str, bool] = {}  # Minefield hexes -> breached (BbF 3.1)
    mines_due: int = 0           # Minefield markers the Allies still place (phase mines, 3.1a)
    # the Set-up decision before the first turn (1.4A, 1.4D, 1.4E; setupphase.py), public:
    setting: list[str] = []      # the sides still to decide in it, in order
    setup_zones: dict[str, SetupZone] = {}   # counter -> the zone its owner places it in
    setup_fixed: dict[str, str] = {}         # unit -> the side the set-up states (1.4E)
    weather_due: bool = False    # the first turn's weather is still to be rolled (1.4G)
    # sealed mode (sealed.py, docs/sealed.md 5h); empty in peer and hosted games:
    sealed: bool = False         # a sealed game (public, option sealed_game): the rules read the
                                 # Victory Objective only once opened (objective.opened_only)
    slots: dict[str, dict[str, int]] = {}   # side -> its map unit -> public slot number (the
                                 # owner's, private; a knowledge state: the other's stand-ins)
    nslots: dict[str, int] = {}  # side -> slots given so far (public)
    concealed: list[str] = []    # a knowledge state: the sides whose hidden facts are stand-ins
    known: dict[str, list[str]] = {}   # concealed side -> its facts opened in this state
    picked: dict[str, dict[str, Piece]] = {}   # a knowledge state: concealed side -> slot ->
                                 # the unit off the map taken as the stand-in of a unit that
                                 # entered under another top (sealed.take_from_pool)
    # Optional 9 Activation Smoothing (smoothing.py): the chit cup, only in a game played with
    # the house option activation_smoothing; UNSET (never encoded) in every other game, whose
    # state bytes and hashes stay as they were
    smoothing: Smoothing | msgspec.UnsetType = msgspec.UNSET

    @property
    def date(self) -> str:
        """The date of the current turn."""
        return self.dates[min(self.turn, len(self.dates)) - 1]
