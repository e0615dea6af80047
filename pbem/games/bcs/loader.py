"""Read and check every Baptism By Fire data file; refusals are one line naming file, entry, rule."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pbem.core.datafile import read_toml
from pbem.core.errors import ScenarioError
from pbem.core.mapdata import GameMap, check_source, load_map
from pbem.games.bcs.amendments import check_amendments, lookup
from pbem.games.bcs.data import (AmendmentsFile, Arrival, ChartsFile, CountersFile, DiceTable,
                                 Disagreement, Erratum, Formation, HQ, Matrix, OoaFile, Placement,
                                 Scenario, TecFile, TerrainRow, Trains, Unit, Zone)

DATA_DIR = Path(__file__).resolve().parents[3] / "scenarios" / "bcs"
SIDES = ("allied", "axis")
MCLASSES = ("tac", "truck", "leg")
AV_CLASSES = ("offensive", "limited", "light", "stand_off")
PLACE_KINDS = frozenset({"town", "city", "village", "pass", "hill", "crossroads", "victory",
                         "vp_either", "vp_tebessa", "vp_lekef", "supply_source"})
VP_TAGS = {"vp_either": "Either", "vp_tebessa": "Tebessa", "vp_lekef": "Le Kef"}
VP_PER_OBJECTIVE = 14            # BbF 4.1: "of 14 possible"
ENTRY_AREAS = "ABCDEFGH"
# BbF 1.9: counter colours by nationality and which player controls them.
NATION_SIDE = {"German": "axis", "Italian": "axis", "US": "allied", "British": "allied",
               "French": "allied"}
_COST = re.compile(r"^(P|ot|all|STOP|\+?[0-9]+(/[0-9]+)?)$")


STANDIN_MARK = "--standin"        # a stand-in counter's id: COUNTER--standinN (standin.py)


class UnitTable(dict):
    """Combat units by counter id. A hosted player's stand-in state (standin.py) holds copies of
    a counter it can see, ``ID--standinN``, in place of enemy units it cannot; such an id reads
    as the counter ``ID`` (never listed, never ``in`` the table)."""

    def __missing__(self, key: str) -> Unit:
        """The counter a stand-in id copies; KeyError for any other unknown id."""
        base, mark, _ = key.partition(STANDIN_MARK)
        if mark and base in self:
            return self[base]
        raise KeyError(key)


class BcsData:
    """Every checked data file of the game: counters, terrain, map, charts, arrivals, scenarios."""

    def __init__(self, root: Path, counters: CountersFile, tec: TecFile, game_map: GameMap,
                 charts: ChartsFile, ooa: OoaFile, scenarios: dict[str, Scenario],
                 problems: dict[str, list[str]]) -> None:
        self.root = root
        self.units: dict[str, Unit] = UnitTable({u.id: u for u in counters.unit})
        self.hqs: dict[str, HQ] = {h.id: h for h in counters.hq}
        self.trains: dict[str, Trains] = {t.id: t for t in counters.trains}
        self.formations: dict[str, Formation] = {f.id: f for f in counters.formation}
        self.markers = {m.id: m for m in counters.marker}
        self.terrain: dict[str, TerrainRow] = {t.id: t for t in tec.terrain}
        self.tec = tec
        self.game_map = game_map
        self.tables: dict[str, DiceTable] = {t.id: t for t in charts.table}
        self.matrices: dict[str, Matrix] = {m.id: m for m in charts.matrix}
        self.cells: dict[tuple[str, str, str], str] = {(c.chart, c.row, c.column): c.value
                                                        for c in charts.cell}
        self.modifiers = list(charts.modifier)
        self.ooa = ooa
        self.scenarios = scenarios
        self.problems = problems
        self.disagreements: dict[str, Disagreement] = {}   # BCS 1.3, from amendments.toml
        self.errata: dict[str, Erratum] = {}

    def lookup(self, path: str) -> Any:
        """The data value at an amendments path (``unit/72-ra-at/move/range``); KeyError if none."""
        return lookup(self, path)

    def counter_ids(self) -> set[str]:
        """Every counter id: units, HQs and Combat Trains."""
        return set(self.units) | set(self.hqs) | set(self.trains)

    def vp_hexes(self, objective: str) -> list[str]:
        """The VP hexes that count for an objective ('Tebessa' or 'Le Kef'), Either included."""
        want = {"Either", objective}
        return sorted(p.hex for p in self.game_map.data.place
                      if any(VP_TAGS.get(k) in want for k in p.kinds))

    def cell(self, chart: str, row: str, column: str) -> str:
        """One cell of a matrix chart."""
        return self.cells[(chart, row, column)]

    def roll(self, table: str, modified: int) -> str:
        """The result of a dice table for a modified roll (open rows cover the ends)."""
        for b in self.tables[table].rows:
            if (b.lo is None or modified >= b.lo) and (b.hi is None or modified <= b.hi):
                return b.result
        raise KeyError(f"{table}: no row for {modified}")

    def status(self, scenario: str) -> tuple[str, str]:
        """(status, reason with gap id) of a scenario: complete, or incomplete and why."""
        s = self.scenarios[scenario]
        if s.status == "complete":
            return "complete", ""
        return "incomplete", f"{s.reason} ({s.gap})"

    def check_playable(self, scenario: str) -> Scenario:
        """The scenario if its data is complete; ScenarioError with the reason and gap if not."""
        if scenario not in self.scenarios:
            raise ScenarioError(f"{self.root}: no BbF scenario {scenario!r} "
                                f"(have {', '.join(sorted(self.scenarios))})")
        st, why = self.status(scenario)
        if st != "complete":
            raise ScenarioError(f"{self.root / 'scenarios' / (scenario + '.toml')}: scenario "
                                f"{scenario} cannot be played from the seeds: {why}")
        return self.scenarios[scenario]


def _fail(path: Path | str, entry: str, problem: str, rule: str) -> ScenarioError:
    return ScenarioError(f"{path}: {entry}: {problem} (rule {rule})")


def _check_counters(path: Path, c: CountersFile) -> None:
    seen: set[str] = set()
    for kind, items in (("formation", c.formation), ("hq", c.hq), ("trains", c.trains),
                        ("unit", c.unit), ("marker", c.marker)):
        for it in items:
            where = f"{kind} {it.id!r}"
            check_source(f"{path}: {where}", it.source)
            if it.id in seen:
                raise _fail(path, where, "id used twice", "BBF-G1")
            seen.add(it.id)
    forms = {f.id: f for f in c.formation}
    hqs = {h.id: h for h in c.hq}
    trains = {t.id: t for t in c.trains}
    for f in c.formation:
        where = f"formation {f.id!r}"
        if f.side not in SIDES:
            raise _fail(path, where, f"unknown side {f.side!r}", "BBF-1.9")
        if f.hq not in hqs or hqs[f.hq].formation != f.id:
            raise _fail(path, where, f"HQ {f.hq!r} is not an HQ of this formation", "BCS-4.1")
        if f.trains not in trains or trains[f.trains].formation != f.id:
            raise _fail(path, where, f"Combat Trains {f.trains!r} are not this formation's",
                        "BCS-10.3")
    for h in [*c.hq, *c.trains]:
        if h.formation not in forms:
            raise _fail(path, f"{h.id!r}", f"unknown formation {h.formation!r}", "BCS-4.1")
    for u in c.unit:
        where = f"unit {u.id!r}"
        if u.side not in SIDES:
            raise _fail(path, where, f"unknown side {u.side!r}", "BBF-1.9")
        if u.independent and u.formation == "":
            pass                       # unassigned independent unit (9.5)
        elif u.formation not in forms:
            raise _fail(path, where, f"unknown formation {u.formation!r}", "BCS-4.1")
        elif forms[u.formation].side != u.side:
            raise _fail(path, where, "belongs to a formation of the other side", "BBF-1.9")
        if NATION_SIDE.get(u.nation) != u.side:
            raise _fail(path, where, f"a {u.nation} unit is not on the {u.side} side", "BBF-1.9")
        if not 0 <= u.ar <= 5:
            raise _fail(path, where, f"Action Rating {u.ar} is not 0-5", "BCS-1.2a-3")
        if u.steps < 1:
            raise _fail(path, where, "a unit has at least one step", "BCS-1.2a-3")
        for name, face in (("move", u.move), ("deployed", u.deployed)):
            if face is None:
                continue
            if face.mclass not in MCLASSES:
                raise _fail(path, where, f"{name} side: unknown movement class {face.mclass!r}",
                            "BCS-1.2a-2")
            if (face.av is None) != (face.av_class == ""):
                raise _fail(path, where, f"{name} side: an Armor Value needs its colour class "
                            f"and only an AV has one", "BCS-1.2c-7")
            if face.av_class and face.av_class not in AV_CLASSES:
                raise _fail(path, where, f"{name} side: unknown AV class {face.av_class!r}",
                            "BCS-1.2c-7")
            if face.range < 1 or face.ma < 0:
                raise _fail(path, where, f"{name} side: range and MA", "BCS-1.2a-3")
        if u.deployed is not None and u.deployed.ma >= u.move.ma:
            raise _fail(path, where, "the Deployed side has the lower MA", "BCS-1.2b-1")


def _check_tec(path: Path, t: TecFile) -> None:
    check_source(f"{path}", t.source)
    seen: set[str] = set()
    for r in t.terrain:
        where = f"terrain {r.id!r}"
        check_source(f"{path}: {where}", r.source)
        if r.id in seen:
            raise _fail(path, where, "defined twice", "BBF-G3")
        seen.add(r.id)
        if r.applies not in ("hex", "hexside", "road", "marker"):
            raise _fail(path, where, f"unknown kind {r.applies!r}", "BBF-G3")
        for col in ("leg", "tac", "truck", "rain_leg", "rain_tac", "rain_truck"):
            v = getattr(r, col)
            if not _COST.match(v):
                raise _fail(path, where, f"{col} cost {v!r} is missing or malformed", "BBF-G3")
        if r.combat not in ("yes", "no", "ot"):
            raise _fail(path, where, f"combat must be yes, no or ot, not {r.combat!r}", "BBF-G3")


def _check_table(path: Path, t: DiceTable) -> None:
    check_source(f"{path}: table {t.id!r}", t.source)
    covered: dict[int, int] = {}
    for i, b in enumerate(t.rows):
        lo = t.low if b.lo is None else b.lo
        hi = t.high if b.hi is None else b.hi
        if b.lo is None and i != 0 or b.hi is None and i != len(t.rows) - 1:
            raise _fail(path, f"table {t.id!r} row {i + 1}", "only the first row may be open "
                        "below and only the last open above", "BBF-G4")
        for r in range(lo, hi + 1):
            if r in covered:
                raise _fail(path, f"table {t.id!r}", f"roll {r} is in two rows", "BBF-G4")
            covered[r] = i
    for r in range(t.low, t.high + 1):
        if r not in covered:
            raise _fail(path, f"table {t.id!r}", f"missing chart cell for roll {r}", "BBF-G4")


def _check_charts(path: Path, c: ChartsFile) -> None:
    ids: set[str] = set()
    for t in c.table:
        if t.id in ids:
            raise _fail(path, f"table {t.id!r}", "defined twice", "BBF-G4")
        ids.add(t.id)
        _check_table(path, t)
    got: dict[tuple[str, str, str], int] = {}
    for cell in c.cell:
        key = (cell.chart, cell.row, cell.column)
        check_source(f"{path}: cell {key}", cell.source)
        if key in got:
            raise _fail(path, f"{cell.chart} [{cell.row} / {cell.column}]", "cell given twice",
                        "BBF-G5")
        got[key] = 1
    for m in c.matrix:
        check_source(f"{path}: matrix {m.id!r}", m.source)
        if m.id in ids:
            raise _fail(path, f"matrix {m.id!r}", "defined twice", "BBF-G5")
        ids.add(m.id)
        for r in m.rows:
            for col in m.columns:
                if (m.id, r, col) not in got:
                    raise _fail(path, f"{m.id} [{r} / {col}]", "missing chart cell", "BBF-G5")
    matrices = {m.id: m for m in c.matrix}
    for (chart, r, col) in got:
        m = matrices.get(chart)
        if m is None or r not in m.rows or col not in m.columns:
            raise _fail(path, f"{chart} [{r} / {col}]", "cell of no chart row or column",
                        "BBF-G5")
    for mod in c.modifier:
        check_source(f"{path}: modifier {mod.name!r}", mod.source)
        if mod.chart not in ids:
            raise _fail(path, f"modifier {mod.name!r}", f"unknown chart {mod.chart!r}", "BBF-G4")


def _check_map(path: str, gm: GameMap) -> None:
    tags: dict[str, int] = {"Either": 0, "Tebessa": 0, "Le Kef": 0}
    for p in gm.data.place:
        vp = [k for k in p.kinds if k in VP_TAGS]
        where = f"place {p.name!r} ({p.hex})"
        if "victory" in p.kinds and len(vp) != 1:
            raise _fail(path, where, "a victory hex needs exactly one objective tag "
                        "(vp_either, vp_tebessa or vp_lekef)", "BBF-4.1-a")
        if vp and "victory" not in p.kinds:
            raise _fail(path, where, "an objective tag on a hex that is not a victory hex",
                        "BBF-4.1-a")
        for k in vp:
            tags[VP_TAGS[k]] += 1
    for obj in ("Tebessa", "Le Kef"):
        n = tags["Either"] + tags[obj]
        if n != VP_PER_OBJECTIVE:
            raise _fail(path, f"victory hexes for {obj}", f"{n} apply, the rules count "
                        f"{VP_PER_OBJECTIVE}", "BBF-4.1-d")
    for name in [f"entry-{a}" for a in ENTRY_AREAS] + ["supply-allied", "supply-axis"]:
        if name not in gm.hexsets:
            raise _fail(path, f"hexset {name!r}", "missing", "BBF-G2")


def _entry_ok(data_map: GameMap, forms: dict[str, Formation], e: str) -> bool:
    if len(e) == 1 and e in ENTRY_AREAS:
        return True
    if e.startswith("hq:"):
        return e[3:] in forms
    if e.startswith("rule:"):
        return True
    return data_map.grid.is_hex(e)


def _check_arrival(path: Path, a: Arrival, i: int, calendar: list[str], counters: set[str],
                   markers: set[str], gm: GameMap, forms: dict[str, Formation]) -> None:
    where = f"arrival {i + 1} ({a.side}, {a.turn})"
    check_source(f"{path}: {where}", a.source)
    if a.side not in SIDES:
        raise _fail(path, where, f"unknown side {a.side!r}", a.rule)
    if a.turn not in calendar:
        raise _fail(path, where, f"turn {a.turn!r} is not in the calendar", a.rule)
    for c in [*a.counters, *a.support]:
        if c not in counters:
            raise _fail(path, where, f"arrival for a unit that does not exist: {c!r}", a.rule)
    for m in a.markers:
        if m not in markers:
            raise _fail(path, where, f"unknown marker {m!r}", a.rule)
    for e in a.entry:
        if not _entry_ok(gm, forms, e):
            raise _fail(path, where, f"unknown entry {e!r}", a.rule)


def _sheets_of_entry(gm: GameMap, e: str) -> set[str]:
    if len(e) == 1:
        return {h[0] for h in gm.hexsets.get(f"entry-{e}", [])}
    if gm.grid.is_hex(e):
        return {e[0]}
    return set()


def zone_hexes(gm: GameMap, zone: Zone, area: list[str]) -> list[str]:
    """The hexes of a set-up zone inside the playing area, sorted: at or within X hexes of the
    location (1.4A), the hexes listed, or every hex between the corners' columns and rows, the
    boundary lines included (1.4D)."""
    if zone.of:
        out = gm.grid.within(zone.of, zone.within or 0)
    elif zone.box:
        (s1, c1, r1), (_, c2, r2) = (gm.grid.printed(h) for h in zone.box)
        out = [h for h in gm.grid.all_hexes() if h[0] == s1
               and min(c1, c2) <= gm.grid.printed(h)[1] <= max(c1, c2)
               and min(r1, r2) <= gm.grid.printed(h)[2] <= max(r1, r2)]
    else:
        out = list(zone.hexes)
    return sorted(h for h in out if h[0] in area)


def _check_zone(path: Path, where: str, p: Placement, s: Scenario, gm: GameMap) -> None:
    """A set-up zone (1.4A, 1.4D): one form (of + within, hexes or box), every hex on the map,
    some hex inside the playing area, a counter and no fixed hex or Support."""
    z = p.zone
    assert z is not None
    forms = [bool(z.of or z.within is not None), bool(z.hexes), bool(z.box)]
    if sum(forms) != 1:
        raise _fail(path, where, "a set-up zone is 'of' a hex 'within' X hexes, a list of "
                    "'hexes' or a 'box' of two corner hexes (one of them)", "BCS-1.4D")
    if not p.counter:
        raise _fail(path, where, "only a counter is set up in a zone", "BCS-1.4A")
    if p.hex or p.support:
        raise _fail(path, where, "a counter set up in a zone has no fixed hex and is not in "
                    "Support (the owner places it)", "BCS-1.4A")
    if forms[0]:
        if not gm.grid.is_hex(z.of):
            raise _fail(path, where, f"zone: unknown hex {z.of!r}", "BCS-1.4A")
        if z.within is None or not 1 <= z.within <= 20:
            raise _fail(path, where, "zone: 'within' is the X of 'w/i X' (1 to 20 hexes)",
                        "BCS-1.4A")
    for h in [*z.hexes, *z.box]:
        if not gm.grid.is_hex(h):
            raise _fail(path, where, f"zone: unknown hex {h!r}", "BCS-1.4D")
    if len(set(z.hexes)) != len(z.hexes):
        raise _fail(path, where, "zone: a hex listed twice", "BCS-1.4D")
    if z.box and (len(z.box) != 2 or z.box[0][0] != z.box[1][0]):
        raise _fail(path, where, "zone: a box is two corner hexes of one map sheet", "BCS-1.4D")
    if not zone_hexes(gm, z, s.playing_area):
        raise _fail(path, where, "zone: no hex of it lies in the playing area", "BCS-1.4D")


def _scenario_problems(d: BcsData, s: Scenario) -> list[str]:
    """What the seeds leave out of a scenario: activation markers whose HQ never appears."""
    placed = {p.counter for p in s.setup if p.counter}
    if s.reinforcements == "scenario":
        arrivals = list(s.arrival)
    elif s.reinforcements in ("ooa", "ooa_playing_area"):
        cal = d.ooa.calendar
        first, last = cal.index(s.first_turn), cal.index(s.last_turn)
        arrivals = [a for a in d.ooa.arrival if first <= cal.index(a.turn) <= last]
        if s.reinforcements == "ooa_playing_area":
            area = set(s.playing_area)
            arrivals = [a for a in arrivals
                        if any(_sheets_of_entry(d.game_map, e) & area for e in a.entry)
                        or any(e.startswith("hq:") for e in a.entry)]
    else:
        arrivals = []
    arriving = {c for a in arrivals for c in a.counters}
    out = []
    for side, forms in s.markers_in_play.items():
        for f in forms:
            hq = d.formations[f].hq
            if hq not in placed and hq not in arriving:
                out.append(f"the {side} activation marker {d.formations[f].activation_marker!r}"
                           f" is in play but its HQ {hq!r} is neither set up nor arriving")
    return out


def _check_scenario(path: Path, s: Scenario, d: BcsData) -> list[str]:
    check_source(f"{path}: scenario {s.id}", s.source)
    cal = d.ooa.calendar
    counters = d.counter_ids()
    for t in (s.first_turn, s.last_turn):
        if t not in cal:
            raise _fail(path, f"scenario {s.id}", f"turn {t!r} is not in the calendar", s.rule)
    if cal.index(s.last_turn) - cal.index(s.first_turn) + 1 != s.turns:
        raise _fail(path, f"scenario {s.id}", f"{s.first_turn} to {s.last_turn} is not "
                    f"{s.turns} turns", s.rule)
    if s.weather not in ("", "No Rain", "Rain"):
        raise _fail(path, f"scenario {s.id}", f"unknown first-turn weather {s.weather!r}",
                    "BCS-1.4G")
    if s.first_player not in SIDES:
        raise _fail(path, f"scenario {s.id}", f"unknown first player {s.first_player!r}", s.rule)
    for letter in s.playing_area:
        if letter not in d.game_map.grid.sheets:
            raise _fail(path, f"scenario {s.id}", f"no map sheet {letter!r}", s.rule)
    for c in s.dead_pile:
        if c not in counters:
            raise _fail(path, "dead pile", f"undefined counter {c!r}", s.rule)
    for side, forms in s.markers_in_play.items():
        for f in forms:
            if f not in d.formations or d.formations[f].side != side:
                raise _fail(path, "markers in play", f"no {side} formation {f!r}", s.rule)
    for i, p in enumerate(s.setup):
        where = f"set-up {i + 1} ({p.hex} {p.counter or p.marker})"
        check_source(f"{path}: {where}", p.source)
        if bool(p.counter) == bool(p.marker):
            raise _fail(path, where, "name one counter or one marker", p.rule)
        if p.counter and p.counter not in counters:
            raise _fail(path, where, f"undefined counter {p.counter!r}", p.rule)
        if p.marker and p.marker not in d.markers:
            raise _fail(path, where, f"undefined marker {p.marker!r}", p.rule)
        if p.zone is not None:
            _check_zone(path, where, p, s, d.game_map)
        elif not d.game_map.grid.is_hex(p.hex):
            raise _fail(path, where, f"unknown hex {p.hex!r}", p.rule)
        elif p.hex[0] not in s.playing_area:
            raise _fail(path, where, "outside the playing area", p.rule)
        if p.face:
            u = d.units.get(p.counter) if p.counter in d.units else None
            if p.face not in ("move", "deployed") or u is None:
                raise _fail(path, where, f"face {p.face!r}: a combat unit's side is 'move' or "
                            f"'deployed'", "BCS-1.4E")
            if p.face == "deployed" and u.deployed is None:
                raise _fail(path, where, f"{p.counter} has no Deployed side (1.2b)", "BCS-1.4E")
            if p.face == "deployed" and p.screen:
                raise _fail(path, where, "a Screen marker goes on a Move side (BbF 1.5)",
                            "BCS-1.4E")
            cls = (u.deployed if p.face == "deployed" and u.deployed else u.move).mclass
            if p.hex and getattr(d.terrain[d.game_map.terrain[p.hex]], cls) == "P":
                raise _fail(path, where, f"its {p.face} side may not be in {p.hex}'s terrain",
                            "BCS-1.4E")
        if p.assigned_to and p.assigned_to not in d.formations:
            raise _fail(path, where, f"unknown formation {p.assigned_to!r}", p.rule)
        if p.counter in d.units and p.steps is not None \
                and not 1 <= p.steps <= d.units[p.counter].steps:
            raise _fail(path, where, f"[{p.steps}] steps of {d.units[p.counter].steps}",
                        "BCS-1.4C")
    for i, a in enumerate(s.arrival):
        _check_arrival(path, a, i, cal, counters, set(d.markers), d.game_map, d.formations)
    v = s.victory
    check_source(f"{path}: victory", v.source)
    vp = {p.hex for p in d.game_map.data.place if "victory" in p.kinds}
    for h in v.axis_controls:
        if h not in vp:
            raise _fail(path, "victory", f"{h} is not a victory hex", v.rule)
    if s.status not in ("complete", "incomplete"):
        raise _fail(path, f"scenario {s.id}", f"unknown status {s.status!r}", s.rule)
    problems = _scenario_problems(d, s)
    if s.status == "complete" and problems:
        raise _fail(path, f"scenario {s.id}", problems[0], "BBF-G8")
    if s.status == "incomplete" and not (s.gap and s.reason):
        raise _fail(path, f"scenario {s.id}", "an incomplete scenario names its gap and reason",
                    s.rule)
    return problems


def load_data(root: str | Path = DATA_DIR) -> BcsData:
    """Read and check every BbF data file under root; ScenarioError on the first problem."""
    root = Path(root)
    cp, tp, mp, hp, op = (root / n for n in ("counters.toml", "tec.toml", "map.toml",
                                               "charts.toml", "ooa.toml"))
    counters = read_toml(cp, CountersFile)
    _check_counters(cp, counters)
    tec = read_toml(tp, TecFile)
    _check_tec(tp, tec)
    kinds = {k: frozenset(r.id for r in tec.terrain if r.applies == k)
             for k in ("hex", "hexside", "road")}
    gm = load_map(mp, hex_terrains=kinds["hex"], hexside_kinds=kinds["hexside"],
                  road_kinds=kinds["road"], place_kinds=PLACE_KINDS)
    _check_map(str(mp), gm)
    charts = read_toml(hp, ChartsFile)
    _check_charts(hp, charts)
    ooa = read_toml(op, OoaFile)
    ids = {u.id for u in counters.unit} | {h.id for h in counters.hq} | \
        {t.id for t in counters.trains}
    forms = {f.id: f for f in counters.formation}
    for i, a in enumerate(ooa.arrival):
        _check_arrival(op, a, i, ooa.calendar, ids, {m.id for m in counters.marker}, gm, forms)
    d = BcsData(root, counters, tec, gm, charts, ooa, {}, {})
    for sp in sorted((root / "scenarios").glob("*.toml")):
        s = read_toml(sp, Scenario)
        if s.id != sp.stem:
            raise _fail(sp, f"scenario {s.id}", "the id must be the file name", s.rule)
        d.problems[s.id] = _check_scenario(sp, s, d)
        d.scenarios[s.id] = s
    ap = root / "amendments.toml"
    amendments = read_toml(ap, AmendmentsFile)
    check_amendments(ap, amendments, d)
    d.disagreements = {g.id: g for g in amendments.disagreement}
    d.errata = {e.id: e for e in amendments.erratum}
    return d
