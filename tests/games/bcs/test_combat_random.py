"""Regular and Shock Attacks and Engagements in random positions of map B with keyed dice: whatever the result, the state
stays legal (no hex with both sides, no overstacked retreat end, steps within the counter, the
Attack and Assist units Finished, the defending hex emptied only by a retreat or by losses, the
Attack unit advancing into it when it survives); the order is legal on the attacker's stand-in
(hosted checking) and both views survive the stand-in round trip."""

from __future__ import annotations

import random
from types import SimpleNamespace

import msgspec
import pytest

from pbem.core.dice import KeyedDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.games.bcs.board import bdata
from pbem.games.bcs.engine import ENGINE
from pbem.games.bcs.orders import parse_order
from pbem.games.bcs.rulecases import HOOKS

ATTACKERS = [("reim", "ii-86-inf", "1-501-tgr"), ("gerhardt", "ii-69-pg", "ii-7-pz"),
             ("stenkhoff", "580-recon", "ii-5-pz"), ("gerhardt", "49-pio", "")]
DEFENDERS = ["drake", "waters", "3-1-arm", "kern", "701-td", "81-cav", "g-1-arm"]


def _position(rng: random.Random):
    grid = bdata().game_map.grid
    fid, unit, assist = rng.choice(ATTACKERS)
    a_hex = f"B{rng.randint(6, 40)}.{rng.randint(6, 28):02d}"
    d_hex = rng.choice(grid.neighbours(a_hex))
    defenders = rng.sample(DEFENDERS, rng.randint(1, 2))
    near = sorted({h for n in grid.neighbours(d_hex) for h in grid.neighbours(n)} - {a_hex})
    hq_hex = rng.choice(near + [f"B{rng.randint(6, 40)}.{rng.randint(6, 28):02d}"] * 4)
    if hq_hex == a_hex:
        hq_hex = d_hex
    units = [{"id": f"{fid}-hq", "hex": "B49.17"}, {"id": unit, "hex": a_hex},
             {"id": "cca-hq", "hex": hq_hex}]
    units += [{"id": d, "hex": d_hex, "face": rng.choice(["move", "deployed"])}
              for d in defenders]
    if assist and rng.random() < 0.5:
        units.append({"id": assist, "hex": a_hex})
    else:
        assist = ""
    position = {"units": units, "active": fid, "objs": [d_hex],
                "formations": {"cca": {"prepared_defense": rng.random() < 0.3}}}
    if assist and rng.random() < 0.4:
        return position, f"engage {d_hex} with {assist}", assist, "", d_hex, defenders
    if bdata().units[unit].move.mclass == "tac" and rng.random() < 0.5:
        return position, f"shock {d_hex} with {unit}", unit, "", d_hex, defenders
    order = f"attack {d_hex} with {unit}" + (f" assist {assist}" if assist else "")
    return position, order, unit, assist, d_hex, defenders


@pytest.mark.parametrize("seed", range(60))
def test_attack_leaves_a_legal_state(seed):
    """One legal Regular or Shock Attack or Engagement drawn at random, resolved with keyed
    dice, leaves a legal state."""
    rng = random.Random(seed)
    for _ in range(20):
        position, order, unit, assist, d_hex, defenders = _position(rng)
        state = HOOKS.build(SimpleNamespace(position=position))
        side = state.activation.side
        shadow = ENGINE.standin(ENGINE.view(state, side), side)
        ctx = Context(KeyedDice(seed.to_bytes(8, "big")), action=0)
        try:
            ENGINE.apply(state, side, parse_order(order), ctx)
        except IllegalOrder:
            continue
        # a hosted player's check: the same order is legal on the attacker's stand-in
        ENGINE.apply(shadow, side, parse_order(order), Context(KeyedDice(b"x" * 8), action=0))
        break
    else:
        pytest.skip("no legal attack drawn")
    d = bdata()
    sides: dict[str, set[str]] = {}
    count: dict[str, int] = {}
    for p in state.pieces.values():
        if p.status == "map":
            sides.setdefault(p.hex, set()).add(p.side)
            if p.kind == "unit":
                count[p.hex] = count.get(p.hex, 0) + 1
                assert 1 <= p.steps <= d.units[p.id].steps, p
        if p.status == "dead":
            assert p.hex == ""
    assert all(len(s) == 1 for s in sides.values()), sides
    assert all(n <= 2 for n in count.values()), count
    attacker = state.pieces[unit]
    kind = order.split()[0]
    fires = kind in ("shock", "engage")
    assert attacker.status == "dead" or (attacker.fire_events == 1 if fires else attacker.finished)
    if assist:
        assert state.pieces[assist].finished
    still = [state.pieces[x] for x in defenders
             if state.pieces[x].status == "map" and state.pieces[x].hex == d_hex]
    texts = " | ".join(e.text for e in ctx.events)
    if still:
        assert all(state.pieces[x].hex == d_hex for x in defenders
                   if state.pieces[x].status == "map"), texts   # a stack retreats together
    elif attacker.status == "map" and kind != "engage":
        assert attacker.hex == d_hex or "cca-hq" in [p.id for p in state.pieces.values()
                                                    if p.hex == d_hex], texts
    assert state.activation.attacked == ([d_hex] if kind == "attack" else [])
    assert state.activation.shocked == (kind == "shock")
    assert state.activation.engaged == (kind == "engage")
    for viewer in ENGINE.sides:
        view = ENGINE.view(state, viewer)
        assert ENGINE.view(ENGINE.standin(msgspec.to_builtins(view), viewer), viewer) == view
