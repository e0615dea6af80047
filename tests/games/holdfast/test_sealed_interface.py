"""Holdfast's sealed interface (pbem/games/holdfast/sealed.py, docs/sealed.md): blocks known
to the other side by public slots, orders projected over slots, combat opening the blocks of
its hex. Over whole bot games the full state and both knowledge states agree on every public
outcome and no knowledge state holds an unopened fact of the other side (check_play)."""

from __future__ import annotations

import random

import pytest

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.core.dice import KeyedDice
from pbem.core.sealed import SealedPlay, can_seal, check_play
from pbem.games.holdfast.game import GAME
from pbem.games.holdfast import sealed


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("style", ["random", "heuristic"])
def test_race_to_tunis_keeps_the_sealed_invariant(seed, style):
    assert can_seal(GAME)
    state = GAME.setup("race-to-tunis", {})
    assert check_play(GAME, state, random.Random(seed), max_orders=3000, style=style) == []
    assert state.public.phase == "over"


@pytest.mark.parametrize("seed", range(3))
def test_the_campaign_keeps_the_sealed_invariant_with_combat_and_standing_hits(seed):
    """HF-9.4-d: heuristic bots attack often; their standing 'hits' orders answer the
    allocations (HF-G7) from a hidden policy."""
    state = GAME.setup("campaign", {})
    played: list[str] = []
    real = SealedPlay.play

    def spy(self, side, line):
        played.append(line)
        return real(self, side, line)

    SealedPlay.play = spy
    try:
        assert check_play(GAME, state, random.Random(seed), max_orders=6000,
                          style="heuristic") == []
    finally:
        SealedPlay.play = real
    assert state.public.phase == "over"
    assert sum(x.startswith("attack") for x in played) > 10
    assert any(x.startswith("allocate") for x in played)


def _opening_position():
    sp = SealedPlay(GAME, GAME.setup("race-to-tunis", {}), bytes(32))
    for line in GAME.bot(sp.full, "axis", random.Random(1), "heuristic"):
        assert sp.play("axis", line) == [], line
    return sp


def test_blocks_are_known_by_stable_slots_and_projected_over_them():
    """HF-12.1-a set-up placements travel as 'seen place ?axis-N HEX'."""
    sp = _opening_position()
    full, allied = sp.full, sp.know["allied"]
    axis_units = {u for u, x in full.private["axis"].units.items() if x.where == "map"}
    assert axis_units and not axis_units & set(allied.private["axis"].units)
    slots = full.private["axis"].slots
    assert sorted(slots.values()) == list(range(1, len(slots) + 1))
    for uid, n in slots.items():
        ks = allied.private["axis"].units[sealed.slot_id("axis", n)]
        assert ks.hex == full.private["axis"].units[uid].hex
    # the Allied fixed set-up has slots from the start, in unit id order
    aslots = full.private["allied"].slots
    assert [u for u, _ in sorted(aslots.items(), key=lambda kv: kv[1])] == sorted(aslots)
    assert GAME.facts(allied, "axis") == {}
    assert set(GAME.facts(full, "axis")) == {f"axis-{n}.{w}" for n in slots.values()
                                             for w in ("unit", "sp")}
    assert GAME.public(full) == GAME.public(allied) == GAME.public(sp.know["axis"])


def test_a_move_is_projected_by_slot_and_path_only():
    """HF-9.1-b: the other side sees a block move along its path, never which unit."""
    sp = _opening_position()
    state = sp.know["allied"]
    line = next(x for x in GAME.bot(sp.full, "allied", random.Random(2), "heuristic")
                if x.startswith("move"))
    order = GAME.parse_order(line)
    seen = GAME.project(state, "allied", order)
    assert seen.startswith("seen move ?allied-") and order.unit not in seen
    assert GAME.format_order(GAME.parse_order(seen)) == seen


def test_a_seen_line_is_not_an_order_on_a_full_state():
    """PBEM-SEALED: a projection applies only where its side's blocks are stand-ins; a player
    cannot write one to skip the rules (a placement anywhere, a free 'seen buy')."""
    state = GAME.setup("race-to-tunis", {})
    for line in ("seen place ?axis-1 1902", "seen buy ?axis-1 1 rp 0"):
        with pytest.raises(IllegalOrder, match="PBEM-SEALED"):
            GAME.apply(state, "axis", GAME.parse_order(line), Context(KeyedDice(bytes(32))))


def test_disclose_ignores_facts_of_the_other_side_and_unknown_units():
    sp = _opening_position()
    allied = sp.know["allied"]
    before = sorted(allied.private["axis"].units)
    GAME.disclose(allied, "axis", {"allied-1.unit": "36bde", "axis-1.unit": "no-such-unit",
                                   "axis-1.sp": 1})
    assert sorted(allied.private["axis"].units) == before
    axis_uid, n = next(iter(sp.full.private["axis"].slots.items()))
    GAME.disclose(allied, "axis", {f"axis-{n}.unit": axis_uid, f"axis-{n}.sp": 2})
    assert allied.private["axis"].units[axis_uid].sp == 2
    assert sealed.slot_id("axis", n) not in allied.private["axis"].units
    assert GAME.facts(allied, "axis") == {f"axis-{n}.unit": axis_uid, f"axis-{n}.sp": 2}


@pytest.mark.parametrize("options", [{"oos_defender_penalty": True},
                                     {"end_supply_check": "both"}, {"base_capture": "end"}])
def test_supply_is_public_so_every_house_option_plays_sealed(options):
    """HF-10-f, HF-G9, HF-G10: supply reads block hexes, base control and minor port claims,
    all public in a sealed game, so the house options that read the other side's supply keep
    the invariant too."""
    state = GAME.setup("race-to-tunis", options)
    assert check_play(GAME, state, random.Random(5), max_orders=3000, style="heuristic") == []
