"""Kasserine scenario data: typed structs for ``scenarios/kasserine/*.toml``, loader and validation.

Files (TOML, decoded strictly; unknown keys are errors):

- ``map.toml``        the map (docs/map-format.md), read with :func:`pbem.core.mapdata.load_map`
- ``tec.toml``        the Terrain Effects Chart (KAS-G3)
- ``units.toml``      the counter manifest (KAS-G2)
- ``crt.toml``        the Combat Results Table (KAS-G1), read with :func:`.crt.load_crt`
- ``<scenario>.toml`` one file per scenario (``historical``): turn track, support fire, set-up,
  reinforcements, victory (KAS-G4)

Every group of values carries ``source`` ("printed ..." or "reconstructed: basis"); units also
carry ``basis`` for their reconstructed values. ``load_kasserine`` validates everything and
raises a one-line :class:`ScenarioError` naming the file and the problem. See docs/kasserine-data.md.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgspec

from pbem.core.datafile import read_toml
from pbem.core.errors import ScenarioError
from pbem.core.mapdata import GameMap, check_source, load_map
from pbem.games.kasserine.crt import Crt, load_crt

SCENARIO_DIR = Path(__file__).resolve().parents[3] / "scenarios" / "kasserine"

SIDES: tuple[str, ...] = ("axis", "us")
NATIONALITIES: dict[str, frozenset[str]] = {
    "axis": frozenset({"german", "italian"}),          # 11.1: "Axis" = German or Italian
    "us": frozenset({"us", "british", "french"}),      # 11.1: "Allies" = US or other Allied
}
#: Sbeitla as printed: 2706 in 11.1, 2714 in 18.0 (KAS-G5). The option must pick one of them.
SBEITLA_PRINTED: tuple[str, ...] = ("2706", "2714")
SBEITLA_TOKEN = "sbeitla"
TRIGGER_KINDS: frozenset[str] = frozenset({"turn", "axis_enters", "axis_captures"})
ARRIVALS: frozenset[str] = frozenset({"on_turn", "after_trigger", "next_game_turn"})
#: Hex sets the rules need from every Kasserine map.
REQUIRED_HEXSETS: tuple[str, ...] = (
    "prohibited", "us_edge", "axis_edge", "us_supply", "axis_supply", "fortified_box")
FORTIFIED_BOXES = 3          # 14.3: "the three US minefield hexes"
FIXED_FILES: tuple[str, ...] = ("map", "tec", "units", "crt")
_UNIT_ID = re.compile(r"^[a-z][a-z0-9-]*$")


class _S(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


# -- tec.toml ---------------------------------------------------------------------------------
class HexTerrain(_S, kw_only=True):
    leg: float | None = None          # MP to enter for a leg unit
    mobile: float | None = None       # MP to enter for a mobile unit
    crt_row: str = ""
    prohibited: bool = False
    source: str


class HexsideTerrain(_S, kw_only=True):
    leg: float = 0                    # MP added when crossed
    mobile: float = 0
    sides: list[str] = []             # sides paying this cost; [] = every side
    axis_crossing: str = ""           # special crossing rule for Axis units (14.2)
    crt_row: str = ""
    crt_attackers: list[str] = []     # sides whose attacks across it use crt_row; [] = both
    crt_only_if_all_attackers_across: bool = False   # 8.2.2 river rule
    derived_from: list[str] = []      # e.g. bridge = river + road, never drawn on the map
    prohibited: bool = False
    source: str


class PlaceTerrain(_S, kw_only=True):
    mp_add: float = 0
    crt_row: str = ""
    source: str


class HexsetEffect(_S, kw_only=True):
    crt_row: str = ""
    crt_sides: list[str] = []         # defending sides that get crt_row
    us_ignores_retreat: bool = False
    no_ezoc_to_ezoc_entry: bool = False
    source: str


class RoadCosts(_S, kw_only=True):
    road: float
    trail: float
    source: str


class ZocRules(_S, kw_only=True):
    leg_enter: str
    leg_ezoc_to_ezoc: str
    mobile_enter_extra: str
    mobile_must_stop: bool
    commando_ignores: bool
    source: str


class Tec(_S, kw_only=True):
    source: str
    hex: dict[str, HexTerrain]
    hexside: dict[str, HexsideTerrain] = {}
    place: dict[str, PlaceTerrain] = {}
    hexset: dict[str, HexsetEffect] = {}
    road: RoadCosts
    zoc: ZocRules


# -- units.toml -------------------------------------------------------------------------------
class Unit(_S, kw_only=True):
    id: str                           # order-notation name: lower case, letters, digits, '-'
    name: str
    side: str                         # "axis" | "us"
    nationality: str                  # german | italian | us | british | french
    type: str                         # armor, mech_infantry, infantry, recon, antitank, ...
    size: str = ""                    # "II" battalion, "III" regiment, "I" company
    attack: int | None = None
    defense: int | None = None
    movement: int | None = None
    steps: int | None = None          # 1 (no reduced side) or 2
    reduced: list[int] | None = None  # [attack, defense, movement] of the back, two-step only
    mobile: bool | None = None
    no_zoc: bool = False              # black hexagon (6.0)
    commando: bool = False            # 13.1 US Rangers
    engineer: bool = False            # 16.0 US engineers
    source: str                       # what is printed (values, where it enters)
    basis: str                        # what is reconstructed, and from what

    @property
    def values(self) -> tuple[int, int, int]:
        """Full-strength (attack, defense, movement)."""
        return (self.attack or 0, self.defense or 0, self.movement or 0)

    @property
    def reduced_values(self) -> tuple[int, int, int] | None:
        """Reduced-side (attack, defense, movement), or None for a one-step unit."""
        return tuple(self.reduced) if self.reduced else None  # type: ignore[return-value]


class UnitsFile(_S, kw_only=True):
    unit: list[Unit]


# -- <scenario>.toml --------------------------------------------------------------------------
class Options(_S, kw_only=True):
    sbeitla_hex: str
    source: str


class SupportFire(_S, kw_only=True):
    axis_pool: list[int]
    us_pool: list[int]
    source: str


class TurnRow(_S, kw_only=True):
    turn: int
    label: str = ""
    axis: int | None = None
    us: int | None = None
    source: str


class Setup(_S, kw_only=True):
    unit: str
    hex: str
    source: str


class Trigger(_S, kw_only=True):
    kind: str
    turn: int = 1                     # earliest turn of arrival
    hexes: list[str] = []             # hex ids or "sbeitla"
    hexset: str = ""                  # map hexset; "{sbeitla}" is replaced by the chosen hex


class Arrival(_S, kw_only=True):
    unit: str
    entry: list[str]                  # hex ids or map hexsets; several = "or"


class Reinforcement(_S, kw_only=True):
    id: str
    side: str
    title: str
    trigger: Trigger
    arrival: str
    movement_phase_only: bool = False
    source: str
    units: list[Arrival]


class Victory(_S, kw_only=True):
    objectives: list[str]
    axis_wins_with: int
    draw_with: int
    source: str


class ScenarioFile(_S, kw_only=True):
    id: str
    title: str
    first_player: str
    first_turn: int
    last_turn: int
    axis_setup: str = "none"
    turn_length: str = ""             # 2.4 (not printed: KAS-2.4)
    map_scale: str = ""
    source: str
    options: Options
    support_fire: SupportFire
    turn: list[TurnRow] = []
    setup: list[Setup] = []
    reinforcement: list[Reinforcement] = []
    victory: Victory


# -- the loaded data --------------------------------------------------------------------------
class KasserineData:
    """Everything a Kasserine game needs, validated, with lookups. Treat it as read-only."""

    def __init__(self, *, map: GameMap, tec: Tec, units: dict[str, Unit], crt: Crt,
                 scenario: ScenarioFile, sbeitla_hex: str, files: dict[str, Path]) -> None:
        self.map = map
        self.tec = tec
        self.units = units
        self.crt = crt
        self.scenario = scenario
        self.files = files
        hs = map.hexsets
        #: Each map hexset as a set, for membership tests (the lists can be long).
        self.hexset: dict[str, frozenset[str]] = {name: frozenset(xs) for name, xs in hs.items()}
        #: Every map hex -> grid.neighbours(hex), computed with the data (kept in its cache).
        self.neighbours: dict[str, tuple[str, ...]] = {
            h: map.grid.neighbours(h) for h in map.grid.all_hexes()}
        self.prohibited: frozenset[str] = frozenset(hs["prohibited"])
        self.supply: dict[str, frozenset[str]] = {s: frozenset(hs[f"{s}_supply"]) for s in SIDES}
        self.edges: dict[str, frozenset[str]] = {s: frozenset(hs[f"{s}_edge"]) for s in SIDES}
        #: Each side -> every map hex -> hexes to the side's nearest friendly map edge or supply
        #: symbol, where a retreat heads for (8.3, KAS-G15).
        grid = map.grid
        self.edge_distance: dict[str, dict[str, int]] = {
            s: {h: min(grid.distance(h, g) for g in self.edges[s] | self.supply[s])
                for h in map.terrain} for s in SIDES}
        self.fortified_boxes: frozenset[str] = frozenset(hs["fortified_box"])
        self.minefields: frozenset[tuple[str, str]] = frozenset(
            k for k, kinds in map.hexsides.items() if "minefield" in kinds)
        roads = {k for r in map.roads.values() for k in r}
        self.bridges: frozenset[tuple[str, str]] = frozenset(
            k for k, kinds in map.hexsides.items() if "river" in kinds and k in roads)
        self.work_out_steps()
        #: Every unit -> (its full values, its reduced ones or None for a one-step unit).
        self.strengths: dict[str, tuple[tuple[int, int, int], tuple[int, int, int] | None]] = {
            uid: (u.values, u.reduced_values if u.steps == 2 else None)
            for uid, u in units.items()}
        #: Every unit -> its label in the log, (on any other step count, depleted: on one
        #: step): "id a-d-m", with " depleted" on a two-step unit's reduced side.
        self.labels: dict[str, tuple[str, str]] = {
            uid: (_label(uid, full), _label(uid, full if reduced is None else reduced,
                                           " depleted" if units[uid].steps == 2 else ""))
            for uid, (full, reduced) in self.strengths.items()}
        #: Ids of the units that exert no ZOC (6.0), and of the US engineers (16.0).
        self.no_zoc: frozenset[str] = frozenset(uid for uid, u in units.items() if u.no_zoc)
        self.engineers: tuple[str, ...] = tuple(uid for uid, u in units.items() if u.engineer)
        self.allotments: dict[int, dict[str, int]] = {
            t.turn: {"axis": t.axis or 0, "us": t.us or 0} for t in scenario.turn}
        self.pools: dict[str, tuple[int, ...]] = {
            "axis": tuple(sorted(scenario.support_fire.axis_pool)),
            "us": tuple(sorted(scenario.support_fire.us_pool))}
        self.setup: dict[str, str] = {s.unit: s.hex for s in scenario.setup}
        self.reinforcements: dict[str, Reinforcement] = {r.id: r for r in scenario.reinforcement}
        self.arrival_of: dict[str, tuple[Reinforcement, Arrival]] = {
            a.unit: (r, a) for r in scenario.reinforcement for a in r.units}
        #: entry_hexes of every arrival's entry list, worked out once.
        self._entries: dict[tuple[str, ...], tuple[str, ...]] = {
            tuple(a.entry): tuple(self._expand_entry(a.entry)) for _, a in self.arrival_of.values()}
        self._choose_sbeitla(sbeitla_hex)

    def _choose_sbeitla(self, sbeitla_hex: str) -> None:
        """Set the Sbeitla hex and the facts that depend on it (KAS-G5)."""
        self.sbeitla_hex = sbeitla_hex
        scenario = self.scenario
        self.objectives: tuple[str, ...] = tuple(self.resolve_hex(h) for h in scenario.victory.objectives)
        self.objective_hexes: frozenset[str] = frozenset(self.objectives)
        #: (group, the hexes its trigger watches) of every event-triggered group, in file order.
        self.events: tuple[tuple[Reinforcement, frozenset[str]], ...] = tuple(
            (r, self.trigger_hexes(r)) for r in scenario.reinforcement if r.trigger.kind != "turn")
        #: Every hex some event trigger watches.
        self.event_hexes: frozenset[str] = frozenset().union(*(hs for _, hs in self.events))
        #: Every hex some event trigger watches -> the groups watching it, in file order.
        self.watchers: dict[str, tuple[Reinforcement, ...]] = {}
        groups: dict[tuple[str, ...], tuple[Reinforcement, ...]] = {}   # one tuple per value
        for h in sorted(self.event_hexes):
            g = tuple(r for r, hs in self.events if h in hs)
            self.watchers[h] = groups.setdefault(tuple(r.id for r in g), g)
        #: The hexes whose entry victory.entered records: objectives and event hexes.
        self.watched: frozenset[str] = self.event_hexes | self.objective_hexes
        other = [h for h in SBEITLA_PRINTED if h != sbeitla_hex]
        #: Choices the players must see and the game log must record before turn 1 (GAPS policy 2).
        self.warnings: tuple[str, ...] = (
            f"KAS-G5: Sbeitla is printed as 2706 (11.1) and 2714 (18.0); this game uses "
            f"{sbeitla_hex} (option sbeitla_hex; the other reading is {', '.join(other)})",)

    def work_out_steps(self) -> None:
        """Work out the step costs by terrain from the map and the TEC (kept with the data and
        in its cache). A copy of the data whose map or TEC differs must call this again
        (rulecases.variant_data does); the Sbeitla reading changes neither."""
        #: Every map hex -> half-MP to enter it by its terrain and places alone, (leg, mobile),
        #: None where it is prohibited.
        costs: dict[tuple[int | None, int | None], tuple[int | None, int | None]] = {}
        self.entry_cost: dict[str, tuple[int | None, int | None]] = {
            h: costs.setdefault(c, c) for h in self.map.terrain      # one tuple per value: a
            for c in [(self._half_mp(h, False), self._half_mp(h, True))]}   # smaller cache
        #: (a, b) -> (half-MP to enter b from a for an axis leg, axis mobile, us leg and us
        #: mobile unit (crossing_cost), a US minefield lies between), for both directions of
        #: every hexside a road, trail, bridge or hexside feature crosses; a step across any
        #: other hexside costs b's entry_cost and crosses no minefield.
        featured = ({k for r in self.map.roads.values() for k in r} | set(self.map.hexsides)
                    | set(self.bridges))
        steps: dict[tuple[int | bool | None, ...], tuple[int | bool | None, ...]] = {}
        self.crossing: dict[tuple[str, str], tuple[int | bool | None, ...]] = {}
        for x, y in sorted(featured):
            for a, b in ((x, y), (y, x)):
                c = (*(self.crossing_cost(s, m, a, b) for s in SIDES for m in (False, True)),
                     ((a, b) if a <= b else (b, a)) in self.minefields)
                self.crossing[(a, b)] = steps.setdefault(c, c)

    def crossing_cost(self, side: str, mobile: bool, a: str, b: str) -> int | None:
        """Half-MP for side's unit to enter b from a across their hexside: the chart, roads and
        every hexside feature (5.4, 14.1, 17.0); None if prohibited."""
        m = self.map
        if b in self.prohibited:
            return None
        along = False
        if m.road_between(a, b, "road"):
            cost, along = int(self.tec.road.road * 2), True             # 5.4.1
        elif m.road_between(a, b, "trail"):
            cost, along = int(self.tec.road.trail * 2), True            # 5.4.2
        else:
            entry = self.entry_cost[b][1 if mobile else 0]
            if entry is None:
                return None
            cost = entry
        for kind in self.hexside_kinds(a, b):
            t = self.tec.hexside.get(kind)
            if t is None or kind == "bridge":
                continue
            if along and kind != "minefield":    # 14.1 (exclusive) still costs on a road
                continue
            if t.prohibited:
                return None
            if t.sides and side not in t.sides:
                continue
            cost += int((t.mobile if mobile else t.leg) * 2)
        return cost

    def hexside_kinds(self, a: str, b: str) -> set[str]:
        """The hexside features between two adjacent hexes, with 'bridge' for a river crossed
        by a road."""
        key = (a, b) if a <= b else (b, a)             # GameMap.hexside's lookup, done here
        kinds = set(self.map.hexsides.get(key, ()))
        if key in self.bridges:
            kinds.add("bridge")
        return kinds

    def with_sbeitla(self, sbeitla_hex: str) -> KasserineData:
        """This data read with another Sbeitla hex: a new object sharing every fact that does
        not depend on it (the map's tables are not worked out again)."""
        data = copy.copy(self)
        data._choose_sbeitla(sbeitla_hex)
        return data

    def _half_mp(self, hex_id: str, mobile: bool) -> int | None:
        """Half-MP to enter a hex by its terrain and places alone; None if prohibited (17.0)."""
        if hex_id in self.prohibited:
            return None
        base = self.move_cost(hex_id, mobile)
        return None if base is None else int(base * 2)

    # -- lookups -------------------------------------------------------------------------------
    @property
    def first_player(self) -> str:
        return self.scenario.first_player

    @property
    def last_turn(self) -> int:
        return self.scenario.last_turn

    def resolve_hex(self, token: str) -> str:
        """A hex id, or the token "sbeitla" resolved to the chosen Sbeitla hex."""
        return self.sbeitla_hex if token == SBEITLA_TOKEN else token

    def entry_hexes(self, entry: list[str]) -> list[str]:
        """Every hex a reinforcement may enter on (hex ids and hexsets, in order, no repeats)."""
        known = self._entries.get(tuple(entry))
        return list(known) if known is not None else self._expand_entry(entry)

    def _expand_entry(self, entry: list[str]) -> list[str]:
        """entry_hexes worked out from the map's hexsets."""
        out: list[str] = []
        for e in entry:
            for h in self.map.hexsets.get(e, [e]):
                if h not in out:
                    out.append(h)
        return out

    def trigger_hexes(self, reinforcement: Reinforcement | str) -> frozenset[str]:
        """The hexes an event trigger watches (empty for a plain turn trigger)."""
        r = self.reinforcements[reinforcement] if isinstance(reinforcement, str) else reinforcement
        t = r.trigger
        if t.kind == "axis_enters":
            return self.hexset[t.hexset.replace("{sbeitla}", self.sbeitla_hex)]
        return frozenset(self.resolve_hex(h) for h in t.hexes)

    def allotment(self, turn: int, side: str) -> int:
        """Support-fire markers a side receives on a turn (KAS-2.2-b); ScenarioError if none."""
        try:
            return self.allotments[turn][side]
        except KeyError:
            raise ScenarioError(f"{self.files['scenario']}: no support-fire allotment "
                                f"for turn {turn} side {side!r}") from None

    def turn_markers(self, turn: int, side: str) -> tuple[int, ...]:
        """The values of the markers a side takes on a turn: its allotment, lowest first (7.1)."""
        return self.pools[side][: self.allotment(turn, side)]

    def move_cost(self, hex_id: str, mobile: bool) -> float | None:
        """MP to enter a hex by its terrain and places (no hexside, road or ZOC); None if prohibited."""
        t = self.tec.hex[self.map.terrain[hex_id]]
        if t.prohibited or hex_id in self.prohibited:
            return None
        base = t.mobile if mobile else t.leg
        return float(base or 0) + sum(self.tec.place[k].mp_add for k in self.map.place_kinds(hex_id))

    def hex_crt_rows(self, hex_id: str, defender_side: str = "us") -> set[str]:
        """CRT rows the defender's hex offers (terrain, towns, boxes); the best one applies (8.2.2)."""
        rows = {self.tec.hex[self.map.terrain[hex_id]].crt_row}
        rows |= {self.tec.place[k].crt_row for k in self.map.place_kinds(hex_id)}
        for name, eff in self.tec.hexset.items():
            if hex_id in self.hexset.get(name, ()) and (
                    not eff.crt_sides or defender_side in eff.crt_sides):
                rows.add(eff.crt_row)
        rows.discard("")
        return rows


def _label(uid: str, values: tuple[int, int, int], dep: str = "") -> str:
    a, d, m = values
    return f"{uid} {a}-{d}-{m}{dep}"


# -- loading ----------------------------------------------------------------------------------
def scenario_ids(root: Path = SCENARIO_DIR) -> list[str]:
    """The scenario files in a Kasserine data folder ("historical", ...)."""
    return sorted(p.stem for p in Path(root).glob("*.toml") if p.stem not in FIXED_FILES)


def data_files(scenario_id: str = "historical", root: Path = SCENARIO_DIR) -> dict[str, Path]:
    """The files a scenario is built from: map, tec, units, crt and scenario."""
    root = Path(root)
    if scenario_id not in scenario_ids(root):
        known = ", ".join(scenario_ids(root)) or "none"
        raise ScenarioError(f"{root}: unknown Kasserine scenario {scenario_id!r} (known: {known})")
    files = {name: root / f"{name}.toml" for name in FIXED_FILES}
    files["scenario"] = root / f"{scenario_id}.toml"
    return files


def _decode(path: Path, typ: type) -> object:
    return read_toml(path, typ)


def load_kasserine(scenario_id: str = "historical", root: Path = SCENARIO_DIR,
                   sbeitla_hex: str | None = None) -> KasserineData:
    """Load and validate a Kasserine scenario; cached. ``sbeitla_hex`` overrides the file's option."""
    return _load(scenario_id, Path(root).resolve(), sbeitla_hex)


@lru_cache(maxsize=8)
def _load(scenario_id: str, root: Path, sbeitla_override: str | None) -> KasserineData:
    base = _load_files(scenario_id, root)
    if sbeitla_override is None or sbeitla_override == base.sbeitla_hex:
        return base                  # the file's own reading: one load, one object
    _check_scenario(base.files["scenario"], base.scenario, sbeitla_override, base.map, base.units)
    return base.with_sbeitla(sbeitla_override)


@lru_cache(maxsize=8)
def _load_files(scenario_id: str, root: Path) -> KasserineData:
    """The scenario as its files give it, validated; built once per hash of the files
    (pbem.core.cache) and kept in memory for the process."""
    import sys

    from pbem.core import cache

    files = data_files(scenario_id, root)
    code = [cache.source_hash(sys.modules[m]) for m in (
        __name__, "pbem.games.kasserine.crt", "pbem.core.mapdata", "pbem.core.hexgrid",
        "pbem.core.datafile")]
    key = cache.files_key("kasserine-data", [files[k] for k in sorted(files)], scenario_id,
                          str(root), *code)
    data = cache.remember("kasserine-data", key, lambda: _build(files))
    data.map.cache_key = key         # the map's drawing is kept per this hash (svgmap)
    return data


def _build(files: dict[str, Path]) -> KasserineData:
    crt = load_crt(files["crt"])
    tec = _load_tec(files["tec"], crt)
    gmap = _load_map(files["map"], tec)
    _check_map(files["map"], gmap, tec)
    units = _load_units(files["units"])
    scen = _decode(files["scenario"], ScenarioFile)
    assert isinstance(scen, ScenarioFile)
    sbeitla = scen.options.sbeitla_hex
    _check_scenario(files["scenario"], scen, sbeitla, gmap, units)
    data = KasserineData(map=gmap, tec=tec, units=units, crt=crt, scenario=scen,
                         sbeitla_hex=sbeitla, files=files)
    _share_strings(data, {}, {})
    return data


def _share_strings(obj: Any, strings: dict[str, str], done: dict[int, Any]) -> Any:
    """obj with each string replaced by the first equal one met (dicts, lists, sets, structs
    and pbem objects updated in place, tuples and frozensets rebuilt), so that the data's
    cache pickles and unpickles every distinct string once: the files and the tables built
    from them repeat each hex id many times (about 10,600 strings, 1,760 distinct)."""
    t = type(obj)
    if t is str:
        return strings.setdefault(obj, obj)
    if obj is None or t in (int, float, bool):
        return obj
    if id(obj) in done:
        return done[id(obj)]
    done[id(obj)] = obj
    if t is dict:
        items = [(_share_strings(k, strings, done), _share_strings(v, strings, done))
                 for k, v in obj.items()]
        obj.clear()
        obj.update(items)
    elif t is list:
        obj[:] = [_share_strings(v, strings, done) for v in obj]
    elif t is set:
        items = [_share_strings(v, strings, done) for v in obj]
        obj.clear()
        obj.update(items)
    elif t is tuple or t is frozenset:
        done[id(obj)] = t([_share_strings(v, strings, done) for v in obj])
    elif isinstance(obj, msgspec.Struct):
        for f in obj.__struct_fields__:
            msgspec.structs.force_setattr(obj, f, _share_strings(getattr(obj, f), strings, done))
    elif hasattr(obj, "__dict__") and t.__module__.startswith("pbem."):
        for k, v in list(vars(obj).items()):
            setattr(obj, k, _share_strings(v, strings, done))
    return done[id(obj)]


def _load_tec(path: Path, crt: Crt) -> Tec:
    tec = _decode(path, Tec)
    assert isinstance(tec, Tec)
    check_source(f"{path}: top level", tec.source)

    def row_ok(where: str, row: str) -> None:
        if row and row not in crt.rows:
            raise ScenarioError(f"{where}: CRT row {row!r} is not defined in {crt.path}")

    for name, t in tec.hex.items():
        where = f"{path}: hex terrain {name!r}"
        check_source(where, t.source)
        if t.prohibited:
            continue
        if t.leg is None or t.mobile is None:
            raise ScenarioError(f"{where}: movement cost for leg and mobile units is required")
        if not t.crt_row:
            raise ScenarioError(f"{where}: has no CRT row (KAS-G3)")
        row_ok(where, t.crt_row)
    for name, s in tec.hexside.items():
        where = f"{path}: hexside {name!r}"
        check_source(where, s.source)
        row_ok(where, s.crt_row)
        for side in [*s.sides, *s.crt_attackers]:
            if side not in SIDES:
                raise ScenarioError(f"{where}: unknown side {side!r}")
    for name, p in tec.place.items():
        where = f"{path}: place kind {name!r}"
        check_source(where, p.source)
        row_ok(where, p.crt_row)
    for name, e in tec.hexset.items():
        where = f"{path}: hexset effect {name!r}"
        check_source(where, e.source)
        row_ok(where, e.crt_row)
    check_source(f"{path}: [road]", tec.road.source)
    check_source(f"{path}: [zoc]", tec.zoc.source)
    return tec


def _load_map(path: Path, tec: Tec) -> GameMap:
    try:
        return load_map(path, hex_terrains=frozenset(tec.hex),
                        hexside_kinds=frozenset(tec.hexside),
                        road_kinds=frozenset({"road", "trail"}),
                        place_kinds=frozenset(tec.place))
    except ScenarioError as e:
        msg = str(e)
        if "unknown terrain" in msg or "unknown hexside kind" in msg or "unknown kind" in msg:
            msg += " (no TEC row for it in tec.toml)"
        raise ScenarioError(msg) from None


def _check_map(path: Path, m: GameMap, tec: Tec) -> None:
    for name in REQUIRED_HEXSETS:
        if name not in m.hexsets:
            raise ScenarioError(f"{path}: hexset {name!r} is missing")
    for name in tec.hexset:
        if name not in m.hexsets:
            raise ScenarioError(f"{path}: hexset {name!r} (used by tec.toml) is missing")
    gray = {h for h, t in m.terrain.items() if tec.hex[t].prohibited}
    listed = set(m.hexsets["prohibited"])
    if gray != listed:
        diff = sorted(gray ^ listed)[:5]
        raise ScenarioError(f"{path}: hexset 'prohibited' does not match the prohibited terrain "
                            f"(differs at {', '.join(diff)})")
    for side in SIDES:
        for h in m.hexsets[f"{side}_supply"]:
            if "supply_source" not in m.place_kinds(h):
                raise ScenarioError(f"{path}: {side} supply hex {h} has no place of kind 'supply_source'")
        for name in (f"{side}_supply", f"{side}_edge"):
            for h in m.hexsets[name]:
                if h in listed:
                    raise ScenarioError(f"{path}: hexset {name!r}: hex {h} is prohibited")
    boxes = m.hexsets["fortified_box"]
    if len(boxes) != FORTIFIED_BOXES:
        raise ScenarioError(f"{path}: hexset 'fortified_box' has {len(boxes)} hexes, "
                            f"14.3 prints {FORTIFIED_BOXES}")
    for b in boxes:
        if not any("minefield" in m.hexside(b, n) for n in m.grid.neighbours(b)):
            raise ScenarioError(f"{path}: fortified box {b} has no minefield hexside (14.3)")


def _load_units(path: Path) -> dict[str, Unit]:
    data = _decode(path, UnitsFile)
    assert isinstance(data, UnitsFile)
    units: dict[str, Unit] = {}
    for u in data.unit:
        where = f"{path}: unit {u.id!r}"
        if not _UNIT_ID.match(u.id):
            raise ScenarioError(f"{where}: id must be lower case letters, digits and '-'")
        if u.id in units:
            raise ScenarioError(f"{where}: defined twice")
        check_source(where, u.source)
        check_source(f"{where} basis", u.basis)
        if u.side not in SIDES:
            raise ScenarioError(f"{where}: unknown side {u.side!r} (use {' or '.join(SIDES)})")
        if u.nationality not in NATIONALITIES[u.side]:
            raise ScenarioError(f"{where}: nationality {u.nationality!r} is not on side {u.side!r}")
        for field in ("attack", "defense", "movement", "steps", "mobile"):
            if getattr(u, field) is None:
                raise ScenarioError(f"{where}: has no {field} value (KAS-G2)")
        if min(u.values) < 0 or u.movement == 0:
            raise ScenarioError(f"{where}: values {u.values} are out of range")
        if u.steps == 2:
            if u.reduced is None or len(u.reduced) != 3:
                raise ScenarioError(f"{where}: a two-step unit needs reduced = [attack, defense, movement]")
            if any(r < 0 or r > f for r, f in zip(u.reduced, u.values)):
                raise ScenarioError(f"{where}: reduced side {u.reduced} exceeds the full side")
        elif u.steps == 1:
            if u.reduced is not None:
                raise ScenarioError(f"{where}: a one-step unit has no reduced side")
        else:
            raise ScenarioError(f"{where}: steps must be 1 or 2, not {u.steps}")
        if u.commando and u.side != "us":
            raise ScenarioError(f"{where}: only the US Rangers are commandos (13.1)")
        if u.engineer and u.side != "us":
            raise ScenarioError(f"{where}: only US units are engineers (16.0)")
        units[u.id] = u
    return units


def _check_scenario(path: Path, s: ScenarioFile, sbeitla: str, m: GameMap,
                    units: dict[str, Unit]) -> None:
    check_source(f"{path}: top level", s.source)
    check_source(f"{path}: [options]", s.options.source)
    check_source(f"{path}: [support_fire]", s.support_fire.source)
    check_source(f"{path}: [victory]", s.victory.source)
    if sbeitla not in SBEITLA_PRINTED:
        raise ScenarioError(f"{path}: option sbeitla_hex {sbeitla!r} is not one of the printed "
                            f"Sbeitla hexes {' or '.join(SBEITLA_PRINTED)} (KAS-G5)")
    if s.first_player not in SIDES:
        raise ScenarioError(f"{path}: first_player {s.first_player!r} is not a side")
    if not s.turn_length or not s.map_scale:
        raise ScenarioError(f"{path}: turn_length and map_scale are required (2.4)")
    if s.first_turn < 1 or s.last_turn < s.first_turn:
        raise ScenarioError(f"{path}: turns {s.first_turn}..{s.last_turn} are not a valid range")
    prohibited = set(m.hexsets["prohibited"])

    def hex_ok(where: str, h: str) -> str:
        h = sbeitla if h == SBEITLA_TOKEN else h
        if not m.grid.is_hex(h):
            raise ScenarioError(f"{where}: unknown hex {h!r}")
        if h in prohibited:
            raise ScenarioError(f"{where}: hex {h} is prohibited (17.0)")
        return h

    # turn track and support fire (KAS-G4, KAS-2.2-a/b, KAS-7.1-a/b)
    pools = {"axis": s.support_fire.axis_pool, "us": s.support_fire.us_pool}
    for side, pool in pools.items():
        if not pool or any(v < 1 for v in pool):
            raise ScenarioError(f"{path}: {side} support-fire pool must hold markers of value +1 or more")
    rows: dict[int, TurnRow] = {}
    for t in s.turn:
        where = f"{path}: turn {t.turn}"
        check_source(where, t.source)
        if not s.first_turn <= t.turn <= s.last_turn:
            raise ScenarioError(f"{where}: outside the game ({s.first_turn}..{s.last_turn})")
        if t.turn in rows:
            raise ScenarioError(f"{where}: listed twice")
        for side in SIDES:
            n = getattr(t, side)
            if n is None:
                raise ScenarioError(f"{where}: no {side} support-fire allotment")
            if not 0 <= n <= len(pools[side]):
                raise ScenarioError(f"{where}: {side} allotment {n} exceeds the pool of {len(pools[side])}")
        rows[t.turn] = t
    for turn in range(s.first_turn, s.last_turn + 1):
        if turn not in rows:
            raise ScenarioError(f"{path}: no support-fire allotment for turn {turn}")

    placed: dict[str, str] = {}

    def place(where: str, uid: str, side: str | None) -> None:
        if uid not in units:
            raise ScenarioError(f"{where}: unknown unit {uid!r}")
        if side is not None and units[uid].side != side:
            raise ScenarioError(f"{where}: unit {uid!r} is on side {units[uid].side!r}")
        if uid in placed:
            raise ScenarioError(f"{where}: unit {uid!r} is already placed by {placed[uid]}")
        placed[uid] = where.split(": ", 1)[1]

    occupied: set[str] = set()
    for su in s.setup:
        where = f"{path}: setup of {su.unit!r}"
        check_source(where, su.source)
        place(where, su.unit, None)
        if s.axis_setup == "none" and units[su.unit].side == "axis":
            raise ScenarioError(f"{where}: no Axis unit begins on the map (19.0)")
        h = hex_ok(where, su.hex)
        if h in occupied:
            raise ScenarioError(f"{where}: hex {h} already holds a unit (5.3)")
        occupied.add(h)

    ids: set[str] = set()
    for r in s.reinforcement:
        where = f"{path}: reinforcement {r.id!r}"
        check_source(where, r.source)
        if r.id in ids:
            raise ScenarioError(f"{where}: defined twice")
        ids.add(r.id)
        if r.side not in SIDES:
            raise ScenarioError(f"{where}: unknown side {r.side!r}")
        if r.arrival not in ARRIVALS:
            raise ScenarioError(f"{where}: unknown arrival {r.arrival!r}")
        t = r.trigger
        if t.kind not in TRIGGER_KINDS:
            raise ScenarioError(f"{where}: unknown trigger kind {t.kind!r}")
        if not s.first_turn <= t.turn <= s.last_turn:
            raise ScenarioError(f"{where}: trigger turn {t.turn} is outside the game")
        if t.kind == "axis_enters":
            if not t.hexset:
                raise ScenarioError(f"{where}: an axis_enters trigger needs a hexset")
            for choice in SBEITLA_PRINTED:       # both readings of KAS-G5 must be playable
                name = t.hexset.replace("{sbeitla}", choice)
                if name not in m.hexsets:
                    raise ScenarioError(f"{where}: trigger hexset {name!r} is not in the map")
        elif t.kind == "axis_captures":
            if not t.hexes:
                raise ScenarioError(f"{where}: an axis_captures trigger needs hexes")
            for h in t.hexes:
                hex_ok(where, h)
        if not r.units:
            raise ScenarioError(f"{where}: lists no units")
        for a in r.units:
            place(f"{where}", a.unit, r.side)
            if not a.entry:
                raise ScenarioError(f"{where}: unit {a.unit!r} has no entry hex")
            for e in a.entry:
                if e in m.hexsets:
                    if not m.hexsets[e]:
                        raise ScenarioError(f"{where}: entry hexset {e!r} is empty")
                    for h in m.hexsets[e]:
                        hex_ok(f"{where} entry {e!r}", h)
                elif m.grid.is_hex(e):
                    hex_ok(where, e)
                else:
                    raise ScenarioError(f"{where}: unit {a.unit!r}: unknown hex or hexset {e!r}")

    for uid in units:
        if uid not in placed:
            raise ScenarioError(f"{path}: unit {uid!r} is neither set up nor a reinforcement")

    v = s.victory
    if not v.objectives:
        raise ScenarioError(f"{path}: victory lists no objective hexes")
    seen: set[str] = set()
    for h in v.objectives:
        hh = hex_ok(f"{path}: victory objective", h)
        if hh in seen:
            raise ScenarioError(f"{path}: victory objective {hh} is listed twice")
        seen.add(hh)
    if not 0 < v.draw_with < v.axis_wins_with <= len(v.objectives):
        raise ScenarioError(f"{path}: victory thresholds draw {v.draw_with} / win "
                            f"{v.axis_wins_with} do not fit {len(v.objectives)} objectives")


__all__ = [
    "SCENARIO_DIR", "SBEITLA_PRINTED", "KasserineData", "Unit", "Tec", "ScenarioFile",
    "Reinforcement", "Trigger", "Arrival", "Setup", "TurnRow", "scenario_ids", "data_files",
    "load_kasserine",
]
