"""What one side may know (1.5): its own pieces in full; of an enemy stack only the top unit
(5.5e: longest Range, then greatest AV) and how many units it holds, never steps; enemy
Prepared Defense and Air Points hidden (1.5b); Screen markers seen (BbF 1.5). Of the enemy's Support (9.2) each HQ's Support
markers (1.5b: Red, Limited, Stand Off) and the Range of its Stand Off Support (its Engagement
Zones are seen), the Dropped Support markers in each stack and whether a unit there has Support
(its Support AV ZOC is seen); never which units are in Support nor their steps."""

from __future__ import annotations

import msgspec

from pbem.core.game import PrivateDraw
from pbem.games.bcs.board import face, is_av
from pbem.games.bcs.support import has_access, in_support, markers, stand_off_range
from pbem.games.bcs.state import (Activation, BcsState, FormationState, Piece, Reaction,
                                  SetupZone, SidePrivate, Smoothing, other)


class EnemyStack(msgspec.Struct, kw_only=True):
    """An enemy hex as seen: the top combat unit and its side showing, the unit count (1 when
    the house option hides counts), and the HQs and Combat Trains in it (not hidden)."""

    hex: str
    top: str = ""
    face: str = ""
    units: int = 0
    others: list[str] = []
    dropped: int = 0             # Dropped Support markers on its units (9.2i: markers are seen)
    supported: bool = False      # no AV unit there and a unit with its Formation's Support now
                                 # (9.2g: a Support AV ZOC, an Engagement target, no Shock
                                 # Attack or Attack by Fire; an AV unit gives all that anyway)
    screen: bool = False         # a Screen marker on its unit (BbF 1.5: a marker is seen; a
                                 # Screening unit stands alone, 1.5c)


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
    support: dict[str, list[str]] = {}   # Formation -> its HQ's Support markers (9.2e, 1.5b:
                                 # red, limited, stand_off; public), both sides
    stand_off_range: dict[str, int] = {} # Formation -> the Range of its Stand Off Support (its
                                 # Engagement Zones are seen, 6.1a, 7.1m)
    assigning: list[str] = []    # the sides still to decide in the Assignment Phase (public)
    unassigned: list[str] = []   # independents unassigned when it began (public, GAPS 3.2-7)
    rommel: str = ""             # Rommel's box (BbF 2.1: the display on Map B is public)
    wait: Reaction | None = None # a question waiting for a side's answer: who, which topic,
                                 # where (_wait: not the order being resolved)
    # BbF 4.0 and 3.1 (public): the Victory Objective's draw record, the objective once opened
    # (the Axis's own is in his `private`), units exited for victory, Minefields (-> breached)
    objective_draw: PrivateDraw | None = None
    objective: str = ""
    exits: dict[str, str] = {}
    mines: dict[str, bool] = {}
    mines_due: int = 0           # Minefield markers the Allies still place (BbF 3.1a, public)
    # the Set-up decision before turn 1 (1.4A, 1.4D, 1.4E; public: the set-up is printed)
    setting: list[str] = []
    setup_zones: dict[str, SetupZone] = {}
    setup_fixed: dict[str, str] = {}
    weather_due: bool = False    # the first turn's weather is still to be rolled (1.4G)
    # Optional 9's chit cup (public; UNSET, never encoded, without the option: smoothing.py)
    smoothing: Smoothing | msgspec.UnsetType = msgspec.UNSET


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
            st.dropped = sum(1 for p in units if p.dropped)
            st.screen = any(p.screen for p in units)
            st.supported = not any(is_av(p) for p in units) and \
                any(has_access(state, p) for p in units)
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
                   support={f: markers(state, f) for f in sorted(state.formations)
                            if in_support(state, f)},
                   stand_off_range={f: r for f in sorted(state.formations)
                                    if (r := stand_off_range(state, f))},
                   assigning=list(state.assigning), unassigned=list(state.unassigned),
                   rommel=state.rommel,
                   wait=_wait(state, side), objective_draw=state.objective_draw,
                   objective=state.objective, exits=dict(state.exits), mines=dict(state.mines),
                   mines_due=state.mines_due,
                   setting=list(state.setting), setup_zones=dict(state.setup_zones),
                   setup_fixed=dict(state.setup_fixed), weather_due=state.weather_due,
                   smoothing=msgspec.structs.replace(state.smoothing)
                   if isinstance(state.smoothing, Smoothing) else msgspec.UNSET)


def _wait(state: BcsState, side: str) -> Reaction | None:
    """What both sides may know of a question waiting (reactions.py): who is asked what where;
    the choices besides the modes (a hex, an order of his units) only for the side asked."""
    w = state.wait
    if w is None:
        return None
    mine = side == w.side
    return Reaction(side=w.side, topic=w.topic, by=w.by, hex=w.hex,
                    options=list(w.options) if mine else [], subject=w.subject if mine else "")


def _activation(state: BcsState, side: str) -> Activation | None:
    """The Activation under way; the enemy's moving stack is not named (it may be hidden)."""
    act = state.activation
    if act is not None and act.dropped:       # 9.2j: the enemy's hidden units stay unnamed
        hidden = set(secrets(state, other(side)))
        act = msgspec.structs.replace(act, dropped=[u for u in act.dropped if u not in hidden])
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
    obj = state.private[side].objective          # BBF-4.0-a: the Axis's Victory Objective
    if obj and not state.objective:
        from pbem.games.bcs.objective import secret_words

        out += secret_words(obj)
    return out
