"""Replacements (9.4, BbF 1.7): each Reinforcement Phase but a scenario's first turn, each side
rolls on its Replacement Points table and applies the AV and non-AV Repls at once.

The owner is not asked yet: the engine applies every Repl it can, for him, by a fixed order
(units on the map missing the most steps, then units of the Dead Pile it can place, then Order
of Arrival units waiting below full strength, then Dead Pile units whose Trains are not Legal,
which wait there rebuilt (9.4c); ties by unit id). A Repl no unit may take is wasted (9.4g).
"""

from __future__ import annotations

from pbem.core.game import Context
from pbem.games.bcs.board import bdata, combat_count, enemy_in, on_area
from pbem.games.bcs.command import in_radius, safe_path
from pbem.games.bcs.retreat import RETURNING
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.state import SIDES, BcsState, Piece
from pbem.games.bcs.supply import msr
from pbem.games.bcs.terrain import hex_row


def av_unit(uid: str) -> bool:
    """A unit with an AV on either counter side takes only AV Repls (9.4b)."""
    u = bdata().units[uid]
    return u.move.av is not None or (u.deployed is not None and u.deployed.av is not None)


def _trains_legal(state: BcsState, p: Piece) -> bool:
    form = state.formations[p.formation]
    return form.in_play and state.pieces[form.hq].status == "map" and msr(state, form) is not None


def eligible(state: BcsState, p: Piece) -> str:
    """Why a unit may take a Repl now ("map", "dead", "arriving", "pile"), or "" (9.4c-9.4f):
    never a non-rebuildable unit or one at full strength; on the map in Command Radius with its
    Trains Legal and a Safe Path (Tac MA for AV Repls, Leg MA for non-AV); destroyed (0 steps:
    units removed with their whole Formation never come back) while its HQ is on the map
    (9.1j): placed at once when its Trains are Legal ("dead"), else rebuilt in the Dead Pile
    to wait for them ("pile", 9.4c); an Order of Arrival unit waiting below full strength (not
    a unit off the map after a retreat: 7.5f, 7.5h)."""
    u = bdata().units.get(p.id)
    if u is None or p.kind != "unit" or u.non_rebuildable:
        return ""
    if p.status == "map":
        if p.steps >= u.steps or not _trains_legal(state, p) or not in_radius(state, p):
            return ""
        return "map" if safe_path(state, p, "tac" if av_unit(p.id) else "leg") else ""
    if p.status == "dead":
        form = state.formations.get(p.formation)
        if p.steps > 0 or form is None or not form.in_play \
                or state.pieces[form.hq].status != "map":
            return ""
        waiting = state.private[p.side].rebuilding.get(p.id, 0)
        if waiting:
            return "pile" if waiting < u.steps else ""
        return "dead" if _trains_legal(state, p) else "pile"
    if p.status == "off" and p.steps < u.steps and not any(e.startswith("hq:") for e in p.entry) \
            and RETURNING not in p.entry:            # off after a retreat: not an arrival (9.4f)
        return "arriving"
    return ""


def _place(state: BcsState, p: Piece) -> str:
    """The hex a rebuilt unit goes to: its HQ's hex or one next to it (EZOC allowed) that it may
    enter, free of enemy pieces and not full; the HQ's hex first, then the hex id."""
    hq = state.pieces[state.formations[p.formation].hq]
    grid = bdata().game_map.grid
    cls = bdata().units[p.id].move.mclass
    rain = state.weather == "Rain"
    spots = [h for h in [hq.hex, *grid.neighbours(hq.hex)]
             if on_area(state, h) and not enemy_in(state, p.side, h) and combat_count(state, h) < 2
             and mp_cost(bdata().terrain[hex_row(h)], cls, rain) != "P"]
    return min(spots, key=lambda h: (h != hq.hex, h)) if spots else ""


def _order(state: BcsState, p: Piece, why: str) -> tuple[int, int, str]:
    rank = {"map": 0, "dead": 1, "arriving": 2, "pile": 3}[why]
    have = state.private[p.side].rebuilding.get(p.id, 0) if why == "pile" else \
        0 if why == "dead" else p.steps
    missing = bdata().units[p.id].steps - have
    return (rank, -missing, p.id)


def roll_and_apply(state: BcsState, ctx: Context) -> None:
    """Each side's Replacement Points roll (1d6 on its table, seen by that side only) and the
    Repls applied at once: one step per Repl, one Repl per unit (9.4d); unused Repls are lost
    (9.4g). Not on a scenario's first turn (9.4a, BbF 1.7: this runs from the second turn)."""
    for side in SIDES:
        place_rebuilt(state, side, ctx)
        die = ctx.roll(6, f"Replacement Points: {side}", visible_to=side)
        row = next(r for r in bdata().tables[f"repl_{side}"].rows
                   if (r.lo is None or r.lo <= die) and (r.hi is None or die <= r.hi))
        left = {True: row.av, False: row.non_av}
        ctx.log(f"{side} Replacement Points roll {die}: {row.av} AV, {row.non_av} non-AV",
                visible_to=side)
        cands = [(p, why) for p in state.pieces.values()
                 if p.side == side and (why := eligible(state, p))]
        for p, why in sorted(cands, key=lambda c: _order(state, *c)):
            kind = av_unit(p.id)
            if not left[kind]:
                continue
            if why == "dead":
                to = _place(state, p)
                if not to:
                    continue
                p.status, p.hex, p.steps, p.face, p.start = "map", to, 1, "move", to
                ctx.log(f"{p.id} is rebuilt from the Dead Pile in {to} (9.4c)", hexes=(to,))
            elif why == "pile":
                n = state.private[side].rebuilding.get(p.id, 0) + 1
                state.private[side].rebuilding[p.id] = n
                ctx.log(f"{p.id} takes a Repl in the Dead Pile ({n} step{'s' if n > 1 else ''} "
                        f"rebuilt): it waits there until its Combat Trains are Legal (9.4c)",
                        visible_to=side)
            else:
                p.steps += 1
                ctx.log(f"{p.id} takes a Replacement step: {p.steps} steps (9.4)",
                        visible_to=side)
            left[kind] -= 1
        if left[True] or left[False]:
            ctx.log(f"{side}: {left[True]} AV and {left[False]} non-AV Replacement Points "
                    f"unused are lost (9.4g)", visible_to=side)


def place_rebuilt(state: BcsState, side: str, ctx: Context) -> None:
    """Units rebuilt in the Dead Pile enter play, with the steps their Repls rebuilt, in the
    first Reinforcement Phase in which their HQ is on the map with Legal Trains (9.4c, 9.3)."""
    waiting = state.private[side].rebuilding
    for uid in sorted(waiting):
        p = state.pieces[uid]
        if not _trains_legal(state, p):
            continue
        to = _place(state, p)
        if not to:
            continue
        p.status, p.hex, p.steps, p.face, p.start = "map", to, waiting.pop(uid), "move", to
        ctx.log(f"{p.id} is rebuilt from the Dead Pile in {to} (9.4c)", hexes=(to,))
