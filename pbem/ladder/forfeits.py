"""Forfeits: a signed claim that the opponent has not answered within the game's signed
deadline policy, the opponent's proof of a reply, and the director's decision.

1. The claimant signs a claim (`make_claim`) naming the game, the last file of the chain as
   its archive knows it (which the opponent has not answered), the day that file was sent
   and the day of the claim; the genesis carries the deadline (`policy.reply_days`).
2. The ladder files it with the claimant's archive (`file_claim`): the archive must verify,
   not be over, end with a file the opponent owes an answer to (or, a sealed game over on the
   board, hold the claimant's final reveal and not the opponent's: the result stands only with
   both, docs/sealed.md), and the claim must be signed
   by the claimant's key pinned in the genesis, at least reply_days after the file was sent.
   The claim is then pending, shown as such in `ladder forfeits`, the standings and the site.
3. The opponent rebuts it (`rebut`) with the files that chain from the claimed file (each
   file's prev the hash of the one before), each signed by its sender's key in the game, up
   to a file the opponent signed: the proof that it did answer. Each number the claimant's
   kept archive knows must be the very file it holds (a hosted claimant's own file after its
   latest view). A folder (an archive) stands for its turn files after the claimed one. A
   rebuttal is kept and shown; the director still decides.
4. The director confirms (a loss for the opponent, recorded and rated like any result) or
   dismisses it (`decide`). A finished game submitted meanwhile dismisses it.
"""

from __future__ import annotations

import datetime
import json
import sqlite3
from pathlib import Path
from typing import Any, Sequence

import msgspec

from pbem.core.errors import PbemError
from pbem.core.keys import fingerprint, public_raw
from pbem.core.records import Turn, read_file
from pbem.ladder.archives import GameFacts, audit_submission
from pbem.ladder.db import LadderError, now, transaction
from pbem.ladder.record import GameRecord, SideResult, record_game, store_archive
from pbem.ladder.statements import ForfeitClaim, SignedStatement, make, read_statement
from pbem.ladder.submit import check_accepted, side_players

OPEN = ("pending", "rebutted")


def _unanswered(f: GameFacts, claimant: str, name: str) -> str:
    """The opponent who owes an answer; LadderError unless the archive shows one."""
    if claimant not in f.sides:
        raise LadderError(f"{name}: {claimant} is not a side of this game")
    opponent = next(s for s in f.sides if s != claimant)
    if f.party != claimant:
        raise LadderError(f"{name}: this is {f.party}'s archive; a claim comes with the "
                          f"claimant's own archive ({claimant})")
    if f.outcome is not None and f.unrevealed:
        # a sealed game over on the board: the result stands only with both final reveals
        # (docs/sealed.md); the opponent owes its own once the claimant's is in
        if claimant in f.unrevealed:
            raise LadderError(f"{name}: {claimant}'s own final reveal is not in the archive: "
                              "send it first (pbem receive writes it when the game ends)")
        return opponent
    if f.outcome is not None:
        raise LadderError(f"{name}: the game is over; submit it with 'pbem ladder submit'")
    if f.kind == "hosted-player":
        # A hosted player sees the opponent's decision in its latest view, or has answered
        # that view and waits for the next (sent once it must decide again): either way the
        # table owes it an answer; the opponent rebuts with a later file, the director decides.
        owes = claimant not in f.pending
    else:
        owes = f.last_sender == claimant or (f.last_seq == 0 and opponent in f.pending
                                            and claimant not in f.pending)
    if not owes:
        raise LadderError(f"{name}: the archive does not end with a file {opponent} owes an "
                          f"answer to (file {f.last_seq})")
    return opponent


def make_claim(archive: str | Path, key: Any, sent: str, claimed: str | None = None,
               message: str = "") -> SignedStatement:
    """The claimant's signed forfeit claim from its own archive; LadderError if the archive
    does not show an unanswered file or the deadline has not passed."""
    from pbem.ladder.statements import check_date

    a = audit_submission(archive, require_over=False, unrevealed=True)
    f = a.facts
    mine = public_raw(key.public_key())
    claimant = next((s for s in f.sides if f.pubs[s] == mine), None)
    if claimant is None:
        raise LadderError(f"{archive}: this key ({fingerprint(mine)}) plays no side in this game")
    opponent = _unanswered(f, claimant, str(archive))
    claimed = claimed or datetime.date.today().isoformat()
    due = check_date(sent, "--sent", "claim") + datetime.timedelta(days=f.reply_days)
    if check_date(claimed, "--date", "claim") < due:
        raise LadderError(f"{archive}: the deadline has not passed: file {f.last_seq} sent "
                          f"{sent}, {f.reply_days} days to answer (claim from {due.isoformat()})")
    return make(ForfeitClaim(game_id=f.game_id, genesis=f.genesis, claimant=claimant,
                             opponent=opponent, last_seq=f.last_seq, last_hash=f.last_hash,
                             sent=sent, claimed=claimed, message=message), [key],
                name="claim")


class Filed(msgspec.Struct, kw_only=True):
    """A forfeit claim the ladder filed (pending)."""

    id: int
    game_id: str
    claimant: str
    opponent: str
    notice: str                  # the text to send the opponent


def file_claim(conn: sqlite3.Connection, claim_path: str | Path, archive: str | Path, *,
               today: datetime.date | None = None) -> Filed:
    """File a signed forfeit claim with the claimant's archive; LadderError (nothing changed)
    if anything does not hold."""
    st = read_statement(claim_path)
    c = st.payload
    name = st.name
    if not isinstance(c, ForfeitClaim):
        raise LadderError(f"{name}: not a forfeit claim")
    a = audit_submission(archive, require_over=False, unrevealed=True)
    f = a.facts
    if (c.game_id, c.genesis) != (f.game_id, f.genesis):
        raise LadderError(f"{name}: the claim is about game {c.game_id}, the archive holds "
                          f"{f.game_id}")
    if c.claimant not in f.sides or c.opponent not in f.sides:
        raise LadderError(f"{name}: {c.claimant} or {c.opponent} is not a side of this game")
    if not st.signed_by(f.pubs[c.claimant]):
        raise LadderError(f"{name}: not signed by {c.claimant}'s key in this game "
                          f"({fingerprint(f.pubs[c.claimant])})")
    if _unanswered(f, c.claimant, a.path) != c.opponent:
        raise LadderError(f"{name}: {c.opponent} is not the claimant's opponent")
    if (c.last_seq, c.last_hash) != (f.last_seq, f.last_hash):
        raise LadderError(f"{name}: the claim names file {c.last_seq}, the archive ends at file "
                          f"{f.last_seq} (or another file)")
    sent = datetime.date.fromisoformat(c.sent)
    claimed = datetime.date.fromisoformat(c.claimed)
    if claimed < sent + datetime.timedelta(days=f.reply_days):
        raise LadderError(f"{name}: the deadline had not passed: {f.reply_days} days after "
                          f"{c.sent} is {sent + datetime.timedelta(days=f.reply_days)}")
    today = today or datetime.datetime.now(datetime.timezone.utc).date()
    if claimed > today + datetime.timedelta(days=1):
        raise LadderError(f"{name}: the claim is dated {c.claimed}, in the future")
    with transaction(conn):
        check_accepted(conn, f, a.path)
        players = side_players(conn, f, a.path)
        game = conn.execute("SELECT seq FROM games WHERE game_id = ?", (f.game_id,)).fetchone()
        if game is not None:
            raise LadderError(f"{name}: game {f.game_id} is already recorded (game "
                              f"#{game['seq']})")
        dup = conn.execute(f"SELECT id FROM forfeits WHERE game_id = ? AND status IN "
                           f"{OPEN}", (f.game_id,)).fetchone()
        if dup is not None:
            raise LadderError(f"{name}: a claim about this game is already open (claim "
                              f"#{dup['id']})")
        archive_id = store_archive(conn, a)
        cur = conn.execute(
            "INSERT INTO forfeits(game_id, archive_id, claimant_id, opponent_id, claimant_side, "
            "opponent_side, claimant_pub, opponent_pub, game, title, scenario, mode, turns, dice, "
            "last_seq, last_hash, sent, claimed, reply_days, filed, claim, status) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
            (f.game_id, archive_id, players[c.claimant]["player_id"],
             players[c.opponent]["player_id"], c.claimant, c.opponent,
             f.pubs[c.claimant].hex(), f.pubs[c.opponent].hex(), f.game, f.title, f.scenario,
             f.mode, f.turns,
             json.dumps({s: list(v) for s, v in f.dice.items()}), c.last_seq, c.last_hash,
             c.sent, c.claimed, f.reply_days, now(), st.text))
        claim_id = int(cur.lastrowid)  # type: ignore[arg-type]
    who, other = players[c.claimant]["name"], players[c.opponent]["name"]
    owed = (f" (the game is over on the board; {c.opponent} owes its final reveal, without "
            "which the result does not stand)" if f.unrevealed else "")
    notice = (f"Forfeit claim #{claim_id} in game {f.game_id} ({f.title}, {f.scenario}):\n"
              f"{who} ({c.claimant}) states that {other} ({c.opponent}) has not answered file "
              f"{c.last_seq}, sent {c.sent}, within the {f.reply_days} days the game's policy "
              f"allows{owed}.\nIf you did answer, send the ladder director the files that follow "
              f"file {c.last_seq}, up to the one you signed\n(in hosted mode the referee's "
              f"archive holds those in between; the director runs: pbem ladder rebut LADDER "
              f"{claim_id} FILE...). Otherwise the director may confirm the forfeit: a loss.\n")
    return Filed(id=claim_id, game_id=f.game_id, claimant=who, opponent=other, notice=notice)


def claim(conn: sqlite3.Connection, claim_id: int) -> sqlite3.Row:
    """A filed claim; LadderError if there is none with this number."""
    row = conn.execute("SELECT f.*, a.name AS claimant_name, b.name AS opponent_name "
                       "FROM forfeits f JOIN players a ON a.id = f.claimant_id "
                       "JOIN players b ON b.id = f.opponent_id WHERE f.id = ?",
                       (claim_id,)).fetchone()
    if row is None:
        raise LadderError(f"claim #{claim_id}: no such forfeit claim")
    return row


def rebut(conn: sqlite3.Connection, claim_id: int, files: Sequence[str | Path]
          ) -> sqlite3.Row:
    """Record the opponent's proof of a reply: the files that chain from the claimed file
    (files, or folders standing for their files), each signed by its sender's key in this
    game, up to one the opponent signed; LadderError (nothing changed) otherwise."""
    row = claim(conn, claim_id)
    if row["status"] not in ("pending",):
        raise LadderError(f"claim #{claim_id}: is {row['status']}; only a pending claim can be "
                          "rebutted")
    if not files:
        raise LadderError(f"claim #{claim_id}: no file given (the rebuttal is the files that "
                          f"follow file {row['last_seq']})")
    keys = game_keys(conn, row)
    given: dict[str, Any] = {}            # by hash: one file given twice (in a folder and
    for p in files:                       # by itself) counts once
        for f in (_folder_turns(p, row, keys) if Path(p).is_dir() else
                  [_turn_of(p, row, keys)]):
            given.setdefault(f.hash, f)
    chain = rebuttal_chain(row, list(given.values()), known_files(conn, row))
    with transaction(conn):
        conn.execute("UPDATE forfeits SET status = 'rebutted', rebuttal = ?, rebutted = ? "
                     "WHERE id = ? AND status = 'pending'",
                     ("".join(f.text for f in chain), now(), claim_id))
    return claim(conn, claim_id)


def game_keys(conn: sqlite3.Connection, row: sqlite3.Row) -> dict[str, bytes]:
    """Every party's key pinned in the genesis of a claim's game (the referee's too), read
    from the proposal in the claimant's archive the ladder audited when filing it."""
    import io
    import zipfile

    from pbem.core.records import Proposal, open_text

    data = conn.execute("SELECT zip FROM archives WHERE id = ?",
                        (row["archive_id"],)).fetchone()[0]
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        name = next((n for n in z.namelist() if n.endswith("/files/0000-proposal.pbem")), None)
        if name is None:
            raise LadderError(f"claim #{row['id']}: the stored archive holds no proposal")
        p = open_text(z.read(name).decode("ascii"), name=name, strict=True).payload
    if not isinstance(p, Proposal):
        raise LadderError(f"claim #{row['id']}: the stored archive's proposal is not one")
    keys = {k.party: bytes.fromhex(k.pub) for k in p.parties}
    if (keys.get(row["claimant_side"], b"").hex(), keys.get(row["opponent_side"], b"").hex()
            ) != (row["claimant_pub"], row["opponent_pub"]):
        raise LadderError(f"claim #{row['id']}: the stored archive's keys are not the claim's")
    return keys


def known_files(conn: sqlite3.Connection, row: sqlite3.Row) -> dict[int, str]:
    """The hash of every file of the chain the claimant's stored archive knows, by number (a
    hosted player's own files after its latest view among them)."""
    raw = conn.execute("SELECT facts FROM archives WHERE id = ?",
                       (row["archive_id"],)).fetchone()[0]
    return {int(k): v for k, v in json.loads(raw).items()}


def _folder_turns(folder: str | Path, row: sqlite3.Row, keys: dict[str, bytes]) -> list[Any]:
    """The turn files of the claim's game in a folder (an archive folder: its files/) that
    follow the claimed file, up to the first one of the opponent, each signed by its sender's
    key in the game; files of other kinds or games are passed over. LadderError naming the
    folder or the file: a link or other non-regular .pbem entry, a bad signature, none."""
    import os
    import stat

    from pbem.ladder.archives import MAX_FILES

    root = Path(folder)
    src = root / "files" if (root / "archive.json").is_file() else root
    if src.is_symlink() or root.is_symlink():
        raise LadderError(f"{folder}: a link (links, devices and pipes are refused)")
    if not src.is_dir():
        raise LadderError(f"{src}: no such folder (an archive folder holds its files there)")
    found: list[Any] = []
    with os.scandir(src) as it:
        entries = sorted((e for e in it if e.name.endswith(".pbem")
                          and not e.name.startswith(".")), key=lambda e: e.name)
    if len(entries) > MAX_FILES:
        raise LadderError(f"{root}: too many files (over {MAX_FILES})")
    for e in entries:
        shown = f"{root.name}/{e.name}" if src == root else f"{root.name}/files/{e.name}"
        if not stat.S_ISREG(e.stat(follow_symlinks=False).st_mode):
            raise LadderError(f"{shown}: not a regular file (links, folders, devices and pipes "
                              "are refused)")
        try:
            f = read_file(e.path)
        except PbemError:
            continue                         # not a pbem file: no part of a chain
        t = f.payload
        if not isinstance(t, Turn) or t.game_id != row["game_id"] or t.seq <= row["last_seq"]:
            continue                         # views, rejections, other games, older files
        found.append(_turn_of(e.path, row, keys, shown))
    found.sort(key=lambda f: f.payload.seq)
    first = next((f.payload.seq for f in found if f.payload.sender == row["opponent_side"]),
                 None)
    if first is not None:
        found = [f for f in found if f.payload.seq <= first]
    if not found:
        raise LadderError(f"{folder}: no turn file of this game after file {row['last_seq']} "
                          "the claim names (a rebuttal is the files that follow it, up to one "
                          "the opponent signed)")
    return found


def _turn_of(path: str | Path, row: sqlite3.Row, keys: dict[str, bytes],
             shown: str | None = None) -> Any:
    """A turn file of the claim's game signed by its sender's key in the game (named shown in
    messages, else by its file name); LadderError."""
    from pbem.core.records import SignedFile

    try:
        f = read_file(path)
    except PbemError as e:
        raise LadderError(str(e)) from None
    if shown is not None and shown != f.name:     # a copy: read_file's result is shared
        f = SignedFile(shown, f.payload_bytes, f.payload, f.sig, f.text)
    t, name = f.payload, f.name
    if not isinstance(t, Turn):
        raise LadderError(f"{name}: not a turn file (a rebuttal is the turn files that follow "
                          "the claimed file)")
    if t.game_id != row["game_id"]:
        raise LadderError(f"{name}: belongs to another game ({t.game_id})")
    if t.sender not in keys:
        raise LadderError(f"{name}: sent by {t.sender}, not a party of this game")
    if not f.signed_by(keys[t.sender]):
        raise LadderError(f"{name}: bad signature (not signed by {t.sender}'s key in this "
                          "game)")
    return f


def rebuttal_chain(row: sqlite3.Row, files: list[Any],
                   known: dict[int, str] | None = None) -> list[Any]:
    """The files in chain order from the claimed file (each file's prev the hash of the one
    before, the first's the claimed file's, and each file the claimant's archive knows the
    very one it holds: known, number to hash), leading to a file of the opponent;
    LadderError naming the first file that does not fit."""
    known = known or {}
    chain = sorted(files, key=lambda f: f.payload.seq)
    seq, tip, what = row["last_seq"], row["last_hash"], f"file {row['last_seq']} the claim names"
    for i, f in enumerate(chain):
        t, name = f.payload, f.name
        if t.seq <= seq:
            twice = i > 0 and t.seq == seq
            raise LadderError(f"{name}: " + (f"a second file {t.seq} among the files given"
                                             if twice else
                                             f"file {t.seq} is not later than {what}"))
        if t.seq != seq + 1:
            raise LadderError(f"{name}: file {t.seq} does not follow {what}: file {seq + 1} is "
                              "missing (give every file from the claimed one on; in hosted "
                              "mode the referee's archive holds those in between)")
        if t.prev != tip:
            raise LadderError(f"{name}: file {t.seq} does not answer {what} (its prev is not "
                              "that file's hash: it chains from no file of this claim)")
        if known.get(t.seq, f.hash) != f.hash:
            # a hosted claimant's own file after its latest view: the chain went on with it,
            # so another file with its number (even the opponent's, chained) is no reply
            raise LadderError(f"{name}: file {t.seq} is not the file {t.seq} the claimant's "
                              "archive holds (another file with that number: the chain went "
                              "on without it)")
        seq, tip, what = t.seq, f.hash, f"file {t.seq} ({name})"
    if not any(f.payload.sender == row["opponent_side"] for f in chain):
        raise LadderError(f"{chain[-1].name}: no file given is signed by "
                          f"{row['opponent_side']}, the side the claim is against (a rebuttal "
                          "leads to one of its files)")
    return chain


def decide(conn: sqlite3.Connection, claim_id: int, confirm: bool, note: str = "") -> sqlite3.Row:
    """The director confirms (a loss for the opponent, recorded and rated) or dismisses an
    open claim; LadderError if it is already decided."""
    row = claim(conn, claim_id)
    if row["status"] not in OPEN:
        raise LadderError(f"claim #{claim_id}: already {row['status']}")
    with transaction(conn):
        seq = None
        if confirm:
            if conn.execute("SELECT 1 FROM games WHERE game_id = ?", (row["game_id"],)).fetchone():
                raise LadderError(f"claim #{claim_id}: game {row['game_id']} is already recorded")
            dice = json.loads(row["dice"])
            sides = sorted([(row["claimant_side"], row["claimant_id"], row["claimant_pub"], "win"),
                            (row["opponent_side"], row["opponent_id"], row["opponent_pub"],
                             "loss")])
            seq = record_game(conn, GameRecord(
                game_id=row["game_id"], game=row["game"], title=row["title"],
                scenario=row["scenario"], mode=row["mode"], kind="forfeit",
                reason=(f"forfeit: {row['opponent_side']} did not answer file {row['last_seq']} "
                        f"within {row['reply_days']} days"),
                files=row["last_seq"], turns=row["turns"], archive_id=row["archive_id"],
                sides=[SideResult(side=s, player_id=pid,
                                  fingerprint=fingerprint(bytes.fromhex(pub)), result=res, dice=dice.get(s, [0, 0.0])[0],
                                  dice_dev=dice.get(s, [0, 0.0])[1])
                       for s, pid, pub, res in sides]))
        conn.execute("UPDATE forfeits SET status = ?, decided = ?, note = ?, game_seq = ? "
                     "WHERE id = ?", ("confirmed" if confirm else "dismissed", now(), note, seq,
                                      claim_id))
    return claim(conn, claim_id)


def claims(conn: sqlite3.Connection, status: str | None = None) -> list[dict[str, Any]]:
    """Every forfeit claim (or those with one status), newest first, with the players' names."""
    where = "WHERE f.status = ?" if status else ""
    return [dict(r) for r in conn.execute(
        "SELECT f.id, f.game_id, f.title, f.scenario, f.claimant_side, f.opponent_side, "
        "f.last_seq, f.sent, f.claimed, f.reply_days, f.filed, f.status, f.rebutted, f.decided, "
        "f.note, f.game_seq, a.name AS claimant, b.name AS opponent FROM forfeits f "
        "JOIN players a ON a.id = f.claimant_id JOIN players b ON b.id = f.opponent_id "
        f"{where} ORDER BY f.id DESC", (status,) if status else ())]
