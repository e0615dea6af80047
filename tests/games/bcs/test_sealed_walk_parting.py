"""A hidden unit that leaves its top behind and moves on under another top (the bulk
exchange's sealed 5.2, heuristic bots, seed 11, file 60; docs/sealed.md 5h, session 23).

On the other processor a unit under a top is a stand-in, a copy of that top
(`rebase_standins`). ii-69-pg (Tactical) under 49-pio (a Truck on its Move side) in B22.01
moved alone into B22.02, under ii-7-pz: it stayed hidden, so its stand-in walked as a Truck,
and 5.2c refused the Truck's step into terrain it may not enter ('49-pio--standin11 (truck)
cannot enter B22.02 from B22.01: prohibited terrain'); the public states parted and the game
stopped. A unit that leaves its top now opens its identity and face when a copy of that top
would walk with another class or MA (on either counter side); one with the top's own walk
opens nothing."""

from __future__ import annotations

from typing import Any

from pbem.core.sealed import SealedPlay
from pbem.games.bcs import sealed as bs

from games.bcs.test_sealed_port import GAME, sealed_position


def _gerhardt(face: str) -> Any:
    """5.2, turn 2: Gerhardt activated (SNAFU Pass); 49-pio on top of ii-69-pg in B22.01,
    ii-7-pz in B22.02."""
    return sealed_position("sealed-walk", {
        "turn": 2, "next_side": "axis", "active": "gerhardt", "snafu": "Pass", "began": True,
        "drawn": True,
        "units": [{"id": "gerhardt-hq", "hex": "B21.01"}, {"id": "49-pio", "hex": "B22.01"},
                  {"id": "ii-69-pg", "hex": "B22.01", "face": face},
                  {"id": "ii-7-pz", "hex": "B22.02"}]})


def test_a_unit_leaving_a_top_that_walks_otherwise_opens_its_identity():
    for face in ("move", "deployed"):
        sp = SealedPlay(GAME, _gerhardt(face), b"k" * 32)
        allied = sp.know["allied"]
        assert bs._tops(sp.full, "axis") == {"B22.01": "49-pio", "B22.02": "ii-7-pz"}
        slot = bs.slot_name("axis", sp.full.slots["axis"]["ii-69-pg"])
        standin = bs.piece_of(allied, "axis", int(slot.split("-")[1]))
        assert standin is not None and standin.startswith("49-pio" + bs.STANDIN_MARK)
        line = "move ii-69-pg B22.02"
        text = bs.project(sp.know["axis"], "axis", GAME.parse_order(line))
        # the old code: 'move slot-axis-2 B22.02', refused on the Allied knowledge state
        # (5.2c: the Truck's copy), whose public state then parts
        assert text == f"move slot-{slot} B22.02 opens {slot}.unit {slot}.face", face
        assert sp.play("axis", line) == []
        assert sp.full.pieces["ii-69-pg"].hex == allied.pieces["ii-69-pg"].hex == "B22.02"
        assert bs._tops(sp.full, "axis")["B22.02"] == "ii-7-pz"      # still under a top


def test_a_unit_leaving_a_top_with_its_own_walk_opens_nothing():
    """ii-afk under i-afk (the same counter values: Truck 10, Leg 4): its stand-in walks as
    it does, so moving alone under i-8-pz opens nothing and both processors agree."""
    sp = SealedPlay(GAME, sealed_position("sealed-walk-same", {
        "scenario": "5.4", "turn": 2, "next_side": "axis", "active": "dak", "snafu": "Pass",
        "began": True, "drawn": True,
        "units": [{"id": "dak-hq", "hex": "A26.14"}, {"id": "i-afk", "hex": "A27.15"},
                  {"id": "ii-afk", "hex": "A27.15"}, {"id": "i-8-pz", "hex": "A27.14"}]}),
        b"k" * 32)
    assert bs._tops(sp.full, "axis")["A27.15"] == "i-afk"
    line = "move ii-afk A27.14"
    slot = bs.slot_name("axis", sp.full.slots["axis"]["ii-afk"])
    assert bs.project(sp.know["axis"], "axis", GAME.parse_order(line)) == \
        f"move slot-{slot} A27.14"
    assert sp.play("axis", line) == []
    assert "ii-afk" not in sp.know["allied"].pieces
