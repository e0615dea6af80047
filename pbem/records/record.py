"""The one-file game record: every signed file of one archive as armored blocks, in order.

A record is plain ASCII text: a readable header, then one entry per signed file (an entry
line naming the file's place in the archive, then the file exactly as the archive stores
it: its unsigned summary and its armored block), then an end line. Everything that is not a
signed block is derived from the signed files (the header, the entry lines, the summaries,
the order of the entries), except two facts: whose archive it is (`archive of:`) and the
result the exporter's replay found (`result:`, checked against the replay when the record is
verified). Reading is strict: the text must be exactly what exporting its contents gives,
so any changed byte is caught, as in an archive (docs/records.md).

A record never holds the party's dice secret (secret/), caches, reports or outbox: only
signed files. An imported archive can be verified, replayed and exported again, not played.
"""

from __future__ import annotations

import re
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, NamedTuple

from pbem.core.errors import FileRejected, PbemError
from pbem.core.inputs import read_limited
from pbem.core.keys import fingerprint
from pbem.core.records import (Acceptance, Proposal, Rejection, SignedFile, Turn, ViewFile,
                               open_text, read_file)
from pbem.protocol.archive import Archive, ArchiveInfo, create_in_place
from pbem.protocol.genesis import HOST, Genesis

MAX_RECORD_BYTES = 256 * 1024 * 1024
FIRST_LINE = "pbem game record, format 1: every signed file of one archive, in order."
FOLDERS = ("files", "rejected", "evidence")
_ENTRY = re.compile(r"^== entry (\d+) of (\d+): ([a-z]+)/(.*)$", re.M)
_END = "== end of record: {n} entries\n"
_SAFE = re.compile(r"^[a-z0-9][a-z0-9_.-]*\.pbem$")
_KIND = {Proposal: "proposal", Acceptance: "accept", Turn: "turn", ViewFile: "view",
         Rejection: "reject"}


class EntryRejected(FileRejected):
    """A signed block of a record that does not open (the record's entry, as a file stored in
    an archive folder, fails the audit: exit 3 alike)."""


class Entry(NamedTuple):
    """One signed file of a record and the folder of the archive it belongs in."""

    folder: str                # files | rejected | evidence
    file: SignedFile


class Record(NamedTuple):
    """A parsed record: whose archive, the result the exporter found, the entries in order."""

    party: str
    result: str
    entries: list[Entry]
    name: str = "record"

    @property
    def proposal(self) -> Proposal:
        """The game's proposal (the first entry)."""
        return self.entries[0].file.payload  # type: ignore[return-value]

    def paths(self) -> list[str]:
        """The archive path of every entry, in order."""
        return [f"{e.folder}/{entry_name(e, self.party)}" for e in self.entries]


# -- names and order -----------------------------------------------------------------------
def entry_name(e: Entry, party: str) -> str:
    """The file name of an entry in its folder, derived from its payload (see archive.py)."""
    p, f = e.file.payload, e.file
    if e.folder == "evidence":
        name = f"{_KIND[type(p)]}-{f.hash[:16]}.pbem"
    elif e.folder == "rejected":
        if not isinstance(p, Turn):
            raise FileRejected(f"{f.name}: only a refused turn file belongs under rejected/")
        name = f"{p.seq:04d}-{p.sender}-{f.hash[:16]}.pbem"
    elif isinstance(p, Proposal):
        name = "0000-proposal.pbem"
    elif isinstance(p, Acceptance):
        name = f"0000-accept-{p.party}.pbem"
    elif isinstance(p, Turn):
        name = f"{p.seq:04d}-{p.sender}.pbem"
    elif isinstance(p, ViewFile):
        name = f"view-{p.side}-{p.seq:04d}.pbem" if party == HOST else f"view-{p.seq:04d}.pbem"
    else:
        name = f"reject-{p.seq:04d}-{p.file[:16]}.pbem"
    if not _SAFE.match(name):
        raise FileRejected(f"{f.name}: its payload gives no valid file name ({name!r})")
    return name


def _order(e: Entry, party: str) -> tuple[int, int, int, str]:
    """Chronological order: the genesis, then per sequence number the refused file, its
    rejection, the file in the chain and the views of it; evidence last."""
    p = e.file.payload
    name = entry_name(e, party)
    if e.folder == "evidence":
        return (1, 0, 0, name)
    if isinstance(p, Proposal):
        return (0, 0, 0, name)
    if isinstance(p, Acceptance):
        return (0, 0, 1, name)
    seq = p.seq  # type: ignore[union-attr]
    rank = 2 if e.folder == "rejected" else {Rejection: 3, Turn: 4, ViewFile: 5}[type(p)]
    return (0, seq, rank, name)


# -- the derived header --------------------------------------------------------------------
def _clean(text: str, limit: int = 60) -> str:
    """Printable ASCII, never an armor marker, bounded (player names are untrusted)."""
    out = "".join(c if " " <= c <= "~" else "?" for c in text)[:limit]
    while "-----" in out:
        out = out.replace("-----", "----")
    return out.replace("==", "=")


def genesis_of(entries: list[Entry], name: str) -> Genesis:
    """The verified genesis of a record's entries (proposal and acceptances under files/)."""
    from pbem.core.registry import find_game

    if not entries or not isinstance(entries[0].file.payload, Proposal):
        raise FileRejected(f"{name}: the first entry is not the game's proposal")
    prop = entries[0].file
    try:
        game = find_game(prop.payload.game)  # type: ignore[union-attr]
    except PbemError as e:
        raise FileRejected(f"{name}: {e}") from None
    g = Genesis(game, prop)
    for e in entries[1:]:
        if e.folder == "files" and isinstance(e.file.payload, Acceptance):
            g.add_acceptance(e.file)
    return g


def header(party: str, entries: list[Entry], result: str, genesis: Genesis) -> str:
    """The readable header: every line derived from the signed files but party and result."""
    p = genesis.p
    lines = [FIRST_LINE,
             "Only the signed blocks count; the rest is for reading. Check it with:",
             "    pbem verify THIS-FILE",
             "",
             f"archive of: {party}",
             f"game: {_clean(genesis.game.title)} ({p.game}), scenario {p.scenario}, "
             f"{p.mode} mode",
             f"game id: {genesis.game_id if genesis.complete else 'none yet (genesis incomplete)'}"]
    for k in sorted(p.parties, key=lambda k: k.party):
        nm = f' "{_clean(k.name)}"' if k.name else ""
        lines.append(f"party {k.party}:{nm} key {fingerprint(genesis.pubs[k.party])}")
    kinds = ["proposal", "acceptances", "turn files", "views", "rejections", "refused files",
             "evidence"]
    one = {"acceptances": "acceptance", "turn files": "turn file", "views": "view",
           "rejections": "rejection", "refused files": "refused file"}
    counts = dict.fromkeys(kinds, 0)
    for e in entries:
        what = ("evidence" if e.folder == "evidence" else "refused files"
                if e.folder == "rejected" else {Proposal: "proposal", Acceptance: "acceptances",
                                                Turn: "turn files", ViewFile: "views",
                                                Rejection: "rejections"}[type(e.file.payload)])
        counts[what] += 1
    lines.append(f"files: {len(entries)} (" + ", ".join(f"{n} {one.get(k, k) if n == 1 else k}"
                                                          for k, n in counts.items() if n) + ")")
    lines.append(f"result: {result}")
    return "\n".join(lines) + "\n\n"


def render(party: str, result: str, entries: list[Entry], genesis: Genesis) -> str:
    """The record's text: header, entries in canonical order, end line."""
    entries = sorted(entries, key=lambda e: _order(e, party))
    out = [header(party, entries, result, genesis)]
    n = len(entries)
    for i, e in enumerate(entries, 1):
        out.append(f"== entry {i} of {n}: {e.folder}/{entry_name(e, party)}\n")
        out.append(e.file.text)
        out.append("\n")
    out.append(_END.format(n=n))
    return "".join(out)


# -- export --------------------------------------------------------------------------------
def archive_entries(root: str | Path) -> list[Entry]:
    """Every signed file of an archive (files/, rejected/, evidence/), read strictly; never
    secret/, cache/, reports/ or outbox/."""
    a = Archive(root)
    paths = [*a.signed_files(), *a.rejection_files(), *a.view_files(), *a.sent_view_files()]
    out = [Entry("files", read_file(p, strict=True)) for p in paths]
    for folder in ("rejected", "evidence"):
        d = a.root / folder
        if d.is_dir():
            out.extend(Entry(folder, read_file(p, strict=True))
                       for p in sorted(d.glob("*.pbem")) if not p.name.startswith("."))
    return out


def _export(root: str | Path) -> tuple[str, Any, int]:
    """(record text, the verified game, number of entries) of an archive folder."""
    from pbem.records.source import load_verified

    g = load_verified(root)
    if g.party in g.unrevealed():
        # the record holds signed files only: this side's real orders stay in private/ until
        # its final reveal, and without them nothing could read the record
        raise PbemError(f"{root}: a sealed game's record is made once this side's final "
                        f"reveal is in ({g.party}'s real orders stay in its private/ folder "
                        "until then, and a record carries signed files only)")
    entries = archive_entries(root)
    return render(g.party, g.result, entries, g.genesis), g, len(entries)


def export_text(root: str | Path) -> str:
    """Verify an archive and return its one-file record; PbemError if it does not verify."""
    return _export(root)[0]


def write_shared(path: str | Path, data: str | bytes, *, durable: bool = True) -> None:
    """Write a file meant to be shared or published (a record, a replay page, a library):
    atomically, readable as the umask allows (an archive's own files stay private)."""
    import os

    from pbem.protocol.archive import atomic_write

    p = Path(path)
    atomic_write(p, data, durable=durable)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(p, 0o666 & ~mask)


def outside_archives(out: str | Path) -> None:
    """PbemError if out (a file or folder a command writes) lies among the own files
    (files/, evidence/, rejected/, ...) of any archive folder that contains it: walks up from
    out to every folder holding archive.json (pages written there would make it fail)."""
    from pbem.protocol.archive import Archive

    path = Path(out).resolve()
    for folder in [path, *path.parents]:
        archive = Archive(folder)
        try:
            found = archive.exists()
        except OSError:                     # a folder we may not look into holds no archive
            continue
        if found:
            archive.check_out(out)


def export_archive(root: str | Path, out: str | Path) -> tuple[str, int]:
    """Write the record of an archive to out (atomically); returns (result, entries)."""
    outside_archives(out)
    text, g, n = _export(root)
    write_shared(out, text)
    return g.result, n


# -- reading -------------------------------------------------------------------------------
def read_record_text(path: str | Path) -> str:
    """The text of a record file (a regular file, bounded, ASCII)."""
    p = Path(path)
    raw = read_limited(p, MAX_RECORD_BYTES, what="record", error=FileRejected)
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as e:
        raise FileRejected(f"{p.name}: not a pbem game record (byte {e.start} is not ASCII)") from None
    # a record saved with Windows line ends: the same text (signatures cover the payloads,
    # which are base64 on lines of their own); any other change is still refused
    crlf = text.count("\r\n")
    return text.replace("\r\n", "\n") if crlf and crlf == text.count("\n") else text


def read_record(path: str | Path) -> Record:
    """Read and parse a record file strictly (see parse_record)."""
    return parse_record(read_record_text(path), name=Path(path).name)


def _field(head: str, key: str, name: str) -> str:
    m = re.search(rf"^{key}: (.*)$", head, re.M)
    if m is None:
        raise FileRejected(f"{name}: the record's header has no '{key}:' line")
    return m.group(1)


def parse_record(text: str, *, name: str = "record") -> Record:
    """Parse a record's text strictly: every block must open, every entry name and header
    line must be the one its contents give, and the whole text must be exactly the record
    those contents render to. FileRejected names the record, the entry and the problem."""
    if not text.startswith(FIRST_LINE + "\n"):
        raise FileRejected(f"{name}: not a pbem game record (the first line is not "
                           f"'{FIRST_LINE}')")
    marks = list(_ENTRY.finditer(text))
    if not marks:
        raise FileRejected(f"{name}: the record holds no entry")
    head = text[:marks[0].start()]
    party, result = _field(head, "archive of", name), _field(head, "result", name)
    entries: list[Entry] = []
    for i, m in enumerate(marks):
        folder, fname = m.group(3), m.group(4)
        where = f"{name}: entry {i + 1} ({folder}/{fname})"
        if folder not in FOLDERS:
            raise FileRejected(f"{where}: unknown folder {folder!r}")
        stop = marks[i + 1].start() if i + 1 < len(marks) else text.find("\n== end of record:",
                                                                          m.end()) + 1
        if stop <= 0:
            raise FileRejected(f"{name}: the record has no end line (truncated?)")
        body = text[m.end() + 1:stop]
        if not body.endswith("\n\n"):
            raise FileRejected(f"{where}: an entry must end with a blank line")
        try:
            f = open_text(body[:-1], name=f"{name}: {folder}/{fname}", strict=True)
        except FileRejected as e:
            raise EntryRejected(str(e)) from None
        e = Entry(folder, f)
        want = entry_name(e, party)
        if want != fname:
            raise FileRejected(f"{where}: the name does not fit the signed file it holds "
                               f"(its contents give {folder}/{want})")
        entries.append(e)
    _unique_paths(entries, party, name)
    genesis = genesis_of(entries, name)
    if party not in genesis.pubs:
        raise FileRejected(f"{name}: 'archive of: {party}' names no party of this game")
    again = render(party, result, entries, genesis)
    if again != text:
        raise FileRejected(f"{name}: {_first_difference(text, again)}")
    return Record(party, result, entries, name)


def _unique_paths(entries: list[Entry], party: str, name: str) -> None:
    """FileRejected if two entries name one archive path (an archive holds one file there, so
    the second would be written over the first, hiding what it holds: an equivocation)."""
    seen: dict[str, int] = {}
    for i, e in enumerate(entries, 1):
        path = f"{e.folder}/{entry_name(e, party)}"
        if path in seen:
            raise FileRejected(f"{name}: entry {i} ({path}): a second entry with the same path "
                               f"as entry {seen[path]} (a record holds each file once)")
        seen[path] = i


def _first_difference(got: str, want: str) -> str:
    """Where a record differs from the canonical text of its own contents."""
    a, b = got.split("\n"), want.split("\n")
    for i, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            what = "the header" if y and not y.startswith("== ") and i < 20 else "an entry line"
            return (f"line {i} differs from what its signed files give ({what}; expected "
                    f"{_clean(y, 80)!r})")
    return (f"the record's length differs from what its signed files give ({len(a)} lines, "
            f"expected {len(b)})")


# -- import --------------------------------------------------------------------------------
def write_entries(rec: Record, root: Path, *, durable: bool = True) -> None:
    """Write a record's signed files into an archive folder (durable: atomic, fsynced)."""
    from pbem.protocol.archive import atomic_write

    for e, path in zip(rec.entries, rec.paths()):
        target = root / path
        if durable:
            atomic_write(target, e.file.text)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(e.file.text, encoding="ascii")


def archive_info(rec: Record) -> ArchiveInfo:
    """The archive.json of the archive a record holds."""
    return ArchiveInfo(party=rec.party, proposal=rec.entries[0].file.hash)


@contextmanager
def materialized(rec: Record) -> Iterator[Path]:
    """A temporary archive folder holding a record's files (removed afterwards; written
    without fsync: it only lives while it is verified or read)."""
    import msgspec

    with tempfile.TemporaryDirectory(prefix="pbem-record-") as tmp:
        root = Path(tmp) / "archive"
        root.mkdir()
        (root / "archive.json").write_bytes(msgspec.json.encode(archive_info(rec)))
        write_entries(rec, root, durable=False)
        yield root


def import_record(path: str | Path, root: str | Path) -> tuple[Record, Any]:
    """Import a record into a new archive folder, which must not exist or be empty. The
    record is verified first (as `pbem verify` does); nothing is written unless it verifies.
    Returns (record, the verified game)."""
    from pbem.records.source import load_verified

    outside_archives(root)
    rec = read_record(path)
    with materialized(rec) as tmp:
        g = load_verified(tmp, record=rec)
    create_in_place(Path(root), archive_info(rec), lambda a: write_entries(rec, a.root))
    return rec, g


def check_result(rec: Record, result: str) -> None:
    """The result the record states must be the one the replay gives."""
    if rec.result != result:
        raise FileRejected(f"{rec.name}: the record states the result {_clean(rec.result, 80)!r}"
                           f" but the replay gives {result!r}")
