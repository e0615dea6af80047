"""The BCS / Baptism By Fire data files as typed msgspec structs (decoded strictly).

Every entry carries a ``source`` starting with "printed" (the seed prints it) or
"reconstructed" (authored here, with its basis), as the other games' data do.
"""

from __future__ import annotations

import msgspec


class _Strict(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    pass


# -- counters (counters.toml) --------------------------------------------------------------------

class Face(_Strict, kw_only=True):
    """One printed side of a unit counter: Move or Deployed."""

    ma: int
    mclass: str                    # tac (red MA) | truck (black) | leg (white)
    assault_arrow: bool = False
    av: int | None = None          # Armor Value; None = no AV printed (infantry for terrain DRM)
    av_class: str = ""             # offensive | limited | light | stand_off ("" when no AV)
    breakthrough: bool = False
    range: int = 1                 # 1 when none is printed (1.2a)


class Unit(_Strict, kw_only=True):
    """A combat unit counter."""

    id: str
    name: str
    side: str
    nation: str
    formation: str
    independent: bool = False
    kind: str
    ar: int
    steps: int
    hard: bool = False
    recon: bool = False
    non_rebuildable: bool = False
    start_hex_exempt: bool = False # BbF 3.3: no Command Radius, always a Safe Path in its start hex
    support_only: bool = False
    move: Face
    deployed: Face | None = None   # single-sided counters are Move-side only (1.2b)
    aliases: list[str] = []
    source: str


class HQ(_Strict, kw_only=True):
    """A Formation HQ counter."""

    id: str
    name: str
    side: str
    formation: str
    command_radius: int
    activation_roll: int
    arty_points: int
    ma: int
    mclass: str = "truck"
    source: str


class Trains(_Strict, kw_only=True):
    """A Formation's Combat Trains counter (Regular and Ghost sides)."""

    id: str
    name: str
    side: str
    formation: str
    source: str


class Formation(_Strict, kw_only=True):
    """A Formation: the units that activate together under one HQ and activation marker."""

    id: str
    name: str
    side: str
    division: str = ""
    hq: str
    trains: str
    activation_marker: str
    aliases: list[str] = []
    source: str


class MarkerKind(_Strict, kw_only=True):
    """A kind of game marker the rules use, with the number in the counter mix."""

    id: str
    name: str
    count: int
    sides: list[str] = []
    rule: str
    source: str


class CountersFile(_Strict, kw_only=True):
    """counters.toml."""

    formation: list[Formation]
    hq: list[HQ]
    trains: list[Trains]
    unit: list[Unit]
    marker: list[MarkerKind]


# -- terrain effects (tec.toml) ---------------------------------------------------------------------

class TerrainRow(_Strict, kw_only=True):
    """One row of the Terrain Effects Chart: movement costs (clear and Rain) and flags."""

    id: str
    name: str
    applies: str                   # hex | hexside | road | marker
    leg: str                       # "1", "1/2", "+1", "P", "ot", "all"
    tac: str
    truck: str
    rain_leg: str
    rain_tac: str
    rain_truck: str
    combat: str = "no"             # combat/barrage terrain: yes | no | ot
    blocking: bool = False
    key: bool = False
    stop: bool = False
    combat_drm: int = 0            # hexside DRM on the Combat Table when attacking across (note 1)
    note: str = ""
    source: str


class TecFile(_Strict, kw_only=True):
    """tec.toml."""

    terrain: list[TerrainRow]
    legend: dict[str, str]
    notes: list[str]
    source: str


# -- charts (charts.toml) ------------------------------------------------------------------------------

class Band(_Strict, kw_only=True):
    """One row of a dice table: modified rolls lo..hi (None = open end) and the result."""

    lo: int | None = None
    hi: int | None = None
    result: str
    loss: str = ""
    retreat: str = ""
    traffic: bool = False
    av: int = 0
    non_av: int = 0


class DiceTable(_Strict, kw_only=True):
    """A table read with one or two dice (plus modifiers) over a range of rolls."""

    id: str
    title: str
    dice: int
    low: int                       # the lowest modified roll the table must answer
    high: int                      # the highest (rows open at the ends cover everything beyond)
    rows: list[Band]
    notes: list[str] = []
    source: str


class Modifier(_Strict, kw_only=True):
    """A die-roll modifier of a chart."""

    chart: str
    group: str
    name: str
    drm: int
    when: str = ""
    source: str


class Cell(_Strict, kw_only=True):
    """A cell of a matrix chart (SNAFU Result Effects, Unit Capabilities, Barrage)."""

    chart: str
    row: str
    column: str
    value: str
    source: str


class Matrix(_Strict, kw_only=True):
    """A chart whose cells are named by row and column: every cell must be given."""

    id: str
    title: str
    rows: list[str]
    columns: list[str]
    source: str


class ChartsFile(_Strict, kw_only=True):
    """charts.toml."""

    table: list[DiceTable]
    modifier: list[Modifier]
    matrix: list[Matrix]
    cell: list[Cell]


# -- orders of arrival and scenarios --------------------------------------------------------------

class Arrival(_Strict, kw_only=True):
    """Counters arriving on a turn at an Entry Area, a hex or an HQ."""

    side: str
    turn: str                      # date as printed: "16 Feb 43"
    entry: list[str]               # Entry Area letters, hex ids, "hq:<formation>" or "rule:3.1a"
    counters: list[str]
    markers: dict[str, int] = {}   # marker id -> number arriving (e.g. minefield: 3)
    fatigue: int | None = None     # the HQ's Fatigue marker (None = Fresh where printed so)
    fresh: bool = False
    support: list[str] = []
    rule: str
    source: str


class OoaFile(_Strict, kw_only=True):
    """ooa.toml: the calendar and both orders of arrival."""

    calendar: list[str]
    arrival: list[Arrival]


class Zone(_Strict, kw_only=True):
    """Where the owner may set a counter up (1.4A, 1.4D): 'w/i X' of a hex (``of`` and
    ``within``: at or within X hexes), a list of hexes, or the hexes between two corner hexes'
    columns and rows (``box``: the boundary lines included)."""

    of: str = ""
    within: int | None = None
    hexes: list[str] = []
    box: list[str] = []           # two hexes of one sheet: the columns and rows between them


class Placement(_Strict, kw_only=True):
    """One counter (or marker) of a scenario set-up."""

    side: str
    hex: str = ""                  # "" only with a zone: the owner places it (1.4A, 1.4D)
    counter: str = ""
    face: str = ""                 # the side the set-up states (move | deployed); "" = the
                                   # owner's choice (1.4E)
    zone: Zone | None = None       # a set-up zone instead of a hex (1.4A, 1.4D)
    marker: str = ""               # a marker id (minefield ...) instead of a counter
    steps: int | None = None       # [n]: current steps (1.4C)
    fatigue: int | None = None
    fresh: bool = False
    done: bool = False
    prepared_defense: bool = False
    ghost: bool = False
    screen: bool = False
    breached: bool = False
    support: bool = False
    assigned_to: str = ""
    rule: str
    source: str


class Victory(_Strict, kw_only=True):
    """A scenario's victory conditions."""

    kind: str                      # campaign | spring_wind
    axis_controls: list[str] = []  # initially Axis-controlled VP hexes; the rest Allied
    lekef_bonus: int = 0
    tebessa_bonus: int = 0
    lekef_exit_areas: list[str] = []
    text: str
    rule: str
    source: str


class Scenario(_Strict, kw_only=True):
    """One scenario (5.1 to 5.6)."""

    id: str
    title: str
    playing_area: list[str]        # sheet letters
    first_turn: str
    last_turn: str
    turns: int
    first_player: str
    weather: str = ""              # the first turn's weather when preset (1.4G); "" = BbF 1.1
    draw_objective: bool = False
    dead_pile: list[str] = []
    markers_in_play: dict[str, list[str]]   # side -> formation ids with activation markers
    reinforcements: str            # ooa | ooa_playing_area | scenario | none
    supply: dict[str, list[str]] = {}       # side -> supply source hexes / Entry Areas
    rommel: list[str] = []
    status: str                    # complete | incomplete
    gap: str = ""
    reason: str = ""
    rule: str
    source: str
    setup: list[Placement] = []
    arrival: list[Arrival] = []
    victory: Victory


# -- where the game rules and the errata amend the series rules (amendments.toml) -------------------

Value = bool | int | str


class Apply(_Strict, kw_only=True):
    """Where the data apply an amendment: a data path, the value the data must carry there and
    the value the overruled rule would have given (None when it is not a single value)."""

    path: str                      # "unit/72-ra-at/move/range", "option/buddies_traffic/default"
    value: Value
    other: Value | None = None


class Disagreement(_Strict, kw_only=True):
    """A place where Baptism By Fire's own rules (or its errata) and the series rules disagree
    (BCS 1.3: the game rules prevail, unless the series names the game rule incorrect)."""

    id: str
    series_rule: str               # a BCS-* or ERR-BCS-* rule id
    game_rule: str                 # a BBF-* or ERR-BBF-* rule id
    prevails: str = "game"         # game | series (only with a reason)
    reason: str = ""
    summary: str
    apply: list[Apply]
    source: str


class Erratum(_Strict, kw_only=True):
    """One printed erratum and its effect: wording (no rule or data change), data (values the
    data carry, checked) or rule (a rule of play the engine applies; the rule ids it changes)."""

    id: str
    amends: str                    # what it amends, as printed
    effect: str                    # wording | data | rule
    summary: str
    rules: list[str] = []
    apply: list[Apply] = []
    source: str


class AmendmentsFile(_Strict, kw_only=True):
    """amendments.toml."""

    disagreement: list[Disagreement]
    erratum: list[Erratum]
