"""Replacements (9.4, BbF 1.7): each Reinforcement Phase but a scenario's first turn, each side
rolls on its Replacement Points table and applies the AV and non-AV Repls at once.

The units that take them are the owner's choice (topic `repls`): his standing order `priority`
is the engine's order (units on the map missing the most steps, then units of the Dead Pile it
can place, then Order of Arrival units waiting below full strength, then Dead Pile units whose
Trains are not Legal, which wait there rebuilt (9.4c); ties by unit id); without one he is asked
when he has more candidates of a kind than Repls of it, and names the units. Where a unit
rebuilt from the Dead Pile goes is his choice too (topic `rebuilt`: hq | clear, or the hex he
names). A Repl no unit takes is wasted (9.4g).
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import bdata, combat_count, enemy_in, on_area
from pbem.games.bcs.command import in_radius, safe_path
from pbem.games.bcs.reactions import lookup, topics
from pbem.games.bcs.retreat import RETURNING
from pbem.games.bcs.rules_data import mp_cost
from pbem.games.bcs.state import SIDES, BcsState, Piece
from pbem.games.bcs.supply import msr
from pbem.games.bcs.terrain import hex_row
from pbem.games.bcs.zoc import ezoc


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


def spots(state: BcsState, p: Piece) -> list[str]:
    """The hexes a rebuilt unit may be placed in (9.4c): its HQ's hex or one next to it (EZOC
    allowed) that it may enter, free of enemy pieces and not full."""
    hq = state.pieces[state.formations[p.formation].hq]
    grid = bdata().game_map.grid
    cls = bdata().units[p.id].move.mclass
    rain = state.weather == "Rain"
    return sorted(h for h in [hq.hex, *grid.neighbours(hq.hex)]
                  if on_area(state, h) and not enemy_in(state, p.side, h)
                  and combat_count(state, h) < 2
                  and mp_cost(bdata().terrain[hex_row(h)], cls, rain) != "P")


def rebuilt_hex(state: BcsState, p: Piece) -> str:
    """Where the owner places a unit rebuilt from the Dead Pile (9.4c), by his choice for the
    topic `rebuilt`: `hq` the HQ's hex first, `clear` hexes free of EZOC first, then the hex id;
    asked, the hex he names ('answer rebuilt B14.10'), read for each unit apart and only when
    more than one hex takes it; "" when none does (it waits)."""
    hexes = spots(state, p)
    if not hexes:
        return ""
    hq = state.pieces[state.formations[p.formation].hq]
    # a sealed game asks one question per side and phase, `repls` (roll_and_apply): the HQ's hex
    how = lookup(state, p.side, "rebuilt", lambda: hexes, hq.hex, p.id) \
        if len(hexes) > 1 and not state.sealed else "hq"
    if how in hexes:
        return how                       # the hex the owner chose
    if how == "clear":
        return min(hexes, key=lambda h: (bool(ezoc(state, p.side, h)), h != hq.hex, h))
    return min(hexes, key=lambda h: (h != hq.hex, h))


def _order(state: BcsState, p: Piece, why: str) -> tuple[int, int, str]:
    rank = {"map": 0, "dead": 1, "arriving": 2, "pile": 3}[why]
    have = state.private[p.side].rebuilding.get(p.id, 0) if why == "pile" else \
        0 if why == "dead" else p.steps
    missing = bdata().units[p.id].steps - have
    return (rank, -missing, p.id)


def candidates(state: BcsState, side: str) -> list[tuple[Piece, str]]:
    """Side's units that may take a Repl now, with why (eligible), in the engine's priority
    order; a dead unit no hex at its HQ takes is left out."""
    cands = [(p, why) for p in state.pieces.values()
             if p.side == side and (why := eligible(state, p))
             and (why != "dead" or spots(state, p))]
    return sorted(cands, key=lambda c: _order(state, *c))


def _is_choice(cands: list[tuple[Piece, str]], left: dict[bool, int]) -> bool:
    """Whether the owner has a choice: more candidates of a kind than Repls of it."""
    return any(left[kind] and sum(av_unit(p.id) == kind for p, _ in cands) > left[kind]
               for kind in (True, False))


#: The end of a sealed game's `repls` subject when the side has no choice (no Repls, or no more
#: candidates of a kind than Repls of it): its processor answers 'repls priority' for it
#: (engine.standing_answers), so the player is not asked; the question itself is still public.
NO_CHOICE = ": no choice"


def _subject(left: dict[bool, int], forced: bool = False) -> str:
    """The question's subject: his Repls (private, like the roll); forced: he has no choice."""
    return f"{left[True]} AV and {left[False]} non-AV Repls " + \
        (f"(nothing to choose){NO_CHOICE}" if forced else "(units joined by +)")


def no_choice(subject: str) -> bool:
    """Whether a `repls` question's subject says its side has no choice (sealed games)."""
    return subject.endswith(NO_CHOICE)


def chosen(state: BcsState, side: str, cands: list[tuple[Piece, str]],
           left: dict[bool, int], pick: str = "") -> list[tuple[Piece, str]]:
    """The units that take side's Repls (9.4b-9.4f), in order while Repls of their kind last:
    every candidate when there is no choice, else the owner's choice for the topic `repls` (his standing order `priority`, the engine's
    order, or asked: the units he names, 'answer repls 3-1-arm+kern'; the rest is lost, 9.4g).
    The question and its choices are his only (the roll is private). pick: a sealed game's
    answer, asked already (roll_and_apply)."""
    if not pick:
        if not _is_choice(cands, left):
            return cands
        pick = lookup(state, side, "repls", lambda: [p.id for p, _ in cands], "", _subject(left))
    if pick in topics()["repls"]:
        return cands                     # priority: in the engine's order while Repls last
    return _named(state, side, pick.split("+"), cands, left)


def _named(state: BcsState, side: str, ids: list[str], cands: list[tuple[Piece, str]],
           left: dict[bool, int]) -> list[tuple[Piece, str]]:
    """The candidates the owner named, checked: each one may take a Repl, once (9.4d), and no
    more of a kind than its Repls (9.4b)."""
    why_of = {p.id: (p, why) for p, why in cands}
    if len(set(ids)) < len(ids):
        raise IllegalOrder("repls: a unit takes one Repl per Reinforcement Phase",
                           rule="BCS-9.4d")
    out = [why_of.get(uid) or _refuse(state, side, uid) for uid in ids]
    for kind, name in ((True, "AV"), (False, "non-AV")):
        named = [p.id for p, _ in out if av_unit(p.id) == kind]
        if len(named) > left[kind]:
            raise IllegalOrder(f"repls: {'+'.join(named)} take only {name} Repls and "
                               f"{left[kind]} {name} Repl{'s' if left[kind] != 1 else ''} "
                               f"came", rule="BCS-9.4b")
    return out


def _refuse(state: BcsState, side: str, uid: str) -> tuple[Piece, str]:
    """Refuse a unit named that may not take a Repl, naming the rule it breaks."""
    p = state.pieces.get(uid)
    u = bdata().units.get(uid)
    if p is None or u is None or p.side != side or p.kind != "unit":
        raise IllegalOrder(f"repls: {uid} is not one of his units", rule="BCS-9.4c-1")
    if u.non_rebuildable:
        raise IllegalOrder(f"repls: {uid} is Non-Rebuildable", rule="BCS-9.4e")
    if p.status != "dead" and p.steps >= u.steps:
        raise IllegalOrder(f"repls: {uid} is at full strength ({u.steps} steps)",
                           rule="BCS-9.4d")
    raise IllegalOrder(f"repls: {uid} may not take a Repl now (in Command Radius with Legal "
                       f"Trains and a Safe Path, or in the Dead Pile with its HQ on the map)",
                       rule="BCS-9.4c-1")


def roll_and_apply(state: BcsState, ctx: Context) -> None:
    """Each side's Replacement Points roll (1d6 on its table, seen by that side only) and the
    Repls applied at once to the units the owner chooses (chosen): one step per Repl, one Repl
    per unit (9.4d); unused Repls are lost (9.4g). Not on a scenario's first turn (9.4a,
    BbF 1.7: this runs from the second turn)."""
    for side in SIDES:
        if not state.sealed:
            place_rebuilt(state, side, ctx)
        die = ctx.roll(6, f"Replacement Points: {side}", visible_to=side)
        if state.sealed and side in state.concealed:
            # the other side's processor: the answer's projection says which units come back
            # from the Dead Pile, and where (sealed.py); the die here is a stand-in
            place_seen(state, side, sealed_pick(state, side, ""), ctx)
            continue
        row = next(r for r in bdata().tables[f"repl_{side}"].rows
                   if (r.lo is None or r.lo <= die) and (r.hi is None or die <= r.hi))
        left = {True: row.av, False: row.non_av}
        ctx.log(f"{side} Replacement Points roll {die}: {row.av} AV, {row.non_av} non-AV",
                visible_to=side)
        pick = ""
        if state.sealed:
            # one question per side, always: whether it has a choice reads hidden steps and
            # the private die (his roll is told to him before he answers); without a choice
            # his processor answers it (NO_CHOICE), he is not asked. The candidates are read
            # before the Dead Pile's units enter: their entering leaves no more choice.
            forced = not _is_choice(candidates(state, side), left)
            pick = sealed_pick(state, side, _subject(left, forced))
            place_rebuilt(state, side, ctx)
        for p, why in chosen(state, side, candidates(state, side), left, pick):
            if left[av_unit(p.id)] and _apply(state, p, why, ctx):
                left[av_unit(p.id)] -= 1
        if left[True] or left[False]:
            ctx.log(f"{side}: {left[True]} AV and {left[False]} non-AV Replacement Points "
                    f"unused are lost (9.4g)", visible_to=side)


def _apply(state: BcsState, p: Piece, why: str, ctx: Context) -> bool:
    """One Repl given to p (why: eligible); False when a dead unit finds no hex."""
    side = p.side
    if why == "dead":
        to = rebuilt_hex(state, p)
        if not to:
            return False
        p.status, p.hex, p.steps, p.face, p.start = "map", to, 1, "move", to
        ctx.log(f"{p.id} is rebuilt from the Dead Pile in {to} (9.4c)", hexes=(to,),
                kind=REBUILT)
    elif why == "pile":
        n = state.private[side].rebuilding.get(p.id, 0) + 1
        state.private[side].rebuilding[p.id] = n
        ctx.log(f"{p.id} takes a Repl in the Dead Pile ({n} step{'s' if n > 1 else ''} "
                f"rebuilt): it waits there until its Combat Trains are Legal (9.4c)",
                visible_to=side)
    else:
        p.steps += 1
        ctx.log(f"{p.id} takes a Replacement step: {p.steps} steps (9.4)", visible_to=side)
    return True


def place_rebuilt(state: BcsState, side: str, ctx: Context) -> None:
    """Units rebuilt in the Dead Pile enter play, with the steps their Repls rebuilt, in the
    first Reinforcement Phase in which their HQ is on the map with Legal Trains (9.4c, 9.3)."""
    waiting = state.private[side].rebuilding
    for uid in sorted(waiting):
        p = state.pieces[uid]
        if not _trains_legal(state, p):
            continue
        to = rebuilt_hex(state, p)
        if not to:
            continue
        p.status, p.hex, p.steps, p.face, p.start = "map", to, waiting.pop(uid), "move", to
        ctx.log(f"{p.id} is rebuilt from the Dead Pile in {to} (9.4c)", hexes=(to,),
                kind=REBUILT)


# -- sealed games (docs/sealed.md 5h, item 6) ---------------------------------------------------
REBUILT = "rebuilt"            # the kind of the public event of a unit placed from the Dead Pile
SEEN = "seen:"                 # an answer's projection: the placements it made (sealed.py)


def sealed_pick(state: BcsState, side: str, subject: str) -> str:
    """A sealed game's `repls` answer, asked of side every Reinforcement Phase: `priority`, the
    units named, or on the other side's processor the placements its projection carries
    (subject: his Repls, private like the roll; "" there)."""
    own = side not in state.concealed
    return lookup(state, side, "repls",
                  lambda: [p.id for p, _ in candidates(state, side)] if own else [], "", subject)


def place_seen(state: BcsState, side: str, pick: str, ctx: Context) -> None:
    """On the other side's processor: the units side's answer placed from the Dead Pile, as
    its projection says ('seen:UNIT@HEX+...'; the final replay checks it), at stand-in
    strength (their steps are side's facts)."""
    if not pick.startswith(SEEN):
        raise IllegalOrder(f"repls: {side}'s answer reaches this processor as its projection "
                           "('seen repls ...')", rule="PBEM-SEALED")
    for item in filter(None, pick[len(SEEN):].split("+")):
        uid, _, to = item.partition("@")
        p = state.pieces.get(uid)
        if p is None or p.side != side or p.kind != "unit" or p.status != "dead" or not to:
            raise IllegalOrder(f"repls: {uid} is not one of {side}'s units in the Dead Pile",
                               rule="BCS-9.4c-1")
        p.status, p.hex, p.steps, p.face, p.start = "map", to, 1, "move", to
        ctx.log(f"{p.id} is rebuilt from the Dead Pile in {to} (9.4c)", hexes=(to,),
                kind=REBUILT)
