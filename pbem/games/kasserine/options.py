"""House options of the Kasserine engine: each settles one gap of GAPS.md section 2."""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.core.errors import ScenarioError
from pbem.core.game import OptionSpec
from pbem.core.options import resolve

OPTIONS: dict[str, OptionSpec] = {
    "sbeitla_hex": OptionSpec(
        default="2714", choices=("2714", "2706"),
        doc="KAS-G5: Sbeitla is printed as 2714 (18.0) and 2706 (11.1); every trigger and the "
            "victory hexes use the chosen hex"),
    "marker_allotment": OptionSpec(
        default="lowest", choices=("lowest",),
        doc="KAS-G12: a side's turn allotment is the N lowest-valued markers of its pool (7.1); "
            "each commitment is a random draw without replacement from the unused allotment"),
    "owner_sees_facedown": OptionSpec(
        default=False, choices=(False, True),
        doc="KAS-G12: whether a player may look at his own face-down markers before the reveal "
            "(default: no, the value is hidden from both players until the flip)"),
    "facedown_draw": OptionSpec(
        default="placement", choices=("placement", "reveal"),
        doc="KAS-G12: when a face-down marker's random draw is rolled: when it is placed "
            "(default) or at the step-5 reveal, in public; the same draw either way, since a side "
            "draws nothing else while its markers lie face down (8.0-e). A sealed game needs "
            "'reveal' (nobody may see a value before the reveal) and sets it itself"),
    "bombard_defender_markers": OptionSpec(
        default=False, choices=(False,),
        doc="KAS-G13: the defender commits no markers against a bombardment (8.1.2 has no "
            "defender step); markers spent in bombardment are spent for the game turn (7.2)"),
    "engineer_fortify": OptionSpec(
        default="full", choices=("full", "defense", "off"),
        doc="KAS-G6: Allied units within an engineer's printed MA in hexes are fortified: 'full' "
            "= 8.2.3 (defense doubled, attacker markers halved) plus the 6.1 ban on entering a "
            "fortification hex EZOC to EZOC; 'defense' = 8.2.3 only; 'off' = no effect"),
    "box_doubling": OptionSpec(
        default=False, choices=(False, True),
        doc="KAS-G7: a US unit in a fortified box also gets the 8.2.3 doubling (default: no, the "
            "box gives the Fortification CRT row and the 14.3 retreat immunity)"),
    "minefield_retreat": OptionSpec(
        default="hexside", choices=("hexside", "box-hex"),
        doc="KAS-G7: an Axis unit retreating 'through a US minefield' is depleted when it crosses "
            "a minefield hexside (default) or when it enters a fortified box hex"),
    "event_arrival": OptionSpec(
        default="next-movement-phase", choices=("next-movement-phase",),
        doc="KAS-G8: event-triggered US reinforcements arrive from the first US Movement Phase "
            "after the event (the trigger turn and phase are logged)"),
    "mobile_ezoc_stop": OptionSpec(
        default=False, choices=(False, True),
        doc="KAS-G16: a mobile unit entering an EZOC pays half its MA plus terrain and need not "
            "stop (default); True makes it stop like a leg unit"),
    "range_entry": OptionSpec(
        default="any-free-hex", choices=("any-free-hex",),
        doc="KAS-G18: a reinforcement entering by a hex range may use any hex of the range not "
            "occupied by an enemy unit; it waits only while every hex of the range is occupied"),
    "capture_rule": OptionSpec(
        default="split", choices=("split",),
        doc="KAS-G10: event triggers (11.1, 15.0) count any Axis entry into the hex, even while "
            "passing through; victory (18.0) counts an objective whose last occupant was Axis "
            "and which is in no US ZOC, re-evaluated after every move, retreat, advance and combat"),
    "objective_recapture": OptionSpec(
        default="last-occupant", choices=("last-occupant",),
        doc="KAS-G11: the objectives are data; a US unit entering an objective makes the US its "
            "last occupant again (it is no longer captured)"),
    "a_result_unit": OptionSpec(
        default="attacker-choice", choices=("attacker-choice",),
        doc="KAS-G14: (A) in ground combat depletes one attacking unit of the attacker's choice; "
            "in a bombardment one of his units adjacent to the target (none: no effect)"),
    "one_attack_per_unit": OptionSpec(
        default=True, choices=(True,),
        doc="KAS-G17: a unit attacks at most once per phase, and a mobile unit not in both the "
            "Combat and the Mobile Combat Phase (8.2-b/c)"),
    "penny_packet_entry": OptionSpec(
        default="first-hex", choices=("first-hex",),
        doc="KAS-G19: on turns 1-2 a US reinforcement entering west of Kasserine may enter its "
            "first hex (11.2) but may not move further"),
}


class Options(msgspec.Struct, kw_only=True, frozen=True):
    """The options in force for one game (recorded in the state)."""

    sbeitla_hex: str = "2714"
    owner_sees_facedown: bool = False
    engineer_fortify: str = "full"
    facedown_draw: str = "placement"
    box_doubling: bool = False
    minefield_retreat: str = "hexside"
    mobile_ezoc_stop: bool = False


def resolve_options(given: dict[str, Any] | None) -> Options:
    """Fill defaults and check every given option; ScenarioError on an unknown option or value."""
    values = resolve(OPTIONS, given, where="Kasserine options", owner="kasserine",
                     error=ScenarioError)
    if values.get("owner_sees_facedown") and values.get("facedown_draw") == "reveal":
        raise ScenarioError("Kasserine options: owner_sees_facedown = true needs facedown_draw = "
                            "'placement' (a value drawn at the reveal cannot be seen before it)")
    return Options(**{k: v for k, v in values.items() if k in Options.__struct_fields__})
