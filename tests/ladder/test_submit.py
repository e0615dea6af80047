"""`pbem ladder submit`: games are recorded only from archives the ladder verifies itself."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from ladder.helpers import Pool, digest, ok, refused, run

from pbem.protocol.audit import verify_archive
from pbem.protocol.session import load


def _outcome(g) -> str | None:  # type: ignore[no-untyped-def]
    """The winning member of a pool game, from the referee's or a peer's own archive."""
    d = g.dirs.get("host") or g.dirs["red"]
    s = load(d, key=None)
    w = s.game.outcome(s.state).winner
    return g.players[w] if w else None


def test_a_dozen_real_games_peer_and_hosted_are_recorded(pool: Pool, ladder: Path) -> None:
    wins = {m: 0 for m in ("ann", "ben", "cat", "dov")}
    kinds = set()
    for g in pool.games:
        r = ok("ladder", "submit", ladder, g.submit)
        assert r.output.startswith("Recorded game #"), r.output
        wins[_outcome(g)] += 1
        kinds.add((g.mode, g.submit.name))
    assert {m for m, _ in kinds} == {"peer", "hosted"}
    assert {"red", "blue", "referee"} <= {k for _, k in kinds}   # every kind of archive
    rows = json.loads(ok("ladder", "standings", ladder, "--format", "json").output)
    assert len(rows) == 4
    for row in rows:
        member = row["name"].lower()
        assert row["games"] == 6 and row["draws"] == 0
        assert row["wins"] == wins[member] and row["losses"] == 6 - wins[member]
        assert {"name", "fingerprint", "rating", "games", "wins", "losses", "draws"} <= set(row)
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    con = sqlite3.connect(ladder)
    assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 12
    assert {r[0] for r in con.execute("SELECT mode FROM games")} == {"peer", "hosted"}


def test_holdfast_games_from_pbem_demo_are_recorded(pool: Pool, ladder: Path) -> None:
    for demo, names in ((pool.demo_peer, ("Erin", "Finn")), (pool.demo_hosted, ("Gus", "Hal"))):
        for side, name in zip(("allied", "axis"), names):
            ok("ladder", "add-player", ladder, name, demo / "keys" / f"{side}.pub")
    ok("ladder", "submit", ladder, pool.demo_peer / "allied")
    ok("ladder", "submit", ladder, pool.demo_hosted / "referee")
    out = json.loads(ok("ladder", "standings", ladder, "--game", "holdfast", "--format",
                        "json", "--min-games", "1").output)
    assert sorted(r["name"] for r in out) == ["Erin", "Finn", "Gus", "Hal"]


def test_the_same_game_from_the_other_player_or_the_referee_is_a_duplicate(
        pool: Pool, ladder: Path) -> None:
    peer = next(g for g in pool.games if g.mode == "peer")
    hosted = next(g for g in pool.games if g.mode == "hosted")
    ok("ladder", "submit", ladder, peer.dirs["red"])
    before = digest(ladder)
    # a hosted player's archive first: refused, nothing kept; then the referee's counts
    assert "cannot prove the result" in refused("ladder", "submit", ladder, hosted.dirs["blue"])
    assert digest(ladder) == before
    ok("ladder", "submit", ladder, hosted.dirs["host"])
    before = digest(ladder)
    for again in (peer.dirs["red"], peer.dirs["blue"], hosted.dirs["red"], hosted.dirs["host"],
                  hosted.dirs["blue"]):
        err = refused("ladder", "submit", ladder, again)
        assert "duplicate" in err and "already recorded" in err, err
    assert digest(ladder) == before


def _forge_result(player: Path, host_key: Path, dest: Path) -> str:
    """A copy of a hosted player's archive whose last view, signed again with the referee's
    key, says the other side won (a dishonest referee); returns the invented winner."""
    import msgspec

    from pbem.core.keys import load_private
    from pbem.core.records import read_file, seal

    shutil.copytree(player, dest)
    shutil.rmtree(dest / "cache", ignore_errors=True)
    last = sorted((dest / "files").glob("view-*.pbem"))[-1]
    view = read_file(last).payload
    winner = next(s for s in ("allied", "axis") if s != view.outcome["winner"])
    forged = msgspec.structs.replace(view, outcome={"winner": winner, "reason": "invented"})
    last.write_text(seal(forged, load_private(host_key)).text)
    return winner


def test_a_result_the_referee_invented_is_never_recorded(pool: Pool, ladder: Path,
                                                         tmp_path: Path) -> None:
    """A referee signs a player views whose outcome it made up: the player's archive
    verifies (its audit cannot replay the rules), so the ladder takes a hosted game's result
    only from the referee's archive, whose audit replays it."""
    demo = pool.demo_hosted
    for side, name in (("allied", "Gus"), ("axis", "Hal")):
        ok("ladder", "add-player", ladder, name, demo / "keys" / f"{side}.pub")
    forged = tmp_path / "allied"
    winner = _forge_result(demo / "allied", demo / "keys" / "host.key", forged)
    assert verify_archive(forged).ok             # the player's own audit cannot tell
    before = digest(ladder)
    err = refused("ladder", "submit", ladder, forged)
    assert err.startswith(f"Error: {forged}: a hosted player's archive cannot prove the "
                          "result"), err
    assert "the referee's archive" in err
    assert "duplicate" not in refused("ladder", "submit", ladder, demo / "axis")
    assert digest(ladder) == before
    # The referee's archive is recorded with the result the rules give.
    r = ok("ladder", "submit", ladder, demo / "referee")
    assert r.output.startswith("Recorded game #1 "), r.output
    true = "Hal" if winner == "allied" else "Gus"
    assert f"{true} won" in r.output, r.output
    # The player's archives afterwards: the honest one is a duplicate, the forged one is
    # evidence of a referee who signed two results (a conflict; the recorded game stands).
    assert "duplicate" in refused("ladder", "submit", ladder, demo / "axis")
    err = refused("ladder", "submit", ladder, forged)
    assert "conflict" in err and "its result" in err, err
    rows = {r["name"]: r for r in json.loads(
        ok("ladder", "standings", ladder, "--format", "json").output)}
    assert rows[true]["wins"] == 1 and sum(r["games"] for r in rows.values()) == 2


def test_a_tampered_archive_is_refused(pool: Pool, ladder: Path, tmp_path: Path) -> None:
    bad = tmp_path / "tampered"
    shutil.copytree(pool.games[0].submit, bad)
    victim = sorted((bad / "files").glob("0003-*.pbem"))[0]
    text = victim.read_text()
    lines = text.splitlines(keepends=True)
    i = next(i for i, ln in enumerate(lines) if ln.startswith("-----BEGIN")) + 3
    lines[i] = lines[i][:10] + ("A" if lines[i][10] != "A" else "B") + lines[i][11:]
    victim.write_text("".join(lines))
    assert not verify_archive(bad).ok
    before = digest(ladder)
    err = refused("ladder", "submit", ladder, bad)
    assert "does not verify" in err and str(bad) in err
    assert digest(ladder) == before


def test_a_forged_result_file_is_refused(pool: Pool, ladder: Path, tmp_path: Path) -> None:
    """The last file removed: the archive still verifies, but the game is not over."""
    cut = tmp_path / "cut"
    shutil.copytree(pool.games[0].dirs["red"], cut)
    last = sorted(p for p in (cut / "files").glob("0*.pbem") if "-accept-" not in p.name
                  and "proposal" not in p.name)[-1]
    last.unlink()
    (cut / "cache" / "state.json").unlink(missing_ok=True)
    err = refused("ladder", "submit", ladder, cut)
    assert "not over" in err or "does not verify" in err


def test_an_unfinished_game_is_refused(pool: Pool, ladder: Path) -> None:
    before = digest(ladder)
    err = refused("ladder", "submit", ladder, pool.unfinished)
    assert "the game is not over" in err
    assert digest(ladder) == before


def test_a_game_between_unregistered_keys_is_refused(pool: Pool, ladder: Path) -> None:
    before = digest(ladder)
    err = refused("ladder", "submit", ladder, pool.stranger)
    assert "not registered" in err and "red" in err and "blue" in err
    assert digest(ladder) == before


def test_a_game_with_one_unregistered_key_is_refused(pool: Pool, ladder: Path) -> None:
    for demo in (pool.demo_peer,):
        ok("ladder", "add-player", ladder, "Erin", demo / "keys" / "allied.pub")
        err = refused("ladder", "submit", ladder, demo / "allied")
        assert "axis" in err and "is not registered" in err


def test_a_game_the_ladder_does_not_accept_is_refused(pool: Pool, tmp_path: Path) -> None:
    db = tmp_path / "holdfast-only.ladder"
    ok("ladder", "init", db, "--accept", "holdfast:race-to-tunis")
    for m in ("ann", "ben", "cat", "dov"):
        ok("ladder", "add-player", db, m, pool.pub(m))
    err = refused("ladder", "submit", db, pool.games[0].submit)
    assert "does not accept dash scenario short" in err
    ok("ladder", "accept", db, "dash")
    ok("ladder", "submit", db, pool.games[0].submit)
    ok("ladder", "accept", db, "dash", "--remove")
    refused("ladder", "submit", db, pool.games[1].submit)
    assert "unknown game" in refused("ladder", "init", tmp_path / "x.ladder", "--accept", "chess")


def test_two_different_archives_of_one_game_are_a_conflict_with_both_kept(
        pool: Pool, ladder: Path, tmp_path: Path) -> None:
    assert verify_archive(pool.fork_a).ok and verify_archive(pool.fork_b).ok
    ok("ladder", "submit", ladder, pool.fork_a)
    err = refused("ladder", "submit", ladder, pool.fork_b)
    assert "conflict" in err and "both archives are kept" in err
    out = ok("ladder", "conflicts", ladder).output
    assert "differs from the recorded archive" in out
    before = digest(ladder)
    assert "conflict" in refused("ladder", "submit", ladder, pool.fork_b)
    assert digest(ladder) == before                # the same evidence is kept once
    con = sqlite3.connect(ladder)
    gid = con.execute("SELECT game_id FROM conflicts").fetchone()[0]
    assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
    folders = ok("ladder", "export", ladder, gid, tmp_path / "evidence").output.split()
    dirs = [Path(w) for w in folders if w.startswith(str(tmp_path))]
    assert len(dirs) == 2
    for d in dirs:                     # both pieces of evidence audit on their own
        assert verify_archive(d).ok, verify_archive(d).problems


def test_a_single_file_or_a_missing_folder_is_refused(pool: Pool, ladder: Path,
                                                      tmp_path: Path) -> None:
    f = tmp_path / "game.txt"
    f.write_text("not a game")
    assert "not a pbem game record" in refused("ladder", "submit", ladder, f)
    assert "no such archive folder" in refused("ladder", "submit", ladder, tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    assert "not a pbem archive" in refused("ladder", "submit", ladder, tmp_path / "empty")


def test_a_symlink_inside_an_archive_is_refused(pool: Pool, ladder: Path, tmp_path: Path) -> None:
    d = tmp_path / "linked"
    shutil.copytree(pool.games[0].submit, d)
    (d / "files" / "extra.pbem").symlink_to("/etc/passwd")
    assert "not a regular file" in refused("ladder", "submit", ladder, d)


def test_the_stored_archive_is_the_copy_audited_and_verifies_again(
        pool: Pool, full_ladder: Path, tmp_path: Path) -> None:
    con = sqlite3.connect(full_ladder)
    for gid, in con.execute("SELECT game_id FROM games ORDER BY seq LIMIT 3"):
        out = ok("ladder", "export", full_ladder, gid, tmp_path / gid).output
        folder = Path(out.split()[-1])
        assert verify_archive(folder).ok
        assert not (folder / "secret").exists()        # the sealed dice secret is never kept


def test_submit_needs_a_ladder(pool: Pool, tmp_path: Path) -> None:
    err = refused("ladder", "submit", tmp_path / "none.ladder", pool.games[0].submit)
    assert "no ladder database here" in err
    assert not (tmp_path / "none.ladder").exists()
    junk = tmp_path / "junk.ladder"
    junk.write_bytes(b"hello, this is not sqlite" * 100)
    assert "not a pbem ladder database" in refused("ladder", "submit", junk, pool.games[0].submit)
    r = run("ladder", "init", junk)
    assert r.exit_code == 1 and "already exists" in r.output


def test_the_audit_hands_back_the_session_it_verified(pool: Pool) -> None:
    """submit reads the result from the very session the audit replayed (no second replay):
    verify_archive hands back what it loaded."""
    from pbem.ladder import archives
    from pbem.protocol import audit as audit_mod
    from pbem.protocol import hosted, session

    counted: list[str] = []
    plain = session.load, hosted.load_player

    def count(fn, name):  # type: ignore[no-untyped-def]
        def inner(*a, **k):  # type: ignore[no-untyped-def]
            counted.append(name)
            return fn(*a, **k)
        return inner

    session.load, hosted.load_player = count(plain[0], "load"), count(plain[1], "player")
    try:
        for d, kind, calls in ((pool.games[0].dirs["red"], "Session", ["load"]),
                               (pool.games[6].dirs["host"], "Session", ["load"]),
                               (pool.games[6].dirs["red"], "PlayerState", ["player"])):
            counted.clear()
            result, loaded = archives.audit(d)
            assert result.ok and type(loaded).__name__ == kind
            assert counted == calls            # loaded (and replayed) once, by the audit
    finally:
        session.load, hosted.load_player = plain

    assert (session.load, hosted.load_player) == plain
    assert audit_mod.verify_archive(pool.games[0].dirs["red"]).loaded is not None


def test_a_mode_the_ladder_cannot_check_is_refused(pool: Pool, ladder: Path,
                                                   monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from pbem.ladder import archives

    real = archives.facts_of

    def unknown(loaded):  # type: ignore[no-untyped-def]
        f = real(loaded)
        f.mode = "tournament"
        return f

    monkeypatch.setattr(archives, "facts_of", unknown)
    err = refused("ladder", "submit", ladder, pool.games[0].submit)
    assert "tournament games are not accepted by this ladder" in err
    # sealed archives: tests/ladder/test_sealed_results.py


def test_a_game_not_started_is_refused(pool: Pool, ladder: Path, tmp_path: Path) -> None:
    d = tmp_path / "proposed"
    ok("keygen", "p1", "--dir", tmp_path / "k", "--no-passphrase")
    ok("new", "dash", "short", d, "--side", "red", "--key", tmp_path / "k" / "p1.key",
       "--opponent", pool.pub("ben"), "--out", tmp_path / "proposal.pbem")
    assert "has not started" in refused("ladder", "submit", ladder, d)
