"""Domain-separated Ed25519 signatures over a payload's SHA-256 (SSHSIG-style input)."""

from __future__ import annotations

from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from pbem.core.dice import lp
from pbem.core.encoding import sha256

MAGIC = b"PBEMSIG1"
HASH_ALG = b"sha256"
NAMESPACES = frozenset({"pbem-genesis-v1", "pbem-turn-v1", "pbem-renewal-v1", "pbem-view-v1", "pbem-reject-v1", "pbem-ladder-forfeit-v1", "pbem-ladder-key-v1"})


def signature_input(namespace: str, payload: bytes) -> bytes:
    """The exact bytes signed: MAGIC | lp(namespace) | lp("sha256") | lp(SHA-256(payload))."""
    if namespace not in NAMESPACES:
        raise ValueError(f"unknown signature namespace {namespace!r}")
    return MAGIC + lp(namespace.encode("ascii")) + lp(HASH_ALG) + lp(sha256(payload))


def sign(key: Ed25519PrivateKey, namespace: str, payload: bytes) -> bytes:
    """Sign a payload under a namespace."""
    return key.sign(signature_input(namespace, payload))


# The y coordinates (sign bit cleared) of the eight small-order points of Edwards25519: 0
# (order 4), 1 (the identity), the two of order 8, p - 1 (order 2), as libsodium lists them.
# A public key on one of them is a key anyone can sign for (R = identity, S = 0 verifies
# for one message in 8 or more), so its owner could disown any file and anyone could forge
# one, an equivocation "proof" included (tests/core/test_weak_keys.py shows it with OpenSSL).
_SMALL_ORDER_Y = frozenset(bytes.fromhex(h) for h in (
    "00" * 32,
    "01" + "00" * 31,
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "ec" + "ff" * 30 + "7f",
))


def weak_public_key(pub_raw: bytes) -> bool:
    """True for a raw Ed25519 public key anyone can sign for: a small-order point in any
    encoding, or a y coordinate not reduced mod p (no key pbem makes is either)."""
    if len(pub_raw) != 32:
        return False                  # malformed: the key parser says so
    y = pub_raw[:31] + bytes([pub_raw[31] & 0x7F])
    unreduced = y[31] == 0x7F and y[0] >= 0xED and y[1:31] == b"\xff" * 30
    return unreduced or y in _SMALL_ORDER_Y


def verify(pub_raw: bytes, namespace: str, payload: bytes, sig: bytes) -> bool:
    """True if sig is a valid signature of payload under namespace by the public key."""
    try:
        key = _public_key(bytes(pub_raw))
        key.verify(sig, signature_input(namespace, payload))
    except (InvalidSignature, ValueError):
        return False
    return True


@lru_cache(maxsize=64)
def _public_key(pub_raw: bytes) -> Ed25519PublicKey:
    # the key object of a raw public key, made once per process (a game's few parties sign
    # every file); a malformed or weak key raises ValueError every time (errors are not cached)
    if weak_public_key(pub_raw):
        raise ValueError("weak public key")
    return Ed25519PublicKey.from_public_bytes(pub_raw)
