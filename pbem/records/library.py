"""A library of games: index a folder of records into library.json and a browsable index.html.

Indexing is incremental and verifies each record once: every file is hashed, and a record
whose SHA-256 the old index holds (unchanged, moved or copied) is taken from it; size and
modification time are never trusted. Everything else is verified as `pbem verify` does, and
a record that cannot be read (too large, unreadable) or does not verify is listed with its
problem: one bad file never stops the library being written. With replays, a replay page
per record is written once (named by the record's hash).
"""

from __future__ import annotations

import hashlib
import os
from urllib.parse import quote
from pathlib import Path
from typing import Any, Callable

import msgspec

from pbem.core.errors import PbemError
from pbem.records.record import FIRST_LINE

FORMAT = "pbem-library/1"
Progress = Callable[[int, int, str], None]


class Player(msgspec.Struct, kw_only=True):
    party: str
    name: str = ""
    key: str = ""              # the key's fingerprint


class Item(msgspec.Struct, kw_only=True):
    """One record of the library."""

    file: str                  # path relative to the indexed folder
    size: int
    mtime_ns: int
    sha256: str
    ok: bool
    problem: str = ""
    game: str = ""
    game_title: str = ""
    scenario: str = ""
    mode: str = ""
    game_id: str = ""
    archive_of: str = ""
    created: str = ""
    players: list[Player] = []
    over: bool = False
    winner: str | None = None
    result: str = ""
    files: int = 0
    turns: int = 0
    dice: int = 0
    replay: str = ""           # relative to the library folder, when built


class Index(msgspec.Struct, kw_only=True):
    format: str = FORMAT
    records: list[Item] = []


class Built(msgspec.Struct, kw_only=True):
    """What a run did."""

    total: int = 0
    verified: int = 0          # verified in this run
    reused: int = 0            # taken from the previous index
    failed: int = 0            # records that cannot be read or do not verify
    no_replay: int = 0         # verified records whose replay page could not be made
    items: list[Item] = []


def is_record(path: Path) -> bool:
    """True for a regular file that starts as a pbem game record."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(FIRST_LINE)) == FIRST_LINE.encode("ascii")
    except OSError:
        return False


def find_records(root: Path, skip: Path | None = None) -> list[Path]:
    """Every record under root (hidden files and folders, and skip, left out), sorted."""
    out = []
    skip_abs = skip.resolve() if skip is not None else None
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and (skip_abs is None or (here / d).resolve() != skip_abs))
        for n in sorted(names):
            p = here / n
            if not n.startswith(".") and p.is_file() and not p.is_symlink() and is_record(p):
                out.append(p)
    return out


def read_index(out: Path) -> Index:
    """The index of an earlier run (empty if none or unreadable)."""
    try:
        return msgspec.json.decode((out / "library.json").read_bytes(), type=Index)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return Index()


def index_record(path: Path, rel: str, raw: bytes, st: os.stat_result,
                 digest: str) -> tuple[Item, Any]:
    """Verify one record and describe it; (item, the verified game or None)."""
    from pbem.records.record import materialized, parse_record
    from pbem.records.source import load_verified

    item = Item(file=rel, size=st.st_size, mtime_ns=st.st_mtime_ns, sha256=digest, ok=False)
    try:
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            raise PbemError(f"{path.name}: not a pbem game record (not ASCII)") from None
        rec = parse_record(text, name=path.name)
        with materialized(rec) as tmp:
            v = load_verified(tmp, record=rec)
    except PbemError as e:
        item.problem = str(e)
        return item, None
    g, p = v.genesis, v.genesis.p
    o = v.outcome
    names = v.names()
    item.ok = True
    item.game, item.game_title, item.scenario, item.mode = p.game, v.game.title, p.scenario, p.mode
    item.game_id = g.game_id if g.complete else ""
    item.archive_of, item.created = v.party, p.created
    item.players = [Player(party=k, name=names.get(k, ""), key=fp)
                    for k, fp in v.fingerprints().items()]
    item.over, item.winner = o is not None, o.winner if o else None
    item.result, item.files, item.turns = v.result, v.files, v.turn
    if v.session is not None:
        item.dice = sum(len(log.rolls) for log in v.session.log)
    elif v.player is not None:
        item.dice = sum(len(f.payload.rolls) for f in v.player.views)  # type: ignore[union-attr]
    return item, v


def build_library(root: str | Path, out: str | Path, *, replays: bool = False,
                  progress: Progress | None = None) -> Built:
    """Index every record under root into out/library.json and out/index.html. A record that
    cannot be read or does not verify is listed with its problem (counted in failed), and one
    whose replay page cannot be made keeps the reason in its problem: the library is written."""
    from pbem.records.record import outside_archives, write_shared

    root, out = Path(root), Path(out)
    if not root.is_dir():
        raise PbemError(f"{root}: not a folder")
    outside_archives(out)
    out.mkdir(parents=True, exist_ok=True)
    by_hash = {i.sha256: i for i in read_index(out).records if i.sha256}
    paths = find_records(root, skip=out)
    built = Built(total=len(paths))
    for n, path in enumerate(paths, 1):
        rel = path.relative_to(root).as_posix()
        item, v = _indexed(path, rel, by_hash, built)
        if replays and item.ok and not item.problem:
            item = _with_replay(path, item, out, v)
        built.failed += not item.ok
        built.no_replay += bool(item.ok and item.problem)
        built.items.append(item)
        if progress is not None:
            progress(n, len(paths), rel)
    index = Index(records=built.items)
    write_shared(out / "library.json", msgspec.json.encode(index), durable=False)
    write_shared(out / "index.html", render_index(index, root, out), durable=False)
    return built


def _indexed(path: Path, rel: str, by_hash: dict[str, Item], built: Built) -> tuple[Item, Any]:
    """One record's item: taken from the previous index only if the SHA-256 of its bytes is
    one the index holds, else verified; (item, the verified game or None)."""
    from pbem.core.inputs import read_limited
    from pbem.records.record import MAX_RECORD_BYTES

    try:
        st = path.stat()
        raw = read_limited(path, MAX_RECORD_BYTES, what="record")
    except (PbemError, OSError) as e:
        built.verified += 1
        return _unreadable(path, rel, e), None
    digest = hashlib.sha256(raw).hexdigest()
    known = by_hash.get(digest)
    if known is not None:
        built.reused += 1
        return msgspec.structs.replace(known, file=rel, size=st.st_size,
                                       mtime_ns=st.st_mtime_ns), None
    built.verified += 1
    return index_record(path, rel, raw, st, digest)


def _unreadable(path: Path, rel: str, e: Exception) -> Item:
    """The item of a record that cannot be read (too large, gone, not permitted)."""
    problem = str(e) if isinstance(e, PbemError) else f"{path.name}: cannot read ({e.strerror})"
    try:
        st = path.stat()
        size, mtime = st.st_size, st.st_mtime_ns
    except OSError:
        size, mtime = 0, 0
    return Item(file=rel, size=size, mtime_ns=mtime, sha256="", ok=False, problem=problem)


def _with_replay(path: Path, item: Item, out: Path, v: Any) -> Item:
    """The item with its replay page written, or with the reason there is none (a referee's
    game in progress shows one side only, chosen with `pbem replay --view`)."""
    try:
        rel = _replay(path, item, out, v)
    except PbemError as e:
        return msgspec.structs.replace(item, replay="", problem=f"no replay page: {e}")
    return msgspec.structs.replace(item, replay=rel)


def _replay(path: Path, item: Item, out: Path, v: Any) -> str:
    """The replay page of a record (written once per record content)."""
    from pbem.records.record import write_shared
    from pbem.records.replay import build_page
    from pbem.records.source import open_game

    rel = f"replays/{item.sha256[:20]}.html"
    target = out / rel
    if not target.exists():
        v = v or open_game(path)
        write_shared(target, build_page(v, path.read_text(encoding="ascii")), durable=False)
    return rel


def render_index(index: Index, root: Path, out: Path) -> str:
    """The browsable page: every record with filters (game, scenario, player, result, length)."""
    from pbem.reports.render import html_env
    from pbem.reports.svgmap import side_colour

    rows = []
    for it in index.records:
        # each part percent-encoded: a folder named 'javascript:...' is a path, not a scheme
        href = quote(os.path.relpath(root / it.file, out).replace(os.sep, "/"))
        outcome = ("invalid" if not it.ok else (it.winner or "draw") if it.over
                   else "in progress")
        rows.append({"it": it, "href": href, "outcome": outcome,
                     "players": ", ".join(f"{p.party}: {p.name or '-'}" for p in it.players
                                          if p.party != "host"),
                     "search": " ".join([p.name.lower() for p in it.players]
                                        + [p.key.lower() for p in it.players])})
    games = sorted({it.game for it in index.records if it.ok})
    scenarios = sorted({(it.game, it.scenario) for it in index.records if it.ok})
    outcomes = sorted({r["outcome"] for r in rows})
    lengths = [it.files for it in index.records] or [0]
    colours = {r["outcome"]: side_colour(r["outcome"]) for r in rows
               if r["outcome"] not in ("draw", "in progress", "invalid")}
    return html_env().get_template("records/library.html.j2").render(
        rows=rows, games=games, scenarios=scenarios, outcomes=outcomes,
        min_len=min(lengths), max_len=max(lengths), colours=colours, total=len(rows),
        ok=sum(1 for it in index.records if it.ok))
