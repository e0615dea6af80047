"""Conditions of guarded orders (`if CONDITION then ORDER [else ORDER]`, docs/kasserine.md),
evaluated on the writer's own view (every counter is face up in this game):

- `HEX clear`: no enemy unit in HEX (after an attack on it: the defender is gone);
- `HEX held`: one of your units is in HEX;
- `UNIT alive`: the unit is on the map.
"""

from __future__ import annotations

import re

from pbem.core.errors import OrderSyntaxError

_HEX = re.compile(r"^\d{4}$")
RULE = "PBEM-GUARD"


def parse_condition(text: str) -> str:
    """The canonical text of a condition; OrderSyntaxError naming the forms if unknown."""
    w = text.strip().lower().split()
    if len(w) == 2 and _HEX.match(w[0]) and w[1] in ("clear", "held"):
        return f"{w[0]} {w[1]}"
    if len(w) == 2 and w[1] == "alive" and re.match(r"^[a-z0-9][a-z0-9-]*$", w[0]):
        return f"{w[0]} alive"
    raise OrderSyntaxError(f"unknown condition {text.strip()!r} (HEX clear, HEX held, "
                           "UNIT alive)", rule=RULE)


def condition(view, side: str, text: str) -> bool:
    """Evaluate a canonical condition on side's own view."""
    a, what = text.split()
    on_map = [u for u in view.units if u.status == "map"]
    if what == "clear":
        return not any(u.hex == a and u.side != side for u in on_map)
    if what == "held":
        return any(u.hex == a and u.side == side for u in on_map)
    return any(u.id == a for u in on_map)
