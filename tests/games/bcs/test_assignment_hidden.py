"""Arty Asset Points stay hidden from the enemy (BbF 1.5b, BCS-8.0d): a side's pool and the points
assigned to its HQs change nothing in the other side's view or report; a unit in Support is not
named in the enemy's view (BCS-9.2e)."""

from __future__ import annotations

import msgspec

from pbem.games.bcs.engine import ENGINE


def _seen(state, side):
    return msgspec.json.encode(ENGINE.view(state, side)), \
        msgspec.json.encode(ENGINE.report(state, side))


def test_arty_asset_points_are_masked():
    state = ENGINE.setup("5.2", {"entry_blocking": "attack_from_off_map"})
    before = _seen(state, "axis")
    priv = state.private["allied"]
    priv.arty_pool, priv.arty_free, priv.arty_assigned = 2, 2, {"cca": 3}
    assert _seen(state, "axis") == before
    own = msgspec.json.encode(ENGINE.view(state, "allied"))
    assert b'"arty_assigned":{"cca":3}' in own


def test_a_unit_in_support_is_not_named_to_the_enemy():
    state = ENGINE.setup("5.2", {"entry_blocking": "attack_from_off_map"})
    assert state.pieces["ii-25-lw-88"].status == "support"
    assert b"ii-25-lw-88" not in msgspec.json.encode(ENGINE.view(state, "allied"))
    assert b"ii-25-lw-88" in msgspec.json.encode(ENGINE.view(state, "axis"))
