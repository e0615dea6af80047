"""Ed25519 keys: generate, store (PKCS#8, encrypted with a passphrase), load, fingerprint."""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from pbem.core.dice import lp
from pbem.core.encoding import sha256
from pbem.core.errors import KeyFileError

PUB_PREFIX = "pbem-ed25519"
PASSPHRASE_ENV = "PBEM_PASSPHRASE"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def public_raw(pub: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key."""
    return pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(raw_pub: bytes) -> str:
    """A short human-readable fingerprint: 80 bits of a tagged SHA-256, base32 in groups of 4."""
    digest = sha256(lp(b"pbem/v1/key-id") + lp(raw_pub))[:10]
    b32 = base64.b32encode(digest).decode("ascii")
    return "-".join(b32[i:i + 4] for i in range(0, 16, 4))


def format_public(raw_pub: bytes, name: str) -> str:
    """The one-line public key file text."""
    return f"{PUB_PREFIX} {raw_pub.hex()} {name}\n"


def parse_public(text: str, *, source: str = "public key") -> tuple[bytes, str]:
    """Parse a public key line into (raw 32 bytes, name); KeyFileError if malformed."""
    parts = text.strip().split()
    if len(parts) < 2 or parts[0] != PUB_PREFIX:
        raise KeyFileError(f"{source}: not a pbem public key (expected '{PUB_PREFIX} <hex> NAME')")
    try:
        raw = bytes.fromhex(parts[1])
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise KeyFileError(f"{source}: malformed public key bytes") from None
    return raw, (parts[2] if len(parts) > 2 else "")


def load_public(path: str | Path) -> tuple[bytes, str]:
    """Read a NAME.pub file; returns (raw bytes, name)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as e:
        raise KeyFileError(f"{p}: cannot read public key ({e})") from None
    return parse_public(text, source=str(p))


def generate(name: str, directory: str | Path, passphrase: str | None) -> tuple[Path, Path, str]:
    """Create NAME.key and NAME.pub in directory; returns (key path, pub path, fingerprint)."""
    if not _NAME.match(name):
        raise KeyFileError(f"{name!r}: a key name is letters, digits, '.', '_' or '-' (max 64)")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    key_path, pub_path = d / f"{name}.key", d / f"{name}.pub"
    for p in (key_path, pub_path):
        if p.exists():
            raise KeyFileError(f"{p}: already exists; refusing to overwrite a key")
    key = Ed25519PrivateKey.generate()
    enc = (serialization.BestAvailableEncryption(passphrase.encode("utf-8")) if passphrase
           else serialization.NoEncryption())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, enc)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    raw = public_raw(key.public_key())
    pub_path.write_text(format_public(raw, name), encoding="ascii")
    return key_path, pub_path, fingerprint(raw)


def is_encrypted(path: str | Path) -> bool:
    """True if the private key file is passphrase-protected."""
    try:
        return b"ENCRYPTED" in Path(path).read_bytes()[:64]
    except OSError as e:
        raise KeyFileError(f"{path}: cannot read key ({e.strerror})") from None


def load_private(path: str | Path, passphrase: str | None = None) -> Ed25519PrivateKey:
    """Load a private key; the passphrase defaults to $PBEM_PASSPHRASE when the key is encrypted."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise KeyFileError(f"{p}: cannot read key ({e.strerror})") from None
    if passphrase is None and b"ENCRYPTED" in data[:64]:
        passphrase = os.environ.get(PASSPHRASE_ENV)
        if passphrase is None:
            raise KeyFileError(f"{p}: key is encrypted; give the passphrase in ${PASSPHRASE_ENV}")
    try:
        key = serialization.load_pem_private_key(
            data, password=passphrase.encode("utf-8") if passphrase and b"ENCRYPTED" in data[:64]
            else None)
    except (ValueError, TypeError):
        raise KeyFileError(f"{p}: wrong passphrase or not a private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{p}: not an Ed25519 private key")
    return key


def private_raw(key: Ed25519PrivateKey) -> bytes:
    """The 32 raw secret bytes (used only to derive this game's dice secret)."""
    return key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                             serialization.NoEncryption())
