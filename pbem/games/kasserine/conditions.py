"""Conditions of guarded orders (`if CONDITION then ORDER [else ORDER]`, docs/kasserine.md),
evaluated on the writer's own view (every counter is face up in this game):

- `HEX clear`: no enemy unit in HEX (after an attack on it: the defender is gone);
- `HEX held`: one of your units is in HEX;
- `UNIT alive`: the unit is on the map.
"""

from __future__ import annotations

from pbem.core.standing import parse_place_condition


def parse_condition(text: str) -> str:
    """The canonical text of a condition; OrderSyntaxError naming the forms if unknown."""
    return parse_place_condition(text)


def condition(view, side: str, text: str) -> bool:
    """Evaluate a canonical condition on side's own view."""
    a, what = text.split()
    on_map = [u for u in view.units if u.status == "map"]
    if what == "clear":
        return not any(u.hex == a and u.side != side for u in on_map)
    if what == "held":
        return any(u.hex == a and u.side == side for u in on_map)
    return any(u.id == a for u in on_map)
