"""A synthetic map with every feature kind and a report context that uses all of it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pbem.core.game import (  # noqa: E402
    Decision, Event, MapArrow, MapMarker, MapUnit, Outcome, Panel, ReportModel, Roll)
from pbem.core.mapdata import GameMap, load_map  # noqa: E402
from pbem.reports.context import ReportContext  # noqa: E402

XSS = "<script>alert(1)</script>"

MAP_TOML = """\
grid = [
  "~~~~~.~~~~~~",
  "~~....^..~~~",
  "....^^M...~~",
  "...^MM^.....",
  "....^^...^^.",
  "g......^MM^.",
  "gg..ss.....^",
  "g..ssss.....",
  "...sss..^...",
]

[legend]
"." = "open"
"^" = "rough"
"M" = "mountain"
"~" = "sea"
"s" = "salt_marsh"
"g" = "gray"

[map]
id = "sample"
title = "Sample front"
first_col = 1
last_col = 12
first_row = 1
last_row = 9
shifted = "even"
digits = 2
source = "reconstructed: synthetic test map"

[[place]]
name = "Porto Vecchio"
hex = "0402"
kinds = ["town", "port"]
source = "reconstructed: test"

[[place]]
name = "PLACE_NAME"
hex = "0805"
kinds = ["town", "objective"]
source = "reconstructed: test"

[[place]]
name = "Tebessa"
hex = "0109"
kinds = ["town", "supply_base"]
source = "reconstructed: test"

[[place]]
name = "El Guettar"
hex = "0709"
kinds = ["town"]
source = "reconstructed: test"

[[road]]
kind = "road"
name = "Coast road"
hexes = ["0402", "0503", "0603", "0704", "0804", "0805"]
source = "reconstructed: test"

[[road]]
kind = "road"
name = "South road"
hexes = ["0805", "0806", "0707", "0708", "0709"]
source = "reconstructed: test"

[[road]]
kind = "trail"
name = "Chott track"
hexes = ["0109", "0208", "0308", "0407", "0507", "0606", "0706", "0805"]
source = "reconstructed: test"

[[hexside]]
kind = "river"
pairs = [["0703", "0704"], ["0603", "0704"], ["0604", "0704"], ["0604", "0705"],
         ["0605", "0705"], ["0605", "0706"]]
source = "reconstructed: test"

[[hexside]]
kind = "bridge"
pairs = [["0603", "0704"]]
source = "reconstructed: test"

[[hexside]]
kind = "escarpment"
pairs = [["0504", "0505"], ["0604", "0605"], ["0404", "0405"]]
source = "reconstructed: test"

[[hexside]]
kind = "red_line"
pairs = [["1004", "1005"], ["1104", "1105"]]
source = "reconstructed: test"

[[hexside]]
kind = "mareth"
pairs = [["1107", "1108"], ["1207", "1208"]]
source = "reconstructed: test"

[[hexside]]
kind = "minefield"
pairs = [["0906", "0907"]]
source = "reconstructed: test"

[[hexside]]
kind = "wadi"
pairs = [["0307", "0308"], ["0207", "0308"]]
source = "reconstructed: test"

[[hexset]]
name = "west_edge"
hexes = ["0101", "0102", "0103"]
source = "reconstructed: test"
"""


def make_map(tmp_path: Path, place_name: str = "Medjez") -> GameMap:
    """Write the synthetic map.toml and load it through the real loader."""
    p = tmp_path / "map.toml"
    name = place_name.replace("\\", "\\\\").replace('"', '\\"')
    p.write_text(MAP_TOML.replace("PLACE_NAME", name), encoding="utf-8")
    return load_map(p)


def make_context(*, unit_label: str = "78 Div", event_text: str = "78 Div attacks 10 Pz in Medjez.",
                 outcome: Outcome | None = None) -> ReportContext:
    """An allied report mid-game: own units, masked and revealed axis units, a combat, arrows."""
    units = [
        MapUnit(hex="0402", side="allied", label="1 Gds", values="4 SP", kind="infantry"),
        MapUnit(hex="0402", side="allied", label="Blade", values="2 SP", kind="armor"),
        MapUnit(hex="0704", side="allied", label="CCB", values="3 SP", kind="armor",
                note="out of supply"),
        MapUnit(hex="0109", side="allied", label="II Corps", values="HQ", kind="hq"),
        MapUnit(hex="0805", side="allied", label=unit_label, values="4 SP", kind="infantry"),
        MapUnit(hex="0805", side="axis", label="10 Pz", values="2 SP", kind="armor",
                note="revealed in combat"),
        MapUnit(hex="0806", side="axis", masked=True),
        MapUnit(hex="0906", side="axis", masked=True),
        MapUnit(hex="0906", side="axis", masked=True),
        MapUnit(hex="1107", side="axis", masked=True),
    ]
    model = ReportModel(
        game="holdfast", game_title="Holdfast: Tunisia 1942-43", scenario="campaign",
        side="allied", turn=3, turn_label="December 1942 (I)", phase="movement",
        units=units,
        markers=[MapMarker(hex="0805", kind="combat", label="Medjez"),
                 MapMarker(hex="0906", kind="support")],
        arrows=[MapArrow(path=("0603", "0704", "0804", "0805"), side="allied", label=unit_label),
                MapArrow(path=("0907", "0906"), side="axis")],
        panels=[
            Panel(title="Supply", lines=("CCB (0704) is out of supply: -1 die in combat.",
                                         "All other allied blocks are in supply.")),
            Panel(title="Reinforcements due",
                  lines=("Turn 4: 6 Armd (Bone), 1 US Inf (Tebessa).",)),
            Panel(title="Victory", lines=("Allied hold 2 of 5 objectives; axis hold 3.",
                                          "Tunis and Bizerte: axis.")),
        ],
    )
    events = [
        Event(text="Axis block moved 0907 - 0906.", hexes=("0907", "0906"), kind="move"),
        Event(text="Allied 78 Div moved 0603 - 0704 - 0804 - 0805.", kind="move",
              hexes=("0603", "0704", "0804", "0805")),
        Event(text=event_text, kind="combat", hexes=("0805",)),
        Event(text="10 Pz revealed: 10th Panzer (A), 2 SP.", kind="reveal", hexes=("0805",)),
        Event(text="Attacker 3 dice (4 SP, -1 rough): hits on 6: 1 hit. Defender 2 dice "
                   "(2 SP, +1 town): hits on 5 or 6: 1 hit. " * 2, kind="combat"),
        Event(text="10 Pz loses 1 SP; 78 Div loses 1 SP.", kind="loss", hexes=("0805",)),
    ]
    rolls = [
        Roll(action=2, index=0, sides=6, value=6, purpose="Combat 0805: attacker die (1/3)"),
        Roll(action=2, index=1, sides=6, value=3, purpose="Combat 0805: attacker die (2/3)"),
        Roll(action=2, index=2, sides=6, value=1, purpose="Combat 0805: attacker die (3/3)"),
        Roll(action=2, index=3, sides=6, value=5, purpose="Combat 0805: defender die (1/2)"),
        Roll(action=2, index=4, sides=6, value=2, purpose="Combat 0805: defender die (2/2)"),
        Roll(action=3, index=0, sides=10, value=7, purpose="Weather for December 1942 (I)"),
    ]
    return ReportContext(
        model=model,
        pending=[Decision(side="allied", kind="movement",
                          prompt="Move your blocks (movement phase, 12 MP for armor)."),
                 Decision(side="axis", kind="standing_orders",
                          prompt="Retreat standing orders for the coming combats.")],
        answer=["pbem orders game-7f3a1c --edit",
                "pbem send game-7f3a1c --orders orders.txt --to opponent@example.org"],
        events=events,
        rolls=rolls,
        game_id="7f3a1c9e0b2d4a6f8e1c3b5a7d9f0e2c",
        seq=12,
        file_name="0012-axis.pbem",
        file_hash="9b74c9897bac770ffc029102a200c5de3a4f2b8c1e0d7a6b5c4d3e2f1a0b9c8d",
        fingerprints={"allied": "K7QF-2M9X-TR4D", "axis": "P3LW-8HZC-VN6B"},
        outcome=outcome,
        mode="peer",
    )


@pytest.fixture
def sample_map(tmp_path: Path) -> GameMap:
    return make_map(tmp_path)


@pytest.fixture
def sample_ctx() -> ReportContext:
    return make_context()
