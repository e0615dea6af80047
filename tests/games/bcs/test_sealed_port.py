"""Baptism By Fire's sealed port (pbem/games/bcs/sealed.py, docs/sealed.md 5h).

Over positions of real bot games of 5.2 and 5.4: the public projection holds nothing a view
masks and does not change with a hidden fact; the facts hold every hidden value; disclose
ignores a fact its owner does not own. ``SealedBcs`` is the engine set up for sealed games
that records each order's public events; ``analyse`` runs pbem.core.sealed.bot_play
over a bot game and goes on after a divergence (SealedPlay.resync re-conceals the knowledge
states from the full state) so that every divergence of a game is counted with where it shows.
"""

from __future__ import annotations

import gc
import json
import random
import re
from typing import Any

import msgspec
import pytest

from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.sealed import (DRAWS_REVEAL, SEALED_METHODS, SealedPlay, bot_play, can_seal,
                              check_play)
from pbem.core.privatedraw import REVEAL_KIND
from pbem.games.bcs import objective as ob
from pbem.games.bcs import sealed as bs
from pbem.games.bcs.engine import ENGINE, BcsEngine
from pbem.games.bcs.state import other
from pbem.games.bcs.view import secrets

OPTIONS = {"entry_blocking": "attack_from_off_map"}


class SealedBcs(BcsEngine):
    """The BbF engine playing sealed games (option sealed_game), recording each order's public
    events and rolls by state for ``analyse``."""

    def setup(self, scenario: str, options: dict[str, Any]) -> bs.BcsState:
        """The initial state of a sealed game (its slots given)."""
        return super().setup(scenario, self.sealed_options(options))

    def apply(self, state: Any, side: str, order: Any, ctx: Any) -> None:
        """Apply an order, keeping its public events and rolls for analyse."""
        n = len(ctx.events), len(ctx.rolls)
        try:
            super().apply(state, side, order, ctx)
        finally:
            self.trace[id(state)] = ([e.text for e in ctx.events[n[0]:] if e.visible_to == "all"],
                                     [(r.purpose, r.value) for r in ctx.rolls[n[1]:]
                                      if r.visible_to == "all"])

    trace: dict[int, Any] = {}


GAME = SealedBcs()


def _enc(x: Any) -> bytes:
    return msgspec.json.encode(x, order="sorted")


def diff(a: Any, b: Any, path: str = "") -> list[str]:
    """The paths where two public projections differ (at most a few per branch)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: {a.get(k)!r} / {b.get(k)!r}")
            elif _enc(a[k]) != _enc(b[k]):
                out += diff(a[k], b[k], f"{path}.{k}")
        return out
    return [f"{path}: {json.dumps(a)[:120]} / {json.dumps(b)[:120]}"]


def analyse(scenario: str, seed: int, style: str = "random", max_orders: int = 3000,
            game: Any = GAME) -> tuple[list[dict[str, Any]], int]:
    """Play a bot game three ways (pbem.core.sealed.bot_play); every divergence found
    ({order, side, problems, diff, first}) and the number of orders played. After each one the
    knowledge states are concealed again (SealedPlay.resync), so every divergence is counted."""
    rng = random.Random(seed)
    sp = SealedPlay(game, game.setup(scenario, OPTIONS), rng.randbytes(32))
    found: list[dict[str, Any]] = []
    played_n = 0
    for side, line, problems in bot_play(sp, rng, max_orders=max_orders, style=style):
        played_n += line not in ("", DRAWS_REVEAL)
        if problems:
            found.append({"turn": sp.full.turn, "side": side, "order": line,
                          "problems": problems, "phase": sp.full.phase, **_where(sp)})
            sp.resync()
    return found, played_n


def _where(sp: SealedPlay) -> dict[str, Any]:
    """Where the knowledge states part from the full state: the public paths, and the first
    public event and die of the last order that differ."""
    game = sp.game
    want = game.public(sp.full)
    ft = game.trace.get(id(sp.full), ([], []))
    first = {}
    for s in game.sides:
        kt = game.trace.get(id(sp.know[s]), ([], []))
        ev = next(((a, b) for a, b in zip(ft[0] + [""] * 99, kt[0] + [""] * 99) if a != b), None)
        ro = next(((a, b) for a, b in zip(ft[1] + [("", 0)] * 9, kt[1] + [("", 0)] * 9)
                   if a != b), None)
        first[s] = {"event": ev, "roll": ro}
    return {"diff": {s: diff(want, game.public(sp.know[s])) for s in game.sides},
            "first": first}


# -- positions of real bot games ------------------------------------------------------------
def positions(scenario: str, seed: int, every: int = 9, limit: int = 40) -> list[Any]:
    """States along a random bot game on the full state (one every `every` orders)."""
    from pbem.core.dice import KeyedDice
    from pbem.core.game import Context

    rng = random.Random(seed)
    state = GAME.setup(scenario, OPTIONS)
    dice = KeyedDice(rng.randbytes(32))
    out, action = [], 0
    for _ in range(3000):
        pend = GAME.pending(state)
        if not pend or len(out) >= limit:
            break
        side = pend[0].side
        for line in GAME.bot(state, side, rng, "random"):
            try:
                GAME.apply(state, side, GAME.parse_order(line), Context(dice, action=action))
            except (IllegalOrder, OrderSyntaxError):
                continue
            action += 1
            if action % every == 0:
                out.append(msgspec.convert(msgspec.to_builtins(state), type=bs.BcsState))
            if not any(x.side == side for x in GAME.pending(state)):
                break
    return out


@pytest.fixture(scope="module")
def states() -> list[Any]:
    """Positions of two bot games, one of 5.2 and one of 5.4."""
    return positions("5.2", 3, limit=25) + positions("5.4", 5, limit=25)


def _copy(state: Any) -> Any:
    return msgspec.convert(msgspec.to_builtins(state), type=bs.BcsState)


def _strings(x: Any) -> set[str]:
    if isinstance(x, str):
        return {x}
    if isinstance(x, dict):
        return set().union(*(_strings(v) | {str(k)} for k, v in x.items())) if x else set()
    if isinstance(x, list):
        return set().union(*(_strings(v) for v in x)) if x else set()
    return set()


def test_the_engine_seals_only_a_sealed_game():
    """BbF implements the sealed interface and offers it; only a game set up with the option
    sealed_game (which sealed_options sets) gives slots and reads the objective only once
    opened."""
    assert all(callable(getattr(ENGINE, m, None)) for m in SEALED_METHODS)
    assert can_seal(ENGINE)
    assert ENGINE.sealed_options({"x": 1}) == {"x": 1, "sealed_game": True}
    peer = ENGINE.setup("5.2", OPTIONS)
    assert not peer.sealed and not peer.slots and not peer.nslots
    st = GAME.setup("5.2", OPTIONS)
    assert st.sealed and st.options["sealed_game"] is True
    assert sum(st.nslots.values()) == sum(len(v) for v in st.slots.values()) > 0


def test_public_names_no_unit_a_view_hides(states):
    """No unit id that either view masks (view.secrets: under the top, never named) appears in
    the public projection; every unit on the map is there by its slot and hex."""
    seen_hidden = 0
    for st in states:
        pub = bs.public(st)
        words = _strings(pub)
        for side in ("allied", "axis"):
            hidden = set(secrets(st, side))
            seen_hidden += len(hidden)
            assert not hidden & words, hidden & words
            on_map = [p for p in st.pieces.values()
                      if p.side == side and p.kind == "unit" and p.status == "map"]
            assert len(pub[side]["slots"]) == len(on_map)
    assert seen_hidden > 20          # the games did stack units


def test_public_is_the_same_for_states_that_differ_only_in_hidden_facts(states):
    """Changing hidden facts (steps, a hidden unit's face, Air, Arty, Prepared Defense) leaves
    public() as it is; changing a public one (a top unit's face, the turn) changes it."""
    changed = 0
    for st in states:
        want = _enc(bs.public(st))
        for side in ("allied", "axis"):
            m = _copy(st)
            hidden = set(secrets(m, side))
            for p in m.pieces.values():
                if p.side == side and p.kind == "unit":
                    p.steps = 1 if p.steps > 1 else 2
                    if p.id in hidden:
                        p.face = "deployed" if p.face == "move" else "move"
                        changed += 1
            m.private[side].air_points += 3
            m.private[side].arty_pool += 2
            for f in m.formations.values():
                if f.side == side:
                    f.prepared_defense = not f.prepared_defense
            assert _enc(bs.public(m)) == want
            assert bs.facts(m, side) != bs.facts(st, side)
    assert changed
    st = _copy(states[0])
    st.turn += 1
    assert _enc(bs.public(st)) != _enc(bs.public(states[0]))


def test_facts_hold_every_hidden_value(states):
    """Every unit under a top is a fact (its id and face) and every unit on the map has its
    steps; changing any one hidden value changes facts(state, side)."""
    checked = 0
    for st in states[::3]:
        for side in ("allied", "axis"):
            f = bs.facts(st, side)
            for pid in secrets(st, side):
                if pid in st.pieces:
                    assert pid in f.values()
            base = _enc(f)
            for pid, n in st.slots[side].items():
                m = _copy(st)
                m.pieces[pid].steps += 1
                assert _enc(bs.facts(m, side)) != base, pid
                checked += 1
            for name, mutate in (("air", lambda s: setattr(s.private[side], "air_points", 9)),
                                 ("arty", lambda s: setattr(s.private[side], "arty_pool", 9))):
                m = _copy(st)
                mutate(m)
                assert _enc(bs.facts(m, side)) != base, name
    assert checked > 50


def test_a_knowledge_state_holds_no_unopened_fact_and_disclose_opens_one(states):
    """conceal holds none of the other side's facts; disclose writes an opened one in (a
    hidden unit's id renames its stand-in) and ignores a fact of another owner."""
    done = 0
    for st in states:
        for side in ("allied", "axis"):
            o = other(side)
            k = bs.conceal(_copy(st), side)
            assert bs.facts(k, o) == {}
            real = bs.facts(st, o)
            units = sorted(x for x in real if bs._FACT.match(x) and x.endswith(".unit"))
            if not units:
                continue
            fact = units[0]
            before = _enc(k)
            bs.disclose(k, side, {fact: real[fact]})          # side does not own it
            bs.disclose(k, o, {fact.replace(f"{o}-", f"{side}-"): real[fact]})
            assert _enc(k) == before
            bs.disclose(k, o, {fact: real[fact]})
            assert bs.facts(k, o) == {fact: real[fact]}
            assert real[fact] in k.pieces
            assert not set(secrets(st, o)) - {real[fact]} & set(k.pieces)
            done += 1
    assert done > 5


def test_a_projection_names_no_hidden_unit(states):
    """A move of a stack travels by slots: no id of a unit under a top in the projected line."""
    n = 0
    for st in states:
        for side in ("allied", "axis"):
            hidden = set(secrets(st, side))
            for h in {st.pieces[u].hex for u in hidden if u in st.pieces}:
                units = sorted(p.id for p in st.pieces.values() if p.side == side
                               and p.hex == h and p.kind == "unit" and p.status == "map")
                line = bs.project(st, side, GAME.parse_order(f"move {'+'.join(units)} {h}"))
                assert not hidden & set(line.replace("+", " ").split()), line
                assert GAME.parse_order(line)
                back = bs.resolve_slots(st, GAME.parse_order(line))
                if isinstance(back, bs.Revealing):      # a hidden unit that moved is opened
                    back = back.order
                assert sorted(back.units) == units
                n += 1
    assert n


def test_resolving_slots_leaves_no_reference_cycle(states):
    """A turn command runs without the cyclic garbage collector (pbem.entry.console), so a
    reference cycle made while resolving the other side's projected orders would keep each
    state it read alive for the rest of the command (a sealed receive replays the chain)."""
    orders = []
    for st in states:
        for side in ("allied", "axis"):
            hidden = set(secrets(st, side))
            for h in sorted({st.pieces[u].hex for u in hidden if u in st.pieces}):
                units = sorted(p.id for p in st.pieces.values() if p.side == side
                               and p.hex == h and p.kind == "unit" and p.status == "map")
                line = bs.project(st, side, GAME.parse_order(f"move {'+'.join(units)} {h}"))
                orders.append((st, GAME.parse_order(line)))
    assert orders
    bs.resolve_slots(*orders[0])        # msgspec builds its type information once
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for st, order in orders:
            bs.resolve_slots(st, order)
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


class NoReveals(SealedBcs):
    """The test engine with no reveals: every public outcome that reads a hidden fact shows."""

    def reveals(self, state: Any, side: str, order: Any) -> list[tuple[str, str]]:
        """None."""
        return []


def _kind(f: dict[str, Any]) -> str:
    """The rule of a divergence, read from the first public event or state path that differs."""
    text = json.dumps(f["first"]) + json.dumps(f["diff"])
    for word, rule in (("rebuilt from the Dead Pile", "rebuild 9.4c"),
                       ('\\"rebuilt\\"', "rebuild 9.4c"), ('\\"repls\\"', "rebuild 9.4c"),
                       ("reveal his Victory Objective", "objective 4.0"), ("Game over", "objective 4.0"),
                       (".result:", "objective 4.0"), (".objective:", "objective 4.0"),
                       ("Isolation", "isolation 10.5"), ("SNAFU", "snafu 4.5a"),
                       ("is destroyed", "losses"), (".top", "top 5.5e")):
        if word in text:
            return rule
    return "other: " + text[:200]


def test_the_move_of_a_top_opens_the_unit_left_on_top(states):
    """5.5e: a move that takes a stack's top away opens the new top's id and face; an Attack
    opens every unit of the defending hex: its steps and its Formation's Prepared Defense, and
    the id and face of each unit under the top (by slot, as both processors name them)."""
    n = 0
    for st in states:
        for side in ("allied", "axis"):
            tops = bs._tops(st, side)
            for pid in secrets(st, side):
                p = st.pieces.get(pid)
                if p is None or p.hex not in tops:
                    continue
                top = tops[p.hex]
                rest = [q for q in bs._hex_units(st, side, p.hex) if q.id != top]
                new = bs.top_unit(rest).id
                got = bs.reveals(st, side, GAME.parse_order(f"move {top} {p.hex}"))
                k = bs.slot_name(side, st.slots[side][new])
                assert (side, f"{k}.unit") in got and (side, f"{k}.face") in got, got
                foe = other(side)
                att = bs.reveals(st, foe, GAME.parse_order(f"attack {p.hex} with x-1"))
                for q in bs._hex_units(st, side, p.hex):
                    k = bs.slot_name(side, st.slots[side][q.id])
                    assert {(side, f"{k}.steps"), (side, f"{k}.pd")} <= set(att)
                    assert ((side, f"{k}.unit") in att) == (q.id != top)
                n += 1
    assert n


def test_an_activation_opens_prepared_defense_and_the_formations_stacked_with_it(states):
    """An Activation of F opens F's Prepared Defense (its SNAFU cap), what waits off the map
    beside its held Entry hexes (9.3f's free Pass) and the Formation of each hidden unit in a
    hex holding one of F's units (Mixed Formations, Isolation), nothing else; its projection
    does not say whether it prepares a defense."""
    n = 0
    for st in states:
        for side in ("allied", "axis"):
            tops = bs._tops(st, side)
            for fid, f in sorted(st.formations.items()):
                if f.side != side:
                    continue
                got = bs.reveals(st, side, GAME.parse_order(f"activate {fid}"))
                assert got[:2] == [(side, f"{side}.pd.{fid}"), (side, f"{side}.offmap.{fid}")]
                hexes = {p.hex for p in bs._map_units(st, side) if p.formation == fid}
                want = sorted(f"{bs.slot_name(side, st.slots[side][p.id])}.formation"
                              for p in bs._map_units(st, side)
                              if p.hex in hexes and tops[p.hex] != p.id)
                assert sorted(x for _, x in got[2:]) == want
                n += len(want)
                line = bs.project(st, side, GAME.parse_order(f"activate {fid} prepare"))
                assert line == " opens ".join([f"activate {fid}", " ".join(x for _, x in got)])
    assert n


def test_check_play_keeps_the_invariant_of_a_whole_game():
    """check_play over the engine in a sealed game: with no reveals it finds a public outcome
    that reads a hidden fact; with the reveals a whole game of 5.2 keeps the invariant."""
    assert check_play(NoReveals(), GAME.setup("5.2", OPTIONS), random.Random(1))
    assert check_play(GAME, GAME.setup("5.2", OPTIONS), random.Random(1),
                      max_orders=3000) == []


def test_check_play_keep_going_returns_every_order_s_problems():
    """check_play stops at the first order with a problem; with keep_going it conceals the
    knowledge states again (SealedPlay.resync) and returns the problems of every order."""
    first = check_play(NoReveals(), GAME.setup("5.2", OPTIONS), random.Random(1))
    every = check_play(NoReveals(), GAME.setup("5.2", OPTIONS), random.Random(1),
                       max_orders=300, keep_going=True)
    assert first and every[:len(first)] == first
    assert len({p.split(":")[0] for p in every}) > len({p.split(":")[0] for p in first}) + 3


def test_the_divergences_left_are_the_known_ones():
    """Over a whole game of 5.2, the reveals leave only the divergences the port's analysis
    lists as still open (docs/sealed.md 5h): the Dead Pile's rebuilt units (9.4c); without the
    reveals many more, of the rules the reveals answer. (5.4: the games below.)"""
    kinds: dict[str, int] = {}
    base: dict[str, int] = {}
    found, n = analyse("5.2", 2)
    assert n > 500                        # a whole game
    for f in found:
        kinds[_kind(f)] = kinds.get(_kind(f), 0) + 1
    for f in analyse("5.2", 2, game=NoReveals())[0]:
        base[_kind(f)] = base.get(_kind(f), 0) + 1
    assert set(kinds) <= {"rebuild 9.4c"}, kinds
    assert sum(base.values()) > 3 * sum(kinds.values()), (base, kinds)
    assert {"top 5.5e", "isolation 10.5"} <= set(base), base


# -- BbF 4.0: the Axis's Victory Objective, a private draw (docs/sealed.md 5a, 5h item 7) --
GAMES_5_4 = ((0, "random"), (2, "heuristic"), (4, "random"))


def _objective(sp: SealedPlay) -> dict[str, Any]:
    """The Victory Objective as each state holds it: opened (public), the Axis's own value,
    the result and the phase; and whether the public states agree."""
    states = {"full": sp.full, **sp.know}
    out: dict[str, Any] = {n: {"opened": st.objective, "own": st.private["axis"].objective,
                               "result": _enc(st.result), "phase": st.phase}
                           for n, st in states.items()}
    out["public_agree"] = len({_enc(GAME.public(st)) for st in states.values()}) == 1
    out["pending"] = [(d.side, d.kind) for d in GAME.pending(sp.full)]
    return out


def play_5_4(seed: int, style: str) -> dict[str, Any]:
    """A whole bot game of 5.4 three ways (pbem.core.sealed.bot_play): the kinds of its
    divergences, the orders played, the openings of the Axis's draws, whether the Allied
    knowledge state ever held the objective before the opening, and the objective as every
    state holds it just before the opening and just after."""
    rng = random.Random(seed)
    sp = SealedPlay(GAME, GAME.setup("5.4", OPTIONS), rng.randbytes(32))
    out: dict[str, Any] = {"kinds": [], "orders": 0, "openings": 0, "allied_knew": False}
    for side, line, problems in bot_play(sp, rng, max_orders=3000, style=style):
        if problems:
            out["kinds"].append(_kind({"problems": problems, **_where(sp)}))
            sp.resync()
        if line == DRAWS_REVEAL:
            out["openings"] += 1
            out["after"] = _objective(sp)
            continue
        out["orders"] += 1
        if not out["openings"]:
            k = sp.know["allied"]
            out["allied_knew"] |= bool(k.objective or k.private["axis"].objective)
            if sp.full.phase == "over" or any(x.phase == "over" for x in sp.know.values()):
                out["before"] = _objective(sp)
    return out


@pytest.fixture(scope="module")
def games_5_4() -> list[dict[str, Any]]:
    """Whole games of 5.4 (three seeds, both bot styles) on the test sealed engine."""
    return [play_5_4(seed, style) for seed, style in GAMES_5_4]


def test_whole_games_of_5_4_keep_the_objective_in_step(games_5_4):
    """BbF 4.0 in a sealed game: no divergence of the Victory Objective or the result in whole
    games of 5.4; each ends with one opening of the Axis's draw."""
    for g in games_5_4:
        assert g["orders"] > 500                        # a whole game
        assert "objective 4.0" not in g["kinds"], g["kinds"]
        assert g["openings"] == 1


def test_the_result_waits_for_the_axis_opening_on_both_processors(games_5_4):
    """The Allied knowledge state never holds the objective before the opening; the Axis's
    holds his own but does not settle early: at the end every state waits for his opening,
    and after it all three hold the same opened objective and result."""
    for g in games_5_4:
        before, after = g.get("before"), g["after"]
        assert before is not None, "the game never reached its end before the opening"
        assert not g["allied_knew"]
        own = before["full"]["own"]
        assert own and before["axis"]["own"] == own and before["allied"]["own"] == ""
        for n in ("full", "allied", "axis"):
            assert before[n]["phase"] == "over" and before[n]["result"] == b"null", (n, before)
            assert before[n]["opened"] == ""
            assert after[n]["opened"] == own and after[n]["result"] == after["full"]["result"]
        assert before["public_agree"] and after["public_agree"]
        assert before["pending"] == [("axis", REVEAL_KIND)] and after["pending"] == []
        assert after["full"]["result"] != b"null"


def _exits_everyone(state: Any, objective: str) -> Any:
    """A copy of state in which every available Tac MA Axis unit has exited through the
    objective's exit hexes (BBF-4.0-c)."""
    m = _copy(state)
    hexes = sorted(ob.exit_hexes(m, objective))
    for u in ob.tac_units(m):
        m.pieces[u].status, m.pieces[u].hex = "exited", ""
        m.exits[u] = hexes[0]
    return m


def test_an_exit_victory_waits_for_the_opening_in_a_sealed_game(states):
    """BBF-4.0-c: the Axis's exits meet his own objective. A referee's state settles at once;
    a sealed game's state (even the Axis's own, which holds the value) waits, with the draw
    due, and the opening settles it."""
    st = next(s for s in states if s.scenario == "5.4" and s.objective_draw is not None)
    for sealed in (False, True):
        m = _exits_everyone(st, "tebessa")
        m.private["axis"].objective, m.sealed, m.phase = "tebessa", sealed, "activities"
        ob.settle(m)
        if not sealed:
            assert m.result is not None and m.result.winner == "axis"
            continue
        assert m.result is None and ob.due(m) == {"axis"}
        texts = ob.disclose(m, "axis", {ob.NAME: 1}, True)
        assert m.result is not None and m.result.winner == "axis", texts
        assert m.objective == "tebessa" and any("exited" in t for t in texts)


# -- what the real exchange needs: projections both processors read alike ------------------
def test_a_projection_names_what_it_opens_and_the_receiver_reads_the_same(states):
    """A move's projection carries the facts of its writer that it opens ('... opens
    axis-9.unit axis-9.face': only the writer knows which unit becomes the top); it reads back
    to the same text, and the other side's processor, on its knowledge state, finds the same
    reveals in it as the writer computed from the real order."""
    n = 0
    for st in states:
        for side in ("allied", "axis"):
            theirs = bs.conceal(_copy(st), other(side))
            tops = bs._tops(st, side)
            for h, top in sorted(tops.items()):
                real = GAME.parse_order(f"move {top} {h}")
                line = bs.project(st, side, real)
                back = GAME.parse_order(line)
                assert GAME.format_order(back) == line
                mine = bs.reveals(st, side, real)
                assert bs.reveals(theirs, side, back) == mine
                if bs.OPENS in line:
                    assert isinstance(back, bs.Revealing) and top not in line
                    n += 1
    assert n


def test_an_attack_opens_the_same_facts_on_both_processors(states):
    """The defending hex's openings are named by slot from public facts only (the slots in the
    hex and its top), so the attacker's knowledge state and the defender's own state list the
    same facts; the defender's reply opens exactly those."""
    n = 0
    for st in states:
        for att in ("allied", "axis"):
            dfd = other(att)
            mine, theirs = bs.conceal(_copy(st), att), bs.conceal(_copy(st), dfd)
            for h in sorted(bs._tops(st, dfd)):
                order = GAME.parse_order(f"attack {h} with x-1")
                got = bs.target_reveals(mine, att, order)
                assert got == bs.target_reveals(theirs, att, order) == \
                    bs.target_reveals(st, att, order)
                assert got and {w for w, _ in got} == {dfd}
                n += 1
    assert n


def test_a_projection_that_names_a_wrong_fact_does_not_read():
    """The facts a projection opens have the names sealed.py gives; anything else is refused
    with one line naming the rule."""
    for bad in ("move slot-axis-7 B15.09 opens axis-7.steps2", "end opens allied-3.unit ?",
                "move slot-axis-7 B15.09 opens ../x", "seen repls kern", "seen repls kern@x"):
        with pytest.raises(OrderSyntaxError) as e:
            GAME.parse_order(bad)
        assert e.value.rule == bs.SEALED_RULE, bad
    line = "seen repls kern@B12.08+580-recon@B3.12"
    order = GAME.parse_order(line)
    assert order.topic == "repls" and GAME.format_order(order) == line
    assert GAME.format_order(GAME.parse_order("seen repls none")) == "seen repls none"


def test_a_sealed_game_asks_for_the_repls_every_phase_and_shows_only_the_placements(monkeypatch):
    """9.4 in a sealed game: each side is asked `repls` in every Reinforcement Phase from the
    second turn (whether it has a choice reads its hidden steps and private die); the other side
    sees only 'seen repls UNIT@HEX+...|none', the units placed from the Dead Pile, and a whole
    game keeps the invariant."""
    import re

    seen: list[tuple[int, str, str]] = []
    project = GAME.project

    def recording(state: Any, side: str, order: Any) -> str:
        text = project(state, side, order)
        if getattr(order, "topic", "") == "repls":
            seen.append((state.turn, side, text))
        return text
    monkeypatch.setattr(GAME, "project", recording)
    rng = random.Random(5)
    sp = SealedPlay(GAME, GAME.setup("5.2", OPTIONS), rng.randbytes(32))
    problems = [p for _, _, found in bot_play(sp, rng, max_orders=3000) for p in found]
    assert problems == []
    assert sp.full.turn >= 3
    asked = {(turn, side) for turn, side, _ in seen}
    for turn in range(2, sp.full.turn):
        assert {(turn, "allied"), (turn, "axis")} <= asked, sorted(asked)
    item = r"[a-z0-9/-]+@[A-Z][0-9]{2}\.[0-9]{2}"
    assert all(re.fullmatch(rf"seen repls (none|{item}(\+{item})*)", text)
               for _, _, text in seen), seen


def _ended_5_4(objective: str) -> Any:
    """A sealed game of 5.4 at its end, the Axis's objective drawn but not opened."""
    from pbem.core.game import PrivateDraw

    st = GAME.setup("5.4", OPTIONS)
    st.phase = "over"
    st.objective_draw = PrivateDraw(owner="axis", name=ob.NAME, seq=3, action=0, index=0,
                                    sides=2, purpose=ob.PURPOSE)
    st.private["axis"].objective = objective
    return st


def test_the_axis_opens_his_objective_with_his_own_order_in_a_sealed_game():
    """BbF 4.0 through the sealed protocol: at the end the game waits for the Axis; his
    processor answers 'open objective' (its reveal is his fact axis.objective); on the Allied
    knowledge state, once that fact is disclosed, the same order settles the same result."""
    from pbem.core.dice import KeyedDice
    from pbem.core.game import Context

    full = _ended_5_4("lekef")
    (d,) = GAME.pending(full)
    assert (d.side, d.kind) == ("axis", REVEAL_KIND)
    assert GAME.standing_answers(full, "axis", d) == [ob.OPEN]
    order = GAME.parse_order(ob.OPEN)
    assert GAME.reveals(full, "axis", order) == [("axis", "axis.objective")]
    assert GAME.facts(full, "axis")["axis.objective"] == "lekef"
    allied = GAME.conceal(_copy(full), "allied")
    assert "axis.objective" not in GAME.facts(allied, "axis")
    with pytest.raises(IllegalOrder, match="does not hold"):
        GAME.apply(_copy(allied), "axis", order, Context(KeyedDice(bytes(32))))
    GAME.disclose(allied, "axis", {"axis.objective": "lekef"})
    for st in (full, allied):
        GAME.apply(st, "axis", order, Context(KeyedDice(bytes(32))))
        assert st.objective == "lekef" and st.result is not None
    assert full.result == allied.result and GAME.public(full) == GAME.public(allied)
    assert GAME.pending(full) == []


def test_open_objective_is_refused_unless_the_rules_need_it():
    """Not in a peer or hosted game (their processors open the draw themselves), not by the
    Allies, not before the game waits for it."""
    from pbem.core.dice import KeyedDice
    from pbem.core.game import Context

    order = GAME.parse_order(ob.OPEN)
    peer = ENGINE.setup("5.4", OPTIONS)
    peer.phase, peer.private["axis"].objective = "over", "lekef"
    early = _ended_5_4("tebessa")
    early.phase = "activate"
    for st, side, why in ((peer, "axis", "sealed games"), (_ended_5_4("lekef"), "allied",
                                                           "do not need"),
                          (early, "axis", "do not need")):
        with pytest.raises(IllegalOrder, match=why):
            ENGINE.apply(st, side, order, Context(KeyedDice(bytes(32))))


# -- item 8: what a stack shows of the units under its top -------------------------------
def sealed_position(case: str, position: dict[str, Any]) -> Any:
    """A sealed game's state built from a rule-case position (the house option sealed_game
    added), its slots given and what each side sees marked."""
    from pbem.core.rulecases import Case
    from pbem.games.bcs.rulecases import BcsCases

    position = {**position, "options": {"sealed_game": True, **position.get("options", {})}}
    st = BcsCases().build(Case(id=case, position=position))
    bs.assign_slots(st)
    bs.mark_seen(st)
    return st


def _mixed_position() -> Any:
    """A sealed position: Schutte activated, i-5-pz in its Support (9.2); iii-104-inf (top)
    and iv-104-inf (hidden under it, both Schutte, Support access) in B8.19; 49-pio of
    Gerhardt (no Support) alone in B9.19, next to it."""
    return sealed_position("item-8", {
        "active": "schutte",
        "units": [{"id": "schutte-hq", "hex": "B11.19"}, {"id": "iii-104-inf", "hex": "B8.19"},
                  {"id": "iv-104-inf", "hex": "B8.19"}, {"id": "49-pio", "hex": "B9.19"},
                  {"id": "i-5-pz", "support": True}]})


class NoProfiles(SealedBcs):
    """The test engine without the openings of units a stack's profile reads (item 8)."""

    def reveals(self, state: Any, side: str, order: Any) -> list[tuple[str, str]]:
        """The reveals as if no order's trial resolution ran."""
        bs._SIMULATING.append(True)
        try:
            return super().reveals(state, side, order)
        finally:
            bs._SIMULATING.pop()


def test_a_hidden_unit_whose_support_its_stand_in_would_not_give_is_opened():
    """6.0h, 9.2g (docs/sealed.md 5h item 8): a hidden unit with its Formation's Support that
    moves under a top without it makes the stack 'supported' (a Support AV EZOC); the other
    side's stand-in, a copy of the top, would not be. Its move opens its identity and face,
    so both knowledge states keep the public state; without that opening they part."""
    st = _mixed_position()
    assert bs.exceeding(st, "axis") == []               # its top gives the same Support
    line = "move iv-104-inf B8.19 B9.19"
    k = bs.slot_name("axis", st.slots["axis"]["iv-104-inf"])
    assert bs.reveals(st, "axis", GAME.parse_order(line)) == [("axis", f"{k}.unit"),
                                                                ("axis", f"{k}.face")]
    assert bs.project(st, "axis", GAME.parse_order(line)).endswith(
        f" opens {k}.unit {k}.face")
    sp = SealedPlay(GAME, _mixed_position(), b"k" * 32)
    assert sp.play("axis", line) == []
    assert sp.know["allied"].pieces["iv-104-inf"].hex == "B9.19"
    assert GAME.public(sp.know["allied"])["axis"]["stacks"]["B9.19"]["supported"] is True
    parted = SealedPlay(NoProfiles(), _mixed_position(), b"k" * 32).play("axis", line)
    assert parted and "allied's public state differs" in parted[0]


def test_exceeding_names_only_units_a_copy_of_their_top_would_misstate(states):
    """Over positions of real games: every unit ``exceeding`` names is hidden and unseen, and
    a knowledge state with those units opened, and the units the other side has seen (as a
    processor's knowledge state keeps them), computes the same enemy ZOC, Engagement Zones and
    supported flags around every stack as the full state."""
    from pbem.games.bcs.board import bdata
    from pbem.games.bcs.zoc import engagement_zone, ezoc

    grid = bdata().game_map.grid
    n = named = 0
    unseen = []                         # the same positions with no unit under a top seen yet
    for st in states[::3]:
        st = _copy(st)
        for p in st.pieces.values():
            p.revealed = False
        bs.mark_seen(st)
        unseen.append(st)
    for st in states[::3] + unseen:
        for side in ("allied", "axis"):
            names = bs.exceeding(st, side)
            named += len(names)
            hidden = set(secrets(st, side))
            assert set(names) <= hidden
            know = GAME.conceal(_copy(st), other(side))
            facts = GAME.facts(st, side)
            tops = bs._tops(st, side)
            seen = [p.id for p in bs._map_units(st, side) if p.revealed and tops[p.hex] != p.id]
            for pid in names + seen:
                k = bs.slot_name(side, st.slots[side][pid])
                GAME.disclose(know, side, {f"{k}.unit": facts[f"{k}.unit"],
                                           f"{k}.face": facts[f"{k}.face"]})
            near = {h for p in bs._map_units(st, side) for h in grid.neighbours(p.hex)}
            for h in sorted(near):
                foe = other(side)
                assert ezoc(know, foe, h) == ezoc(st, foe, h), (side, h)
                assert engagement_zone(know, foe, h) == engagement_zone(st, foe, h), (side, h)
                n += 1
            assert GAME.public(know)[side] == GAME.public(st)[side]
    assert n and named


# -- item 1: units entering from off the map ---------------------------------------------
def _reimann(case: str, options: dict[str, Any] | None = None,
             extra: list[dict[str, Any]] | None = None,
             entry: list[str] | None = None) -> Any:
    """A sealed position: KG Reimann activated, its HQ in B20.01; ii-86-inf (with the Entry
    hexes entry, when given), 90-mdr and 1-501-tgr off the map, due now by Entry Area F
    (B18.00-B22.00); the house options and the extra units given."""
    inf: dict[str, Any] = {"id": "ii-86-inf", "off": True, "arrives": 1}
    if entry:
        inf["entry"] = entry
    return sealed_position(case, {
        "options": dict(options or {}), "active": "reim",
        "units": [{"id": "reim-hq", "hex": "B20.01"}, {"id": "cca-hq", "hex": "B14.09"},
                  *(extra or []), inf,
                  {"id": "90-mdr", "off": True, "arrives": 1},
                  {"id": "1-501-tgr", "off": True, "arrives": 1}]})


def _arrival_position() -> Any:
    """KG Reimann's three units off the map, due now by Entry Area F (B20.00 among them)."""
    return _reimann("item-1")


def _axis_units(state: Any) -> list[tuple[str, str, str]]:
    return sorted((p.id, p.status, p.hex) for p in state.pieces.values()
                  if p.side == "axis" and p.kind == "unit" and p.status in ("map", "off"))


def test_a_unit_entering_under_another_top_travels_by_its_slot_and_is_never_named():
    """1.5a, 5.5e: ii-86-inf enters with 90-mdr, under it. The projection names it by the slot
    it will hold, never by id; the Allied processor takes a unit of its pool (the Axis units
    off the map) as its stand-in, and both knowledge states keep the public state. When 90-mdr
    moves on, the new top is opened: the stand-in becomes ii-86-inf and the unit it took from
    the pool goes back there."""
    line = "move ii-86-inf+90-mdr B20.00 B20.01"
    st = _arrival_position()
    text = bs.project(st, "axis", GAME.parse_order(line))
    assert "ii-86-inf" not in text
    assert text == "move slot-axis-2+90-mdr B20.00 B20.01 arrivals axis-2=1:F"   # 9.3b's arrival
    assert GAME.format_order(GAME.parse_order(text)) == text
    sp = SealedPlay(GAME, _arrival_position(), b"k" * 32)
    assert sp.play("axis", line) == []
    allied = sp.know["allied"]
    assert [p.hex for p in allied.pieces.values() if bs.STANDIN_MARK in p.id
            and p.status == "map"] == ["B20.01"]
    assert sum(p.status == "off" for p in allied.pieces.values() if p.kind == "unit"
               and p.side == "axis") == 1
    # the units of KG Reimann off the map are of uncertain name: nothing names ii-86-inf
    assert "ii-86-inf" in secrets(sp.full, "axis")
    assert not re.search(rb"(?<![\w-])ii-86-inf(?![\w-])", msgspec.json.encode(allied))
    assert sp.play("axis", "move 90-mdr B20.01 B20.02") == []
    assert _axis_units(sp.full) == [
        ("1-501-tgr", "off", ""), ("90-mdr", "map", "B20.02"), ("ii-86-inf", "map", "B20.01")]
    assert _axis_units(allied) == [      # the unit the stand-in took is back in the pool
        ("1-501-tgr--standinpool", "off", ""), ("90-mdr", "map", "B20.02"),
        ("ii-86-inf", "map", "B20.01")]
    assert allied.picked == {"axis": {}}


def test_a_named_unit_a_stand_in_took_comes_back_from_the_pool():
    """The Allied processor's stand-in for the unit under 90-mdr took 1-501-tgr from its pool
    (the first that can make the move); when the Axis then brings 1-501-tgr on by name, it
    comes back and another unit of KG Reimann's pool takes its place as that stand-in."""
    sp = SealedPlay(GAME, _arrival_position(), b"k" * 32)
    assert sp.play("axis", "move ii-86-inf+90-mdr B20.00 B20.01") == []
    allied = sp.know["allied"]
    assert [p.id for p in allied.picked["axis"].values()] == ["1-501-tgr--standinpool"]
    assert sp.play("axis", "move 1-501-tgr B20.00") == []
    assert [p.id for p in allied.picked["axis"].values()] == ["ii-86-inf--standinpool"]
    assert ("1-501-tgr", "map", "B20.00") in _axis_units(allied)
    assert [u for u in _axis_units(allied) if u[1] == "map"] == [
        ("1-501-tgr", "map", "B20.00"), ("90-mdr", "map", "B20.01"),
        ("90-mdr--standin2", "map", "B20.01")]


def test_a_unit_a_stand_in_took_keeps_its_arrival_s_entry_hexes_in_the_pool():
    """9.3b narrows the Entry hexes of the units of an arrival still off the map at the end of
    the Activation that used them; on the Allied knowledge state that includes the pool unit its
    stand-in took and keeps aside (1-501-tgr for ii-86-inf). When an opening then gives it back
    to the pool (ii-86-inf on top) and it enters in the Second Activation, its arrival group is
    the real one: before, it came back with the Entry Area F of the Order of Arrival, and the
    Activation's public record of Entry hexes by arrival parted (a sealed game of 5.4 through
    the exchange was refused there: the Centro Division's units entering by Entry Area H)."""
    sp = SealedPlay(GAME, _arrival_position(), b"k" * 32)
    allied = sp.know["allied"]
    assert sp.play("axis", "move ii-86-inf+90-mdr B20.00 B20.01") == []
    assert sp.play("axis", "end") == []
    assert [(p.id, p.entry) for p in allied.picked["axis"].values()] == [
        ("1-501-tgr--standinpool", ["B20.00"])]
    assert sp.full.pieces["1-501-tgr"].entry == ["B20.00"]
    assert sp.play("axis", "second") == []
    assert sp.full.activation is not None and sp.full.activation.second
    assert sp.play("axis", "move 90-mdr B20.01 B20.02") == []     # opens ii-86-inf, the new top
    assert allied.picked == {"axis": {}}
    assert allied.pieces["1-501-tgr--standinpool"].entry == ["B20.00"]
    assert sp.play("axis", "move 1-501-tgr B20.00 B20.01") == []
    assert sp.full.activation.entries == allied.activation.entries == {"1:B20.00": ["B20.00"]}


def _two_arrivals() -> Any:
    """_arrival_position with ii-86-inf of another arrival of KG Reimann: one whose Entry hexes
    an earlier Activation narrowed to B20.00 (9.3b), the others still by Entry Area F."""
    return _reimann("item-1b", entry=["B20.00"])


def test_a_unit_entering_under_another_top_from_another_arrival_keeps_the_entries_public():
    """9.3b keeps the Entry hexes each arrival used in the Activation's public record. ii-86-inf,
    whose arrival already chose B20.00, enters under 90-mdr: its projection names its arrival by
    the slot it will hold (`arrivals axis-2=1:B20.00`), so the Allied processor's pool gives a
    unit of that arrival, not 1-501-tgr (the first by id, which it gave before, of an arrival
    still entering by Entry Area F): the record, then the Entry hexes 9.3b narrows, agree."""
    sp = SealedPlay(GAME, _two_arrivals(), b"k" * 32)
    line = "move ii-86-inf+90-mdr B20.00 B20.01"
    text = bs.project(sp.full, "axis", GAME.parse_order(line))
    assert text == "move slot-axis-2+90-mdr B20.00 B20.01 arrivals axis-2=1:B20.00"
    assert sp.play("axis", line) == []
    allied = sp.know["allied"]
    assert sp.full.activation.entries == allied.activation.entries == {
        "1:B20.00": ["B20.00"], "1:F": ["B20.00"]}
    # the units of the other arrival keep their names: none of them entered
    assert ("1-501-tgr", "off", "") in _axis_units(allied)
    assert sp.play("axis", "end") == []
    assert allied.pieces["1-501-tgr"].entry == sp.full.pieces["1-501-tgr"].entry == ["B20.00"]


def test_a_projection_s_arrivals_are_checked_on_receipt_and_a_false_one_parts_the_states():
    """The receiver takes a unit of the arrival the projection names for each unit it brings on
    by slot, and refuses (one line, PBEM-SEALED, its state unchanged) a projection that names
    none for such a unit, names one for a slot it does not bring on, or names an arrival of
    which no unit in its pool can enter there now. A false arrival that one can is taken: the
    public record of the Activation then parts from the writer's (the public hashes refuse the
    next file), and a lie that keeps it is caught by the final replay (below)."""
    from pbem.core.game import Context
    from pbem.core.dice import NoDice

    sp = SealedPlay(GAME, _two_arrivals(), b"k" * 32)
    allied = sp.know["allied"]
    before = msgspec.json.encode(allied)
    for bad in ("move slot-axis-2+90-mdr B20.00 B20.01",
                "move slot-axis-2+90-mdr B20.00 B20.01 arrivals axis-3=1:B20.00",
                "move slot-axis-2+90-mdr B20.00 B20.01 arrivals axis-2=1:B20.00 axis-3=1:F",
                "move slot-axis-2+90-mdr B20.00 B20.01 arrivals axis-2=2:F",
                "move 90-mdr B20.00 B20.01 arrivals axis-2=1:F"):
        with pytest.raises(IllegalOrder) as e:
            GAME.apply(allied, "axis", GAME.parse_order(bad), Context(NoDice()))
        assert e.value.rule == bs.SEALED_RULE, bad
        assert msgspec.json.encode(allied) == before, bad
    GAME.apply(sp.full, "axis", GAME.parse_order("move ii-86-inf+90-mdr B20.00 B20.01"),
               Context(NoDice()))
    GAME.apply(allied, "axis", GAME.parse_order(
        "move slot-axis-2+90-mdr B20.00 B20.01 arrivals axis-2=1:F"), Context(NoDice()))
    assert allied.activation.entries == {"1:F": ["B20.00"]} != sp.full.activation.entries
    assert GAME.public(allied) != GAME.public(sp.full)


def test_a_consistent_false_arrival_keeps_the_public_hashes_and_the_final_replay_catches_it():
    """A writer names another arrival that its receiver's pool can make the move with (1:F for
    ii-86-inf, of 1:B20.00) and keeps its own state in step with the lie (its processor takes
    ii-86-inf for a unit of 1:F): both processors' public states, and so the public hashes,
    agree. The final replay projects the real order on the true state (`sealing.project`, as
    `audit_sealed` does) and compares the text: the arrival differs (through the commands:
    tests/games/bcs/test_sealed_attacks.py)."""
    from pbem.core.dice import NoDice
    from pbem.core.game import Context
    from pbem.protocol.sealing import project as replayed, public_hash

    real = "move ii-86-inf+90-mdr B20.00 B20.01"
    lie = "move slot-axis-2+90-mdr B20.00 B20.01 arrivals axis-2=1:F"
    cheat = _two_arrivals()
    cheat.pieces["ii-86-inf"].entry = ["F"]             # the cheater's own state
    allied = bs.conceal(_two_arrivals(), "allied")
    assert bs.project(cheat, "axis", GAME.parse_order(real)) == lie
    GAME.apply(cheat, "axis", GAME.parse_order(real), Context(NoDice()))
    GAME.apply(allied, "axis", GAME.parse_order(lie), Context(NoDice()))
    assert public_hash(GAME, cheat) == public_hash(GAME, allied)
    assert replayed(GAME, _two_arrivals(), "axis", [real]) == [
        "move slot-axis-2+90-mdr B20.00 B20.01 arrivals axis-2=1:B20.00"]


def test_a_projection_s_arrivals_read_back_to_their_text():
    """'ORDER [arrivals SLOT=ARRIVAL ...] [opens FACT ...]': the arrival is the unit's
    `arrival_group` (its turn and Entry hexes, 9.3b); anything else is refused with one line
    naming the rule."""
    for line in ("move slot-axis-7+90-mdr B20.00 B20.01 arrivals axis-7=2:H",
                 "move slot-axis-7+slot-axis-8 A1.22 arrivals axis-7=2:A1.19,A1.18 axis-8=3:H",
                 "move slot-allied-3+x-1 A1.22 A2.22 arrivals allied-3=1:hq:cca,A "
                 "opens allied-1.unit allied-1.face"):
        order = GAME.parse_order(line)
        assert isinstance(order, bs.Revealing) and order.arrivals
        assert GAME.format_order(order) == line
    for bad in ("move slot-axis-7 B15.09 arrivals  opens axis-3.unit",
                "move slot-axis-7 B15.09 arrivals axis-7",
                "move slot-axis-7 B15.09 arrivals axis-7=H", "move slot-axis-7 B15.09 arrivals "
                "axis-7=2:H axis-7=3:H", "move slot-axis-7 B15.09 arrivals axis-7=2:H?",
                "move slot-axis-7 B15.09 opens axis-3.unit arrivals axis-7=2:H"):
        with pytest.raises(OrderSyntaxError) as e:
            GAME.parse_order(bad)
        assert e.value.rule == bs.SEALED_RULE, bad


def test_a_unit_a_knowledge_state_holds_nowhere_comes_back_with_its_arrival_s_entry_hexes():
    """_fill (a unit a move names that a knowledge state holds nowhere: not met in the bot
    games, tested for itself) takes a unit of its arrival in the Order of Arrival from the pool
    and gives the named unit that arrival's Entry hexes as 9.3b narrowed them, not the Order
    of Arrival's (Entry Area F): its arrival in the Activation's record is the real one."""
    st = _arrival_position()
    for u in ("ii-86-inf", "90-mdr", "1-501-tgr"):
        st.pieces[u].entry = ["B20.00"]         # narrowed by an earlier Activation (9.3b)
    allied = bs.conceal(_copy(st), "allied")
    allied.pieces.pop("1-501-tgr")              # a name this state lost
    bs._fill(allied, "axis", "1-501-tgr", ["1-501-tgr"])
    assert allied.pieces["1-501-tgr"].entry == ["B20.00"]
    assert [u for u in _axis_units(allied) if u[1] == "off"] == [
        ("1-501-tgr", "off", ""), ("ii-86-inf", "off", "")]   # 90-mdr left the pool for it


def test_any_arrivals_clause_reads_back_to_its_text():
    """Hypothesis: every `arrivals` clause the writer can form (a slot of either side, a turn,
    Entry hexes, Areas or `hq:`/`rule:` entries), with or without `opens`, reads back to the
    same projection and text."""
    from hypothesis import given, settings, strategies as st

    entry = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9:.-]{0,7}\Z", fullmatch=True)
    item = st.tuples(st.sampled_from(["allied", "axis"]), st.integers(1, 99999),
                     st.integers(0, 999), st.lists(entry, max_size=3))

    @settings(max_examples=200, deadline=None)
    @given(items=st.lists(item, min_size=1, max_size=3, unique_by=lambda x: x[:2]),
           opens=st.lists(st.sampled_from(["axis-3.unit", "axis.pd.reim", "allied-2.face"]),
                          max_size=2, unique=True))
    def round_trip(items, opens):
        arrivals = tuple(f"{s}-{n}={t}:{','.join(e)}" for s, n, t, e in items)
        order = bs.Revealing(order=GAME.parse_order("move slot-axis-7+90-mdr B15.09 B16.09"),
                             opens=tuple(opens), arrivals=arrivals)
        text = GAME.format_order(order)
        assert GAME.parse_order(text) == order
        assert GAME.format_order(GAME.parse_order(text)) == text
        assert bs.arrivals_of(order) == {a.partition("=")[0]: a.partition("=")[2]
                                         for a in arrivals}

    round_trip()


# -- flips (5.6a, 5.6c, 9.3h) of units the other processor holds as stand-ins ---------------
def _flip_position() -> Any:
    """A sealed position of 5.2: CCA activated (nothing moved yet); drake (one side only) on
    top of kern (hidden under it) in B8.19."""
    return sealed_position("flip", {
        "active": "cca", "next_side": "allied",
        "units": [{"id": "cca-hq", "hex": "B6.19"}, {"id": "drake", "hex": "B8.19"},
                  {"id": "kern", "hex": "B8.19"}, {"id": "reim-hq", "hex": "B49.17"}]})


def test_the_flip_of_a_unit_under_a_top_opens_it_and_both_sides_agree():
    """5.6a/c read the flipped unit's counter, classes and Safe Path. Under a top, the other
    processor holds it as a copy of its top (drake, which has one side only, so the flip was
    refused there and the game stopped); the flip now opens its identity and face, and the
    Axis knowledge state flips kern itself."""
    st = _flip_position()
    k = bs.slot_name("allied", st.slots["allied"]["kern"])
    assert bs.reveals(st, "allied", GAME.parse_order("flip kern")) == [
        ("allied", f"{k}.unit"), ("allied", f"{k}.face")]
    sp = SealedPlay(GAME, _flip_position(), b"k" * 32)
    assert sp.play("allied", "flip kern") == []
    assert sp.full.pieces["kern"].face == sp.know["axis"].pieces["kern"].face == "deployed"


def test_the_flip_of_an_arriving_unit_whose_name_a_stand_in_took_brings_it_back():
    """9.3h: a unit off the map is flipped by name at the start of an Activation. The Allied
    processor had given 1-501-tgr to the stand-in of the unit that entered under 90-mdr; the
    flip now brings it back to its name from the pool (as a move naming it does), where it was
    refused ('not one of your units') and the game stopped. The Activation's start is set by
    hand on all three states (a Second Activation's, which the public record shows alike)."""
    sp = SealedPlay(GAME, _arrival_position(), b"k" * 32)
    assert sp.play("axis", "move ii-86-inf+90-mdr B20.00 B20.01") == []
    assert [p.id for p in sp.know["allied"].picked["axis"].values()] == ["1-501-tgr--standinpool"]
    for st in (sp.full, *sp.know.values()):
        st.activation.began = False
    assert sp.play("axis", "flip 1-501-tgr") == []
    allied = sp.know["allied"]
    assert allied.pieces["1-501-tgr"].face == sp.full.pieces["1-501-tgr"].face
    assert [p.id for p in allied.picked["axis"].values()] == ["ii-86-inf--standinpool"]


def _first_support_position() -> Any:
    """A sealed position of 5.2, the Axis's Assignment Phase of turn 2: KG Reimann without
    Support; out of its reach in B40.30, ii-86-inf (Leg infantry) hidden under 1-501-tgr
    (a Tiger battalion: an AV)."""
    return sealed_position("9.2i", {
        "turn": 2, "assigning": ["axis"],
        "units": [{"id": "reim-hq", "hex": "B19.02"}, {"id": "reim-trains", "hex": "B20.01"},
                  {"id": "90-mdr", "hex": "B19.03"}, {"id": "1-501-tgr", "hex": "B40.30"},
                  {"id": "ii-86-inf", "hex": "B40.30"}]})


def test_a_dropped_support_marker_given_to_a_hidden_unit_opens_it():
    """9.2i b: a Formation's first Support marks the units it cannot get to that have an
    Assault Arrow and no AV: ii-86-inf, not the Tiger on top of it. The Allied processor held
    ii-86-inf as a copy of the Tiger, which gets no marker, so the stack's public count of
    markers parted; the order now opens the unit that gets one."""
    st = _first_support_position()
    k = bs.slot_name("axis", st.slots["axis"]["ii-86-inf"])
    assert ("axis", f"{k}.unit") in bs.reveals(st, "axis", GAME.parse_order("support 90-mdr"))
    sp = SealedPlay(GAME, _first_support_position(), b"k" * 32)
    assert sp.play("axis", "support 90-mdr") == []
    assert sp.full.pieces["ii-86-inf"].dropped and sp.know["allied"].pieces["ii-86-inf"].dropped
    assert GAME.public(sp.know["allied"])["axis"]["stacks"]["B40.30"]["dropped"] == 1



def test_a_stand_in_gives_back_the_pool_unit_only_it_could_walk_with(monkeypatch):
    """Item 1: a unit entering under another top takes, on the other processor, the first unit
    of its arrival's pool that can walk its path. In a whole random game of 5.4 (seed 127 then;
    seed 11, which meets it too, since a sealed game asks every side every Assignment Phase),
    i-86-inf entered hidden and the Allied pool took 10-krad for it; then the real 10-krad
    entered hidden by a path only a unit of MA 14 can walk, no unit left in the pool could, and
    the fallback's stand-in was refused the move (5.1b), so the game stopped. The earlier
    stand-in now gives back the unit it keeps aside, takes a pool unit instead, and the whole
    game keeps the invariant."""
    given: list[str] = []
    real = bs._give_back

    def counted(*args: Any) -> Any:
        back = real(*args)
        if back is not None:
            given.append(back.id)
        return back

    monkeypatch.setattr(bs, "_give_back", counted)
    rng = random.Random(11)
    sp = SealedPlay(GAME, GAME.setup("5.4", OPTIONS), rng.randbytes(32))
    problems = [(side, line, found) for side, line, found in
                bot_play(sp, rng, max_orders=3000, style="random") if found]
    if not given:
        pytest.fail("seed 11 no longer meets a pool unit only a stand-in could walk with: "
                    "choose another seed")
    assert problems == []
    assert sp.full.phase == "over"


def _off_map_position() -> Any:
    """_arrival_position with the house option entry_blocking = attack_from_off_map (9.3f as
    printed) and an Allied unit, 81-cav, near KG Reimann's Entry Area F."""
    return _reimann("item-9.3f", {"entry_blocking": "attack_from_off_map"},
                    [{"id": "81-cav", "hex": "B21.03"}])


def test_a_free_pass_reads_the_units_off_the_map_only_as_their_owner_opened_them():
    """9.3f: a Formation with a unit able to attack waiting off the map while an enemy unit
    holds one of its Entry hexes has a Pass SNAFU. ii-86-inf enters under 1-501-tgr; the Allied
    pool takes 90-mdr (which cannot attack) as its stand-in, so it believes ii-86-inf still
    waits. 81-cav then holds B20.00. At the Second Activation the Axis processor rolls the
    SNAFU (only 90-mdr waits) while the Allied one took the Pass: the game stopped there. The
    attempt now opens S.offmap.reim (the held Entry hexes only, never a unit), and both roll."""
    from pbem.games.bcs.snafu import free_pass

    sp = SealedPlay(GAME, _off_map_position(), b"\0" * 32)
    allied = sp.know["allied"]
    assert sp.play("axis", "move ii-86-inf+1-501-tgr B20.00 B20.01") == []
    assert sp.play("axis", "end") == []
    assert [p.id for p in allied.picked["axis"].values()] == ["90-mdr--standinpool"]
    for st in (sp.full, *sp.know.values()):       # 81-cav's move onto the Entry hex is public
        st.pieces["81-cav"].hex = "B20.00"
    assert bs.facts(sp.full, "axis")["axis.offmap.reim"] == {"attack": [], "spot": ["B20.00"]}
    assert "axis.offmap.reim" not in bs.facts(allied, "axis")
    assert bs.project(sp.full, "axis", GAME.parse_order("second")) == \
        "second opens axis.offmap.reim"
    assert bs.hidden_legality(GAME.parse_order("second"))
    assert not bs.hidden_legality(GAME.parse_order("done"))
    assert sp.play("axis", "second") == []
    act, known = sp.full.activation, allied.activation
    assert act is not None and known is not None and act.second
    assert (act.snafu, act.snafu_roll) == (known.snafu, known.snafu_roll)
    assert act.snafu_roll > 0                      # rolled: no free Pass on either
    assert free_pass(allied, allied.formations["reim"]) == ""
    # with ii-86-inf itself still off the map the Pass is the same on both
    sp = SealedPlay(GAME, _off_map_position(), b"\0" * 32)
    assert sp.play("axis", "move 90-mdr+1-501-tgr B20.00 B20.01") == []
    assert sp.play("axis", "end") == []
    for st in (sp.full, *sp.know.values()):
        st.pieces["81-cav"].hex = "B20.00"
    assert sp.play("axis", "second") == []
    assert sp.full.activation.snafu_roll == sp.know["allied"].activation.snafu_roll == 0


def test_an_attack_with_a_barrage_opens_what_waits_off_the_map_to_spot_it():
    """9.3f as printed: units waiting in the virtual hex beside a held Entry hex spot the
    Barrage of an Attack Sequence on it (barrage.off_map_spotter). Which units wait is hidden,
    so an attack or shock with a Barrage opens S.offmap.F; one without opens nothing of it."""
    from pbem.games.bcs.barrage import off_map_spotter

    sp = SealedPlay(GAME, _off_map_position(), b"\0" * 32)
    assert sp.play("axis", "move ii-86-inf+1-501-tgr B20.00 B20.01") == []
    for st in (sp.full, *sp.know.values()):
        st.pieces["81-cav"].hex = "B20.00"
    fired = GAME.parse_order("attack B20.00 with 1-501-tgr barrage arty 1")
    plain = GAME.parse_order("attack B20.00 with 1-501-tgr")
    assert ("axis", "axis.offmap.reim") in bs.own_reveals(sp.full, "axis", fired)
    assert ("axis", "axis.offmap.reim") not in bs.own_reveals(sp.full, "axis", plain)
    allied = sp.know["allied"]
    value = bs.facts(sp.full, "axis")["axis.offmap.reim"]
    assert GAME.disclose(allied, "axis", {"axis.offmap.reim": value}) is not False
    assert bs.facts(allied, "axis")["axis.offmap.reim"] == value
    assert off_map_spotter(allied, "B20.00") == off_map_spotter(sp.full, "B20.00")
    # a value of the wrong shape, or of a Formation of the other side, is not taken
    before = msgspec.json.encode(allied)
    for fact, bad in (("axis.offmap.reim", ["B20.00"]), ("axis.offmap.reim", {"attack": [1]}),
                      ("axis.offmap.cca", {"attack": [], "spot": []})):
        assert not bs._disclose_one(allied, "axis", fact, bad)
    assert msgspec.json.encode(allied) == before
