"""Where Baptism By Fire's rules and errata amend the series rules: data paths and their checks.

amendments.toml records every disagreement between the game rules (or the game's errata) and
the series rules (BCS 1.3: the game rules prevail) and every printed erratum with its effect.
Each entry names, as a path, the data values that apply it; the loader checks that the data
carry the prevailing value there, so an amendment cannot be recorded without being applied.

A path is segments joined by '/': a root and an id (``unit/72-ra-at``, ``hq/cca-hq``,
``marker/screen``, ``terrain/lake``, ``table/weather``, ``cell/CHART/ROW/COLUMN``,
``scenario/5.3``, ``setup/5.5/COUNTER`` (that counter's set-up entry), ``option/NAME``), then
fields, dict keys or list indexes (``move/range``); a last segment ``?X`` asks whether X is
in the collection or list reached so far (``marker/?arty_asset``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbem.core.errors import ScenarioError
from pbem.core.mapdata import check_source
from pbem.games.bcs.data import AmendmentsFile, Apply
from pbem.games.bcs.options import OPTIONS

if TYPE_CHECKING:
    from pbem.games.bcs.loader import BcsData

SERIES_ID = re.compile(r"^(BCS|ERR-BCS)-[0-9A-Za-z.\-]+$")
GAME_ID = re.compile(r"^(BBF|ERR-BBF)-[0-9A-Za-z.\-]+$")
ERRATUM_ID = re.compile(r"^ERR-(BCS|BBF)-[0-9.\-]+$")
ANY_ID = re.compile(r"^(BCS|BBF|ERR-BCS|ERR-BBF)-[0-9A-Za-z.\-]+$")
EFFECTS = ("wording", "data", "rule")
BOUNDARY = r"(?<![A-Za-z0-9.\-]){}(?![A-Za-z0-9.\-]|\.[A-Za-z0-9])"
FILE_OF_ROOT = {"unit": "counters.toml", "hq": "counters.toml", "trains": "counters.toml",
                "formation": "counters.toml", "marker": "counters.toml", "terrain": "tec.toml",
                "table": "charts.toml", "cell": "charts.toml",
                "option": "pbem/games/bcs/options.py"}


class NoData(KeyError):
    """A path that names nothing in the data."""


def _roots(d: BcsData) -> dict[str, dict[str, Any]]:
    return {"unit": d.units, "hq": d.hqs, "trains": d.trains, "formation": d.formations,
            "marker": d.markers, "terrain": d.terrain, "table": d.tables,
            "scenario": d.scenarios, "option": OPTIONS}


def _step(cur: Any, seg: str) -> Any:
    if seg.startswith("?"):
        return seg[1:] in cur
    if isinstance(cur, dict):
        if seg not in cur:
            raise NoData(seg)
        return cur[seg]
    if isinstance(cur, (list, tuple)):
        if not seg.isdigit() or int(seg) >= len(cur):
            raise NoData(seg)
        return cur[int(seg)]
    if seg.startswith("_") or not hasattr(cur, seg):
        raise NoData(seg)
    return getattr(cur, seg)


def lookup(d: BcsData, path: str) -> Any:
    """The data value at a path (docs/bcs-data.md, amendments.toml); NoData if there is none."""
    segs = path.split("/")
    root, rest = segs[0], segs[1:]
    if not rest:
        raise NoData(path)
    if root == "cell":
        if len(rest) != 3 or tuple(rest) not in d.cells:
            raise NoData(path)
        return d.cells[(rest[0], rest[1], rest[2])]
    if root == "setup":
        if len(rest) < 2 or rest[0] not in d.scenarios:
            raise NoData(path)
        found = [p for p in d.scenarios[rest[0]].setup if p.counter == rest[1]]
        if len(found) != 1:
            raise NoData(path)
        cur: Any = found[0]
        rest = rest[2:]
    else:
        roots = _roots(d)
        if root not in roots:
            raise NoData(path)
        cur = roots[root]
    for seg in rest:
        cur = _step(cur, seg)
    return cur


def data_file(path: str) -> str:
    """The file that holds the value a path names (for error messages)."""
    root, _, rest = path.partition("/")
    if root in ("scenario", "setup"):
        return f"scenarios/{rest.split('/')[0]}.toml"
    return FILE_OF_ROOT.get(root, "the data")


def same(a: Any, b: Any) -> bool:
    """Equal values of the same type (True is not 1)."""
    return type(a) is type(b) and a == b


def _fail(path: Path, entry: str, problem: str, rule: str) -> ScenarioError:
    return ScenarioError(f"{path}: {entry}: {problem} (rule {rule})")


def _check_apply(d: BcsData, path: Path, entry: str, a: Apply, says: str, rule: str) -> None:
    try:
        got = lookup(d, a.path)
    except NoData:
        raise _fail(path, entry, f"no data at {a.path!r}", rule) from None
    if not same(got, a.value):
        raise _fail(path, entry, f"{data_file(a.path)} {a.path} is {got!r}, {says} "
                    f"{a.value!r}", rule)
    if a.other is not None and same(a.other, a.value):
        raise _fail(path, entry, f"{a.path}: the overruled value is the same {a.value!r}: "
                    "no disagreement", rule)


def _citing(root: Path, own: Path, ident: str) -> list[str]:
    """The data files under root (but own) whose text names a rule id."""
    pat = re.compile(BOUNDARY.format(re.escape(ident)))
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.toml")
                  if p != own and pat.search(p.read_text(encoding="utf-8")))


def check_amendments(path: Path, f: AmendmentsFile, d: BcsData) -> None:
    """Refuse (one line naming the file and entry) an amendment the data do not carry."""
    seen: set[str] = set()
    for g in f.disagreement:
        where = f"disagreement {g.id!r}"
        check_source(f"{path}: {where}", g.source)
        if g.id in seen:
            raise _fail(path, where, "id used twice", "BCS-1.3")
        seen.add(g.id)
        if not SERIES_ID.match(g.series_rule):
            raise _fail(path, where, f"series rule {g.series_rule!r} is not a BCS rule id",
                        "BCS-1.3")
        if not GAME_ID.match(g.game_rule):
            raise _fail(path, where, f"game rule {g.game_rule!r} is not a BbF rule id",
                        "BCS-1.3")
        if g.prevails not in ("game", "series"):
            raise _fail(path, where, f"prevails must be game or series, not {g.prevails!r}",
                        "BCS-1.3")
        if g.prevails == "series" and not g.reason:
            raise _fail(path, where, "the series rule prevails only with a reason (the game "
                        "rules prevail, BCS 1.3)", "BCS-1.3")
        if not g.apply:
            raise _fail(path, where, "no data path applies it", "BCS-1.3")
        says = (f"the game rule {g.game_rule} gives" if g.prevails == "game"
                else f"the series rule {g.series_rule} gives")
        for a in g.apply:
            _check_apply(d, path, where, a, says, "BCS-1.3")
    seen = set()
    for e in f.erratum:
        where = f"erratum {e.id!r}"
        check_source(f"{path}: {where}", e.source)
        if not ERRATUM_ID.match(e.id):
            raise _fail(path, where, "not an erratum id (ERR-BCS-... or ERR-BBF-...)", e.id)
        if e.id in seen:
            raise _fail(path, where, "listed twice", e.id)
        seen.add(e.id)
        if e.effect not in EFFECTS:
            raise _fail(path, where, f"effect must be wording, data or rule, not {e.effect!r}",
                        e.id)
        for r in e.rules:
            if not ANY_ID.match(r):
                raise _fail(path, where, f"{r!r} is not a rule id", e.id)
        if e.effect == "wording":
            if e.apply or e.rules:
                raise _fail(path, where, "a wording-only erratum changes no rule and no data",
                            e.id)
            cited = _citing(d.root, path, e.id)
            if cited:
                raise _fail(path, where, f"{cited[0]} cites a wording-only erratum, which "
                            "changes no data", e.id)
        elif e.effect == "data" and not e.apply:
            raise _fail(path, where, "a data erratum names the data paths it changes", e.id)
        elif e.effect == "rule" and not e.rules:
            raise _fail(path, where, "a rule erratum names the rule ids it changes", e.id)
        for a in e.apply:
            _check_apply(d, path, where, a, "the erratum gives", e.id)
