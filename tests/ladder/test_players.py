"""Players: a display name and a key; key replacement by a statement signed by the old key
(and countersigned by the new one); signed statements parse strictly."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.helpers import Pool, digest, ok, refused
from pbem.ladder.db import LadderError
from pbem.ladder.players import check_name
from pbem.ladder.statements import ForfeitClaim, KeyReplacement, make, open_statement


def test_register_and_list(ladder: Path, pool: Pool) -> None:
    out = ok("ladder", "players", ladder).output
    for m in ("Ann", "Ben", "Cat", "Dov"):
        assert m in out
    assert "key " in ok("ladder", "add-player", ladder, "Eve Müller", pool.stranger.parent
                        / "keys" / "mallory.pub").output


@pytest.mark.parametrize("name, why", [
    ("", "1 to 64"), ("x" * 65, "1 to 64"), ("bad\x1b[2Jname", "control characters"),
    ("tab\there", "control characters"), (" lead", "no spaces"),
    ("ABCD-EFGH-IJKL-MNOP", "fingerprint"), ("rtl\u202eevil", "control characters")])
def test_bad_names_are_refused_and_change_nothing(ladder: Path, pool: Pool, name: str,
                                                   why: str) -> None:
    before = digest(ladder)
    err = refused("ladder", "add-player", ladder, name, pool.stranger.parent / "keys" / "red.pub")
    assert why in err and "\x1b" not in err
    assert digest(ladder) == before


def test_a_name_or_key_registered_twice_is_refused(ladder: Path, pool: Pool) -> None:
    before = digest(ladder)
    assert "already registered to Ann" in refused("ladder", "add-player", ladder, "Annie",
                                                  pool.pub("ann"))
    assert "already registered" in refused("ladder", "add-player", ladder, "ANN",
                                           pool.stranger.parent / "keys" / "red.pub")
    assert "not a pbem public key" in refused("ladder", "add-player", ladder, "Zed",
                                              pool.key("ann"))
    assert digest(ladder) == before


@settings(max_examples=200)
@given(st.text(max_size=80))
def test_check_name_accepts_only_clean_names(name: str) -> None:
    try:
        check_name(name)
    except LadderError as e:
        assert "\n" not in str(e)
        return
    assert 1 <= len(name) <= 64 and name == name.strip() and name.isprintable()


def _replace(pool: Pool, tmp: Path, old: str, new_name: str, signers: str = "both") -> Path:
    ok("keygen", new_name, "--dir", tmp, "--no-passphrase")
    out = tmp / f"{new_name}-statement.txt"
    ok("ladder", "replace-statement", "--old", pool.key(old), "--new", tmp / f"{new_name}.key",
       "--out", out)
    if signers != "both":
        from pbem.core.keys import load_private
        from pbem.ladder.statements import read_statement

        st_ = read_statement(out)
        keys = [load_private(pool.key(old))] if signers == "old" else [
            load_private(tmp / f"{new_name}.key")]
        out.write_text(make(st_.payload, keys).text)
    return out


def test_key_replacement_by_a_statement_signed_with_the_old_key(
        full_ladder: Path, pool: Pool, tmp_path: Path) -> None:
    stmt = _replace(pool, tmp_path, "ann", "ann2")
    r = ok("ladder", "replace-key", full_ladder, stmt)
    assert "Ann: key replaced" in r.output
    con = sqlite3.connect(full_ladder)
    keys = con.execute("SELECT fingerprint, retired, statement FROM keys WHERE player_id = 1 "
                       "ORDER BY rowid").fetchall()
    assert len(keys) == 2 and keys[0][1] is not None and keys[1][1] is None
    assert "BEGIN PBEM FILE" in keys[1][2]                 # the statement is kept
    # The player keeps its games and ratings; its old key still finds it.
    rows = ok("ladder", "standings", full_ladder, "--format", "json").output
    assert '"Ann"' in rows and keys[1][0] in rows
    # A statement cannot be used twice, nor the old key replaced again.
    before = digest(full_ladder)
    assert "already retired" in refused("ladder", "replace-key", full_ladder, stmt)
    assert digest(full_ladder) == before


def test_a_game_with_a_retired_key_needs_the_directors_consent(
        ladder: Path, pool: Pool, tmp_path: Path) -> None:
    ok("ladder", "replace-key", ladder, _replace(pool, tmp_path, "ann", "ann2"))
    game = next(g for g in pool.games if "ann" in g.players.values())
    err = refused("ladder", "submit", ladder, game.submit)
    assert "retired" in err and "--allow-retired" in err
    ok("ladder", "submit", ladder, game.submit, "--allow-retired")


@pytest.mark.parametrize("signers", ["old", "new"])
def test_a_statement_missing_a_signature_is_refused(ladder: Path, pool: Pool, tmp_path: Path,
                                                    signers: str) -> None:
    stmt = _replace(pool, tmp_path, "ben", "ben2", signers=signers)
    before = digest(ladder)
    err = refused("ladder", "replace-key", ladder, stmt)
    assert ("not signed by the new key" if signers == "old" else "not signed by the old key") in err
    assert digest(ladder) == before


def test_a_tampered_statement_is_refused(ladder: Path, pool: Pool, tmp_path: Path) -> None:
    stmt = _replace(pool, tmp_path, "cat", "cat2")
    text = stmt.read_text()
    body = text.split("-----BEGIN PBEM FILE-----\n")[1]
    i = 20
    stmt.write_text(text.replace(body, body[:i] + ("A" if body[i] != "A" else "B") + body[i + 1:]))
    before = digest(ladder)
    refused("ladder", "replace-key", ladder, stmt)
    assert digest(ladder) == before


def test_a_replacement_to_a_registered_key_is_refused(ladder: Path, pool: Pool,
                                                      tmp_path: Path) -> None:
    from pbem.core.keys import load_private

    st_ = make(KeyReplacement(old=_hex(pool, "ann"), new=_hex(pool, "ben"), date="2025-01-01"),
               [load_private(pool.key("ann")), load_private(pool.key("ben"))])
    (tmp_path / "s.txt").write_text(st_.text)
    assert "already registered to Ben" in refused("ladder", "replace-key", ladder,
                                                  tmp_path / "s.txt")


def _hex(pool: Pool, m: str) -> str:
    from pbem.core.keys import load_public

    return load_public(pool.pub(m))[0].hex()


def test_a_game_file_is_not_a_statement_and_a_statement_is_not_a_game_file(
        pool: Pool, tmp_path: Path) -> None:
    from pbem.core.errors import FileRejected
    from pbem.core.keys import load_private
    from pbem.core.records import open_text

    game_file = sorted((pool.games[0].submit / "files").glob("0001-*.pbem"))[0].read_text()
    with pytest.raises(LadderError, match="not a pbem ladder statement"):
        open_statement(game_file)
    st_ = make(KeyReplacement(old=_hex(pool, "ann"), new=_hex(pool, "ben"), date="2025-01-01"),
               [load_private(pool.key("ann"))])
    with pytest.raises(FileRejected):
        open_text(st_.text)
    # Quoted in a mail with other text around it, the statement still opens.
    mail = "Hi,\n\n" + "".join("> " + ln + "\n" for ln in st_.text.splitlines()) + "\nBye\n"
    assert open_statement(mail).payload == st_.payload


@settings(max_examples=300)
@given(st.text(max_size=400))
def test_statement_parser_never_crashes(text: str) -> None:
    try:
        open_statement(text)
    except LadderError as e:
        assert "\n" not in str(e)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=60), st.integers(0, 10**6), st.dates().map(str))
def test_claims_round_trip_through_the_armor(message: str, seq: int, day: str) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    c = ForfeitClaim(game_id="ab" * 16, genesis="cd" * 32, claimant="red", opponent="blue",
                     last_seq=seq, last_hash="ef" * 32, sent=day, claimed=day, message=message)
    st_ = make(c, [key])
    back = open_statement(st_.text)
    assert back.payload == c and back.payload_bytes == st_.payload_bytes
    from pbem.core.keys import public_raw

    assert back.signed_by(public_raw(key.public_key()))
