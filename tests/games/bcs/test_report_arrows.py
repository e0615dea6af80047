"""Assault Arrows in the report (BCS-1.2a-1, BCS-1.2d; masked as BCS-1.5a): a unit whose side
showing has an Assault Arrow says so, its owner's always, the enemy's only for the top unit of
a stack (the one unit of it the view holds), never for a unit under it.

Scenario 5.2 at its set-up: drake (B10.06) is alone and shows an Assault Arrow on its Move
side; in B42.06 2-1-arm (AV 3, no Arrow) tops 3-6-arminf (an Arrow on its Move side)."""

from __future__ import annotations

import msgspec

from pbem.core.dice import KeyedDice
from pbem.core.game import Context
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.report import ARROW
from pbem.reports import render_text
from pbem.reports.context import ReportContext

OPTIONS = {"entry_blocking": "attack_from_off_map"}


def _unit(rep, uid: str):
    return next(u for u in rep.units if u.id == uid)


def _text(state, side: str) -> str:
    ctx = ReportContext(model=ENGINE.report(state, side), pending=list(ENGINE.pending(state)),
                        answer=[], events=[], rolls=[], game_id="0" * 32, seq=1,
                        file_name="t.pbem", file_hash="0" * 64, fingerprints={})
    return render_text(ctx, ENGINE.game_map(state.scenario))


def test_BCS_1_2a_1_own_units_showing_an_assault_arrow_say_so():
    state = ENGINE.setup("5.2", OPTIONS)
    rep = ENGINE.report(state, "allied")
    assert ARROW in _unit(rep, "drake").note
    assert ARROW in _unit(rep, "3-6-arminf").note
    assert ARROW not in _unit(rep, "2-1-arm").note           # AV only
    assert ARROW not in _unit(rep, "701-td").note
    assert rep.legend[1].startswith(f"'{ARROW}' in a unit's note")
    text = _text(state, "allied")
    assert any("3-6-arminf" in line and ARROW in line for line in text.splitlines())


def test_BCS_1_5a_the_enemy_sees_the_arrow_of_a_top_unit_only():
    state = ENGINE.setup("5.2", OPTIONS)
    rep = ENGINE.report(state, "axis")
    assert ARROW in _unit(rep, "drake").note                 # alone: the top unit
    top = [u for u in rep.units if u.hex == "B42.06" and u.kind != "hq"]
    assert [u.id for u in top] == ["2-1-arm"] and ARROW not in top[0].note
    raw = msgspec.json.encode(rep)
    assert b"3-6-arminf" not in raw
    text = _text(state, "axis")
    b42 = [line for line in text.splitlines() if line.strip().startswith("B42.06")]
    assert b42 and not any(ARROW in line for line in b42), b42


def test_BCS_1_5a_no_arrow_of_a_hidden_unit_anywhere_in_a_played_game():
    """Over a bot game's decisions: every enemy unit in a side's report is a top unit of its
    view, and its Arrow note is exactly what that unit's side showing prints."""
    import random

    from pbem.games.bcs.board import face

    rng, dice = random.Random(3), KeyedDice(b"arrows")
    state = ENGINE.setup("5.2", OPTIONS)
    n = 0
    checked = 0
    while ENGINE.pending(state) and n < 400:
        for side in ENGINE.sides:
            view = ENGINE.view(state, side)
            tops = {st.top for st in view.enemy if st.top}
            for u in ENGINE.report(state, side).units:
                if u.side == side or u.kind in ("hq", "trains") or not u.id:
                    continue
                assert u.id in tops
                f = face(state.pieces[u.id])
                assert (ARROW in u.note) == bool(f is not None and f.assault_arrow)
                checked += 1
        mover = ENGINE.pending(state)[0].side
        for line in ENGINE.bot(state, mover, rng, "random"):
            ENGINE.apply(state, mover, ENGINE.parse_order(line), Context(dice, action=n))
            n += 1
    assert checked > 100
