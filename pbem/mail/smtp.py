"""Sending mail with smtplib: STARTTLS (port 587) or implicit TLS (465), certificates
checked; `none` (plain SMTP) is accepted only to a loopback address, for tests."""

from __future__ import annotations

import smtplib
import ssl

from pbem.core.errors import PbemError
from pbem.mail.config import SmtpConfig


class SendError(PbemError):
    """The SMTP server could not be reached or refused a message."""


def _context(cfg: SmtpConfig) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=cfg.cafile or None)
    return ctx


class Sender:
    def __init__(self, cfg: SmtpConfig) -> None:
        self.cfg = cfg
        self.conn: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        c = self.cfg
        try:
            if c.security == "tls":
                s: smtplib.SMTP = smtplib.SMTP_SSL(c.host, c.port, timeout=c.timeout,
                                                   context=_context(c))
            else:
                if c.security == "none" and c.host not in ("127.0.0.1", "::1", "localhost"):
                    raise SendError(f"smtp: security 'none' is only allowed to the loopback "
                                    f"address, not {c.host}")
                s = smtplib.SMTP(c.host, c.port, timeout=c.timeout)
                s.ehlo()
                if c.security == "starttls":
                    s.starttls(context=_context(c))
                    s.ehlo()
            if c.user:
                s.login(c.user, c.password)
            return s
        except (OSError, smtplib.SMTPException, ssl.SSLError) as e:
            raise SendError(f"smtp {c.host}:{c.port}: {e}") from None

    def send(self, sender: str, rcpt: list[str], body: bytes) -> None:
        if self.conn is None:
            self.conn = self._connect()
        try:
            self.conn.sendmail(sender, rcpt, body)
        except (OSError, smtplib.SMTPException) as e:
            self.close()
            raise SendError(f"smtp {self.cfg.host}:{self.cfg.port}: {e}") from None

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.quit()
            except (OSError, smtplib.SMTPException):
                pass
            self.conn = None
