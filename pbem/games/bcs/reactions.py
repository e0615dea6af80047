"""Reactions of the inactive player (issue 19): every owner's choice the rules give a side while
the other side's order is resolved (7.2g the defending AR unit, 7.2o losses, 7.1e the unit
engaged, and every other topic of ``combat.STANDING``) is answered by the side's standing order
(`standing TOPIC MODE`, the core store) or, when it has none, asked in his next file.

Asking works the same for every topic. The rules read a choice through ``lookup`` (combat.mode
is the one call). Every order runs through ``run``: the state is kept as it was before the
order, and when a choice has no answer (``Ask``) the state is put back, so nothing the order did
stays (Piece.revealed of the units its public events named excepted: the enemy has read them),
and ``BcsState.wait`` records the question with the order, the answers read so far, the dice
already rolled and how many events were already told. ``pending`` then asks the side (a
reaction, its own units in the hex as private detail); his order ``answer TOPIC MODE`` runs the
same order again from the same state with the same answers, the same dice (replayed, not rolled
again) and the events already told left out, so the result is the one a standing order would
have given; the game then goes on (the active side's held orders resume: the core's
continuation). A later choice of the same order may ask again.

Where the rulebook lets the owner place a piece or order his units (9.1f, 7.5a, 7.5f, 7.5k,
10.3d, BbF 1.5d), the rules pass ``lookup`` the choices themselves: they go with the question
(``Reaction.options``, with the unit placed, ``subject``) to the side asked only, his answer may
name one ('answer hq-retreat B13.09'), anything else is refused naming the topic's rule.

The owner's own topics (OWN_TOPICS) are asked the same way: `restack` (5.5d, the excess units
left overstacked at the end of his own Activation: the sets of units he may name) and
`arrival-side` (9.3h, the side of a unit placed at its HQ, a mode kept for that unit only),
`repls` (9.4, the units that take the Replacement Points) and `rebuilt` (9.4c, the hex of a unit
rebuilt from the Dead Pile).
"""

from __future__ import annotations

from typing import Callable

import msgspec

from pbem.core.errors import IllegalOrder
from pbem.core.game import Context, Decision, Event
from pbem.core.standing import answer
from pbem.games.bcs.board import bdata, face
from pbem.games.bcs.state import BcsState, Reaction

#: The rule id each topic's refusals name (a topic not listed names 7.2m: owners apply their
#: losses and retreats).
TOPIC_RULES = {"defense": "BCS-7.2-s2", "losses": "BCS-7.2o", "engaged": "BCS-7.1e",
               "support": "BCS-9.2h", "retreat": "BCS-7.5a-3", "hq-retreat": "BCS-9.1f-2",
               "advance": "BCS-7.4a", "reorder": "BCS-5.5f", "hq-order": "BCS-7.5f-7",
               "trains-retreat": "BCS-10.3d-2", "arrival": "BCS-7.5k", "restack": "BCS-5.5d-3",
               "arrival-side": "BCS-9.3h", "repls": "BCS-9.4b", "rebuilt": "BCS-9.4c-2"}
#: What the question is, in the prompt (a topic not listed is named by its word), addressed to
#: the player asked (the prompt is his question; the other side reads it as what he waits for).
TOPIC_TEXT = {"defense": "the defending Action Rating unit (7.2g)",
              "losses": "how further Combat Table losses are spread (7.2o)",
              "engaged": "the AV unit engaged (7.1e)",
              "support": "the Support unit used (9.2h)",
              "retreat": "where your retreating units go (7.5a, 7.5f)",
              "hq-retreat": "where the displaced HQ goes (9.1f)",
              "advance": "whether the Assist advances with the Attack unit (7.4a)",
              "reorder": "the order of the stack (5.5f)",
              "hq-order": "the order your units are placed by their HQ (7.5f)",
              "trains-retreat": "where the displaced Combat Trains go (10.3d)",
              "arrival": "where your units arriving at their HQ go (7.5k, 9.3a)",
              "restack": "which of your units step back from the overstacked hex (5.5d)",
              "arrival-side": "the side your unit arriving at its HQ is placed on (9.3h)",
              "repls": "which of your units take your Replacement Points (9.4b-9.4f)",
              "rebuilt": "where your unit rebuilt from the Dead Pile is placed (9.4c)"}
DEFAULT_RULE = "BCS-7.2m"
#: The owner's choices of his own Activation's end, of his arrivals and of his Replacements,
#: besides combat.STANDING:
#:   restack:      which excess units of an overstacked hex step back at the end of the
#:                 Activation (5.5d): moved (those that moved in it first, then by id; each back
#:                 the way it came); movement.restack;
#:   arrival-side: the side a unit placed at its HQ in the Reinforcement Phase shows (9.3a, 9.3h):
#:                 move (Move side up) or deployed (Deployed side up where the unit has one and
#:                 the hex allows it); setup.place_at_hq;
#:   repls:        which units take the Replacement Points of the Reinforcement Phase (9.4b-9.4f),
#:                 asked only when he has more candidates of a kind than Repls of it: priority
#:                 (the engine's order) or the units he names ('answer repls 3-1-arm+kern');
#:                 replacements.chosen;
#:   rebuilt:      the hex at or next to its HQ a unit rebuilt from the Dead Pile goes to (9.4c):
#:                 hq | clear (as `arrival`) or the hex he names; replacements.rebuilt_hex.
OWN_TOPICS = {"restack": ("moved",), "arrival-side": ("move", "deployed"),
              "repls": ("priority",), "rebuilt": ("hq", "clear")}
#: Topics whose answer, a mode included, serves only the instance asked (each unit's own side).
PER_INSTANCE = {"arrival-side"}
#: Topics whose own choices (a set of units) are too many to list: any answer goes to the rules,
#: which refuse it naming the rule it breaks (replacements._named).
RULE_CHECKED = {"repls"}


class Ask(Exception):
    """A choice a side has no answer for: the order stops and the side is asked (options: his
    own choices besides the topic's modes, a hex or an order of units; where: the hex
    concerned when it is not the order's)."""

    def __init__(self, side: str, topic: str, options: list[str] | None = None,
                 where: str = "", subject: str = "") -> None:
        super().__init__(f"{side} is asked {topic}")
        self.side = side
        self.topic = topic
        self.options = list(options or [])
        self.where = where
        self.subject = subject


def topics() -> dict[str, tuple[str, ...]]:
    """The topics and their modes (combat.STANDING, read when asked: others add topics, and
    OWN_TOPICS)."""
    from pbem.games.bcs.combat import STANDING
    return {**STANDING, **OWN_TOPICS}


def rule_of(topic: str) -> str:
    """The rule id a topic's refusals name."""
    return TOPIC_RULES.get(topic, DEFAULT_RULE)


def default_store() -> dict[str, str]:
    """A store with every topic set to its first mode (the engine's choice for the owner)."""
    return {t: modes[0] for t, modes in topics().items()}


def lookup(state: BcsState, side: str, topic: str,
           options: Callable[[], list[str]] | None = None, where: str = "",
           subject: str = "") -> str:
    """The mode side chooses for topic in the order being resolved: the answer already given in
    this order, else its standing order; Ask when it has neither (the order stops, it is asked).
    options: the owner's own choices in this instance (the hexes he may place a piece in, the
    orders of his units), offered when he is asked; an answer naming one of them is returned
    for this instance only (``where``, the hex concerned, public; ``subject``, his unit placed
    when each unit is placed apart, told to him only)."""
    run = state.resolving
    key = f"{side} {topic}"
    own = choice_key(key, where, subject)
    if run is not None and options is not None and own in run.answers:
        pick = run.answers[own]
        if pick in topics().get(topic, ()):
            return pick                # a mode answered for this instance only (PER_INSTANCE)
        if pick not in options() and topic not in RULE_CHECKED:
            raise IllegalOrder(f"{topic}: {pick} is not one of the choices", rule=rule_of(topic))
        return pick
    if run is not None and key in run.answers:
        return run.answers[key]
    mode = answer(state.private[side].standing, topic)
    if mode is None:
        raise Ask(side, topic, options() if options is not None else [], where, subject)
    if run is not None:
        run.answers[key] = mode        # kept: a re-run reads the same, whatever he sets later
    return mode


class Replay(Context):
    """The context of an order run again after an answer: its first dice are the ones already
    rolled (not rolled again, not recorded again), its first events the ones already told (not
    told again); the rest go to the real context."""

    def __init__(self, real: Context, rolls: list[int], told: int) -> None:
        super().__init__(real.dice, action=real.action)
        self.real = real
        self.replay = list(rolls)
        self.values: list[int] = []     # every die of this run, replayed or new
        self.told = told

    def roll(self, sides: int, purpose: str, *, visible_to: str = "all") -> int:
        """A die replayed while any is left, else rolled by the real context."""
        i = len(self.values)
        if i < len(self.replay):
            value = self.replay[i]
            if not 1 <= value <= sides:
                raise AssertionError(f"replayed die {value} for a d{sides} ({purpose})")
        else:
            value = self.real.roll(sides, purpose, visible_to=visible_to)
        self.values.append(value)
        return value

    def log(self, text: str, *, visible_to: str = "all", kind: str = "info",
            hexes: tuple[str, ...] = ()) -> None:
        """Record the event; pass it on unless it was already told."""
        self.events.append(Event(text=text, visible_to=visible_to, kind=kind, hexes=hexes))
        if len(self.events) > self.told:
            self.real.log(text, visible_to=visible_to, kind=kind, hexes=hexes)


def _hex_of(order: object) -> str:
    """The hex an order acts on (the defending hex, or where a move ends)."""
    h = getattr(order, "hex", "")
    if h:
        return str(h)
    path = getattr(order, "path", None)
    return str(path[-1]) if path else str(getattr(order, "to", "") or "")


def run(state: BcsState, side: str, order: object, text: str, ctx: Context,
        body: Callable[[BcsState, str, object, Context], None],
        reveal: Callable[[BcsState, list[Event]], None],
        again: Reaction | None = None) -> None:
    """Apply an order through body; if a choice is asked, put the state back as it was and
    record the question in state.wait. again: the question answered (a re-run)."""
    before = msgspec.json.encode(state)
    rctx = Replay(ctx, again.rolls if again else [], again.events if again else 0)
    state.resolving = Reaction(side="", topic="", by=side, order=text,
                               answers=dict(again.answers) if again else {})
    try:
        body(state, side, order, rctx)
    except Ask as a:
        answers = dict(state.resolving.answers)
        _restore(state, before)
        reveal(state, rctx.events)               # what the enemy has read stays known
        # an own choice per subject is keyed by its where, which the answer must find again
        state.wait = Reaction(side=a.side, topic=a.topic, by=side, order=text,
                              hex=a.where if a.subject else a.where or _hex_of(order),
                              answers=answers,
                              rolls=rctx.values, events=len(rctx.events), options=a.options,
                              subject=a.subject)
        state.resolving = None
        return
    except IllegalOrder:
        _restore(state, before)                  # a refused order changes nothing
        raise
    except BaseException:
        state.resolving = None
        raise
    state.resolving = None


def _restore(state: BcsState, raw: bytes) -> None:
    """Put every field of state back to an encoded copy of it."""
    old = msgspec.json.decode(raw, type=BcsState)
    for f in msgspec.structs.fields(BcsState):
        setattr(state, f.name, getattr(old, f.name))


def check_answer(state: BcsState, side: str, topic: str, mode: str) -> Reaction:
    """IllegalOrder unless the game waits for side's answer on topic and mode is one of its
    modes; the question answered."""
    w = state.wait
    rule = rule_of(topic)
    if w is None:
        raise IllegalOrder(f"no question waits for an answer ({topic})", rule=rule)
    if w.side != side:
        raise IllegalOrder(f"the game waits for {w.side}'s answer on {w.topic}",
                           rule=rule_of(w.topic))
    if topic != w.topic:
        raise IllegalOrder(f"the question is {w.topic}, not {topic} (answer {w.topic} "
                           f"{'|'.join(topics().get(w.topic, ()))})", rule=rule_of(w.topic))
    modes = topics().get(topic, ())
    if mode not in modes and mode not in w.options and topic not in RULE_CHECKED:
        own = f" nor one of the {len(w.options)} choices the question lists" if w.options else ""
        raise IllegalOrder(f"{topic}: {mode!r} is not one of {', '.join(modes)}{own}", rule=rule)
    return w


def choice_key(key: str, where: str, subject: str) -> str:
    """The key of one of the owner's own choices among an order's answers ("SIDE TOPIC")."""
    return f"{key} {where} {subject}" if subject else f"{key} {where}"


def answer_key(w: Reaction, side: str, mode: str) -> str:
    """Where an answer is kept in the order's answers: a mode serves every time the order reads
    the topic; one of the owner's own choices (a hex, an order) only where he was asked."""
    key = f"{side} {w.topic}"
    if mode in topics().get(w.topic, ()) and w.topic not in PER_INSTANCE:
        return key
    return choice_key(key, w.hex, w.subject)


def check_waiting(state: BcsState, side: str) -> None:
    """IllegalOrder while the game waits for an answer: only the answer may come."""
    w = state.wait
    if w is not None:
        raise IllegalOrder(f"the game waits for {w.side}'s answer on {w.topic} "
                           f"(answer {w.topic} MODE)", rule=rule_of(w.topic))


def decision(state: BcsState) -> Decision:
    """The question waiting: a reaction when the side asked is not the one whose order it is;
    its units in the hex concerned are its private detail."""
    w = state.wait
    assert w is not None
    modes = topics().get(w.topic, ())
    where = f" in {w.hex}" if w.hex else ""
    # an owner's own choice is his whoever's order brought it (a Reinforcement Phase that the
    # enemy's 'done' opens): only a reaction names the order it answers
    whose = "" if w.topic in OWN_TOPICS else f" for {w.by}'s order"
    prompt = (f"choose {TOPIC_TEXT.get(w.topic, w.topic)}{where}{whose} "
              f"(answer {w.topic} {'|'.join(modes)}; 'standing {w.topic} MODE' answers "
              f"it from now on)")
    private = detail(state, w.side, w.hex)
    if w.options:                       # his own choices: private (they may name his units)
        what = f" for {w.subject}" if w.subject else ""
        own = f"your own choices{what} (answer {w.topic} CHOICE): {', '.join(w.options)}"
        private = f"{private}; {own}" if private else own
    return Decision(side=w.side, kind=w.topic, prompt=prompt, detail=private,
                    choices=tuple(f"answer {w.topic} {m}" for m in modes),
                    reaction=w.side != w.by)


def detail(state: BcsState, side: str, hex_id: str) -> str:
    """Side's combat units in the hex with side showing, AR, AV and steps (private)."""
    out = []
    for p in sorted(state.pieces.values(), key=lambda p: p.id):
        if p.side != side or p.status != "map" or p.hex != hex_id or p.kind != "unit" or \
                not hex_id:
            continue
        f = face(p)
        av = f" AV {f.av}" if f is not None and f.av is not None else ""
        out.append(f"{p.id} ({p.face}) AR {bdata().units[p.id].ar}{av}, "
                   f"{p.steps} step{'s' if p.steps != 1 else ''}")
    return f"{hex_id}: " + "; ".join(out) if out else ""
