"""Holdfast scenario data: typed structs for scenarios/holdfast/*.toml, and their loader.

Files (all TOML, decoded strictly):
- ``map.toml``     the map (docs/map-format.md)
- ``units.toml``   the unit manifest: every block with its printed or reconstructed values
- ``tables.toml``  terrain effects, RP costs, weather, out-of-supply effects
- ``turns.toml``   the turn record: RP, weather modifier and reinforcements for turns 1-16
- ``<scenario>.toml`` one file per scenario (campaign, race-to-tunis): turns, set-up, victory

Every entry carries ``source`` ("printed ..." or "reconstructed: basis").

Entry point: ``load_holdfast(scenario_id)`` returns a validated, cached ``HoldfastData``.
Every problem found while loading raises ``pbem.core.errors.ScenarioError`` with one line
that names the file and the problem; nothing is ever defaulted silently.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import msgspec

from pbem.core.datafile import read_toml
from pbem.core.errors import ScenarioError
from pbem.core.mapdata import GameMap, check_source, load_map

SCENARIO_DIR = Path(__file__).resolve().parents[3] / "scenarios" / "holdfast"

#: The shared data files, in the order ``data_files`` lists them (the scenario file is last).
SHARED_FILES = ("map.toml", "units.toml", "tables.toml", "turns.toml")

SIDES = ("allied", "axis")
NATIONALITIES = {"allied": ("british", "us", "french"), "axis": ("german", "italian")}
UNIT_TYPES = ("infantry", "armor", "support")
SUPPORT_KINDS = ("leader", "air", "kampfgruppe", "combat_team")
PLACE_KINDS = ("town", "port", "supply_base", "minor_port")
ROAD_KINDS = frozenset({"road"})
VICTORY_KINDS = ("campaign", "race-to-tunis", "none")
REQUIRED_RP_COSTS = ("step_infantry", "step_armor", "unit_infantry", "unit_armor",
                     "activate_move", "attack", "joint_attack",
                     "axis_armor_surcharge_from_turn", "axis_armor_surcharge")
#: Second names for RP costs (the engine's spelling -> the key written in tables.toml). The loader
#: fills the second name from the first, so the data file holds each value once.
RP_COST_ALIASES = {"move": "activate_move", "attack_joint": "joint_attack"}
REQUIRED_HEXSETS = ("allied_edge_roads", "west_edge", "gray")
UNIT_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{3,}$")


class _S(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


# ------------------------------------------------------------------------------ units
class Unit(_S, kw_only=True):
    id: str                    # order-notation name, lower case, no spaces: "superga", "10pz-a"
    name: str                  # display name: "Superga", "10th Panzer (A)"
    side: str                  # "allied" | "axis"
    nationality: str           # "british" | "us" | "french" | "german" | "italian"
    type: str                  # "infantry" | "armor" | "support"
    support: str = ""          # "" | "leader" | "air" | "kampfgruppe" | "combat_team"
    drc: int
    th: int = 0                # 0 for support units (n/a)
    mp: int = 0                # 0 for support units (n/a)
    max_sp: int = 0            # 0 for support units
    gray_hex_entry: bool = False
    source: str
    # -- added by the data owner (all optional) --
    aliases: list[str] = []    # other printed names ("La Spezia", "Young Fascists")
    die_modifier: int = 0      # air support: its die is rolled separately with +1 (4.1)
    mp_bonus: int = 0          # leader: +1 MP to one moving unit per turn (4)
    clear_weather_only: bool = False   # air support: prohibited in poor weather (4, 7)

    @property
    def is_support(self) -> bool:
        return self.type == "support"


class UnitsFile(_S, kw_only=True):
    unit: list[Unit]


# ------------------------------------------------------------------------------ tables
class HexTerrain(_S, kw_only=True):
    prohibited: bool = False
    mp_infantry: int = 0
    mp_armor: int = 0
    attacker_dice: int = 0     # added to the attacker's dice (rough: -1)
    source: str


class HexsideTerrain(_S, kw_only=True):
    prohibited: bool = False
    mp: int = 0                # added to the hex cost when crossed (clear weather)
    mp_poor: int = 0           # added instead in poor weather
    attacker_dice: int = 0     # added to the attacker's dice when attacking across it
    defender_bonus_dice: int = 0   # separate dice for the defender, each +bonus_modifier
    bonus_modifier: int = 0
    blocks_zoc: bool = False
    source: str
    # -- added by the data owner (all optional) --
    supplants: list[str] = []  # hexside kinds this one replaces when both are present (bridge: river)
    bonus_hits_to_crosser: bool = False  # TEC bridge: SP loss goes to the unit attacking across


class PlaceTerrain(_S, kw_only=True):
    defender_dice: int = 0     # town: +1 die
    defender_bonus_dice: int = 0   # port: +1 separate die at +1
    bonus_modifier: int = 0
    source: str


class Weather(_S, kw_only=True):
    """Rule 7: roll 1d6, add the turn's weather_add (turns.toml); poor on poor_at or more."""
    die: int                   # sides of the die rolled (6)
    poor_at: int               # modified result at or above which the weather is poor (6)
    poor_mp: dict[str, int]    # MP change in poor weather by unit type: infantry -1, armor -2
    air_in_poor: bool          # False: air support prohibited throughout a poor-weather turn
    source: str


class SupplyEffect(_S, kw_only=True):
    mp: int                    # MP change when out of supply
    dice: int                  # DRC change when out of supply
    source: str


class SupplyRules(_S, kw_only=True):
    road_trace_hexes: int      # at most this many connected hexes from a unit to a road (10)
    minor_port_units: int      # each minor port supplies at most this many Axis units per turn
    source: str


class GrayRules(_S, kw_only=True):
    """Turns on which each side may use (enter, place in, trace supply to) the gray hexes."""
    axis_first: int
    axis_last: int
    allied_first: int
    allied_last: int
    source: str


class MovementRules(_S, kw_only=True):
    strategic_multiplier: int            # 9.3: twice the MP
    no_strategic_turns: list[int]        # errata 9.3/12.0: turns 1 and 2, both sides
    leader_mp_bonus: int                 # 4: +1 MP (added before strategic doubling)
    source: str


class EntryRules(_S, kw_only=True):
    """Where reinforcements and replacements are placed (8.1, 10). Each entry is a place name
    or ``hexset:<name>``; ``gray`` applies to units flagged ``gray_hex_entry``."""
    allied: list[str]
    german: list[str]
    italian: list[str]
    allied_fallback: list[str]           # 10: when Souk Ahras/Tebessa cannot trace to the edge
    gray: list[str]
    source: str


class Tables(_S, kw_only=True):
    hex: dict[str, HexTerrain]            # open, rough, sea, salt_marsh, gray ...
    hexside: dict[str, HexsideTerrain]    # river, bridge, escarpment, red_line, mareth ...
    place: dict[str, PlaceTerrain]        # town, port
    road_mp: int
    ezoc_mp: int
    rp_costs: dict[str, int]              # step_infantry, step_armor, unit_infantry, ...
    source: str
    # -- added by the data owner; optional in the struct, required by the loader --
    weather: Weather | None = None
    out_of_supply: dict[str, SupplyEffect] = {}   # "infantry", "armor"
    supply: SupplyRules | None = None
    gray: GrayRules | None = None
    movement: MovementRules | None = None
    entry: EntryRules | None = None


# ------------------------------------------------------------------------------ turns
class TurnRow(_S, kw_only=True):
    turn: int
    label: str
    allied_rp: int
    axis_rp: int
    weather_add: int
    allied: list[str] = []     # unit ids arriving
    axis: list[str] = []
    source: str


class TurnsFile(_S, kw_only=True):
    turn: list[TurnRow]


# ------------------------------------------------------------------------------ scenarios
class Placement(_S, kw_only=True):
    unit: str
    hex: str = ""              # fixed hex (place name or hex id), or
    zone: list[str] = []       # hexes/places around which the owner chooses ...
    radius: int = 0            # ... within this many hexes
    off_map: bool = False      # support units kept off map
    source: str


class Victory(_S, kw_only=True):
    kind: str                  # "campaign" | "race-to-tunis" | "none"
    text: str
    source: str
    # -- added by the data owner (all optional); place names, checked on load --
    allied_hold_all: list[str] = []        # Allies win at the end of an Axis turn holding all
    axis_hold_any: list[str] = []          # Axis win at the end of its turn holding any
    axis_hold_any_at_end: list[str] = []   # Axis win when the last turn ends holding any
    allied_hold_any_at_end: list[str] = []  # Allies win when the last turn ends holding any
    allied_near_at_end: list[str] = []     # ... or with an Allied unit within near_radius of any
    near_radius: int = 0
    otherwise: str = ""                    # "" | "axis" | "allied" | "draw": result at the end


class ScenarioFile(_S, kw_only=True):
    id: str
    title: str
    first_turn: int
    last_turn: int
    setup: list[Placement]
    victory: Victory
    source: str
    # -- added by the data owner; optional in the struct, required by the loader --
    control: dict[str, list[str]] = {}     # side -> supply bases it controls at start (HF-2-e)


# ------------------------------------------------------------------------------ loaded data
class HoldfastData:
    """Everything one Holdfast scenario needs, validated. Treat as read-only (it is cached).

    A plain class rather than a dataclass: importing dataclasses (and inspect with it) cost
    every Holdfast command a few milliseconds (docs/performance.md)."""

    __slots__ = ("map", "units", "tables", "turns", "scenario", "files", "_zones")

    def __init__(self, map: GameMap, units: dict[str, Unit], tables: Tables,
                 turns: dict[int, TurnRow], scenario: ScenarioFile,
                 files: tuple[Path, ...] = ()) -> None:
        self.map, self.units, self.tables, self.turns = map, units, tables, turns
        self.scenario, self.files = scenario, files
        self._zones: dict[int, tuple[str, ...]] = {}

    # -- map shortcuts ------------------------------------------------------------------
    @property
    def allied_edge_roads(self) -> list[str]:
        """The three northernmost map-edge road hexes in Algeria (8.1, 10)."""
        return list(self.map.hexsets["allied_edge_roads"])

    @property
    def west_edge(self) -> list[str]:
        """Every playable hex of the western map edge (10)."""
        return list(self.map.hexsets["west_edge"])

    @property
    def gray_hexes(self) -> list[str]:
        return list(self.map.hexsets["gray"])

    def hex_of(self, name_or_hex: str) -> str:
        """A place name, alias ("Souk Ahars") or hex id, resolved to a hex id."""
        return self.map.hex_of(name_or_hex)

    def hex_terrain(self, hex_id: str) -> HexTerrain:
        return self.tables.hex[self.map.terrain[hex_id]]

    def is_prohibited(self, hex_id: str) -> bool:
        return self.hex_terrain(hex_id).prohibited

    def hexside_prohibited(self, a: str, b: str) -> bool:
        return any(self.tables.hexside[k].prohibited for k in self.map.hexside(a, b))

    def supply_bases(self, side: str | None = None) -> list[str]:
        """Supply-base hexes: all of them, or those ``side`` controls at the start (HF-2-e)."""
        if side is None:
            return sorted(h for h in self.map.place_at if "supply_base" in self.map.place_kinds(h))
        if side not in SIDES:
            raise ScenarioError(f"unknown side {side!r}")
        return [self.hex_of(n) for n in self.scenario.control.get(side, [])]

    def ports(self) -> list[str]:
        return sorted(h for h in self.map.place_at if "port" in self.map.place_kinds(h))

    def minor_ports(self) -> list[str]:
        return sorted(h for h in self.map.place_at if "minor_port" in self.map.place_kinds(h))

    def setup_zone_hexes(self, placement: Placement) -> list[str]:
        """The legal hexes for a set-up placement: its fixed hex, or every playable non-gray
        hex within ``radius`` of any zone entry; [] for off-map units."""
        if placement.off_map:
            return []
        if placement.hex:
            return [self.hex_of(placement.hex)]
        key = id(placement)
        if key not in self._zones:
            centres = [self.hex_of(z) for z in placement.zone]
            out = sorted({h for c in centres for h in self.map.grid.within(c, placement.radius)
                          if not self.is_prohibited(h) and self.map.terrain[h] != "gray"})
            self._zones[key] = tuple(out)
        return list(self._zones[key])

    def entry_hexes(self, unit: Unit | str) -> list[str]:
        """Where a reinforcement or replacement of this unit may be placed (8.1, HF-G13)."""
        u = self.unit(unit) if isinstance(unit, str) else unit
        e = self.tables.entry
        assert e is not None
        names = e.gray if u.gray_hex_entry else (e.allied if u.side == "allied" else
                                                 e.german if u.nationality == "german" else e.italian)
        return _resolve_entries(self.map, names, "tables.toml")

    def allied_fallback_hexes(self) -> list[str]:
        assert self.tables.entry is not None
        return _resolve_entries(self.map, self.tables.entry.allied_fallback, "tables.toml")

    # -- units and turns -----------------------------------------------------------------
    def unit(self, unit_id: str) -> Unit:
        u = self.units.get(unit_id)
        if u is None:
            raise ScenarioError(f"unknown unit {unit_id!r}")
        return u

    def units_of(self, side: str) -> list[Unit]:
        return [u for u in self.units.values() if u.side == side]

    def turn(self, n: int) -> TurnRow:
        """The turn-record row for turn n; refuses a turn outside the scenario or without a row."""
        s = self.scenario
        if not s.first_turn <= n <= s.last_turn:
            raise ScenarioError(f"{s.id}: turn {n} is outside turns {s.first_turn}-{s.last_turn}")
        row = self.turns.get(n)
        if row is None:
            raise ScenarioError(f"turns.toml: no row for turn {n}")
        return row

    def rp(self, n: int, side: str) -> int:
        row = self.turn(n)
        return row.allied_rp if side == "allied" else row.axis_rp

    def reinforcements(self, n: int, side: str) -> list[Unit]:
        row = self.turn(n)
        return [self.units[i] for i in (row.allied if side == "allied" else row.axis)]

    def rp_cost(self, key: str, *, side: str = "", turn: int = 0) -> int:
        """An RP cost from tables.toml; Axis armor steps and units cost the surcharge more
        from the surcharge turn on (8.2, 12)."""
        c = self.tables.rp_costs
        if key not in c:
            raise ScenarioError(f"tables.toml: no RP cost {key!r}")
        v = c[key]
        if (side == "axis" and key in ("step_armor", "unit_armor")
                and turn >= c["axis_armor_surcharge_from_turn"]):
            v += c["axis_armor_surcharge"]
        return v

    def gray_usable(self, side: str, n: int) -> bool:
        g = self.tables.gray
        assert g is not None
        if side == "axis":
            return g.axis_first <= n <= g.axis_last
        return g.allied_first <= n <= g.allied_last


# ------------------------------------------------------------------------------ loading
def _decode(path: Path, typ: type):
    return read_toml(path, typ)


def _resolve_entries(m: GameMap, names: list[str], where: str) -> list[str]:
    out: list[str] = []
    for n in names:
        if n.startswith("hexset:"):
            hs = m.hexsets.get(n[len("hexset:"):])
            if hs is None:
                raise ScenarioError(f"{where}: unknown hexset {n!r}")
            out.extend(hs)
        else:
            try:
                out.append(m.hex_of(n))
            except ScenarioError:
                raise ScenarioError(f"{where}: unknown place or hex {n!r}") from None
    return list(dict.fromkeys(out))


def scenario_ids(root: Path = SCENARIO_DIR) -> dict[str, str]:
    """Every scenario shipped in ``root``: id -> title (kept per hash of the files and of
    this module, pbem.core.cache)."""
    import sys

    from pbem.core import cache

    paths = [p for p in sorted(Path(root).glob("*.toml")) if p.name not in SHARED_FILES]
    key = cache.files_key("holdfast-titles", paths, cache.source_hash(sys.modules[__name__]))
    return dict(cache.remember("holdfast-titles", key, lambda: _titles(paths)))


def _titles(paths: list[Path]) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in paths:
        s = _decode(p, ScenarioFile)
        out[s.id] = s.title
    return out


def data_files(scenario_id: str, root: Path = SCENARIO_DIR) -> list[Path]:
    """The files a scenario is built from: map, units, tables, turns, then the scenario."""
    root = Path(root)
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", scenario_id):
        raise ScenarioError(f"bad scenario id {scenario_id!r}")
    files = [root / f for f in SHARED_FILES] + [root / f"{scenario_id}.toml"]
    if not files[-1].is_file():
        raise ScenarioError(f"{files[-1]}: no such Holdfast scenario {scenario_id!r}")
    return files


@lru_cache(maxsize=32)
def load_holdfast(scenario_id: str, root: Path = SCENARIO_DIR) -> HoldfastData:
    """Load, validate and cache one scenario; ScenarioError (one line) on any problem.

    Built once per hash of its files and of the code that reads them (pbem.core.cache), and
    kept in memory for the process."""
    import sys

    from pbem.core import cache

    files = data_files(scenario_id, root)
    code = [cache.source_hash(sys.modules[m]) for m in (
        __name__, "pbem.core.mapdata", "pbem.core.hexgrid", "pbem.core.datafile")]
    key = cache.files_key("holdfast-data", files, scenario_id, str(root), *code)
    data = cache.remember("holdfast-data", key, lambda: _build(scenario_id, files))
    data.map.cache_key = key         # the map's drawing is kept per this hash (svgmap)
    return data


def _build(scenario_id: str, files: list[Path]) -> HoldfastData:
    map_p, units_p, tables_p, turns_p, scen_p = files
    tables = _decode(tables_p, Tables)
    _check_tables(tables, tables_p)
    gmap = load_map(map_p,
                    hex_terrains=frozenset(tables.hex),
                    hexside_kinds=frozenset(tables.hexside),
                    place_kinds=frozenset(tables.place),
                    road_kinds=ROAD_KINDS)
    _check_map(gmap, tables, map_p)
    units = _check_units(_decode(units_p, UnitsFile), units_p)
    turns = _check_turns(_decode(turns_p, TurnsFile), units, turns_p)
    scen = _decode(scen_p, ScenarioFile)
    _check_entries(gmap, tables, tables_p)
    _check_scenario(scen, scenario_id, gmap, tables, units, turns, scen_p)
    return HoldfastData(map=gmap, units=units, tables=tables, turns=turns, scenario=scen,
                        files=(map_p, units_p, tables_p, turns_p, scen_p))


# ------------------------------------------------------------------------------ checks
def _check_tables(t: Tables, path: Path) -> None:
    check_source(f"{path}: tables", t.source)
    for group, rows in (("hex", t.hex), ("hexside", t.hexside), ("place", t.place),
                        ("out_of_supply", t.out_of_supply)):
        for k, row in rows.items():
            check_source(f"{path}: {group}.{k}", row.source)
    for k, row in t.hex.items():
        if not row.prohibited and (row.mp_infantry <= 0 or row.mp_armor <= 0):
            raise ScenarioError(f"{path}: hex.{k}: a playable terrain needs mp_infantry and mp_armor > 0")
    for k, row in t.hexside.items():
        for s in row.supplants:
            if s not in t.hexside:
                raise ScenarioError(f"{path}: hexside.{k}: supplants unknown kind {s!r}")
    for k in PLACE_KINDS:
        if k not in t.place:
            raise ScenarioError(f"{path}: no place row for {k!r}")
    for k in t.place:
        if k not in PLACE_KINDS:
            raise ScenarioError(f"{path}: unknown place kind {k!r}")
    for k in REQUIRED_RP_COSTS:
        if k not in t.rp_costs:
            raise ScenarioError(f"{path}: rp_costs has no {k!r}")
    for alias, key in RP_COST_ALIASES.items():
        if alias in t.rp_costs and t.rp_costs[alias] != t.rp_costs[key]:
            raise ScenarioError(f"{path}: rp_costs {alias!r} and {key!r} disagree")
        t.rp_costs[alias] = t.rp_costs[key]
    for k, v in t.rp_costs.items():
        if v < 0:
            raise ScenarioError(f"{path}: rp_costs {k!r} is negative")
    if t.road_mp <= 0 or t.ezoc_mp <= 0:
        raise ScenarioError(f"{path}: road_mp and ezoc_mp must be > 0")
    for name in ("weather", "supply", "gray", "movement", "entry"):
        v = getattr(t, name)
        if v is None:
            raise ScenarioError(f"{path}: missing table [{name}]")
        check_source(f"{path}: {name}", v.source)
    for k in ("infantry", "armor"):
        if k not in t.out_of_supply:
            raise ScenarioError(f"{path}: out_of_supply has no {k!r} row")
    assert t.weather is not None
    for k in ("infantry", "armor"):
        if k not in t.weather.poor_mp:
            raise ScenarioError(f"{path}: weather.poor_mp has no {k!r}")


def _check_map(m: GameMap, t: Tables, path: Path) -> None:
    for name in REQUIRED_HEXSETS:
        if name not in m.hexsets:
            raise ScenarioError(f"{path}: missing hexset {name!r}")
    first = m.grid.first_col
    roads = m.road_hexes("road")
    edge = m.hexsets["allied_edge_roads"]
    if len(edge) != 3:
        raise ScenarioError(f"{path}: hexset 'allied_edge_roads' must hold exactly 3 hexes, not {len(edge)}")
    for h in edge:
        if m.grid.parse(h)[0] != first or h not in roads:
            raise ScenarioError(f"{path}: allied_edge_roads hex {h} is not a road hex of the first column")
    for h in m.hexsets["west_edge"]:
        if m.grid.parse(h)[0] != first or t.hex[m.terrain[h]].prohibited:
            raise ScenarioError(f"{path}: west_edge hex {h} is not a playable hex of the first column")
    gray = set(m.hexsets["gray"])
    terrain_gray = {h for h, k in m.terrain.items() if k == "gray"}
    if gray != terrain_gray:
        raise ScenarioError(f"{path}: hexset 'gray' {sorted(gray)} differs from the gray-terrain hexes {sorted(terrain_gray)}")
    for pair in m.roads.get("road", {}):
        for h in pair:
            if t.hex[m.terrain[h]].prohibited:
                raise ScenarioError(f"{path}: road hex {h} is {m.terrain[h]} (prohibited)")
    for h, ps in m.place_at.items():
        if t.hex[m.terrain[h]].prohibited:
            raise ScenarioError(f"{path}: place {ps[0].name!r} is on {m.terrain[h]} hex {h}")
        kinds = m.place_kinds(h)
        if "supply_base" in kinds and h not in roads:
            raise ScenarioError(f"{path}: supply base {ps[0].name!r} ({h}) is not on a road")
        if "port" in kinds and not any(m.terrain[n] == "sea" for n in m.grid.neighbours(h)):
            raise ScenarioError(f"{path}: port {ps[0].name!r} ({h}) is not next to a sea hex")
        if "minor_port" in kinds and not {"port", "supply_base"} <= kinds:
            raise ScenarioError(f"{path}: minor port {ps[0].name!r} must also be a port and a supply base")


def _check_units(f: UnitsFile, path: Path) -> dict[str, Unit]:
    units: dict[str, Unit] = {}
    names: set[str] = set()
    for u in f.unit:
        where = f"{path}: unit {u.id!r}"
        check_source(where, u.source)
        if not UNIT_ID_RE.match(u.id):
            raise ScenarioError(f"{where}: id must be lower case letters, digits or '-', at least 4 characters")
        if u.id in units:
            raise ScenarioError(f"{where}: id is used twice")
        for n in [u.name, *u.aliases]:
            if n.casefold() in names:
                raise ScenarioError(f"{where}: name {n!r} is used twice")
            names.add(n.casefold())
        if u.side not in SIDES:
            raise ScenarioError(f"{where}: side {u.side!r} is not one of {', '.join(SIDES)}")
        if u.nationality not in NATIONALITIES[u.side]:
            raise ScenarioError(f"{where}: nationality {u.nationality!r} is not one of "
                                f"{', '.join(NATIONALITIES[u.side])} for side {u.side!r}")
        if u.type not in UNIT_TYPES:
            raise ScenarioError(f"{where}: type {u.type!r} is not one of {', '.join(UNIT_TYPES)}")
        if u.drc < 1:
            raise ScenarioError(f"{where}: drc must be at least 1")
        if u.type == "support":
            if u.support not in SUPPORT_KINDS:
                raise ScenarioError(f"{where}: support kind {u.support!r} is not one of {', '.join(SUPPORT_KINDS)}")
            if u.th or u.mp or u.max_sp or u.gray_hex_entry:
                raise ScenarioError(f"{where}: a support unit has no th, mp, max_sp or gray-hex entry")
        else:
            if u.support:
                raise ScenarioError(f"{where}: support kind {u.support!r} on a non-support unit")
            if not (2 <= u.th <= 6) or u.mp < 1 or not (1 <= u.max_sp <= 4):
                raise ScenarioError(f"{where}: missing values (th 2-6, mp >= 1 and max_sp 1-4 are required; "
                                    f"got th {u.th}, mp {u.mp}, max_sp {u.max_sp})")
            if u.die_modifier or u.mp_bonus or u.clear_weather_only:
                raise ScenarioError(f"{where}: die_modifier, mp_bonus and clear_weather_only are for support units")
        units[u.id] = u
    return units


def _check_turns(f: TurnsFile, units: dict[str, Unit], path: Path) -> dict[int, TurnRow]:
    turns: dict[int, TurnRow] = {}
    seen: dict[str, int] = {}
    for row in f.turn:
        where = f"{path}: turn {row.turn}"
        check_source(where, row.source)
        if row.turn < 1:
            raise ScenarioError(f"{where}: turn numbers start at 1")
        if row.turn in turns:
            raise ScenarioError(f"{where}: row given twice")
        if not row.label.strip():
            raise ScenarioError(f"{where}: empty label")
        if row.allied_rp < 0 or row.axis_rp < 0:
            raise ScenarioError(f"{where}: negative RP")
        for side, ids in (("allied", row.allied), ("axis", row.axis)):
            for uid in ids:
                u = units.get(uid)
                if u is None:
                    raise ScenarioError(f"{where}: unknown unit {uid!r}")
                if u.side != side:
                    raise ScenarioError(f"{where}: unit {uid!r} is {u.side}, listed with the {side} reinforcements")
                if uid in seen:
                    raise ScenarioError(f"{where}: unit {uid!r} is scheduled twice (also turn {seen[uid]})")
                seen[uid] = row.turn
        turns[row.turn] = row
    return turns


def _check_entries(m: GameMap, t: Tables, path: Path) -> None:
    e = t.entry
    assert e is not None
    for names in (e.allied, e.german, e.italian, e.allied_fallback, e.gray):
        if not names:
            raise ScenarioError(f"{path}: entry: an entry list is empty")
        _resolve_entries(m, names, str(path))


def _check_scenario(s: ScenarioFile, scenario_id: str, m: GameMap, t: Tables,
                    units: dict[str, Unit], turns: dict[int, TurnRow], path: Path) -> None:
    check_source(f"{path}: scenario", s.source)
    check_source(f"{path}: victory", s.victory.source)
    if s.id != scenario_id:
        raise ScenarioError(f"{path}: id {s.id!r} does not match the file name {scenario_id!r}")
    if not 1 <= s.first_turn <= s.last_turn:
        raise ScenarioError(f"{path}: bad turn range {s.first_turn}-{s.last_turn}")
    for n in range(s.first_turn, s.last_turn + 1):
        if n not in turns:
            raise ScenarioError(f"{path}: turns.toml has no row for turn {n} (turns {s.first_turn}-{s.last_turn} are played)")

    def place(where: str, name: str) -> str:
        try:
            return m.hex_of(name)
        except ScenarioError:
            raise ScenarioError(f"{where}: unknown place or hex {name!r}") from None

    scheduled = {uid: row.turn for row in turns.values() for uid in (*row.allied, *row.axis)}
    placed: set[str] = set()
    for p in s.setup:
        where = f"{path}: setup {p.unit!r}"
        check_source(where, p.source)
        u = units.get(p.unit)
        if u is None:
            raise ScenarioError(f"{where}: unknown unit")
        if p.unit in placed:
            raise ScenarioError(f"{where}: unit is set up twice")
        placed.add(p.unit)
        if p.unit in scheduled and scheduled[p.unit] >= s.first_turn:
            raise ScenarioError(f"{where}: unit is also scheduled to arrive on turn {scheduled[p.unit]}")
        modes = sum([bool(p.hex), bool(p.zone), p.off_map])
        if modes != 1:
            raise ScenarioError(f"{where}: give exactly one of hex, zone or off_map")
        if u.is_support != p.off_map:
            raise ScenarioError(f"{where}: support units (only) are set up off map")
        if p.radius < 0 or (p.radius and not p.zone):
            raise ScenarioError(f"{where}: radius needs a zone and must be >= 0")
        for name in ([p.hex] if p.hex else p.zone):
            h = place(where, name)
            kind = m.terrain[h]
            if t.hex[kind].prohibited or kind == "gray":
                label = h if name == h else f"{h} ({name})"
                raise ScenarioError(f"{where}: hex {label} is {kind}, not a legal set-up hex")
    v = s.victory
    if v.kind not in VICTORY_KINDS:
        raise ScenarioError(f"{path}: victory kind {v.kind!r} is not one of {', '.join(VICTORY_KINDS)}")
    if v.otherwise not in ("", "axis", "allied", "draw"):
        raise ScenarioError(f"{path}: victory otherwise {v.otherwise!r} is not axis, allied or draw")
    for names in (v.allied_hold_all, v.axis_hold_any, v.axis_hold_any_at_end,
                  v.allied_hold_any_at_end, v.allied_near_at_end):
        for n in names:
            place(f"{path}: victory", n)
    if not s.control:
        raise ScenarioError(f"{path}: missing [control] (supply bases held at start, HF-2-e)")
    bases = {h for h in m.place_at if "supply_base" in m.place_kinds(h)}
    held: dict[str, str] = {}
    for side, names in s.control.items():
        if side not in SIDES:
            raise ScenarioError(f"{path}: control: unknown side {side!r}")
        for n in names:
            h = place(f"{path}: control", n)
            if h not in bases:
                raise ScenarioError(f"{path}: control: {n!r} is not a supply base")
            if h in held:
                raise ScenarioError(f"{path}: control: {n!r} is given to both sides")
            held[h] = side
    if set(held) != bases:
        missing = sorted(m.place_name(h) or h for h in bases - set(held))
        raise ScenarioError(f"{path}: control: no side holds {', '.join(missing)}")
