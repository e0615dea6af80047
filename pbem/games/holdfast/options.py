"""House options of the Holdfast engine: each settles one gap of GAPS.md section 1.1."""

from __future__ import annotations

from typing import Any

from pbem.core.errors import ScenarioError
from pbem.core.game import OptionSpec
from pbem.core.options import resolve

OPTIONS: dict[str, OptionSpec] = {
    "hit_allocation": OptionSpec(
        default="owner-priority", choices=("owner-priority",),
        doc="HF-G7: the owner of the hit units allocates hits as a priority order of his "
            "attacking units; each hit goes to the first listed unit whose TH the die meets "
            "and that still has SP; sixes go to armor first; the attacker may pre-commit the "
            "order with 'hits a,b' or is asked with an 'allocate' decision"),
    "combat_team_weather": OptionSpec(
        default="immune", choices=("immune", "clear-only"),
        doc="HF-G8: the Combat Team is weather-immune (default) or, read literally, usable "
            "in clear weather only"),
    "oos_defender_penalty": OptionSpec(
        default=False, choices=(False, True),
        doc="HF-G9: the out-of-supply -1 die applies to activated units only (default) or "
            "also to an out-of-supply defender"),
    "end_supply_check": OptionSpec(
        default="phasing", choices=("phasing", "both"),
        doc="HF-G10: the end-of-player-turn supply check eliminates the phasing player's "
            "units only (default) or both sides' units"),
    "min_attack_dice": OptionSpec(
        default=0, choices=(0, 1),
        doc="HF-G11: dice pools are clamped at 0; with 1, an attack rolling no die at all "
            "is illegal"),
    "bridge_die_hits": OptionSpec(
        default="crossing", choices=("crossing", "any"),
        doc="HF-G12: hits of the bridge bonus die go to a unit attacking across a bridge "
            "hexside (default) or to any attacker"),
    "italian_entry": OptionSpec(
        default="german", choices=("german", "german+minor-ports"),
        doc="HF-G13: Italian units enter at the German entry points (Tunis, Bizerte); "
            "optionally also at the minor ports"),
    "joint_support": OptionSpec(
        default="ignore", choices=("ignore", "count"),
        doc="HF-G15: support units do not count as a nationality for the joint-attack cost "
            "(default) or do count"),
    "victory_tie": OptionSpec(
        default="draw", choices=("draw", "axis"),
        doc="HF-G16: if both sides meet a win condition at the same check the game is a "
            "draw (default) or the Axis wins"),
    "base_capture": OptionSpec(
        default="enter", choices=("enter", "end"),
        doc="ERR-HF-2/HF-G18: an in-supply unit captures an enemy supply base by entering "
            "it during a move (default, passing through counts) or only by ending its move "
            "there"),
    "minor_port_choice": OptionSpec(
        default="auto", choices=("auto",),
        doc="HF-G22: each minor port supplies the first Axis unit that needs it in a "
            "player turn (an activation check claims it: a move, an attack, each unit of a joint "
            "attack in the order listed); at the end-of-turn check the "
            "remaining ports go to the units needing them in hex order"),
}


def resolve_options(given: dict[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with the given options; ScenarioError for unknown names or values."""
    return resolve(OPTIONS, given, where="Holdfast options", owner="holdfast", error=ScenarioError)
