"""Every signed file of a game put where an archive keeps another one (the attack of whoever
hands over an archive to audit: a ladder director's `pbem verify`, a club's `pbem status`): each
slot of files/ of a peer archive, a hosted player's and the referee's, and names no archive of
that kind keeps (a player's view in a peer or referee archive, a rejection, a file number never
reached), filled with a copy of a file of each kind (proposal, acceptance, either side's turn
file, the referee's record, a player's view, a referee's kept view).

Whatever the swap, `pbem verify`, `pbem status` and `pbem log` end with one line, never an
internal error (exit 4), leave the archive as it was, and `pbem verify` never passes an archive
whose files differ from the honest one. Before session 30 a rejection slot or a referee's
kept view holding another file stopped `verify` or `status` with an AttributeError, a hosted
player's own file stored under another number passed `verify`, and so did a stray player's
view in a peer or referee archive."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixtures.table import Table, snapshot


def _game(tmp: Path, mode: str) -> Table:
    t = Table(tmp, mode=mode)
    for _ in range(5):
        t.deliver()
        if t.mover() is None:
            break
        t.play_one()
    t.deliver()
    return t


def _one_of_each_kind(paths: list[Path]) -> list[Path]:
    """The first file of each kind of name (proposal, acceptance, a side's turn, the
    referee's, a player's view, a kept view of either side)."""
    seen: dict[str, Path] = {}
    for p in paths:
        kind = p.name[5:-5] if p.name[:4].isdigit() else p.name.rsplit("-", 1)[0]
        seen.setdefault(kind, p)
    return list(seen.values())


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_any_signed_file_in_any_slot_is_one_line_and_never_passes(tmp_path, mode):
    t = _game(tmp_path / "game", mode)
    parties = [*t.sides, *(["host"] if mode == "hosted" else [])]
    sources = _one_of_each_kind(sorted(p for q in parties
                                       for p in (t.dirs[q] / "files").glob("*.pbem")))
    tried = 0
    for party in parties:
        honest = t.dirs[party]
        files = honest / "files"
        slots = [p.name for p in sorted(files.glob("*.pbem"))] + [
            "reject-0001-0123456789abcdef.pbem", "view-0099.pbem", "view-red-0099.pbem",
            "0099-red.pbem"]
        for slot in slots:
            for src in sources:
                if (files / slot).is_file() and (files / slot).read_bytes() == src.read_bytes():
                    continue
                work = tmp_path / "work"
                shutil.copytree(honest, work)
                shutil.copy(src, work / "files" / slot)
                before = snapshot(work)
                for cmd in ("verify", "status", "log"):
                    r = t.run(cmd, str(work))
                    where = (party, slot, str(src.relative_to(t.tmp)), cmd, r.output)
                    assert r.exit_code != 4, where
                    if cmd == "verify":
                        assert r.exit_code != 0, where
                    if r.exit_code:
                        assert r.output.startswith("Error: ") or cmd == "verify", where
                        assert len(r.output.strip().splitlines()) == 1 or cmd == "verify", where
                assert snapshot(work) == before, (party, slot, src.name)
                shutil.rmtree(work)
                tried += 1
    assert tried > 50
