"""Hash onions: each party's dice shares, committed at the genesis and revealed one per file.

e[n] is the secret seed; e[i] = SHA-256(lp(tag) | lp(game id) | lp(party) | lp(u32 i) | lp(e[i+1]));
e[0] (the tip) is published in the genesis. Revealing e[k] proves every e[j] with j < k.
"""

from __future__ import annotations

import hashlib
import struct
from functools import lru_cache

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from pbem.core.dice import lp

ONION_TAG = b"pbem/v1/onion"
SEED_INFO = b"pbem/v1/onion-seed"
DEFAULT_LENGTH = 4096


def step(game_id: str, party: str, i: int, nxt: bytes) -> bytes:
    """e[i] from e[i+1]."""
    return hashlib.sha256(lp(ONION_TAG) + lp(game_id.encode("ascii")) + lp(party.encode("ascii"))
                          + lp(struct.pack(">I", i)) + lp(nxt)).digest()


def seed_from_key(private_raw: bytes, game_id: str, party: str) -> bytes:
    """This party's onion seed e[n] for one game, derived (HKDF-SHA256) from its private key."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=bytes.fromhex(game_id),
                info=SEED_INFO + b"|" + party.encode("ascii")).derive(private_raw)


class Onion:
    """A party's own onion, computed from its seed (the chain is cached per process)."""

    def __init__(self, seed: bytes, game_id: str, party: str, length: int = DEFAULT_LENGTH) -> None:
        self.game_id, self.party, self.length = game_id, party, length
        self._elems = _chain(seed, game_id, party, length)

    @property
    def tip(self) -> bytes:
        """e[0], the public commitment."""
        return self._elems[0]

    def element(self, i: int) -> bytes:
        """e[i]; ValueError past the end of the onion."""
        if not 0 <= i < self.length:
            raise ValueError(f"onion index {i} is outside 0..{self.length - 1}")
        return self._elems[i]


@lru_cache(maxsize=64)
def _chain(seed: bytes, game_id: str, party: str, length: int) -> tuple[bytes, ...]:
    elems = [b""] * (length + 1)
    elems[length] = seed
    for i in range(length - 1, -1, -1):
        elems[i] = step(game_id, party, i, elems[i + 1])
    return tuple(elems)


def walk_down(game_id: str, party: str, k: int, e_k: bytes, j: int) -> bytes:
    """Hash a revealed e[k] down to e[j] (j <= k)."""
    e = e_k
    for i in range(k - 1, j - 1, -1):
        e = step(game_id, party, i, e)
    return e


def proves(game_id: str, party: str, k: int, e_k: bytes, j: int, e_j: bytes) -> bool:
    """True if the revealed e[k] hashes down to the known e[j]."""
    return j <= k and walk_down(game_id, party, k, e_k, j) == e_j
