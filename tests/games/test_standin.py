"""Game.standin: the full state a hosted player checks its orders against, built from its view.

The conformance suite (tests/conformance/test_conformance.py::test_standin) checks the
invariants over hundreds of positions with mutated orders; these tests pin the details: what
is copied, what stands in for the hidden facts, and the orders a player can judge from its
view (an enemy-occupied hex, a unit that is not his, a wrong hex, a wrong phase).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import msgspec
import pytest

from fixtures.conformance_checks import HIDDEN_RULES, AnyDice, rule_of, verdict
from fixtures.tinygame import GAME as DASH
from pbem.core.errors import IllegalOrder, OrderSyntaxError, PbemError
from pbem.core.game import Context
from pbem.games.holdfast import GAME as HOLDFAST
from pbem.games.holdfast.data import world
from pbem.games.kasserine import GAME as KASSERINE
from pbem.games.kasserine.state import standing_of
from pbem.protocol.checking import check_orders

DOCS = Path(__file__).resolve().parents[2] / "docs"


def positions(game, scenario: str, seed: int, limit: int, style: str = "random"):
    """(state, side to decide, the bot's lines) at up to `limit` decisions of one bot game."""
    rng = random.Random(seed)
    state = game.setup(scenario, {})
    for _ in range(limit):
        if game.outcome(state) is not None:
            return
        side = game.pending(state)[0].side
        lines = game.bot(state, side, rng, style)
        yield state, side, lines
        dice = AnyDice(rng.randbytes(32))
        for n, line in enumerate(lines):
            if side not in {d.side for d in game.pending(state)}:
                break
            try:
                game.apply(state, side, game.parse_order(line), Context(dice, action=n))
            except IllegalOrder:
                continue


def standin_of(game, state, side):
    """The stand-in from side's view as a hosted player holds it (decoded from JSON)."""
    raw = msgspec.json.decode(msgspec.json.encode(game.view(state, side)))
    return game.standin(raw, side)


def both(game, state, side, lines: list[str]) -> tuple:
    """The verdict of check_orders on the real state, asserted equal on the stand-in."""
    numbered = list(enumerate(lines, start=1))
    real = check_orders(game, state, side, numbered, name="o")
    stand = check_orders(game, standin_of(game, state, side), side, numbered, name="o")
    assert verdict(stand) == verdict(real), (lines, verdict(stand), verdict(real))
    return verdict(real)


def rules(v: tuple) -> list[str]:
    return [rule_of(p) for p in v[0]]


# -- every game -------------------------------------------------------------------------------

@pytest.mark.parametrize("game,scenario",
                         [(DASH, "short"), (HOLDFAST, "race-to-tunis"), (KASSERINE, "historical")],
                         ids=lambda x: getattr(x, "id", x))
def test_struct_and_builtins_give_the_same_standin(game, scenario) -> None:
    """standin accepts the view struct, its builtins and its JSON-decoded form alike, and
    shares nothing with the view it was given."""
    for state, _, _ in positions(game, scenario, 3, 12):
        for side in game.sides:
            v = game.view(state, side)
            want = msgspec.to_builtins(game.standin(v, side))
            assert msgspec.to_builtins(game.standin(msgspec.to_builtins(v), side)) == want
            assert msgspec.to_builtins(standin_of(game, state, side)) == want
            st = game.standin(v, side)
            assert msgspec.to_builtins(game.view(st, side)) == msgspec.to_builtins(v)
            before = msgspec.json.encode(v)
            msgspec.json.encode(st)
            assert msgspec.json.encode(v) == before


@pytest.mark.parametrize("game", [HOLDFAST, KASSERINE], ids=lambda g: g.id)
def test_a_view_of_the_other_side_is_refused(game) -> None:
    state = game.setup(next(iter(game.scenarios())), {})
    a, b = game.sides
    with pytest.raises(PbemError, match="view"):
        game.standin(game.view(state, a), b)


def test_docs_list_exactly_the_rules_the_conformance_check_skips() -> None:
    """docs/<game>.md 'What a hosted player's check cannot see' names the HIDDEN_RULES ids."""
    for gid in ("holdfast", "kasserine", "bcs"):
        text = (DOCS / f"{gid}.md").read_text(encoding="utf-8")
        m = re.search(r"^## What a hosted player's check cannot see\n(.*?)(?=^## |\Z)", text,
                      re.M | re.S)
        assert m, f"docs/{gid}.md lacks the section"
        listed = set(re.findall(r"\*\*\[([A-Z][A-Za-z0-9.\-]+)\]\*\*", m.group(1)))
        assert listed == set(HIDDEN_RULES[gid]), (gid, listed)


# -- Dash -------------------------------------------------------------------------------------

def test_dash_hidden_codeword_stands_in_as_a_non_word() -> None:
    state = DASH.setup("short", {})
    DASH.apply(state, "red", DASH.parse_order("pick bravowolf"), Context(AnyDice(b"k" * 32)))
    st = DASH.standin(DASH.view(state, "blue"), "blue")
    assert st.private["red"].codeword == "?" and st.private["blue"].codeword == ""
    assert rules(both(DASH, state, "blue", ["pick alphawolf"])) == ["DASH-3"]  # not blue's word
    assert rules(both(DASH, state, "blue", ["advance"])) == ["DASH-3"]         # wrong phase
    st = DASH.standin(DASH.view(state, "red"), "red")
    assert st.private["red"].codeword == "bravowolf" and st.private["blue"].codeword == ""


def test_dash_standin_equals_the_state_but_the_hidden_codeword() -> None:
    for state, _, _ in positions(DASH, "long", 5, 200):
        for side in DASH.sides:
            st = DASH.standin(DASH.view(state, side), side)
            other = "blue" if side == "red" else "red"
            real = msgspec.to_builtins(state)
            if not state.revealed and state.private[other].codeword:
                real["private"][other]["codeword"] = "?"
            assert msgspec.to_builtins(st) == real


# -- Holdfast ---------------------------------------------------------------------------------

def _holdfast_positions():
    """Positions of short and long Holdfast bot games, both styles."""
    for seed in range(4):
        yield from positions(HOLDFAST, "race-to-tunis", 20 + seed, 40,
                             "random" if seed % 2 else "heuristic")
    yield from positions(HOLDFAST, "campaign", 25, 60)


def test_holdfast_standin_copies_the_visible_and_replaces_enemy_blocks() -> None:
    checked = 0
    for state, _, _ in _holdfast_positions():
        for side in HOLDFAST.sides:
            foe = "axis" if side == "allied" else "allied"
            st = standin_of(HOLDFAST, state, side)
            pub, real = msgspec.to_builtins(st.public), msgspec.to_builtins(state.public)
            assert pub.pop("seq") <= real.pop("seq")      # a placement counter: order only
            assert pub == real
            mine = msgspec.to_builtins(st.private[side])
            want = msgspec.to_builtins(state.private[side])
            for d in (mine, want):
                for u in d["units"].values():
                    u.pop("revealed")                      # for secrets() only
            assert mine == want
            blocks = st.private[foe].units
            assert sorted(u.hex for u in blocks.values()) == sorted(
                u.hex for u in state.private[foe].units.values() if u.where == "map")
            w = world(state.public.scenario)
            for uid, u in blocks.items():
                assert uid.startswith("?" + foe) and u.where == "map"
                assert u.sp == w.units[uid].max_sp and w.units[uid].side == foe
            assert not st.private[foe].minor_ports and st.private[foe].pending_hits is None
            checked += 1
    assert checked > 100


def test_holdfast_standin_ids_are_no_unit_ids() -> None:
    """'?axis-1' cannot collide with a unit id, cannot be written in an order, and the scenario
    answers it with a generic block of its side without listing it."""
    w = world("race-to-tunis")
    assert not [u for u in w.units if u.startswith("?")]
    spec = w.units["?axis-7"]
    assert spec.side == "axis" and spec.type != "support" and spec.drc >= 1
    assert "?axis-7" not in w.units and "?axis-7" not in dict(w.units)
    assert (spec.type, spec.drc, spec.th, spec.mp) == ("infantry", 3, 5, 5)
    assert w.units["?allied-1"].side == "allied"
    with pytest.raises(KeyError):
        w.units["nosuchunit"]
    with pytest.raises(OrderSyntaxError):
        HOLDFAST.parse_order("move ?axis-1 0101")
    with pytest.raises(OrderSyntaxError):
        HOLDFAST.parse_order("attack 0101 with ?axis-1")


def _turn_positions():
    """Holdfast player-turn positions (phase 'turn')."""
    for state, side, lines in _holdfast_positions():
        if state.public.phase == "turn":
            yield state, side, lines


def test_holdfast_visibly_illegal_orders_are_illegal_on_the_standin() -> None:
    """Orders illegal for what the player sees: the same refusal on the stand-in."""
    seen: dict[str, int] = {}
    for state, side, lines in _turn_positions():
        w = world(state.public.scenario)
        foe = "axis" if side == "allied" else "allied"
        mine = state.private[side].units
        theirs = state.private[foe].units
        foe_hexes = {u.hex for u in theirs.values() if u.where == "map"}
        # a move into, or through, an enemy block
        for uid, u in sorted(mine.items()):
            if u.where != "map" or u.moved or w.units[uid].type == "support":
                continue
            for h in w.neighbours(u.hex):
                if h in foe_hexes:
                    beyond = next(iter(w.neighbours(h)))
                    for path in (h, f"{h}-{beyond}"):
                        v = both(HOLDFAST, state, side, lines[:-1] + [f"move {uid} {path}"])
                        seen[f"enemy hex {rules(v)}"] = seen.get(f"enemy hex {rules(v)}", 0) + 1
                    break
        # a unit that is not his: an enemy unit's real id, on the map or not
        enemy_id = sorted(theirs)[len(state.private[side].units) % len(theirs)]
        target = next(iter(foe_hexes), "0101")
        for line in (f"move {enemy_id} {target}", f"buy {enemy_id} 1",
                     f"attack {target} with {enemy_id}", f"place {enemy_id} {target}"):
            v = both(HOLDFAST, state, side, [line])
            seen[f"not his {line.split()[0]} {rules(v)}"] = 1
        # a reinforcement placed in the other side's entry hex, and a wrong-phase order
        due = [uid for uid, u in sorted(mine.items()) if u.where == "track"
               and u.entry_turn <= state.public.turn and w.units[uid].type != "support"]
        if due and state.public.step == "place":
            wrong = w.entry["german"][0] if side == "allied" else w.entry["allied"][0]
            v = both(HOLDFAST, state, side, [f"place {due[0]} {wrong}"])
            seen[f"wrong hex {rules(v)}"] = 1
        v = both(HOLDFAST, state, side, ["allocate a,b"])
        seen[f"wrong phase {rules(v)}"] = 1
        if lines[-1].startswith("attack"):        # an attack on a stand-in block checks too
            v = both(HOLDFAST, state, side, lines + ["end"])
            assert v == ((), (len(lines) + 1,))   # up to its dice, like the real one
            seen["attack"] = 1
    assert "enemy hex ['HF-9.1-b']" in seen
    assert "not his move ['HF-9.1-b']" in seen and "not his attack ['HF-9.4-b']" in seen
    assert "not his buy ['ERR-HF-8.2-a']" in seen and "not his place ['HF-8.1-a']" in seen
    assert any(k.startswith("wrong hex ['HF-8.1-") for k in seen)
    assert "wrong phase ['HF-9.4-g']" in seen and "attack" in seen


def test_holdfast_view_without_the_new_fields_still_stands_in() -> None:
    """A view written before options, claims and bookkeeping were in it: defaults apply."""
    state = next(s for s, _, _ in _turn_positions())
    raw = msgspec.to_builtins(HOLDFAST.view(state, "allied"))
    for k in ("options", "minor_ports"):
        raw.pop(k)
    for u in raw["units"]:
        for k in ("placed", "bought", "reentry_turn"):
            u.pop(k)
    st = HOLDFAST.standin(raw, "allied")
    assert st.public.options == {k: v.default for k, v in HOLDFAST.options().items()}


# -- Kasserine --------------------------------------------------------------------------------

def _kasserine_positions():
    for seed, style in ((31, "random"), (32, "heuristic")):
        yield from positions(KASSERINE, "historical", seed, 150, style)


def test_kasserine_standin_equals_the_state_but_hidden_markers_and_standing_orders() -> None:
    checked = 0
    for state, _, _ in _kasserine_positions():
        for side in KASSERINE.sides:
            foe = "us" if side == "axis" else "axis"
            st = standin_of(KASSERINE, state, side)
            got, want = msgspec.to_builtins(st), msgspec.to_builtins(state)
            # markers: the same counts, the same values (face down or not: hidden)
            for s in KASSERINE.sides:
                g, r = got["private"].pop(s), want["private"].pop(s)
                assert len(g["unused"]) == len(r["unused"]), (s, side)
                assert len(g["facedown"]) == len(r["facedown"])
                assert sorted(m["value"] for m in g["unused"] + g["facedown"]) == sorted(
                    m["value"] for m in r["unused"] + r["facedown"])
                assert all(m["id"].startswith("?") for m in g["unused"] + g["facedown"])
                if s == side:
                    # the store rebuilt from the view reads the same (pbem.core.standing)
                    assert standing_of(g["standing"]) == standing_of(r["standing"])
                    if state.options.owner_sees_facedown:
                        assert g["facedown"] == r["facedown"]
                else:
                    assert g["standing"] == {"support": "never"}
            if side != state.active and state.combat is not None:     # the attacker's intentions
                for k in ("sf", "sf_ask", "advance", "loss"):
                    got["combat"].pop(k), want["combat"].pop(k)
            got.pop("seq"), want.pop("seq")
            for u in got["units"].values():
                assert u.pop("mp") == 0
            for uid, u in want["units"].items():
                assert u.pop("mp") == 0 or u["moved"] or u["mobile_moved"], uid
            assert got == want
            checked += 1
    assert checked > 200


def test_kasserine_visibly_illegal_orders_are_illegal_on_the_standin() -> None:
    """Orders illegal for what the player sees (all counters are face up, the bombarded hexes,
    the units attacked this phase, the barred units, his own markers): same refusal."""
    from pbem.games.kasserine.board import data_of

    seen: set[str] = set()
    for state, side, lines in _kasserine_positions():
        if state.wait is not None or state.result is not None:
            continue
        data = data_of(state)
        grid = data.map.grid
        foe = "us" if side == "axis" else "axis"
        enemy = [(uid, u) for uid, u in state.units.items() if u.side == foe and u.status == "map"]
        mine = [(uid, u) for uid, u in state.units.items() if u.side == side and u.status == "map"]
        if not enemy or not mine:
            continue
        pairs = [(a, b) for a in mine for b in enemy if grid.adjacent(a[1].hex, b[1].hex)]
        (uid, u), (e_uid, e) = pairs[0] if pairs else (mine[0], enemy[0])
        cases = {
            "not his": f"move {e_uid} {grid.neighbours(e.hex)[0]}",
            "enemy hex": f"move {uid} {e.hex}",
            "attack with enemy": f"attack {e.hex} with {e_uid}",
            "own hex attack": f"attack {u.hex} with {uid}",
            "bombard": f"bombard {e.hex} 2",
            "too many markers": f"attack {e.hex} with {uid} sf 2",
        }
        for name, line in cases.items():
            v = both(KASSERINE, state, side, [line])
            seen.add(f"{name} {state.phase} {rules(v)}")
        for t in state.targets:            # attacked already this phase (8.0-c)
            if state.units[t].status == "map":
                v = both(KASSERINE, state, side, [f"bombard {state.units[t].hex} 1"])
                seen.add(f"target {rules(v)}")
    wanted = ["not his movement ['KAS-5.2-a']", "enemy hex movement ['KAS-5.2-e']",
              "attack with enemy combat ['KAS-8.0-a']", "own hex attack combat ['KAS-8.0-d']",
              "bombard movement ['KAS-8.1-a']"]
    for w in wanted:
        assert w in seen, (w, sorted(seen))
    assert any(s.startswith("too many markers combat ['KAS-7.2-a']") for s in seen), sorted(seen)


def test_kasserine_view_without_the_new_fields_still_stands_in() -> None:
    """A view written before scenario, options, targets, bombardments and the mobile-move and
    barred marks were in it: the first scenario and the defaults apply."""
    state = KASSERINE.setup("historical", {})
    raw = msgspec.to_builtins(KASSERINE.view(state, "us"))
    for k in ("scenario", "options", "targets", "bombarded"):
        raw.pop(k)
    for u in raw["units"]:
        u.pop("mobile_moved"), u.pop("barred")
    st = KASSERINE.standin(raw, "us")
    assert st.scenario == "historical" and st.options == state.options
    assert msgspec.to_builtins(KASSERINE.view(st, "us")) == msgspec.to_builtins(
        KASSERINE.view(state, "us"))


def test_kasserine_enemy_markers_follow_the_public_arithmetic() -> None:
    """The enemy's unused markers: its allotment less the 12.0 losses, the spent values and
    the markers face down on the current combat; the stand-in has exactly as many."""
    found = 0
    for state, _, _ in _kasserine_positions():
        for side in KASSERINE.sides:
            foe = "us" if side == "axis" else "axis"
            st = standin_of(KASSERINE, state, side)
            assert st.allotment == state.allotment
            assert len(st.private[foe].unused) == len(state.private[foe].unused)
            found += bool(state.private[foe].facedown)
    assert found
