"""Scenario data access for the engine: the loaded HoldfastData plus derived lookups."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pbem.core.errors import ScenarioError

RP_KEYS = ("step_infantry", "step_armor", "unit_infantry", "unit_armor", "activate_move",
           "attack", "joint_attack", "axis_armor_surcharge_from_turn", "axis_armor_surcharge")
TABLES = ("weather", "supply", "gray", "movement", "entry")

_REGISTERED: dict[str, Any] = {}
_NONE: frozenset[str] = frozenset()


def register_data(scenario_id: str, data: Any) -> None:
    """Make a HoldfastData-like object available under a scenario id (tests, tools)."""
    _REGISTERED[scenario_id] = data
    _world.cache_clear()


def world(scenario_id: str) -> "World":
    """The World of a scenario id: registered data first, else the shipped scenario files."""
    return _world(scenario_id)


@lru_cache(maxsize=16)
def _world(scenario_id: str) -> "World":
    data = _REGISTERED.get(scenario_id)
    if data is None:
        from pbem.games.holdfast import scenario as sc
        loader = getattr(sc, "load_holdfast", None)
        if loader is None:
            raise ScenarioError("the Holdfast scenario loader is not available")
        data = loader(scenario_id)
        key = getattr(data.map, "cache_key", None)
        if isinstance(key, str):
            return _cached_world(scenario_id, data, key)
    return World(scenario_id, data)


# World attributes that are the loaded data itself (or per-process memos), not derived from it
_SHARED = ("data", "map", "grid", "units", "tables", "turns", "scenario", "memo")


def _cached_world(scenario_id: str, data: Any, data_key: str) -> "World":
    """The World of shipped scenario data, its derived facts built once per hash of the data
    files and of the code that derives them (pbem.core.cache)."""
    import sys

    from pbem.core import cache

    def build() -> dict[str, Any]:
        w = World(scenario_id, data)
        return {k: v for k, v in w.__dict__.items() if k not in _SHARED}

    code = [cache.source_hash(sys.modules[m])
            for m in (__name__, "pbem.core.hexgrid", "pbem.core.mapdata")]
    world_key = cache.key_of("holdfast-world", data_key, scenario_id, *code)
    derived = cache.remember("holdfast-world", world_key, build)
    w = World.__new__(World)
    w.__dict__.update(derived)
    w.cache_key = world_key          # what is derived from this world is kept per this hash
    w.data, w.map, w.grid = data, data.map, data.map.grid
    w.units, w.tables, w.turns, w.scenario = (UnitSpecs(data.units), data.tables, data.turns,
                                              data.scenario)
    w.memo = {}
    return w


STANDIN_PREFIX = "?"   # stand-in enemy blocks of standin.py: "?axis-3" (never a unit id)


class UnitSpecs(dict):
    """The scenario's unit specs by id. A stand-in id ("?axis-3", see standin.py) is answered
    with the generic block of that side without being stored, so iterating and `in` see only
    the scenario's units; the order notation cannot name a stand-in id."""

    def __missing__(self, key: str) -> Any:
        if not (isinstance(key, str) and key.startswith(STANDIN_PREFIX)):
            raise KeyError(key)
        side = key[len(STANDIN_PREFIX):].rsplit("-", 1)[0]
        generic = self.__dict__.setdefault("_generic", {})
        spec = generic.get(side)
        if spec is None:
            from pbem.games.holdfast.standin import generic_spec
            spec = generic[side] = generic_spec(self, side)
        return spec


class World:
    """Static facts of one scenario: map, units, tables, turn rows and derived hex sets."""

    def __init__(self, scenario_id: str, data: Any) -> None:
        self.id = scenario_id
        self.data = data
        self.map = data.map
        self.grid = data.map.grid
        self.units = UnitSpecs(data.units)
        self.tables = data.tables
        self.turns = data.turns
        self.scenario = data.scenario
        self.memo: dict[str, dict] = {}   # see cached(): memoised derived data, no game state
        self._validate()
        t = self.tables
        # HF-2-e: the supply bases each side controls at the start
        self.home_bases = {s: [self.hex_of(n) for n in self.scenario.control[s]]
                           for s in ("allied", "axis")}
        self.entry = {k: self.resolve_list(getattr(t.entry, k))
                      for k in ("allied", "german", "italian", "allied_fallback", "gray")}
        self.allied_entry = [h for h in self.entry["allied"] if h in self.home_bases["allied"]]
        # HF-10-i: the inland Allied bases whose loss of the road to the edge moves entry
        self.inland_fallback = [h for h in self.allied_entry if self.base_kind(h) == "inland"]
        self.edge_roads = list(self.map.hexsets["allied_edge_roads"])
        self.edge_set = frozenset(self.edge_roads)
        self.west_edge = list(self.entry["allied_fallback"])
        self.gray = {h for h, ter in self.map.terrain.items() if ter == "gray"}
        self.gray |= set(self.map.hexsets.get("gray", [])) | set(self.entry["gray"])
        self.leg = t.supply.road_trace_hexes
        if t.supply.minor_port_units != 1:
            raise ScenarioError("tables: the engine supports minor_port_units = 1 only")
        self.road_adj: dict[str, set[str]] = {}
        for pairs in self.map.roads.values():
            for a, b in pairs:
                self.road_adj.setdefault(a, set()).add(b)
                self.road_adj.setdefault(b, set()).add(a)
        self.prohibited = {h for h, t in self.map.terrain.items() if self.hex_terrain(t).prohibited}
        self._derive()

    def _derive(self) -> None:
        """Precompute the static graphs: neighbours, hexside kinds, passable, ZOC and road edges."""
        hexes = list(self.map.terrain)
        self.nbrs: dict[str, tuple[str, ...]] = {h: self.grid.neighbours(h) for h in hexes}
        self.axial: dict[str, tuple[int, int]] = {h: self.grid.axial(h) for h in hexes}
        self.hex_ids = frozenset(h for h in hexes if self.grid.is_hex(h))   # resolve's fast path
        self._kinds: dict[tuple[str, str], frozenset[str]] = {}
        for (a, b), raw in self.map.hexsides.items():
            kinds = set(raw)
            for k in list(kinds):
                kinds -= set(getattr(self.tables.hexside[k], "supplants", ()) or ())
            self._kinds[(a, b)] = self._kinds[(b, a)] = frozenset(kinds)
        hs = self.tables.hexside
        self.prohibited_sides = frozenset(
            p for p, ks in self._kinds.items() if any(hs[k].prohibited for k in ks))
        self.zoc_stop = zoc_stop = frozenset(p for p, ks in self._kinds.items()
                             if any(hs[k].prohibited or hs[k].blocks_zoc for k in ks))
        ps = self.prohibited_sides
        # passable: not into prohibited terrain, not across a prohibited hexside
        self.pass_nbrs = {h: tuple(n for n in ns if n not in self.prohibited and (h, n) not in ps)
                          for h, ns in self.nbrs.items()}
        self.zoc_nbrs = {h: tuple(n for n in ns if n not in self.prohibited
                                  and (h, n) not in zoc_stop) for h, ns in self.nbrs.items()}
        # roads whose hexside may be crossed (a road across a red line carries nothing)
        self.road_nbrs = {h: tuple(sorted(n for n in ns if (h, n) not in ps))
                          for h, ns in self.road_adj.items()}
        self.setup_zones: dict[str, frozenset[str]] = {}
        for p in self.scenario.setup:
            if p.zone and p.unit not in self.setup_zones:
                centres = [self.hex_of(z) for z in p.zone]
                self.setup_zones[p.unit] = frozenset(
                    h for h in hexes if h not in self.prohibited and h not in self.gray
                    and any(self.dist(c, h) <= p.radius for c in centres))

    # Kinds whose entries are large get a lower ceiling than their callers ask for: a supply
    # network (about 30 KB) is looked up again almost only while the same file is resolved
    # (over whole games every hit was among the last 8 positions), and 256 of them made an
    # audit's memory grow with the game (docs/performance.md).
    MEMO_CEILING: dict[str, int] = {"net": 32}

    def cached(self, kind: str, key: object, make: Any, limit: int = 512) -> Any:
        """Memoise a pure function of this scenario and key, per kind (oldest dropped first)."""
        memo = self.memo.get(kind)
        if memo is None:
            memo = self.memo[kind] = {}
        else:
            try:
                return memo[key]
            except KeyError:
                pass
        value = memo[key] = make()
        limit = min(limit, self.MEMO_CEILING.get(kind, limit))
        if len(memo) > limit:
            for old in list(memo)[: limit // 4]:
                del memo[old]
        return value

    def dist(self, a: str, b: str) -> int:
        """Number of hex steps between a and b (precomputed axial coordinates)."""
        q1, r1 = self.axial[a]
        q2, r2 = self.axial[b]
        dq, dr = q1 - q2, r1 - r2
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def _validate(self) -> None:
        t = self.tables
        for k in TABLES:
            if getattr(t, k, None) is None:
                raise ScenarioError(f"tables: the [{k}] table is missing")
        for k in ("infantry", "armor"):
            if k not in t.out_of_supply:
                raise ScenarioError(f"tables: out_of_supply lacks {k!r}")
        for s in ("allied", "axis"):
            if s not in self.scenario.control:
                raise ScenarioError(f"scenario {self.scenario.id}: no start control for {s}")
        for k in RP_KEYS:
            if k not in t.rp_costs:
                raise ScenarioError(f"tables: rp_costs lacks {k!r}")
        for terr in set(self.map.terrain.values()):
            if terr not in t.hex:
                raise ScenarioError(f"tables: no terrain row for hex terrain {terr!r}")
        for kinds in self.map.hexsides.values():
            for k in kinds:
                if k not in t.hexside:
                    raise ScenarioError(f"tables: no terrain row for hexside {k!r}")
        if "allied_edge_roads" not in self.map.hexsets:
            raise ScenarioError("map: hexset 'allied_edge_roads' is missing")
        sc = self.scenario
        for turn in range(sc.first_turn, sc.last_turn + 1):
            if turn not in self.turns:
                raise ScenarioError(f"turns: no row for turn {turn}")
            row = self.turns[turn]
            for uid in [*row.allied, *row.axis]:
                if uid not in self.units:
                    raise ScenarioError(f"turns: turn {turn} schedules unknown unit {uid!r}")
        for p in sc.setup:
            if p.unit not in self.units:
                raise ScenarioError(f"scenario {sc.id}: set-up names unknown unit {p.unit!r}")

    def hex_of(self, name: str) -> str:
        """Hex id of a place name or hex id."""
        return self.map.hex_of(name)

    def resolve_list(self, names: list[str]) -> list[str]:
        """Hex ids of a list of place names, hex ids and 'hexset:NAME' entries."""
        out: list[str] = []
        for n in names:
            if n.startswith("hexset:"):
                out += self.map.hexsets[n.split(":", 1)[1]]
            else:
                out.append(self.hex_of(n))
        return out

    def resolve(self, token: str) -> str:
        """Hex id of an order token: a hex id or a place name (underscores for spaces)."""
        if token in self.hex_ids:                    # what map.hex_of answers first
            return token
        known = self.memo.get("resolve")
        if known is not None and token in known:     # no closure to build
            return known[token]

        def make() -> str:
            try:
                return self.map.hex_of(token.replace("_", " "))
            except ScenarioError:
                return ""
        return self.cached("resolve", token, make, 4096)

    def hex_terrain(self, terrain: str) -> Any:
        """The terrain row of a hex terrain name."""
        return self.tables.hex[terrain]

    def terrain(self, hex_id: str) -> str:
        """Hex terrain of a hex."""
        return self.map.terrain[hex_id]

    def side_kinds(self, a: str, b: str) -> frozenset[str]:
        """Hexside kinds between a and b; a bridge supplants the river it crosses."""
        return self._kinds.get((a, b), _NONE)

    def side_prohibited(self, a: str, b: str) -> bool:
        """True if the hexside between a and b may not be crossed (red line ...)."""
        return (a, b) in self.prohibited_sides

    def zoc_blocked(self, a: str, b: str) -> bool:
        """True if no ZOC extends from a into b (prohibited hex or hexside, blocks_zoc)."""
        return b in self.prohibited or (a, b) in self.zoc_stop

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        """Adjacent on-map hexes."""
        return self.nbrs[hex_id]

    def adjacent(self, a: str, b: str) -> bool:
        """True if hexes a and b share a hexside."""
        return b in self.nbrs.get(a, ())

    def is_road(self, a: str, b: str) -> bool:
        """True if a road of any kind runs from a to b."""
        return b in self.road_adj.get(a, ())

    def gray_open(self, side: str, turn: int) -> bool:
        """HF-8.1-h: gray hexes are playable by the Axis on turns 1-8 and the Allies on 9-16."""
        g = self.tables.gray
        if side == "axis":
            return g.axis_first <= turn <= g.axis_last
        return g.allied_first <= turn <= g.allied_last

    def base_kind(self, hex_id: str) -> str:
        """'port', 'minor_port' or 'inland' for a supply base hex."""
        return self.cached("base-kind", hex_id, lambda: self._base_kind(hex_id))

    def _base_kind(self, hex_id: str) -> str:
        kinds = self.map.place_kinds(hex_id)
        if "minor_port" in kinds:
            return "minor_port"
        if "port" in kinds:
            return "port"
        return "inland"

    def poor_weather(self, roll: int, add: int) -> bool:
        """HF-7-a: poor weather on a modified roll at or above poor_at."""
        return roll + add >= self.tables.weather.poor_at

    def label(self, hex_id: str) -> str:
        """A hex id with its place name, for messages."""
        n = self.map.place_name(hex_id)
        return f"{hex_id} ({n})" if n else hex_id

    def rp_cost(self, key: str, side: str = "", turn: int = 0) -> int:
        """An RP cost from the tables, with the Axis armor surcharge (HF-8.2-b) where due."""
        c = self.tables.rp_costs
        v = c[key]
        if (side == "axis" and key in ("step_armor", "unit_armor")
                and turn >= c["axis_armor_surcharge_from_turn"]):
            v += c["axis_armor_surcharge"]
        return v

    def poor_mp(self, unit_type: str) -> int:
        """MP change in poor weather (HF-7-d), negative."""
        return self.tables.weather.poor_mp.get(unit_type, 0)

    def oos(self, unit_type: str) -> Any:
        """Out-of-supply effects row (HF-10-a): mp and dice changes."""
        return self.tables.out_of_supply[unit_type]

    def strategic_allowed(self, turn: int) -> bool:
        """ERR-HF-9.3: no strategic movement on the listed turns."""
        return turn not in self.tables.movement.no_strategic_turns

    def air_banned(self, unit_id: str, weather: str) -> bool:
        """HF-4-d/HF-7-c: air support is prohibited in poor weather."""
        spec = self.units[unit_id]
        if weather != "poor":
            return False
        return spec.support == "air" and (not self.tables.weather.air_in_poor
                                          or getattr(spec, "clear_weather_only", False))
