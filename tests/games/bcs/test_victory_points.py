"""BBF-4.1-d: the end of a campaign game without an exit win, at its boundaries. The Axis's
Victory Points (the VP hexes he controls that list his drawn objective or 'Either', plus the
scenario's bonus: 5.4 adds 4 for Le Kef, 1 for Tebessa) decide: 9 or more an Axis victory, 8
a draw, 7 or fewer an Allied victory. One driver, the cases in the table."""

from __future__ import annotations

import pytest

from pbem.games.bcs.board import bdata
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.victory import campaign_points, campaign_result

# (objective, VP hexes the Axis controls for it, expected winner): 5.4's bonus included
CASES = [
    ("tebessa", 8, "axis"),      # 8 + 1 = 9: an Axis victory
    ("tebessa", 7, None),        # 7 + 1 = 8: a draw
    ("tebessa", 6, "allied"),    # 6 + 1 = 7: an Allied victory
    ("lekef", 5, "axis"),        # 5 + 4 = 9
    ("lekef", 4, None),          # 4 + 4 = 8
    ("lekef", 3, "allied"),      # 3 + 4 = 7
    ("lekef", 0, "allied"),      # the bonus alone
]


def _vp_hexes(objective: str) -> list[str]:
    kinds = {"vp_either", f"vp_{objective}"}
    return sorted(p.hex for p in bdata().game_map.data.place if kinds & set(p.kinds))


@pytest.mark.parametrize("objective, held, winner", CASES)
def test_BBF_4_1_d_the_end_by_victory_points(objective: str, held: int, winner: str | None):
    st = ENGINE.setup("5.4", {"entry_blocking": "attack_from_off_map"})
    st.private["axis"].objective = objective
    hexes = _vp_hexes(objective)
    assert len(hexes) == 14                       # BBF-4.1-d: 14 applicable VP hexes
    st.control = {h: ("axis" if i < held else "allied") for i, h in enumerate(hexes)}
    vp, counted = campaign_points(st, objective)
    assert (vp, len(counted)) == (held + (4 if objective == "lekef" else 1), held)
    r = campaign_result(st)
    assert r is not None and r.winner == winner, r
    assert f"{vp} Axis Victory Points" in r.reason and "BbF 4.1" in r.reason
