"""Issue 11 item 7: the combat log says why an attack rolled the dice it rolled and where the
hits went, in both sides' reports, and only what both sides may see."""

from __future__ import annotations

import random
import re

import pytest

from pbem.core.dice import KeyedDice
from pbem.core.game import ALL, Context
from pbem.core.options import bot_choices
from pbem.core.registry import find_game
from pbem.core.rulecases import Case, run_case
from pbem.games.holdfast.rulecases import HOOKS
from pbem.reports import render_text
from pbem.reports.context import ReportContext, visible_events, visible_rolls


def _reports(game, state, events, rolls):
    """Both sides' text reports of one step."""
    out = {}
    for side in game.sides:
        ctx = ReportContext(model=game.report(state, side), pending=list(game.pending(state)),
                            answer=[], events=visible_events(events, side),
                            rolls=visible_rolls(rolls, side), game_id="0" * 32, seq=1,
                            file_name="x.pbem", file_hash="0" * 64, fingerprints={})
        out[side] = render_text(ctx)
    return out


def _attack(position, order, dice):
    run = run_case(HOOKS, Case(id="x", position={"units": position}, orders=[order], dice=dice))
    texts = [e.text for e in run.events]
    assert all(e.visible_to == ALL for e in run.events if e.kind == "combat")
    return run, texts


def _count(rolls, what):
    return sum(1 for r in rolls if what in r.purpose)


def test_holdfast_attack_dice_terrain_and_hexside_HF_2_d():
    """HF-2-d, HF-TEC-c: rough and an escarpment each take a die, and the log says so."""
    run, texts = _attack([{"id": "inf1", "hex": "0506"}, {"id": "inf2", "hex": "0405"},
                          {"id": "ger1", "hex": "0505"}], "attack 0505 with inf1", [1, 1, 1, 1])
    line = next(t for t in texts if "attack dice:" in t)
    assert ("allied rolls 1 attack dice: inf1 1 (DRC 3, rough defender hex -1, attacking across "
            "escarpment -1)") in line
    assert _count(run.rolls, "attack dice") == 1
    assert any("axis rolls 3 defence dice (DRC 3)" in t for t in texts)
    assert _count(run.rolls, "defence dice") == 3
    for side, text in _reports(HOOKS.game, run.state, run.events, run.rolls).items():
        assert "rough defender hex -1" in " ".join(text.split()), side


def test_holdfast_defence_dice_town_and_port_HF_TEC_e():
    """HF-TEC-d/e: a town adds a defence die, a port a separate die at +1; hits are explained."""
    run, texts = _attack([{"id": "inf1", "hex": "0903"}, {"id": "ger1", "hex": "1003"}],
                         "attack 1003 with inf1", [1, 1, 1, 1, 1, 1, 1, 4])
    assert any("axis rolls 4 defence dice (DRC 3, town +1); bonus dice: 1 port die at +1" in t
               for t in texts)
    assert _count(run.rolls, "defence dice") == 4 and _count(run.rolls, "bonus die") == 1
    assert any("a die at or above the defender's TH 5 hits: 1 1 1 -> 0 hit(s) on ger1" in t
               for t in texts)
    assert any(t.endswith("whose TH it meets and that has SP left: inf1 1 hit(s)")
               for t in texts)


def test_holdfast_bridge_die_goes_to_the_crossing_unit_HF_TEC_h():
    """HF-TEC-h, HF-G12: the bridge die's hit goes to the unit attacking across the bridge."""
    run, texts = _attack([{"id": "inf1", "hex": "0604"}, {"id": "inf2", "hex": "0603"},
                          {"id": "ger1", "hex": "0704"}],
                         "attack 0704 with inf1 inf2 hits inf2,inf1",
                         [1, 1, 1, 1, 1, 1, 5, 1, 1, 4])
    assert any("1 bridge hexside die at +1 (hits only a unit attacking across it)" in t
               for t in texts)
    alloc = next(t for t in texts if "bridge dice first" in t)
    assert "bridge dice only to inf1 (attacking across the bridge)" in alloc
    assert alloc.endswith(": inf2 1 hit(s), inf1 1 hit(s)")


def test_holdfast_support_dice_explained_HF_9_4_b():
    """HF-9.4-b, HF-4: leader and Kampfgruppe add a die each, air support a separate die."""
    g = find_game("holdfast")
    state = g.setup("race-to-tunis", bot_choices(g.options()))
    rng = random.Random(3)
    seen = []
    for _ in range(200):
        if g.outcome(state) is not None or len(seen) >= 3:
            break
        side = g.pending(state)[0].side
        for n, line in enumerate(g.bot(state, side, rng, "heuristic")):
            if side not in {d.side for d in g.pending(state)}:
                break
            ctx = Context(KeyedDice(rng.randbytes(32)), n)
            g.apply(state, side, g.parse_order(line), ctx)
            if line.startswith("attack"):
                seen.append((line, ctx))
    assert seen, "the bots made no attack"
    for line, ctx in seen:
        text = next(e.text for e in ctx.events if "attack dice:" in e.text)
        n = int(re.search(r"rolls (\d+) attack dice", text).group(1))
        assert n == _count(ctx.rolls, "attack dice"), (line, text)
        terms = re.findall(r"(?:^|; )([a-z0-9-]+) (\d+) \(DRC", text.split("attack dice: ")[1])
        extra = len(re.findall(r"\+1 die", text))
        assert n == sum(int(k) for _, k in terms) + extra, text
        assert ("separate die" in text) == (_count(ctx.rolls, "air support die") == 1)
    assert any("+1 die" in e.text for _, c in seen for e in c.events)


def test_kasserine_combat_explains_strengths_and_row_KAS_8_2_1():
    """KAS-8.2.1, KAS-8.2.2: the differential is the sum of every unit and marker, the CRT row
    comes from the defender's terrain (best for the defender), one die is rolled; the
    explanation is public, so in both reports."""
    g = find_game("kasserine")
    state = g.setup("historical", bot_choices(g.options()))
    rng = random.Random(3)
    found = []
    for _ in range(300):
        if g.outcome(state) is not None or len(found) >= 2:
            break
        side = g.pending(state)[0].side
        for n, line in enumerate(g.bot(state, side, rng, "heuristic")):
            if side not in {d.side for d in g.pending(state)}:
                break
            ctx = Context(KeyedDice(rng.randbytes(32)), n)
            g.apply(state, side, g.parse_order(line), ctx)
            why = [e for e in ctx.events if e.text.startswith("why: attack ")]
            if why:
                found.append((state, ctx, why[0]))
                reports = _reports(g, state, ctx.events, ctx.rolls)
                for s, text in reports.items():
                    assert "why: attack" in text, s
    assert found, "no ground combat was resolved"
    for _, ctx, ev in found:
        assert ev.visible_to == ALL
        m = re.match(r"why: attack (\d+) = ([^;]*?)(?: \(markers halved[^;]*)?; defense (\d+) = "
                     r"([^;]*?)(?: \(unit doubled[^;]*)?; row (\S+) \((.*)\); one die", ev.text)
        assert m, ev.text
        for total, terms in ((m.group(1), m.group(2)), (m.group(3), m.group(4))):
            parts = [re.search(r"(\d+)(?: \(|$)", t.strip()).group(1) for t in terms.split(" + ")]
            assert int(total) == sum(int(p) for p in parts), ev.text
        assert "the row best for the defender applies" in m.group(6)
        assert sum(1 for r in ctx.rolls if r.purpose.startswith("combat at")) == 1


@pytest.mark.parametrize("name", ["holdfast", "kasserine"])
def test_combat_explanations_leak_nothing_hidden(name):
    """The explanations hold no secret of either side in the other side's reports."""
    g = find_game(name)
    scenario = "race-to-tunis" if name == "holdfast" else "historical"
    state = g.setup(scenario, bot_choices(g.options()))
    rng = random.Random(11)
    for _ in range(120):
        if g.outcome(state) is not None:
            break
        side = g.pending(state)[0].side
        for n, line in enumerate(g.bot(state, side, rng, "heuristic")):
            if side not in {d.side for d in g.pending(state)}:
                break
            ctx = Context(KeyedDice(rng.randbytes(32)), n)
            g.apply(state, side, g.parse_order(line), ctx)
            reports = _reports(g, state, ctx.events, ctx.rolls)
            for viewer in g.sides:
                other = next(s for s in g.sides if s != viewer)
                for secret in g.secrets(state, other):
                    assert not re.search(rf"\b{re.escape(secret)}\b", reports[viewer]), \
                        f"{viewer} sees {other}'s {secret} after {line!r}"
