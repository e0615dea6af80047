"""SNAFU (10.1) and the Second Activation roll (3.5b): modifiers, rolls and result effects."""

from __future__ import annotations

from pbem.core.game import Context
from pbem.games.bcs.board import bdata, held_entries
from pbem.games.bcs.assignment import rommel_drm
from pbem.games.bcs.mixing import active_hexes, markers, mixed_with
from pbem.games.bcs.supply import trains_drms
from pbem.games.bcs.state import FRESH, BcsState, FormationState

BEST_IN_RAIN = "Partial"         # BbF 1.1c; Prepared Defense 4.5a: no better than Partial


def game_drm(state: BcsState, side: str) -> list[tuple[str, int]]:
    """The game-specific SNAFU DRMs of a side on this turn's date (BbF game charts)."""
    group = "Game Specific: Axis" if side == "axis" else "Game Specific: Allies"
    out = []
    for m in bdata().modifiers:
        if m.chart == "snafu" and m.group == group:
            dates = m.when.split("|") if m.when else []
            if not dates or state.date in dates:
                out.append((m.name, m.drm))
    return out


def snafu_drms(state: BcsState, form: FormationState) -> list[tuple[str, int]]:
    """Every SNAFU DRM that applies (10.1b): Fresh +1, Coordination -1, minus the Fatigue level,
    Mixed Formations -1, the Combat Trains and MSR DRMs (supply.trains_drms), the
    game-specific DRM and Rommel +1 (BbF 2.1)."""
    out: list[tuple[str, int]] = []
    if form.fatigue == FRESH:
        out.append(("Fresh", 1))
    elif form.fatigue > 0:
        out.append((f"Fatigue {form.fatigue}", -form.fatigue))
    if form.coordination:                    # Optional 5: one DRM a marker (BCS-OPT5-a)
        n = markers(form)
        out.append(("Coordination" if n == 1 else f"Coordination x{n}", -n))
    if mixed_with(state, form.id, active_hexes(state, form.id)):
        out.append(("Mixed Formations", -1))
    out += trains_drms(state, form)
    out += [(n, v) for n, v in game_drm(state, form.side) if v]
    out += rommel_drm(state, form, "snafu")
    return out


OFF_MAP = "offmap"               # the sealed fact S.offmap.F (off_map_entries)


def off_map_entries(state: BcsState, form: FormationState) -> dict[str, list[str]]:
    """The held Entry hexes beside which the Formation's units waiting off the map, due by now,
    could attack ("attack") or spot a Barrage ("spot"): what 9.3f as printed reads off the map
    (its free Pass, and Attacks and spotting from the virtual hex). Which units still wait is
    hidden in a sealed game (the other processor's pool is a guess, sealed.take_from_pool), so
    on a knowledge state of the other side this is what their owner opened last (the fact
    S.offmap.F, opened by every order that reads it: docs/sealed.md 5h)."""
    from pbem.games.bcs.combat import can, could_attack   # combat imports the sequence
    side = form.side
    if side in state.concealed and f"{side}.{OFF_MAP}.{form.id}" in state.known.get(side, []):
        held = state.private[side].off_map.get(form.id, {})
        return {"attack": list(held.get("attack", [])), "spot": list(held.get("spot", []))}
    attack: set[str] = set()
    spot: set[str] = set()
    for p in state.pieces.values():
        if p.formation != form.id or p.kind != "unit":
            continue
        hexes = held_entries(state, p)
        if hexes and could_attack(p):
            attack.update(hexes)
        if hexes and can(p, "Spot Barrage"):
            spot.update(hexes)
    return {"attack": sorted(attack), "spot": sorted(spot)}


def free_pass(state: BcsState, form: FormationState) -> str:
    """The held Entry hex that gives the Formation its automatic Pass SNAFU, or '' (9.3f as
    printed: 'a Formation needing to make an Attack from Off Map always has a Pass SNAFU'): its
    HQ, or a unit able to attack, waits off the map, due by now, and an enemy unit holds one of
    its Entry hexes (never when none is held, nor under the v1.0 errata)."""
    hexes = sorted({*held_entries(state, state.pieces[form.hq]),
                    *off_map_entries(state, form)["attack"]})
    return hexes[0] if hexes else ""


def roll_snafu(state: BcsState, form: FormationState, ctx: Context) -> tuple[str, int]:
    """Roll 2d6 on the SNAFU Table with its DRMs; Rain (BbF 1.1c) and Prepared Defense (4.5a)
    cap the result at Partial. Returns the result and the modified roll. A Formation that may
    Attack from Off Map has a Pass without a roll ('always', so uncapped; the roll is 0)."""
    name = bdata().formations[form.id].name
    held = free_pass(state, form)
    if held:
        ctx.log(f"{name} SNAFU: Pass, not rolled (an enemy unit holds its Entry hex {held}: "
                f"Attack from Off Map, 9.3f)")
        return "Pass", 0
    dice = ctx.rolls_of(2, 6, f"SNAFU: {name}")
    mods = snafu_drms(state, form)
    total = sum(dice) + sum(v for _, v in mods)
    result = bdata().roll("snafu", total)
    capped = ""
    if result == "Pass" and (state.weather == "Rain" or form.prepared_defense):
        result, capped = BEST_IN_RAIN, " (no better than Partial: " + \
            ("Rain" if state.weather == "Rain" else "Prepared Defense") + ")"
    mod_text = ", ".join(f"{n} {v:+d}" for n, v in mods) or "no DRM"
    ctx.log(f"{name} SNAFU: {dice[0]}+{dice[1]} ({mod_text}) = {total}: {result}{capped}")
    return result, total


def roll_second(state: BcsState, form: FormationState, ctx: Context) -> bool:
    """The Second Activation roll (3.5b): 1d6, +1 if Fresh, +1 with Rommel (BbF 2.1), succeeds
    at or above the HQ's Activation Roll number."""
    hq = bdata().hqs[form.hq]
    name = bdata().formations[form.id].name
    die = ctx.roll(6, f"Second Activation: {name}")
    mods = ([("Fresh", 1)] if form.fatigue == FRESH else []) + \
        rommel_drm(state, form, "second_activation")
    total = die + sum(v for _, v in mods)
    ok = total >= hq.activation_roll
    ctx.log(f"{name} Second Activation roll: {die}"
            f"{''.join(f' {v:+d} {n}' for n, v in mods)}"
            f" = {total} against {hq.activation_roll}: {'activates' if ok else 'fails'}")
    return ok


def effect(result: str, row: str) -> str:
    """A cell of the SNAFU Result Effects chart ('HQ Created?', 'Movement?', ...)."""
    return bdata().cell("snafu_effects", row, result)


def obj_allowance(result: str) -> int:
    """Combat OBJs the HQ may place for a SNAFU result (4.3a): Fail 0, Partial 1, Pass 2."""
    return int(effect(result, "HQ Created?"))
