"""Conditions of guarded orders (`if CONDITION then ORDER [else ORDER]`, docs/bcs-engine.md),
evaluated on the writer's own view:

- `snafu pass`, `snafu partial`, `snafu fail`: the SNAFU result of the writer's Activation under
  way; `snafu partial+`: Partial or Pass;
- `second activation`: the Activation under way is a Second Activation (the roll succeeded);
- `HEX clear`: no enemy unit seen in HEX; `HEX held`: one of the writer's units is in HEX;
- `UNIT alive`: the writer's unit is in play.
"""

from __future__ import annotations

import re

from pbem.core.errors import OrderSyntaxError
from pbem.games.bcs.view import BcsView

FORMS = "snafu pass|partial|partial+|fail, second activation, HEX clear, HEX held, UNIT alive"
HEX = re.compile(r"^[a-z]\d{1,2}\.\d{2}$")


def parse_condition(text: str) -> str:
    """The canonical text of a condition; OrderSyntaxError naming the forms if unknown."""
    w = text.strip().lower().split()
    if len(w) == 2 and w[0] == "snafu" and w[1] in ("pass", "partial", "partial+", "fail"):
        return f"snafu {w[1]}"
    if w == ["second", "activation"]:
        return "second activation"
    if len(w) == 2 and HEX.match(w[0]) and w[1] in ("clear", "held"):
        return f"{w[0][0].upper()}{w[0][1:]} {w[1]}"
    if len(w) == 2 and w[1] == "alive" and re.match(r"^[a-z0-9][a-z0-9-]*$", w[0]):
        return f"{w[0]} alive"
    raise OrderSyntaxError(f"unknown condition {text.strip()!r} ({FORMS})", rule="PBEM-GUARD")


def public(text: str) -> bool:
    """Whether a canonical condition reads only what both sides know, so that a sealed game's
    two processors choose the same branch: the SNAFU result and the Second Activation roll
    (public dice), and which hexes hold units (slots and hexes are public); not `UNIT alive`,
    which names a unit that may stand hidden under another (1.5)."""
    return not text.endswith(" alive")


def condition(view: BcsView, side: str, text: str) -> bool:
    """Evaluate a canonical condition on side's own view."""
    a, b = text.split()
    act = view.activation if view.activation is not None and view.activation.side == side \
        else None
    if a == "snafu":
        if act is None or act.recovery:
            return False
        return act.snafu in (("Partial", "Pass") if b == "partial+" else (b.capitalize(),))
    if a == "second":
        return act is not None and act.second
    if b == "clear":
        return not any(s.hex == a and s.units for s in view.enemy)
    if b == "held":
        return any(p.hex == a and p.status == "map" and p.kind == "unit" for p in view.own)
    return any(p.id == a and p.status != "dead" for p in view.own)
