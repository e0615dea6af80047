"""Support (BCS 9.2, BbF 1.6): what a unit in Support does for its Formation's units.

A unit in Support has ``Piece.status == "support"`` and no hex (9.2e: it is not a real unit; its
``formation`` is the Formation it supports). Moving units into and out of Support is the
Assignment Phase's job (assignment.py, 9.2d-f), which asks ``may_enter_support`` first.

Available Support (9.2b, 9.2c, 9.2i, 9.2j) goes to every Assault Arrow unit of the Formation on
the map that shows no AV and is not Dropped (a Dropped Support marker, ``Piece.dropped``, or a
Temporary drop for the rest of the Activation, ``Activation.dropped``). It gives (9.2g): a
Support AV ZOC (zoc.py), the Combat Table's "Dual or Supported" DRM (combat.py), an AV against
enemy Engagements (engage.py), protection from Shock Attacks and Attacks by Fire, and with a Stand
Off unit Engagement Zones and Stand Off shots (7.1m).

The owner's choices (9.2h: which Support unit; 7.1e: which supported unit is engaged) are read
from his standing orders through ``combat.mode`` (topics ``support`` and ``engaged``).
"""

from __future__ import annotations

from pbem.core.game import Context
from pbem.games.bcs.board import bdata, face, is_combat
from pbem.games.bcs.data import Face
from pbem.games.bcs.state import BcsState, Piece

NEVER_SUPPORT = ("US", "Italian")    # BbF 1.6: Not Trained to Support


def support_face(p: Piece) -> Face:
    """The side a unit shows in Support: its greater printed AV (9.2e)."""
    u = bdata().units[p.id]
    faces = [f for f in (u.move, u.deployed) if f is not None and f.av is not None]
    assert faces, p.id
    return max(faces, key=lambda f: f.av or 0)


def may_enter_support(state: BcsState, p: Piece) -> str | None:
    """Why a unit may not be put into Support (a one-line refusal naming the rule), or None:
    only non-Dual AV combat units (9.2a), never US or Italian ones (BbF 1.6); AV units never
    receive Support, and Dual units are AV units (9.2c). The Assignment Phase checks the rest
    (9.2d, 9.2e)."""
    if p.kind != "unit":
        return f"{p.id} is not a combat unit: only non-Dual AV units go into Support (BCS-9.2a-1)"
    if p.status == "support":
        return f"{p.id} is already in Support (BCS-9.2a-1)"
    if p.status == "dead":
        return f"{p.id} is not in play (BCS-9.2a-1)"
    u = bdata().units[p.id]
    faces = [f for f in (u.move, u.deployed) if f is not None]
    if not any(f.av is not None for f in faces):
        return f"{p.id} has no Armor Value: only non-Dual AV units go into Support (BCS-9.2a-1)"
    if support_face(p).assault_arrow:
        return (f"{p.id} is a Dual unit (Assault Arrow and AV): only non-Dual AV units go into "
                f"Support (BCS-9.2a-1, BCS-9.2c)")
    if u.nation in NEVER_SUPPORT:
        return f"{p.id} is a {u.nation} AV unit: US and Italian AV units never go into Support " \
               f"(BBF-1.6)"
    return None


def in_support(state: BcsState, fid: str) -> list[Piece]:
    """The Formation's units in Support (9.2), by id."""
    return sorted((p for p in state.pieces.values()
                   if p.status == "support" and p.formation == fid), key=lambda p: p.id)


def formation_removed(state: BcsState, fid: str, waiting: bool, ctx: Context) -> None:
    """A Formation that lost its last unit (9.1i): its units in Support leave play with the HQ,
    real units or not; when more of its units are due (9.1j) they stay in Support, off the map
    with the HQ, to return with it."""
    units = in_support(state, fid)
    if not units:
        return
    name = bdata().formations[fid].name
    ids = ", ".join(p.id for p in units)
    if waiting:
        ctx.log(f"{ids}: in Support of {name}, off the map, returning with its HQ (9.1j)",
                visible_to=units[0].side)
        return
    for p in units:
        p.status, p.hex = "dead", ""     # removed from play with their steps: never rebuilt
    ctx.log(f"{name}'s Support leaves play (9.1i)")
    ctx.log(f"{ids}, in Support of {name}, leave play (9.1i)", visible_to=units[0].side)


def eligible(p: Piece) -> bool:
    """A combat unit whose side showing could receive Support: an Assault Arrow and no AV (9.2b,
    9.2c; Unprepared units have none, 1.2d)."""
    f = face(p)
    return f is not None and f.assault_arrow and f.av is None


def temp_dropped(state: BcsState, p: Piece) -> bool:
    """Support Temporarily Dropped for the rest of the Activation (9.2j)."""
    return state.activation is not None and p.id in state.activation.dropped


def has_access(state: BcsState, p: Piece) -> bool:
    """Whether a unit on the map has its Formation's Support now (9.2b, 9.2c, 9.2i): eligible,
    not Dropped (marked or Temporary), and its Formation has something in Support (9.2i c)."""
    return (is_combat(p) and eligible(p) and not p.dropped and not temp_dropped(state, p)
            and any(q.status == "support" and q.formation == p.formation
                    for q in state.pieces.values()))


def supported(state: BcsState, p: Piece) -> list[Piece]:
    """The Support a unit on the map has access to (empty when none)."""
    return in_support(state, p.formation) if has_access(state, p) else []


def capability(sp: Piece) -> str:
    """The Unit Capabilities Chart row of a unit in Support: its AV class, a Light AV counting
    as Limited (9.2a)."""
    f = support_face(sp)
    return {"offensive": "Red AV", "limited": "Limited AV", "light": "Limited AV",
            "stand_off": "Stand Off AV"}[f.av_class]


def marker(sp: Piece) -> str:
    """The Support marker a unit in Support puts on its HQ (9.2e): red, limited or stand_off."""
    return {"Red AV": "red", "Limited AV": "limited", "Stand Off AV": "stand_off"}[capability(sp)]


def markers(state: BcsState, fid: str) -> list[str]:
    """The Support markers an HQ shows (9.2e and its display box: a Red marker covers Limited
    Support, which it can do all of)."""
    kinds = {marker(sp) for sp in in_support(state, fid)}
    if "red" in kinds:
        kinds.discard("limited")
    return [k for k in ("red", "limited", "stand_off") if k in kinds]


def gives_drm(sp: Piece, role: str) -> bool:
    """Whether a unit in Support gives the Combat Table's "Dual or Supported" DRM in attack or
    defense: the Unit Capabilities Chart's Support Attack / Support Defense columns, where the
    display box of 9.2 rules out Limited Support in attack ("not capable of giving a Support DRM
    for attack purposes"); Stand Off units are "more defensive (like Limited AV)" (1.2c) and are
    read the same way. Only Red Support helps an attack."""
    row = capability(sp)
    column = "Support Attack" if role == "attack" else "Support Defense"
    if role == "attack" and row != "Red AV":
        return False
    return bdata().cell("unit_capabilities", row, column) == "yes"


def combat_supported(state: BcsState, p: Piece, role: str) -> bool:
    """The Combat Table's "Supported" half of the "Dual or Supported" DRM for the AR unit
    (9.2g)."""
    return any(gives_drm(sp, role) for sp in supported(state, p))


def _rank(sp: Piece) -> tuple[int, int, str]:
    f = support_face(sp)
    return (f.av or 0, f.range, sp.id)


def choose(state: BcsState, side: str, options: list[Piece]) -> Piece:
    """The unit in Support the owner uses when several could serve (9.2h), by his standing order
    ``support``: strongest (the greatest AV, then the longest Range) or weakest."""
    from pbem.games.bcs.combat import mode
    how = mode(state, side, "support")
    ranked = sorted(options, key=_rank)
    return ranked[0] if how == "weakest" else ranked[-1]


def reach(sp: Piece, frm: str, to: str) -> bool:
    """Whether a unit in Support, hosted in hex frm, reaches hex to: its Range (Support face) and
    4 hexes (BbF 1.1e), a clear line beyond adjacent hexes (6.1b)."""
    from pbem.games.bcs.zoc import VISIBILITY, clear_line
    n = bdata().game_map.grid.distance(frm, to)
    return 1 <= n <= min(support_face(sp).range, VISIBILITY) and (n == 1 or clear_line(frm, to))


def establishment_path(state: BcsState, p: Piece) -> bool:
    """A Support Establishment Safe Path (1.6: the Safe Path traced with Tac MA); a unit in a
    hex Prohibited to Tac MA has none (its Support could not reach it: 9.2i a)."""
    from pbem.games.bcs.command import safe_path
    from pbem.games.bcs.rules_data import mp_cost
    from pbem.games.bcs.terrain import hex_row
    if mp_cost(bdata().terrain[hex_row(p.hex)], "tac", state.weather == "Rain") == "P":
        return False
    return safe_path(state, p, "tac")


def may_restore(state: BcsState, p: Piece) -> bool:
    """9.2i's three conditions (and 9.2j's two): in Command Radius, the Formation has something
    in Support, a Support Establishment Safe Path."""
    from pbem.games.bcs.command import in_radius
    return bool(in_support(state, p.formation)) and in_radius(state, p) \
        and establishment_path(state, p)


def drop(state: BcsState, units: list[Piece], ctx: Context, why: str) -> None:
    """A Target Drop (7.1L): every unit of the stack that could have Support loses it, for the
    rest of the Activation when it is in Command Radius with a Support Establishment Safe Path
    (9.2j, Temporary), otherwise by a Dropped Support marker (9.2i)."""
    act = state.activation
    for p in units:
        if not is_combat(p) or not eligible(p) or p.dropped or temp_dropped(state, p):
            continue
        from pbem.games.bcs.command import in_radius
        if act is not None and in_radius(state, p) and establishment_path(state, p):
            act.dropped.append(p.id)
            _log(ctx, p, f"Support Temporarily Dropped for the rest of the Activation ({why}, "
                         f"9.2j)")
        else:
            p.dropped = True
            _log(ctx, p, f"a Dropped Support marker ({why}, 9.2i)")


def _log(ctx: Context | None, p: Piece, text: str) -> None:
    """A Support marker event: public by hex (markers are seen), the unit named to its owner
    (nothing is logged where the caller has no event log: the marker itself is seen)."""
    if ctx is None:
        return
    ctx.log(f"{p.hex}: {text}", hexes=(p.hex,))
    ctx.log(f"{p.id} in {p.hex}: {text}", hexes=(p.hex,), visible_to=p.side)


def drop_on_path(state: BcsState, p: Piece, path: list[str], ctx: Context | None) -> None:
    """9.2i a: a unit that moves or retreats into or across terrain Prohibited to Tac MA (a
    mountain hex, a lake hexside, a major wadi in Rain; roads followed are not) gets a Dropped
    Support marker."""
    from pbem.games.bcs.terrain import PROHIBITED, step_cost
    if p.dropped or not _could_have_support(p):
        return
    rain = state.weather == "Rain"
    for a, b in zip(path, path[1:]):
        if step_cost(a, b, "tac", rain).mp == PROHIBITED:
            p.dropped = True
            _log(ctx, p, f"a Dropped Support marker (entered {b}, Prohibited to Tac MA, 9.2i)")
            return


def drop_on_retreat(state: BcsState, p: Piece, ctx: Context | None) -> None:
    """9.2i a for a retreat: a unit that retreats into a hex Prohibited to Tac MA gets a Dropped
    Support marker (a retreat has no path, 7.5d: only its ending hex is judged)."""
    from pbem.games.bcs.rules_data import mp_cost
    from pbem.games.bcs.terrain import hex_row
    if p.dropped or p.status != "map" or not _could_have_support(p):
        return
    if mp_cost(bdata().terrain[hex_row(p.hex)], "tac", state.weather == "Rain") == "P":
        p.dropped = True
        _log(ctx, p, f"a Dropped Support marker (retreated into {p.hex}, Prohibited to Tac MA, "
                     f"9.2i)")


def _could_have_support(p: Piece) -> bool:
    if p.kind != "unit":
        return False
    u = bdata().units[p.id]
    return any(f is not None and f.assault_arrow and f.av is None for f in (u.move, u.deployed))


def restore(state: BcsState, ctx: Context | None) -> None:
    """Remove every Dropped Support marker whose unit meets 9.2i's conditions now (in Command
    Radius, Support in the Formation, a Support Establishment Safe Path): called after moves,
    Engagements, Attacks and at a Recovery Activation (ERR-BCS-1.0-7)."""
    for p in sorted(state.pieces.values(), key=lambda q: q.id):
        if p.dropped and p.status == "map" and may_restore(state, p):
            p.dropped = False
            _log(ctx, p, "a Dropped Support marker is removed (9.2i)")


def lose_support(state: BcsState, sp: Piece, ctx: Context) -> None:
    """A unit in Support loses a step in an Engagement (9.2a lists the losses Support never
    takes: Barrage, Attack by Fire, Regular and Shock Attacks; Engagements are not among them):
    the step goes to its owner only; a destroyed unit leaves Support and is named to both."""
    sp.steps -= 1
    ctx.log(f"{sp.id} (in Support) loses 1 step", visible_to=sp.side)
    if sp.steps <= 0:
        sp.status, sp.hex = "dead", ""
        ctx.log(f"{sp.id} (in Support of {sp.formation}) is destroyed")


def stand_off_range(state: BcsState, fid: str) -> int:
    """The longest Range of the Formation's Stand Off units in Support (0 when none)."""
    return max((support_face(sp).range for sp in in_support(state, fid)
                if capability(sp) == "Stand Off AV"), default=0)


def check_stand_off(state: BcsState, side: str, uid: str, host: str) -> tuple[Piece, Piece]:
    """A shot of a unit in Support (7.1a, 7.1m), an Engagement or an Attack by Fire: only a
    Stand Off unit of the active Formation, one shot per step in an Activation, fired from the
    hex of a unit of its Formation with Support access (its host); the unit and the host."""
    from pbem.core.errors import IllegalOrder
    act = state.activation
    sp = state.pieces.get(uid)
    if act is None or sp is None or sp.status != "support" or sp.side != side \
            or sp.formation != act.formation:
        raise IllegalOrder(f"{uid} is not a unit in Support of the active Formation",
                           rule="BCS-7.1m-1")
    if capability(sp) != "Stand Off AV":
        raise IllegalOrder(f"{uid} is in Support and not a Stand Off unit: Support cannot "
                           f"initiate Engagements", rule="BCS-7.1a-2")
    h = state.pieces.get(host) if host else None
    if h is None or h.side != side or h.formation != sp.formation or not has_access(state, h):
        raise IllegalOrder(f"a Stand Off shot of {uid} needs a host: a unit of its Formation "
                           f"with Support access ('from UNIT')", rule="BCS-7.1m-1")
    if sp.fire_events >= sp.steps:
        raise IllegalOrder(f"{uid} has made its {sp.steps} Stand Off shot"
                           f"{'s' if sp.steps > 1 else ''} (one per step) this Activation",
                           rule="BCS-7.1m-1")
    return sp, h
