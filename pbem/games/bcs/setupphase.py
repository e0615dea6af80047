"""The Set-up decision before the first turn (BCS 1.4A, 1.4B, 1.4D, 1.4E): each side may set
its set-up units on either counter side and places the counters its set-up gives a zone.

Who decides, in which order: the side that does not take the first Activation first, then the
first player (the rulebook is silent; docs/bcs-engine.md, "The Set-up decision as built"). A side
decides only if it asked to (standing order ``standing setup ask``, set before the game by the
house option ``setup_decision``) or must (a counter of its set-up is placed in a zone, 1.4A,
1.4D); the default, ``keep``, keeps the printed hexes and the engine's sides (Move, or Deployed
where the hex's terrain prohibits the Move side) and costs no file. Units in Support stay so
(1.4E: 'strictly as called for by the set-up'); a side the set-up states is fixed (a Screen
marker: Move). Counter sides are public only for the top unit of a stack (1.5a): a flip is told
to its owner only, a placement in a zone shows the hex.
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import bdata, combat_count, enemy_in
from pbem.games.bcs import smoothing
from pbem.games.bcs.loader import zone_hexes
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.state import BcsState, Piece, SetupZone, other
from pbem.games.bcs.terrain import ROAD_KINDS, hex_row, is_road_hex

TOPIC = "setup"
STANDING = {TOPIC: ("keep",)}    # keep: the printed set-up (the default); 'ask': the side decides
FACES = ("move", "deployed")
ASKED = {"keep": (), "allied": ("allied",), "axis": ("axis",), "both": ("allied", "axis")}


def begin(state: BcsState) -> None:
    """At the scenario's start: the set-up's zones and stated sides, the sides asked by the
    house option (their standing order 'setup ask'), each unit on a side its hex's terrain
    allows (Move first, 1.4E), and the Set-up decision opened for the sides that decide."""
    scen = bdata().scenarios[state.scenario]
    for s in ASKED[str(state.options.get("setup_decision", "keep"))]:
        state.private[s].standing[TOPIC] = "ask"
    for p in scen.setup:
        pc = state.pieces.get(p.counter)
        if pc is None:
            continue
        if p.zone is not None:
            z = p.zone
            state.setup_zones[pc.id] = SetupZone(of=z.of, within=z.within or 0,
                                                 hexes=list(z.hexes), box=list(z.box))
            pc.status, pc.hex, pc.home, pc.start = "setup", "", "", ""
        if p.face or p.screen:
            state.setup_fixed[pc.id] = p.face or "move"     # BbF 1.5: a Screen is Move side up
    for pc in state.pieces.values():
        if pc.kind == "unit" and pc.status == "map":
            pc.face = state.setup_fixed.get(pc.id) or next(
                (f for f in FACES if allowed(pc, pc.hex, f)), "move")
    open_decision(state)


def open_decision(state: BcsState) -> None:
    """Open the Set-up decision for the sides that decide (the first player last); none: the
    scenario's first decision follows at once."""
    order = [other(state.first_side), state.first_side]
    state.setting = [s for s in order if wants(state, s)]
    if state.setting:
        state.phase, state.next_side = "setup", state.setting[0]
    else:                                 # nobody decides: the set-up is final as printed
        state.setup_zones, state.setup_fixed = {}, {}


def wants(state: BcsState, side: str) -> bool:
    """A side decides in the Set-up decision: it must place a counter in a zone, or it asked
    (standing setup ask) and has a unit whose side it may choose."""
    if any(state.pieces[c].side == side and state.pieces[c].status == "setup"
           for c in state.setup_zones):
        return True
    return state.private[side].standing.get(TOPIC) == "ask" and bool(choosable(state, side))


def choosable(state: BcsState, side: str) -> list[str]:
    """The side's set-up units whose counter side the owner may choose (1.4E): two-sided, on
    the map or in a zone, not in Support, no side stated by the set-up."""
    return sorted(p.id for p in state.pieces.values()
                  if p.side == side and p.kind == "unit" and p.status in ("map", "setup")
                  and _set_up(state, p) and p.id not in state.setup_fixed
                  and bdata().units[p.id].deployed is not None)


def _set_up(state: BcsState, p: Piece) -> bool:
    """The counter is in the scenario's set-up (not an arrival)."""
    return p.id in state.setup_zones or bool(p.home)


def prohibited(p: Piece, hex_id: str, face: str) -> bool:
    """The hex's terrain prohibits the piece on that side (1.4B, 1.4E: 'terrain they could not
    enter during movement'; a road it could follow into the hex opens it, 5.2c)."""
    d = bdata()
    if p.kind == "unit":
        u = d.units[p.id]
        cls = (u.deployed if face == "deployed" and u.deployed is not None else u.move).mclass
    else:
        cls = d.hqs[p.id].mclass if p.kind == "hq" else "truck"
    if mp_cost(d.terrain[hex_row(hex_id)], cls) != "P":
        return False
    return not any(is_road_hex(hex_id, (k,)) and mp_cost(d.terrain[k], cls) != "P"
                   for k in ROAD_KINDS)


def allowed(p: Piece, hex_id: str, face: str) -> bool:
    """The piece may set up in the hex on that side (terrain only)."""
    return not prohibited(p, hex_id, face)


def zone_of(state: BcsState, pid: str) -> list[str]:
    """The hexes of a counter's set-up zone in the playing area (1.4A: at or within X; 1.4D:
    boundary lines included)."""
    z = state.setup_zones[pid]
    from pbem.games.bcs.data import Zone
    return zone_hexes(bdata().game_map, Zone(of=z.of, within=z.within if z.of else None,
                                             hexes=z.hexes, box=z.box),
                      bdata().scenarios[state.scenario].playing_area)


def describe(z: SetupZone) -> str:
    """A set-up zone in words."""
    if z.of:
        return f"w/i {z.within} of {z.of}"
    if z.box:
        return f"the zone {z.box[0]}-{z.box[1]}, boundary lines included"
    return f"the zone {', '.join(z.hexes[:4])}{' ...' if len(z.hexes) > 4 else ''}"


def setup(state: BcsState, side: str, pid: str, hex_id: str, face: str, ctx: Context) -> None:
    """'setup UNIT [HEX] [move|deployed]': a counter of the side's set-up placed in its zone
    (1.4A, 1.4D) and/or a unit set on either counter side (1.4E), checked against the zone,
    stacking and terrain (1.4B, 1.4E)."""
    if state.phase != "setup" or not state.setting or state.setting[0] != side:
        raise IllegalOrder("set-up orders are given in your Set-up decision, before the first "
                           "turn", rule="BCS-1.4E")
    p = state.pieces.get(pid)
    if p is None or p.side != side:
        raise IllegalOrder(f"{pid} is not one of your counters", rule="BCS-1.4E")
    if p.status == "support":
        raise IllegalOrder(f"{pid} starts in Support, strictly as the set-up says",
                           rule="BCS-1.4E")
    if p.status not in ("map", "setup") or not _set_up(state, p):
        raise IllegalOrder(f"{pid} is not in the set-up (it arrives later)", rule="BCS-1.4E")
    if face and p.kind != "unit":
        raise IllegalOrder(f"{pid} is no combat unit: it has no Move and Deployed sides",
                           rule="BCS-1.4E")
    if face == "deployed" and bdata().units[pid].deployed is None:
        raise IllegalOrder(f"{pid} has only a Move side (1.2b)", rule="BCS-1.4E")
    fixed = state.setup_fixed.get(pid)
    if face and fixed and face != fixed:
        raise IllegalOrder(f"the set-up puts {pid} on its {fixed.capitalize()} side",
                           rule="BCS-1.4E")
    to = hex_id or p.hex
    if hex_id:
        if pid not in state.setup_zones:
            raise IllegalOrder(f"the set-up fixes {pid}'s hex ({p.hex or 'none'}): only a "
                               f"counter set up 'w/i X' or in a zone is placed", rule="BCS-1.4A")
        z = state.setup_zones[pid]
        if hex_id not in zone_of(state, pid):
            raise IllegalOrder(f"{hex_id} is outside {pid}'s set-up zone ({describe(z)})",
                               rule="BCS-1.4A" if z.of else "BCS-1.4D")
        if enemy_in(state, side, hex_id):
            raise IllegalOrder(f"{hex_id} holds an enemy counter", rule="BCS-5.4f")
        here = combat_count(state, hex_id) - (p.status == "map" and p.hex == hex_id)
        if p.kind == "unit" and here >= 2:
            raise IllegalOrder(f"{hex_id} holds two combat units: {pid} would overstack it",
                               rule="BCS-1.4B")
        if p.kind == "hq" and not is_road_hex(hex_id):
            raise IllegalOrder(f"an HQ sets up in a non-railroad road hex, not {hex_id}",
                               rule="BCS-5.4d")
    elif p.status == "setup":
        raise IllegalOrder(f"place {pid} first: 'setup {pid} HEX' "
                           f"({describe(state.setup_zones[pid])})", rule="BCS-1.4A")
    new_face = face or (fixed or p.face if p.kind == "unit" else p.face)
    if hex_id and not face and p.kind == "unit" and prohibited(p, to, new_face) and not fixed:
        new_face = next((f for f in FACES if allowed(p, to, f)), new_face)
    if prohibited(p, to, new_face):
        every = all(prohibited(p, to, f) for f in FACES) or p.kind != "unit"
        raise IllegalOrder(f"{to}'s terrain prohibits {pid}"
                           + ("" if every else f" on its {new_face.capitalize()} side"),
                           rule="BCS-1.4B" if every else "BCS-1.4E")
    placed = bool(hex_id)
    if placed:
        p.status, p.hex, p.home, p.start = "map", hex_id, hex_id, hex_id
    p.face = new_face
    where = f" in {p.hex}" if placed else ""
    ctx.log(f"{pid} sets up{where} on its {p.face.capitalize()} side (1.4E)"
            if p.kind == "unit" else f"{pid} sets up in {p.hex} (1.4A)",
            visible_to=side, hexes=(p.hex,))
    if placed:
        shown = pid if p.kind != "unit" else "a unit"
        ctx.log(f"{side} sets up {shown} in {p.hex} (1.4A)", hexes=(p.hex,))


def done(state: BcsState, side: str, ctx: Context) -> None:
    """'setup done': every counter of the side's zones placed (1.4A); the other side's Set-up
    follows, then the scenario's first decision (Rommel's placement where due, else the first
    player's first Activation)."""
    if state.phase != "setup" or not state.setting or state.setting[0] != side:
        raise IllegalOrder("your Set-up decision is not open now", rule="BCS-1.4E")
    left = sorted(c for c in state.setup_zones
                  if state.pieces[c].side == side and state.pieces[c].status == "setup")
    if left:
        raise IllegalOrder(f"{left[0]} must be placed in its set-up zone first "
                           f"({describe(state.setup_zones[left[0]])})", rule="BCS-1.4A")
    state.setting.pop(0)
    ctx.log(f"{side} ends its Set-up")
    if state.setting:
        state.next_side = state.setting[0]
        return
    close(state)


def close(state: BcsState) -> None:
    """The Set-up is over: the first turn's Assignment Phase follows as 2.1's Important Note
    allows it (1.4G: newly arriving reinforcements only, assignment.py) for the sides whose
    standing order asks for it by now (written in their Set-up files; in a sealed game every
    side), the side that moves second first, and for Rommel's placement where due (BBF-G18);
    else the first player activates."""
    from pbem.games.bcs.assignment import open_phase, wants
    state.setup_zones, state.setup_fixed = {}, {}
    order = [other(state.first_side), state.first_side]
    # wants: a standing order 'assignment ask', Rommel due, or a sealed game (every side is
    # asked and its processor answers from its hidden policy, docs/sealed.md 5h)
    asking = [s for s in order if s in state.assigning or wants(state, s)]
    if asking and not state.assigning:
        open_phase(state)
    state.assigning = asking
    if state.assigning:
        state.phase, state.next_side = "assignment", state.assigning[0]
    else:
        state.phase, state.next_side = "activate", state.first_side
        smoothing.fill(state)            # Optional 9's chit cup (BCS-OPT9-a), turn 1
