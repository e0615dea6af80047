"""Forfeits: a signed claim filed with the claimant's archive is pending; the opponent's
later signed file rebuts it; the director confirms (a rated loss) or dismisses it."""

from __future__ import annotations

import datetime
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from ladder.helpers import Pool, digest, ok, refused, today


def _claim(pool: Pool, mode: str, tmp: Path, *, sent_days_ago: int = 10,
           key: str = "red_key") -> Path:
    f = pool.forfeit[mode]
    out = tmp / f"claim-{mode}.txt"
    sent = (today() - datetime.timedelta(days=sent_days_ago)).isoformat()
    ok("ladder", "claim", f["red"], "--key", f[key], "--sent", sent, "--date",
       today().isoformat(), "--out", out, "--message", "no reply to two reminders")
    return out


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_claim_pending_rebuttal_and_the_directors_decision(ladder: Path, pool: Pool,
                                                           tmp_path: Path, mode: str) -> None:
    f = pool.forfeit[mode]
    claim = _claim(pool, mode, tmp_path)
    assert "BEGIN PBEM FILE" in claim.read_text()
    r = ok("ladder", "file-claim", ladder, claim, f["red"], "--notice", tmp_path / "notice.txt")
    assert "Filed forfeit claim #1: Cat against Dov (pending)" in r.output
    notice = (tmp_path / "notice.txt").read_text()
    assert "Dov (blue) has not answered file" in notice and "pbem ladder rebut" in notice
    # Pending: listed, counted under the standings, shown on the site.
    assert "#1 pending" in ok("ladder", "forfeits", ladder).output
    assert "Open forfeit claims: 1" in ok("ladder", "standings", ladder).output
    ok("ladder", "site", ladder, tmp_path / "site")
    page = (tmp_path / "site" / "index.html").read_text()
    assert "Open forfeit claims" in page and "pending" in page
    # The opponent's later signed file rebuts it, with the files that chain to it from the
    # claimed file (hosted: red's file and the referee's record, from the referee's archive).
    assert len(f["between"]) == (2 if mode == "hosted" else 0)
    r = ok("ladder", "rebut", ladder, "1", *f["between"], f["answer"])
    assert "rebutted" in r.output
    rows = json.loads(ok("ladder", "forfeits", ladder, "--format", "json").output)
    assert rows[0]["status"] == "rebutted"
    # The director dismisses it: no game is recorded.
    ok("ladder", "dismiss", ladder, "1", "--note", "the reply was shown")
    assert sqlite3.connect(ladder).execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    assert "already dismissed" in refused("ladder", "confirm", ladder, "1")


def test_a_confirmed_forfeit_is_a_rated_loss(ladder: Path, pool: Pool, tmp_path: Path) -> None:
    ok("ladder", "file-claim", ladder, _claim(pool, "peer", tmp_path), pool.forfeit["peer"]["red"])
    r = ok("ladder", "confirm", ladder, "1", "--note", "no answer to two reminders")
    assert "a loss for Dov" in r.output
    rows = {d["name"]: d for d in json.loads(ok("ladder", "standings", ladder, "--format",
                                                "json").output)}
    assert rows["Cat"]["wins"] == 1 and rows["Dov"]["losses"] == 1
    assert rows["Cat"]["rating"] > rows["Dov"]["rating"]
    con = sqlite3.connect(ladder)
    kind, reason = con.execute("SELECT kind, reason FROM games").fetchone()
    assert kind == "forfeit" and "did not answer file 1 within 7 days" in reason
    # The game itself can no longer be submitted, and the claim is decided.
    assert "already confirmed" in refused("ladder", "dismiss", ladder, "1")
    ok("ladder", "recompute", ladder, "--check")
    ok("ladder", "site", ladder, tmp_path / "site")
    gid = con.execute("SELECT game_id FROM games").fetchone()[0]
    page = (tmp_path / "site" / "games" / f"{gid}.html").read_text()
    assert "by forfeit" in page and "Claim #1" in page


def test_claims_that_do_not_hold_are_refused(ladder: Path, pool: Pool, tmp_path: Path) -> None:
    f = pool.forfeit["peer"]
    # Too early: the deadline (7 days in the genesis) has not passed.
    err = refused("ladder", "claim", f["red"], "--key", f["red_key"], "--sent",
                  (today() - datetime.timedelta(days=3)).isoformat(), "--out", tmp_path / "x")
    assert "deadline has not passed" in err
    # The opponent cannot claim: it owes the answer.
    err = refused("ladder", "claim", f["blue"], "--key", f["blue_key"], "--sent", "2020-01-01",
                  "--out", tmp_path / "x")
    assert "does not end with a file red owes" in err or "owes" in err
    # A key that plays no side.
    err = refused("ladder", "claim", f["red"], "--key", pool.key("ann"), "--sent", "2020-01-01",
                  "--out", tmp_path / "x")
    assert "plays no side" in err
    # A finished game is submitted, not claimed.
    err = refused("ladder", "claim", pool.games[0].dirs["red"], "--key",
                  pool.games[0].table.key("red"), "--sent", "2020-01-01", "--out", tmp_path / "x")
    assert "the game is over" in err
    claim = _claim(pool, "peer", tmp_path)
    before = digest(ladder)
    # Filed with another game's archive, or with an archive that went on meanwhile.
    assert "the claim is about game" in refused("ladder", "file-claim", ladder, claim,
                                                pool.unfinished)
    moved = tmp_path / "moved"
    shutil.copytree(f["red_live"], moved)
    err = refused("ladder", "file-claim", ladder, claim, moved)
    assert "file" in err
    # A tampered claim.
    text = claim.read_text().replace("no reply", "no reply!")
    bad = tmp_path / "bad-claim.txt"
    lines = claim.read_text().splitlines(keepends=True)
    i = next(i for i, ln in enumerate(lines) if ln.startswith("-----BEGIN")) + 2
    lines[i] = lines[i][:5] + ("A" if lines[i][5] != "A" else "B") + lines[i][6:]
    bad.write_text("".join(lines))
    assert text
    refused("ladder", "file-claim", ladder, bad, f["red"])
    assert digest(ladder) == before
    # Filed twice.
    ok("ladder", "file-claim", ladder, claim, f["red"])
    assert "already open" in refused("ladder", "file-claim", ladder, claim, f["red"])


def test_a_claim_signed_by_another_key_is_refused(ladder: Path, pool: Pool,
                                                  tmp_path: Path) -> None:
    from pbem.core.keys import load_private
    from pbem.ladder.statements import make, read_statement

    claim = _claim(pool, "peer", tmp_path)
    forged = make(read_statement(claim).payload, [load_private(pool.key("ann"))])
    (tmp_path / "forged.txt").write_text(forged.text)
    err = refused("ladder", "file-claim", ladder, tmp_path / "forged.txt",
                  pool.forfeit["peer"]["red"])
    assert "not signed by red's key" in err


def test_a_rebuttal_must_be_a_later_file_signed_by_the_opponent(ladder: Path, pool: Pool,
                                                                 tmp_path: Path) -> None:
    f = pool.forfeit["peer"]
    ok("ladder", "file-claim", ladder, _claim(pool, "peer", tmp_path), f["red"])
    before = digest(ladder)
    own = sorted((f["red"] / "files").glob("0001-red.pbem"))[0]
    assert "file 1 is not later than file 1 the claim names" in refused(
        "ladder", "rebut", ladder, "1", own)
    other = sorted((pool.games[0].dirs["blue"] / "files").glob("0002-blue.pbem"))[0]
    assert "belongs to another game" in refused("ladder", "rebut", ladder, "1", other)
    assert "no such forfeit claim" in refused("ladder", "rebut", ladder, "9", f["answer"])
    assert digest(ladder) == before
    ok("ladder", "rebut", ladder, "1", f["answer"])
    assert "only a pending claim" in refused("ladder", "rebut", ladder, "1", f["answer"])


def test_a_finished_game_settles_an_open_claim(pool: Pool, ladder: Path, tmp_path: Path) -> None:
    """The fork pool game stands in: a claim is filed early, then the game is submitted."""
    g = pool.games[1]                      # cat vs dov, peer
    con = sqlite3.connect(ladder)
    with con:
        con.execute("INSERT INTO archives(game_id, party, kind, received, digest, facts, zip) "
                    "VALUES ('x', 'red', 'peer', 'now', 'd', '{}', x'00')")
        from pbem.protocol.session import load

        gid = load(g.submit).genesis.game_id
        con.execute("INSERT INTO forfeits(game_id, archive_id, claimant_id, opponent_id, "
                    "claimant_side, opponent_side, claimant_pub, opponent_pub, game, title, "
                    "scenario, mode, turns, dice, last_seq, last_hash, sent, claimed, "
                    "reply_days, filed, claim, status) VALUES (?, 1, 3, 4, 'red', 'blue', '', "
                    "'', 'dash', 'Dash', 'short', 'peer', 1, '{}', 1, '', '2020-01-01', "
                    "'2020-01-09', 7, 'now', '', 'pending')", (gid,))
    ok("ladder", "submit", ladder, g.submit)
    status, note = con.execute("SELECT status, note FROM forfeits").fetchone()
    assert status == "dismissed" and "finished game was recorded" in note


def _signed_as(src: Path, key: Path, dest: Path, **changes) -> Path:  # type: ignore[no-untyped-def]
    """A copy of a turn file with changed fields, signed with another (or the same) key."""
    import msgspec

    from pbem.core.keys import load_private
    from pbem.core.records import read_file, seal

    turn = msgspec.structs.replace(read_file(src).payload, **changes)
    dest.write_text(seal(turn, load_private(key)).text)
    return dest


def test_a_rebuttal_must_chain_from_the_claimed_file(ladder: Path, pool: Pool,
                                                     tmp_path: Path) -> None:
    """A file the opponent signed that belongs to no chain (seq 99, prev of 64 zeros), or
    that follows no file the claim names, does not rebut a claim; the real answer does."""
    f = pool.forfeit["peer"]
    ok("ladder", "file-claim", ladder, _claim(pool, "peer", tmp_path), f["red"])
    before = digest(ladder)
    fake = _signed_as(f["answer"], f["blue_key"], tmp_path / "fake99.pbem", seq=99,
                      prev="0" * 64)
    err = refused("ladder", "rebut", ladder, "1", fake)
    assert err == ("Error: fake99.pbem: file 99 does not follow file 1 the claim names: file 2 "
                   "is missing (give every file from the claimed one on; in hosted mode the "
                   "referee's archive holds those in between)"), err
    unlinked = _signed_as(f["answer"], f["blue_key"], tmp_path / "unlinked.pbem", prev="0" * 64)
    err = refused("ladder", "rebut", ladder, "1", unlinked)
    assert err.startswith("Error: unlinked.pbem: file 2 does not answer file 1 the claim names"
                          " (its prev is not that file's hash"), err
    # signed with a key that is not blue's in this game, or sent by nobody of the game
    forged = _signed_as(f["answer"], pool.key("ann"), tmp_path / "forged.pbem")
    assert refused("ladder", "rebut", ladder, "1", forged) == (
        "Error: forged.pbem: bad signature (not signed by blue's key in this game)")
    stranger = _signed_as(f["answer"], f["blue_key"], tmp_path / "stranger.pbem",
                          sender="green")
    assert "sent by green, not a party of this game" in refused("ladder", "rebut", ladder, "1",
                                                                stranger)
    # the real answer with a fake after it: the fake is still refused
    assert "fake99.pbem: file 99 does not follow file 2 (" in refused(
        "ladder", "rebut", ladder, "1", f["answer"], fake)
    assert digest(ladder) == before
    r = ok("ladder", "rebut", ladder, "1", f["answer"])
    assert "Claim #1 rebutted: Dov signed a file that chains from file 1" in r.output


def test_a_hosted_rebuttal_is_the_whole_chain_up_to_the_opponents_file(
        ladder: Path, pool: Pool, tmp_path: Path) -> None:
    """Hosted: the claimant's last view is the genesis; the opponent's answer chains from it
    through the claimant's file and the referee's record, which must be given too."""
    f = pool.forfeit["hosted"]
    ok("ladder", "file-claim", ladder, _claim(pool, "hosted", tmp_path), f["red"])
    before = digest(ladder)
    mine, host = f["between"]
    err = refused("ladder", "rebut", ladder, "1", f["answer"])
    assert f"{f['answer'].name}: file 3 does not follow file 0 the claim names" in err, err
    err = refused("ladder", "rebut", ladder, "1", mine, f["answer"])
    assert f"{f['answer'].name}: file 3 does not follow file 1 ({mine.name})" in err, err
    err = refused("ladder", "rebut", ladder, "1", mine, host)
    assert err == (f"Error: {host.name}: no file given is signed by blue, the side the claim is "
                   "against (a rebuttal leads to one of its files)"), err
    # one file given twice counts once; two versions of one number are refused
    other = _signed_as(mine, f["red_key"], tmp_path / "0001-red-b.pbem", message="again")
    assert "a second file 1" in refused("ladder", "rebut", ladder, "1", mine, other, host,
                                        f["answer"])
    forged = _signed_as(host, pool.key("ann"), tmp_path / "0002-host.pbem")
    assert "bad signature (not signed by host's key in this game)" in refused(
        "ladder", "rebut", ladder, "1", mine, forged, f["answer"])
    assert digest(ladder) == before
    ok("ladder", "rebut", ladder, "1", f["answer"], host, mine)      # in any order
    stored = json.loads(ok("ladder", "forfeits", ladder, "--format", "json").output)[0]
    assert stored["status"] == "rebutted"
    text = sqlite3.connect(ladder).execute("SELECT rebuttal FROM forfeits").fetchone()[0]
    assert text.count("-----BEGIN PBEM FILE-----") == 3


def _live(pool: Pool, mode: str, party: str) -> Path:
    """A party's archive folder as the game went on after the claim (the referee's: 'host')."""
    return pool.forfeit[mode]["red_live"].parent / ("referee" if party == "host" else party)


def test_a_hosted_rebuttal_cannot_take_a_number_the_claimants_own_file_holds(
        ladder: Path, pool: Pool, tmp_path: Path) -> None:
    """Hosted, the claimant answered its latest view (file 0) with its own file 1 and no view
    came since. The opponent signs a file 1 of its own chained to file 0: numbered on, its
    prev the claimed file's hash, its own signature, and yet no reply (file 1 is the
    claimant's: the referee never took it). The claimant's archive the ladder keeps holds
    that number, so a rebuttal must agree with it."""
    f = pool.forfeit["hosted"]
    ok("ladder", "file-claim", ladder, _claim(pool, "hosted", tmp_path), f["red"])
    before = digest(ladder)
    from pbem.core.records import read_file

    mine, host = f["between"]
    genesis = read_file(mine).payload.prev
    fork = _signed_as(f["answer"], f["blue_key"], tmp_path / "0001-blue.pbem", seq=1,
                      prev=genesis)
    err = refused("ladder", "rebut", ladder, "1", fork)
    assert err == ("Error: 0001-blue.pbem: file 1 is not the file 1 the claimant's archive "
                   "holds (another file with that number: the chain went on without it)"), err
    assert digest(ladder) == before
    ok("ladder", "rebut", ladder, "1", mine, host, f["answer"])


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_a_rebuttal_may_be_an_archive_folder(ladder: Path, pool: Pool, tmp_path: Path,
                                             mode: str) -> None:
    """The director may give the folder the files come in (the referee's archive, the
    opponent's, its files/ folder): the ladder takes from it the turn files of the game
    that follow the claimed file, up to the opponent's first, and checks them as files."""
    ok("ladder", "file-claim", ladder, _claim(pool, mode, tmp_path), pool.forfeit[mode]["red"])
    proof = _live(pool, mode, "host" if mode == "hosted" else "blue")
    r = ok("ladder", "rebut", ladder, "1", proof)
    assert "Claim #1 rebutted" in r.output
    text = sqlite3.connect(ladder).execute("SELECT rebuttal FROM forfeits").fetchone()[0]
    # up to the opponent's first file: peer, its answer; hosted, red's file, the record, blue's
    assert text.count("-----BEGIN PBEM FILE-----") == (3 if mode == "hosted" else 1)
    assert text.endswith(pool.forfeit[mode]["answer"].read_text()), text[-300:]
    # its files/ folder alone does as well
    ladder2 = tmp_path / "again.ladder"
    shutil.copy(ladder, ladder2)
    con = sqlite3.connect(ladder2)
    with con:
        con.execute("UPDATE forfeits SET status = 'pending', rebuttal = NULL, rebutted = NULL")
    con.close()
    ok("ladder", "rebut", ladder2, "1", proof / "files")
    assert sqlite3.connect(ladder2).execute("SELECT rebuttal FROM forfeits").fetchone()[0] \
        == text
    # and with the answer given beside the folder that holds it too: one file, counted once
    with sqlite3.connect(ladder2) as con:
        con.execute("UPDATE forfeits SET status = 'pending', rebuttal = NULL, rebutted = NULL")
    con.close()
    ok("ladder", "rebut", ladder2, "1", proof, pool.forfeit[mode]["answer"])
    assert sqlite3.connect(ladder2).execute("SELECT rebuttal FROM forfeits").fetchone()[0] \
        == text


def test_a_rebuttal_folder_is_checked_as_its_files(ladder: Path, pool: Pool,
                                                   tmp_path: Path) -> None:
    """A folder proves no more than the files in it: the claimant's own archive (nothing
    after the claimed file), the opponent's hosted archive (the files in between missing), a
    folder of the claimant's own later file, a forged second file of one number, a link: each
    refused in one line naming the folder or file and the problem, the ladder untouched."""
    f = pool.forfeit["peer"]
    ok("ladder", "file-claim", ladder, _claim(pool, "peer", tmp_path), f["red"])
    before = digest(ladder)
    err = refused("ladder", "rebut", ladder, "1", f["red"])
    assert err == (f"Error: {f['red']}: no turn file of this game after file 1 the claim names "
                   "(a rebuttal is the files that follow it, up to one the opponent signed)"), err
    # the claimant's own later file, chained to the claimed one: not the opponent's
    own = tmp_path / "own"
    own.mkdir()
    _signed_as(f["answer"], f["red_key"], own / "0002-red.pbem", sender="red")
    err = refused("ladder", "rebut", ladder, "1", own)
    assert err == ("Error: own/0002-red.pbem: no file given is signed by blue, the side the "
                   "claim is against (a rebuttal leads to one of its files)"), err
    # the answer beside a forged second file 2: one number, two files
    two = tmp_path / "two"
    two.mkdir()
    shutil.copy(f["answer"], two / "0002-blue.pbem")
    _signed_as(f["answer"], f["blue_key"], two / "0002-blue2.pbem", message="other")
    err = refused("ladder", "rebut", ladder, "1", two)
    assert err == "Error: two/0002-blue2.pbem: a second file 2 among the files given", err
    # a link is refused, not followed
    link = tmp_path / "link"
    link.mkdir()
    (link / "0002-blue.pbem").symlink_to(f["answer"])
    err = refused("ladder", "rebut", ladder, "1", link)
    assert err == ("Error: link/0002-blue.pbem: not a regular file (links, folders, devices "
                   "and pipes are refused)"), err
    (tmp_path / "via-link").symlink_to(_live(pool, "peer", "blue"))
    err = refused("ladder", "rebut", ladder, "1", tmp_path / "via-link")
    assert err == (f"Error: {tmp_path / 'via-link'}: a link (links, devices and pipes are "
                   "refused)"), err
    # a fake of no chain in the opponent's own archive folder: refused as a file is
    fake = tmp_path / "blue-copy"
    shutil.copytree(_live(pool, "peer", "blue"), fake)
    answer = fake / "files" / "0002-blue.pbem"
    _signed_as(answer, f["blue_key"], answer, prev="0" * 64)
    err = refused("ladder", "rebut", ladder, "1", fake)
    assert err.startswith(f"Error: blue-copy/files/{answer.name}: file 2 does not answer file 1 "
                          "the claim names (its prev is not that file's hash"), err
    assert digest(ladder) == before
    ok("ladder", "rebut", ladder, "1", f["answer"])


def test_a_hosted_opponents_archive_alone_is_refused_naming_the_missing_file(
        ladder: Path, pool: Pool, tmp_path: Path) -> None:
    ok("ladder", "file-claim", ladder, _claim(pool, "hosted", tmp_path),
       pool.forfeit["hosted"]["red"])
    before = digest(ladder)
    err = refused("ladder", "rebut", ladder, "1", _live(pool, "hosted", "blue"))
    assert "file 3 does not follow file 0 the claim names: file 1 is missing" in err, err
    assert digest(ladder) == before


def test_a_peer_rebuttal_of_the_claimants_own_files_is_refused(ladder: Path, pool: Pool,
                                                               tmp_path: Path) -> None:
    """Party: a file after the claimed one, chained, but the claimant's (red's) own, or one
    that says it is blue's but red signed it: neither is a reply of blue."""
    f = pool.forfeit["peer"]
    ok("ladder", "file-claim", ladder, _claim(pool, "peer", tmp_path), f["red"])
    before = digest(ladder)
    mine = _signed_as(f["answer"], f["red_key"], tmp_path / "0002-red.pbem", sender="red")
    assert refused("ladder", "rebut", ladder, "1", mine) == (
        "Error: 0002-red.pbem: no file given is signed by blue, the side the claim is against "
        "(a rebuttal leads to one of its files)")
    posing = _signed_as(f["answer"], f["red_key"], tmp_path / "posing.pbem")
    assert refused("ladder", "rebut", ladder, "1", posing) == (
        "Error: posing.pbem: bad signature (not signed by blue's key in this game)")
    assert digest(ladder) == before
