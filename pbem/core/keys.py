"""Ed25519 keys: generate, store (encrypted with scrypt + ChaCha20-Poly1305), load, fingerprint."""

from __future__ import annotations

import base64
import os
import re
import unicodedata
from pathlib import Path

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from pbem.core.dice import lp
from pbem.core.encoding import canonical, sha256
from pbem.core.errors import KeyFileError
from pbem.core.inputs import read_limited
from pbem.core.signing import weak_public_key

PUB_PREFIX = "pbem-ed25519"
PASSPHRASE_ENV = "PBEM_PASSPHRASE"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


# cryptography's key serialization module (PEM, PKCS#8, SSH, ...) costs about 15 ms to import
# and only writing a key and reading a key file in another form than the one pbem writes
# unencrypted need it: it is imported there, not by every command (`pbem verify` prints
# fingerprints from raw bytes; `pbem receive` reads its key through _plain_pkcs8).

def public_raw(pub: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key."""
    return pub.public_bytes_raw()


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
    if weak_public_key(raw):
        raise KeyFileError(f"{source}: a weak public key (a small-order point: anyone could "
                           "sign as its owner); no key pbem makes is one: ask for the real key")
    return raw, (parts[2] if len(parts) > 2 else "")


def load_public(path: str | Path) -> tuple[bytes, str]:
    """Read a NAME.pub file; returns (raw bytes, name)."""
    p = Path(path)
    raw = read_limited(p, MAX_PUBLIC_FILE, what="public key", error=KeyFileError)
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise KeyFileError(f"{p}: not a pbem public key (not ASCII text)") from None
    return parse_public(text, source=str(p))


# -- private keys at rest ----------------------------------------------------------------------
# A passphrase-protected key is stored as (docs/protocol.md, "Keys at rest"):
#
#   -----BEGIN PBEM ENCRYPTED KEY-----
#   base64 of the canonical JSON {"aead", "ct", "format", "kdf", "n", "nonce", "p", "pub",
#   "r", "salt"}, 64 characters per line
#   -----END PBEM ENCRYPTED KEY-----
#
# k = scrypt(NFC(passphrase) as UTF-8, salt (16 random bytes), N = 2^17, r = 8, p = 1, 32 bytes)
# ct = ChaCha20-Poly1305(k).encrypt(nonce (12 random bytes), raw 32-byte private key,
#      aad = lp("pbem/v1/key-file") || lp(canonical JSON of every field except "ct"))
# The parameters are those OWASP asks of scrypt (N >= 2^17, r = 8, p = 1): about 0.3 s and
# 128 MiB per guess. Unencrypted keys (--no-passphrase) stay PKCS#8 PEM; encrypted PKCS#8 keys
# written by earlier versions (PBKDF2-HMAC-SHA256, 2048 rounds) still load, with a note.

KEY_BEGIN = "-----BEGIN PBEM ENCRYPTED KEY-----"
KEY_END = "-----END PBEM ENCRYPTED KEY-----"
KEY_FORMAT = "pbem-key/1"
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**17, 8, 1
_SCRYPT_MAX_MEMORY = 1 << 30           # a key file may not ask for more (128 * n * r bytes)
_KEY_AAD_TAG = b"pbem/v1/key-file"
MAX_PUBLIC_FILE = 4096
MAX_KEY_FILE = 64 * 1024


class KeyHeader(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The fields of an encrypted key file (binary values in base64, pub in hex)."""

    format: str
    kdf: str
    n: int
    r: int
    p: int
    salt: str
    aead: str
    nonce: str
    pub: str
    ct: str


def _key_aad(h: KeyHeader) -> bytes:
    fields = {f: getattr(h, f) for f in h.__struct_fields__ if f != "ct"}
    return lp(_KEY_AAD_TAG) + lp(canonical(fields))


def _kdf(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    secret = unicodedata.normalize("NFC", passphrase).encode("utf-8")
    return Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(secret)


def encrypt_private(key: Ed25519PrivateKey, passphrase: str) -> bytes:
    """The encrypted key file bytes for a key and a (non-empty) passphrase."""
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    if not passphrase:
        raise KeyFileError("an empty passphrase protects nothing; give one, or store the key "
                           "unencrypted on purpose with --no-passphrase")
    salt, nonce = os.urandom(16), os.urandom(12)
    h = KeyHeader(format=KEY_FORMAT, kdf="scrypt", n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                  salt=base64.b64encode(salt).decode(), aead="chacha20-poly1305",
                  nonce=base64.b64encode(nonce).decode(),
                  pub=public_raw(key.public_key()).hex(), ct="")
    k = _kdf(passphrase, salt, h.n, h.r, h.p)
    ct = ChaCha20Poly1305(k).encrypt(nonce, private_raw(key), _key_aad(h))
    h.ct = base64.b64encode(ct).decode()
    b64 = base64.b64encode(canonical(h)).decode("ascii")
    lines = [b64[i:i + 64] for i in range(0, len(b64), 64)]
    return ("\n".join([KEY_BEGIN, *lines, KEY_END]) + "\n").encode("ascii")


def parse_key_header(data: bytes, *, source: str = "key") -> KeyHeader:
    """The header of an encrypted key file (no passphrase needed); KeyFileError if malformed."""
    try:
        text = data.decode("ascii").strip()
        if not (text.startswith(KEY_BEGIN) and text.endswith(KEY_END)):
            raise ValueError
        body = "".join(text[len(KEY_BEGIN):-len(KEY_END)].split())
        h = msgspec.json.decode(base64.b64decode(body, validate=True), type=KeyHeader)
    except (ValueError, msgspec.DecodeError, msgspec.ValidationError):
        raise KeyFileError(f"{source}: damaged encrypted key file") from None
    if h.format != KEY_FORMAT or h.kdf != "scrypt" or h.aead != "chacha20-poly1305":
        raise KeyFileError(f"{source}: unsupported key file ({h.format}, {h.kdf}, {h.aead})")
    if (h.n < 2 or h.n & (h.n - 1) or not 1 <= h.r <= 64 or not 1 <= h.p <= 16
            or 128 * h.n * h.r > _SCRYPT_MAX_MEMORY):
        raise KeyFileError(f"{source}: scrypt parameters out of range (n={h.n}, r={h.r}, "
                           f"p={h.p})")
    return h


def decrypt_private(data: bytes, passphrase: str, *, source: str = "key") -> Ed25519PrivateKey:
    """Open an encrypted key file; KeyFileError (one line) if the passphrase is wrong."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    h = parse_key_header(data, source=source)
    try:
        salt, nonce = base64.b64decode(h.salt, validate=True), base64.b64decode(h.nonce,
                                                                              validate=True)
        ct = base64.b64decode(h.ct, validate=True)
        raw = ChaCha20Poly1305(_kdf(passphrase, salt, h.n, h.r, h.p)).decrypt(
            nonce, ct, _key_aad(h))
        key = Ed25519PrivateKey.from_private_bytes(raw)
    except InvalidTag:
        raise KeyFileError(f"{source}: wrong passphrase (or a damaged key file)") from None
    except (ValueError, MemoryError):
        raise KeyFileError(f"{source}: damaged encrypted key file") from None
    if public_raw(key.public_key()).hex() != h.pub:
        raise KeyFileError(f"{source}: damaged encrypted key file (public key differs)")
    return key


def _private_bytes(key: Ed25519PrivateKey, passphrase: str | None) -> bytes:
    if passphrase is None:
        from cryptography.hazmat.primitives import serialization

        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())
    return encrypt_private(key, passphrase)


def generate(name: str, directory: str | Path, passphrase: str | None) -> tuple[Path, Path, str]:
    """Create NAME.key and NAME.pub in directory; returns (key path, pub path, fingerprint).

    passphrase None stores the key unencrypted (the caller asked for it explicitly); an empty
    passphrase is refused.
    """
    if not _NAME.match(name):
        raise KeyFileError(f"{name!r}: a key name is letters, digits, '.', '_' or '-' (max 64)")
    if passphrase is not None and not passphrase:
        raise KeyFileError("an empty passphrase protects nothing; give one, or store the key "
                           "unencrypted on purpose with --no-passphrase")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    key_path, pub_path = d / f"{name}.key", d / f"{name}.pub"
    for p in (key_path, pub_path):
        if p.exists():
            raise KeyFileError(f"{p}: already exists; refusing to overwrite a key")
    key = Ed25519PrivateKey.generate()
    data = _private_bytes(key, passphrase)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    raw = public_raw(key.public_key())
    pub_path.write_text(format_public(raw, name), encoding="ascii")
    return key_path, pub_path, fingerprint(raw)


def rewrite_private(path: str | Path, key: Ed25519PrivateKey, passphrase: str | None) -> None:
    """Replace a key file atomically with the current format (re-encrypting it)."""
    p = Path(path)
    data = _private_bytes(key, passphrase)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def key_kind(data: bytes) -> str:
    """'pbem' (scrypt), 'pkcs8-encrypted' (older pbem versions) or 'plain'."""
    head = data.lstrip()[:64]
    if head.startswith(KEY_BEGIN.encode("ascii")):
        return "pbem"
    return "pkcs8-encrypted" if b"ENCRYPTED" in head else "plain"


def is_encrypted(path: str | Path) -> bool:
    """True if the private key file is passphrase-protected."""
    return key_kind(read_limited(path, MAX_KEY_FILE, what="key", error=KeyFileError)) != "plain"


def _notice(message: str) -> None:
    """Where notes about key files go (the CLI prints them on standard error)."""


notice = _notice


def _no_prompt(path: str) -> str | None:
    """Where a passphrase is asked for when none is given (the CLI asks on the terminal)."""
    return None


ask_passphrase = _no_prompt


def load_private(path: str | Path, passphrase: str | None = None) -> Ed25519PrivateKey:
    """Load a private key; an encrypted key's passphrase comes from $PBEM_PASSPHRASE, else
    from ask_passphrase (the CLI's prompt on a terminal, never echoed)."""
    p = Path(path)
    data = read_limited(p, MAX_KEY_FILE, what="key", error=KeyFileError)
    kind = key_kind(data)
    if kind != "plain" and passphrase is None:
        passphrase = os.environ.get(PASSPHRASE_ENV)
        if passphrase is None:
            passphrase = ask_passphrase(str(p))
        if passphrase is None:
            raise KeyFileError(f"{p}: key is encrypted and there is no terminal to ask for its "
                               f"passphrase: set ${PASSPHRASE_ENV}")
    if kind == "pbem":
        return decrypt_private(data, passphrase or "", source=str(p))
    if kind == "plain":
        raw = _plain_pkcs8(data)
        if raw is not None:
            return Ed25519PrivateKey.from_private_bytes(raw)
    from cryptography.hazmat.primitives import serialization

    try:
        key = serialization.load_pem_private_key(
            data, password=(passphrase or "").encode("utf-8") if kind != "plain" else None)
    except (ValueError, TypeError):
        raise KeyFileError(f"{p}: wrong passphrase or not a private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{p}: not an Ed25519 private key")
    if kind == "pkcs8-encrypted":
        notice(f"Note: {p} is encrypted the old way (PBKDF2, 2048 rounds, cheap to guess); "
               f"'pbem rekey {p}' re-encrypts it with scrypt.")
    return key


# The unencrypted PKCS#8 PEM that cryptography writes for an Ed25519 key (_private_bytes with
# no passphrase): the fixed DER header of RFC 8410's OneAsymmetricKey, then the 32-byte seed.
_PKCS8_ED25519 = bytes.fromhex("302e020100300506032b657004220420")
_PEM_BEGIN, _PEM_END = b"-----BEGIN PRIVATE KEY-----\n", b"-----END PRIVATE KEY-----\n"


def _plain_pkcs8(data: bytes) -> bytes | None:
    """The 32-byte seed of an unencrypted Ed25519 key file exactly as pbem writes it (one PEM
    block, the fixed RFC 8410 DER); None for anything else, which load_private then hands to
    cryptography's PEM reader (the same key either way, without importing that reader)."""
    if not (data.startswith(_PEM_BEGIN) and data.endswith(_PEM_END)):
        return None
    body = data[len(_PEM_BEGIN):-len(_PEM_END)]
    if b"-" in body or b":" in body:
        return None
    try:
        der = base64.b64decode(b"".join(body.split(b"\n")), validate=True)
    except ValueError:
        return None
    if len(der) != len(_PKCS8_ED25519) + 32 or not der.startswith(_PKCS8_ED25519):
        return None
    return der[len(_PKCS8_ED25519):]


def private_raw(key: Ed25519PrivateKey) -> bytes:
    """The 32 raw secret bytes (used only to derive this game's dice secret)."""
    return key.private_bytes_raw()


SECRET_WRAP_INFO = b"pbem/v1/secret-wrap"


def _wrap_key(key: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=SECRET_WRAP_INFO).derive(private_raw(key))


def seal_secret(key: Ed25519PrivateKey, data: bytes, aad: bytes) -> bytes:
    """Encrypt a small secret under a key derived from the private key (ChaCha20-Poly1305).

    Returns nonce (12 bytes) | ciphertext; the secret is exactly as protected as the key.
    """
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    nonce = os.urandom(12)
    return nonce + ChaCha20Poly1305(_wrap_key(key)).encrypt(nonce, data, aad)


def open_secret(key: Ed25519PrivateKey, blob: bytes, aad: bytes) -> bytes:
    """Decrypt a secret sealed by seal_secret; KeyFileError if the key or the bytes are wrong."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    try:
        return ChaCha20Poly1305(_wrap_key(key)).decrypt(blob[:12], blob[12:], aad)
    except (InvalidTag, ValueError):
        raise KeyFileError("sealed secret does not open with this key") from None
