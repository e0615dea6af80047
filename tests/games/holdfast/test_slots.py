"""assign_slots (sealed block slots) equals a plain reading of its rule on any state, with
stand-ins, opened units and stale slots: its settled-side shortcut changes no result."""

from __future__ import annotations

import random

import msgspec
import pytest

from pbem.games.holdfast.data import STANDIN_PREFIX
from pbem.games.holdfast.sealed import KNOWN, assign_slots
from pbem.games.holdfast.state import SIDES, HoldfastState, PublicState, SideState, UnitState

WHERE = ["map", "map", "map", "track", "eliminated", "offmap", "bag", KNOWN]


def plain(state: HoldfastState) -> None:
    """The rule read plainly: stand-ins off the map go; slots of units neither on the map nor
    opened go; units on the map without a slot get the next ones in id order."""
    for side in SIDES:
        priv = state.private[side]
        for k in [k for k, u in priv.units.items()
                  if k.startswith(STANDIN_PREFIX) and u.where != "map"]:
            del priv.units[k]
        for k in [k for k in priv.slots
                  if k not in priv.units or priv.units[k].where not in ("map", KNOWN)]:
            del priv.slots[k]
        for k in sorted(k for k, u in priv.units.items() if u.where == "map"
                        and k not in priv.slots and not k.startswith(STANDIN_PREFIX)):
            n = state.public.slots[side] = state.public.slots.get(side, 0) + 1
            priv.slots[k] = n


def random_state(rng: random.Random) -> HoldfastState:
    """Units of both sides in random places, some stand-ins, slots right, stale or missing."""
    private = {}
    for side in SIDES:
        units = {}
        for i in range(rng.randint(0, 12)):
            uid = (f"{STANDIN_PREFIX}{side}-{i}" if rng.random() < 0.2
                   else rng.choice(["", "1", "z"]) + f"{side[:2]}{i}")
            units[uid] = UnitState(id=uid, where=rng.choice(WHERE))
        slots = {k: rng.randint(1, 20) for k in units if rng.random() < 0.6}
        if rng.random() < 0.2:
            slots["gone-unit"] = 7
        private[side] = SideState(units=units, slots=slots)
    pub = PublicState(scenario="campaign", options={},
                      slots={s: rng.randint(0, 20) for s in SIDES if rng.random() < 0.7})
    return HoldfastState(public=pub, private=private)


@pytest.mark.parametrize("seed", range(40))
def test_assign_slots_is_the_plain_rule(seed):
    rng = random.Random(seed)
    for _ in range(50):
        state = random_state(rng)
        if rng.random() < 0.5:
            plain(state)                    # a settled state, as the game leaves it
        ref = msgspec.json.decode(msgspec.json.encode(state), type=HoldfastState)
        assign_slots(state)
        plain(ref)
        assert msgspec.json.encode(state) == msgspec.json.encode(ref)
