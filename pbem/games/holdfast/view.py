"""Per-side views (HF-4-a, HF-8.1-j, GAPS 1.2): own units in full, enemy blocks as hex and side."""

from __future__ import annotations

import msgspec

from pbem.games.holdfast.data import World
from pbem.games.holdfast.options import OPTIONS
from pbem.games.holdfast.state import HoldfastState, MoveSeen, PendingHits, Result, enemy
from pbem.games.holdfast.supply import supply_report


class OwnUnit(msgspec.Struct, kw_only=True):
    """One of the viewer's own units, with its printed values and current state."""

    id: str
    name: str
    nationality: str
    type: str
    support: str
    drc: int
    th: int
    mp: int
    max_sp: int
    sp: int
    where: str
    hex: str
    entry_turn: int
    moved: bool
    attacked: bool
    used: bool
    gray: bool
    in_supply: bool | None
    # the owner's own bookkeeping of this player turn (read by the rules: standin() needs it)
    placed: int = 0            # placement sequence number this player turn (0 = not placed)
    bought: int = 0            # steps bought this player turn
    reentry_turn: int = 0      # turn a rebought replacement re-enters (ERR-HF-8.2-b)


class Block(msgspec.Struct, kw_only=True):
    """An enemy block as the viewer sees it: its hex and colour only."""

    hex: str
    side: str


class HoldfastView(msgspec.Struct, kw_only=True):
    """What one side may know now."""

    side: str
    scenario: str
    turn: int
    turn_label: str
    phase: str
    step: str
    active: str
    weather: str
    weather_roll: int
    rp: dict[str, int]
    control: dict[str, str]
    units: list[OwnUnit]
    blocks: list[Block]
    moves: list[MoveSeen]
    combats: list[str]
    leader_mp_used: bool
    pending_hits: PendingHits | None
    result: Result | None
    options: dict[str, str | int | bool] = {}   # house options not at their default (public)
    minor_ports: dict[str, str] = {}            # own minor port claims this player turn
    standing: dict[str, str] = {}               # own standing orders
    slots: dict[str, int] = {}                  # block slots given per side (public)
    own_slots: dict[str, int] = {}              # own unit -> its block slot (sealed mode)
    due: dict[str, int] = {}                    # units each side may place next (public)
    lost: dict[str, int] = {}                   # blocks eliminated in combat, not rebuilt


def build_view(state: HoldfastState, w: World, side: str) -> HoldfastView:
    """The view of one side."""
    pub = state.public
    priv = state.private[side]
    supply = supply_report(state, w, side) if pub.phase != "over" else {}
    units = []
    for uid, u in sorted(priv.units.items()):
        s = w.units[uid]
        units.append(OwnUnit(id=uid, name=s.name, nationality=s.nationality, type=s.type,
                             support=s.support, drc=s.drc, th=s.th, mp=s.mp, max_sp=s.max_sp,
                             sp=u.sp, where=u.where, hex=u.hex, entry_turn=u.entry_turn,
                             moved=u.moved, attacked=u.attacked, used=u.used, gray=u.gray,
                             in_supply=supply.get(uid), placed=u.placed, bought=u.bought,
                             reentry_turn=u.reentry_turn))
    foe = enemy(side)
    blocks = sorted((Block(hex=u.hex, side=foe) for u in state.private[foe].units.values()
                     if u.where == "map"), key=lambda b: b.hex)
    row = w.turns.get(pub.turn)
    return HoldfastView(side=side, scenario=pub.scenario, turn=pub.turn,
                        turn_label=row.label if row else "set-up", phase=pub.phase,
                        step=pub.step, active=pub.active, weather=pub.weather,
                        weather_roll=pub.weather_roll, rp=dict(pub.rp),
                        control=dict(pub.control), units=units, blocks=blocks,
                        moves=list(pub.moves), combats=list(pub.combats),
                        leader_mp_used=priv.leader_mp_used, pending_hits=priv.pending_hits,
                        result=pub.result, options={k: x for k, x in pub.options.items()
                                                    if k not in OPTIONS or OPTIONS[k].default != x},
                        minor_ports=dict(priv.minor_ports), standing=dict(priv.standing),
                        slots=dict(pub.slots), own_slots=dict(priv.slots), due=dict(pub.due),
                        lost=dict(pub.lost))


def secrets(state: HoldfastState, w: World, side: str) -> list[str]:
    """Names and ids of side's units never revealed to the enemy (GAPS 1.2 items 1, 3-5)."""
    out: list[str] = []
    for uid, u in sorted(state.private[side].units.items()):
        if not u.revealed:
            out += [uid, w.units[uid].name]
    return out
