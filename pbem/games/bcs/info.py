"""Baptism By Fire's data: every scenario with its data status, maps and set-ups for drawing.

The rules engine (``pbem.games.bcs.engine``, registered as ``bcs``) plays the scenarios in
``PLAYABLE``; ``pbem map bcs SCENARIO OUT.html`` draws any scenario's map and set-up through this
object, and ``pbem games`` lists the scenarios that are data only (``listing``).
"""

from __future__ import annotations

from functools import lru_cache

from pbem.core.game import MapMarker, MapUnit, MarkerStyle
from pbem.core.mapdata import GameMap
from pbem.games.bcs.loader import BcsData, load_data

PLAYABLE = ("5.2", "5.4")
STATUS = ("scenarios 5.2 and 5.4 playable, every required rule built; the map, counters and "
          "missing chart cells are reconstructed, not printed (docs/bcs-data.md); optional rules "
          "not built are listed in docs/bcs.md")
DATA_ONLY = "data only, not playable yet"


# the code that reads and checks the data files (part of the name of the cached data set)
DATA_CODE = ("pbem.games.bcs.loader", "pbem.games.bcs.data", "pbem.games.bcs.amendments",
             "pbem.games.bcs.options", "pbem.core.mapdata", "pbem.core.datafile",
             "pbem.core.hexgrid", "pbem.core.errors")


def data_key() -> str:
    """The name of the checked data set in pbem.core.cache: the SHA-256 of every data file's
    path and bytes and of the source of the code that reads and checks them."""
    import importlib

    from pbem.core import cache
    from pbem.games.bcs.loader import DATA_DIR

    files = sorted(p for p in DATA_DIR.rglob("*") if p.is_file())
    code = [cache.source_hash(importlib.import_module(m)) for m in DATA_CODE]
    return cache.files_key("bcs-data", files, *code, root=DATA_DIR)


@lru_cache(maxsize=1)
def data() -> BcsData:
    """The checked data set (loaded once per process; kept, checked, in the package-side cache
    pbem.core.cache under data_key(), so a command unpickles it instead of parsing and
    checking every TOML file: about 8 ms of CPU instead of 45)."""
    from pbem.core import cache

    key = data_key()
    d = cache.remember("bcs-data", key, load_data)
    d.game_map.cache_key = key       # the map's drawing is kept per this hash too (svgmap)
    return d


class BcsDataOnly:
    """What can be shown of Baptism By Fire before its rules engine exists."""

    id = "bcs"
    title = "Baptism By Fire (BCS)"
    aliases = ("bbf", "baptism-by-fire")
    sides = ("allied", "axis")

    def scenarios(self) -> dict[str, str]:
        """Scenario id -> title with its data status (and gap id when incomplete)."""
        d = data()
        out = {}
        for sid, s in sorted(d.scenarios.items()):
            st, why = d.status(sid)
            out[sid] = f"{s.title} ({st}{': ' + why if why else ''})"
        return out

    def game_map(self, scenario: str) -> GameMap:
        """The whole map (both sheets) of a scenario; ScenarioError for an unknown scenario."""
        d = data()
        if scenario not in d.scenarios:
            d.check_playable(scenario)          # raises the one-line unknown-scenario error
        return d.game_map

    def setup_units(self, scenario: str) -> list[MapUnit]:
        """The scenario's set-up as map units (counters; markers are in setup_markers)."""
        d = data()
        out = []
        for p in d.scenarios[scenario].setup:
            if not p.counter or not p.hex:      # a counter of a set-up zone: placed in play
                continue
            if p.counter in d.units:
                u = d.units[p.counter]
                steps = p.steps if p.steps is not None else u.steps
                av = f" AV{u.move.av}" if u.move.av is not None else ""
                out.append(MapUnit(hex=p.hex, side=p.side, label=u.name.split(" ")[0],
                                   values=f"{u.ar}-{steps}{av}", kind=u.kind,
                                   note="in Support" if p.support else ""))
            elif p.counter in d.hqs:
                h = d.hqs[p.counter]
                out.append(MapUnit(hex=p.hex, side=p.side, label=h.name.split(" ")[0],
                                   values=f"CR{h.command_radius}", kind="hq"))
            else:
                t = d.trains[p.counter]
                out.append(MapUnit(hex=p.hex, side=p.side, label="Trains",
                                   values=d.formations[t.formation].name.split(" ")[0],
                                   kind="trains", note="Ghost" if p.ghost else ""))
        return out

    def setup_markers(self, scenario: str) -> list[MapMarker]:
        """Minefields of the set-up and the victory hexes with their initial control."""
        d = data()
        s = d.scenarios[scenario]
        out = [MapMarker(hex=p.hex, kind="minefield", label="breached" if p.breached else "")
               for p in s.setup if p.marker == "minefield"]
        for p in d.game_map.data.place:
            if "victory" in p.kinds and p.hex[0] in s.playing_area:
                tag = next(k for k in p.kinds if k.startswith("vp_"))[3:]
                holder = "Axis" if p.hex in s.victory.axis_controls else "Allied"
                out.append(MapMarker(hex=p.hex, kind="objective", label=f"{tag} {holder}"))
        return out

    def marker_styles(self) -> dict[str, MarkerStyle]:
        """The marker kinds BbF draws: objectives (VP hexes) and minefields."""
        return {
            "objective": MarkerStyle(shape="star", fill="#f2c21b", stroke="#7a5a00",
                                     css="objective"),
            "minefield": MarkerStyle(shape="square", fill="#8b0000", stroke="#2b0000",
                                     accent="#ffffff", symbol="M", css="minefield"),
        }


GAME = BcsDataOnly()


def is_bcs(name: str) -> bool:
    """Whether a game name a user typed names Baptism By Fire (its id or an alias)."""
    return name.casefold() in (GAME.id, *GAME.aliases)


def listing() -> list[str]:
    """The lines ``pbem games`` shows after the playable games: Baptism By Fire's scenarios
    that are data only (drawn by ``pbem map``), each with its data status."""
    lines = [f"{GAME.id}: {STATUS}; its other scenarios are {DATA_ONLY} (pbem map draws them):"]
    lines += [f"  {sid}: {title}" for sid, title in GAME.scenarios().items()
              if sid not in PLAYABLE]
    return lines
