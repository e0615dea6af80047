"""An IMAP inbox (imaplib over TLS: implicit TLS on 993, or STARTTLS on 143), with `done` and
`failed` mailboxes beside it; the same interface as MaildirSource.

A message's size is asked for (RFC822.SIZE) before its bytes are fetched, so an oversized one
is never downloaded. Messages are moved by UID with MOVE (RFC 6851) when the server has it,
else by COPY, \\Deleted and EXPUNGE (a crash between COPY and EXPUNGE can leave a second copy
in the done folder; the journal still processes it once).
"""

from __future__ import annotations

import imaplib
import re
import ssl

from pbem.core.errors import PbemError
from pbem.mail.config import ImapConfig
from pbem.mail.extract import MessageRefused

FOLDERS = ("done", "failed")


class ImapError(PbemError):
    """The IMAP server could not be reached, refused the login, or a command failed."""


def _ok(res: tuple, what: str) -> list:
    typ, data = res
    if typ != "OK":
        raise ImapError(f"imap: {what} failed: {data!r}"[:200])
    return data


class ImapSource:
    def __init__(self, cfg: ImapConfig) -> None:
        self.cfg = cfg
        ctx = ssl.create_default_context(cafile=cfg.cafile or None)
        try:
            if cfg.security == "tls":
                self.c: imaplib.IMAP4 = imaplib.IMAP4_SSL(cfg.host, cfg.port, ssl_context=ctx,
                                                          timeout=cfg.timeout)
            else:
                self.c = imaplib.IMAP4(cfg.host, cfg.port, timeout=cfg.timeout)
                self.c.starttls(ssl_context=ctx)
            _ok(self.c.login(cfg.user, cfg.password), "login")
            caps = _ok(self.c.capability(), "CAPABILITY")
            self.move_ok = b"MOVE" in b" ".join(x for x in caps if isinstance(x, bytes)).split()
            listed = b"\n".join(x for x in _ok(self.c.list(), "LIST") if isinstance(x, bytes))
            for f in FOLDERS:
                name = self._folder(f)
                if not re.search(rb'[ "]' + re.escape(name.encode()) + rb'"?$', listed, re.M):
                    _ok(self.c.create(name), f"CREATE {name}")
            _ok(self.c.select(cfg.mailbox), f"SELECT {cfg.mailbox}")
        except (OSError, ssl.SSLError, imaplib.IMAP4.error) as e:
            raise ImapError(f"imap {cfg.host}:{cfg.port}: {e}") from None

    def _folder(self, f: str) -> str:
        return f"{self.cfg.folder_prefix}{f}"

    def keys(self) -> list[str]:
        data = _ok(self.c.uid("SEARCH", None, "ALL"), "SEARCH")
        return [u.decode() for u in (data[0] or b"").split() if u.isdigit()]

    def name(self, uid: str) -> str:
        return f"uid {uid}"

    def read(self, uid: str, limit: int) -> bytes:
        data = _ok(self.c.uid("FETCH", uid, "(RFC822.SIZE)"), "FETCH size")
        m = re.search(rb"RFC822\.SIZE (\d+)", data[0] if data and data[0] else b"")
        if not m:
            raise ImapError(f"imap: no size for uid {uid}")
        size = int(m.group(1))
        if size > limit:
            raise MessageRefused(f"message too large ({size} bytes, limit {limit})")
        data = _ok(self.c.uid("FETCH", uid, "(BODY.PEEK[])"), "FETCH")
        raw = next((x[1] for x in data if isinstance(x, tuple)), None)
        if raw is None or len(raw) > limit:
            raise MessageRefused(f"message too large (over {limit} bytes)")
        return raw

    def move(self, uid: str, folder: str) -> None:
        dest = self._folder(folder)
        if self.move_ok:
            _ok(self.c.uid("MOVE", uid, dest), "MOVE")
            return
        _ok(self.c.uid("COPY", uid, dest), "COPY")
        _ok(self.c.uid("STORE", uid, "+FLAGS.SILENT", r"(\Deleted)"), "STORE")
        _ok(self.c.expunge(), "EXPUNGE")

    def close(self) -> None:
        try:
            self.c.logout()
        except (OSError, imaplib.IMAP4.error):
            pass
