"""Who may go into Support (BCS 9.2a, 9.2c, BbF 1.6): support.may_enter_support, which the
Assignment Phase asks before it moves a unit into Support."""

from __future__ import annotations

import msgspec
import pytest

from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.support import may_enter_support


@pytest.fixture(scope="module")
def state():
    return ENGINE.setup("5.2", {"entry_blocking": "attack_from_off_map"})


@pytest.mark.parametrize("uid", ["ii-5-pz", "i-5-pz", "90-mdr", "ii-25-lw-88", "72-ra-at"])
def test_german_and_british_non_dual_av_units_may(state, uid):
    """BBF-1.6, BCS-9.2a-1: non-Dual German and British AV units may go into Support (Red, Stand
    Off, Support-only)."""
    p = msgspec.structs.replace(state.pieces[uid], status="map")   # the 88 sets up in Support
    assert may_enter_support(state, p) is None


def test_us_av_units_never(state):
    """BBF-1.6: a US AV unit never goes into Support (701-td is a non-Dual Stand Off unit)."""
    why = may_enter_support(state, state.pieces["701-td"])
    assert why is not None and "BBF-1.6" in why
    why = may_enter_support(state, state.pieces["3-1-arm"])
    assert why is not None and "BBF-1.6" in why


def test_italian_av_units_never(state):
    """BBF-1.6: an Italian AV unit never goes into Support (XVI Arm, not in 5.2's pieces: copied
    into the state as an off-map piece)."""
    import msgspec
    p = msgspec.structs.replace(state.pieces["ii-5-pz"], id="xvi-arm", formation="dak")
    why = may_enter_support(state, p)
    assert why is not None and "BBF-1.6" in why


def test_dual_units_never(state):
    """BCS-9.2a-1, BCS-9.2c: a Dual unit (580 Pz Recon: Assault Arrow and Light AV) is an AV unit
    that never receives Support and may not go into Support either."""
    why = may_enter_support(state, state.pieces["580-recon"])
    assert why is not None and "BCS-9.2a-1" in why


@pytest.mark.parametrize("uid", ["ii-104-inf", "stenkhoff-hq", "stenkhoff-trains"])
def test_non_av_units_hqs_and_trains_never(state, uid):
    """BCS-9.2a-1: only AV units go into Support."""
    why = may_enter_support(state, state.pieces[uid])
    assert why is not None and "BCS-9.2a-1" in why


def test_not_twice(state):
    """BCS-9.2a-1: a unit already in Support is refused."""
    import msgspec
    p = msgspec.structs.replace(state.pieces["ii-5-pz"], status="support", hex="")
    assert "already" in (may_enter_support(state, p) or "")
