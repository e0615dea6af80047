"""The mode two players get without asking (issue 10 item 5, docs/sealed.md "The default"):
sealed for a game that can seal, peer for one that cannot, hosted when a referee is named."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pbem.cli import cli
from pbem.core.records import read_file


def _run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture()
def keys(tmp_path):
    for p in ("ann", "ben", "ref"):
        assert _run("keygen", p, "--dir", str(tmp_path / "keys"), "--no-passphrase").exit_code == 0
    return tmp_path / "keys"


@pytest.mark.parametrize("game, scenario, side, extra, mode", [
    ("holdfast", "race-to-tunis", "allied", [], "sealed"),
    ("kasserine", "historical", "axis", [], "sealed"),
    ("bcs", "5.2", "allied", ["--option", "entry_blocking=five_hex_errata"], "sealed"),
    ("holdfast", "race-to-tunis", "allied", ["--referee", "{ref}"], "hosted"),
])
def test_pbem_new_without_a_mode(tmp_path, keys, game, scenario, side, extra, mode):
    extra = [x.replace("{ref}", str(keys / "ref.pub")) for x in extra]
    out = tmp_path / "proposal.pbem"
    r = _run("new", game, scenario, str(tmp_path / "g"), "--side", side, "--key",
             str(keys / "ann.key"), "--opponent", str(keys / "ben.pub"), "--out", str(out), *extra)
    assert r.exit_code == 0, r.output
    assert read_file(out).payload.mode == mode


def test_peer_mode_is_still_one_option_away(tmp_path, keys):
    out = tmp_path / "proposal.pbem"
    r = _run("new", "holdfast", "race-to-tunis", str(tmp_path / "g"), "--side", "allied",
             "--key", str(keys / "ann.key"), "--opponent", str(keys / "ben.pub"), "--out",
             str(out), "--mode", "peer")
    assert r.exit_code == 0, r.output
    assert read_file(out).payload.mode == "peer"


@pytest.mark.parametrize("mode, extra", [("peer", []), ("hosted", ["--referee", "{ref}"])])
def test_bbf_s_sealed_game_option_is_refused_outside_sealed_mode(tmp_path, keys, mode, extra):
    """The house option sealed_game marks a sealed BbF game (docs/sealed.md 5h): proposed by
    hand in peer or hosted mode it would make the rules wait for an opening no processor writes
    there, so the proposal is refused with one line and nothing is written."""
    extra = [x.replace("{ref}", str(keys / "ref.pub")) for x in extra]
    out = tmp_path / "proposal.pbem"
    r = CliRunner().invoke(cli, [
        "new", "bcs", "5.4", str(tmp_path / "g"), "--side", "axis", "--key",
        str(keys / "ann.key"), "--opponent", str(keys / "ben.pub"), "--out", str(out),
        "--mode", mode, "--option", "entry_blocking=five_hex_errata",
        "--option", "sealed_game=true", *extra])
    assert r.exit_code != 0
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "sealed_game = true is set by pbem for a sealed game only" \
        in lines[0], r.output
    assert not out.exists() and not (tmp_path / "g").exists()


@pytest.mark.parametrize("how", ["new", "host"])
def test_a_required_option_left_out_says_how_to_give_it(tmp_path, keys, how):
    """Baptism By Fire has a house option without a default (the entry rule the errata
    changed): leaving it out is one line naming the option, its choices and the flag."""
    out = tmp_path / "proposal.pbem"
    who = (["--side", "axis", "--opponent", str(keys / "ben.pub")] if how == "new"
           else ["--player", f"axis={keys / 'ann.pub'}", "--player", f"allied={keys / 'ben.pub'}"])
    r = CliRunner().invoke(cli, [how, "bcs", "5.4", str(tmp_path / "g"), "--key",
                                 str(keys / ("ann.key" if how == "new" else "ref.key")),
                                 "--out", str(out), *who])
    assert r.exit_code != 0
    lines = r.output.strip().splitlines()
    assert lines == ["Error: options: option entry_blocking is required for bcs (no default): "
                     "choose one of attack_from_off_map, five_hex_errata "
                     "(give it with --option entry_blocking=VALUE)"], r.output
    assert not out.exists() and not (tmp_path / "g").exists()
