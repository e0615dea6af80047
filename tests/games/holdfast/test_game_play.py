"""Complete Holdfast games bot against bot through the Game API: no crash, no dead end, no leak."""

from __future__ import annotations

import random
import re

import msgspec
import pytest

from pbem.core.dice import KeyedDice, NoDice
from pbem.core.game import Context, NeedsDice
from pbem.games.holdfast import GAME
from pbem.games.holdfast.state import HoldfastState, clone

MAX_DECISIONS = 3000


def _other(side: str) -> str:
    return "axis" if side == "allied" else "allied"


def _check_no_leak(state: HoldfastState, events: list) -> None:
    for side in GAME.sides:
        secrets = GAME.secrets(state, side)
        other = _other(side)
        blobs = [msgspec.json.encode(GAME.view(state, other)),
                 msgspec.json.encode(GAME.report(state, other))]
        blobs += [e.text.encode() for e in events if e.visible_to in ("all", other)]
        for s in secrets:
            # a whole word only: '1st Guards BDE' is part of the public '201st Guards BDE'
            pattern = re.compile(rb"(?<![\w-])" + re.escape(s.encode()) + rb"(?![\w-])")
            for blob in blobs:
                assert not pattern.search(blob), f"{side} secret {s!r} seen by {other}"


def _check_without_dice(state: HoldfastState, side: str, line: str) -> None:
    """Checking an order before its dice exist either passes or stops before any change."""
    trial = clone(state)
    before = msgspec.json.encode(trial)
    try:
        GAME.apply(trial, side, GAME.parse_order(line), Context(NoDice()))
    except NeedsDice:
        assert msgspec.json.encode(trial) == before, f"{line!r} changed the state before its dice"


def play(scenario: str, seed: int, styles: dict[str, str], *, check_leaks: bool = True) -> HoldfastState:
    """Play one game to its end; returns the final state."""
    rng = random.Random(seed)
    state = GAME.setup(scenario, {})
    assert GAME.game_map(scenario).grid is not None
    last = state
    for n in range(MAX_DECISIONS):
        if GAME.outcome(state) is not None:
            assert GAME.pending(state) == []
            return state
        decisions = GAME.pending(state)
        assert decisions, "dead end: no decision and no outcome"
        side = decisions[0].side
        lines = GAME.bot(state, side, rng, styles[side])
        assert lines, f"bot gave no orders for {decisions[0]}"
        ctx = Context(KeyedDice(rng.randbytes(32)))
        for i, line in enumerate(lines):
            assert GAME.format_order(GAME.parse_order(line)) == line
            ctx.action = i
            if check_leaks:
                _check_without_dice(state, side, line)
            GAME.apply(state, side, GAME.parse_order(line), ctx)
        raw = msgspec.json.encode(state)
        assert msgspec.json.encode(msgspec.json.decode(raw, type=GAME.state_type)) == raw
        if check_leaks:
            _check_no_leak(state, ctx.events)
        last = state
    raise AssertionError(f"no end after {MAX_DECISIONS} decisions (turn {last.public.turn})")


@pytest.mark.parametrize("seed", range(30))
def test_race_to_tunis(seed: int) -> None:
    """30 Race to Tunis games with every mix of random and heuristic bots."""
    styles = [("random", "random"), ("heuristic", "heuristic"), ("random", "heuristic"),
              ("heuristic", "random")][seed % 4]
    state = play("race-to-tunis", seed, {"allied": styles[0], "axis": styles[1]})
    out = GAME.outcome(state)
    assert out is not None and state.public.turn <= 3


@pytest.mark.parametrize("seed,styles", [(100, ("random", "random")),
                                         (101, ("heuristic", "heuristic"))])
def test_campaign(seed: int, styles: tuple[str, str]) -> None:
    """Two campaign games to the end (turn 16 at the latest)."""
    state = play("campaign", seed, {"allied": styles[0], "axis": styles[1]}, check_leaks=seed == 101)
    assert GAME.outcome(state) is not None and state.public.turn <= 16


def _random_line(rng: random.Random, state: HoldfastState, side: str) -> str:
    """A plausible but usually illegal order line built from real ids and hexes."""
    units = sorted({*state.private["allied"].units, *state.private["axis"].units, "nosuch"})
    hexes = [u.hex for s in GAME.sides for u in state.private[s].units.values() if u.hex]
    hexes += ["0101", "9999", "tunis", "bone", "souk_ahras"]
    u = rng.choice(units)
    h = rng.choice(hexes)
    forms = [f"place {u} {h}", f"buy {u} {rng.randint(1, 3)}", f"rebuild {u}",
             f"move {u} {'-'.join(rng.choice(hexes) for _ in range(rng.randint(1, 3)))}"
             f"{rng.choice(['', ' strat', ' leader'])}",
             f"attack {h} with {' '.join(rng.sample(units, 2))}"
             f"{rng.choice(['', ' support ' + rng.choice(units)])}",
             f"allocate {','.join(rng.sample(units, 2))}", "end"]
    return rng.choice(forms)


@pytest.mark.parametrize("scenario,seed", [("race-to-tunis", 0), ("race-to-tunis", 1),
                                           ("campaign", 2)])
def test_illegal_orders_change_nothing(scenario: str, seed: int) -> None:
    """Random orders at every decision: only IllegalOrder (state untouched) or success."""
    from pbem.core.errors import IllegalOrder
    rng = random.Random(seed)
    state = GAME.setup(scenario, {})
    for _ in range(200):
        if GAME.outcome(state) is not None:
            break
        side = GAME.pending(state)[0].side
        for _ in range(15):
            trial = clone(state)
            before = msgspec.json.encode(trial)
            who = side if rng.random() < 0.8 else _other(side)
            try:
                GAME.apply(trial, who, GAME.parse_order(_random_line(rng, state, side)),
                           Context(KeyedDice(rng.randbytes(32))))
            except IllegalOrder:
                assert msgspec.json.encode(trial) == before
        ctx = Context(KeyedDice(rng.randbytes(32)))
        for i, line in enumerate(GAME.bot(state, side, rng, "random")):
            ctx.action = i
            GAME.apply(state, side, GAME.parse_order(line), ctx)
