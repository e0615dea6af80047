"""The Baptism By Fire bots (issue 19, item 7): both set their standing orders first; the
heuristic bot attacks when the odds are good and not otherwise, keeps a reserve, and beats the
random bot over seeded games of 5.2 in both seats (a margin that can fail)."""

from __future__ import annotations

import random
import statistics
from types import SimpleNamespace

import pytest

from pbem.core.dice import KeyedDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs import heuristic
from pbem.games.bcs.bot import HEURISTIC_STANDING, PRE_TURN_OWN
from pbem.games.bcs.combat import STANDING
from pbem.games.bcs.reactions import OWN_TOPICS
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.rulecases import HOOKS

OPTIONS = {"entry_blocking": "attack_from_off_map"}


def _position(*defenders: str, arty_left: bool = False):
    """Reimann's ii-86-inf next to B8.19 (in an OBJ Zone) where the Allied units stand; the
    Activities have begun (no more OBJs, so no Double OBJ Zone)."""
    units = [{"id": "reim-hq", "hex": "B5.18"}, {"id": "ii-86-inf", "hex": "B7.18"},
             {"id": "cca-hq", "hex": "B12.19"}] + [{"id": d, "hex": "B8.19"} for d in defenders]
    state = HOOKS.build(SimpleNamespace(position={"units": units, "active": "reim",
                                                  "objs": ["B8.19"], "began": True}))
    if not arty_left:
        state.activation.arty_used = 99          # no Suppression Mission left
    return state


def test_both_bots_set_their_standing_orders_first():
    """Every topic of combat.STANDING is set before the bot's first order: the heuristic bot's
    choices (HEURISTIC_STANDING, else the first mode); the random bot's at random, 'ask' among
    them (then it is asked, and answers)."""
    state = ENGINE.setup("5.2", OPTIONS)
    lines = ENGINE.bot(state, "axis", random.Random(1), "heuristic")
    want = [f"standing {t} {HEURISTIC_STANDING.get(t, modes[0])}"
            for t, modes in sorted(STANDING.items())]
    want += [f"standing {t} {OWN_TOPICS[t][0]}" for t in PRE_TURN_OWN]
    assert lines[:len(want)] == want
    assert not lines[len(want)].startswith("standing")
    modes = set()
    for seed in range(12):
        got = ENGINE.bot(state, "axis", random.Random(seed), "random")
        modes |= {x.split()[2] for x in got if x.startswith("standing")}
    assert "ask" in modes and "spread" in modes
    for line in lines:                     # and they apply: then no more are written
        ENGINE.apply(state, "axis", ENGINE.parse_order(line), Context(KeyedDice(b"s")))
        if not line.startswith("standing"):
            break
    assert not any(x.startswith("standing") for x in
                   ENGINE.bot(state, state.activation.side if state.activation else "axis",
                              random.Random(2), "heuristic"))


def test_the_odds_of_the_combat_table():
    """combat_score is the expected result over the 36 throws of 2d6 on the chart data: it
    grows with the net AR difference; even odds lose (A1 and A2 outnumber D results);
    ATTACK_AT lies between a difference of +1 and +2."""
    scores = [heuristic.combat_score(d, False, 3) for d in range(-4, 8)]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)
    assert heuristic.combat_score(0, False, 3) < 0
    assert heuristic.combat_score(1, False, 3) < heuristic.ATTACK_AT \
        <= heuristic.combat_score(2, False, 3)
    assert heuristic.combat_score(0, True, 3) < heuristic.combat_score(0, False, 3)   # [A1]
    assert heuristic.engagement_score(0) < heuristic.engagement_score(3)


def test_the_heuristic_bot_attacks_at_good_odds():
    """A lone drake (AR 2) against ii-86-inf (AR 4): net +2, worth the dice: the bot attacks."""
    state = _position("drake")
    lines = [x for x in ENGINE.bot(state, "axis", random.Random(1), "heuristic")
             if not x.startswith("standing")]
    assert lines[-1] == "attack B8.19 with ii-86-inf", lines


def test_the_heuristic_bot_does_not_attack_at_poor_odds():
    """drake with kern (AR 3, second unit +1): net 0, not worth it: the bot ends instead; with
    an Arty Point for a Suppression Mission (+2) it attacks with it."""
    lines = ENGINE.bot(_position("drake", "kern"), "axis", random.Random(1), "heuristic")
    assert lines[-1] == "end" and not any(x.startswith("attack") for x in lines), lines
    lines = ENGINE.bot(_position("drake", "kern", arty_left=True), "axis", random.Random(1),
                       "heuristic")
    assert lines[-1] == "attack B8.19 with ii-86-inf suppress arty", lines


def test_the_heuristic_bot_keeps_a_reserve():
    """A Formation with three units on the map keeps the one nearest its HQ back: it neither
    moves nor attacks; with two it keeps none."""
    units = [{"id": "gerhardt-hq", "hex": "B20.06"}, {"id": "ii-7-pz", "hex": "B20.07"},
             {"id": "ii-69-pg", "hex": "B22.09"}, {"id": "49-pio", "hex": "B24.10"},
             {"id": "cca-hq", "hex": "B12.19"}, {"id": "drake", "hex": "B14.09"}]
    state = HOOKS.build(SimpleNamespace(position={"units": units, "active": "gerhardt"}))
    assert heuristic.reserve(state, "gerhardt") == "ii-7-pz"
    lines = ENGINE.bot(state, "axis", random.Random(3), "heuristic")
    assert not any("ii-7-pz" in x for x in lines), lines
    assert any(x.startswith("move ii-69-pg") or x.startswith("move 49-pio") for x in lines)
    del units[3]
    state = HOOKS.build(SimpleNamespace(position={"units": units, "active": "gerhardt"}))
    assert heuristic.reserve(state, "gerhardt") == ""


def _balance(seed: int, styles: dict[str, str], seat: str) -> int:
    """One game of 5.2: the enemy's steps lost minus seat's own."""
    rng = random.Random(seed)
    dice = KeyedDice(seed.to_bytes(8, "big"))
    state = ENGINE.setup("5.2", OPTIONS)

    def steps(side: str) -> int:
        return sum(p.steps for p in state.pieces.values()
                   if p.side == side and p.kind == "unit" and p.status != "dead")
    start = {s: steps(s) for s in ENGINE.sides}
    n = 0
    while ENGINE.pending(state):
        side = ENGINE.pending(state)[0].side
        for line in ENGINE.bot(state, side, rng, styles[side]):
            if side not in {d.side for d in ENGINE.pending(state)}:
                break
            try:
                ENGINE.apply(state, side, ENGINE.parse_order(line), Context(dice, action=n))
            except IllegalOrder:            # made illegal by the dice: skipped
                pass
            n += not line.startswith("standing")    # the dice do not hang on the standing lines
    assert ENGINE.outcome(state) is not None
    lost = {s: start[s] - steps(s) for s in ENGINE.sides}
    return lost["allied" if seat == "axis" else "axis"] - lost[seat]


@pytest.mark.parametrize("seat", ["axis", "allied"])
def test_the_heuristic_bot_beats_the_random_bot(seat):
    """Over six seeded games of 5.2 in one seat against the random bot, the heuristic bot's
    balance of steps (the enemy's lost minus its own) beats the random bot's in the same seat
    against the same opponent by at least a step a game on average."""
    other = "allied" if seat == "axis" else "axis"
    heur = [_balance(seed, {seat: "heuristic", other: "random"}, seat) for seed in range(1, 7)]
    rand = [_balance(seed, {seat: "random", other: "random"}, seat) for seed in range(1, 7)]
    assert statistics.mean(heur) >= statistics.mean(rand) + 1, (heur, rand)


def test_the_engagement_odds_read_the_defenders_likely_target():
    """A Stopping Engagement (6.0i-5): ii-7-pz, STOPped next to 701-td (AV 2 + AR 2) in the hex
    it names and 3-1-arm (AV 3 + AR 3) in another hex, is scored against 3-1-arm, the
    defender's likely choice across the hexes; a plain Engagement of a hex against its own
    strongest AV unit."""
    from pbem.games.bcs.orders import Engage
    from pbem.games.bcs.standin import standin
    from pbem.games.bcs.stopping import AV_STOP
    from pbem.games.bcs.view import build_view
    units = [{"id": "gerhardt-hq", "hex": "B5.18"}, {"id": "ii-7-pz", "hex": "B7.18"},
             {"id": "cca-hq", "hex": "B12.19"}, {"id": "701-td", "hex": "B8.19"},
             {"id": "3-1-arm", "hex": "B8.18"}]
    state = HOOKS.build(SimpleNamespace(position={"units": units, "active": "gerhardt",
                                                  "began": True}))
    state.pieces["ii-7-pz"].stopped = AV_STOP
    know = standin(build_view(state, "axis"), "axis")
    unit = know.pieces["ii-7-pz"]
    assert heuristic.likely_target(know, unit, "B8.19").id == "3-1-arm"
    firer = 3 + 4                                        # ii-7-pz: AV 3 + AR 4
    assert heuristic.score_order(know, "axis", Engage(hex="B8.19", unit="ii-7-pz")) == \
        heuristic.engagement_score(firer - 6)
    state.pieces["ii-7-pz"].stopped = ""
    know = standin(build_view(state, "axis"), "axis")
    assert heuristic.likely_target(know, know.pieces["ii-7-pz"], "B8.19").id == "701-td"
    assert heuristic.score_order(know, "axis", Engage(hex="B8.19", unit="ii-7-pz")) == \
        heuristic.engagement_score(firer - 4)


def test_the_axis_plays_for_its_victory_hexes():
    """5.2: the Axis's VP hexes are its three named places and the 'Either' hexes (his 'one
    other'); its OBJs go on those within reach first (BbF 4.1: no unit enters an
    enemy-controlled VP hex without one); against such a hex it attacks at worse odds
    (GOAL_AT, LAST_AT on the last turn) than elsewhere (ATTACK_AT)."""
    state = ENGINE.setup("5.2", OPTIONS)
    vp = heuristic.vp_goals(state, "axis")
    assert vp[:3] == ["B14.09", "B23.16", "B30.29"] and {"B22.06", "B10.06"} <= set(vp)
    assert heuristic.vp_goals(state, "allied") == ["B30.29", "B23.16"]
    units = [{"id": "stenkhoff-hq", "hex": "B10.11"}, {"id": "ii-5-pz", "hex": "B12.10"},
             {"id": "cca-hq", "hex": "B30.29"}, {"id": "drake", "hex": "B14.03"}]
    state = HOOKS.build(SimpleNamespace(position={"units": units, "active": "stenkhoff"}))
    assert heuristic.obj_hexes(state, "axis", "stenkhoff")[0] == "B14.09"
    assert heuristic.threshold(state, "axis", "B14.09", set(vp)) == heuristic.GOAL_AT
    assert heuristic.threshold(state, "axis", "B14.03", set(vp)) == heuristic.ATTACK_AT
    state.turn = len(state.dates)
    assert heuristic.threshold(state, "axis", "B14.09", set(vp)) == heuristic.LAST_AT
    assert heuristic.LAST_AT < heuristic.GOAL_AT < heuristic.ATTACK_AT
