"""The games a gateway serves: every archive under the archives folder, found by game id or
proposal hash, with the address book of its parties (from the configuration)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pbem.core.errors import PbemError
from pbem.core.records import Rejection, ViewFile, open_text
from pbem.mail.config import Config
from pbem.protocol.archive import Archive
from pbem.protocol.genesis import HOST
from pbem.protocol.session import read_genesis


@dataclass
class Game:
    name: str                       # the archive's folder name (and [games.NAME])
    root: Path
    party: str                      # this archive's own party (a side, or "host")
    proposal: str                   # hash of the proposal
    game_id: str | None             # None until every party has accepted
    addresses: dict[str, list[str]]  # party -> addresses

    def parties_of(self, address: str) -> list[str]:
        """The parties an address belongs to (the book's own spelling, lower case)."""
        a = address.strip().lower()
        return [p for p, book in self.addresses.items() if a in book]

    def others(self) -> list[str]:
        return [p for p in self.addresses if p != self.party]


def games(cfg: Config) -> list[Game]:
    """Every archive of the configuration that exists (games not created yet are skipped)."""
    out = []
    for name, entry in sorted(cfg.games.items()):
        root = cfg.archives / name
        if not (root / "archive.json").is_file():
            continue
        archive = Archive(root)
        info = archive.info()
        try:
            _, genesis, _ = read_genesis(archive)
            gid = genesis.game_id if genesis.complete else None
        except PbemError:
            gid = None
        out.append(Game(name, root, info.party, info.proposal, gid, entry.addresses))
    return out


def route(all_games: list[Game], f) -> Game | None:
    """The game a signed file belongs to: by game id (turn, view, rejection) or by the
    proposal hash (acceptance); None if no archive here holds it."""
    p = f.payload
    gid = getattr(p, "game_id", None)
    if isinstance(gid, str):
        g = next((g for g in all_games if g.game_id == gid), None)
        if g is not None or not isinstance(p, ViewFile):
            return g
        # A hosted player's first view: its archive knows only the proposal until this view
        # brings every acceptance; they name the proposal.
        for text in p.genesis[:8] if isinstance(p.genesis, list) else []:
            try:
                a = open_text(text, name="view").payload
            except PbemError:
                continue
            prop = getattr(a, "proposal", None)
            g = next((g for g in all_games if g.game_id is None and g.proposal == prop), None)
            if g is not None:
                return g
        return None
    prop = getattr(p, "proposal", None)
    if isinstance(prop, str):
        return next((g for g in all_games if g.proposal == prop), None)
    return None


def sender_party(f) -> str | None:
    """The party that signed a file, as its payload names it."""
    p = f.payload
    if isinstance(p, (ViewFile, Rejection)):
        return HOST                     # a rejection's 'sender' is the refused file's sender
    for attr in ("sender", "party"):
        v = getattr(p, attr, None)
        if isinstance(v, str):
            return v
    return None
