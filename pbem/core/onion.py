"""Hash onions: each party's dice shares, committed at the genesis and revealed one per file.

e[n] is the secret seed (fresh randomness of its party, see pbem.core.dicesecret);
e[i] = SHA-256(lp(tag) | lp(bind) | lp(label) | lp(u32 i) | lp(e[i+1])), where bind is the
proposal's nonce and label names the onion ("allied", or "host/axis" for a class onion).
e[0] (the tip) is published in the genesis. Revealing e[k] proves every e[j] with j < k.
"""

from __future__ import annotations

import hashlib
import struct
from functools import lru_cache

from pbem.core.dice import lp

ONION_TAG = b"pbem/v1/onion"
DEFAULT_LENGTH = 4096


def step(bind: str, label: str, i: int, nxt: bytes) -> bytes:
    """e[i] from e[i+1]."""
    return hashlib.sha256(lp(ONION_TAG) + lp(bind.encode("ascii")) + lp(label.encode("ascii"))
                          + lp(struct.pack(">I", i)) + lp(nxt)).digest()


class Onion:
    """A label's own onion, computed from its seed (the chain is cached per process)."""

    def __init__(self, seed: bytes, bind: str, label: str, length: int = DEFAULT_LENGTH) -> None:
        self.bind, self.label, self.length = bind, label, length
        self._elems = _chain(seed, bind, label, length)

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
def _chain(seed: bytes, bind: str, label: str, length: int) -> tuple[bytes, ...]:
    # step() with the constant prefix hashed once: the same bytes, several times faster
    base = hashlib.sha256(lp(ONION_TAG) + lp(bind.encode("ascii")) + lp(label.encode("ascii")))
    elems = [b""] * (length + 1)
    elems[length] = nxt = seed
    pack = struct.Struct(">II").pack
    if length > 0:
        h = base.copy()
        h.update(pack(4, length - 1))
        h.update(lp(nxt))
        elems[length - 1] = nxt = h.digest()
    # every later e[i+1] is a 32-byte digest: lp(u32 i) and lp's prefix packed in one go
    pack3, copy = struct.Struct(">III").pack, base.copy
    for i in range(length - 2, -1, -1):
        h = copy()
        h.update(pack3(4, i, 32) + nxt)
        elems[i] = nxt = h.digest()
    return tuple(elems)


def walk_down(bind: str, label: str, k: int, e_k: bytes, j: int) -> bytes:
    """Hash a revealed e[k] down to e[j] (j <= k)."""
    e = e_k
    for i in range(k - 1, j - 1, -1):
        e = step(bind, label, i, e)
    return e


def proves(bind: str, label: str, k: int, e_k: bytes, j: int, e_j: bytes) -> bool:
    """True if the revealed e[k] hashes down to the known e[j]."""
    return j <= k and walk_down(bind, label, k, e_k, j) == e_j
