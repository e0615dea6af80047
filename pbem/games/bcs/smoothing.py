"""Series Optional 9 Activation Smoothing (BCS-OPT9-a, -b), the house option
``activation_smoothing`` (off by default): the side with more Formations to activate (Side-A)
draws a chit after each of its Formation Activations, and a 2 lets it activate a second
Formation at once, so its extra Activations come at random times in the turn instead of all at
its end (docs/bcs-engine.md, "Activation Smoothing as built").

The cup (``BcsState.smoothing``, public) is filled when the turn's Activation Phase begins:
turn 1 once the Set-up decision and the Assignment Phase are over, later turns once the First
Player has chosen (``fill``). The draw is made at step (i) of a Side-A Formation's Activation,
after its Second Activation if it has one (``after``): a public roll of the core's dice (one
die with as many faces as chits in the cup), made only when the cup holds both kinds.
"""

from __future__ import annotations

from pbem.core.game import Context
from pbem.games.bcs.state import SIDES, BcsState, Smoothing, other

OPTION = "activation_smoothing"


def cup(state: BcsState) -> Smoothing | None:
    """The chit cup of a game played with the option, else None."""
    return state.smoothing if isinstance(state.smoothing, Smoothing) else None


def fill(state: BcsState) -> None:
    """BCS-OPT9-a: at the start of the turn's Activation Phase, one chit per Formation the side
    with fewer has to activate; (difference) of them 2s (at most every chit), the rest 1s.
    Formations that may not be selected (Done, set up Done on turn 1 included, 3.4b; HQ dead;
    arriving with every Entry hex held) are not counted. Equal counts, or a side with none:
    no cup this turn (every chit would be a 1 or none would be drawn)."""
    if cup(state) is None:
        return
    from pbem.games.bcs.sequence import can_activate

    n = {s: len(can_activate(state, s)) for s in SIDES}
    a = max(SIDES, key=lambda s: n[s])
    b = other(a)
    if n[a] == n[b] or n[b] == 0:
        state.smoothing = Smoothing()
        return
    twos = min(n[a] - n[b], n[b])
    state.smoothing = Smoothing(side=a, twos=twos, ones=n[b] - twos)


def describe(state: BcsState) -> str:
    """The cup as a log line tells it ("" without the option)."""
    c = cup(state)
    if c is None:
        return ""
    if not c.side:
        return "Activation Smoothing: no chit cup this turn (the sides have as many " \
               "Formations to activate, or one has none)"
    return f"Activation Smoothing: {c.side} has more Formations to activate; the cup holds " \
           f"{_chits(c)}"


def _chits(c: Smoothing) -> str:
    if not c.twos + c.ones:
        return "no chit"
    return f"{c.twos} chit{'' if c.twos == 1 else 's'} marked 2 and {c.ones} marked 1"


def after(state: BcsState, side: str, a_left: bool, b_left: bool, ctx: Context) -> bool:
    """BCS-OPT9-b, at step (i) of side's Formation Activation (after its Second Activation, if
    any): True when side activates a second Formation at once (a 2 drawn). Side-A draws one chit
    when the cup is not empty and both sides still have a Formation to activate (a_left: side
    has another, b_left: the other side has one); after the second Formation of a 2 there is no
    draw and play goes to Side-B. The other side never draws."""
    c = cup(state)
    if c is None or not c.side or side != c.side:
        return False
    if c.again:
        c.again = False
        ctx.log(f"Activation Smoothing: {side}'s second Formation has activated: no draw, "
                f"play passes")
        return False
    if not c.twos + c.ones or not a_left or not b_left:
        return False
    if c.twos and c.ones:
        die = ctx.roll(c.twos + c.ones, f"Activation Smoothing: {side} draws a chit "
                                        f"({_chits(c)})")
        chit = 2 if die <= c.twos else 1
    else:
        chit = 2 if c.twos else 1
    if chit == 2:
        c.twos -= 1
    else:
        c.ones -= 1
    left = f"{_chits(c)} left"
    if chit == 2:
        c.again = True
        ctx.log(f"Activation Smoothing: {side} draws a 2 and activates a second Formation at "
                f"once ({left})")
        return True
    ctx.log(f"Activation Smoothing: {side} draws a 1: {other(side)} activates next ({left})")
    return False


def end_turn(state: BcsState) -> None:
    """The Admin Phase: chits left in the cup go (the next turn's cup is filled afresh)."""
    if cup(state) is not None:
        state.smoothing = Smoothing()
