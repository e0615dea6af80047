"""Kasserine in sealed peer mode, game side (pbem/games/kasserine/sealed.py, docs/sealed.md):
face-down markers drawn at the step-5 reveal in public, standing orders answered explicitly
by their owner (the hook the core calls), and the sealed invariant over whole bot games."""

from __future__ import annotations

import random

import msgspec
import pytest

from pbem.core.dice import FixedDice
from pbem.core.errors import PbemError
from pbem.core.game import Context
from pbem.core.rulecases import Case
from pbem.core.sealed import can_seal, check_play
from pbem.games.kasserine import GAME
from pbem.games.kasserine.board import data_of
from pbem.games.kasserine.combat import declared_diff
from pbem.games.kasserine.rulecases import HOOKS


SEALED = GAME.sealed_options({})


def _position(**pos) -> object:
    """A sealed game's position on the historical map (the rule cases' position keys)."""
    return HOOKS.build(Case(id="sealed", position={**pos, "options": SEALED}))


def _apply(state, side: str, line: str, dice: FixedDice, action: int = 0) -> Context:
    ctx = Context(dice, action=action)
    GAME.apply(state, side, GAME.parse_order(line), ctx)
    return ctx


def _answers(state, side: str, store: dict[str, str]) -> list[str] | None:
    """The hook read as the core reads it: on a copy whose store holds side's standing orders."""
    trial = msgspec.json.decode(msgspec.json.encode(state), type=GAME.state_type)
    trial.private[side].standing = dict(store)
    (decision,) = GAME.pending(trial)
    return GAME.standing_answers(trial, side, decision)


def test_kasserine_implements_the_sealed_interface():
    assert can_seal(GAME)


def test_KAS_7_2_c_sealed_facedown_markers_have_no_value_until_the_public_reveal():
    """KAS-7.2-c, KAS-8.2.1-c: placed face down, drawn at random from the unused allotment at
    the reveal, with dice both sides compute; nothing is rolled before step 5."""
    state = _position(phase="combat", units=[{"id": "s501", "hex": "3213"},
                                             {"id": "gren3", "hex": "3313"}],
                      markers={"axis": [1, 2, 3], "us": [1, 3]})
    dice = FixedDice([3, 1, 2, 4])
    _apply(state, "axis", "attack 3313 with s501 sf 2", dice)
    assert dice.used == 0                                 # step 1 placed, nothing drawn
    assert [d.side for d in GAME.pending(state)] == ["us"]   # step 2: the stores are empty
    axis = state.private["axis"]
    assert [m.value for m in axis.facedown] == [0]        # a placeholder, no value anywhere
    assert sorted(m.value for m in axis.unused) == [1, 2, 3]
    view = GAME.view(state, "axis").markers
    assert (view.unused, view.facedown, view.not_revealed) == (2, 1, [1, 2, 3])
    _apply(state, "us", "support yes", dice, 1)           # step 2; step 3 from 'sf 2'
    assert dice.used == 0 and state.combat.att_down == 2 and state.combat.def_down == 1
    ctx = _apply(state, "us", "support no", dice, 2)      # step 4 declined: step 5, the die
    assert dice.used == 4
    assert [r.visible_to for r in ctx.rolls] == ["all"] * 4
    assert [r.purpose for r in ctx.rolls[:3]] == [
        "axis support fire draw: face-down marker 1 revealed",
        "axis support fire draw: face-down marker 2 revealed",
        "us support fire draw: face-down marker 1 revealed"]
    c = state.last_combat or state.combat
    assert (c.att_values, c.def_values) == ([3, 1], [3])  # drawn without replacement
    assert sorted(state.spent["axis"]) == [1, 3] and state.spent["us"] == [3]
    assert [m.value for m in axis.unused] == [2] and axis.facedown == []
    assert any("markers revealed: axis +3 +1, us +3" in e.text for e in ctx.events)


def test_KAS_7_2_a_sealed_placeholders_count_against_the_unused_allotment():
    """KAS-7.2-a: a face-down marker is spent; with one marker left the defender can place one
    and then has none for step 4 (skipped, not asked)."""
    state = _position(phase="combat", units=[{"id": "s501", "hex": "3213"},
                                             {"id": "gren3", "hex": "3313"}],
                      markers={"axis": [1], "us": [2]})
    dice = FixedDice([5])
    _apply(state, "axis", "attack 3313 with s501 sf 1", dice)
    ctx = _apply(state, "us", "support yes", dice, 1)
    assert dice.used == 1                                 # one marker each: no draw roll
    assert any("markers revealed: axis +1, us +2" in e.text for e in ctx.events)
    assert not any("step 4: us places a face-down" in e.text for e in ctx.events)


def test_KAS_8_2_1_b_sealed_support_steps_answered_by_the_defenders_standing_orders():
    """KAS-8.2.1-b: the defender's steps 2 and 4 are decisions on both processors; its owner
    answers them with the lines its standing support order gives."""
    state = _position(phase="combat", units=[{"id": "s501", "hex": "3213"},
                                             {"id": "gren3", "hex": "3313"}],
                      markers={"axis": [1, 2, 3], "us": [1, 3]})
    _apply(state, "axis", "attack 3313 with s501 sf 1", FixedDice([]))
    assert state.combat.step == 2
    assert _answers(state, "us", {}) is None
    assert _answers(state, "us", {"support": "ask"}) is None
    assert _answers(state, "us", {"support": "two"}) == ["support yes"]
    assert _answers(state, "us", {"support": "one"}) == ["support yes"]
    assert _answers(state, "us", {"support": "never"}) == ["support no"]
    assert _answers(state, "us", {"support": "match"}) == ["support yes"]   # step 1 placed
    d = declared_diff(state, data_of(state), state.combat)   # units only, before markers
    assert _answers(state, "us", {"support": f"two min {d + 1:+d}"}) == ["support no"]
    assert _answers(state, "us", {"support": f"two min {d:+d}"}) == ["support yes"]
    assert GAME.standing_answers(state, "axis", GAME.pending(state)[0]) is None  # not axis's
    _apply(state, "us", "support yes", FixedDice([]), 1)   # step 3 not placed ('sf 1')
    assert state.combat.step == 4
    assert _answers(state, "us", {"support": "one"}) == ["support no"]
    assert _answers(state, "us", {"support": "match"}) == ["support no"]    # no step 3


def test_KAS_8_2_1_b_sealed_step_three_under_sf_ask_is_the_attackers_own_choice():
    """KAS-8.2.1-b: under 'sf ask' step 3 is asked; no standing order answers it."""
    state = _position(phase="combat", units=[{"id": "s501", "hex": "3213"},
                                             {"id": "gren3", "hex": "3313"}],
                      markers={"axis": [1, 2, 3], "us": [1, 3]})
    _apply(state, "axis", "attack 3313 with s501 sf ask", FixedDice([]))
    _apply(state, "us", "support no", FixedDice([]), 1)
    assert GAME.pending(state)[0].side == "axis"
    assert _answers(state, "axis", {"support": "two", "stiff": "never"}) is None


def test_KAS_8_4_a_sealed_stiff_resistance_and_retreat_answered_by_standing_orders():
    """KAS-8.4-a, KAS-8.3-a: the stiff-resistance and retreat-path decisions of a defender whose
    standing orders answer them (the 'full-strength' reading: a full two-step unit stands)."""
    state = _position(phase="combat", units=[{"id": "s501", "hex": "3213"},
                                             {"id": "inf2-168", "hex": "3313"}])
    _apply(state, "axis", "attack 3313 with s501", FixedDice([2]))
    assert state.wait is not None and state.wait.kind == "stiff"
    assert _answers(state, "us", {}) is None
    assert _answers(state, "us", {"stiff": "never"}) == ["stiff no"]
    assert _answers(state, "us", {"stiff": "always"}) == ["stiff yes"]
    assert _answers(state, "us", {"stiff": "full-strength"}) == ["stiff yes"]
    state.units["inf2-168"].steps = 1
    assert _answers(state, "us", {"stiff": "full-strength"}) == ["stiff no"]
    state.units["inf2-168"].steps = 2
    _apply(state, "us", "stiff no", FixedDice([]), 1)
    if state.wait is not None and state.wait.kind == "retreat":
        assert _answers(state, "us", {"stiff": "never"}) is None
        assert _answers(state, "us", {"retreat": "auto"}) == ["retreat inf2-168 auto"]
        _apply(state, "us", "retreat inf2-168 auto", FixedDice([]), 2)
    assert state.units["inf2-168"].hex != "3313"


def test_KAS_14_3_a_sealed_box_answered_by_standing_orders():
    """KAS-14.3-a: a US unit in a fortified box: 'standing box hold|yield' answers the box."""
    state = _position(phase="combat", units=[{"id": "s501", "hex": "2605"},
                                             {"id": "pz7-2", "hex": "2706"},
                                             {"id": "pz5-1", "hex": "2506"},
                                             {"id": "inf3-26", "hex": "2606"}])
    _apply(state, "axis", "attack 2606 with s501,pz7-2,pz5-1 sf 0", FixedDice([5]))
    assert state.wait is not None and state.wait.kind == "box"
    assert _answers(state, "us", {}) is None
    assert _answers(state, "us", {"box": "hold"}) == ["box hold"]
    assert _answers(state, "us", {"box": "yield"}) == ["box yield"]
    _apply(state, "us", "box hold", FixedDice([]), 1)
    assert state.units["inf3-26"].hex == "2606"


def test_sealed_projection_public_part_and_facts():
    """Orders travel as written; standing orders are not in the public part; the game keeps no
    hidden fact of its own (the core keeps standing orders as facts)."""
    state = _position(phase="combat", units=[{"id": "s501", "hex": "3213"},
                                             {"id": "gren3", "hex": "3313"}],
                      markers={"axis": [1], "us": [1]})
    line = "attack 3313 with s501 sf 1 advance s501:1 loss s501"
    assert GAME.project(state, "axis", GAME.parse_order(line)) == line
    guarded = "if 3313 clear then move s501 3213 3313"
    from pbem.core.standing import parse_line
    assert GAME.project(state, "axis", parse_line(GAME, guarded)) == guarded
    assert GAME.reveals(state, "axis", GAME.parse_order(line)) == []
    assert GAME.facts(state, "axis") == {}
    state.private["us"].standing = {"support": "two"}
    pub = GAME.public(state)
    assert "standing" not in pub["private"]["us"]
    know = GAME.conceal(msgspec.json.decode(msgspec.json.encode(state),
                                            type=GAME.state_type), "axis")
    assert know.private["us"].standing == {} and GAME.public(know) == pub
    GAME.disclose(know, "us", {"standing.support": "two"})    # not the game's: ignored
    assert know.private["us"].standing == {}


def test_KAS_7_2_c_sealed_options_draw_at_the_reveal_and_refuse_owner_sees_facedown():
    """KAS-7.2-c (KAS-G12): a sealed game is proposed with facedown_draw = 'reveal'; the option
    that shows its owner a face-down value at placement, or an explicit 'placement', cannot be
    played sealed (one line naming the option)."""
    assert GAME.sealed_options({}) == {"facedown_draw": "reveal"}
    assert GAME.sealed_options({"sbeitla_hex": "2706"}) == {"sbeitla_hex": "2706",
                                                           "facedown_draw": "reveal"}
    for bad, name in (({"owner_sees_facedown": True}, "owner_sees_facedown"),
                      ({"facedown_draw": "placement"}, "facedown_draw")):
        with pytest.raises(PbemError, match=name) as e:
            GAME.sealed_options(bad)
        assert "\n" not in str(e.value)
    with pytest.raises(PbemError, match="owner_sees_facedown"):
        GAME.setup("historical", {"owner_sees_facedown": True, "facedown_draw": "reveal"})


def test_peer_games_are_unchanged_facedown_drawn_at_placement():
    """KAS-7.2-c: outside a sealed game the face-down draw is rolled at placement, hidden from
    both players (class nobody), as before."""
    state = HOOKS.build(Case(id="peer", position={
        "phase": "combat", "units": [{"id": "s501", "hex": "3213"},
                                     {"id": "gren3", "hex": "3313"}],
        "markers": {"axis": [1, 2, 3], "us": [1, 3]}}))
    ctx = _apply(state, "axis", "attack 3313 with s501 sf 1", FixedDice([2]))
    assert [r.visible_to for r in ctx.rolls] == ["nobody"]
    assert [m.value for m in state.private["axis"].facedown] == [2]


@pytest.mark.parametrize("seed", range(12))
def test_sealed_invariant_over_whole_bot_games(seed):
    """check_play: whole historical games bot against bot, the full state and both knowledge
    states with the same dice: every public outcome the same, nothing of the other side held."""
    state = GAME.setup("historical", SEALED)
    assert check_play(GAME, state, random.Random(seed), max_orders=6000) == []
    assert GAME.outcome(state) is not None
