"""Recon Screens (BbF 1.5, with the BbF errata and series Optional 8 for the Screen Zone's
effect, BBF-G10): marking, what a Screening unit may not do, its Screen Zone, and its automatic
retreat when a Deployed Leg unit enters its hex."""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import at, bdata, combat_count, enemy_in, face, hq_of, mclass, on_area
from pbem.games.bcs.mines import closed, retreat_loss
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.state import MP12, BcsState, Piece
from pbem.games.bcs.terrain import hex_row
from pbem.games.bcs.zoc import ezoc

ZONE = 3                         # BbF 1.5e: every hex up to 3 hexes away, inclusive
ZONE_MP = MP12                   # Optional 8: +1 MP per Screen Zone hex entered
RETREAT = 3                      # BbF 1.5d: the Screening unit retreats 3 hexes


def mark(state: BcsState, side: str, uid: str, on: bool, ctx: Context) -> None:
    """Place (``on``) or remove a Screen marker (BbF 1.5a, 1.5b as revised by the errata): a
    Recon unit of the active Formation, whatever the SNAFU result, at the start of the
    Activation (before the Activities begin); placed only in an Initial Activation and on the
    Move side, removed in either Activation."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side or act.began:
        raise IllegalOrder("Screen markers are placed or removed at the start of an Activation, "
                           "before the Activities begin", rule="BBF-1.5b")
    p = state.pieces.get(uid)
    if p is None or p.side != side or p.kind != "unit" or p.status != "map" \
            or p.formation != act.formation:
        raise IllegalOrder(f"{uid} is not a unit of the active Formation on the map",
                           rule="BBF-1.5b")
    if not on:
        if not p.screen:
            raise IllegalOrder(f"{uid} has no Screen marker", rule="BBF-1.5b")
        p.screen = False
        ctx.log(f"{uid}'s Screen marker is removed", hexes=(p.hex,))
        return
    if not bdata().units[uid].recon:
        raise IllegalOrder(f"{uid} is no Recon unit: only Recon units Screen", rule="BBF-1.5a")
    if act.second:
        raise IllegalOrder("a Screen marker is placed only in the Formation's Initial Activation",
                           rule="ERR-BBF-2")
    if p.face != "move":
        raise IllegalOrder(f"{uid} must be on its Move side to Screen", rule="BBF-1.5b")
    if p.screen:
        raise IllegalOrder(f"{uid} is Screening already", rule="BBF-1.5b")
    if combat_count(state, p.hex) > 1:
        # 1.5c: a Screening unit is never stacked (marked, it would lose the marker at once);
        # refused, so no hidden unit under a top is ever marked in its stack's sight
        raise IllegalOrder(f"{uid} is stacked with another combat unit: a Screening unit is "
                           "never stacked", rule="BBF-1.5c-2")
    p.screen = True
    ctx.log(f"{uid} is marked Screening", hexes=(p.hex,))


def check_order(state: BcsState, attacker: list[str], target: str, kind: str) -> None:
    """A Screening unit does not Attack, Assist, initiate Engagements or make Attacks by Fire
    (BbF 1.5c; kind "fire": its target is checked as a Barrage's); a Screening unit is never
    Attacked on the Combat Table (BbF 1.5d): refusals before combat is checked."""
    for uid in attacker:
        p = state.pieces.get(uid)
        if p is not None and p.screen:
            what = "make an Attack by Fire" if kind == "fire" else kind
            raise IllegalOrder(f"{uid} is Screening: it may not {what}", rule="BBF-1.5c-1")
    if kind == "attack" and any(q.screen for q in at(state, target) if q.kind == "unit"):
        raise IllegalOrder(f"{target} holds a Screening unit: it is never Attacked on the Combat "
                           f"Table", rule="BBF-1.5d-2")


def zone(state: BcsState, side: str, hex_id: str) -> bool:
    """Whether a hex lies in an enemy Screen Zone: within 3 hexes of an enemy Screening unit,
    terrain and units ignored (BbF 1.5e)."""
    grid = bdata().game_map.grid
    return any(p.screen and p.side != side and p.status == "map"
               and grid.distance(p.hex, hex_id) <= ZONE for p in state.pieces.values())


def zone_cost(state: BcsState, p: Piece, hex_id: str) -> int:
    """The extra MP12 of entering a hex (Optional 8, BBF-G10): +1 MP in an enemy Screen Zone
    for a unit on its Move side; nothing on the Deployed side."""
    return ZONE_MP if p.face == "move" and p.kind == "unit" and zone(state, p.side, hex_id) else 0


def deployed_leg(p: Piece) -> bool:
    """A unit moving with a Deployed Leg MA (BbF 1.5d)."""
    return p.kind == "unit" and p.face == "deployed" and mclass(p) == "leg"


def may_enter(state: BcsState, p: Piece, hex_id: str) -> bool:
    """Whether a unit may enter a hex holding enemy Screening units: only with a Deployed Leg
    MA (BbF 1.5d), and the hex holds no other enemy piece."""
    enemy = [q for q in at(state, hex_id) if q.side != p.side]
    return bool(enemy) and all(q.screen for q in enemy) and deployed_leg(p)


def ignored(state: BcsState, p: Piece, path: list[str]) -> frozenset[str]:
    """The enemy Screening units whose ZOC a Deployed Leg unit ignores: those in a hex its path
    enters (BbF 1.5d: it does not stick next to the unit it moves into)."""
    if not deployed_leg(p):
        return frozenset()
    return frozenset(q.id for q in state.pieces.values() if q.screen and q.side != p.side
                     and q.status == "map" and q.hex in path)


def retreat_spots(state: BcsState, p: Piece, frm: str) -> list[str]:
    """The hexes a Screening unit may retreat to (BbF 1.5d): 3 away, enterable on its side
    showing, with no enemy piece and room to stand; those locally to the rear of frm (7.5a)
    when the ring has any. Never asks: a move's legality needs only whether there is one."""
    grid = bdata().game_map.grid
    rain = state.weather == "Rain"
    f = face(p)
    assert f is not None
    spots = [h for h in grid.within(p.hex, RETREAT)
             if grid.distance(p.hex, h) == RETREAT and on_area(state, h)
             and not enemy_in(state, p.side, h) and combat_count(state, h) < 2
             and not closed(state, p, h)                                   # BbF 3.1b
             and mp_cost(bdata().terrain[hex_row(h)], f.mclass, rain) != "P"]
    # locally to the rear (7.5a): away from the enemy's hex, where the ring allows it
    return [h for h in spots if grid.distance(frm, h) > grid.distance(frm, p.hex) + 1] or spots


def retreat_hex(state: BcsState, p: Piece, frm: str) -> str:
    """Where a Screening unit retreats (BbF 1.5d), among ``retreat_spots``, placed by its
    owner's choice for the topic `retreat`: `rear` (or `edge`) prefers an empty hex (it may not
    end stacked), then one free of EZOC, then the farthest from the hex the enemy came from,
    then the hex id; `hq` an empty hex, then the nearest its HQ; asked, any of these hexes
    ('answer retreat B10.17'). "" when there is none."""
    spots = retreat_spots(state, p, frm)
    if not spots:
        return ""
    from pbem.games.bcs.reactions import lookup

    grid = bdata().game_map.grid
    how = lookup(state, p.side, "retreat", lambda: sorted(spots), p.hex) \
        if len(spots) > 1 else "rear"                   # no choice, no question
    if how not in ("rear", "hq", "edge"):
        return how                       # the hex the owner chose
    hq = hq_of(state, p)
    if how == "hq" and hq is not None and hq.status == "map":
        return min(spots, key=lambda h: (combat_count(state, h) > 0,
                                         grid.distance(hq.hex, h), h))
    return min(spots, key=lambda h: (combat_count(state, h) > 0, bool(ezoc(state, p.side, h)),
                                     -grid.distance(frm, h), h))


def displace(state: BcsState, side: str, entered: list[str], ctx: Context) -> None:
    """Enemy Screening units in the hexes a Deployed Leg unit entered retreat 3 hexes (BbF
    1.5d), losing their marker if they end stacked (1.5c)."""
    prev = ""
    for h in entered:
        for q in [q for q in at(state, h) if q.side != side and q.screen]:
            to = retreat_hex(state, q, prev or h)
            assert to, "may_enter checked the retreat"
            q.hex = to
            ctx.log(f"an enemy unit enters {h}: the Screening {q.id} retreats to {to} (BbF 1.5d)",
                    hexes=(h, to))
            retreat_loss(state, [q], ctx)      # TEC note 3: a retreat ended in a Minefield
        prev = h


def unstack(state: BcsState, ctx: Context) -> None:
    """A Screening unit that ends a move or retreat stacked with another combat unit loses its
    Screen marker, as does every Screening unit involved (BbF 1.5c)."""
    for p in sorted(state.pieces.values(), key=lambda q: q.id):
        if p.screen and p.status == "map" and combat_count(state, p.hex) > 1:
            for q in at(state, p.hex):
                if q.screen:
                    q.screen = False
                    ctx.log(f"{q.id} is stacked in {q.hex}: its Screen marker is removed "
                            f"(BbF 1.5c)", hexes=(q.hex,))
        elif p.screen and p.status != "map":
            p.screen = False
