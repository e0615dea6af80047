"""`pbem verify`'s collector settings (pbem.protocol.audit.audit_collector) and its look at
files/: what it leaves behind, and what it names."""

from __future__ import annotations

import gc

from click.testing import CliRunner

from fixtures.table import Table
from pbem.cli import cli
from pbem.protocol.audit import AUDIT_GC_THRESHOLD, audit_collector


class _Node:
    def __init__(self) -> None:
        self.me = self


def test_the_collector_is_restored_and_what_the_audit_left_is_still_collected():
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    with audit_collector():
        assert gc.get_threshold()[0] >= AUDIT_GC_THRESHOLD
        assert gc.get_freeze_count() > 0
        cycle = _Node()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    del cycle
    gc.collect()
    assert not any(isinstance(o, _Node) for o in gc.get_objects())


def test_a_freeze_made_by_the_caller_is_left_alone():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with audit_collector():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_files_dir_names_strays_notes_temporary_files_and_skips_folders(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    t.play_one(["pick alphawolf"])
    t.deliver()
    files = t.dirs["blue"] / "files"
    (files / ".0003-red.pbem.a1b2c3d4.tmp").write_text("half written\n")
    (files / ".0004-red.pbem.e5f6a7b8.tmp").mkdir()       # a folder: neither noted nor named
    (files / "junk-folder").mkdir()
    (files / "notes.txt").write_text("mine\n")
    r = CliRunner().invoke(cli, ["verify", str(t.dirs["blue"])])
    assert "notes.txt: unexpected file in files/" in r.output, r.output
    assert "junk-folder" not in r.output and ".0004-red" not in r.output
    (files / "notes.txt").unlink()
    r = CliRunner().invoke(cli, ["verify", str(t.dirs["blue"])])
    assert r.exit_code == 0, r.output
    assert "Note: 1 temporary file(s) in files/" in r.output
