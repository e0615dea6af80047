"""Weak public keys: a key on one of the eight small-order points of Edwards25519 is one anyone
can sign for (R = the identity, S = 0 verifies for one message in eight or more under OpenSSL,
for every message with the identity itself), so its owner could disown every file it signed,
and anyone could sign for it, a second file with one number (an "equivocation") included. A
differential trial of the replay page found that both pbem and the browser accepted a proposal
pinning one. pbem now refuses such a key wherever one comes in (a .pub file, a proposal, a
ladder key replacement) and never counts a signature under it; so does the replay page."""

from __future__ import annotations

from pathlib import Path

import msgspec
from click.testing import CliRunner
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from fixtures.table import snapshot
from pbem.cli import cli
from pbem.core import signing
from pbem.core.keys import PUB_PREFIX, public_raw
from pbem.core.records import Proposal, read_file, seal
from pbem.core.signing import weak_public_key

#: the y coordinates of the small-order points (libsodium's list), little-endian
SMALL_ORDER_Y = ["00" * 32, "01" + "00" * 31,
                 "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
                 "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
                 "ec" + "ff" * 30 + "7f"]
IDENTITY = bytes.fromhex("01" + "00" * 31)


def _encodings(y_hex: str) -> list[bytes]:
    y = bytes.fromhex(y_hex)
    return [y, y[:31] + bytes([y[31] | 0x80])]      # both signs of x


SMALL = [e for y in SMALL_ORDER_Y for e in _encodings(y)]
# y >= p = 2^255 - 19 (p + 1 encodes the identity again, p + 2 ... other points): never made
# by pbem, refused whatever point they name
UNREDUCED = [e for low in range(0xED, 0x100) for e in _encodings(f"{low:02x}" + "ff" * 30 + "7f")]


def _forged(raw: bytes, messages: int = 256) -> int:
    """How many of `messages` fixed messages OpenSSL accepts the signature (R = identity,
    S = 0) on, under the key raw (None if OpenSSL refuses the key itself)."""
    key = Ed25519PublicKey.from_public_bytes(raw)
    sig = IDENTITY + bytes(32)
    n = 0
    for i in range(messages):
        try:
            key.verify(sig, b"any file %d" % i)
            n += 1
        except InvalidSignature:
            pass
    return n


def test_a_small_order_key_is_one_anyone_can_sign_for_and_pbem_refuses_it():
    taken = 0
    for raw in SMALL:
        assert weak_public_key(raw), raw.hex()
        try:
            forged = _forged(raw)
        except ValueError:
            continue                   # OpenSSL refuses this encoding itself
        taken += 1
        assert forged >= 256 // 8 - 16, raw.hex()    # the attack works, through OpenSSL
        sig = IDENTITY + bytes(32)
        assert not any(signing.verify(raw, "pbem-turn-v1", b"any file %d" % i, sig)
                       for i in range(256)), raw.hex()
    assert taken >= 8                   # the eight points, at least in their canonical form


def test_unreduced_encodings_are_refused_and_real_keys_are_not():
    for raw in UNREDUCED:
        assert weak_public_key(raw), raw.hex()
    for _ in range(500):
        k = Ed25519PrivateKey.generate()
        raw = public_raw(k.public_key())
        assert not weak_public_key(raw)
        sig = signing.sign(k, "pbem-turn-v1", b"x")
        assert signing.verify(raw, "pbem-turn-v1", b"x", sig)


def _keys(tmp: Path, runner: CliRunner) -> Path:
    keys = tmp / "keys"
    for name in ("alice", "bob"):
        r = runner.invoke(cli, ["keygen", name, "--dir", str(keys), "--no-passphrase"])
        assert r.exit_code == 0, r.output
    return keys


def test_a_weak_public_key_file_is_refused_by_new_and_by_the_ladder(tmp_path):
    runner = CliRunner()
    keys = _keys(tmp_path, runner)
    weak = tmp_path / "mallory.pub"
    weak.write_text(f"{PUB_PREFIX} {IDENTITY.hex()} mallory\n")
    r = runner.invoke(cli, ["new", "holdfast", "race-to-tunis", str(tmp_path / "game"), "--side",
                            "allied", "--key", str(keys / "alice.key"), "--opponent", str(weak),
                            "--out", str(tmp_path / "proposal.pbem")])
    assert r.exit_code == 1, r.output
    assert r.output.startswith(f"Error: {weak}: a weak public key") and r.output.count("\n") == 1
    assert not (tmp_path / "game").exists() and not (tmp_path / "proposal.pbem").exists()
    db = tmp_path / "club.ladder"
    assert runner.invoke(cli, ["ladder", "init", str(db)]).exit_code == 0
    before = db.read_bytes()
    r = runner.invoke(cli, ["ladder", "add-player", str(db), "Mallory", str(weak)])
    assert r.exit_code == 1 and "weak public key" in r.output, r.output
    assert db.read_bytes() == before


def test_a_proposal_pinning_a_weak_key_is_refused_by_join(tmp_path):
    runner = CliRunner()
    keys = _keys(tmp_path, runner)
    out = tmp_path / "proposal.pbem"
    r = runner.invoke(cli, ["new", "holdfast", "race-to-tunis", str(tmp_path / "alice"), "--side",
                            "allied", "--key", str(keys / "alice.key"), "--opponent",
                            str(keys / "bob.pub"), "--mode", "peer", "--out", str(out)])
    assert r.exit_code == 0, r.output
    # the proposer pins a weak key for a side of his own choosing and signs the proposal
    from pbem.core.keys import load_private

    p = read_file(out).payload
    assert isinstance(p, Proposal)
    parties = [msgspec.structs.replace(k, pub=IDENTITY.hex()) if k.party == "axis" else k
               for k in p.parties]
    forged = seal(msgspec.structs.replace(p, parties=parties), load_private(keys / "alice.key"),
                  name="0000-proposal.pbem")
    bad = tmp_path / "forged-proposal.pbem"
    bad.write_text(forged.text)
    r = runner.invoke(cli, ["join", str(bad), "--key", str(keys / "bob.key"), "--dir",
                            str(tmp_path / "bob"), "--out", str(tmp_path / "accept.pbem")])
    assert r.exit_code == 1, r.output
    assert "the public key of axis is a weak key" in r.output and r.output.count("\n") == 1
    assert not (tmp_path / "bob").exists() and not (tmp_path / "accept.pbem").exists()
    # and an archive that pins one fails its audit (the proposal stored in place of the real)
    arch = tmp_path / "alice"
    stored = arch / "files" / "0000-proposal.pbem"
    stored.write_text(forged.text)
    before = snapshot(arch)
    r = runner.invoke(cli, ["verify", str(arch)])
    assert r.exit_code != 0 and "weak key" in r.output, r.output
    assert snapshot(arch) == before
