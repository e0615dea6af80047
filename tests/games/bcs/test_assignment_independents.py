"""ERR-BCS-1.1-2 (errata v1.1 to 7.5f): an unassigned independent unit required to retreat to its
HQ (an Automatic Retreat of a Leg or Truck unit) uses 'All other Retreats' instead: it has no HQ.
No independent counter of Baptism By Fire moves by Leg or Truck (gore, 894-td and prov-arm are
Tac), so the rule is exercised on 894-td changed into a Leg infantry unit for one test (pytest's
monkeypatch puts it back), as tests/games/bcs/test_counter_variants.py does."""

from __future__ import annotations

import msgspec
import pytest

from pbem.core.rulecases import Case, run_and_check
from pbem.games.bcs.board import bdata


def _leg_894(monkeypatch: pytest.MonkeyPatch) -> None:
    u = bdata().units["894-td"]
    leg = msgspec.structs.replace(u.move, ma=2, mclass="leg", assault_arrow=True, av=None,
                                  av_class="", range=1)
    monkeypatch.setitem(bdata().units, "894-td",
                        msgspec.structs.replace(u, move=leg, deployed=None))


def test_no_independent_moves_by_leg_or_truck():
    """Why the rule needs a changed counter: every independent of the game is Tac."""
    faces = [f for u in bdata().units.values() if u.independent
             for f in (u.move, u.deployed) if f is not None]
    assert faces and all(f.mclass == "tac" for f in faces)


@pytest.mark.parametrize("assigned", ["cca", ""])
def test_unassigned_independent_retreats_as_all_other(monkeypatch, assigned):
    """ERR-BCS-1.1-2: assigned to CCA (HQ in B12.19) the Leg 894-td's Automatic Retreat goes by
    its HQ, to B13.18 as kern's does (BCS-7.5f-5); unassigned it retreats 3 hexes from the Attack
    hex instead ('All other Retreats'), never by an HQ."""
    from pbem.games.bcs.rulecases import HOOKS
    _leg_894(monkeypatch)
    units = [{"id": "reim-hq", "hex": "B49.17"}, {"id": "ii-86-inf", "hex": "B7.18"},
             {"id": "894-td", "hex": "B8.19", "assigned": assigned},
             {"id": "cca-hq", "hex": "B12.19"}]
    if assigned:
        expect = {"events": ["a unit of the stack in B8.19 retreats to B13.18, by its HQ"],
                  "at": {"894-td": "B13.18"}}
    else:
        expect = {"not_events": ["by its HQ"], "events": ["the stack in B8.19 retreats to B10.21"],
                  "at": {"894-td": "B10.21"}}
    run = run_and_check(HOOKS, Case(id="ERR-BCS-1.1-2",
                                    position={"units": units, "active": "reim",
                                              "objs": ["B8.19"]},
                                    orders=["attack B8.19 with ii-86-inf"], dice=[6, 6],
                                    expect=expect))
    p = run.state.pieces["894-td"]
    if not assigned:
        assert p.status == "map" and bdata().game_map.grid.distance("B8.19", p.hex) == 3, p.hex


def _unassigned_case(expect: dict, orders: list[str], **position) -> Case:
    units = [{"id": "reim-hq", "hex": "B49.17"}, {"id": "ii-86-inf", "hex": "B7.18"},
             {"id": "894-td", "hex": "B8.19", "assigned": ""},
             {"id": "cca-hq", "hex": "B8.23"}]
    return Case(id="ERR-BCS-1.1-2", position={"units": units, "active": "reim",
                                              "objs": ["B8.19"], **position},
                orders=orders, dice=[6, 6], expect=expect)


def test_unassigned_independent_retreat_asked(monkeypatch):
    """ERR-BCS-1.1-2 asked: its 'All other Retreats' 3-hex retreat is placed by its owner
    (7.5a-3): without a standing order 'retreat' he is asked after the Combat Table, nothing
    moved; answered with a hex of his choice 3 hexes away (B9.21) in his next file, never by an
    HQ as a Leg unit's Automatic Retreat would be; a hex toward the Attack hex is refused."""
    from pbem.games.bcs.rulecases import HOOKS
    _leg_894(monkeypatch)
    run_and_check(HOOKS, _unassigned_case(
        {"pending": "retreat", "pending_side": "allied", "reaction": True,
         "at": {"894-td": "B8.19"}}, ["attack B8.19 with ii-86-inf"],
        ask={"allied": ["retreat"]}))
    run_and_check(HOOKS, _unassigned_case(
        {"pending": "activation", "not_events": ["by its HQ"],
         "events": ["the stack in B8.19 retreats to B9.21"], "at": {"894-td": "B9.21"}},
        ["attack B8.19 with ii-86-inf", "allied: answer retreat B9.21"],
        ask={"allied": ["retreat"]}))
    run_and_check(HOOKS, _unassigned_case(
        {"error": "BCS-7.5a-3"}, ["attack B8.19 with ii-86-inf", "allied: answer retreat B6.17"],
        ask={"allied": ["retreat"]}))


def test_unassigned_independent_retreat_standing(monkeypatch):
    """ERR-BCS-1.1-2 answered by the standing order 'retreat rear': not asked, the 7.5a
    priorities, farthest from the Attack hex (B10.21)."""
    from pbem.games.bcs.rulecases import HOOKS
    _leg_894(monkeypatch)
    run_and_check(HOOKS, _unassigned_case(
        {"pending": "activation", "not_events": ["by its HQ"],
         "events": ["the stack in B8.19 retreats to B10.21"], "at": {"894-td": "B10.21"}},
        ["attack B8.19 with ii-86-inf"], ask={"allied": ["retreat"]},
        standing={"allied": {"retreat": "rear"}}))
