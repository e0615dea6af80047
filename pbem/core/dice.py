"""Dice: per-file keys from commit-reveal shares, per-roll HMAC with exact rejection sampling."""

from __future__ import annotations

import hashlib
import hmac
import struct

from pbem.core.game import ALL, NeedsDice

DICE_SALT_TAG = b"pbem/v1/dice-salt"
DICE_KEY_TAG = b"pbem/v1/dice-key"
ROLL_TAG = b"pbem.dice.v1"


def lp(b: bytes) -> bytes:
    """Length-prefix: 4-byte big-endian length, then the bytes."""
    return struct.pack(">I", len(b)) + b


def dice_salt(game_id: str) -> bytes:
    """The per-game HMAC salt: SHA-256(lp(tag) | lp(game id))."""
    return hashlib.sha256(lp(DICE_SALT_TAG) + lp(game_id.encode("ascii"))).digest()


def file_key(game_id: str, shares: list[bytes], file_hash: bytes, seq: int,
             cls: str = ALL) -> bytes:
    """The dice key of one file and visibility class.

    HMAC(salt, lp(tag) | lp(class) | lp(share)... | lp(file hash) | u64 seq): the rolls each
    class of viewers may see have their own key, so a proof for one class opens no other.
    """
    msg = (lp(DICE_KEY_TAG) + lp(cls.encode("ascii")) + b"".join(lp(s) for s in shares)
           + lp(file_hash) + struct.pack(">Q", seq))
    return hmac.digest(dice_salt(game_id), msg, "sha256")


_ROLL_PREFIX = lp(ROLL_TAG)


def derive_roll(key: bytes, action: int, index: int, sides: int) -> int:
    """One die in 1..sides at address (action, index): HMAC blocks, 64-bit words, rejection."""
    if not 2 <= sides <= 2**32 - 1:
        raise ValueError(f"a die needs 2 or more sides, not {sides}")
    limit = 2**64 - (2**64 % sides)
    retry = 0
    while True:
        msg = _ROLL_PREFIX + struct.pack(">IIII", action, index, sides, retry)
        block = hmac.digest(key, msg, "sha256")     # HMAC-SHA256 in one call (OpenSSL's)
        for (word,) in struct.iter_unpack(">Q", block):
            if word < limit:
                return word % sides + 1
        retry += 1


class KeyedDice:
    """Rolls derived from one key, whatever their visibility class (bots, tests, tools);
    turn files key each class separately (pbem.protocol.resolve.LazyDice)."""

    def __init__(self, key: bytes) -> None:
        self.key = key

    def roll(self, action: int, index: int, sides: int, cls: str = ALL) -> int:
        """The derived die at this address."""
        return derive_roll(self.key, action, index, sides)


class FixedDice:
    """Test dice: values handed out in order, whatever the address; errors when exhausted."""

    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.used = 0

    def roll(self, action: int, index: int, sides: int, cls: str = ALL) -> int:
        """The next fixed value (must be within 1..sides)."""
        if self.used >= len(self.values):
            raise AssertionError(f"fixed dice exhausted after {self.used} rolls")
        v = self.values[self.used]
        self.used += 1
        if not 1 <= v <= sides:
            raise AssertionError(f"fixed die {v} is not a d{sides} result")
        return v


class NoDice:
    """A dice source for checking orders before the dice exist: any roll raises NeedsDice."""

    def roll(self, action: int, index: int, sides: int, cls: str = ALL) -> int:
        """Always raises NeedsDice."""
        raise NeedsDice(f"order {action + 1} needs dice")
