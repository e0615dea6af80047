"""Private committed draws: a random value only its owner may know until the rules need it public.

Some rules draw a value only one side may see and the other must be able to check later (Baptism
By Fire's Axis Victory Objective, BBF-4.0-a). In hosted mode the referee rolls it with dice of the
owner's class. In peer mode both processors hold the whole replicated state, so the value may
not be in it: a game asks for the draw through ``Context.private_draw`` and stores only its
public record (``PrivateDraw``); the owner's processor derives the value itself, and the owner
opens it, with one line, when the rules need it (docs/protocol.md section 6a):

- the owner commits once, in its first turn file, to its *draw key*
  ``k = HKDF-SHA256(ikm = its dice secret, info = "pbem/v1/private-draw-key")`` with the core
  line ``draws commit C``, ``C`` the commitment of pbem.core.commitment to the fact
  ``private-draws`` (version 0, value ``hex(k)``, salt ``salt(k, "private-draws", 0)``);
- a draw in file ``seq`` at ``(action, index)`` with ``sides`` faces is
  ``derive_roll(file_key(game_id, [onion shares of file seq ..., p], H(file seq), seq, owner),
  action, index, sides)`` with the private share ``p = HMAC-SHA256(k, lp("pbem/v1/private-draw")
  ‖ u64 seq)``: the owner fixed ``k`` before the other side's onion share of that file was
  revealed, and the other side's share was fixed in the genesis, so neither can bias it, and
  nobody but the owner can compute it before the opening;
- the opening is the core line ``draws reveal hex(k)``: every processor (and ``pbem verify``)
  checks it against ``C`` and computes every draw of the owner.

Players never write these lines: the owner's processor adds them (a line a player writes is
refused, PBEM-DRAW).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct

import msgspec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from pbem.core.commitment import commit, salt
from pbem.core.dice import derive_roll, file_key, lp
from pbem.core.errors import OrderSyntaxError
from pbem.core.game import PrivateDraw

__all__ = ["PrivateDraw", "DrawLine", "draw_value", "draw_key", "commitment"]

RULE = "PBEM-DRAW"
KEY_INFO = b"pbem/v1/private-draw-key"
SHARE_TAG = b"pbem/v1/private-draw"
FACT = "private-draws"
REVEAL_KIND = "private-draws"      # the Decision.kind of a game waiting for an owner's opening
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class DrawLine(msgspec.Struct, frozen=True, tag="draws"):
    """A core line of the owner's processor: ``draws commit C`` or ``draws reveal KEY``."""

    kind: str      # commit | reveal
    value: str     # 64 hex digits: the commitment, or the draw key


def is_draw_line(text: str) -> bool:
    """True if an order line is a private-draw line (its first word is 'draws')."""
    return text.split(maxsplit=1)[:1] == ["draws"]


def parse_draw_line(text: str) -> DrawLine:
    """Parse 'draws commit HEX' or 'draws reveal HEX'; OrderSyntaxError otherwise."""
    w = text.split()
    if len(w) != 3 or w[0] != "draws" or w[1] not in ("commit", "reveal") or not _HEX64.match(w[2]):
        raise OrderSyntaxError("expected 'draws commit HEX' or 'draws reveal HEX' (64 hex digits)",
                               rule=RULE)
    return DrawLine(kind=w[1], value=w[2])


def format_draw_line(line: DrawLine) -> str:
    """The canonical text of a private-draw line."""
    return f"draws {line.kind} {line.value}"


def draw_key(root: bytes) -> bytes:
    """A party's draw key, from its dice secret (HKDF-SHA256 under its own info string)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=KEY_INFO).derive(root)


def commitment(game_id: str, owner: str, key: bytes) -> str:
    """The commitment (hex) to an owner's draw key (pbem.core.commitment, fact 'private-draws')."""
    return commit(game_id, owner, FACT, 0, key.hex(), salt(key, FACT, 0))


def check_opening(game_id: str, owner: str, committed: str, key_hex: str) -> str | None:
    """The problem with an opened draw key (None if it matches the owner's commitment)."""
    if not _HEX64.match(key_hex):
        return "the opened draw key is not 64 hex digits"
    if commitment(game_id, owner, bytes.fromhex(key_hex)) != committed:
        return f"the opened draw key does not match {owner}'s commitment"
    return None


def private_share(key: bytes, seq: int) -> bytes:
    """The owner's private share of file seq: HMAC-SHA256(k, lp(tag) | u64 seq)."""
    return hmac.new(key, lp(SHARE_TAG) + struct.pack(">Q", seq), hashlib.sha256).digest()


def draw_value(game_id: str, draw: PrivateDraw, shares: list[bytes], file_hash: bytes,
               key: bytes) -> int:
    """The value of one private draw from the file's onion shares and the owner's draw key."""
    k = file_key(game_id, [*shares, private_share(key, draw.seq)], file_hash, draw.seq,
                 draw.owner)
    return derive_roll(k, draw.action, draw.index, draw.sides)
