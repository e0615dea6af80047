"""The random bot never answers a decision against a standing order it gives in the same file
(KAS-8.4-a). In a sealed game the writer's processor answers a pending decision from the policy
the file sets, so a contrary explicit answer found no decision left (a CI failure: 'standing
stiff never', then 'stiff yes')."""

from __future__ import annotations

import random

from pbem.core.rulecases import Case, run_case
from pbem.core.standing import is_standing
from pbem.games.kasserine import bot
from pbem.games.kasserine.rulecases import HOOKS
from pbem.games.kasserine.sealed import standing_answers
from pbem.games.kasserine.sequence import pending
from pbem.games.kasserine.state import standing_of

STIFF = Case(id="KAS-8.4-a", position={"phase": "combat", "units": [
    {"id": "s501", "hex": "3213"}, {"id": "inf3-26", "hex": "3313"}]},
    orders=["attack 3313 with s501"], dice=[2])


def test_KAS_8_4_a_the_bot_answers_a_pending_stiff_decision_as_the_standing_order_it_sets():
    state = run_case(HOOKS, STIFF).state
    assert [(d.side, d.kind) for d in pending(state)] == [("us", "stiff")]
    assert not standing_of(state.private["us"].standing).stiff
    set_here = 0
    for seed in range(60):
        lines = bot.play(state, "us", random.Random(seed))
        stiff = [x for x in lines if x.startswith("standing stiff ")]
        answer = next(x for x in lines if not is_standing(x))
        if not stiff:
            assert answer in ("stiff yes", "stiff no"), lines
            continue
        set_here += 1
        trial = run_case(HOOKS, STIFF).state
        trial.private["us"].standing["stiff"] = stiff[-1].split()[2]
        want = standing_answers(trial, "us", pending(trial)[0])
        assert want == [answer], (seed, lines)
    assert 10 < set_here < 60          # the seeds reach both cases
