"""Support fire markers (7.0-7.2, 12.0): the turn allotment, face-down draws, reveals."""

from __future__ import annotations

from pbem.core.game import Context
from pbem.games.kasserine.board import occupancy
from pbem.games.kasserine.scenario import KasserineData
from pbem.games.kasserine.state import HIDDEN, KasserineState, Marker, SidePrivate, SIDES, other

PREFIX = {"axis": "axmk", "us": "usmk"}


def loc_losses(state: KasserineState, data: KasserineData, side: str) -> int:
    """Supply symbol hexes of side now occupied by an enemy unit (12.0)."""
    occ = occupancy(state)
    return sum(1 for h in data.supply[side] if h in occ and state.units[occ[h]].side == other(side))


def allot(state: KasserineState, data: KasserineData, ctx: Context) -> None:
    """Support Fire Marker Phase: each side takes its N lowest markers, minus 12.0 losses (7.1)."""
    for side in SIDES:
        lost = loc_losses(state, data, side)
        n = max(0, data.allotment(state.turn, side) - lost)
        values = data.pools[side][:n]                    # lowest first (7.1, KAS-G12)
        priv = state.private.setdefault(side, SidePrivate())
        priv.unused = [Marker(id=f"{PREFIX[side]}{state.turn:02d}{k + 1:02d}{'abcdefgh'[k % 8]}",
                              value=v) for k, v in enumerate(values)]
        priv.facedown = []
        state.allotment[side] = n
        state.loc_lost[side] = lost
        state.spent[side] = []
        if lost:
            ctx.log(f"{side} loses {lost} support fire marker(s) this turn: supply symbol "
                    "hex(es) occupied by the enemy (12.0)", kind="supply")
    ctx.log(f"Game turn {state.turn}: Support Fire Marker Phase; both sides receive their "
            "allotments", kind="phase")


def draw(state: KasserineState, side: str, purpose: str, ctx: Context, *, public: bool) -> Marker:
    """Draw one marker at random from side's unused allotment (7.2); hidden unless public."""
    priv = state.private[side]
    if len(priv.unused) == 1:
        i = 0
    else:
        vis = "all" if public else (side if state.options.owner_sees_facedown else HIDDEN)
        i = ctx.roll(len(priv.unused), f"{side} support fire draw: {purpose}", visible_to=vis) - 1
    return priv.unused.pop(i)


def commit_facedown(state: KasserineState, side: str, purpose: str, ctx: Context) -> None:
    """Place one marker face down on the current combat (8.2.1b).

    Under the house option facedown_draw = 'reveal' (which a sealed game sets: nobody may see a
    face-down value before step 5, KAS-G12) the marker is drawn only at the reveal, in public
    (`reveal`): the same draw without replacement from the same allotment, since a side draws
    nothing else while its markers lie face down (8.0-e). Until then the face-down marker is a
    placeholder with no value."""
    priv = state.private[side]
    if drawn_at_reveal(state):
        priv.facedown.append(Marker(id=f"{PREFIX[side]}-down{len(priv.facedown) + 1}", value=0))
        return
    m = draw(state, side, purpose, ctx, public=False)
    state.private[side].facedown.append(m)
    if state.options.owner_sees_facedown:
        ctx.log(f"your face-down marker is +{m.value}", visible_to=side)


def reveal(state: KasserineState, side: str, ctx: Context | None = None) -> list[int]:
    """Flip side's face-down markers (8.2.1b step 5); they are spent for the game turn (7.2).
    Under facedown_draw = 'reveal' they are drawn now, with public dice (see commit_facedown)."""
    priv = state.private[side]
    if drawn_at_reveal(state) and priv.facedown:
        if ctx is None:
            raise AssertionError("a sealed reveal draws its markers: it needs the dice")
        n, priv.facedown = len(priv.facedown), []
        vals = [draw(state, side, f"face-down marker {k + 1} revealed", ctx, public=True).value
                for k in range(n)]
    else:
        vals = [m.value for m in priv.facedown]
        priv.facedown = []
    state.spent.setdefault(side, []).extend(vals)
    return vals


def unused_count(state: KasserineState, side: str) -> int:
    """Markers side may still commit this game turn (under facedown_draw = 'reveal' the
    face-down placeholders stand for markers still among the unused ones until the reveal)."""
    priv = state.private[side]
    return len(priv.unused) - (len(priv.facedown) if drawn_at_reveal(state) else 0)


def drawn_at_reveal(state: KasserineState) -> bool:
    """True if face-down markers are drawn at the step-5 reveal (house option facedown_draw)."""
    return state.options.facedown_draw == "reveal"
