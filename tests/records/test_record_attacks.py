"""Attacks on one-file records and on the commands that write next to them (security review):
an equivocation hidden in a second entry of one path or under rejected/, and an --out among an
archive's own files. Each attack goes through the real commands."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core.keys import load_private
from pbem.core.records import SignedFile, Turn, open_text, seal
from pbem.records.record import Entry, genesis_of, parse_record, render


def run(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def one_error(r, code: int, *words: str) -> str:
    """The command failed with this exit status and one line 'Error: ...' holding words."""
    assert r.exit_code == code, r.output
    lines = r.output.strip().splitlines()
    errors = [ln for ln in lines if ln.startswith("Error: ")]
    assert len(errors) == 1 and "Traceback" not in r.output, r.output
    for w in words:
        assert w in errors[0], errors[0]
    return errors[0]


def fork_of(archive: Path, keys: Path, seq: int) -> SignedFile:
    """A second, different file with the chain's sequence number seq, signed by its sender."""
    [path] = (archive / "files").glob(f"{seq:04d}-*.pbem")
    f = open_text(path.read_text())
    t: Turn = f.payload  # type: ignore[assignment]
    other = msgspec.structs.replace(t, message="the version the ladder director sees")
    return seal(other, load_private(keys / f"{t.sender}.key"))


def with_entries(text: str, extra: list[Entry], before: str) -> str:
    """A record re-rendered with extra entries inserted before the entry of path before."""
    rec = parse_record(text)
    at = rec.paths().index(before)
    entries = [*rec.entries[:at], *extra, *rec.entries[at:]]
    return render(rec.party, rec.result, entries, genesis_of(entries, "x"))


@pytest.fixture(scope="module")
def peer_record(dash_peer, tmp_path_factory) -> Path:
    """red's record of the finished peer game, written by `pbem export`."""
    out = tmp_path_factory.mktemp("peer-record") / "red.pbemrec"
    assert run("export", dash_peer / "red", "--out", out).exit_code == 0
    return out


def _chain_entry(record: Path, seq: int) -> tuple[str, Entry]:
    rec = parse_record(record.read_text())
    for path, e in zip(rec.paths(), rec.entries):
        if e.folder == "files" and isinstance(e.file.payload, Turn) and e.file.payload.seq == seq:
            return path, e
    raise AssertionError(seq)


def test_a_second_entry_of_one_path_is_refused(dash_peer, peer_record, tmp_path):
    """A forked file 4 inserted as a second files/0004-... entry before the real one (the
    archive written from the record kept the last, so verify said OK), or an exact copy."""
    path, real = _chain_entry(peer_record, 4)
    forked = Entry("files", fork_of(dash_peer / "red", dash_peer / "keys", 4))
    for name, extra in (("forked", forked), ("copy", real)):
        bad = tmp_path / f"{name}.pbemrec"
        bad.write_text(with_entries(peer_record.read_text(), [extra], path), encoding="ascii")
        err = one_error(run("verify", bad), 1, f"{bad.name}: entry", path, "same path")
        assert "\n" not in err
        one_error(run("import", bad, "--dir", tmp_path / f"{name}-dir"), 1, "same path")
        assert not (tmp_path / f"{name}-dir").exists()


def test_a_forked_file_under_rejected_in_a_peer_record_is_equivocation(dash_peer, peer_record,
                                                                        tmp_path):
    """The forked file 4 as a rejected/ entry: proven equivocation (exit 3), as in evidence/;
    a copy of the chain's own file there is refused (a peer archive keeps no refused files)."""
    path, real = _chain_entry(peer_record, 4)
    forked = fork_of(dash_peer / "red", dash_peer / "keys", 4)
    bad = tmp_path / "rejected.pbemrec"
    bad.write_text(with_entries(peer_record.read_text(), [Entry("rejected", forked)], path))
    err = one_error(run("verify", bad), 3, "rejected/0004-", "equivocation")
    assert forked.hash[:16] in err
    copy = tmp_path / "copy.pbemrec"
    copy.write_text(with_entries(peer_record.read_text(), [Entry("rejected", real.file)], path))
    one_error(run("verify", copy), 1, "rejected/0004-", "a peer archive keeps no refused files")
    # the same in an archive folder
    folder = tmp_path / "folder"
    shutil.copytree(dash_peer / "red", folder)
    (folder / "rejected").mkdir(exist_ok=True)
    (folder / "rejected" / f"0004-x-{forked.hash[:16]}.pbem").write_text(forked.text)
    one_error(run("verify", folder), 3, "equivocation")


def test_a_forked_file_under_rejected_without_a_rejection_in_a_hosted_record(dash_hosted,
                                                                               tmp_path):
    """Hosted mode: a rejected/ entry needs a matching signed rejection; a forked player file
    there without one is equivocation, any other file is refused."""
    rec = tmp_path / "referee.pbemrec"
    assert run("export", dash_hosted / "referee", "--out", rec).exit_code == 0
    path, real = _chain_entry(rec, 3)
    forked = fork_of(dash_hosted / "referee", dash_hosted / "keys", 3)
    bad = tmp_path / "bad.pbemrec"
    bad.write_text(with_entries(rec.read_text(), [Entry("rejected", forked)], path))
    one_error(run("verify", bad), 3, "rejected/0003-", "equivocation")
    # another game's signed file (the proposal's sender is nobody's chain): refused
    other = seal(msgspec.structs.replace(real.file.payload, game_id="0" * 32),
                 load_private(dash_hosted / "keys" / f"{real.file.payload.sender}.key"))
    stray = tmp_path / "stray.pbemrec"
    stray.write_text(with_entries(rec.read_text(), [Entry("rejected", other)], path))
    one_error(run("verify", stray), 1, "rejected/0003-",
              "not the refused file of any signed rejection")
