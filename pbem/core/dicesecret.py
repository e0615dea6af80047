"""Each party's dice secret: fresh randomness per game, kept at rest sealed under its key.

A party's secret is 32 bytes from the operating system's CSPRNG, drawn when it proposes or
joins a game, never derived from its key or from anything another party chose. Every onion
of the party (its main onion, and the host's one per visibility class) is seeded from it
with HKDF-SHA256. On disk it is sealed with a key derived from the party's Ed25519 private
key (pbem.core.keys.seal_secret), so it is exactly as protected as that key: whoever cannot
load the key cannot read the secret. A lost secret is a clear error, never a new chain.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import msgspec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from pbem.core.dice import lp
from pbem.core.errors import ArchiveError, KeyFileError
from pbem.core.onion import DEFAULT_LENGTH, Onion
from pbem.core.renewal import hash_label

SECRET_FORMAT = "pbem-dice-secret/1"
SEED_INFO = b"pbem/v1/onion-seed"
SEAL_AAD = b"pbem/v1/dice-secret"


def new_root() -> bytes:
    """256 bits of fresh randomness: the party's dice secret for one game."""
    return os.urandom(32)


def label_of(party: str, cls: str | None = None) -> str:
    """The onion label: the party for its main onion, 'party/class' for a class onion."""
    return party if cls is None else f"{party}/{cls}"


def seed(root: bytes, label: str) -> bytes:
    """The seed e[n] of one onion, from the party's secret (HKDF-SHA256)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=SEED_INFO + b"|" + label.encode("ascii")).derive(root)


class OwnOnions:
    """All onions of one party in one game, computed from its secret."""

    def __init__(self, root: bytes, bind: str, party: str, classes: list[str],
                 length: int = DEFAULT_LENGTH) -> None:
        self.party, self.bind, self._root = party, bind, root
        labels = [label_of(party)] + [label_of(party, c) for c in classes]
        self.onions = {lb: Onion(seed(root, lb), bind, lb, length) for lb in labels}
        self._renewed: dict[tuple[str, int, int], Onion] = {}

    def root_secret(self) -> bytes:
        """The party's dice secret itself (its fact key for sealed mode is derived from it)."""
        return self._root

    @property
    def main(self) -> Onion:
        """The party's main onion (revealed in every file it sends)."""
        return self.onions[self.party]

    def onion(self, label: str, generation: int = 0, length: int | None = None) -> Onion:
        """Generation g of a label's onion: the genesis one for 0, a renewal's after that
        (seeded and hashed under 'LABEL#g', see pbem.core.renewal)."""
        if generation == 0:
            return self.onions[label]
        if label not in self.onions or length is None:
            raise ValueError(f"no onion {label} generation {generation}")
        key = (label, generation, length)
        if key not in self._renewed:
            hl = hash_label(label, generation)
            self._renewed[key] = Onion(seed(self._root, hl), self.bind, hl, length)
        return self._renewed[key]

    def element(self, label: str, i: int, generation: int = 0,
                length: int | None = None) -> bytes:
        """e[i] of the onion with this label (of generation g, whose length is given)."""
        return self.onion(label, generation, length).element(i)

    def has(self, label: str) -> bool:
        """True if this party owns the onion with this label."""
        return label in self.onions


class _Stored(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    format: str
    party: str
    bind: str
    sealed: str


def _aad(party: str, bind: str) -> bytes:
    return lp(SEAL_AAD) + lp(party.encode("ascii")) + lp(bind.encode("ascii"))


def encode(key: object, party: str, bind: str, root: bytes) -> bytes:
    """The at-rest file of a secret: sealed under the private key, bound to party and game."""
    from pbem.core.keys import seal_secret

    blob = seal_secret(key, root, _aad(party, bind))  # type: ignore[arg-type]
    return msgspec.json.encode(_Stored(format=SECRET_FORMAT, party=party, bind=bind,
                                       sealed=base64.b64encode(blob).decode("ascii")))


def decode(path: Path, key: object, party: str, bind: str) -> bytes:
    """Read and open a stored secret; ArchiveError if it is missing, damaged or not ours."""
    from pbem.core.keys import open_secret

    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ArchiveError(f"{path}: this game's dice secret is missing; pbem cannot sign or "
                           "resolve files without it. Restore the archive folder from a backup "
                           "(a new secret would not match your commitment in the genesis)"
                           ) from None
    except OSError as e:
        raise ArchiveError(f"{path}: cannot read the dice secret ({e.strerror})") from None
    try:
        st = msgspec.json.decode(raw[:4096], type=_Stored)
        blob = base64.b64decode(st.sealed, validate=True)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError):
        raise ArchiveError(f"{path}: the dice secret file is damaged") from None
    if st.format != SECRET_FORMAT or st.party != party or st.bind != bind:
        raise ArchiveError(f"{path}: this dice secret belongs to another game or party")
    try:
        root = open_secret(key, blob, _aad(party, bind))  # type: ignore[arg-type]
    except KeyFileError:
        raise ArchiveError(f"{path}: the dice secret does not open with this key (wrong key, "
                           "or the file was altered)") from None
    if len(root) != 32:
        raise ArchiveError(f"{path}: the dice secret file is damaged")
    return root
