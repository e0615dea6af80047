"""House options of Baptism By Fire: one per gap of GAPS.md section 3 (BBF-G1 to BBF-G25).

Each option names its gap; its default is the reading GAPS.md suggests, shown to both players
before turn 1. Where the text gives no safe default (BBF-G12) the option is required: the
proposer must choose. Gaps that only need data (counters, map, charts) are settled by the data
files and their option records which data set is used.
"""

from __future__ import annotations

from pbem.core.game import OptionSpec

OPTIONS: dict[str, OptionSpec] = {
    "counter_values": OptionSpec(
        default="reconstructed", choices=("reconstructed",),
        doc="BBF-G1: no counter values are printed; play with the reconstructed manifest "
            "(scenarios/bcs/counters.toml) until an owner of the boxed game corrects it"),
    "map_data": OptionSpec(
        default="reconstructed", choices=("reconstructed",),
        doc="BBF-G2: the maps are not printed; play on the reconstructed maps A and B "
            "(terrain, roads, Entry Areas, the 14 VP hexes per objective)"),
    "minefield_drm": OptionSpec(
        default="against_unit_in_minefield", choices=("against_unit_in_minefield",
                                                      "for_unit_in_minefield"),
        doc="BBF-G3: TEC note 3's '1 DRM against it' has no sign; default: worse for the unit "
            "in the minefield on the Combat, Engagement and Barrage Tables"),
    "defender_drms": OptionSpec(
        default="examples", choices=("examples",),
        doc="BBF-G4: the defender-only Combat Table modifiers are missing; use Terrain +1, "
            "Prepared Defense +1, second unit +1 and hexside DRMs from the printed examples"),
    "capabilities": OptionSpec(
        default="reconstructed", choices=("reconstructed",),
        doc="BBF-G5: the Unit Capabilities Chart stops after the Red AV row's Assist column; "
            "use the reconstructed matrix (charts.toml unit_capabilities)"),
    "snafu_arty_row": OptionSpec(
        default="fail_none_partial_half", choices=("fail_none_partial_half", "all_full"),
        doc="BBF-G6: the SNAFU effects chart lacks the Arty row; default Fail none, Partial "
            "half rounded down, Pass all"),
    "snafu_mud": OptionSpec(
        default="rain_is_mud", choices=("rain_is_mud", "ignore"),
        doc="BBF-G6: 'Truck 1/2 MA on Mud turns': treat Rain turns as Mud turns, or ignore"),
    "incomplete_ooa": OptionSpec(
        default="refuse", choices=("refuse",),
        doc="BBF-G7: scenarios whose formations never arrive (5.1, 5.3, 5.5, 5.6) are refused "
            "with that reason"),
    "incomplete_setup": OptionSpec(
        default="refuse", choices=("refuse",),
        doc="BBF-G8: an activation marker in play without its HQ refuses the scenario; "
            "initial VP control not listed = Allied"),
    "safe_path": OptionSpec(
        default="chart", choices=("chart",),
        doc="BBF-G9: Safe Path = at most Command Radius + 5 hexes, passable for the MA type, "
            "blocked by enemy units and EZOC (friendly units negate, Support AV EZOC and Screen "
            "Zones ignored), 3 road hexes toward the Trains when the HQ hex is checked"),
    "screen_zone_effect": OptionSpec(
        default="optional_8", choices=("optional_8",),
        doc="BBF-G10: the Screen Zone's effect is series Optional 8 (+1 MP per hex for enemy "
            "Move-side units; Tac/Truck infantry cannot enter the screen's hex)"),
    "buddies_traffic": OptionSpec(
        default="traffic_applies", choices=("traffic_applies", "buddies_exempt"),
        doc="BBF-G11: optional Unit Traffic applies to Buddies (the 4.1c correction) or not "
            "(BbF 1.3 as printed)"),
    "unit_traffic": OptionSpec(
        default=False, choices=(False, True),
        doc="Optional rule 5.1h Unit Traffic: a unit entering a hex with a friendly unit that has "
            "finished moving (or of an inactive Formation, Buddies included) gets no road "
            "benefit there (off by default, as the designer suggests)"),
    "ranged_fires": OptionSpec(
        default=False, choices=(False, True),
        doc="Series Optional 1 Ranged Fires (BCS-OPT1): in an Engagement at a range greater "
            "than 1 hex a Both Loss result reads No Effect (off by default: the printed rules)"),
    "middle_ground_coordination": OptionSpec(
        default=False, choices=(False, True),
        doc="Series Optional 5 Middle Ground Coordination (BCS-OPT5-a, -b): Coordination "
            "markers and their SNAFU DRMs accumulate up to 3 a Formation; a stack of units of "
            "several Formations gives each two; each Traffic result gives the active Formation "
            "one (off by default: the printed rules, one marker at most)"),
    "historical_weather": OptionSpec(
        default=False, choices=(False, True),
        doc="BbF 1.1 Historical Note (BBF-1.1f): no Weather roll; Rain on the 18, 19 and 20 "
            "Feb turns, No Rain on every other (off by default: the Weather Table is rolled)"),
    "activation_smoothing": OptionSpec(
        default=False, choices=(False, True),
        doc="Series Optional 9 Activation Smoothing (BCS-OPT9-a, -b): each turn a cup of chits, "
            "one per Formation of the side with fewer to activate, (difference) of them 2s; "
            "after each Formation Activation of the side with more it draws one, a 2 letting it "
            "activate a second Formation at once (off by default: the printed alternation)"),
    "entry_blocking": OptionSpec(
        required=True, choices=("attack_from_off_map", "five_hex_errata"),
        doc="BBF-G12: a blocked Entry hex: printed 9.3f (Attack from Off Map, +2 DRM) or the "
            "v1.0 errata (enter within 5 hexes); the sources disagree and there is no safe "
            "default, so the players must choose"),
    "setup_decision": OptionSpec(
        default="keep", choices=("keep", "allied", "axis", "both"),
        doc="BCS-1.4E: the sides asked in the Set-up decision before turn 1 (units on either "
            "counter side): each starts with the standing order 'setup ask'; 'keep' (the "
            "default) plays the printed set-up, Move sides up, and costs no file (a side with "
            "counters to place in a set-up zone, 1.4A, is always asked)"),
    "keep_coordination_if_mixed": OptionSpec(
        default=False, choices=(False, True),
        doc="BBF-G13: keep the Coordination marker after the SNAFU roll while 10.1e applies"),
    "recovery_second_activation": OptionSpec(
        default="errata", choices=("errata",),
        doc="BBF-G14: after a Recovery Activation play goes to step (i), never a Second "
            "Activation (ERR-BCS-1.2-5)"),
    "destroyed_formation_assets": OptionSpec(
        default="errata", choices=("errata",),
        doc="BBF-G15: a destroyed Formation's independents are removed, its Arty Asset Points "
            "return to the pool (ERR-BCS-1.2-1)"),
    "optional_rules": OptionSpec(
        default="none", choices=("none",),
        doc="BBF-G16: series optional rules are each a switch of their own (ranged_fires, "
            "middle_ground_coordination, activation_smoothing; Optional 3 as one group); those "
            "not built yet (docs/bcs.md, 'Optional rules not built, and why') are never used"),
    "tiger_rolls": OptionSpec(
        default=False, choices=(False,),
        doc="BBF-G17: Optional 4 Tiger Rolls is disabled (no base Tiger rule in v1.2 or BbF)"),
    "rommel_first_turn": OptionSpec(
        default="allowed_from_19_feb", choices=("allowed_from_19_feb", "assignment_phase_only"),
        doc="BBF-G18: Rommel may be assigned at the start of a scenario beginning on or after "
            "19 Feb; his boxes are DAK, 10 Pz (Reim, Gerhardt, Lang) and 21 Pz (Schutte, "
            "Stenkhoff)"),
    "exit_available": OptionSpec(
        default="on_map_tac_combat_units", choices=("on_map_tac_combat_units",),
        doc="BBF-G19: 'all available Tac MA units' = the Axis Tac MA combat units on the map "
            "when the exit check is made, never HQs or Trains"),
    "mines_as_hex_markers": OptionSpec(
        default=True, choices=(True,),
        doc="BBF-G20: mines are hex markers placed within the Stark HQ's Command Radius"),
    "visibility": OptionSpec(
        default="min_range_4", choices=("min_range_4",),
        doc="BBF-G21: Engagement Zone range = min(Range, 4); spotting needs 4 hexes and LOS"),
    "unused_markers": OptionSpec(
        default="ignore", choices=("ignore",),
        doc="BBF-G22: markers without rules in this book (Fort, Blown Bridge, ...) are ignored"),
    "stack_count_visible": OptionSpec(
        default="count", choices=("count", "one_plus"),
        doc="BBF-G23: an enemy stack shows its unit count, or '1+' with the count hidden"),
    "name_aliases": OptionSpec(
        default=True, choices=(True,),
        doc="BBF-G24: inconsistent names (Stnkoff/Stenkhoff, Scht/Schutte, Gerhdt/Gerhardt, "
            "Centro/Centauro, I/1Jg/I/Jg) resolve through the counters' alias lists"),
    "sealed_game": OptionSpec(
        default=False, choices=(False, True),
        doc="Not a gap: set by pbem itself for a game proposed in sealed mode (docs/sealed.md "
            "5h): units under a stack's top travel by public slot, and the Axis's Victory "
            "Objective is read only once his own file opens it"),
    "engagement_out_of_range": OptionSpec(
        default="chart", choices=("chart",),
        doc="BBF-G25: ignore a side's Engagement result when that side is out of enemy range "
            "(the chart's form)"),
}

#: Options added after the state format of bcs-engine-8 was fixed: while one has its default it
#: is left out of ``BcsState.options`` (the genesis still lists it, as every option), so a game
#: with the default options has the very state bytes and hashes it had before the option came
#: (docs/bcs-engine.md, "Activation Smoothing as built"); the rules read it with .get().
UNSTORED_DEFAULTS = ("activation_smoothing",)


def stored(options: dict[str, object]) -> dict[str, object]:
    """The house options as the state keeps them (UNSTORED_DEFAULTS at their default left out)."""
    return {k: v for k, v in options.items()
            if not (k in UNSTORED_DEFAULTS and v == OPTIONS[k].default)}
