"""Read-only questions about pieces on the map: faces, movement classes, stacks, entry hexes."""

from __future__ import annotations

from pbem.games.bcs.data import Face
from pbem.games.bcs.info import data
from pbem.games.bcs.loader import BcsData
from pbem.games.bcs.state import BcsState, Piece


def bdata() -> BcsData:
    """The checked BbF data set (loaded once per process)."""
    return data()


def face(p: Piece) -> Face | None:
    """The side showing of a combat unit (None for an HQ or Combat Trains)."""
    if p.kind != "unit":
        return None
    u = bdata().units[p.id]
    return u.deployed if p.face == "deployed" and u.deployed is not None else u.move


def mclass(p: Piece) -> str:
    """The movement class of the side showing (1.2a, 5.3): tac, truck or leg."""
    f = face(p)
    if f is not None:
        return f.mclass
    if p.kind == "hq":
        return bdata().hqs[p.id].mclass
    return "truck"


def printed_ma(p: Piece) -> int:
    """The printed MA of the side showing (an HQ's MA for an HQ)."""
    f = face(p)
    if f is not None:
        return f.ma
    return bdata().hqs[p.id].ma if p.kind == "hq" else 0


def is_combat(p: Piece) -> bool:
    """A combat unit on the map (HQs and Combat Trains are not, 5.5b)."""
    return p.kind == "unit" and p.status == "map"


def has_zoc(p: Piece) -> bool:
    """Combat units project a ZOC unless Unprepared (6.0a, 6.0b, 1.2d)."""
    f = face(p)
    return is_combat(p) and f is not None and (f.assault_arrow or f.av is not None)


def is_av(p: Piece) -> bool:
    """A combat unit whose side showing has an Armor Value (1.2c)."""
    f = face(p)
    return is_combat(p) and f is not None and f.av is not None


def at(state: BcsState, hex_id: str) -> list[Piece]:
    """Every piece on the map in a hex."""
    return [p for p in state.pieces.values() if p.status == "map" and p.hex == hex_id]


ByHex = dict[str, list[Piece]]


def by_hex(state: BcsState) -> ByHex:
    """Every piece on the map, by hex, in the order of at(): for a query that reads many hexes
    of one position (a Safe Path search), built once instead of a scan of every piece per hex.
    Valid only while no piece moves."""
    out: ByHex = {}
    for p in state.pieces.values():
        if p.status == "map":
            out.setdefault(p.hex, []).append(p)
    return out


def combat_count(state: BcsState, hex_id: str) -> int:
    """Combat units in a hex, for stacking (5.5a, 5.5b)."""
    return sum(1 for p in at(state, hex_id) if p.kind == "unit")


def enemy_in(state: BcsState, side: str, hex_id: str) -> bool:
    """Any enemy piece (unit, HQ or Trains) in the hex (5.4f)."""
    return any(p.side != side for p in at(state, hex_id))


def playing_area(state: BcsState) -> list[str]:
    """The sheet letters the scenario plays on."""
    return bdata().scenarios[state.scenario].playing_area


def on_area(state: BcsState, hex_id: str) -> bool:
    """A hex of the map inside the scenario's playing area (1.1d, BbF 5.2)."""
    gm = bdata().game_map
    return gm.grid.is_hex(hex_id) and hex_id[0] in playing_area(state)


def entry_hexes(state: BcsState, p: Piece) -> list[str]:
    """The hexes an arriving piece may enter by in its Formation's Activation (9.3b), inside
    the playing area; arrivals at the HQ are placed in the Reinforcement Phase instead (9.3a).
    With the house option entry_blocking = five_hex_errata (BBF-G12, errata v1.0 to 9.3f), an
    Entry hex held by an enemy unit opens every map-edge hex within 5 hexes of it; for an HQ and
    its Combat Trains, farther, just enough to hold a hex the HQ may enter (ERR-BCS-1.0-3)."""
    gm = bdata().game_map
    out: list[str] = []
    for e in p.entry:
        if e.startswith("hq:"):
            continue                  # placed in the Reinforcement Phase (9.3a, setup.place_at_hq)
        elif len(e) == 1:
            out += gm.hexsets.get(f"entry-{e}", [])
        else:
            out.append(e)
    out = [h for h in out if on_area(state, h)]
    if state.options.get("entry_blocking") == "five_hex_errata":
        taken = [h for h in out if any(q.side != p.side and q.kind == "unit" for q in at(state, h))]
        out += [h for t in taken for h in edge_hexes(state, t, ENTRY_SHIFT)]
        if taken and p.kind in ("hq", "trains"):     # ERR-BCS-1.0-3: the HQ's wider zone
            from pbem.games.bcs.hq_retreat import hq_may_enter
            hq = hq_of(state, p) or p
            reach = ENTRY_SHIFT
            while not any(hq_may_enter(state, hq, h) for h in out) and reach < ENTRY_FAR:
                reach += 1
                out += [h for t in taken for h in edge_hexes(state, t, reach)]
    return sorted(set(out))


ENTRY_SHIFT = 5                  # errata v1.0 to 9.3f: map-edge hexes within 5 of a taken Entry hex
ENTRY_FAR = 120                  # the HQ's zone grows no farther than this (past any map's edge)


def edge_hexes(state: BcsState, hex_id: str, reach: int) -> list[str]:
    """The playing area's edge hexes (fewer than six neighbours inside it) within ``reach``
    hexes of a hex."""
    grid = bdata().game_map.grid
    return [h for h in grid.within(hex_id, reach) if on_area(state, h)
            and sum(1 for n in grid.neighbours(h) if on_area(state, n)) < 6]


def hq_of(state: BcsState, p: Piece) -> Piece | None:
    """The HQ of a piece's Formation, if it has one."""
    f = state.formations.get(p.formation)
    return state.pieces[f.hq] if f is not None else None


def held_entries(state: BcsState, p: Piece) -> list[str]:
    """The Entry hexes of a piece waiting off the map, due by now, that an enemy unit holds: the
    hexes it may Attack from Off Map (9.3f as printed, house option entry_blocking =
    attack_from_off_map); none under the v1.0 errata."""
    if state.options.get("entry_blocking") != "attack_from_off_map" or p.status != "off" \
            or p.arrives > state.turn:
        return []
    return [h for h in entry_hexes(state, p)
            if any(q.side != p.side and q.kind == "unit" for q in at(state, h))]


def hq_entering(state: BcsState, hex_id: str) -> Piece | None:
    """The active Formation's HQ waiting off the map, due by now, beside its Entry hex hex_id: it
    enters behind an Attack from Off Map there (9.3f as printed: 'if the HQ is trying to enter
    as well'), or None."""
    act = state.activation
    if act is None or state.options.get("entry_blocking") != "attack_from_off_map":
        return None
    hq = state.pieces[state.formations[act.formation].hq]
    waiting = hq.status == "off" and hq.arrives <= state.turn
    return hq if waiting and hex_id in entry_hexes(state, hq) else None


def air_bound(side: str) -> int:
    """The most Air Points side's die can give in a turn (its Air Points Available table)."""
    return max(int(bdata().roll(f"air_{side}", die)) for die in range(1, 7))
