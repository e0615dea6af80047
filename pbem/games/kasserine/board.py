"""Board queries shared by the rules: scenario data, occupancy, unit values, ZOC, fortification."""

from __future__ import annotations

from pbem.games.kasserine.scenario import KasserineData, load_kasserine
from pbem.games.kasserine.state import KasserineState, other
from pbem.games.kasserine.static import zoc_of


_DATA: dict[tuple[str, str], KasserineData] = {}


def data_of(state: KasserineState) -> KasserineData:
    """The scenario data a game state is played on (cached here and by the loader)."""
    key = (state.scenario, state.options.sbeitla_hex)
    data = _DATA.get(key)
    if data is None:
        data = _DATA[key] = load_kasserine(state.scenario, sbeitla_hex=state.options.sbeitla_hex)
    return data


def occupancy(state: KasserineState) -> dict[str, str]:
    """Hex -> id of the unit on it (units on the map only)."""
    return {u.hex: uid for uid, u in state.units.items() if u.status == "map"}


def on_map(state: KasserineState, side: str | None = None) -> list[str]:
    """Ids of the units on the map, of one side or both."""
    return [uid for uid, u in state.units.items()
            if u.status == "map" and (side is None or u.side == side)]


def values(data: KasserineData, state: KasserineState, uid: str) -> tuple[int, int, int]:
    """Current (attack, defense, movement) of a unit: its reduced side when depleted."""
    full, reduced = data.strengths[uid]
    if reduced is not None and state.units[uid].steps == 1:
        return reduced
    return full


def label(data: KasserineData, state: KasserineState, uid: str) -> str:
    """'id a-d-m' with a 'depleted' mark when on its reduced side (worked out with the data)."""
    return data.labels[uid][state.units[uid].steps == 1]


def zoc_hexes(state: KasserineState, data: KasserineData, side: str) -> frozenset[str]:
    """Every hex in the ZOC of side's units (6.0: the six adjacent hexes, all terrain).

    Computed once per position: the answer is memoised on the hexes of the units exerting it.
    """
    return zoc_of(data, tuple(zoc_units(state, data, side)))


def zoc_units(state: KasserineState, data: KasserineData, side: str) -> list[str]:
    """The hexes of side's units that exert a ZOC, in unit order."""
    no_zoc = data.no_zoc
    return [u.hex for uid, u in state.units.items()
            if u.status == "map" and u.side == side and uid not in no_zoc]


def ezoc(state: KasserineState, data: KasserineData, side: str) -> frozenset[str]:
    """Hexes in an enemy ZOC for side (friendly units never negate it, 6.0-c)."""
    return zoc_hexes(state, data, other(side))


def ezoc_and_occupancy(state: KasserineState, data: KasserineData,
                       side: str) -> tuple[frozenset[str], dict[str, str]]:
    """(ezoc(state, data, side), occupancy(state)) in one pass over the units."""
    no_zoc, enemy = data.no_zoc, other(side)
    occ: dict[str, str] = {}
    hexes: list[str] = []
    add = hexes.append
    for uid, u in state.units.items():
        if u.status == "map":
            h = u.hex
            occ[h] = uid
            if u.side == enemy and uid not in no_zoc:
                add(h)
    return zoc_of(data, tuple(hexes)), occ


def board_for_move(state: KasserineState, data: KasserineData, side: str,
                   mover: str) -> tuple[frozenset[str], dict[str, str], list[str]]:
    """ezoc_and_occupancy's pair, and the hexes of side's units other than mover that exert a
    ZOC (in unit order), in the same pass over the units."""
    no_zoc, enemy = data.no_zoc, other(side)
    occ: dict[str, str] = {}
    hexes: list[str] = []
    own: list[str] = []
    for uid, u in state.units.items():
        if u.status == "map":
            h = u.hex
            occ[h] = uid
            if uid not in no_zoc:
                s = u.side
                if s == enemy:
                    hexes.append(h)
                elif s == side and uid != mover:
                    own.append(h)
    return zoc_of(data, tuple(hexes)), occ, own


def engineer_fortified(state: KasserineState, data: KasserineData, hex_id: str) -> bool:
    """True if hex_id lies within a US engineer's printed MA counted in hexes (16.0)."""
    if state.options.engineer_fortify == "off":
        return False
    for uid in data.engineers:
        u = state.units.get(uid)
        if u is not None and u.status == "map" and u.side == "us":
            ma = values(data, state, uid)[2]
            if data.map.grid.distance(u.hex, hex_id) <= ma:
                return True
    return False


def fortified_unit(state: KasserineState, data: KasserineData, uid: str) -> bool:
    """True if a defending unit gets 8.2.3 (engineer 16.0, or a box when box_doubling is on)."""
    u = state.units[uid]
    if u.side != "us":
        return False          # 14.3-c: German units never benefit
    if state.options.box_doubling and u.hex in data.fortified_boxes:
        return True
    return engineer_fortified(state, data, u.hex)


def fortification_hex(state: KasserineState, data: KasserineData, hex_id: str, side: str) -> bool:
    """True if the hex counts as a fortification hex for the 6.1 EZOC-to-EZOC ban."""
    if hex_id in data.fortified_boxes:
        return True
    return (side == "us" and state.options.engineer_fortify == "full"
            and engineer_fortified(state, data, hex_id))


def hexside_kinds(data: KasserineData, a: str, b: str) -> set[str]:
    """The hexside features between two adjacent hexes, with 'bridge' for a river crossed by a road."""
    return data.hexside_kinds(a, b)


def edge_distance(data: KasserineData, side: str, hex_id: str) -> int:
    """Hexes from hex_id to the side's nearest friendly map edge or supply symbol (8.3, KAS-G15)."""
    return data.edge_distance[side][hex_id]


def nearest(state: KasserineState, data: KasserineData, hex_id: str, side: str) -> int | None:
    """Distance from hex_id to the nearest unit of side on the map (None if it has none)."""
    grid = data.map.grid
    ds = [grid.distance(hex_id, state.units[u].hex) for u in on_map(state, side)]
    return min(ds) if ds else None


def deplete(state: KasserineState, data: KasserineData, uid: str) -> bool:
    """Deplete a unit (eliminate it if one-step or already depleted); True if it was eliminated."""
    u = state.units[uid]
    if u.steps >= 2 and data.units[uid].steps == 2:
        u.steps = 1
        return False
    eliminate(state, uid)
    return True


def eliminate(state: KasserineState, uid: str) -> None:
    """Remove a unit from the game."""
    u = state.units[uid]
    u.status, u.hex, u.steps = "dead", "", 0
