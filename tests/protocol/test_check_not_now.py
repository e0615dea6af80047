"""A player who checks orders before the opponent's file is due to be received is told that,
and only that: a destination-only move is not also refused with "write the full path" (the
path is written out once the file may be sent)."""

from __future__ import annotations

from click.testing import CliRunner

from pbem.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args), env={"PBEM_PASSPHRASE": "x"})


def test_a_destination_only_move_checked_out_of_turn_names_only_the_turn(tmp_path):
    keys = tmp_path / "keys"
    for name in ("alice", "bob"):
        assert run("keygen", name, "--dir", str(keys), "--no-passphrase").exit_code == 0
    a, b = tmp_path / "a", tmp_path / "b"
    prop, acc = tmp_path / "p.pbem", tmp_path / "acc.pbem"
    assert run("new", "holdfast", "race-to-tunis", str(a), "--side", "allied", "--key",
               str(keys / "alice.key"), "--opponent", str(keys / "bob.pub"),
               "--out", str(prop)).exit_code == 0
    assert run("join", str(prop), "--key", str(keys / "bob.key"), "--dir", str(b),
               "--out", str(acc)).exit_code == 0
    assert run("receive", str(a), str(acc), "--key", str(keys / "alice.key")).exit_code == 0
    orders = tmp_path / "a1.txt"
    orders.write_text("move 36bde to 1304\nend\n")      # the Axis set-up comes first
    r = run("check", str(a), str(orders))
    assert r.exit_code == 1, r.output
    assert "no decision to make now; file 1 must come from axis" in r.output, r.output
    assert "write the full path" not in r.output, r.output
    assert r.output.count("\n") == 1, r.output
    # once it is the player's turn the same line is written out as its path
    setup = tmp_path / "b1.txt"
    setup.write_text("place fjr5 1803\nplace superga 2004\nplace witzig 1704\nend\n")
    b1 = tmp_path / "b1.pbem"
    assert run("submit", str(b), str(setup), "--key", str(keys / "bob.key"),
               "--out", str(b1)).exit_code == 0
    assert run("receive", str(a), str(b1), "--key", str(keys / "alice.key")).exit_code == 0
    r = run("check", str(a), str(orders))
    assert r.exit_code == 0 and "is written out as 'move 36bde 1105-1204-1304'" in r.output, \
        r.output
