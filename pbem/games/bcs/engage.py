"""Engagements (7.1): an active AV unit fires on an enemy AV unit or Support within its Range
for one Fire Event (7.0d), or a Stand Off unit in Support fires from a host unit for one of its
shots (7.1m); the Engagement Table's Support Not Involved row, or its Support Involved row when
Support fires or is the target (7.1k).

The targeted player's choices, the unit engaged (7.1e) and which of his units in Support answers
(9.2h), follow his standing orders `engaged` and `support` (combat.STANDING).
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import at, bdata, face, is_av
from pbem.games.bcs.combat import STANDING, can, double_obj, lose, mode, place_traffic
from pbem.games.bcs.hq_retreat import jump
from pbem.games.bcs.mines import against, against_attacker
from pbem.games.bcs.reactions import lookup
from pbem.games.bcs.retreat import retreat_stack
from pbem.games.bcs.shock import (FIRE_EVENTS, check_fire_events_left, check_fire_stack,
                                  fire_event)
from pbem.games.bcs.state import BcsState, Piece, other
from pbem.games.bcs.stopping import providers, stopping_engagement
from pbem.games.bcs.support import (check_stand_off, choose, drop, has_access, in_support,
                                    lose_support, reach, support_face)
from pbem.games.bcs.view import top_unit
from pbem.games.bcs.zoc import VISIBILITY, clear_line


def in_range(p: Piece, frm: str, to: str) -> bool:
    """Whether a unit in frm can fire at hex to (7.1j, 6.1b, BbF 1.1e): within its Range and 4
    hexes, a clear line beyond adjacent hexes, and adjacent only when the target hex is combat
    terrain."""
    f = face(p)
    assert f is not None
    return _reaches(f.range, frm, to)


def engagement_target(units: list[Piece], how: str = "strongest") -> Piece:
    """The AV unit engaged in a hex (7.1e), the targeted player's standing choice: the greatest
    AV plus AR (ties the top unit), or with the mode top the top unit (5.5e)."""
    if how == "top":
        return top_unit(units)
    def strength(p: Piece) -> int:
        f = face(p)
        assert f is not None and f.av is not None
        return f.av + bdata().units[p.id].ar
    best = max(strength(p) for p in units)
    return top_unit([p for p in units if strength(p) == best])


def _reaches(rng: int, frm: str, to: str) -> bool:
    """Whether a weapon of Range rng in hex frm reaches hex to (7.1j, 6.1b, BbF 1.1e): the Range
    and 4 hexes, a clear line beyond adjacent hexes, adjacent only into combat terrain."""
    d = bdata()
    n = d.game_map.grid.distance(frm, to)
    if n < 1 or n > min(rng, VISIBILITY):
        return False
    if n > 1 and d.terrain[d.game_map.terrain[to]].combat == "yes":
        return False
    return n == 1 or clear_line(frm, to)


def targets(state: BcsState, side: str, hex_id: str) -> bool:
    """Whether a hex holds something side may engage (7.1b): an enemy AV unit, or an enemy unit
    with its Formation's Support available (9.2g)."""
    return any(q.side == other(side) and (is_av(q) or has_access(state, q))
               for q in at(state, hex_id))


def check_engage(state: BcsState, side: str, hex_id: str, uid: str,
                 host: str = "") -> tuple[Piece, Piece | None]:
    """Check an Engagement (7.1a-b, 7.1j, 7.1m, 7.0d); the Firer, and for a Stand Off unit in
    Support its host (the unit with Support access it fires from)."""
    act = state.activation
    if state.phase != "activities" or act is None or act.side != side:
        raise IllegalOrder("only the active player executes Engagements, in the Activities of "
                           "an Activation", rule="BCS-7.1a-1")
    if act.recovery:
        raise IllegalOrder("a Fatigue Recovery Activation makes no Engagements", rule="BCS-7.0b")
    p = state.pieces.get(uid)
    if p is not None and p.status == "support" and p.side == side \
            and p.formation == act.formation:
        return _check_stand_off(state, side, hex_id, uid, host)
    if host:
        raise IllegalOrder(f"only a Stand Off unit in Support fires from a host unit ({uid} is "
                           f"not one)", rule="BCS-7.1m-1")
    if p is None or p.side != side or p.kind != "unit" or p.status != "map" \
            or p.formation != act.formation:
        raise IllegalOrder(f"{uid} is not a combat unit of the active Formation on the map",
                           rule="BCS-7.1a-1")
    if not bdata().game_map.grid.is_hex(hex_id):
        raise IllegalOrder(f"{hex_id} is not a hex of the map", rule="BCS-7.1b")
    if p.finished:
        raise IllegalOrder(f"{uid} is Finished and has no Fire Event left", rule="BCS-7.0d-3")
    check_fire_stack(state, p)
    f = face(p)
    assert f is not None
    if not is_av(p) or f.av_class == "light" or not can(p, "Engage"):   # Dual Light AV too
        raise IllegalOrder(f"{uid} cannot be the Firer of an Engagement (no AV, or Light AV)",
                           rule="BCS-7.1a-2")
    check_fire_events_left(p)
    if not targets(state, side, hex_id):
        raise IllegalOrder(f"{hex_id} holds no enemy AV unit or Support to engage",
                           rule="BCS-7.1b")
    if not in_range(p, p.hex, hex_id):
        raise IllegalOrder(f"{hex_id} is not within {uid}'s Range from {p.hex} (Range, 4 hexes, "
                           f"line of sight, range 1 into combat terrain)", rule="BCS-7.1j")
    return p, None


def _check_stand_off(state: BcsState, side: str, hex_id: str, uid: str,
                     host: str) -> tuple[Piece, Piece | None]:
    """A Stand Off Engagement (7.1a, 7.1m): the unit and its host (support.check_stand_off),
    a target within its Range from the host's hex."""
    sp, h = check_stand_off(state, side, uid, host)
    if not bdata().game_map.grid.is_hex(hex_id):
        raise IllegalOrder(f"{hex_id} is not a hex of the map", rule="BCS-7.1b")
    if not targets(state, side, hex_id):
        raise IllegalOrder(f"{hex_id} holds no enemy AV unit or Support to engage",
                           rule="BCS-7.1b")
    if not _reaches(support_face(sp).range, h.hex, hex_id):
        raise IllegalOrder(f"{hex_id} is not within {sp.id}'s Range from its host in {h.hex} "
                           f"(Range, 4 hexes, line of sight, range 1 into combat terrain)",
                           rule="BCS-7.1j")
    return sp, h


def _base(p: Piece) -> int:
    f = face(p)
    assert f is not None and f.av is not None
    return f.av + bdata().units[p.id].ar


def _support_base(sp: Piece, host: Piece) -> int:
    """The base of Support in an Engagement: its AV plus the supported unit's AR (7.1k)."""
    return (support_face(sp).av or 0) + bdata().units[host.id].ar


def host_target(units: list[Piece], how: str = "strongest") -> Piece:
    """The supported unit engaged in a hex without AV units (7.1e), the targeted player's
    standing choice (``engaged``): the best AR (its base with the Support's AV; ties the top
    unit), or with the mode top the top unit (5.5e)."""
    if how == "top":
        return top_unit(units)
    best = max(bdata().units[p.id].ar for p in units)
    return top_unit([p for p in units if bdata().units[p.id].ar == best])


def engage(state: BcsState, side: str, hex_id: str, uid: str, ctx: Context,
           host: str = "") -> None:
    """An Engagement (7.1i): the Fire Event (or Stand Off shot) spent; the target chosen by the
    targeted player, Real AV before Support (7.1e, 9.2h); 2d6 + (Firer base + DRMs) - (Target
    base + DRMs) on the Support Not Involved row, or the Support Involved row when Support fires
    or is the target (7.1k); the results applied (a side out of the enemy's Range ignores its own
    result, BBF-G25), a Target retreat being Automatic (7.5a)."""
    firer, host_p = check_engage(state, side, hex_id, uid, host)
    act = state.activation
    assert act is not None
    if host_p is None:
        fire_event(state, firer)
        firer_hex = firer.hex
        f = face(firer)
        assert f is not None
        firer_base, limited = _base(firer), f.av_class == "limited"
    else:
        firer.fire_events += 1
        act.began = True
        firer_hex = host_p.hex
        firer_base, limited = _support_base(firer, host_p), False
    act.engaged = True
    foe = other(side)
    named = hex_id
    chosen = True                      # the targeted player chose a target in another hex
    if host_p is None and stopping_engagement(state, firer, hex_id):
        chosen = _only_provider(state, firer, hex_id) is None
        target = stopping_target(state, firer, hex_id, ctx)
    else:
        target = _target(state, foe, hex_id, ctx)
    hex_id = target.hex
    units = _foes(state, foe, hex_id)
    tsupport: Piece | None = None
    if is_av(target):                                      # Real AV before Support AV (7.1e)
        target_base = _base(target)
        tf = face(target)
        assert tf is not None
        target_range = tf.range
    else:
        tsupport = choose(state, foe, in_support(state, target.formation))       # 9.2h
        target_base = _support_base(tsupport, target)
        target_range = support_face(tsupport).range
    who = firer.id if host_p is None else f"{firer.id} (Stand Off Support, from {host_p.id})"
    what = target.id if tsupport is None else f"the Support of {target.id}"
    shot = f"Fire Event {firer.fire_events}" if host_p is None else \
        f"Stand Off shot {firer.fire_events}"
    if hex_id != named and chosen:
        ctx.log(f"{foe} chooses the target of the Stopping Engagement among the units giving the "
                f"AV EZOC in {firer_hex} (6.0i): it is in {hex_id}", hexes=(firer_hex, hex_id))
    ctx.log(f"{who} engages {what} in {hex_id} ({shot})", hexes=(firer_hex, hex_id))
    involved = host_p is not None or tsupport is not None                      # 7.1k
    chart = "engagement_involved" if involved else "engagement_not_involved"
    mods: list[tuple[str, int]] = []
    if double_obj(state, hex_id):
        mods.append(("Double OBJ Zone", _modifier("Double OBJ Zone")))
    if limited:
        mods.append(("Limited AV", _modifier("Limited AV")))
    tmods: list[tuple[str, int]] = []
    if tsupport is not None:
        group = in_support(state, target.formation)
        if len(group) > 1 and all(reach(sp, hex_id, firer_hex) for sp in group):    # 7.1k
            tmods.append(("Multiple Supports", _modifier("Multiple Supports (Support ONLY 7.1k)")))
    mods += against_attacker(state, firer, firer_hex, hex_id)      # TEC notes 3, 4 (BbF 3.1c)
    tmods += against(state, hex_id)                                # TEC note 3 (BbF 3.1c)
    net = firer_base + sum(v for _, v in mods) - target_base - sum(v for _, v in tmods)
    dice = ctx.rolls_of(2, 6, f"Engagement Table: {who} engages {hex_id}")
    total = sum(dice) + net
    result = bdata().roll(chart, total)
    text = ", ".join(f"{n} {v:+d}" for n, v in mods) or "no DRM"
    ttext = "".join(f", {n} {v:+d}" for n, v in tmods)
    row = " (Support Involved)" if involved else ""
    ctx.log(f"Engagement Table{row}: {dice[0]}+{dice[1]}, firer {firer_base} ({text}) "
            f"against target {target_base}{ttext} = {total}: {result}", hexes=(hex_id,))
    if involved:
        read = _involved(result, host_p is not None, tsupport is not None)
        if read != result:
            ctx.log(f"the target is not Support: the {result} reads {read} (7.1i, 7.1m)",
                    hexes=(hex_id,))
            result = read
    if result == "Both Loss" and state.options.get("ranged_fires") \
            and bdata().game_map.grid.distance(firer_hex, hex_id) > 1:       # Optional 1
        result = "No Result"
        ctx.log(f"Ranged Fires: at range {bdata().game_map.grid.distance(firer_hex, hex_id)} "
                f"the Both Loss reads No Effect (BCS-OPT1)", hexes=(hex_id,))
    if target.screen and result == "Both Loss":               # BbF 1.5d (rules helper)
        result = "Target must Retreat, no losses"
        ctx.log(f"{target.id} is Screening: the Both Loss becomes {result} (BbF 1.5d)",
                hexes=(hex_id,))
    firer_hit = result in ("Firer Loss & Traffic", "Both Loss")
    if firer_hit and not _reaches(target_range, hex_id, firer_hex):
        ctx.log(f"{firer.id} is out of the target's Range: the Firer's result is ignored")
        firer_hit = False
    if firer_hit:
        if result == "Firer Loss & Traffic":
            place_traffic(state, firer_hex, ctx)     # 5.1g: in the Firer's hex
        if host_p is None:
            lose(state, firer, 1, ctx)
        else:
            lose_support(state, firer, ctx)
    if result in ("Both Loss", "Target Loss & Retreat", "Target Loss"):
        if tsupport is None:
            lose(state, target, 1, ctx)
        else:
            lose_support(state, tsupport, ctx)
    if result in ("Target Drop", "Target Loss") and tsupport is not None:      # 7.1k, 7.1L
        drop(state, [q for q in units if q.status == "map"], ctx, "Target Drop")
    alive = [q for q in units if q.status == "map"]
    if result in ("Target Loss & Retreat", "Target must Retreat, no losses") and alive:
        retreat_stack(state, alive, target if target.status == "map" else alive[0],
                      "automatic", firer_hex, ctx)
        jump(state, side, [hex_id], ctx, f"the stack in {hex_id} retreats")   # 9.1f, 10.3d
    if host_p is None and firer.status == "map" and firer.fire_events >= FIRE_EVENTS \
            and not firer.stopped:
        firer.stopped = "BCS-7.0d-2"


def _foes(state: BcsState, foe: str, hex_id: str) -> list[Piece]:
    """The foe's combat units in a hex, in id order."""
    return sorted((q for q in at(state, hex_id) if q.side == foe and q.kind == "unit"),
                  key=lambda q: q.id)


def _target(state: BcsState, foe: str, hex_id: str, ctx: Context) -> Piece:
    """The unit engaged in a hex, the targeted player's choice (7.1e): an AV unit before a unit
    with Support (Real AV before Support AV). With one candidate there is no choice: it is
    engaged, logged, and nobody is asked (7.1e: the choice is his "if a target hex has more
    than one AV unit"; a sealed game has opened the hex's units, target_reveals)."""
    units = _foes(state, foe, hex_id)
    real = [q for q in units if is_av(q)]
    group = real or [q for q in units if has_access(state, q)]
    if len(group) == 1:
        what = "AV unit" if real else "unit with Support"
        ctx.log(f"{group[0].id} is the only {what} in {hex_id}: it is the target, no choice "
                f"for {foe} (7.1e)", hexes=(hex_id,))
        return group[0]
    if real:
        return engagement_target(real, mode(state, foe, "engaged"))
    return host_target(group, mode(state, foe, "engaged"))


def stopping_target(state: BcsState, firer: Piece, hex_id: str, ctx: Context) -> Piece:
    """The target of a Stopping Engagement (6.0i): the inactive player's choice among all the
    units giving the AV EZOC into the Firer's hex, in whatever hex, Real AV EZOC providers
    before Support ones. His standing order ``engaged``: strongest (the greatest AV plus AR, or
    AR for a supported unit; ties in the hex the Firer names first, then the lowest hex id,
    then the top unit) or top (the top unit of the hex the Firer names, else of the lowest hex
    id); asked, he names one. With one possible target there is no choice (logged, nobody
    asked): in a sealed game only when both processors count the same one (_alone)."""
    group = providers(state, firer)
    foe = other(firer.side)
    only = _only_provider(state, firer, hex_id)
    if only is not None:
        ctx.log(f"{only.id} is the only unit giving the AV EZOC in {firer.hex}: it is the "
                f"target of the Stopping Engagement, no choice for {foe} (6.0i, 7.1e)",
                hexes=(firer.hex, only.hex))
        return only
    pick = lookup(state, foe, "engaged", options=lambda: sorted(q.id for q in group),
                  where=hex_id)
    if pick not in STANDING["engaged"]:
        return state.pieces[pick]
    if pick == "top":
        return top_unit(_first_hex(group, hex_id))

    def strength(q: Piece) -> int:
        """AV plus AR for an AV unit; AR for a supported unit (as host_target)."""
        return _base(q) if is_av(q) else bdata().units[q.id].ar
    best = max(strength(q) for q in group)
    return top_unit(_first_hex([q for q in group if strength(q) == best], hex_id))


def _only_provider(state: BcsState, firer: Piece, hex_id: str) -> Piece | None:
    """The one possible target of a Stopping Engagement of hex_id, when there is only one
    (6.0i) and every processor counts it alone (_alone); else None (the targeted player
    chooses)."""
    group = providers(state, firer)
    return group[0] if len(group) == 1 and _alone(state, group[0], hex_id) else None


def _alone(state: BcsState, p: Piece, hex_id: str) -> bool:
    """Whether the one target a Stopping Engagement finds is the same on every processor: any
    game but a sealed one; in a sealed game, the hex the Firer names (its units are opened
    before the Engagement, sealed.target_reveals) or a hex where p is its side's only combat
    unit (a stand-in under a top elsewhere may count as a target on the other side's
    knowledge state, a copy of its top)."""
    if not state.sealed or p.hex == hex_id:
        return True
    return len(_foes(state, p.side, p.hex)) == 1


def _first_hex(units: list[Piece], hex_id: str) -> list[Piece]:
    """The units in hex_id, or when none is there those in the lowest hex id."""
    first = hex_id if any(q.hex == hex_id for q in units) else min(q.hex for q in units)
    return [q for q in units if q.hex == first]


def _involved(result: str, stand_off: bool, support_target: bool) -> str:
    """The Support Involved row's results (7.1i, 7.1k, the chart's notes): a Target Drop is No
    Result when the target is not Support; a Target Loss by a Stand Off Support Firer on a target
    that is not Support is Target Loss & Retreat."""
    if result == "Target Drop" and not support_target:
        return "No Result"
    if result == "Target Loss" and stand_off and not support_target:
        return "Target Loss & Retreat"
    return result


def _modifier(name: str) -> int:
    for m in bdata().modifiers:
        if m.chart in ("engagement_not_involved", "engagement_involved") and m.name == name:
            return m.drm
    raise KeyError(name)
