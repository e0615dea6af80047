"""The order notation: canonical round trips and syntax errors."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from pbem.core.errors import OrderSyntaxError
from pbem.games.kasserine import GAME

CANONICAL = [
    "move s501 3214 3215",
    "enter pz7-2 3918 3818",
    "end",
    "bombard 3313 2",
    "bombard 3313 1 loss s501",
    "attack 3313 with s501,pz7-2",
    "attack 3313 with s501 sf 2 advance s501:1,pz7-2 loss pz7-2",
    "attack 3313 with s501 advance none",
    "attack 3313 with s501 sf ask",
    "attack 3313 with s501,pz7-2 sf 0+ask advance none loss s501",
    "displace td701 3511",
    "standing displace ask",
    "standing displace auto",
    "support yes",
    "support no",
    "box hold",
    "box yield",
    "stiff yes",
    "stiff no",
    "retreat inf3-26 3412 3512",
    "retreat inf3-26 auto",
    "advance s501:2",
    "advance none",
    "loss s501",
    "standing support match min -2",
    "standing support two",
    "standing stiff full-strength",
    "standing retreat auto",
    "standing box ask",
]


@pytest.mark.parametrize("line", CANONICAL)
def test_round_trip(line: str) -> None:
    assert GAME.format_order(GAME.parse_order(line)) == line


def test_canonicalises() -> None:
    assert GAME.format_order(GAME.parse_order("  ATTACK 3313  with S501  SF 1 ")) == \
        "attack 3313 with s501 sf 1"
    assert GAME.format_order(GAME.parse_order("standing support one min 3")) == \
        "standing support one min +3"
    assert GAME.format_order(GAME.parse_order("attack 3313 with s501 sf 1+ASK")) == \
        "attack 3313 with s501 sf ask"


@pytest.mark.parametrize("line", [
    "", "fly s501 3214", "move s501", "move s501 321", "bombard 3313 3", "bombard 3313",
    "attack 3313 s501", "attack 3313 with s501 sf 3", "attack 3313 with s501 sf 1 sf 1",
    "support maybe", "retreat inf3-26 1 2", "retreat inf3-26 3412 3512 3612 3712",
    "advance s501:4", "standing support sometimes", "standing retreat auto now", "end now",
    "attack 3313 with s501 sf 2+ask", "attack 3313 with s501 sf asks", "displace td701",
    "displace td701 3511 3512", "displace td701 auto", "standing displace never",
])
def test_syntax_errors(line: str) -> None:
    with pytest.raises(OrderSyntaxError) as e:
        GAME.parse_order(line)
    # standing orders are the core's notation (pbem.core.standing), the rest the game's
    assert e.value.rule == ("PBEM-STANDING" if line.startswith("standing") else "KAS-ORDERS")


hexes = st.integers(min_value=101, max_value=3926).map(lambda n: f"{n:04d}")
units = st.sampled_from(["s501", "pz7-2", "inf3-26", "rgr1", "cinf-1"])


@given(units, st.lists(hexes, min_size=1, max_size=8))
def test_move_round_trip(unit: str, path: list[str]) -> None:
    line = f"move {unit} {' '.join(path)}"
    assert GAME.format_order(GAME.parse_order(line)) == line


@given(hexes, st.lists(units, min_size=1, max_size=4, unique=True), st.integers(0, 2),
       st.booleans())
def test_attack_round_trip(target: str, attackers: list[str], sf: int, adv: bool) -> None:
    order = GAME.parse_order(f"attack {target} with {','.join(attackers)} sf {sf}"
                             + (f" advance {attackers[0]}:1" if adv else ""))
    text = GAME.format_order(order)
    assert GAME.format_order(GAME.parse_order(text)) == text
