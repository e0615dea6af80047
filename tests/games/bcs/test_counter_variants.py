"""Rules that no counter of Baptism By Fire exercises (no counter has a printed MA of 0, none is
Unprepared): the loaded data of one counter is changed for one test (pytest's monkeypatch puts it
back), and a position, orders and expectations run through the rule-case runner as any case.

A counter changed here is hypothetical: the rules tested are ERR-BCS-1.1-3 (an Attack unit needs
a printed MA above 0), BCS-7.5f-1 (a unit with no printed MA that must retreat is destroyed) and
BCS-6.0d (an Assist must have the defending hex in its ZOC: an Unprepared unit projects none).
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from pbem.core.rulecases import Case, run_and_check
from pbem.games.bcs.board import bdata
from pbem.games.bcs.rulecases import HOOKS

REIM = [{"id": "reim-hq", "hex": "B49.17"}, {"id": "cca-hq", "hex": "B12.19"}]


def variant(monkeypatch: pytest.MonkeyPatch, uid: str, **values: Any) -> None:
    """Give both sides of one counter these printed values for this test only."""
    u = bdata().units[uid]
    side = lambda f: None if f is None else msgspec.structs.replace(f, **values)  # noqa: E731
    monkeypatch.setitem(bdata().units, uid,
                        msgspec.structs.replace(u, move=side(u.move), deployed=side(u.deployed)))


def case(rid: str, units: list[dict], orders: list[str], dice: list[int],
         expect: dict[str, Any]) -> Case:
    """A rule case of KG Reimann attacking B8.19."""
    return Case(id=rid, position={"units": REIM + units, "active": "reim", "objs": ["B8.19"]},
                orders=orders, dice=dice, expect=expect)


@pytest.mark.parametrize("ma, ok", [(0, False), (1, True)])
def test_attack_unit_needs_printed_ma(monkeypatch: pytest.MonkeyPatch, ma: int, ok: bool) -> None:
    """ERR-BCS-1.1-3: an Attack unit shows an Assault Arrow and a printed MA above zero; MA 1 is
    the least that will do."""
    variant(monkeypatch, "ii-86-inf", ma=ma)
    expect = {"events": ["ii-86-inf attacks B8.19"]} if ok else {
        "error": "ERR-BCS-1.1-3",
        "error_text": "ii-86-inf has no printed MA above zero and cannot be the Attack unit"}
    run_and_check(HOOKS, case("ERR-BCS-1.1-3", [{"id": "ii-86-inf", "hex": "B7.18"},
                                                {"id": "drake", "hex": "B8.19"}],
                              ["attack B8.19 with ii-86-inf"], [1, 1], expect))


@pytest.mark.parametrize("ma, destroyed", [(0, True), (1, False)])
def test_no_printed_ma_retreat_destroys(monkeypatch: pytest.MonkeyPatch, ma: int,
                                        destroyed: bool) -> None:
    """BCS-7.5f-1: a unit with no printed MA forced to retreat is destroyed instead; with MA 1
    the Tac unit retreats 3 hexes (its stack-mate 3-1-arm goes either way)."""
    variant(monkeypatch, "kern", ma=ma)
    units = [{"id": "ii-86-inf", "hex": "B7.18"}, {"id": "kern", "hex": "B8.19"},
             {"id": "3-1-arm", "hex": "B8.19"}]
    if destroyed:
        expect = {"events": ["kern has no printed MA and must retreat: it is destroyed (7.5f)",
                             "the stack in B8.19 retreats to"], "dead": ["kern"]}
    else:
        expect = {"events": ["the stack in B8.19 retreats to"], "not_events": ["kern is destroyed"],
                  "steps": {"kern": 4}}
    run_and_check(HOOKS, case("BCS-7.5f-1", units, ["attack B8.19 with ii-86-inf"], [6, 6],
                              expect))


def test_unprepared_assist_has_no_zoc(monkeypatch: pytest.MonkeyPatch) -> None:
    """BCS-6.0d: a unit is the Attack unit or the Assist only if the defending hex is in its
    ZOC; an Unprepared unit (no Assault Arrow, no AV) projects none, so it cannot Assist even
    next to the hex (the same unit Prepared assists: combat.toml, BCS-6.0d)."""
    variant(monkeypatch, "1-501-tgr", av=None, av_class="", breakthrough=False)
    run_and_check(HOOKS, case("BCS-6.0d", [{"id": "ii-86-inf", "hex": "B7.18"},
                                           {"id": "1-501-tgr", "hex": "B7.19"},
                                           {"id": "drake", "hex": "B8.19"}],
                              ["attack B8.19 with ii-86-inf assist 1-501-tgr"], [], {
                                  "error": "BCS-6.0d",
                                  "error_text": "B8.19 is not in the ZOC of 1-501-tgr "
                                                "(Unprepared: no ZOC), which cannot Assist"}))
