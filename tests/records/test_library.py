"""The library: an index of a folder of records, built incrementally, each record verified once."""

from __future__ import annotations

import hashlib
import json
import os
import shutil

from click.testing import CliRunner

from fixtures.table import Table
from pbem.cli import cli
from pbem.records import library, record
from pbem.records.record import export_text


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_library_indexes_verifies_once_and_lists_bad_records(dash_peer, dash_hosted, tmp_path,
                                                              monkeypatch):
    recs = tmp_path / "records"
    (recs / "club").mkdir(parents=True)
    (recs / "peer-red.pbemrec").write_text(export_text(dash_peer / "red"))
    (recs / "club" / "referee.pbemrec").write_text(export_text(dash_hosted / "referee"))
    (recs / "club" / "blue.pbemrec").write_text(export_text(dash_hosted / "blue"))
    (recs / "notes.txt").write_text("not a record\n")
    waiting = Table(tmp_path / "waiting")         # a proposal still waiting for its acceptance
    (recs / "club" / "waiting.pbemrec").write_text(export_text(waiting.dirs["red"]))
    bad = export_text(dash_peer / "blue")
    i = bad.index("-----BEGIN PBEM FILE-----\n") + 40
    (recs / "bad.pbemrec").write_text(bad[:i] + ("A" if bad[i] != "A" else "B") + bad[i + 1:])
    site = tmp_path / "site"

    calls = []
    real = library.index_record
    monkeypatch.setattr(library, "index_record",
                        lambda *a: calls.append(a[1]) or real(*a))
    r = run("library", str(recs), "--out", str(site))
    assert r.exit_code == 1, r.output          # written, but one record does not verify
    assert "Indexed 5 records" in r.output and "1 that do not verify" in r.output
    assert r.output.count("\n") == 2          # no progress lines: not a terminal
    assert r.output.startswith("Error: bad.pbemrec: ")
    assert sorted(calls) == ["bad.pbemrec", "club/blue.pbemrec", "club/referee.pbemrec",
                             "club/waiting.pbemrec", "peer-red.pbemrec"]
    index = json.loads((site / "library.json").read_text())
    items = {x["file"]: x for x in index["records"]}
    assert items["bad.pbemrec"]["ok"] is False and "bad.pbemrec" in items["bad.pbemrec"]["problem"]
    assert items["club/waiting.pbemrec"]["ok"] and not items["club/waiting.pbemrec"]["over"]
    ref = items["club/referee.pbemrec"]
    assert ref["ok"] and ref["game"] == "dash" and ref["mode"] == "hosted" and ref["over"]
    assert ref["winner"] in ("red", "blue") and ref["files"] > 0 and ref["dice"] > 0
    assert {p["party"] for p in ref["players"]} == {"red", "blue", "host"}
    mask = os.umask(0)
    os.umask(mask)
    for published in ("index.html", "library.json"):    # readable as the umask allows
        assert (site / published).stat().st_mode & 0o777 == 0o666 & ~mask
    page = (site / "index.html").read_text()
    assert 'id="f-game"' in page and 'id="f-player"' in page and 'id="f-result"' in page
    assert 'href="../records/club/referee.pbemrec"' in page
    assert "Does not verify" in page

    # a second run verifies nothing; a moved record is known by its hash; a changed one is new
    calls.clear()
    shutil.move(recs / "peer-red.pbemrec", recs / "club" / "moved.pbemrec")
    (recs / "again.pbemrec").write_text(export_text(dash_peer / "blue"))
    r = run("library", str(recs), "--out", str(site))
    assert r.exit_code == 1, r.output
    assert calls == ["again.pbemrec"]
    assert "1 verified now, 5 unchanged" in r.output
    items = {x["file"]: x for x in json.loads((site / "library.json").read_text())["records"]}
    assert items["club/moved.pbemrec"]["ok"] and "peer-red.pbemrec" not in items


def test_library_writes_replays_once(dash_peer, tmp_path):
    recs = tmp_path / "records"
    recs.mkdir()
    (recs / "a.pbemrec").write_text(export_text(dash_peer / "red"))
    site = tmp_path / "site"
    r = run("library", str(recs), "--out", str(site), "--replays")
    assert r.exit_code == 0, r.output
    item = json.loads((site / "library.json").read_text())["records"][0]
    page = site / item["replay"]
    assert page.exists() and f'href="{item["replay"]}"' in (site / "index.html").read_text()
    stamp = page.stat().st_mtime_ns
    os.utime(recs / "a.pbemrec")              # touched: hashed again, known, not rebuilt
    assert run("library", str(recs), "--out", str(site), "--replays").exit_code == 0
    assert page.stat().st_mtime_ns == stamp


def test_library_of_a_missing_folder_is_a_one_line_error(tmp_path):
    r = run("library", str(tmp_path / "nope"), "--out", str(tmp_path / "site"))
    assert r.exit_code == 1 and r.output.startswith("Error:") and "not a folder" in r.output


def test_progress_is_shown_only_on_a_terminal(monkeypatch):
    import io

    from pbem import cli_records

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(cli_records.sys, "stderr", io.StringIO())
    assert cli_records._progress() is None
    tty = Tty()
    monkeypatch.setattr(cli_records.sys, "stderr", tty)
    progress = cli_records._progress()
    assert progress is not None
    progress(1, 2, "club/a.pbemrec")
    progress(2, 2, "club/\x1b[31mb.pbemrec")
    err = tty.getvalue()
    assert "\r1/2 club/a.pbemrec" in err and "\r2/2 club/b.pbemrec" in err
    assert "\x1b" not in err and err.endswith("\n")


def test_a_folder_named_like_a_scheme_is_linked_as_a_path(dash_peer, tmp_path):
    """An attacker who names a folder of a shared records tree 'javascript:...' gets no script
    link into the index: every link is a percent-encoded relative path (the reader's browser
    would otherwise run it on a click; the page's policy allows inline scripts)."""
    recs = tmp_path / "records"
    evil = recs / "javascript:document.body.setAttribute('data-pwned','yes')"
    evil.mkdir(parents=True)
    (evil / "g.pbemrec").write_text(export_text(dash_peer / "red"))
    (recs / "plain dir").mkdir()
    (recs / "plain dir" / "h.pbemrec").write_text(export_text(dash_peer / "red"))
    r = run("library", str(recs), "--out", str(recs))
    assert r.exit_code == 0, r.output
    page = (recs / "index.html").read_text()
    hrefs = [h.split('"')[0] for h in page.split('href="')[1:]]
    assert not any(h.lower().startswith("javascript") and ":" in h for h in hrefs), hrefs
    assert "javascript%3Adocument.body.setAttribute%28%27data-pwned%27%2C%27yes%27%29/g.pbemrec" \
        in hrefs
    assert "plain%20dir/h.pbemrec" in hrefs


def _errors(r) -> list[str]:
    """The 'Error: ...' lines of a run (standard error), each checked to be one clean line."""
    lines = [ln for ln in r.output.splitlines() if ln.startswith("Error: ")]
    assert "Traceback" not in r.output, r.output
    return lines


def test_one_bad_file_never_stops_the_library(dash_peer, tmp_path):
    """Anyone who can drop a file into a shared records tree stopped `pbem library` (exit 1,
    nothing written) with a 300 MB file that starts like a record, or, with --replays, a
    referee's record of a game in progress (whose page must choose a side). Now each is
    listed with its one-line problem, the library is written, and the exit status is 1 only
    for files that do not verify."""
    recs = tmp_path / "records"
    recs.mkdir()
    (recs / "good.pbemrec").write_text(export_text(dash_peer / "red"))
    big = recs / "big.pbemrec"
    big.write_text(record.FIRST_LINE + "\n")
    os.truncate(big, 300 * 1024 * 1024)                  # sparse: costs no disk
    t = Table(tmp_path / "running", mode="hosted")
    for _ in range(2):
        t.deliver()
        t.play_one()
    t.deliver()
    (recs / "referee.pbemrec").write_text(export_text(t.dirs["host"]))
    site = tmp_path / "site"
    r = run("library", str(recs), "--out", str(site), "--replays")
    assert r.exit_code == 1, r.output
    [err] = _errors(r)
    assert err.startswith(f"Error: big.pbemrec: record is too large ({300 * 1024 * 1024} "
                          "bytes"), r.output
    assert ("Indexed 3 records in" in r.output and "1 that do not verify, 1 without a replay "
            "page." in r.output)
    items = {x["file"]: x for x in json.loads((site / "library.json").read_text())["records"]}
    assert not items["big.pbemrec"]["ok"] and "too large" in items["big.pbemrec"]["problem"]
    ref = items["referee.pbemrec"]
    assert ref["ok"] and not ref["replay"] and ref["problem"].startswith(
        "no replay page: ") and "the game is not over" in ref["problem"]
    assert items["good.pbemrec"]["ok"] and items["good.pbemrec"]["replay"]
    page = (site / "index.html").read_text()
    assert "Does not verify: big.pbemrec" in page and "no replay page: " in page
    # the next run verifies nothing again (the referee's record is known by its hash)
    r = run("library", str(recs), "--out", str(site), "--replays")
    assert r.exit_code == 1 and "0 verified now" not in r.output   # big.pbemrec is read again
    assert "1 verified now, 2 unchanged, 1 that do not verify" in r.output, r.output
    big.unlink()
    r = run("library", str(recs), "--out", str(site), "--replays")
    assert r.exit_code == 0 and not _errors(r), r.output


def test_a_record_changed_with_its_size_and_mtime_kept_is_verified_again(dash_peer, tmp_path):
    """The attack: after a first run, forge the result line with one of the same length and
    restore the file's modification time: the next run said 'unchanged' and kept it as
    verified (with the old hash) while `pbem verify` refuses it. Only the SHA-256 is trusted."""
    recs = tmp_path / "records"
    recs.mkdir()
    rec = recs / "game.pbemrec"
    text = export_text(dash_peer / "red")
    rec.write_text(text)
    site = tmp_path / "site"
    assert run("library", str(recs), "--out", str(site)).exit_code == 0
    line = next(ln for ln in text.splitlines() if ln.startswith("result: "))
    winner = line.split()[1]
    loser = "blue" if winner == "red" else "red"
    forged = f"result: {loser} wins (by forfeit, the other side never answered)"
    forged = (forged + " " * len(line))[:len(line)]
    assert len(forged) == len(line) and forged != line
    st = rec.stat()
    rec.write_text(text.replace(line, forged, 1))
    os.utime(rec, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (rec.stat().st_size, rec.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert run("verify", str(rec)).exit_code == 1
    r = run("library", str(recs), "--out", str(site))
    assert r.exit_code == 1 and "1 verified now, 0 unchanged, 1 that do not verify" in r.output
    [item] = json.loads((site / "library.json").read_text())["records"]
    assert not item["ok"] and "states the result" in item["problem"]
    assert item["sha256"] == hashlib.sha256(rec.read_bytes()).hexdigest()


def test_an_out_among_an_archive_s_own_files_is_refused(dash_peer, tmp_path):
    """`pbem library --out somegame/files` wrote pages among the archive's signed files, so
    the archive no longer verified. Every record command that writes an output refuses a path
    among the own files of any archive folder that contains it, in one line, nothing written."""
    game = tmp_path / "game"
    shutil.copytree(dash_peer / "red", game)
    recs = tmp_path / "records"
    recs.mkdir()
    rec = recs / "game.pbemrec"
    rec.write_text(export_text(dash_peer / "blue"))
    before = sorted(p.relative_to(game) for p in game.rglob("*"))
    attempts = [
        ("library", str(recs), "--out", str(game / "files")),
        ("library", str(recs), "--out", str(game / "evidence" / "site")),
        ("library", str(game), "--out", str(game / "Files" / "site")),
        ("export", str(dash_peer / "blue"), "--out", str(game / "files" / "x.pbemrec")),
        ("replay", str(rec), "--out", str(game / "files" / "r.html")),
        ("log", str(rec), "--out", str(game / "rejected" / "log.txt")),
        ("import", str(rec), "--dir", str(game / "files" / "copy")),
    ]
    for args in attempts:
        r = run(*args)
        assert r.exit_code == 1, (args, r.output)
        [err] = _errors(r)
        assert "inside the archive's own" in err and r.output.strip() == err, (args, r.output)
    assert sorted(p.relative_to(game) for p in game.rglob("*")) == before
    assert run("verify", str(game)).exit_code == 0
    # beside the archive's own files is fine
    assert run("library", str(recs), "--out", str(game / "site")).exit_code == 0
