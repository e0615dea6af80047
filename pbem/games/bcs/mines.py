"""BbF 3.1: Minefields, hex markers (BBF-G20, house option mines_as_hex_markers), both sides see.

- **Placement (BBF-3.1a).** Markers due by the Order of Arrival (17 Feb: three, `ooa.toml`'s
  `markers = {minefield = 3}`) are placed by the US player in that turn's Reinforcement &
  Weather Phase, after the reinforcements and before the weather roll: the phase ``mines`` asks
  the Allies one `mine HEX` per marker, unbreached, in a hex of the playing area within the
  Stark Inf TF HQ's Command Radius, at least 4 hexes from every Axis combat unit, one marker a
  hex. Choices made here: a marker that cannot be placed (the Stark HQ is not on the map, as in
  5.2, "No minefields can be placed as Stark Inf TF HQ is not in play", or no hex is left) is
  lost, never kept for later; the placement is not optional while a hex is left.
- **Movement (BBF-3.1b-1, -2; TEC note 2).** An Axis piece never enters an unbreached minefield
  hex (moving through it, advancing, retreating, moving back to stack or being placed) except
  a breach: one Axis combat unit with an Assault Arrow and its Leg MA showing, moving alone,
  enters it as the last hex of its move at the cost of all its MA (TEC row "all": it needs an MP
  left, or its one-hex minimum, 5.1c); a road does not help (note 2). It is Finished, no other
  Axis unit enters the hex in that Activation, and the marker flips to Breached at the end of
  the Activation (Clean Up) for good. A breached minefield and every minefield for an Allied
  unit has no movement effect (the hex's other terrain, its road used normally). No Axis unit
  attacks out of an unbreached minefield hex (Attack or Assist, Shock Attack, Engagement,
  Attack by Fire).
- **Effects (BBF-3.1c; TEC notes 3, 4).** The chart's one-point DRM ("Unit in a Minefield hex",
  sign by the option minefield_drm, BBF-G3) against a unit in a minefield hex, breached or not,
  whatever its side: the defending AR unit on the Combat Table, the target on the Engagement
  Table, each target unit on the Barrage Table (a Barrage or an Attack by Fire); by note 4, an
  Attack unit or Engagement Firer in a minefield hex has it against it when the Allied unit it
  attacks is adjacent to that hex. A unit ending a retreat (after combat, Voluntary, a Screen's)
  in a minefield hex loses one more step.
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context, Decision
from pbem.games.bcs.board import bdata, face, on_area
from pbem.games.bcs.state import BcsState, Piece

MARKER = "minefield"          # the marker id of counters.toml and ooa.toml
STARK = "stark"               # 3.1a: within the Stark Inf TF HQ's Command Radius
AXIS_DISTANCE = 4             # 3.1a: at least 4 hexes from every Axis unit
MODIFIER = "Unit in a Minefield hex (TEC note 3)"


def arriving(state: BcsState) -> int:
    """Minefield markers the US player receives this turn (the scenario's reinforcements: its
    own list or the Order of Arrival)."""
    s = bdata().scenarios[state.scenario]
    pool = list(s.arrival) if s.reinforcements == "scenario" else \
        list(bdata().ooa.arrival) if s.reinforcements in ("ooa", "ooa_playing_area") else []
    return sum(a.markers.get(MARKER, 0) for a in pool
               if a.side == "allied" and a.turn == state.date)


def stark_hq(state: BcsState) -> Piece | None:
    """The Stark Inf TF HQ when it is on the map (None otherwise: not in play)."""
    p = state.pieces.get(bdata().formations[STARK].hq)
    return p if p is not None and p.status == "map" else None


def why_not(state: BcsState, hex_id: str) -> str:
    """Why a Minefield marker may not go in a hex (3.1a), "" when it may."""
    hq = stark_hq(state)
    if hq is None:
        return "the Stark Inf TF HQ is not on the map"
    grid = bdata().game_map.grid
    if not on_area(state, hex_id):
        return f"{hex_id} is not a hex of the playing area"
    if hex_id in state.mines:
        return f"{hex_id} holds a Minefield marker already"
    cr = bdata().hqs[hq.id].command_radius
    if grid.distance(hq.hex, hex_id) > cr:
        return f"{hex_id} is outside the Stark Inf TF HQ's Command Radius ({cr} hexes of {hq.hex})"
    near = [p.hex for p in state.pieces.values() if p.side == "axis" and p.kind == "unit"
            and p.status == "map" and grid.distance(p.hex, hex_id) < AXIS_DISTANCE]
    if near:
        return f"{hex_id} is {min(grid.distance(h, hex_id) for h in near)} hexes from an Axis " \
               f"unit (in {sorted(near)[0]}): at least {AXIS_DISTANCE} are needed"
    return ""


def legal_hexes(state: BcsState) -> list[str]:
    """Every hex a Minefield marker may be placed in now (3.1a)."""
    hq = stark_hq(state)
    if hq is None:
        return []
    grid = bdata().game_map.grid
    cr = bdata().hqs[hq.id].command_radius
    return sorted(h for h in grid.within(hq.hex, cr) if not why_not(state, h))


def arrive(state: BcsState, ctx: Context) -> bool:
    """The Reinforcement Phase: this turn's Minefield markers; True when the Allies must place
    them now (phase ``mines``), False when none arrive or none can be placed (they are lost)."""
    n = arriving(state)
    if not n:
        return False
    if stark_hq(state) is None:
        ctx.log(f"{_count(n)} arrive but cannot be placed: the Stark Inf TF HQ is not on the map "
                f"(BbF 3.1a); they are lost")
        return False
    if not legal_hexes(state):
        ctx.log(f"{_count(n)} arrive but no hex within the Stark Inf TF HQ's Command Radius is "
                f"{AXIS_DISTANCE} hexes from every Axis unit (BbF 3.1a); they are lost")
        return False
    state.mines_due, state.phase = n, "mines"
    ctx.log(f"the US player receives {_count(n)} to place (BbF 3.1a)")
    return True


def _count(n: int) -> str:
    return f"{n} Minefield marker{'s' if n != 1 else ''}"


def place(state: BcsState, side: str, hex_id: str, ctx: Context) -> None:
    """`mine HEX`: one marker placed unbreached (3.1a); when no hex is left for the others they
    are lost. IllegalOrder naming BBF-3.1a otherwise."""
    if state.phase != "mines" or state.mines_due <= 0:
        raise IllegalOrder("Minefield markers are placed only in the Reinforcement & Weather "
                           "Phase of their arrival turn", rule="BBF-3.1a")
    if side != "allied":
        raise IllegalOrder("only the US player places Minefield markers", rule="BBF-3.1a")
    why = why_not(state, hex_id)
    if why:
        raise IllegalOrder(f"no Minefield marker in {hex_id}: {why}", rule="BBF-3.1a")
    state.mines[hex_id] = False
    state.mines_due -= 1
    ctx.log(f"the US player places a Minefield marker in {hex_id} (BbF 3.1a)", hexes=(hex_id,))
    if state.mines_due and not legal_hexes(state):
        ctx.log(f"no hex is left for the other {_count(state.mines_due)}: lost (BbF 3.1a)")
        state.mines_due = 0


def decision(state: BcsState) -> Decision:
    """The Allies' decision in the phase ``mines``: one `mine HEX` per marker still due."""
    hq = stark_hq(state)
    where = f"{hq.hex}, Command Radius {bdata().hqs[hq.id].command_radius}" if hq else "off map"
    return Decision(side="allied", kind="minefield",
                    prompt=f"place {_count(state.mines_due)} unbreached, each in a hex "
                           f"within the Stark Inf TF HQ's Command Radius ({where}) at least "
                           f"{AXIS_DISTANCE} hexes from every Axis unit: 'mine HEX' (BbF 3.1a; "
                           f"turn {state.turn}, {state.date})",
                    choices=tuple(f"mine {h}" for h in legal_hexes(state)))


# -- movement (3.1b, TEC note 2) ----------------------------------------------------------------

def closed(state: BcsState, p: Piece, hex_id: str) -> bool:
    """An unbreached minefield hex the piece may not enter but by a breach (3.1b): every Axis
    piece; Allied pieces are never kept out."""
    return p.side == "axis" and state.mines.get(hex_id) is False


def check_breach(state: BcsState, p: Piece, hex_id: str, moving: set[str], last: bool) -> None:
    """An Axis piece entering an unbreached minefield hex (3.1b): only as a breach by one Axis
    Assault Arrow unit with its Leg MA showing, alone, as its move's last hex, once an
    Activation per hex. IllegalOrder naming the rule otherwise."""
    f = face(p)
    if f is None:
        raise IllegalOrder(f"{p.id} may not enter the unbreached Minefield in {hex_id}: only an "
                           f"Axis combat unit breaches", rule="BBF-3.1b-1")
    if not f.assault_arrow or f.mclass != "leg":
        raise IllegalOrder(f"{p.id} may not enter the unbreached Minefield in {hex_id}: only an "
                           f"Axis unit with an Assault Arrow and its Leg MA showing breaches",
                           rule="BBF-3.1b-2")
    if len(moving) > 1:
        raise IllegalOrder(f"the Minefield in {hex_id} is breached by one unit moving alone",
                           rule="BBF-3.1b-2")
    act = state.activation
    if act is not None and hex_id in act.breaches:
        raise IllegalOrder(f"the Minefield in {hex_id} is being breached: only the breaching "
                           f"unit enters it", rule="BBF-3.1b-2")
    if not last:
        raise IllegalOrder(f"{p.id} may not move through the unbreached Minefield in {hex_id}: "
                           f"the breaching unit stops there, Finished", rule="BBF-3.1b-1")


def breach(state: BcsState, p: Piece, hex_id: str, ctx: Context | None) -> None:
    """The breaching unit is in the minefield hex: Finished; the marker flips at the end of the
    Activation (3.1b b)."""
    act = state.activation
    assert act is not None
    p.finished = True
    if hex_id not in act.breaches:
        act.breaches.append(hex_id)
    if ctx is not None:
        ctx.log(f"a unit breaches the Minefield in {hex_id} and is Finished (BbF 3.1b)",
                hexes=(hex_id,))


def flip_breached(state: BcsState, ctx: Context) -> None:
    """The end of the Activation: the minefields breached in it turn Breached for good."""
    act = state.activation
    if act is None:
        return
    for h in act.breaches:
        if state.mines.get(h) is False:
            state.mines[h] = True
            ctx.log(f"the Minefield in {h} is Breached (BbF 3.1b)", hexes=(h,))
    act.breaches = []


def check_attack_from(state: BcsState, side: str, uids: list[str]) -> None:
    """3.1b: no Axis unit attacks (Attack, Assist, Shock Attack, Engagement, Attack by Fire) out
    of an unbreached minefield hex."""
    for uid in uids:
        p = state.pieces.get(uid)
        if p is not None and p.side == side and p.status == "map" and closed(state, p, p.hex):
            raise IllegalOrder(f"{uid} is in the unbreached Minefield in {p.hex}: no attack out "
                               f"of it", rule="BBF-3.1b-1")


# -- effects (3.1c, TEC notes 3 and 4) ----------------------------------------------------------

def drm(state: BcsState) -> int:
    """The DRM against a unit in a minefield hex as the net of its own rating (Combat and
    Engagement Tables): the chart's value, its sign by the option minefield_drm (BBF-G3)."""
    from pbem.games.bcs.combat import modifier

    v = -abs(modifier(MODIFIER))
    return v if state.options.get("minefield_drm", "against_unit_in_minefield") == \
        "against_unit_in_minefield" else -v


def against(state: BcsState, hex_id: str) -> list[tuple[str, int]]:
    """Note 3: the DRM of a unit in this hex defending or targeted (none outside minefields)."""
    return [("Minefield", drm(state))] if hex_id in state.mines else []


def against_attacker(state: BcsState, p: Piece, from_hex: str,
                     target: str) -> list[tuple[str, int]]:
    """Note 4: the DRM of an Axis Attack unit or Firer in a minefield hex, when the Allied
    unit it attacks (in ``target``) is adjacent to that hex."""
    if p.side != "axis" or from_hex not in state.mines or not target:
        return []
    if target not in bdata().game_map.grid.neighbours(from_hex):
        return []
    return [("Minefield", drm(state))]


def barrage_drm(state: BcsState, hex_id: str) -> int:
    """Note 3 on the Barrage Table (1d6, a loss at or above the row's number): added to the die,
    +1 against the unit (or -1 with minefield_drm = for_unit_in_minefield)."""
    return -drm(state) if hex_id in state.mines else 0


def retreat_loss(state: BcsState, units: list[Piece], ctx: Context) -> None:
    """Note 3: each unit ending a retreat in a minefield hex loses one more step."""
    for p in units:
        if p.status != "map" or p.hex not in state.mines or p.kind != "unit":
            continue
        p.steps -= 1
        ctx.log(f"{p.id} loses a step (retreat ended in a Minefield, TEC note 3)",
                visible_to=p.side)
        if p.steps <= 0:
            p.status, p.hex = "dead", ""
            ctx.log(f"{p.id} is destroyed")


def report_lines(mines: dict[str, bool], due: int) -> list[str]:
    """The Minefields as a report panel shows them (public)."""
    out = [f"{h}: {'Breached' if b else 'unbreached'}" for h, b in sorted(mines.items())]
    if due:
        out.append(f"{_count(due)} to place (BbF 3.1a)")
    return out
