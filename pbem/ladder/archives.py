"""An archive as the ladder sees it: a private copy, pbem's full audit of that copy, and the
facts the ladder records (game, players' keys, result, length, public dice, the chain).

The ladder never reads the submitted folder twice: it copies the archive's signed files
(`archive.json`, `files/`, `rejected/`, `evidence/`; never the sealed dice secret, caches,
reports or the outbox) into a private folder, audits the copy with
`pbem.protocol.audit.verify_archive`, and stores exactly the copy it audited (a
deterministic zip) as the evidence anyone can audit again. A one-file game record is read
strictly and written out as the archive it holds (pbem.records.ladder_input), then checked
the same way, with the result the record states checked against the replay.
"""

from __future__ import annotations

import io
import math
import os
import shutil
import stat
import tempfile
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import msgspec

from pbem.core.encoding import sha256_hex
from pbem.core.game import Decision, Outcome
from pbem.core.records import MAX_FILE_BYTES
from pbem.ladder.db import LadderError

KEPT = ("archive.json", "files", "rejected", "evidence")
MAX_FILES = 50_000
MAX_BYTES = 256 * 1024 * 1024
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class GameFacts(msgspec.Struct, kw_only=True):
    """What an audited archive establishes about its game."""

    game_id: str
    genesis: str                         # the genesis hash
    game: str                            # game id (holdfast, kasserine, ...)
    title: str
    scenario: str
    mode: str                            # peer / hosted / sealed (with both final reveals)
    party: str                           # whose archive: a side, or host
    kind: str                            # peer / referee / hosted-player
    pubs: dict[str, bytes]               # side -> raw public key (the two players)
    reply_days: int
    outcome: Outcome | None              # None: the game is not over in this archive
    files: int                           # turn files in the chain (as far as known)
    turns: int                           # game turns
    facts: dict[int, str]                # seq -> hash of the chain's file seq (0: genesis)
    dice: dict[str, tuple[int, float]]   # side -> (public rolls in its files, sum of z)
    pending: list[str]                   # sides the game waits for
    last_seq: int                        # the chain's last file as this archive knows it
    last_hash: str
    last_sender: str | None              # None when unknown (a hosted player's view)
    sides: tuple[str, ...] = ()
    # a sealed game over on the board whose final reveals are not all in (a claim's archive)
    unrevealed: list[str] = []
    # the public dice per side, purpose kind and die size, face by face (pbem.records.stats
    # groups, "all d6" included): (side, purpose, die, counts of 1, 2, ...)
    faces: list[tuple[str, str, int, list[int]]] = []


def _copy_tree(src: Path, dst: Path, budget: list[int]) -> None:
    for entry in sorted(os.scandir(src), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue                          # the lock, temporary files of a killed command
        st = entry.stat(follow_symlinks=False)
        target = dst / entry.name
        if stat.S_ISDIR(st.st_mode):
            target.mkdir()
            _copy_tree(Path(entry.path), target, budget)
        elif stat.S_ISREG(st.st_mode):
            budget[0] -= 1
            budget[1] -= st.st_size
            if budget[0] < 0 or budget[1] < 0:
                raise LadderError(f"{src}: the archive is too large (over {MAX_FILES} files or "
                                  f"{MAX_BYTES // (1 << 20)} MiB)")
            if st.st_size > MAX_FILE_BYTES:
                raise LadderError(f"{entry.path}: file is too large ({st.st_size} bytes)")
            shutil.copyfile(entry.path, target, follow_symlinks=False)
        else:
            raise LadderError(f"{entry.path}: not a regular file (links, devices and pipes "
                              "are refused)")


def _scratch() -> str | None:
    """Where the private copy goes: $PBEM_LADDER_TMP, else memory (/dev/shm) where there is
    one, else the system's temporary folder."""
    chosen = os.environ.get("PBEM_LADDER_TMP")
    if chosen:
        return chosen
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


@contextmanager
def snapshot(path: str | Path) -> Iterator[tuple[Path, Any]]:
    """A private copy of an archive folder's signed files, or of the archive a one-file game
    record holds (read strictly: pbem.records.ladder_input); yields (the copy, the record or
    None) and removes the copy afterwards."""
    src = Path(path)
    if src.is_file():
        with _private() as copy:
            from pbem.core.errors import PbemError
            from pbem.records.ladder_input import write_archive

            try:
                rec = write_archive(src, copy)
            except PbemError as e:
                raise LadderError(f"{src}: the record does not verify: {_unnamed(e, src)}"
                                  ) from None
            yield copy, rec
        return
    if not src.is_dir():
        raise LadderError(f"{src}: no such archive folder or record file")
    if not (src / "archive.json").is_file():
        raise LadderError(f"{src}: not a pbem archive (no archive.json)")
    with _private() as copy:
        _copy_signed(src, copy)
        yield copy, None


def _unnamed(e: Exception, src: Path) -> str:
    """An error's message without the record's own name in front (the caller names it)."""
    msg = str(e)
    return msg[len(src.name) + 2:] if msg.startswith(f"{src.name}: ") else msg


@contextmanager
def _private() -> Iterator[Path]:
    """A new private folder for a copy (in memory where possible), removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="pbem-ladder-", dir=_scratch()))
    try:
        copy = tmp / "archive"
        copy.mkdir()
        yield copy
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _copy_signed(src: Path, copy: Path) -> None:
    """Copy an archive folder's signed files (KEPT) into copy, within the limits."""
    budget = [MAX_FILES, MAX_BYTES]
    for name in KEPT:
        p = src / name
        if not p.exists() and not p.is_symlink():
            continue
        st = p.lstat()
        if stat.S_ISDIR(st.st_mode):
            (copy / name).mkdir()
            _copy_tree(p, copy / name, budget)
        elif stat.S_ISREG(st.st_mode) and name == "archive.json":
            shutil.copyfile(p, copy / name, follow_symlinks=False)
        else:
            raise LadderError(f"{p}: not a regular {'file' if '.' in name else 'folder'}")


def zip_folder(root: Path, top: str) -> bytes:
    """A deterministic zip of a folder (sorted names, fixed times) under the folder `top`."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(root.rglob("*")):
            if p.is_file():
                info = zipfile.ZipInfo(f"{top}/{p.relative_to(root).as_posix()}", ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                z.writestr(info, p.read_bytes())
    return buf.getvalue()


def unzip_to(data: bytes, dest: Path) -> Path:
    """Extract an archive zip made by zip_folder into dest; returns the archive folder."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = z.namelist()
        for n in names:
            if n.startswith("/") or ".." in Path(n).parts:
                raise LadderError(f"stored archive: unsafe name {n!r}")
        z.extractall(dest)
    return dest / names[0].split("/", 1)[0]


def audit(root: Path) -> tuple[Any, Any]:
    """Run pbem's full audit (verify_archive) on an archive; returns (audit, what it loaded:
    a Session for a peer or referee archive, a PlayerState for a hosted player's archive)."""
    from pbem.protocol.audit import verify_archive

    result = verify_archive(root)
    if not result.ok:
        return result, None
    return result, result.loaded


def _z(sides: int, value: int) -> float:
    """How far one die fell from its mean, in standard deviations (uniform 1..sides)."""
    if sides < 2:
        return 0.0
    return (value - (sides + 1) / 2) / math.sqrt((sides * sides - 1) / 12)


def face_counts(loaded: Any) -> list[tuple[str, str, int, list[int]]]:
    """The public dice (`visible_to` = all) of an audited archive (a Session or a hosted
    player's PlayerState), counted face by face per side, purpose kind and die size by
    pbem.records.stats (a die belongs to the side its purpose names, else to the side whose
    file rolled it, as in a replay's statistics); dice of no side are left out."""
    from pbem.protocol.hosted import PlayerState
    from pbem.records.stats import Stats

    st = Stats()
    sides = list(loaded.game.sides)
    if isinstance(loaded, PlayerState):
        seen: set[tuple[int, int, int]] = set()
        for vf in loaded.views:
            view = vf.payload
            senders = {p.seq: p.sender for p in view.proofs}
            for r in view.rolls:
                key = (r["seq"], r["action"], r["index"])
                if key in seen or r.get("visible_to", "all") != "all":
                    continue
                seen.add(key)
                st.add_roll("", sides, senders.get(r["seq"]) or "", str(r.get("purpose", "")),
                            int(r["sides"]), int(r["value"]))
    else:
        for log in loaded.log:
            for r in log.rolls:
                if r.visible_to == "all":
                    st.add_roll("", sides, log.sender, r.purpose, r.sides, r.value)
    return [(g.side, g.purpose, g.sides, list(g.counts)) for g in st.sorted_groups()
            if g.side in sides]


def facts_of(loaded: Any) -> GameFacts:
    """The facts of an audited archive (a Session or a hosted player's PlayerState)."""
    from pbem.protocol.hosted import PlayerState

    if isinstance(loaded, PlayerState):
        return _player_facts(loaded)
    s = loaded
    g = s.genesis
    sides = tuple(s.game.sides)
    dice: dict[str, list[float]] = {side: [0, 0.0] for side in sides}
    for log in s.log:
        if log.sender in dice:
            for r in log.rolls:
                if r.visible_to == "all":
                    dice[log.sender][0] += 1
                    dice[log.sender][1] += _z(r.sides, r.value)
    files = s.ledger.files
    last = files[-1] if files else None
    return GameFacts(
        game_id=g.game_id, genesis=g.hash, game=s.game.id, title=s.game.title,
        scenario=g.p.scenario, mode=g.mode, party=s.party,
        kind="referee" if s.party == "host" else "peer",
        pubs={side: g.pubs[side] for side in sides}, reply_days=g.p.policy.reply_days,
        outcome=s.game.outcome(s.state), files=len(files), turns=s.game.turn(s.state),
        facts={0: g.hash, **{i + 1: f.hash for i, f in enumerate(files)}},
        dice={k: (int(v[0]), float(v[1])) for k, v in dice.items()},
        pending=sorted(s.pending_sides), last_seq=len(files),
        last_hash=last.hash if last else g.hash,
        last_sender=last.payload.sender if last else None, sides=sides)


def _player_facts(ps: Any) -> GameFacts:
    g = ps.genesis
    sides = tuple(ps.game.sides)
    v = ps.latest
    facts = {0: g.hash}
    for f in ps.own_files:
        facts[f.payload.seq] = f.hash
    dice: dict[str, list[float]] = {side: [0, 0.0] for side in sides}
    seen: set[tuple[int, int, int]] = set()
    for vf in ps.views:
        view = vf.payload
        facts[view.seq] = view.tip
        senders = {p.seq: p.sender for p in view.proofs}
        for r in view.rolls:
            key = (r["seq"], r["action"], r["index"])
            who = senders.get(r["seq"])
            if key in seen or who not in dice or r.get("visible_to", "all") != "all":
                continue
            seen.add(key)
            dice[who][0] += 1
            dice[who][1] += _z(r["sides"], r["value"])
    outcome = msgspec.convert(v.outcome, type=Outcome) if v is not None and v.outcome else None
    pending = sorted({d.side for d in msgspec.convert(v.pending, type=list[Decision])}
                     ) if v is not None else []
    if v is not None and ps.own_by_seq().get(v.seq + 1) is not None:
        # It answered its latest view: it owes nothing until the referee's next view, which
        # comes once it must decide again (docs/protocol.md, views only when owed).
        pending = [p for p in pending if p != ps.info.party]
    turn = v.report.get("turn", 0) if v is not None and isinstance(v.report, dict) else 0
    return GameFacts(
        game_id=g.game_id, genesis=g.hash, game=ps.game.id, title=ps.game.title,
        scenario=g.p.scenario, mode=g.mode, party=ps.info.party, kind="hosted-player",
        pubs={side: g.pubs[side] for side in sides}, reply_days=g.p.policy.reply_days,
        outcome=outcome, files=v.seq if v is not None else 0, turns=int(turn or 0),
        facts=facts, dice={k: (int(x[0]), float(x[1])) for k, x in dice.items()},
        pending=pending, last_seq=v.seq if v is not None else 0,
        last_hash=v.tip if v is not None else g.hash, last_sender=None, sides=sides)


def consistent(a: dict[int, str], b: dict[int, str]) -> int | None:
    """The first sequence number at which two archives' chains differ, or None."""
    for seq in sorted(set(a) & set(b)):
        if a[seq] != b[seq]:
            return seq
    return None


class Audited(msgspec.Struct, kw_only=True):
    """A submitted archive after the audit: its facts and the zip of the copy audited."""

    path: str
    facts: GameFacts
    zip: bytes
    digest: str
    what: str = "archive"        # archive (a folder) or record (a one-file game record)


def audit_submission(path: str | Path, *, require_over: bool = True,
                     unrevealed: bool = False) -> Audited:
    """Copy, audit and read an archive folder or a one-file game record (the record's full
    verification: strict reading, the audit of the archive it holds, its stated result);
    LadderError (one line) if it does not verify, or (require_over) if its game is not over.
    A sealed game over without both final reveals is refused unless unrevealed (a forfeit
    claim's archive: facts.unrevealed names the sides missing)."""
    shown = str(path)
    with snapshot(path) as (copy, rec):
        what = "archive" if rec is None else "record"
        result, loaded = audit(copy)
        if not result.ok:
            first = result.problems[0].replace(str(copy), shown)
            more = f" (and {len(result.problems) - 1} more problems)" if len(
                result.problems) > 1 else ""
            raise LadderError(f"{shown}: the {what} does not verify: {first}{more}")
        if not loaded.genesis.complete:
            raise LadderError(f"{shown}: the game has not started (not every party has "
                              "accepted the proposal)")
        if rec is not None:
            from pbem.core.errors import PbemError
            from pbem.records.ladder_input import check_after_audit

            try:
                check_after_audit(rec, copy, result)
            except PbemError as e:
                raise LadderError(f"{shown}: the record does not verify: "
                                  f"{_unnamed(e, Path(shown))}") from None
        try:
            facts = facts_of(loaded)
            facts.faces = face_counts(loaded)
        except Exception as e:  # noqa: BLE001 - an archive the audit passed but we cannot read
            raise LadderError(f"{shown}: cannot read the verified archive ({e})") from None
        if facts.mode == "sealed":
            from pbem.protocol.sealing import missing_final_reveals

            # the audit replayed the game with full information only if both reveals are in
            missing = missing_final_reveals(loaded)
            if missing and unrevealed and facts.outcome is not None:
                facts.unrevealed = missing
            elif missing:
                whose = (f"{missing[0]}'s is" if len(missing) == 1
                         else f"{' and '.join(missing)}'s are")
                raise LadderError(f"{shown}: a sealed game counts only with both final "
                                  f"reveals; {whose} not in this {what}, so its hidden moves "
                                  "are not audited (a missing final reveal is a forfeit: "
                                  "claim it)")
        elif facts.mode not in ("peer", "hosted"):
            raise LadderError(f"{shown}: {facts.mode} games are not accepted by this ladder")
        if require_over and facts.outcome is None:
            raise LadderError(f"{shown}: the game is not over in this {what} (file "
                              f"{facts.last_seq}): submit it once it has ended, after "
                              "receiving its last files")
        data = zip_folder(copy, f"{facts.game_id}-{facts.party}")
    return Audited(path=shown, facts=facts, zip=data, digest=sha256_hex(data), what=what)
