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
