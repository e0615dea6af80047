"""One-file game records: export, verify, import; byte changes caught; bad input refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.table import Table, snapshot
from pbem.cli import cli
from pbem.core.errors import FileRejected
from pbem.records.record import export_text, parse_record
from pbem.records.source import verify_record

SIGNED = ("files", "rejected", "evidence")


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def ok(*args: str):
    r = run(*args)
    assert r.exit_code == 0, (args, r.output)
    return r


def signed_tree(root: Path) -> dict[str, bytes]:
    """The signed files of an archive (and its archive.json), by path."""
    out = {"archive.json": (root / "archive.json").read_bytes()}
    for folder in SIGNED:
        for p in sorted((root / folder).glob("*.pbem")) if (root / folder).is_dir() else []:
            out[f"{folder}/{p.name}"] = p.read_bytes()
    return out


def round_trip(archive: Path, tmp: Path, name: str) -> str:
    rec = tmp / f"{name}.pbemrec"
    r = ok("export", str(archive), "--out", str(rec))
    assert "signed files" in r.output
    r = ok("verify", str(rec))
    assert r.output.rstrip().endswith("OK: the record verifies.")
    copy = tmp / f"{name}-copy"
    ok("import", str(rec), "--dir", str(copy))
    assert signed_tree(copy) == signed_tree(archive)
    assert not (copy / "secret").exists()
    ok("verify", str(copy))
    again = tmp / f"{name}-again.pbemrec"
    ok("export", str(copy), "--out", str(again))
    assert again.read_bytes() == rec.read_bytes()
    return rec.read_text(encoding="ascii")


def test_peer_archives_round_trip_byte_for_byte(dash_peer, tmp_path):
    for side in ("red", "blue"):
        text = round_trip(dash_peer / side, tmp_path, side)
        assert f"archive of: {side}\n" in text
        assert "result: red wins" in text or "result: blue wins" in text
        # only signed files: never the dice secret, a cache or a report
        secret = (dash_peer / side / "secret" / "dice.json").read_bytes()
        assert secret[:40].decode("ascii", "replace") not in text
        for word in ("secret/", "cache/", "reports/", "outbox/"):
            assert word not in text


def test_hosted_archives_round_trip_with_rejections(tmp_path):
    from fixtures.record_games import hosted_with_rejection

    t = hosted_with_rejection(tmp_path / "game")
    for party in ("host", "red", "blue"):
        text = round_trip(t.dirs[party], tmp_path, party)
        if party in ("host", "red"):
            assert "files/reject-0001-" in text and "rejected/0001-red-" in text


def test_the_record_is_readable_text(dash_peer):
    text = export_text(dash_peer / "red")
    assert text.isascii() and "\r" not in text
    head = text.split("\n== entry 1 of")[0]
    assert all(len(line) <= 100 for line in head.splitlines())
    assert "Check it with:" in head and "pbem verify THIS-FILE" in head
    assert "game: Dash (test game) (dash), scenario short, peer mode" in head
    # one of a kind reads in the singular (the header said "1 acceptances")
    assert "(1 proposal, 1 acceptance, " in head and "turn files)" in head
    rec = parse_record(text)
    assert rec.paths()[0] == "files/0000-proposal.pbem"
    assert rec.paths()[1] == "files/0000-accept-blue.pbem"
    assert rec.paths()[2:4] == ["files/0001-red.pbem", "files/0002-blue.pbem"]


@pytest.fixture(scope="module")
def dash_record(dash_peer, tmp_path_factory) -> bytes:
    return export_text(dash_peer / "red").encode("ascii")


def _unsigned_positions(raw: bytes) -> list[int]:
    """Byte offsets outside the armored blocks: header, entry lines, summaries."""
    out, inside = [], False
    pos = 0
    for line in raw.split(b"\n"):
        if line.startswith(b"-----BEGIN"):
            inside = True
        if not inside:
            out.extend(range(pos, pos + len(line) + 1))
        if line.startswith(b"-----END"):
            inside = False
        pos += len(line) + 1
    return [p for p in out if p < len(raw)]


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_single_byte_change_is_caught(dash_record, tmp_path, data):
    raw = dash_record
    unsigned = _unsigned_positions(raw)
    pos = data.draw(st.one_of(st.integers(0, len(raw) - 1), st.sampled_from(unsigned)))
    byte = data.draw(st.integers(0, 255).filter(lambda b: b != raw[pos]))
    bad = tmp_path / "bad.pbemrec"
    bad.write_bytes(raw[:pos] + bytes([byte]) + raw[pos + 1:])
    audit = verify_record(bad)
    assert not audit.ok, (pos, byte)
    assert all(p.startswith("bad.pbemrec") for p in audit.problems), audit.problems


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keep=st.integers(0, 40), side=st.sampled_from(["red", "blue"]))
def test_export_import_of_any_stage_of_a_game_is_byte_identical(dash_peer, tmp_path_factory,
                                                                 keep, side):
    """An archive cut after any number of turn files (a game in progress) exports, imports
    and exports again to the same bytes, and the copy holds the same signed files."""
    from pbem.records.record import import_record

    tmp = tmp_path_factory.mktemp("stage")
    src = tmp / "archive"
    shutil.copytree(dash_peer / side, src)
    for p in sorted((src / "files").glob("*.pbem")):
        seq = int(p.name[:4])
        if seq > keep:
            p.unlink()
    shutil.rmtree(src / "cache", ignore_errors=True)
    text = export_text(src)
    rec = tmp / "r.pbemrec"
    rec.write_text(text, encoding="ascii")
    import_record(rec, tmp / "copy")
    assert signed_tree(tmp / "copy") == signed_tree(src)
    assert export_text(tmp / "copy") == text
    assert parse_record(text).result.startswith(("not over", "red wins", "blue wins"))


def test_a_stated_result_that_the_replay_does_not_give_is_caught(dash_record, tmp_path):
    text = dash_record.decode("ascii")
    winner = "red" if "result: red wins" in text else "blue"
    loser = "blue" if winner == "red" else "red"
    bad = tmp_path / "bad.pbemrec"
    bad.write_text(text.replace(f"result: {winner} wins", f"result: {loser} wins", 1))
    r = run("verify", str(bad))
    assert r.exit_code == 1
    assert "bad.pbemrec: the record states the result" in r.output


def test_entries_in_another_order_are_refused(dash_record):
    text = dash_record.decode("ascii")
    parts = text.split("\n== entry ")
    swapped = "\n== entry ".join([parts[0], parts[1], parts[3], parts[2], *parts[4:]])
    with pytest.raises(FileRejected):
        parse_record(swapped, name="x")


def _one_error(r, *words: str) -> str:
    assert r.exit_code == 1, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), r.output
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def test_bad_records_get_one_line_errors_and_import_writes_nothing(dash_record, tmp_path):
    target = tmp_path / "target"
    good = tmp_path / "good.pbemrec"
    good.write_bytes(dash_record)
    cases = {
        "missing.pbemrec": None,
        "empty.pbemrec": b"",
        "latin.pbemrec": dash_record.replace(b"archive of", "archivé of".encode("latin-1"), 1),
        "cut.pbemrec": dash_record[: len(dash_record) // 2],
        "crlf.pbemrec": dash_record.replace(b"\n", b"\r\n", 3),      # some line ends only
        "notes.pbemrec": b"hello\n",
    }
    for name, data in cases.items():
        p = tmp_path / name
        if data is not None:
            p.write_bytes(data)
        _one_error(run("import", str(p), "--dir", str(target)), name)
        assert not target.exists()
        _one_error(run("verify", str(p)) if data is not None else run("stats", str(p)), name)
    _one_error(run("import", str(tmp_path), "--dir", str(target)), "not a regular file")
    _one_error(run("import", "/dev/zero", "--dir", str(target)), "not a regular file")
    assert not target.exists()
    # a folder that holds anything is left alone
    target.mkdir()
    (target / "mine.txt").write_text("keep me")
    _one_error(run("import", str(good), "--dir", str(target)), "not empty")
    assert snapshot(target) == {"mine.txt": b"keep me"}


def test_export_refuses_an_archive_that_does_not_verify(dash_peer, tmp_path):
    src = tmp_path / "archive"
    shutil.copytree(dash_peer / "red", src)
    f = src / "files" / "0003-red.pbem"
    f.write_text(f.read_text().replace("pbem turn file 3", "pbem turn file 4"))
    out = tmp_path / "out.pbemrec"
    _one_error(run("export", str(src), "--out", str(out)), "does not verify", "0003-red.pbem")
    assert not out.exists()
    _one_error(run("export", str(tmp_path / "nothing"), "--out", str(out)))
    assert not out.exists()


def test_verify_a_record_with_an_extra_file_finds_equivocation(dash_peer, tmp_path):
    """The extra files `pbem verify` takes work with a record as with a folder."""
    from pbem.core.keys import load_private
    from pbem.core.records import open_text, seal

    rec = tmp_path / "r.pbemrec"
    ok("export", str(dash_peer / "red"), "--out", str(rec))
    f = open_text((dash_peer / "red" / "files" / "0003-red.pbem").read_text())
    import msgspec

    forged = msgspec.structs.replace(f.payload, message="another version")
    other = seal(forged, load_private(dash_peer / "keys" / "red.key"))
    extra = tmp_path / "other.pbem"
    extra.write_text(other.text)
    r = run("verify", str(rec), str(extra))
    assert r.exit_code == 3 and "equivocation" in r.output   # proven: docs/cli.md exit codes


def test_a_record_is_found_by_verify_even_without_a_suffix(dash_peer, tmp_path):
    rec = tmp_path / "game"
    ok("export", str(dash_peer / "blue"), "--out", str(rec))
    assert "OK: the record verifies." in ok("verify", str(rec)).output


def test_a_proposal_waiting_for_its_acceptance_exports_too(tmp_path):
    t = Table(tmp_path)                      # red proposed; blue's acceptance not yet received
    text = round_trip(t.dirs["red"], tmp_path, "red")
    assert "game id: none yet (genesis incomplete)" in text
    assert "result: not started: the genesis is not complete" in text
    r = run("replay", str(tmp_path / "red.pbemrec"), "--out", str(tmp_path / "r.html"))
    _one_error(r, "the game has not started")
    assert not (tmp_path / "r.html").exists()


def test_a_sealed_game_in_progress_is_not_exported_to_a_record_nobody_could_read(tmp_path):
    """A sealed side's real orders stay in its private/ folder until its final reveal, and a
    record carries the signed files only: exported in progress it would not verify, replay or
    import anywhere. `pbem export` refuses it in one line, writing nothing."""
    t = _sealed_in_progress(tmp_path)
    out = tmp_path / "g.pbemrec"
    r = CliRunner().invoke(cli, ["export", str(t.dirs["axis"]), "--out", str(out)])
    lines = r.output.strip().splitlines()
    assert r.exit_code == 1 and len(lines) == 1, r.output
    assert "final reveal is in" in lines[0] and str(t.dirs["axis"]) in lines[0]
    assert not out.exists()


def test_a_record_saved_with_windows_line_ends_still_verifies(dash_record, tmp_path):
    """Every line end turned into CR LF (a record saved on Windows) is the same record; a lone
    CR LF among LF line ends is a change, refused."""
    crlf = tmp_path / "win.pbemrec"
    crlf.write_bytes(dash_record.replace(b"\n", b"\r\n"))
    assert verify_record(crlf).ok
    one = tmp_path / "one.pbemrec"
    i = dash_record.index(b"\n")
    one.write_bytes(dash_record[:i] + b"\r" + dash_record[i:])
    assert not verify_record(one).ok


def test_a_sealed_players_log_shows_its_own_real_orders_and_never_the_others(tmp_path):
    """A sealed file carries projections (`seen place ?axis-3 ...`); the player's own log of its
    own archive shows its real orders for its own files (kept in its private part), and still
    only a count for the other side's."""
    from pbem.protocol.sealing import read_private

    t = _sealed_in_progress(tmp_path)
    for side in t.sides:
        log = CliRunner().invoke(cli, ["log", str(t.dirs[side])]).output
        real = [ln for lines in read_private(t.dirs[side]).values() for ln in lines
                if ln.startswith(("place ", "move "))]
        assert real and all(ln in log for ln in real), log
        other = [ln for lines in read_private(t.dirs[t.other(side)]).values() for ln in lines
                 if ln.startswith(("place ", "move "))]
        assert other and not any(ln in log for ln in other)
        own = [part.split("\n\n")[0] for part in log.split(f" from {side} ")[1:]]
        assert own and not any("seen " in part for part in own), own


def _sealed_in_progress(tmp_path: Path) -> Table:
    """A sealed Race to Tunis a few files in (no final reveal yet)."""
    t = Table(tmp_path / "g", game="holdfast", scenario="race-to-tunis", mode="sealed",
              sides=("allied", "axis"))
    for _ in range(3):
        t.deliver()
        t.play_one()
    t.deliver()
    return t


def test_a_signed_block_that_does_not_open_fails_the_audit_as_in_a_folder(dash_record, dash_peer,
                                                                         tmp_path):
    """One character changed inside an entry's signed block: the record, like the archive
    folder holding the same changed file, fails the audit with exit 3 (a signed file fails a
    check), naming the record and the entry. Before, the record exited 1 ('refused input')
    while the folder exited 3."""
    text = dash_record.decode("ascii")
    at = text.index("-----BEGIN PBEM FILE-----", text.index("files/0002-blue.pbem")) + 120
    bad = tmp_path / "bad.pbemrec"
    bad.write_text(text[:at] + ("A" if text[at] != "A" else "B") + text[at + 1:])
    r = run("verify", str(bad))
    assert r.exit_code == 3, r.output
    assert "Error: bad.pbemrec: files/0002-blue.pbem: " in r.output, r.output
    folder = tmp_path / "red"
    shutil.copytree(dash_peer / "red", folder)
    stored = folder / "files" / "0002-blue.pbem"
    s = stored.read_text()
    i = s.index("-----BEGIN PBEM FILE-----") + 120
    stored.write_text(s[:i] + ("A" if s[i] != "A" else "B") + s[i + 1:])
    assert run("verify", str(folder)).exit_code == 3
