"""A ladder records a sealed game only with both final reveals: the audit then has replayed it
with full information. An archive that lacks one is refused in one line naming the side."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.protocol.demo import play_demo


def run(*args: object):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def sealed_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sealed") / "d"
    play_demo(root, game_name="holdfast", scenario="race-to-tunis", mode="sealed", seed=1,
              style="random")
    return root


def _ladder(tmp_path: Path, game: Path) -> Path:
    db = tmp_path / "club.ladder"
    assert run("ladder", "init", db).exit_code == 0
    assert run("ladder", "accept", db, "holdfast").exit_code == 0
    for name, side in (("alice", "allied"), ("bob", "axis")):
        r = run("ladder", "add-player", db, name, game / "keys" / f"{side}.pub")
        assert r.exit_code == 0, r.output
    return db


def test_a_sealed_game_with_both_final_reveals_is_recorded(tmp_path, sealed_game):
    db = _ladder(tmp_path, sealed_game)
    r = run("ladder", "submit", db, sealed_game / "axis")
    assert r.exit_code == 0, r.output
    assert "Recorded game #1" in r.output and "alice vs bob" in r.output, r.output
    assert "holdfast/race-to-tunis" in run("ladder", "games", db).output


def test_a_sealed_archive_without_the_other_final_reveal_is_refused(tmp_path, sealed_game):
    """One side's archive with the other side's final reveal (the last file) taken out: the
    game is over but that side's hidden moves were never replayed, so it does not count."""
    db = _ladder(tmp_path, sealed_game)
    late, copy, _ = _without_the_last_reveal(tmp_path, sealed_game)
    before = db.read_bytes()
    r = run("ladder", "submit", db, copy)
    assert r.exit_code != 0
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "a sealed game counts only with both final reveals" in lines[0]
    assert f"{late}'s is not in this archive" in lines[0] and str(copy) in lines[0], r.output
    assert db.read_bytes() == before


def test_a_missing_final_reveal_is_claimed_as_a_forfeit(tmp_path, sealed_game):
    """The side whose final reveal is in claims the other's missing one (a cheater who forced
    the end with a hidden move only the reveal would check never sends it, docs/sealed.md):
    `pbem verify` says the board's result is not final, the claim is signed and filed, the
    missing reveal rebuts it, and a confirmed claim is a rated loss for the silent side."""
    import datetime

    db = _ladder(tmp_path, sealed_game)
    late, copy, reveal = _without_the_last_reveal(tmp_path, sealed_game)
    owner = "allied" if late == "axis" else "axis"
    r = run("verify", copy)
    assert r.exit_code == 0, r.output
    assert "Final result:" not in r.output
    assert f"not final: the final reveal of {late} is missing" in r.output, r.output
    page = tmp_path / "replay.html"               # both sides in full need both reveals
    r = run("replay", copy, "--out", page, "--view", "full")
    assert r.exit_code == 1 and f"the final reveal of {late} is missing" in r.output, r.output
    assert run("replay", copy, "--out", page).exit_code == 0
    assert '"id":"full"' not in page.read_text()
    sent = (datetime.date.today() - datetime.timedelta(days=30)).isoformat()
    claim = tmp_path / "claim.txt"
    r = run("ladder", "claim", copy, "--key", sealed_game / "keys" / f"{owner}.key",
            "--sent", sent, "--out", claim)
    assert r.exit_code == 0, r.output
    notice = tmp_path / "notice.txt"
    r = run("ladder", "file-claim", db, claim, copy, "--notice", notice)
    assert r.exit_code == 0 and "(pending)" in r.output, r.output
    assert f"{late} owes its final reveal" in notice.read_text()
    r = run("ladder", "rebut", db, "1", reveal)
    assert r.exit_code == 0 and "rebutted" in r.output, r.output
    r = run("ladder", "confirm", db, "1", "--note", "the reveal came but the director decides")
    assert r.exit_code == 0, r.output
    loser = "alice" if late == "allied" else "bob"
    assert f"a loss for {loser}" in r.output, r.output


def _without_the_last_reveal(tmp_path: Path, game: Path) -> tuple[str, Path, Path]:
    """A copy of the archive of the side that revealed first, with the other side's final
    reveal (its last file) moved out: (the side whose reveal is missing, the copy, the
    reveal moved out)."""
    last_name = sorted((game / "axis" / "files").glob("*.pbem"))[-1].name
    late = last_name.rsplit("-", 1)[1].removesuffix(".pbem")      # who revealed last
    owner = "allied" if late == "axis" else "axis"
    copy = tmp_path / owner
    shutil.copytree(game / owner, copy)
    shutil.rmtree(copy / "cache", ignore_errors=True)
    reveal = tmp_path / last_name
    shutil.move(copy / "files" / last_name, reveal)
    return late, copy, reveal
