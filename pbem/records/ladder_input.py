"""A one-file game record as input to the club ladder (`pbem ladder submit DB FILE`).

The ladder audits a private copy of what it is given. For a record, that copy is the
archive the record holds: `write_archive` reads the record strictly (`read_record`: every
block opened in canonical form, the text exactly what its own signed files render to) and
writes its signed files as an archive folder; the ladder then runs the same full audit on it
as on a submitted folder, and `check_after_audit` completes the record's verification as
`pbem verify FILE` does (the result the record states must be the one the replay gives).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from pbem.records.record import Record, archive_info, read_record, write_entries


def write_archive(path: str | Path, dest: Path) -> Record:
    """Read a record file strictly and write the archive it holds (archive.json and every
    signed file) into the empty folder dest; FileRejected if it is not a valid record."""
    rec = read_record(path)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "archive.json").write_bytes(msgspec.json.encode(archive_info(rec)))
    write_entries(rec, dest, durable=False)
    return rec


def check_after_audit(rec: Record, root: Path, audit: Any) -> None:
    """The rest of a record's verification once the folder it was written to passed the
    audit: the result the record states must be the replay's (FileRejected if not). Reuses
    what the audit replayed; nothing is replayed again."""
    from pbem.protocol.session import Session
    from pbem.records.source import load_verified

    replayed = [audit.loaded] if isinstance(audit.loaded, Session) else []
    load_verified(root, record=rec, audit=audit, replayed=replayed)
