"""What one side may know (view), and the strings that are a side's hidden information (secrets)."""

from __future__ import annotations

import msgspec

from pbem.games.kasserine.state import standing_of
from pbem.games.kasserine.board import data_of, values
from pbem.games.kasserine.options import Options
from pbem.games.kasserine.state import Combat, KasserineState, MoveSeen, Result, Standing, Wait
from pbem.games.kasserine.support import drawn_at_reveal, unused_count
from pbem.games.kasserine.victory import captured


class UnitView(msgspec.Struct, kw_only=True):
    """A counter as every player sees it (all counters are face up)."""

    id: str
    side: str
    hex: str
    status: str
    values: str
    depleted: bool
    moved: bool                   # moved (or arrived) this player turn, in either phase
    attacked: bool
    mobile_moved: bool = False    # ... in the Mobile Movement Phase (5.5-a)
    barred: str = ""              # "advanced" or "displaced": no more attacks (8.5-g, 8.3.1-e)


class MarkersView(msgspec.Struct, kw_only=True):
    """The viewer's own support fire markers (never the enemy's)."""

    allotment: int
    not_revealed: list[int]       # values still hidden in the allotment, face-down ones included
    unused: int                   # markers not yet committed
    facedown: int
    facedown_values: list[int] | None   # only under option owner_sees_facedown
    spent: list[int]


class KasserineView(msgspec.Struct, kw_only=True):
    """What one side may know."""

    side: str
    turn: int
    active: str
    phase: str
    units: list[UnitView]
    released: list[str]
    triggered: dict[str, int]
    holder: dict[str, str]
    captured: list[str]
    max_captured: int
    loc_lost: dict[str, int]
    spent: dict[str, list[int]]
    combat: Combat | None
    last_combat: Combat | None
    wait: Wait | None
    moves: list[MoveSeen]         # this player turn's and the previous one's (all face up)
    markers: MarkersView
    standing: Standing
    result: Result | None
    scenario: str = ""
    options: Options | None = None      # the house options (public: in the genesis)
    targets: list[str] = []             # units attacked in the current phase (8.0-c)
    bombarded: dict[str, int] = {}      # hex -> markers that bombarded it this player turn


def build_view(state: KasserineState, side: str) -> KasserineView:
    """Public state, the viewer's own markers and standing orders; no face-down value of anyone
    (unless the owner-sees option), nothing of the enemy's allotment or standing orders."""
    data = data_of(state)
    units = []
    for uid, u in state.units.items():
        a, d, m = values(data, state, uid)
        units.append(UnitView(id=uid, side=u.side, hex=u.hex, status=u.status,
                              values=f"{a}-{d}-{m}",
                              depleted=data.units[uid].steps == 2 and u.steps == 1,
                              moved=u.moved or u.mobile_moved, attacked=u.attacked,
                              mobile_moved=u.mobile_moved, barred=u.barred))
    priv = state.private[side]
    sees = state.options.owner_sees_facedown
    # drawn at the reveal: a face-down marker is a placeholder still among the unused ones, so
    # the values not revealed are the unused ones
    late = drawn_at_reveal(state)
    hidden = priv.unused if late else priv.unused + priv.facedown
    markers = MarkersView(
        allotment=state.allotment.get(side, 0),
        not_revealed=sorted(m.value for m in hidden),
        unused=unused_count(state, side), facedown=len(priv.facedown),
        facedown_values=[m.value for m in priv.facedown] if sees else None,
        spent=list(state.spent.get(side, [])))
    return KasserineView(
        side=side, turn=state.turn, active=state.active, phase=state.phase, units=units,
        released=list(state.released), triggered=dict(state.triggered), holder=dict(state.holder),
        captured=captured(state, data), max_captured=state.max_captured,
        loc_lost=dict(state.loc_lost), spent={k: list(v) for k, v in state.spent.items()},
        combat=_combat_for(state.combat, side, state.active), last_combat=state.last_combat,
        wait=state.wait, markers=markers,
        moves=[msgspec.structs.replace(m, path=list(m.path)) for m in state.moves],
        standing=standing_of(priv.standing), result=state.result,
        scenario=state.scenario, options=state.options, targets=list(state.targets),
        bombarded=dict(state.bombarded))


def standing_lines(st: Standing) -> list[str]:
    """A side's standing orders as order text."""
    out = []
    if st.support:
        out.append(f"standing support {st.support}"
                   + (f" min {st.support_min:+d}" if st.support_min is not None else ""))
    for topic in ("stiff", "retreat", "box"):
        if getattr(st, topic):
            out.append(f"standing {topic} {getattr(st, topic)}")
    if st.displace != "auto":
        out.append(f"standing displace {st.displace}")
    return out


def _combat_for(c: Combat | None, side: str, active: str) -> Combat | None:
    """The current combat as side may see it: the attacker's pre-committed step 3, advance and
    loss are his intentions, hidden from the defender until they happen."""
    if c is None or side == active:
        return c
    return msgspec.structs.replace(c, sf=min(c.sf, 1), sf_ask=False, advance=None, loss="")


def secrets(state: KasserineState, side: str) -> list[str]:
    """side's hidden information now: the ids of its unrevealed markers (unused or face down).

    Marker ids live only in the private part and are never shown in any view or report, not
    even the owner's, so finding one in the other side's bytes means the private part leaked.
    Standing orders are not listed: their text is the same for both sides and would match the
    other side's own panel; view() only ever copies the viewer's own standing orders.
    When face-down markers are drawn at the reveal (a sealed game) the markers are public
    arithmetic until the reveal draws them in public, so none is secret (the sealed leak test
    searches for standing orders instead).
    """
    priv = state.private.get(side)
    if priv is None or drawn_at_reveal(state):   # no marker is drawn before the public reveal
        return []
    return [m.id for m in priv.unused + priv.facedown]
