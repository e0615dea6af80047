"""A peer or hosted game's file carrying a sealed game's fields (`commits`, `openings`, `final`)
passed every check, though docs/protocol.md gives them to sealed mode only (the replay page's
differential trial). The receiver now refuses such a file in one line, exit 1, its archive
untouched; so does `pbem verify` of an archive that holds one, and the replay page."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from fixtures.table import Table, snapshot
from pbem.core.keys import load_private
from pbem.core.commitment import Opening
from pbem.core.records import FactCommit, FinalReveal, read_file, seal

EXTRA = {
    "commits": [FactCommit(fact="red-1.unit", version=0, hash="00" * 32)],
    "openings": [Opening(fact="red-1.unit", version=0, salt="00" * 16, value="x")],
}


def _final() -> dict:
    return {"final": FinalReveal(fact_key="00" * 32, orders={})}


@pytest.mark.parametrize("field", ["commits", "openings", "final"])
def test_a_peer_file_with_a_sealed_field_is_refused(tmp_path: Path, field: str) -> None:
    t = Table(tmp_path)
    t.deliver()
    sender = t.mover()
    path = Path(t.play_one())
    t.inbox.clear()                                  # not delivered as signed
    f = read_file(path)
    extra = _final() if field == "final" else {field: EXTRA[field]}
    forged = seal(msgspec.structs.replace(f.payload, **extra), load_private(t.key(sender)),
                  name=path.name)
    bad = tmp_path / "forged.pbem"
    bad.write_text(forged.text)
    to = t.other(sender)
    before = snapshot(t.dirs[to])
    r = t.run("receive", str(t.dirs[to]), str(bad), "--key", t.key(to), "--out",
              str(tmp_path / "reply.pbem"))
    assert r.exit_code == 1, r.output
    assert r.output == (f"Error: forged.pbem: carries {field}, which only the files of a sealed "
                        "game carry (this game is in peer mode)\n")
    assert snapshot(t.dirs[to]) == before
    # the sender's own archive holds it in place of the real file: its audit fails too
    stored = next(p for p in (t.dirs[sender] / "files").glob("*.pbem")
                  if p.read_bytes() == path.read_bytes())
    stored.write_text(forged.text)
    r = t.run("verify", str(t.dirs[sender]))
    assert r.exit_code != 0 and f"carries {field}" in r.output, r.output
