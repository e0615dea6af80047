"""`pbem ladder submit DB FILE` with a one-file game record (`pbem export`): the record's full
verification, then the same checks as for an archive folder; one game counts once whether it
comes as a folder or as a record."""

from __future__ import annotations

import datetime
import json
import sqlite3
from pathlib import Path

from ladder.helpers import Pool, digest, ok, refused, run, today

from pbem.protocol.audit import verify_archive


def _export(archive: Path, out: Path) -> Path:
    """The record of an archive, written by the real `pbem export` command."""
    ok("export", archive, "--out", out)
    return out


def _games(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    finally:
        con.close()


def test_a_valid_record_is_recorded_like_its_archive(pool: Pool, ladder: Path,
                                                     tmp_path: Path) -> None:
    peer = next(g for g in pool.games if g.mode == "peer")
    hosted = next(g for g in pool.games if g.mode == "hosted")
    for i, archive in enumerate((peer.dirs["red"], hosted.dirs["host"])):
        rec = _export(archive, tmp_path / f"game{i}.pbemrec")
        out = ok("ladder", "submit", ladder, rec).output
        assert out.startswith(f"Recorded game #{i + 1} "), out
    assert _games(ladder) == 2
    con = sqlite3.connect(ladder)
    kinds = [r[0] for r in con.execute("SELECT kind FROM archives ORDER BY id")]
    assert kinds == ["peer", "referee"]
    con.close()
    # what the ladder keeps is the archive the record holds, which audits on its own
    game_id = json.loads(ok("ladder", "games", ladder, "--format", "json").output)[0]["game_id"]
    ok("ladder", "export", ladder, game_id, tmp_path / "evidence")
    [folder] = list((tmp_path / "evidence" / "archive-1").iterdir())
    assert verify_archive(folder).ok


def test_a_hosted_players_record_is_refused_and_the_referees_is_recorded(
        pool: Pool, ladder: Path, tmp_path: Path) -> None:
    """A hosted player's record, like its archive, holds views whose result its audit cannot
    replay: refused, naming the referee's; the referee's record is recorded."""
    hosted = next(g for g in pool.games if g.mode == "hosted")
    rec = _export(hosted.dirs["blue"], tmp_path / "blue.pbemrec")
    err = refused("ladder", "submit", ladder, rec)
    assert f"{rec}: a hosted player's record cannot prove the result" in err, err
    assert "submit the referee's archive or its record" in err
    assert _games(ladder) == 0
    ref = _export(hosted.dirs["host"], tmp_path / "host.pbemrec")
    assert ok("ladder", "submit", ladder, ref).output.startswith("Recorded game #1 ")
    assert "duplicate" in refused("ladder", "submit", ladder, rec)


def test_a_tampered_record_is_refused(pool: Pool, ladder: Path, tmp_path: Path) -> None:
    text = _export(pool.games[0].dirs["red"], tmp_path / "good.pbemrec").read_text()
    lines = text.splitlines(keepends=True)
    # one character inside a signed block of the third entry
    starts = [i for i, ln in enumerate(lines) if ln.startswith("-----BEGIN")]
    i = starts[3] + 3
    lines[i] = lines[i][:10] + ("A" if lines[i][10] != "A" else "B") + lines[i][11:]
    bad = tmp_path / "tampered.pbemrec"
    bad.write_text("".join(lines))
    before = digest(ladder)
    err = refused("ladder", "submit", ladder, bad)
    assert err.startswith(f"Error: {bad}: the record does not verify: "), err
    assert digest(ladder) == before


def test_a_record_stating_a_false_result_is_refused(pool: Pool, ladder: Path,
                                                    tmp_path: Path) -> None:
    """Every signed file intact, but the header claims the other side won: the record's own
    verification (its stated result against the replay) refuses it."""
    text = _export(pool.games[0].dirs["red"], tmp_path / "good.pbemrec").read_text()
    winner = "red" if "result: red wins" in text else "blue"
    loser = {"red": "blue", "blue": "red"}[winner]
    bad = tmp_path / "forged.pbemrec"
    bad.write_text(text.replace(f"result: {winner} wins", f"result: {loser} wins", 1))
    err = refused("ladder", "submit", ladder, bad)
    assert "the record does not verify" in err and "the replay gives" in err, err
    assert _games(ladder) == 0


def test_a_record_of_an_unfinished_game_is_refused(pool: Pool, ladder: Path,
                                                   tmp_path: Path) -> None:
    rec = _export(pool.unfinished, tmp_path / "unfinished.pbemrec")
    before = digest(ladder)
    err = refused("ladder", "submit", ladder, rec)
    assert "the game is not over in this record" in err, err
    assert digest(ladder) == before


def test_a_record_between_unregistered_keys_is_refused(pool: Pool, ladder: Path,
                                                       tmp_path: Path) -> None:
    rec = _export(pool.stranger, tmp_path / "stranger.pbemrec")
    err = refused("ladder", "submit", ladder, rec)
    assert "not registered" in err and "red" in err and "blue" in err


def test_one_game_as_a_folder_and_as_a_record_counts_once(pool: Pool, ladder: Path,
                                                          tmp_path: Path) -> None:
    a, b = pool.games[0], pool.games[7]
    # a folder first, then the records of both players' archives
    ok("ladder", "submit", ladder, a.dirs["red"])
    for party in ("red", "blue"):
        rec = _export(a.dirs[party], tmp_path / f"a-{party}.pbemrec")
        err = refused("ladder", "submit", ladder, rec)
        assert "duplicate" in err and "already recorded" in err, err
    # a record first, then the folders
    ok("ladder", "submit", ladder, _export(b.dirs["host"], tmp_path / "b.pbemrec"))
    for party in sorted(b.dirs):
        err = refused("ladder", "submit", ladder, b.dirs[party])
        assert "duplicate" in err, err
    assert _games(ladder) == 2
    rows = json.loads(ok("ladder", "standings", ladder, "--format", "json").output)
    assert sum(r["games"] for r in rows) == 4


def test_a_file_that_is_not_a_record_is_refused(ladder: Path, tmp_path: Path) -> None:
    f = tmp_path / "game.txt"
    f.write_text("not a game")
    err = refused("ladder", "submit", ladder, f)
    assert "the record does not verify" in err and "not a pbem game record" in err, err


def test_a_forfeit_claim_is_filed_with_the_claimants_record(pool: Pool, ladder: Path,
                                                            tmp_path: Path) -> None:
    """A claim may come with the claimant's archive as a record: it is checked the same way
    (verified, not over, the opponent owes the answer)."""
    f = pool.forfeit["peer"]
    rec = _export(f["red"], tmp_path / "cat.pbemrec")
    day = today()
    claim = tmp_path / "claim.txt"
    ok("ladder", "claim", rec, "--key", f["red_key"], "--sent",
       (day - datetime.timedelta(days=10)).isoformat(), "--date", day.isoformat(),
       "--out", claim)
    out = ok("ladder", "file-claim", ladder, claim, rec).output
    assert "Filed forfeit claim #1: Cat against Dov (pending)" in out
    ok("ladder", "confirm", ladder, "1", "--note", "no answer")
    rows = {d["name"]: d for d in json.loads(ok("ladder", "standings", ladder, "--format",
                                                "json").output)}
    assert rows["Cat"]["wins"] == 1 and rows["Dov"]["losses"] == 1


def _forked_records(pool: Pool, tmp_path: Path) -> tuple[Path, list[Path]]:
    """fork_a's record, and the same with fork_b's different file of one sequence number (same
    sender, validly signed) inserted as a second files/ entry or as a rejected/ entry."""
    from pbem.core.records import open_text
    from pbem.records.record import Entry, genesis_of, parse_record, render

    good = _export(pool.fork_a, tmp_path / "fork-a.pbemrec")
    name = next(p.name for p in sorted((pool.fork_a / "files").glob("0*.pbem"))
                if (pool.fork_b / "files" / p.name).read_bytes() != p.read_bytes())
    other = open_text((pool.fork_b / "files" / name).read_text())
    rec = parse_record(good.read_text())
    at = rec.paths().index(f"files/{name}")
    out = []
    for folder in ("files", "rejected"):
        entries = [*rec.entries[:at], Entry(folder, other), *rec.entries[at:]]
        p = tmp_path / f"hidden-in-{folder}.pbemrec"
        p.write_text(render(rec.party, rec.result, entries, genesis_of(entries, "x")))
        out.append(p)
    return good, out


def test_a_record_hiding_an_equivocation_is_not_recorded(pool: Pool, ladder: Path,
                                                         tmp_path: Path) -> None:
    """A second, different signed file of one sequence number hidden in a record (a second
    entry of one path, or under rejected/) made `pbem verify` say OK and the ladder record the
    game; both are refused now, and the ladder is untouched."""
    _, (dup, rejected) = _forked_records(pool, tmp_path)
    before = digest(ladder)
    assert "same path" in refused("ladder", "submit", ladder, dup)
    err = refused("ladder", "submit", ladder, rejected)
    assert "rejected/" in err and "equivocation" in err
    assert digest(ladder) == before and _games(ladder) == 0


def test_a_rejection_in_a_peer_game_hides_no_equivocation(pool: Pool, ladder: Path,
                                                          tmp_path: Path) -> None:
    """A peer game has no referee, so no rejection: a `files/reject-NNNN-<hash>.pbem` in a
    peer archive or record, junk with the right name or a rejection its equivocating sender
    signed himself, made `pbem verify` skip the fork kept under evidence/ ("OK"), and
    `import` and `ladder submit` take the record (an attack trial). Now the fork is still
    equivocation (exit 3), the stray rejection is an unexpected file, and the ladder is
    untouched."""
    import shutil

    from pbem.core.keys import load_private
    from pbem.core.records import Rejection, open_text, seal
    from pbem.records.record import Entry, genesis_of, parse_record, render
    from pbem.protocol.rejection import rejection_file_name

    name = next(p.name for p in sorted((pool.fork_a / "files").glob("0*.pbem"))
                if (pool.fork_b / "files" / p.name).read_bytes() != p.read_bytes())
    other = open_text((pool.fork_b / "files" / name).read_text())
    t = other.payload
    archive = tmp_path / "red"
    shutil.copytree(pool.fork_a, archive)
    (archive / "evidence").mkdir(exist_ok=True)
    (archive / "evidence" / f"turn-{other.hash[:16]}.pbem").write_text(other.text)
    stray = archive / "files" / f"reject-{t.seq:04d}-{other.hash[:16]}.pbem"
    stray.write_text("junk\n")
    r = run("verify", str(archive))
    assert r.exit_code == 3 and "equivocation" in r.output, r.output
    assert f"{stray.name}: unexpected file in files/" in r.output, r.output
    key = load_private(pool.keys["ann"].with_suffix(".key"))      # red, the fork's sender
    forged = seal(Rejection(game_id=t.game_id, seq=t.seq, sender=t.sender, file=other.hash,
                            order=1, reason="x"), key)
    forged = seal(forged.payload, key, name=rejection_file_name(forged.payload))
    stray.write_text(forged.text)
    r = run("verify", str(archive))
    assert r.exit_code == 3 and "equivocation" in r.output, r.output
    rec = parse_record(_export(pool.fork_a, tmp_path / "fork-a.pbemrec").read_text())
    entries = [*rec.entries, Entry("evidence", other), Entry("files", forged)]
    bad = tmp_path / "hidden-by-rejection.pbemrec"
    bad.write_text(render(rec.party, rec.result, entries, genesis_of(entries, "x")))
    before = digest(ladder)
    r = run("verify", str(bad))
    assert r.exit_code == 3 and "equivocation" in r.output, r.output
    assert "does not verify" in refused("ladder", "submit", ladder, bad)
    r = run("import", str(bad), "--dir", str(tmp_path / "imported"))
    assert r.exit_code != 0 and not (tmp_path / "imported").exists(), r.output
    assert digest(ladder) == before and _games(ladder) == 0
