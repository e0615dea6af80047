"""Hosted mode: the referee's signed rejection of a player's file that breaks a rule.

The refused file never enters the chain. The referee keeps it with the rejection; the player
stores the rejection, sets its refused file aside, and signs a corrected file with the same
sequence number, which is therefore not equivocation. `pbem verify` on the referee's archive
re-resolves every refused file: a referee who refuses a legal file (to get other dice) is
caught there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.core.errors import FalseRejection, FileRejected, IllegalFile, PbemError
from pbem.core.game import NeedsDice
from pbem.core.records import Rejection, SignedFile, Turn, seal
from pbem.protocol.archive import Archive, atomic_write
from pbem.protocol.genesis import HOST, Genesis


class Refused(PbemError):
    """The referee refused a player's file and wrote a signed rejection to send back."""


def rejection_file_name(r: Rejection) -> str:
    """Where a rejection is kept under files/."""
    return f"reject-{r.seq:04d}-{r.file[:16]}.pbem"


def refused_file_name(r: Rejection) -> str:
    """Where the refused file is kept under rejected/."""
    return f"{r.seq:04d}-{r.sender}-{r.file[:16]}.pbem"


def make_rejection(s: Any, f: SignedFile, err: IllegalFile) -> SignedFile:
    """The referee's signed rejection of file f for the rule it breaks."""
    t: Turn = f.payload  # type: ignore[assignment]
    r = Rejection(game_id=s.genesis.game_id, seq=t.seq, sender=t.sender, file=f.hash,
                  order=err.order, reason=err.reason, rule=err.rule)
    return seal(r, s.key, name=rejection_file_name(r))


def refuse(s: Any, f: SignedFile, err: IllegalFile, out: str | None) -> Refused:
    """Keep the refused file and the rejection in the referee's archive and write it to send."""
    rf = make_rejection(s, f, err)
    r: Rejection = rf.payload  # type: ignore[assignment]
    archive: Archive = s.archive
    atomic_write(archive.rejected_dir / refused_file_name(r), f.text)
    target = archive.files_dir / rejection_file_name(r)
    if not target.exists():
        atomic_write(target, rf.text)
    dest = out or str(archive.outbox / rejection_file_name(r))
    atomic_write(Path(dest), rf.text)
    rule = f" [{r.rule}]" if r.rule else ""
    return Refused(f"{f.name}: refused: order {r.order}: {r.reason}{rule}; the signed "
                   f"rejection is in {dest}: send it to {r.sender}, who will correct file "
                   f"{r.seq}")


def turn_name(seq: int, sender: str) -> str:
    """The archive name of a turn file."""
    return f"{seq:04d}-{sender}.pbem"


def check_rejection(genesis: Genesis, rf: SignedFile, refused: SignedFile,
                    player: str | None = None) -> Rejection:
    """Verify a rejection and the file it refuses; FileRejected if they do not fit."""
    r, name = rf.payload, rf.name
    if not isinstance(r, Rejection):
        raise FileRejected(f"{name}: not a rejection")
    if not rf.signed_by(genesis.pubs[HOST]):
        raise FileRejected(f"{name}: bad signature (not signed by the referee's key)")
    if r.game_id != genesis.game_id:
        raise FileRejected(f"{name}: belongs to another game ({r.game_id})")
    if player is not None and r.sender != player:
        raise FileRejected(f"{name}: refuses a file of {r.sender}, not of {player}")
    t = refused.payload
    if (not isinstance(t, Turn) or refused.hash != r.file or t.seq != r.seq
            or t.sender != r.sender or r.sender not in genesis.game.sides
            or not refused.signed_by(genesis.pubs[r.sender])):
        raise FileRejected(f"{name}: does not match the refused file {refused.name}")
    return r


def view_refusal(game: Any, view_state: Any, side: str, t: Turn, name: str) -> IllegalFile | None:
    """The refusal of t that its writer's view (view_state: the view of file t.seq - 1)
    gives, as the referee must judge it (resolve.known_refusal), or None if that view allows
    t; the view's notation check included."""
    from pbem.protocol.resolve import parse_orders, refusal_on

    try:
        orders = parse_orders(game, list(t.orders), name=name, canonical_only=True)
    except IllegalFile as e:
        return e
    sim = game.standin(view_state, side)
    return refusal_on(game, sim, side, orders, list(t.orders), name=name)


def false_rejection(r: Rejection, k: IllegalFile | None) -> str:
    """What is false in rejection r, given k, the refusal its file's writer's view gives
    (view_refusal); "" if r says what k says."""
    if k is None:
        return (f"the referee refused file {r.seq} of {r.sender} (order {r.order}: {r.reason}), "
                "but the writer's own view allows every order of it: a refusal that changes "
                "the dice")
    if (k.order, k.reason, k.rule) != (r.order, r.reason, r.rule):
        rule = f" [{k.rule}]" if k.rule else ""
        return (f"the referee's rejection of file {r.seq} names order {r.order}: {r.reason}, "
                f"but the writer's own view refuses order {k.order}: {k.reason}{rule}")
    return ""


def judged_by_view(ps: Any, r: Rejection, refused: SignedFile) -> str:
    """false_rejection of r by the hosted player's view of file r.seq - 1 (refused: the file r
    refuses), or "" where that view or the game's stand-in is missing (nothing to judge on)."""
    view = next((v.payload for v in ps.views if v.payload.seq == r.seq - 1), None)
    if view is None or getattr(ps.game, "standin", None) is None:
        return ""
    return false_rejection(r, view_refusal(ps.game, view.state, r.sender, refused.payload,
                                           refused.name))


def player_false_rejections(ps: Any) -> list[str]:
    """A hosted player's archive: every stored rejection his own view of the file before the
    refused one contradicts (false_rejection), one line each."""
    from pbem.core.records import read_file

    mine = {f.hash: f for f in ps.superseded}
    out = []
    for rf in ps.rejections:
        r: Rejection = rf.payload
        kept = ps.archive.rejected_dir / refused_file_name(r)
        refused = read_file(kept, strict=True) if kept.is_file() else mine.get(r.file)
        false = judged_by_view(ps, r, refused) if refused is not None else ""
        if false:
            out.append(f"{rf.name}: {false}")
    return out


def held_false_rejection(ps: Any, rf: SignedFile) -> str:
    """What a hosted player's view says is false in rejection rf of one of his own files (one
    his receive refused, given to `pbem verify` with his archive), or "" where it cannot be
    judged there or is true."""
    r = rf.payload
    if not isinstance(r, Rejection):
        return ""
    refused = next((x for x in [*ps.own_files, *ps.superseded] if x.hash == r.file), None)
    if refused is None:
        return ""
    try:
        check_rejection(ps.genesis, rf, refused, ps.info.party)
    except FileRejected:
        return ""
    return judged_by_view(ps, r, refused)


def receive_rejection(archive: Archive, f: SignedFile, key: Any) -> Any:
    """A hosted player takes the referee's rejection of its own file and may send it again."""
    from pbem.core import keys as keymod
    from pbem.protocol.hosted import load_player
    from pbem.protocol.ops import Outcome

    ps = load_player(archive)
    me = ps.info.party
    if keymod.public_raw(key.public_key()) != ps.genesis.pubs[me]:
        raise PbemError(f"{archive.root}: this key is not {me}'s key in this game")
    r = f.payload
    if not isinstance(r, Rejection):
        raise FileRejected(f"{f.name}: not a rejection")
    mine = ps.own_by_seq().get(r.seq)
    if mine is None or mine.hash != r.file:
        left = [x for x in ps.superseded if x.hash == r.file]
        known = {x.payload.file: x for x in ps.rejections}  # type: ignore[union-attr]
        if left and r.file in known and known[r.file].payload_bytes == f.payload_bytes:
            # an earlier run stored the rejection and was stopped before setting the file aside
            mine = left[0]
        elif r.file in known:
            raise FileRejected(f"{f.name}: stale: this rejection is already in the archive")
        else:
            raise FileRejected(f"{f.name}: refuses a file you did not send (or already "
                               "corrected)")
    check_rejection(ps.genesis, f, mine, me)
    false = judged_by_view(ps, r, mine)
    if false:
        raise FalseRejection(f"{f.name}: {false}; keep this signed rejection: it is the proof "
                             "(`pbem verify DIR REJECTION` names it, DIR this archive; nothing "
                             "was stored)")
    atomic_write(archive.rejected_dir / refused_file_name(r), mine.text)
    atomic_write(archive.files_dir / rejection_file_name(r), f.text)
    (archive.files_dir / turn_name(r.seq, r.sender)).unlink(missing_ok=True)
    rule = f" [{r.rule}]" if r.rule else ""
    return Outcome(messages=[f"The referee refused your file {r.seq}: order {r.order}: "
                             f"{r.reason}{rule}.",
                             f"Correct your orders (pbem check), then submit file {r.seq} "
                             "again; the refused file is kept under rejected/."])


def audit_rejections(s: Any) -> list[str]:
    """The referee's archive: every rejection is signed, fits its file, and the file is illegal."""
    from pbem.protocol.resolve import resolve

    from pbem.core.records import read_file

    problems = []
    archive: Archive = s.archive
    for p in archive.rejection_files():
        try:
            rf = read_file(p, strict=True)
            r = rf.payload
            if not isinstance(r, Rejection):
                raise FileRejected(f"{p.name}: not a rejection")
            refused = read_file(archive.rejected_dir / refused_file_name(r), strict=True)
            check_rejection(s.genesis, rf, refused)
        except PbemError as e:
            problems.append(str(e))
            continue
        t: Turn = refused.payload  # type: ignore[assignment]
        before = s.states.get(r.seq - 1)
        if before is None or r.seq > s.ledger.tip_seq + 1:
            problems.append(f"{p.name}: refuses file {r.seq}, which the chain never reached")
            continue
        if r.seq <= s.ledger.tip_seq and t.prev != s.ledger.tip_hash_at(r.seq - 1):
            problems.append(f"{p.name}: the refused file does not follow file {r.seq - 1}")
            continue
        try:
            resolve(s.game, before, t, dice=s.dice_for(r.seq, file_hash=refused.hash, sender=r.sender),
                    name=refused.name, hosted=True)
        except IllegalFile as e:
            false = false_rejection(r, e)
            if false:
                problems.append(f"{p.name}: {false}")
            continue
        except NeedsDice:
            # legal up to its first die, and nothing after a die is refused (resolve skips an
            # order the dice made illegal): the file is legal whatever the dice still unknown
            pass
        except PbemError as e:
            problems.append(f"{p.name}: cannot re-check the refused file ({e})")
            continue
        problems.append(f"{p.name}: the referee refused file {r.seq} from {r.sender}, but the "
                        "file is legal: a refusal that changes the dice")
    return problems
