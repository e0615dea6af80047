"""The public bound on placements (PublicState.due, docs/sealed.md 5e): how many units a side
may still place is public (the set-up list, the turn track, delays, rebuilds, units sent back
by overstacking), so a sealed receiver refuses a 'seen place' beyond it on receipt. The bound
must never be below what the real rules accept (that would refuse an honest file): over bot
games of every scenario, at every position, it is checked against the units the full state's
own checks (rf.check_place, rf.check_setup_place) let the side place, and against the turn
track's bookkeeping; both knowledge states accept every honest projection (SealedPlay)."""

from __future__ import annotations

import random

import pytest

from pbem.core.dice import KeyedDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.core.sealed import SealedPlay, bot_play
from pbem.games.holdfast import reinforcement as rf
from pbem.games.holdfast.data import World, world
from pbem.games.holdfast.game import GAME
from pbem.games.holdfast.state import SIDES, HoldfastState


def _accepted(state: HoldfastState, w: World, side: str) -> int:
    """How many of side's units the real rules would accept a 'place' for now (some hex)."""
    pub = state.public
    if pub.phase not in ("setup", "turn") or pub.active != side:
        return 0
    n = 0
    for uid, u in sorted(state.private[side].units.items()):
        if pub.phase == "setup":
            hexes, check = sorted(rf.setup_zone(w, uid)), rf.check_setup_place
            if u.where != "setup":
                continue          # placed again, it takes no new slot
        else:
            hexes, check = sorted(rf.entry_hexes(state, w, side, uid)), rf.check_place
        for h in hexes:
            try:
                check(state, w, side, uid, h)
            except IllegalOrder:
                continue
            n += 1
            break
    return n


def _check(state: HoldfastState, w: World, where: str) -> int:
    """Assert the bound at one position; how many units the rules would accept a 'place' for."""
    pub = state.public
    total = 0
    for side in SIDES:
        due = pub.due.get(side, 0)
        mine = state.private[side].units.values()
        track = sum(u.where == "track" and w.units[u.id].type != "support" for u in mine)
        setup = sum(u.where == "setup" for u in mine)
        later = sum(rf.scheduled(w, side, t)
                    for t in range(pub.turn + 1, w.scenario.last_turn + 1))
        # the bookkeeping: every unit to set up or on the track, but those whose turn is to come
        assert due == track + setup - later, (where, side, due, track, setup, later)
        accepted = _accepted(state, w, side)
        assert due >= accepted, (where, side, due, accepted)
        # the public count of blocks a side may buy back: those eliminated in combat and not
        # rebuilt, exactly (out of supply they go to the bag, never to be bought back)
        assert pub.lost.get(side, 0) == sum(u.where == "eliminated" for u in mine), (where, side)
        if pub.phase == "turn" and pub.active == side and pub.step == "place":
            # exact where it is read: every unit on the track the rules let enter now
            assert due == sum(u.where == "track" and w.units[u.id].type != "support"
                              and u.entry_turn <= pub.turn for u in mine), (where, side)
        total += accepted
    return total


GAMES = [(sc, style, seed) for sc in ("race-to-tunis", "campaign")
         for style in ("random", "heuristic") for seed in range(12 if sc == "race-to-tunis" else 3)]


@pytest.mark.parametrize("scenario,style,seed", GAMES)
def test_the_public_bound_is_never_below_what_the_rules_accept_in_sealed_play(scenario, style,
                                                                            seed):
    """Sealed: the full state and both knowledge states, every order projected and applied on
    the other side's knowledge state (SealedPlay): every honest 'seen place' is accepted."""
    assert set(GAME.scenarios()) == {"race-to-tunis", "campaign"}    # every scenario here
    w = world(scenario)
    state = GAME.setup(scenario, {})
    sp = SealedPlay(GAME, state, random.Random(seed).randbytes(32))
    accepted = _check(sp.full, w, "start")
    places = 0
    for side, line, problems in bot_play(sp, random.Random(seed), max_orders=6000, style=style):
        assert problems == [], problems
        places += line.startswith("place")
        accepted += _check(sp.full, w, f"{side}'s {line!r}")
    assert sp.full.public.phase == "over"
    assert places > 3 and accepted > places, (places, accepted)


def _peer_game(seed: int, events: dict[str, int]) -> int:
    """One peer game (the full state alone), random against heuristic bots, the bound checked
    after every order; the positions checked (events counts what it exercised)."""
    scenario = ("race-to-tunis", "campaign")[seed % 2]
    styles = {"allied": ("random", "heuristic")[seed % 2],
              "axis": ("heuristic", "random")[seed % 2]}
    w = world(scenario)
    rng = random.Random(100 + seed)
    state = GAME.setup(scenario, {})
    positions = 0
    for _ in range(3000):
        if GAME.outcome(state) is not None:
            break
        side = GAME.pending(state)[0].side
        lines = GAME.bot(state, side, rng, styles[side])
        ctx = Context(KeyedDice(rng.randbytes(32)))
        for i, line in enumerate(lines):
            ctx.action = i
            GAME.apply(state, side, GAME.parse_order(line), ctx)
            _check(state, w, f"{side}'s {line!r}")
            positions += 1
        for e in ctx.events:
            events["overstack"] += "overstacked in" in e.text
            events["delay"] += "delayed to turn" in e.text
            events["rebuild"] += " rebuilt for " in e.text
    assert GAME.outcome(state) is not None
    return positions


def test_the_public_bound_is_never_below_what_the_rules_accept_in_peer_play():
    """Peer play of both scenarios: the bound is exact at each placement step and never below
    the rules, through units sent back by overstacking, delayed and rebought."""
    events = {"overstack": 0, "delay": 0, "rebuild": 0}
    positions = sum(_peer_game(seed, events) for seed in range(30))
    print(positions, events)
    assert positions > 3000 and all(events.values()), (positions, events)


def _allied_knowledge() -> HoldfastState:
    """The Allied knowledge state at the Axis set-up."""
    return GAME.conceal(GAME.setup("race-to-tunis", {}), "allied")


def _seen(state: HoldfastState, line: str) -> None:
    GAME.apply(state, "axis", GAME.parse_order(line), Context(KeyedDice(b"k" * 32)))


def test_a_knowledge_state_refuses_a_setup_end_with_set_up_units_unplaced():
    """HF-12.1-a: the Axis sets up three units (public: the scenario); a fourth new block is
    refused, and so is 'end' after two."""
    st = _allied_knowledge()
    assert st.public.due == {"allied": 0, "axis": 3}
    _seen(st, "seen place ?axis-1 1602")
    _seen(st, "seen place ?axis-2 1603")
    _seen(st, "seen place ?axis-1 1702")              # placed again: no new block
    with pytest.raises(IllegalOrder, match=r"not yet placed: 1 block\(s\)") as e:
        _seen(st, "end")
    assert e.value.rule == "HF-12.1-a"
    _seen(st, "seen place ?axis-3 2005")
    with pytest.raises(IllegalOrder, match="every axis set-up unit is already placed") as e:
        _seen(st, "seen place ?axis-4 1804")
    assert e.value.rule == "HF-12.1-a"


def test_a_knowledge_state_refuses_placing_again_a_block_on_the_map_after_the_setup():
    """HF-8.1-a: after the set-up a placement takes a unit from the track, never a block on
    the map (it would move it); the full state refuses the real order as well."""
    state = GAME.setup("race-to-tunis", {})
    sp = SealedPlay(GAME, state, b"k" * 32)
    for line in ("place fjr5 1602", "place witzig 1603", "place superga 2005", "end"):
        assert sp.play("axis", line) == []
    assert sp.play("allied", "end") == []
    st = sp.know["allied"]
    assert st.public.active == "axis" and st.public.due["axis"] == 3
    with pytest.raises(IllegalOrder, match=r"\?axis-1 is on the map, not on the turn track") as e:
        _seen(st, "seen place ?axis-1 1802")
    assert e.value.rule == "HF-8.1-a"
    with pytest.raises(IllegalOrder) as e:
        GAME.apply(sp.full, "axis", GAME.parse_order("place fjr5 1802"),
                   Context(KeyedDice(b"k" * 32)))
    assert e.value.rule == "HF-8.1-a"


def test_a_knowledge_state_refuses_a_rebuild_with_no_block_eliminated():
    """HF-8.2-c: a block can be bought back only once eliminated in combat, which is public
    (PublicState.lost); a 'seen rebuild' without one (paid for, to raise the count of units
    to place next turn) is refused on receipt, as the full state refuses the real order."""
    state = GAME.setup("race-to-tunis", {})
    sp = SealedPlay(GAME, state, b"k" * 32)
    for line in ("place fjr5 1602", "place witzig 1603", "place superga 2005", "end"):
        assert sp.play("axis", line) == []
    assert sp.play("allied", "end") == []
    st = sp.know["allied"]
    w = world("race-to-tunis")
    price = min(w.rp_cost(f"unit_{t}", "axis", st.public.turn) for t in ("infantry", "armor"))
    assert st.public.lost.get("axis", 0) == 0 and st.public.rp["axis"] >= price
    with pytest.raises(IllegalOrder, match="no block eliminated in combat left to buy back") as e:
        _seen(st, f"seen rebuild rp {price}")
    assert e.value.rule == "HF-8.2-c"
    st.public.lost["axis"] = 1                  # one eliminated: the rebuild is taken
    due = st.public.due["axis"]
    _seen(st, f"seen rebuild rp {price}")
    assert st.public.lost["axis"] == 0 and st.public.due["axis"] == due + 1
