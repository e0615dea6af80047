"""What one side may know (1.5): its own pieces in full; of an enemy stack only the top unit
(5.5e: longest Range, then greatest AV) and how many units it holds, never steps; enemy
Prepared Defense and Air Points hidden (1.5b)."""

from __future__ import annotations

import msgspec

from pbem.games.bcs.board import face
from pbem.games.bcs.state import (Activation, BcsState, FormationState, Piece, Reaction,
                                  SidePrivate, other)


class EnemyStack(msgspec.Struct, kw_only=True):
    """An enemy hex as seen: the top combat unit and its side showing, the unit count (1 when
    the house option hides counts), and the HQs and Combat Trains in it (not hidden)."""

    hex: str
    top: str = ""
    face: str = ""
    units: int = 0
    others: list[str] = []


class BcsView(msgspec.Struct, kw_only=True):
    """One side's view of the game."""

    side: str
    scenario: str
    turn: int
    date: str
    weather: str
    phase: str
    next_side: str
    own: list[Piece]
    formations: list[FormationState]
    enemy: list[EnemyStack]
    enemy_arriving: int
    activation: Activation | None
    traffic: list[str]
    objs: list[str]
    control: dict[str, str]
    private: SidePrivate
    stack_counts: bool = True    # enemy stacks show their unit count (option stack_count_visible)
    options: dict[str, str | bool | int] = {}   # the house options (public, in the genesis)
    air_due: bool = False        # this turn's Air Points are still to be rolled
    enemy_off: list[Piece] = []  # enemy HQs and Combat Trains off the map (never hidden, 1.5)
    assigning: list[str] = []    # the sides still to decide in the Assignment Phase (public)
    unassigned: list[str] = []   # independents unassigned when it began (public, GAPS 3.2-7)
    rommel: str = ""             # Rommel's box (BbF 2.1: the display on Map B is public)
    wait: Reaction | None = None # a question waiting for a side's answer: who, which topic,
                                 # where (_wait: not the order being resolved)


def top_unit(units: list[Piece]) -> Piece:
    """The unit on top of a stack (5.5e): the longest printed Range, ties the greatest AV."""
    def key(p: Piece) -> tuple[int, int, str]:
        """Longest Range first, then greatest AV, then id."""
        f = face(p)
        assert f is not None
        return (-f.range, -(f.av or 0), p.id)
    return sorted(units, key=key)[0]


def build_view(state: BcsState, side: str) -> BcsView:
    """The view of one side: a copy, sharing nothing with the state."""
    v = _build_view(state, side)
    return msgspec.convert(msgspec.to_builtins(v), type=BcsView)


def _build_view(state: BcsState, side: str) -> BcsView:
    enemy = other(side)
    stacks: dict[str, EnemyStack] = {}
    for p in state.pieces.values():
        if p.side != enemy or p.status != "map":
            continue
        st = stacks.setdefault(p.hex, EnemyStack(hex=p.hex))
        if p.kind != "unit":
            st.others.append(p.id)
    counts = state.options.get("stack_count_visible", "count") == "count"
    for h, st in stacks.items():
        units = [p for p in state.pieces.values()
                 if p.side == enemy and p.status == "map" and p.hex == h and p.kind == "unit"]
        if units:
            t = top_unit(units)
            st.top, st.face, st.units = t.id, t.face, len(units) if counts else 1
        st.others.sort()
    forms = [f if f.side == side else msgspec.structs.replace(f, prepared_defense=False)
             for f in sorted(state.formations.values(), key=lambda f: f.id)
             if f.side == side or f.in_play]
    return BcsView(side=side, scenario=state.scenario, turn=state.turn, date=state.date,
                   weather=state.weather, phase=state.phase, next_side=state.next_side,
                   own=[p for p in sorted(state.pieces.values(), key=lambda p: p.id)
                        if p.side == side],
                   formations=forms, enemy=[stacks[h] for h in sorted(stacks)],
                   enemy_arriving=sum(1 for p in state.pieces.values()
                                      if p.side == enemy and p.status == "off"),
                   activation=_activation(state, side), traffic=list(state.traffic),
                   objs=list(state.objs), control=dict(state.control),
                   private=state.private[side], stack_counts=counts,
                   options=dict(state.options), air_due=state.air_due,
                   enemy_off=[p for p in sorted(state.pieces.values(), key=lambda p: p.id)
                              if p.side == enemy and p.kind != "unit" and p.status == "off"],
                   assigning=list(state.assigning), unassigned=list(state.unassigned),
                   rommel=state.rommel,
                   wait=_wait(state))


def _wait(state: BcsState) -> Reaction | None:
    """What both sides may know of a question waiting (reactions.py): who is asked what where."""
    w = state.wait
    return None if w is None else Reaction(side=w.side, topic=w.topic, by=w.by, hex=w.hex)


def _activation(state: BcsState, side: str) -> Activation | None:
    """The Activation under way; the enemy's moving stack is not named (it may be hidden)."""
    act = state.activation
    if act is None or act.side == side:
        return act
    return msgspec.structs.replace(act, stack=[])


def secrets(state: BcsState, side: str) -> list[str]:
    """What the other side must never see: the ids of side's units under the top of a stack
    that no event both sides see has named (``Piece.revealed``: an Attack, Assist, defending
    AR unit, Firer, Engagement target or Shock unit is announced, an arrival is placed in
    view; tests/conformance/test_bcs_hidden.py lists what may name one). Hidden numbers (steps,
    Air Points, Prepared Defense) are checked by changing them (tests/conformance)."""
    out: list[str] = []
    by_hex: dict[str, list[Piece]] = {}
    for p in state.pieces.values():
        if p.side == side and p.status == "map" and p.kind == "unit":
            by_hex.setdefault(p.hex, []).append(p)
    for units in by_hex.values():
        t = top_unit(units)
        out += [p.id for p in units if p.id != t.id and not p.revealed]
    return out
