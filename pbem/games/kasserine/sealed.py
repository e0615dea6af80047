"""Kasserine in sealed peer mode (docs/sealed.md): the sealed interface of pbem.core.sealed.

What is hidden in Kasserine, and how a sealed game keeps it hidden:

- **Face-down support fire markers** (7.2, 8.2.1b; KAS-G12 default): their values are unseen by
  both players until the step-5 reveal. A sealed game draws them *at* the reveal, in public
  (house option `facedown_draw = "reveal"`), with dice both processors compute (`support.commit_facedown`, `support.reveal`): the same draw
  without replacement from the same unused allotment, since a side draws nothing else while its
  markers lie face down (8.0-e: a combat is resolved completely before anything else). Until
  then no value exists anywhere, so none can leak and none can be chosen: a player cannot pick
  a marker after seeing the other side's, because no marker of either side has a value before
  every commitment step is over. The choices themselves (placing a marker at a step or not)
  are public as the rules have it: each side sees whether the other placed one (8.2.1b).
- **The unused allotment** is public arithmetic (the turn's lowest pool values less the 12.0
  losses and the values spent), so both knowledge states hold it as it is.
- **Standing orders** are the only hidden facts: the core keeps them as facts
  `standing.TOPIC` of their owner, resolves every file with the stores empty (so every
  reaction they would answer is a decision on both processors alike) and writes the owner's
  answer from `standing_answers` (docs/sealed.md section 5c).
- **The attacker's pre-committed step 3, advance and loss** travel in the projection as
  written: they are public in a sealed game (peer mode's processor holds them too; only a
  hosted referee keeps them from the defender). A player who wants them private writes
  `sf ask` and leaves out `advance` and `loss`, and answers each when the game asks.

A sealed game is proposed with the house option `facedown_draw = "reveal"` (`sealed_options`
sets it, and refuses `owner_sees_facedown`, under which the owner sees his values at
placement); the genesis records it, so the full replay of `pbem verify` draws the same way.
"""

from __future__ import annotations

from typing import Any

import msgspec

from pbem.core.errors import PbemError
from pbem.core.game import Decision
from pbem.core.standing import GuardedOrder, format_guarded
from pbem.games.kasserine import combat
from pbem.games.kasserine.board import data_of
from pbem.games.kasserine.options import resolve_options
from pbem.games.kasserine.orders import Order, format_order
from pbem.games.kasserine.state import KasserineState, other, standing_of


def sealed_options(options: dict[str, Any]) -> dict[str, Any]:
    """The house options of a sealed game: facedown_draw = 'reveal' (set when not given);
    PbemError naming the option when the given ones cannot be played sealed."""
    given = dict(options)
    chosen = resolve_options(given)            # ScenarioError on an unknown option or value
    if "facedown_draw" in given and chosen.facedown_draw != "reveal":
        raise PbemError("a sealed game needs the house option facedown_draw = 'reveal' (nobody "
                        "may see a face-down value before the reveal): leave it out, or choose "
                        "--mode peer or --mode hosted")
    if chosen.owner_sees_facedown:
        raise PbemError("the house option owner_sees_facedown cannot be played in a sealed game "
                        "(its face-down values are drawn at the reveal, unseen by both players): "
                        "leave it false, or choose --mode peer or --mode hosted")
    given["facedown_draw"] = "reveal"
    return given


def conceal(state: KasserineState, side: str) -> KasserineState:
    """side's knowledge state of a sealed game: the other side's standing orders unknown (its
    store empty; in a sealed game every store stays empty anyway). Everything else is public:
    with facedown_draw = 'reveal' no marker has a value before its public draw."""
    state.private[other(side)].standing = {}
    return state


def facts(state: KasserineState, side: str) -> dict[str, Any]:
    """side's hidden facts that the game keeps: none (standing orders are kept by the core as
    facts `standing.TOPIC`; markers have no value before their public draw)."""
    return {}


def project(state: KasserineState, side: str, order: Any) -> str:
    """The order as the other side sees it: as written (nothing of a Kasserine order is hidden
    in a sealed game; standing orders are projected by the core)."""
    if isinstance(order, GuardedOrder):
        return format_guarded(order)
    return format_order(order)


def reveals(state: KasserineState, side: str, order: Order) -> list[tuple[str, str]]:
    """The facts an order's resolution opens: none (the step-5 reveal draws in public)."""
    return []


def disclose(state: KasserineState, owner: str, opened: dict[str, Any]) -> None:
    """Write opened facts of owner into a knowledge state: Kasserine has none of its own to
    write (a fact it does not keep is ignored, as the interface requires)."""
    return None


def public(state: KasserineState) -> dict[str, Any]:
    """What both sides of a sealed game know: the whole state but the standing orders (with
    facedown_draw = 'reveal'; under 'placement' the face-down values drawn are in it too, so
    a sealed game needs 'reveal')."""
    out = msgspec.to_builtins(state)
    for priv in out.get("private", {}).values():
        priv.pop("standing", None)
    return out


def standing_answers(state: KasserineState, side: str, decision: Decision) -> list[str] | None:
    """The order lines side's standing orders (its store in state) give for the decision
    pending on it: support steps 2 and 4 (the defender), fortified box, stiff resistance and
    retreat path; None when they do not answer it (asked, or a decision no standing order
    covers: the attacker's step 3 under 'sf ask', advance, loss, displacement)."""
    w, c = state.wait, state.combat
    if w is None or c is None or w.side != side or w.kind != decision.kind:
        return None
    st = standing_of(state.private[side].standing)
    if w.kind == "support":
        if side == state.active:          # step 3 under 'sf ask': the player's own choice
            return None
        answer = combat.standing_support(state, data_of(state), c)
        return None if answer is None else [f"support {'yes' if answer else 'no'}"]
    if not c.tasks:
        return None
    task = c.tasks[0]
    if w.kind == "box":
        return [f"box {st.box}"] if st.box in ("hold", "yield") else None
    if w.kind == "stiff":
        if st.stiff == "never":
            return ["stiff no"]
        if st.stiff == "always":
            return ["stiff yes"]
        if st.stiff == "full-strength":
            u = state.units[task.unit]
            full = u.steps == 2 and data_of(state).units[task.unit].steps == 2
            return [f"stiff {'yes' if full else 'no'}"]
        return None
    if w.kind == "retreat":
        return [f"retreat {task.unit} auto"] if st.retreat == "auto" else None
    return None
