"""Keys at rest (issue item 8): a stolen key file costs a real password-hashing effort per
guess, an empty passphrase never writes a plain key by accident, old keys still load, and
`pbem verify` shows the fingerprint of every pinned key."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fixtures.table import Table
from pbem.cli import cli

PASS = "correct horse battery staple"


def run(*args: str, env: dict[str, str] | None = None, input: str | None = None):
    return CliRunner().invoke(cli, list(args), env=env, input=input, catch_exceptions=False)


def key_fields(path: Path) -> dict:
    """Parse an encrypted key file independently of pbem's own reader."""
    text = path.read_text(encoding="ascii").strip()
    lines = text.splitlines()
    assert lines[0] == "-----BEGIN PBEM ENCRYPTED KEY-----", lines[0]
    assert lines[-1] == "-----END PBEM ENCRYPTED KEY-----"
    return json.loads(base64.b64decode("".join(lines[1:-1]), validate=True))


@pytest.fixture(scope="module")
def encrypted(tmp_path_factory):
    d = tmp_path_factory.mktemp("keys")
    r = run("keygen", "alice", "--dir", str(d), env={"PBEM_PASSPHRASE": PASS})
    assert r.exit_code == 0, r.output
    fp = re.search(r"Fingerprint: (\S+)", r.output).group(1)
    return d, fp


def test_written_key_meets_the_password_hashing_bar(encrypted):
    d, _ = encrypted
    f = key_fields(d / "alice.key")
    # OWASP: scrypt with N >= 2^17, r = 8, p = 1 (or PBKDF2-HMAC-SHA256 >= 600,000 rounds)
    assert f["kdf"] == "scrypt"
    assert f["n"] >= 2**17 and f["n"] & (f["n"] - 1) == 0 and f["r"] >= 8 and f["p"] >= 1
    assert len(base64.b64decode(f["salt"])) >= 16
    assert f["aead"] == "chacha20-poly1305" and len(base64.b64decode(f["nonce"])) == 12
    assert len(base64.b64decode(f["ct"])) == 32 + 16
    assert (d / "alice.key").stat().st_mode & 0o077 == 0
    raw = (d / "alice.key").read_bytes()
    assert b"PRIVATE KEY" not in raw


def test_encrypted_key_is_used_by_commands(encrypted, tmp_path, monkeypatch):
    d, _ = encrypted
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    run("keygen", "bob", "--dir", str(tmp_path), "--no-passphrase")
    args = ["new", "dash", "short", str(tmp_path / "game"), "--side", "red", "--key",
            str(d / "alice.key"), "--opponent", str(tmp_path / "bob.pub"), "--out",
            str(tmp_path / "prop.pbem")]
    r = run(*args, env={"PBEM_PASSPHRASE": PASS})
    assert r.exit_code == 0, r.output
    assert (tmp_path / "prop.pbem").exists()
    r = run(*args, env={})
    assert r.exit_code == 1 and "PBEM_PASSPHRASE" in r.output


def test_wrong_passphrase_is_one_clean_line(encrypted, tmp_path):
    d, _ = encrypted
    run("keygen", "bob", "--dir", str(tmp_path), "--no-passphrase")
    for env in ({"PBEM_PASSPHRASE": "wrong"}, {"PBEM_PASSPHRASE": ""}):
        r = run("new", "dash", "short", str(tmp_path / "game"), "--side", "red", "--key",
                str(d / "alice.key"), "--opponent", str(tmp_path / "bob.pub"), "--out",
                str(tmp_path / "prop.pbem"), env=env)
        assert r.exit_code == 1
        lines = r.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and "alice.key" in lines[0]
        assert "wrong passphrase" in lines[0]
        assert not (tmp_path / "game").exists()


@pytest.mark.parametrize("how", ["environment", "prompt"])
def test_empty_passphrase_is_refused(tmp_path, monkeypatch, how):
    import pbem.cli

    if how == "environment":
        r = run("keygen", "carol", "--dir", str(tmp_path), env={"PBEM_PASSPHRASE": ""})
    else:
        monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
        monkeypatch.setattr(pbem.cli, "_interactive", lambda: True)
        r = run("keygen", "carol", "--dir", str(tmp_path), input="\n\n")
    assert r.exit_code == 1, r.output
    last = r.output.strip().splitlines()[-1]
    assert last.startswith("Error: ") and "empty" in last and "--no-passphrase" in last
    assert not (tmp_path / "carol.key").exists() and not (tmp_path / "carol.pub").exists()
    r = run("keygen", "carol", "--dir", str(tmp_path), "--no-passphrase")
    assert r.exit_code == 0 and "NOT encrypted" in r.output
    assert b"BEGIN PRIVATE KEY" in (tmp_path / "carol.key").read_bytes()


def test_library_refuses_an_empty_passphrase(tmp_path):
    from pbem.core.errors import KeyFileError
    from pbem.core.keys import encrypt_private, generate

    with pytest.raises(KeyFileError, match="empty passphrase"):
        generate("dave", tmp_path, "")
    with pytest.raises(KeyFileError, match="empty passphrase"):
        encrypt_private(Ed25519PrivateKey.generate(), "")
    assert not list(tmp_path.iterdir())


def _old_format(tmp_path: Path, name: str, passphrase: str | None) -> tuple[Path, Path]:
    """A key pair as earlier pbem versions wrote it (PKCS#8 PEM, PBKDF2 when encrypted)."""
    from pbem.core.keys import format_public, public_raw

    key = Ed25519PrivateKey.generate()
    enc = (serialization.BestAvailableEncryption(passphrase.encode()) if passphrase
           else serialization.NoEncryption())
    kp, pp = tmp_path / f"{name}.key", tmp_path / f"{name}.pub"
    kp.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                     serialization.PrivateFormat.PKCS8, enc))
    pp.write_text(format_public(public_raw(key.public_key()), name))
    return kp, pp


def test_old_format_keys_still_load_and_can_be_rekeyed(tmp_path):
    old_enc, _ = _old_format(tmp_path, "olde", "old secret")
    _, plain_pub = _old_format(tmp_path, "oldp", None)

    def new_game(n: int, **env: str):
        return run("new", "dash", "short", str(tmp_path / f"g{n}"), "--side", "red", "--key",
                   str(old_enc), "--opponent", str(plain_pub), "--out",
                   str(tmp_path / f"p{n}.pbem"), env=env)

    r = new_game(1, PBEM_PASSPHRASE="old secret")
    assert r.exit_code == 0, r.output
    assert "pbem rekey" in r.output          # a note suggests re-encrypting it
    r = run("rekey", str(old_enc), env={"PBEM_PASSPHRASE": "old secret",
                                        "PBEM_NEW_PASSPHRASE": PASS})
    assert r.exit_code == 0, r.output
    assert key_fields(old_enc)["kdf"] == "scrypt"
    r = new_game(2, PBEM_PASSPHRASE=PASS)
    assert r.exit_code == 0 and "pbem rekey" not in r.output, r.output
    assert new_game(3, PBEM_PASSPHRASE="old secret").exit_code == 1
    # the key itself did not change
    from pbem.core.records import read_file

    a = read_file(tmp_path / "p1.pbem").payload.parties
    b = read_file(tmp_path / "p2.pbem").payload.parties
    assert [k.pub for k in a] == [k.pub for k in b]


def test_tampered_or_hostile_key_files_are_refused(encrypted, tmp_path):
    from pbem.core.errors import KeyFileError
    from pbem.core.keys import load_private

    d, _ = encrypted
    f = key_fields(d / "alice.key")

    def write(fields: dict) -> Path:
        b64 = base64.b64encode(json.dumps(fields, sort_keys=True,
                                          separators=(",", ":")).encode()).decode()
        p = tmp_path / "k.key"
        p.write_text("-----BEGIN PBEM ENCRYPTED KEY-----\n" + b64
                     + "\n-----END PBEM ENCRYPTED KEY-----\n")
        return p

    # a downgrade of the cost is caught by the authenticated header
    with pytest.raises(KeyFileError, match="wrong passphrase"):
        load_private(write(dict(f, n=2**10)), PASS)
    # a file asking for absurd memory is refused before any work
    with pytest.raises(KeyFileError, match="out of range"):
        load_private(write(dict(f, n=2**40)), PASS)
    with pytest.raises(KeyFileError, match="damaged"):
        load_private(write(dict(f, ct=f["ct"][:-4])), PASS)
    assert load_private(write(f), PASS) is not None


def test_seal_and_open_secret():
    from pbem.core.errors import KeyFileError
    from pbem.core.keys import open_secret, seal_secret

    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    secret, aad = bytes(range(32)), b"pbem/v1/dice-secret|game|red"
    blob = seal_secret(key, secret, aad)
    assert secret not in blob and len(blob) == 12 + 32 + 16
    assert seal_secret(key, secret, aad) != blob          # a fresh nonce each time
    assert open_secret(key, blob, aad) == secret
    for i in range(len(blob)):
        bad = blob[:i] + bytes([blob[i] ^ 1]) + blob[i + 1:]
        with pytest.raises(KeyFileError):
            open_secret(key, bad, aad)
    for args in ((other, blob, aad), (key, blob, aad + b"x"), (key, blob[:20], aad),
                 (key, b"", aad)):
        with pytest.raises(KeyFileError):
            open_secret(*args)


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_verify_prints_every_pinned_fingerprint(tmp_path, mode):
    t = Table(tmp_path, mode=mode)
    t.deliver()
    from pbem.core.keys import fingerprint, load_public

    fps = {p: fingerprint(load_public(t.pub(p))[0]) for p in (*t.sides, "host")}
    parties = [*t.sides, "host"] if mode == "hosted" else list(t.sides)
    for archive in parties:
        r = t.ok("verify", str(t.dirs[archive]))
        for p in parties:
            assert f"Key of {p}: {fps[p]}" in r.output, (archive, r.output)
