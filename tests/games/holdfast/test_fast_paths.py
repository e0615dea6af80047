"""The replay's shortcuts give what the plain readings they replace give: order parsing
without a regex per token, the defender found without sorting, has_choice's trivial cases,
the overstack check's early return, one Allied network for the inland entry bases."""

from __future__ import annotations

import random
import re

import msgspec
import pytest

from pbem.core.dice import KeyedDice
from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.game import Context
from pbem.games.holdfast import GAME, combat, reinforcement as rf
from pbem.games.holdfast.board import map_units, side_at
from pbem.games.holdfast.data import world
from pbem.games.holdfast.orders import FLAGS, Move, MoveTo, suggest
from pbem.games.holdfast.state import PendingHits, enemy
from pbem.games.holdfast.supply import inland_base_open

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.'()+-]*$")
_HEX = re.compile(r"^[a-z0-9][a-z0-9_.']*$")


def _plain_unit(tok: str) -> str:
    if not _NAME.match(tok):
        raise OrderSyntaxError(f"bad unit name {tok!r}")
    return tok


def _plain_hex(tok: str) -> str:
    if not _HEX.match(tok):
        raise OrderSyntaxError(f"bad hex or place {tok!r}")
    return tok


def _plain_move(args: list[str]) -> Move | MoveTo:
    """The move notation read token by token with the regexes (the earlier parser)."""
    unit = _plain_unit(args[0])
    rest = args[1:]
    cut = next((i for i, t in enumerate(rest) if t in FLAGS), len(rest))
    words, flags = rest[:cut], rest[cut:]
    bad = [f for f in flags if f not in FLAGS]
    if bad or len(set(flags)) != len(flags):
        raise OrderSyntaxError(f"unknown move flags {' '.join(flags)!r} (strat, leader, "
                               f"after the path){suggest(bad[0], FLAGS) if bad else ''}")
    if not words:
        raise OrderSyntaxError("a move needs a path (HEX-HEX-...) or 'to HEX'")
    if words[0] == "to":
        if len(words) != 2 or "-" in words[1]:
            raise OrderSyntaxError("expected 'move UNIT to HEX': one destination hex")
        return MoveTo(unit=unit, dest=_plain_hex(words[1]), strategic="strat" in flags,
                      leader="leader" in flags)
    path = [h for w in words for h in w.split("-")]
    if "" in path:
        raise OrderSyntaxError(f"bad path {' '.join(words)!r}")
    return Move(unit=unit, path=tuple(map(_plain_hex, path)), strategic="strat" in flags,
                leader="leader" in flags)


def _outcome(parse, text: str) -> tuple[str, object]:
    try:
        return "ok", parse(text)
    except OrderSyntaxError as e:
        return "error", str(e)


_CHARS = "ab09_.'()+-,Xé!- "


def _token(rng: random.Random) -> str:
    return "".join(rng.choice(_CHARS) for _ in range(rng.randint(0, 5)))


@pytest.mark.parametrize("seed", range(20))
def test_move_parsing_is_the_regex_reading(seed):
    rng = random.Random(seed)
    for _ in range(300):
        words = [rng.choice(["6ad-a", "0812-0912", "to", "strat", "leader", "0101--0102",
                             _token(rng), _token(rng)]) for _ in range(rng.randint(1, 5))]
        text = "move " + " ".join(words)
        args = text.lower().split()[1:]
        new = _outcome(GAME.parse_order, text)
        if len(args) >= 2:
            assert new == _outcome(lambda _t: _plain_move(args), text), text


@pytest.mark.parametrize("seed", range(10))
def test_unit_and_hex_tokens_are_the_regex_reading(seed):
    rng = random.Random(seed)
    for _ in range(500):
        a, b = _token(rng).replace(" ", ""), _token(rng).replace(" ", "")
        text = f"place {a or 'x'} {b or 'y'}"
        toks = text.lower().split()

        def plain(_t: str) -> object:
            from pbem.games.holdfast.orders import Place
            return Place(unit=_plain_unit(toks[1]), hex=_plain_hex(toks[2]))
        if len(toks) == 3:
            assert _outcome(GAME.parse_order, text) == _outcome(plain, text), text


def _played(seed: int):
    """States of a seeded bot game of the campaign, one after each decision."""
    rng = random.Random(seed)
    state = GAME.setup("campaign", {})
    for n in range(400):
        if GAME.outcome(state) is not None:
            break
        side = GAME.pending(state)[0].side
        ctx = Context(KeyedDice(rng.randbytes(32)))
        for i, line in enumerate(GAME.bot(state, side, rng, "heuristic")):
            ctx.action = i
            GAME.apply(state, side, GAME.parse_order(line), ctx)
        yield state


@pytest.mark.parametrize("seed", range(2))
def test_defender_and_entry_and_overstack_are_the_plain_readings(seed):
    w = world("campaign")
    rng = random.Random(seed)
    for state in _played(seed):
        hexes = sorted({u.hex for s in ("allied", "axis") for u in map_units(state, s)})
        for side in ("allied", "axis"):
            for h in rng.sample(hexes, min(6, len(hexes))):
                plain = None
                if side_at(state, h) == enemy(side):
                    plain = next(u.id for u in map_units(state, enemy(side)) if u.hex == h)
                assert combat._defender(state, side, h) == plain
            for uid in rng.sample(sorted(w.units), 5):
                if w.units[uid].side == side:
                    got = rf.entry_hexes(state, w, side, uid)
                    assert got == _plain_entry(state, w, side, uid)
        # as it is, and with units of a side stacked by hand: the clean-up's plain reading
        for side in ("allied", "axis"):
            for stack in range(3):
                trial = msgspec.json.decode(msgspec.json.encode(state), type=type(state))
                mine = map_units(trial, side)
                for u in mine[1:stack + 1]:
                    u.hex, u.placed = mine[0].hex, rng.randint(0, 2)
                ref = msgspec.json.decode(msgspec.json.encode(trial), type=type(state))
                got, want = Context(KeyedDice(b"k" * 32)), Context(KeyedDice(b"k" * 32))
                rf.clear_overstack(trial, w, side, got)
                _plain_clear_overstack(ref, side, want)
                assert msgspec.json.encode(trial) == msgspec.json.encode(ref)
                assert got.events == want.events


def _plain_clear_overstack(state, side, ctx):
    """clear_overstack without its early return (the earlier reading)."""
    by_hex: dict[str, list] = {}
    for u in map_units(state, side):
        by_hex.setdefault(u.hex, []).append(u)
    for h, us in sorted(by_hex.items()):
        if len(us) < 2:
            continue
        us.sort(key=lambda u: u.placed)
        for u in us[1:]:
            u.where, u.hex, u.entry_turn, u.placed = "track", "", state.public.turn + 1, 0
            ctx.log(f"{u.id} overstacked in {h}: back on the turn track for turn "
                    f"{state.public.turn + 1}", visible_to=side)
            ctx.log(f"an {side} block in overstacked {h} is removed to the turn track", hexes=(h,))


def _plain_entry(state, w, side, unit_id):
    """entry_hexes with inland_base_open asked for each base (the earlier reading)."""
    spec = w.units[unit_id]
    if spec.gray_hex_entry or side == "axis":
        return rf.entry_hexes(state, w, side, unit_id)
    control = state.public.control
    out = {h for h in w.entry["allied"] if control.get(h, "allied") == "allied"}
    closed = {b for b in w.inland_fallback if b in out and not inland_base_open(state, w, b)}
    out -= closed
    if closed:
        out |= set(w.west_edge) - closed
    return out


@pytest.mark.parametrize("seed", range(30))
def test_has_choice_is_more_than_one_outcome(seed):
    rng = random.Random(seed)
    w = world("campaign")
    state = GAME.setup("campaign", {})
    side = "allied"
    ids = [u for u in state.private[side].units if w.units[u].type != "support"]
    seen = set()
    for _ in range(40):
        attackers = rng.sample(ids, rng.randint(0, 6))
        for u in attackers:
            state.private[side].units[u].sp = rng.randint(0, 4)
        dice = [[v, v, 0] for v in (rng.randint(1, 6) for _ in range(rng.randint(0, 4)))]
        dice += [[rng.randint(2, 7), rng.randint(1, 6), 1] for _ in range(rng.randint(0, 1))]
        pending = PendingHits(hex="0101", attackers=attackers, dice=dice,
                              crossing=attackers[:1])
        outcomes = combat.allocation_outcomes(state, w, side, pending)
        assert combat.has_choice(state, w, side, pending) == (len(outcomes) > 1)
        seen.add(len(outcomes) > 1)
    assert seen == {True, False}


def test_an_attack_on_a_hex_holding_both_sides_is_refused_as_before():
    """side_at names the Allies first: an Allied attack on a hex with an Allied block is
    refused even where an Axis block stands too (a hand-built position)."""
    state = GAME.setup("campaign", {})
    w = world("campaign")
    allied = next(u for u in state.private["allied"].units.values() if u.where == "map")
    axis = next(u for u in state.private["axis"].units.values() if u.where == "setup")
    axis.where, axis.hex = "map", allied.hex
    assert combat._defender(state, "allied", allied.hex) is None
    assert combat._defender(state, "axis", allied.hex) == allied.id
    with pytest.raises(IllegalOrder):
        state.public.phase, state.public.active, state.public.turn = "turn", "allied", 1
        state.public.rp["allied"] = 9
        combat.check_attack(state, w, "allied", GAME.parse_order(
            f"attack {allied.hex} with {allied.id}"))
