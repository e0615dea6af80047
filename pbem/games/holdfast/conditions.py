"""Conditions of guarded orders (`if CONDITION then ORDER [else ORDER]`, docs/holdfast.md),
evaluated on the writer's own view (so they read only what that side may know):

- `HEX clear`: no enemy block in HEX;
- `HEX held`: one of your units is in HEX;
- `UNIT alive`: your unit is on the map with at least 1 SP.
"""

from __future__ import annotations

from pbem.core.standing import parse_place_condition


def parse_condition(text: str) -> str:
    """The canonical text of a condition; OrderSyntaxError naming the forms if unknown."""
    return parse_place_condition(text)


def condition(view, side: str, text: str) -> bool:
    """Evaluate a canonical condition on side's own view."""
    a, what = text.split()
    if what == "clear":
        return not any(b.hex == a for b in view.blocks)
    if what == "held":
        return any(u.hex == a and u.where == "map" for u in view.units)
    return any(u.id == a and u.where == "map" and u.sp > 0 for u in view.units)
