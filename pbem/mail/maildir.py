"""A Maildir inbox with `done` and `failed` sub-folders (Maildir++: `.done`, `.failed`).

Messages are listed from `new/` and `cur/` and moved by one rename into `.done/cur/` or
`.failed/cur/`, keeping the name the delivering agent gave them (never a name from the
message), so a move is atomic: a message is in the inbox or in its folder, never in both.
"""

from __future__ import annotations

import mailbox
import os
from pathlib import Path

from pbem.mail.extract import MessageGone, MessageRefused

FOLDERS = ("done", "failed")


class MaildirSource:
    def __init__(self, root: Path) -> None:
        self.root = root
        md = mailbox.Maildir(root, factory=None, create=True)
        for f in FOLDERS:
            if f not in md.list_folders():
                md.add_folder(f)

    def keys(self) -> list[Path]:
        """The inbox's messages, oldest delivery first (by name: time-stamped)."""
        out = []
        for sub in ("new", "cur"):
            d = self.root / sub
            out += [p for p in d.iterdir() if not p.name.startswith(".") and p.is_file()]
        return sorted(out, key=lambda p: (p.name.split(".")[0], p.name))

    def name(self, p: Path) -> str:
        return p.name[:40]

    def close(self) -> None:
        pass

    def read(self, p: Path, limit: int) -> bytes:
        """The bytes of a message, refused before reading when larger than limit or unreadable
        (MessageGone if it left the inbox since it was listed)."""
        try:
            size = os.lstat(p).st_size
            if size > limit:
                raise MessageRefused(f"message too large ({size} bytes, limit {limit})")
            with open(p, "rb") as fh:
                raw = fh.read(limit + 1)
        except FileNotFoundError:
            raise MessageGone("it left the inbox before it was read") from None
        except OSError as e:
            raise MessageRefused(f"the message cannot be read ({e.strerror or e})") from None
        if len(raw) > limit:
            raise MessageRefused(f"message too large (over {limit} bytes)")
        return raw

    def move(self, p: Path, folder: str) -> None:
        dest = self.root / f".{folder}" / "cur" / p.name.split(":")[0]
        dest = dest.with_name(dest.name + ":2,S")
        os.replace(p, dest)
        fd = os.open(dest.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def deliver(root: Path, raw: bytes) -> None:
    """Put a message into a Maildir's inbox (tests; any MDA does this)."""
    mailbox.Maildir(root, factory=None, create=True).add(raw)
