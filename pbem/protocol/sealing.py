"""Sealed mode, protocol side (docs/sealed.md section 5): the private store of a side's real
orders, the commitments and openings each file carries, what a side owes, and the final
reveal with its full-information replay.

A sealed game is a peer game whose files carry projections of the orders instead of the
orders, commitments to the sender's hidden facts, and the openings the rules asked for. Each
processor's state is its knowledge state (pbem.core.sealed); only public outcomes are hashed
into the results both sides compare.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from pbem.core.commitment import FactBook, Opening, commit, fact_commit, fact_key, salt
from pbem.core.encoding import canonical, sha256_hex
from pbem.core.errors import (ArchiveError, FileRejected, IllegalFile, IllegalOrder,
                              OrderSyntaxError, PbemError)
from pbem.core.game import Context, NeedsDice
from pbem.core.dice import NoDice
from pbem.core.records import FactCommit, FinalReveal, Turn
from pbem.protocol.resolve import SEALED_STANDING, illegal_order
from pbem.core.sealed import (STANDING_FACT, STANDING_UNSET, answering_policy, order_reveals,
                              policy_text, set_policy, standing_answers, standing_facts,
                              with_policy)
from pbem.core.standing import (GuardedOrder, StandingOrder, apply_order, format_guarded,
                                is_standing, parse_line, topics_of)

PEERISH = ("peer", "sealed")


def public_hash(game: Any, state: Any) -> str:
    """The hash of the public part of a state (what both sides of a sealed game agree on)."""
    return sha256_hex(canonical(msgspec.to_builtins(game.public(state))))


# -- the private store of one's own real orders ---------------------------------------------
class _Private(msgspec.Struct, forbid_unknown_fields=True):
    orders: dict[str, list[str]] = {}


def private_path(root: Path) -> Path:
    """Where a side keeps the real orders of the files it sent (never sent before the end)."""
    return Path(root) / "private" / "orders.json"


def read_private(root: Path) -> dict[int, list[str]]:
    """The real orders of this side's files, by sequence number (empty if none yet)."""
    p = private_path(root)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ArchiveError(f"{p}: cannot read your private orders ({e.strerror})") from None
    try:
        store = msgspec.json.decode(raw, type=_Private)
        return {int(k): v for k, v in store.orders.items()}
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError):
        raise ArchiveError(f"{p}: your private orders file is damaged") from None


def write_private(root: Path, seq: int, lines: list[str]) -> None:
    """Add the real orders of this side's file seq to the private store (atomically)."""
    from pbem.protocol.archive import atomic_write

    orders = read_private(root)
    orders[seq] = list(lines)
    p = private_path(root)
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, msgspec.json.encode(_Private(orders={str(k): v for k, v in
                                                         sorted(orders.items())})))


# -- what each file carries -----------------------------------------------------------------
class Facts:
    """Every side's commitments and openings in the chain, and the finals sent."""

    def __init__(self, game: Any, game_id: str, me: str | None = None) -> None:
        self.me = me                     # this processor's side (None: pbem verify)
        self.books = {side: FactBook(game_id, side) for side in game.sides}
        self.finals: dict[str, FinalReveal] = {}
        self.owed: dict[str, Any] = {}   # this side's facts the rules revealed: value then
        # each file's openings: file seq -> owner -> fact -> [(version, value)]
        self.by_file: dict[int, dict[str, dict[str, list[tuple[int, Any]]]]] = {}
        self.mine = 0                        # the latest file of this side taken
        self.values: dict[str, dict[str, Any]] = {side: {} for side in game.sides}  # opened
        # (owner, fact, version) -> the file that committed it: what was latest when an order
        # of an earlier file is resolved after later files were taken (a keyless verify waits
        # for its own side's share of a file while the other side's next files come in)
        self.committed_in: dict[tuple[str, str, int], int] = {}
        self.fixed = getattr(game, "fixed_fact", lambda fact: False)

    def take(self, t: Turn, name: str) -> dict[str, Any]:
        """Record a file's commitments, check its openings and final; the opened values."""
        book = self.books[t.sender]
        for field in ("commits", "openings"):
            value = getattr(t, field)
            if value is not msgspec.UNSET and not value:
                raise FileRejected(f"{name}: an empty list of {field} must be left out")
        new: set[str] = set()
        for c in t.commits or []:
            why = book.record(c.fact, c.version, c.hash)
            if why:
                raise FileRejected(f"{name}: {why}")
            if c.version > 0 and self.fixed(c.fact):
                # a fact that never changes (a slot's unit) has one value: a second version
                # would let a file open one value and hold its orders to another
                why = (f"commits version {c.version} of {c.fact}, a fact that never changes "
                       "(only version 0 exists)")
                raise IllegalFile(f"{name}: {why} [PBEM-SEALED]", order=0, reason=why,
                                  rule="PBEM-SEALED")
            new.add(c.fact)
            self.committed_in[(t.sender, c.fact, c.version)] = t.seq
        opened = {}
        for op in t.openings or []:
            why = book.check(op)
            if why:   # its sender signed the commitment and the opening it refutes: a proof
                raise IllegalFile(f"{name}: {why} [PBEM-SEALED]", order=0, reason=why,
                                  rule="PBEM-SEALED")
            latest = book.version(op.fact)
            if op.version != latest and not (op.fact in new and op.version == latest - 1):
                raise FileRejected(f"{name}: opens version {op.version} of {op.fact}, not its "
                                   f"latest ({latest})")
            opened[op.fact] = op.value
            self.values[t.sender][op.fact] = op.value
            self.by_file.setdefault(t.seq, {}).setdefault(t.sender, {}).setdefault(
                op.fact, []).append((op.version, op.value))
            if t.sender == self.me:
                self.owed.pop(op.fact, None)      # opened as the rules asked
        if t.sender == self.me:     # it answered every reveal before it (opened or known)
            self.mine = max(self.mine, t.seq)
            self.owed.clear()
        if t.final is not msgspec.UNSET:
            if t.sender in self.finals:
                raise FileRejected(f"{name}: {t.sender} already sent its final reveal")
            self.finals[t.sender] = t.final
        return opened

    def version_at(self, owner: str, fact: str, upto: int | None = None) -> int:
        """The latest version of owner's fact among the files up to file upto (all if None)."""
        v = self.books[owner].version(fact)
        if upto is not None:
            while v > 0 and self.committed_in.get((owner, fact, v), 0) > upto:
                v -= 1
        return v

    def opened(self, owner: str, upto: int | None = None) -> set[str]:
        """The facts of owner opened at their latest version (as of file upto, if given)."""
        book = self.books[owner]
        return {f for (f, v) in book.opened if v == self.version_at(owner, f, upto)}

    def shown(self, owner: str, fact: str, seq: int, reply: bool) -> tuple[bool, Any]:
        """The value of owner's fact that an order of file seq reveals, where it is opened: in
        that file (its sender's own: the latest version it opens), or (reply) in the next one
        (the earliest version it opens: a later one is what the reply's own orders reveal);
        (False, None) if it is not opened there."""
        got = self._openings(seq + 1 if reply else seq, owner, fact)
        if not got:
            return False, None
        return True, (min(got) if reply else max(got))[1]

    def shown_version(self, owner: str, fact: str, seq: int, version: int) -> tuple[bool, Any]:
        """Whether file seq opens owner's fact at this version, and the value it opens."""
        for v, value in self._openings(seq, owner, fact):
            if v == version:
                return True, value
        return False, None

    def once(self, owner: str, fact: str, seq: int, reply: bool) -> bool:
        """Whether the file where an order of file seq has owner's fact opened (as ``shown``)
        opens a single version of it (its value then holds at every order of that file)."""
        return len(self._openings(seq + 1 if reply else seq, owner, fact)) == 1

    def _openings(self, seq: int, owner: str, fact: str) -> list[tuple[int, Any]]:
        """The (version, value) openings of owner's fact that file seq holds."""
        return self.by_file.get(seq, {}).get(owner, {}).get(fact, [])

    def latest_value(self, owner: str, fact: str, upto: int | None = None) -> Any:
        """The opened value of owner's fact at its latest version (as of file upto)."""
        return self.books[owner].opened[(fact, self.version_at(owner, fact, upto))]


def check_reveals(game: Any, facts: Facts, me: str, sender: str, state: Any, order: Any, *,
                  next_name: str | None, name: str, seq: int = 0,
                  own_seq: int | None = None) -> None:
    """Before an order of sender is applied on me's knowledge state: every fact it reveals
    must be known there. Facts of the other side are opened in its file (sender's own) or in
    the reply to it; until that reply exists the order waits (NeedsDice). Each opened value
    is written into the state here, where the rules reveal it (its value at that point).
    own_seq: the file a held order came in, which opened its sender's own facts."""
    if isinstance(order, StandingOrder):
        return
    if isinstance(order, GuardedOrder):
        # what the sender's processor refuses to send (project_guarded): a received one is
        # proof that it was changed, since a branch not taken could open the receiver's facts
        why = guarded_problem(game, state, sender, order)
        if why:
            raise IllegalFile(f"{name}: {why} [PBEM-SEALED]", order=0, reason=why,
                              rule="PBEM-SEALED")
        return                                  # no branch opens a fact
    opens = game.reveals(state, sender, order)
    known = {o: game.facts(state, o) for o in {owner for owner, _ in opens}}
    shown: dict[str, dict[str, Any]] = {}
    for owner, fact in opens:
        if owner == me:
            # revealed by the other side: owed in this side's next file (its own orders open
            # their facts in their own file)
            if sender != me and facts.mine <= seq:
                facts.owed.setdefault(fact, game.facts(state, me).get(fact))
            continue
        found, value = facts.shown(owner, fact, seq, reply=owner != sender)
        # the versions as they stood at file seq (the sender's) or at its reply (the other's):
        # later files may be taken first (a keyless verify waits for its own share)
        upto = (seq + (owner != sender)) if seq else None
        if not found and owner == sender and own_seq is not None \
                and fact not in facts.opened(owner, upto):
            # a held order whose fact changed since: opened in the file it came in, at the
            # version in force there (an earlier version that file opened too is not its value)
            found, value = facts.shown_version(owner, fact, own_seq,
                                               facts.version_at(owner, fact, own_seq))
        if found or fact in facts.opened(owner, upto):
            # a fact this state knows already is followed by the rules from its opening on,
            # unless the file opens it at another value: its owner's hidden outcome changed it
            # since (a step rebuilt by Replacements), and it is opened again at its new version
            if fact not in known[owner] or (found and known[owner][fact] != value
                                            and facts.once(owner, fact, seq, owner != sender)):
                shown.setdefault(owner, {})[fact] = (value if found else
                                                     facts.latest_value(owner, fact, upto))
            continue
        if owner == sender:
            raise FileRejected(f"{name}: an order reveals {owner}'s {fact}, which the file "
                               "does not open")
        if next_name is None:
            raise NeedsDice(f"waits for {owner} to open {fact}")
        raise FileRejected(f"{next_name}: does not open {owner}'s {fact}, which the file "
                           "before it revealed")
    for owner, values in shown.items():
        game.disclose(state, owner, values)


def simulate(game: Any, state: Any, side: str, lines: list[str]) -> tuple[Any, dict[str, Any]]:
    """side's own orders applied to a copy of its knowledge state up to the first die: the
    state then, and the facts of side those orders reveal, with their values when revealed."""
    from pbem.protocol.resolve import copy_state

    sim = copy_state(game, state)
    revealed: dict[str, Any] = {}
    for i, line in enumerate(lines):
        if is_standing(line):
            continue       # a hidden policy: no store changes (section 5c)
        order = parse_line(game, line)
        if not isinstance(order, StandingOrder):
            for owner, fact in order_reveals(game, sim, side, order):
                if owner == side and fact not in revealed:
                    revealed[fact] = game.facts(sim, side).get(fact)
        try:
            apply_order(game, sim, side, order, Context(NoDice(), action=i))
        except NeedsDice:
            _later_reveals(game, sim, side, lines[i + 1:], revealed)
            break
        except (IllegalOrder, OrderSyntaxError):
            break
    return sim, revealed


def _later_reveals(game: Any, sim: Any, side: str, lines: list[str],
                   revealed: dict[str, Any]) -> None:
    """side's own facts that its orders after the first die may reveal, read on the state at
    that die: the file opens them too (the receiver refuses an order that reveals a fact of
    its sender the file does not open)."""
    have = game.facts(sim, side)
    for line in lines:
        if is_standing(line):
            continue
        try:
            opens = order_reveals(game, sim, side, parse_line(game, line))
        except (IllegalOrder, OrderSyntaxError):
            continue
        for owner, fact in opens:
            if owner == side and fact in have:
                revealed.setdefault(fact, have[fact])


def project(game: Any, state: Any, side: str, lines: list[str]) -> list[str]:
    """The line the other side sees for each of side's order lines (a standing order, a hidden
    policy, as SEALED_STANDING: nothing of it), each read on side's state after the lines
    before it (applied up to the first die: later ones are read on the state at that die).
    A guarded order is projected branch by branch (project_guarded)."""
    return projected(game, state, side, lines)[0]


def projected(game: Any, state: Any, side: str, lines: list[str]
              ) -> tuple[list[str], tuple[int, IllegalOrder | OrderSyntaxError] | None]:
    """project's lines, and the first line the rules refused before the first die (its index
    and the refusal; None if none was): the lines after it are read on the state before it."""
    from pbem.protocol.resolve import copy_state

    sim = copy_state(game, state)
    live = True
    refused = None
    out = []
    for i, line in enumerate(lines):
        order = parse_line(game, line)
        if isinstance(order, StandingOrder):
            out.append(SEALED_STANDING)
            continue
        if isinstance(order, GuardedOrder):
            out.append(project_guarded(game, sim, side, order, f"order {i + 1} {line!r}"))
        else:
            out.append(game.project(sim, side, order))
        if live:
            try:
                apply_order(game, sim, side, order, Context(NoDice(), action=i))
            except NeedsDice:
                live = False
            except (IllegalOrder, OrderSyntaxError) as e:
                live, refused = False, (i, e)
    return out, refused


def signing_order(game: Any, state: Any, side: str, lines: list[str],
                  own: Any = None) -> list[str]:
    """side's checked lines in the order its sealed file signs them: the game's own order for
    lines whose written order could tell the other side a hidden fact (optional hook
    `Game.sealed_canonical(state, side, lines, secret)`: Holdfast signs each run of
    placements in a canonical order of the set, hex order as far as the rules allow, since
    a placed block takes its side's next slot), else as written. own: the side's dice
    secret, which keys the order of lines public facts cannot order (without it, a `check`
    run without the key, they are ordered by an unkeyed hash, which may differ from the
    order `submit` signs). The private store keeps the lines in the
    order signed, so the final replay resolves what was signed."""
    hook = getattr(game, "sealed_canonical", None)
    if hook is None:
        return list(lines)
    secret = b"" if own is None else hmac.new(side_fact_key(own), b"pbem/v1/signing-order",
                                              hashlib.sha256).digest()
    return hook(state, side, list(lines), secret)


def signing_note(name: str, written: list[str], signed: list[str]) -> list[str]:
    """The player's note when signing_order changed the order of his lines (else none)."""
    if written == signed:
        return []
    moved = [x for x, y in zip(written, signed) if x != y]
    return [f"{name}: in a sealed game placements are signed in an order of their own (by "
            "hex, then an order only your key gives; in a stack, the blocks that may stay in "
            "the order you placed them), playing out as you wrote them, so that their order "
            f"does not tell the other side which unit is which block: {'; '.join(moved)}"]


def guarded_problem(game: Any, state: Any, side: str, order: GuardedOrder) -> str:
    """Why a guarded order of side cannot travel in a sealed game ('' if it can): a condition
    the two processors may read differently, or a branch that opens a fact (of either side:
    the branch not taken would open it too)."""
    if not getattr(game, "public_condition", lambda c: False)(order.condition):
        return (f"the condition {order.condition!r} reads a hidden fact, so this guarded order "
                "cannot be sent in a sealed game (write the order it would choose, or use a "
                "condition on a hex)")
    for branch in (order.then, order.otherwise):
        if branch and game.reveals(state, side, game.parse_order(branch)):
            return (f"{branch!r} opens hidden facts, so it cannot be a branch of a guarded "
                    "order in a sealed game (write it unguarded)")
    return ""


def project_guarded(game: Any, sim: Any, side: str, order: GuardedOrder, where: str) -> str:
    """A guarded order as the other side sees it: the same condition over each branch's
    projection, so both processors choose the same branch. Only a condition the game says is
    public (`Game.public_condition`) may be sent, and only branches that reveal nothing: an
    opening cannot wait on a branch (it would open facts the branch not taken keeps hidden)."""
    why = guarded_problem(game, sim, side, order)
    if why:
        raise PbemError(f"{where}: {why}")
    shown = []
    for branch in (order.then, order.otherwise):
        if not branch:
            shown.append("")
            continue
        real = game.parse_order(branch)
        seen = game.project(sim, side, real)
        if seen is None:
            raise PbemError(f"{where}: {branch!r} is hidden from the other side, so it cannot "
                            "be a branch of a guarded order in a sealed game")
        shown.append(seen)
    return format_guarded(GuardedOrder(condition=order.condition, then=shown[0],
                                       otherwise=shown[1]))


def policy_of(game: Any, orders: dict[int, list[str]], upto: int | None = None,
              extra: list[str] = ()) -> dict[str, str]:
    """A side's standing policy from its real orders (by file, up to file upto), then extra
    lines: topic -> mode, the last order of each topic."""
    policy: dict[str, str] = {}
    for seq in sorted(orders):
        if upto is None or seq <= upto:
            for line in orders[seq]:
                set_policy(game, policy, line)
    for line in extra:
        set_policy(game, policy, line)
    return policy


def planning_state(s: Any, queued: list[str] = ()) -> Any:
    """The state a bot plans this party's orders on: in a sealed game, a copy whose own
    standing store holds the policy this side committed (its processor alone knows it; the
    stores of the game itself stay empty), so that the bot's answers agree with that policy
    and its processor has nothing to refuse or write in; otherwise the session's state."""
    if s.facts is None or s.private is None:
        return s.state
    policy = policy_of(s.game, s.private, extra=list(queued))
    return with_policy(s.game, s.state, s.party, policy) if policy else s.state


def standing_reply(s: Any, queued: list[str] = ()) -> list[str] | None:
    """This side's automatic answer, from its standing policy (its private real orders, then
    the queued standing orders its next file carries first), to the decision pending on it;
    None if nothing is pending on it that the policy answers."""
    if s.facts is None or s.unresolved() or s.party not in s.pending_sides:
        return None
    policy = policy_of(s.game, s.private, extra=list(queued))
    first = standing_answers(s.game, s.state, s.party, policy)
    return None if first is None else chain_answers(s, policy, first)


def chain_answers(s: Any, policy: dict[str, str], first: list[str]) -> list[str]:
    """first, then every further answer this side's policy gives to the decisions that come
    up on it, before any die, once its file is resolved (the orders held from the other side
    resumed as they will be: Kasserine's next attack after a combat, the defender's support
    steps 2 and 4 with no die between them), so one automatic file answers them all."""
    from types import SimpleNamespace

    from pbem.core.errors import IllegalFile
    from pbem.protocol.resolve import resolve

    game, side, good, lines = s.game, s.party, list(first), list(first)
    for _ in range(50):
        turn = SimpleNamespace(seq=s.ledger.tip_seq + 1, sender=side, orders=lines)
        try:
            res = resolve(game, s.state, turn, dice=NoDice(), name="the automatic reply",
                          held=s.held, lines=lines, sealed=True)
        except NeedsDice:
            return lines          # legal up to its first die: what follows is not known yet
        except (IllegalFile, FileRejected):
            return good
        good = lines
        more = (standing_answers(game, res.state, side, policy)
                if side in {d.side for d in game.pending(res.state)} else None)
        if more is None:
            return good
        lines = good + more
    return good


def outgoing(game: Any, facts: Facts, key: bytes, *, game_id: str, side: str, state: Any,
             lines: list[str], policy: dict[str, str] | None = None
             ) -> tuple[list[FactCommit], list[Opening]]:
    """The commitments and openings side's next file carries: its facts after its own orders
    (up to their first die) that are new or changed since its last commitment, and every
    fact of side the rules revealed (its own orders, the other side's earlier) not yet
    opened. policy: side's standing orders after these lines (facts `standing.TOPIC`)."""
    sim, revealed = simulate(game, state, side, lines)
    book = facts.books[side]
    now = {**game.facts(sim, side),
           **standing_facts(policy or {}, topics_of(game) or ())}

    def c(fact: str, v: int, value: Any) -> str:
        return commit(game_id, side, fact, v, value, salt(key, fact, v))

    # a fact the other side's order revealed is opened at its value then: committed now if no
    # version holds it (it changed after this side's last file, before the reveal); so is a
    # fact this side's own order revealed at a value its latest version will not hold (one
    # that lives only within the file, a unit under a top for a few orders, or one that
    # changed again after the reveal)
    owed = dict(facts.owed)
    commits: list[FactCommit] = []
    latest: dict[str, int] = {}
    shown: dict[str, int] = {}
    early: dict[str, int] = {}
    for fact in sorted(set(now) | set(owed) | set(revealed)):
        k = book.version(fact)
        hashes = dict(enumerate(book.commits.get(fact, [])))
        if fact in owed:
            if k < 0 or c(fact, k, owed[fact]) != hashes[k]:
                k += 1
                hashes[k] = c(fact, k, owed[fact])
                commits.append(FactCommit(fact=fact, version=k, hash=hashes[k]))
            shown[fact] = k
        if fact in revealed and (fact not in now
                                 or canonical(now[fact]) != canonical(revealed[fact])):
            if k < 0 or c(fact, k, revealed[fact]) != hashes[k]:
                k += 1
                hashes[k] = c(fact, k, revealed[fact])
                commits.append(FactCommit(fact=fact, version=k, hash=hashes[k]))
            early[fact] = k
        if fact in now and (k < 0 or c(fact, k, now[fact]) != hashes[k]):
            k += 1
            commits.append(FactCommit(fact=fact, version=k, hash=c(fact, k, now[fact])))
        latest[fact] = k
    # versions are public: a new version of one fact alone would tell which one changed (the
    # unit of a stack that took a step loss, a Formation's Prepared Defense, a standing order),
    # so every fact of the side that can change (the game's `fixed_fact` says which cannot: a
    # game without it bumps none) gets a new version in every file it sends, most at unchanged
    # values, and the versions say nothing (docs/sealed.md, "How the pieces fit")
    fixed = getattr(game, "fixed_fact", None)
    bumped = {x.fact for x in commits}
    for fact in sorted(now) if fixed is not None else ():
        if fact not in bumped and latest[fact] >= 0 and not fixed(fact):
            k = latest[fact] + 1
            commits.append(FactCommit(fact=fact, version=k, hash=c(fact, k, now[fact])))
            latest[fact] = k
    commits.sort(key=lambda x: (x.fact, x.version))
    opened = facts.opened(side)
    openings = []
    for fact, v in shown.items():
        if not (fact in opened and v == book.version(fact) == latest[fact]):
            openings.append(Opening(fact=fact, version=v, value=owed[fact],
                                    salt=salt(key, fact, v).hex()))
    for fact, value in revealed.items():
        v = early.get(fact, latest.get(fact, book.version(fact)))
        # opened before at this version, and no newer one committed here: the receiver knows it
        known = fact in opened and v == book.version(fact) == latest.get(fact, v)
        if v < 0 or known or shown.get(fact) == v:
            continue
        openings.append(Opening(fact=fact, version=v, value=value,
                                salt=salt(key, fact, v).hex()))
    return commits, sorted(openings, key=lambda o: (o.fact, o.version))


def final_reveal(root: Path, key: bytes, seq: int, lines: list[str]) -> FinalReveal:
    """The final reveal of a side whose file seq ends its part of the game."""
    orders = read_private(root)
    orders[seq] = list(lines)
    return FinalReveal(fact_key=key.hex(),
                       orders={str(k): v for k, v in sorted(orders.items())})


def side_fact_key(own: Any) -> bytes:
    """A side's fact key, from its dice secret."""
    return fact_key(own.root_secret())


def missing_final_reveals(s: Any) -> list[str]:
    """The sides of a sealed session whose final reveal is not in its archive (none for a
    session of another mode)."""
    if s.genesis.mode != "sealed":
        return []
    sent = {f.payload.sender for f in s.ledger.files
            if getattr(f.payload, "final", msgspec.UNSET) is not msgspec.UNSET}
    return [side for side in s.game.sides if side not in sent]


class SealedAudit(NamedTuple):
    """What audit_sealed found: problems (the proof of a cheat), summary lines, and every die
    the full-information replay rolled (None unless it replayed every file)."""

    problems: list[str]
    lines: list[str]
    rolls: list[Any] | None


def _proof(problem: str) -> SealedAudit:
    """A sealed audit stopped at its first proven problem."""
    return SealedAudit([problem], [], None)


def audit_sealed(s: Any) -> SealedAudit:
    """`pbem verify` of a sealed archive: with both final reveals, replay the whole game with
    full information (real orders on the real state, the same dice) and check every
    projection, commitment and public outcome against what the files said; (problems, summary
    lines, every die that replay rolled, both sides' private dice included: None unless it
    replayed every file). Without both final reveals the hidden moves are reported as
    unaudited."""
    from pbem.core.errors import IllegalFile
    from pbem.protocol.resolve import resolve

    game, g = s.game, s.genesis
    finals = {}
    for f in s.ledger.files:
        t = f.payload
        if t.final is not msgspec.UNSET:
            finals[t.sender] = (f.name, t.final)
    missing = [side for side in game.sides if side not in finals]
    if missing:
        when = ("the game is over: a missing final reveal is a forfeit under the genesis policy"
                if s.over else "they are sent when the game is over")
        return SealedAudit([], [f"Sealed game: the final reveal of {', '.join(missing)} is not "
                                f"in the archive, so hidden moves are not audited yet ({when})."],
                           None)
    keys = {}
    for side, (name, fin) in finals.items():
        try:
            keys[side] = bytes.fromhex(fin.fact_key)
        except ValueError:
            return _proof(f"{name}: {side}'s final reveal holds a malformed fact key")
        want = g.fact_commits.get(side)
        if want is not None and fact_commit(keys[side]) != want:
            return _proof(f"{name}: {side}'s final reveal opens a fact key other than the one "
                          "it committed to in the genesis (its private dice and salts could have "
                          "been chosen)")
    unbound = [side for side in game.sides if side not in g.fact_commits]
    state = game.setup(g.p.scenario, g.p.options)
    held: list[Any] = []
    committed: dict[tuple[str, str], Any] = {}
    rolls: list[Any] | None = []
    for seq, f in enumerate(s.ledger.files, 1):
        t: Turn = f.payload
        name, fin = finals[t.sender]
        real = fin.orders.get(str(seq))
        if real is None:
            return _proof(f"{name}: {t.sender}'s final reveal lacks the real orders of file "
                          f"{seq}")
        try:
            shown, refused = projected(game, state, t.sender, real)
        except PbemError as e:     # unreadable, or what no honest processor sends
            return _proof(f"{f.name}: {t.sender}'s real orders (final reveal) cannot be what it "
                          f"sent: {e}")
        for i, (want, got) in enumerate(zip(shown, t.orders)):
            if want != got and refused is not None and refused[0] < i:
                # the lines after a refused one are read on the state before it (its
                # projection matched): the refusal is the proof, not the shifted line
                i, e = refused
                return _proof(f"{illegal_order(f.name, i, real[i], e)} (a hidden move {t.sender} "
                              "signed: its real order, from its final reveal, breaks the rule)")
            if want != got:
                return _proof(f"{f.name}: order {i + 1} {got!r} is not what {t.sender}'s real "
                              f"order {real[i]!r} shows (the final reveal disagrees with the "
                              "file)")
        if len(shown) != len(t.orders):
            return _proof(f"{f.name}: {len(t.orders)} orders, but {t.sender}'s final reveal gives "
                          f"{len(real)}")
        sim, _ = simulate(game, state, t.sender, real)
        real_orders = {int(k): v for k, v in fin.orders.items()}
        now = {**game.facts(sim, t.sender),
               **standing_facts(policy_of(game, real_orders, upto=seq),
                                topics_of(game) or ())}
        shown = {(op.fact, op.version): op.value for op in t.openings or []}
        last = {c.fact: c.version for c in t.commits or []}
        for c in t.commits or []:
            if (c.fact, c.version) in shown and (c.fact not in now or c.version < last[c.fact]):
                # a value the rules revealed, opened here (checked where revealed): the latest
                # known, should the fact come back later with it uncommitted again
                committed[(t.sender, c.fact)] = shown[(c.fact, c.version)]
                continue
            value = now.get(c.fact)
            if c.fact not in now or commit(g.game_id, t.sender, c.fact, c.version, value,
                                           salt(keys[t.sender], c.fact, c.version)) != c.hash:
                return _proof(f"{f.name}: {t.sender} committed {c.fact} (version {c.version}) "
                              "to a value its real orders do not give: a hidden fact was changed "
                              "after it was committed, or the final reveal is false")
            committed[(t.sender, c.fact)] = value
        for fact, value in now.items():
            if (t.sender, fact) not in committed:
                if fact.startswith(STANDING_FACT) and value == STANDING_UNSET:
                    continue    # no standing order on that topic: files signed before session
                                # 30 commit only the topics their side set
                return _proof(f"{f.name}: {t.sender} never committed its hidden fact {fact}")
            if canonical(committed[(t.sender, fact)]) != canonical(value):
                return _proof(f"{f.name}: {t.sender} changed its hidden fact {fact} without "
                              "committing the new value")
        before = _answer_check(game, f.name, t.sender, real,
                               policy_of(game, real_orders, upto=seq - 1))
        try:
            res = resolve(game, state, t, dice=s.dice_for(seq, private_keys=keys),
                          name=f.name, held=held, lines=real,
                          hash_of=s.hash_state, before=before, sealed=True,
                          reveal=_opening_check(game, s.ledger.files, seq))
        except IllegalFile as e:
            return _proof(f"{e} (a hidden move {t.sender} signed: its real order, from its final "
                          "reveal, breaks the rule)")
        except NeedsDice:
            rolls = None
            break
        rolls.extend(res.results.rolls)
        if seq < s.ledger.tip_seq:
            claimed = s.ledger.turn(seq + 1).results
            if claimed is not None and claimed.state_hash != res.results.state_hash:
                return _proof(f"{f.name}: with {t.sender}'s real orders the public outcome differs "
                              "from what the files agreed (the projection hid a different move)")
        state, held = res.state, res.held
    lines = [f"Sealed game: both final reveals are in; all {s.ledger.tip_seq} files "
             "replayed with full information: every projection, commitment and public outcome "
             "matches the real orders."]
    if unbound:
        lines.append(f"The genesis holds no fact-key commitment of {', '.join(unbound)} (a "
                     "game set up before pbem bound them): the private dice such a side saw "
                     "before its first commitment are not bound to its key.")
    return SealedAudit([], lines, rolls)


def _opening_check(game: Any, files: list[Any], seq: int) -> Any:
    """The final replay's check that each opening gives the value the rules revealed: where an
    order of file seq reveals a fact, the opening in that file (its sender's) or in the reply
    must hold the fact's value on the full state there (IllegalFile, PBEM-SEALED)."""
    from pbem.core.errors import IllegalFile

    seen: set[tuple[str, str]] = set()

    def reveal(state: Any, side: str, order: Any, held_from: int | None = None) -> None:
        # held_from is not read: an opening in a held order's own file gave the value when it
        # was written; its commitment is checked against the full state where it was made
        if isinstance(order, StandingOrder):
            return
        for owner, fact in order_reveals(game, state, side, order):
            if (owner, fact) in seen:      # a later reveal in the file: the rules follow it
                continue
            seen.add((owner, fact))
            for g in files[seq - 1:seq + (owner != side)]:
                t = g.payload
                ops = sorted((o for o in t.openings or [] if o.fact == fact),
                             key=lambda o: o.version)
                if t.sender != owner or not ops:
                    continue
                # as Facts.shown: the sender's own reveal, its latest; a reply, its earliest
                op = ops[-1] if owner == side else ops[0]
                real = game.facts(state, owner).get(fact)
                if canonical(op.value) != canonical(real):
                    raise IllegalFile(f"{g.name}: {owner} opens {fact} as {op.value!r}, but the "
                                      f"rules revealed {real!r} there [PBEM-SEALED]", order=0,
                                      reason="an opening with another value than the one "
                                             "revealed", rule="PBEM-SEALED")
                break
    return reveal


def _answer_check(game: Any, name: str, side: str, real: list[str],
                  policy: dict[str, str]) -> Any:
    """The final replay's check of side's explicit answers in one file: before each order, if
    the standing policy in force (earlier files, then this file's lines before it) answers the
    decision pending on side, the order must be that answer (IllegalFile, PBEM-STANDING)."""
    from pbem.core.errors import IllegalFile

    def before(state: Any, i: int, order: Any) -> None:
        now = dict(policy)
        for line in real[:i]:
            set_policy(game, now, line)
        want = standing_answers(game, state, side, now)
        if want is None:
            return
        got = real[i:i + len(want)]
        if got != want:
            rule = policy_text(answering_policy(game, state, side, now, want))
            raise IllegalFile(f"{name}: illegal order {i + 1} {real[i]!r}: {side}'s committed "
                              f"standing orders ({rule}) answer this decision with "
                              f"{'; '.join(want)!r} [PBEM-STANDING]", order=i + 1,
                              reason="an answer against the committed standing orders",
                              rule="PBEM-STANDING")
    return before


def recheck(s: Any, name: str) -> None:
    """After a file that opens facts of the other side: replay the chain on this side's
    knowledge state with every opened fact known from the file that committed it, so that an
    earlier projected order those facts make illegal (a hidden block that moved further than
    its revealed type allows) is caught now, at the first reveal that can show it.
    IllegalFile names the file, the order and the rule; the signed files are the proof."""
    from pbem.core.errors import IllegalFile
    from pbem.protocol.resolve import resolve

    game, me = s.game, s.party
    values: dict[tuple[str, str, int], Any] = {}
    versions: dict[tuple[str, str], int] = {}
    for f in s.ledger.files:
        for op in f.payload.openings or []:
            values[(f.payload.sender, op.fact, op.version)] = op.value
        for c in f.payload.commits or []:
            versions[(f.payload.sender, c.fact)] = versions.get((f.payload.sender, c.fact), 0) + 1
    state = game.conceal(game.setup(s.genesis.p.scenario, s.genesis.p.options), me)
    held: list[Any] = []
    files = s.ledger.files
    for seq, f in enumerate(files, 1):
        if seq > s.resolved:
            break
        t: Turn = f.payload
        lines = s.private.get(seq) if t.sender == me else None
        # as on receipt: a file's openings, and those of the reply to it (what its orders
        # revealed of the other side), are written in where its orders reveal them
        def shown_at(k: int) -> dict[str, Any]:
            return {op.fact: op.value for g in files[k - 1:k + 1] if g.payload.sender != me
                    for op in g.payload.openings or []}

        def reveal(st: Any, side: str, order: Any, held_from: int | None = None,
                   seq: int = seq) -> None:
            if isinstance(order, StandingOrder):
                return
            shown = shown_at(seq)
            if held_from is not None:          # a held order: its own file's openings too
                shown = {**shown_at(held_from), **shown}
            for owner, fact in order_reveals(game, st, side, order):
                if owner != me and fact in shown:
                    game.disclose(st, owner, {fact: shown[fact]})

        try:
            res = resolve(game, state, t, dice=s.dice_for(seq), name=f.name, held=held,
                          lines=lines, hash_of=s.hash_state, sealed=True, reveal=reveal)
        except IllegalFile as e:
            raise IllegalFile(f"{name}: what it opens shows that {e}", order=e.order,
                              reason=e.reason, rule=e.rule) from None
        except NeedsDice:
            break
        state, held = res.state, res.held
        fixed = getattr(game, "fixed_fact", lambda fact: True)
        known = {c.fact: values[(t.sender, c.fact, c.version)] for c in t.commits or []
                 if t.sender != me and (t.sender, c.fact, c.version) in values
                 and fixed(c.fact) and versions[(t.sender, c.fact)] == 1}
        if known:
            game.disclose(state, t.sender, known)


def searchable(raw: bytes) -> list[bytes]:
    """What a leak scan searches in a stored file: its bytes and the decoded payload of every
    armored block in it (a signed file's content is base64 there), a final reveal's real
    orders left out: once the game is over they are published on purpose, so the names in
    them are no leak; the rest of that file (projections, commitments, openings) is kept."""
    from pbem.core.armor import decoded_blobs

    out = []
    for blob in decoded_blobs(raw):
        if b'"final":' in blob:
            try:
                t = msgspec.json.decode(blob, type=Turn)
            except msgspec.MsgspecError:       # not a turn: searched whole
                pass
            else:
                if t.final is not msgspec.UNSET:
                    blob = canonical(msgspec.structs.replace(t, final=msgspec.UNSET))
        out.append(blob)
    return out
