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


def verify(pub_raw: bytes, namespace: str, payload: bytes, sig: bytes) -> bool:
    """True if sig is a valid signature of payload under namespace by the public key."""
    try:
        key = (_public_key(pub_raw) if type(pub_raw) is bytes
               else Ed25519PublicKey.from_public_bytes(pub_raw))
        key.verify(sig, signature_input(namespace, payload))
    except (InvalidSignature, ValueError):
        return False
    return True


@lru_cache(maxsize=64)
def _public_key(pub_raw: bytes) -> Ed25519PublicKey:
    # the key object of a raw public key, made once per process (a game's few parties sign
    # every file); a malformed key raises ValueError every time (errors are not cached)
    return Ed25519PublicKey.from_public_bytes(pub_raw)
