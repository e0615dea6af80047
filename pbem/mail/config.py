"""The gateway's configuration file (TOML, docs/mail.md): strict, one-line errors.

Secrets never sit in the file itself: an SMTP password comes from an environment variable
(`password_env`) or from a file readable only by its owner (`password_file`, mode 0600 or
stricter), which is refused otherwise.
"""

from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.core.errors import PbemError
from pbem.core.inputs import read_limited

MAX_MESSAGE_BYTES = 10 * 1024 * 1024
MAX_CONFIG_BYTES = 256 * 1024


class ConfigError(PbemError):
    """A configuration file that cannot be used."""


@dataclass
class SmtpConfig:
    host: str = "127.0.0.1"
    port: int = 587
    security: str = "starttls"          # starttls | tls | none (none: loopback tests only)
    user: str = ""
    password: str = ""
    cafile: str = ""                     # extra CA for a private server (tests)
    timeout: float = 30.0


@dataclass
class ImapConfig:
    host: str = "127.0.0.1"
    port: int = 993
    security: str = "tls"               # tls (implicit, 993) | starttls (143)
    user: str = ""
    password: str = ""
    mailbox: str = "INBOX"
    folder_prefix: str = ""              # done/failed are created as PREFIX + done, ...
    cafile: str = ""
    timeout: float = 30.0


@dataclass
class GameEntry:
    """One archive under the archives folder and who plays it: party -> mail addresses."""

    name: str
    addresses: dict[str, list[str]]


@dataclass
class Config:
    path: Path
    address: str                         # the gateway's own From address
    key: str                             # the private key used for every archive
    archives: Path                       # a folder of archives, one sub-folder per game
    maildir: Path                        # the incoming Maildir (done and failed are sub-folders)
    state: Path                          # the journal (SQLite)
    report_to: list[str] = field(default_factory=list)   # where the player's own reports go
    interval: float = 60.0
    max_message_bytes: int = MAX_MESSAGE_BYTES
    smtp: SmtpConfig = field(default_factory=SmtpConfig)
    imap: ImapConfig | None = None       # set: read from IMAP instead of the Maildir
    games: dict[str, GameEntry] = field(default_factory=dict)


def _connection(conf: Any, s: dict[str, Any], base: Path, where: str, section: str,
                default_port: int) -> None:
    """Read a server section's port, extra CA file and timeout into conf."""
    port = s.get("port", default_port)
    if not isinstance(port, int) or not 0 < port < 65536:
        raise ConfigError(f"{where}: [{section}] port must be 1 to 65535")
    conf.port = port
    if "cafile" in s:
        conf.cafile = str(base / _str(s, "cafile", where))
    if "timeout" in s:
        if not isinstance(s["timeout"], (int, float)) or not 0 < s["timeout"] <= 600:
            raise ConfigError(f"{where}: [{section}] timeout must be 0 to 600 seconds")
        conf.timeout = float(s["timeout"])


def _read_secret_file(path: Path, where: str) -> str:
    try:
        st = os.stat(path)
    except OSError as e:
        raise ConfigError(f"{where}: password_file {path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{where}: password_file {path}: not a regular file")
    if st.st_mode & 0o077:
        raise ConfigError(f"{where}: password_file {path} is readable by others "
                          f"(mode {stat.S_IMODE(st.st_mode):04o}); chmod 600 it")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise ConfigError(f"{where}: password_file {path} is not owned by you")
    raw = read_limited(path, 4096, what="password file", error=ConfigError)
    return raw.decode("utf-8", errors="strict").strip()


def _str(t: dict, k: str, where: str, default: str | None = None) -> str:
    v = t.get(k, default)
    if not isinstance(v, str) or (default is None and not v):
        raise ConfigError(f"{where}: '{k}' must be a non-empty string")
    return v


def _addresses(v: object, where: str) -> list[str]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v or not all(isinstance(a, str) and "@" in a for a in v):
        raise ConfigError(f"{where}: expected an address or a list of addresses")
    return [a.strip().lower() for a in v]


def _password(s: dict, base: Path, where: str, section: str) -> str:
    if "password_env" in s:
        name = _str(s, "password_env", where)
        if name not in os.environ:
            raise ConfigError(f"{where}: [{section}] password_env: ${name} is not set")
        return os.environ[name]
    if "password_file" in s:
        return _read_secret_file(base / _str(s, "password_file", where), where)
    return ""


def _imap(s: object, base: Path, where: str) -> ImapConfig:
    if not isinstance(s, dict):
        raise ConfigError(f"{where}: [imap] must be a table")
    unknown = set(s) - {"host", "port", "security", "user", "password_env", "password_file",
                        "mailbox", "folder_prefix", "cafile", "timeout"}
    if unknown:
        raise ConfigError(f"{where}: [imap]: unknown key(s) {', '.join(sorted(unknown))}"
                          + (" (put the password in password_env or password_file)"
                             if "password" in unknown else ""))
    ic = ImapConfig(host=_str(s, "host", where, "127.0.0.1"),
                    security=_str(s, "security", where, "tls"),
                    user=_str(s, "user", where + ": [imap]"),
                    mailbox=_str(s, "mailbox", where, "INBOX"),
                    folder_prefix=_str(s, "folder_prefix", where, ""))
    if ic.security not in ("tls", "starttls"):
        raise ConfigError(f"{where}: [imap] security must be tls or starttls")
    _connection(ic, s, base, where, "imap", 993 if ic.security == "tls" else 143)
    ic.password = _password(s, base, where, "imap")
    if not ic.password:
        raise ConfigError(f"{where}: [imap] needs password_env or password_file")
    return ic


def load(path: str | os.PathLike[str]) -> Config:
    """Read and check a configuration file; relative paths are relative to its folder."""
    p = Path(path)
    raw = read_limited(p, MAX_CONFIG_BYTES, what="config file", error=ConfigError)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{p}: {e}") from None
    base = p.resolve().parent
    where = str(p)
    known = {"gateway", "smtp", "imap", "games"}
    extra = set(data) - known
    if extra:
        raise ConfigError(f"{where}: unknown section(s) {', '.join(sorted(extra))}")
    g = data.get("gateway")
    if not isinstance(g, dict):
        raise ConfigError(f"{where}: missing [gateway] section")
    unknown = set(g) - {"address", "key", "archives", "maildir", "state", "report_to",
                        "interval", "max_message_bytes"}
    if unknown:
        raise ConfigError(f"{where}: [gateway]: unknown key(s) {', '.join(sorted(unknown))}")
    interval = g.get("interval", 60)
    if not isinstance(interval, (int, float)) or not 0.05 <= interval <= 3600:
        raise ConfigError(f"{where}: [gateway] interval must be 0.05 to 3600 seconds")
    limit = g.get("max_message_bytes", MAX_MESSAGE_BYTES)
    if not isinstance(limit, int) or not 1024 <= limit <= MAX_MESSAGE_BYTES:
        raise ConfigError(f"{where}: [gateway] max_message_bytes must be 1024 to "
                          f"{MAX_MESSAGE_BYTES}")
    cfg = Config(
        path=p,
        address=_addresses(_str(g, "address", where + ": [gateway]"), where)[0],
        key=str(base / _str(g, "key", where + ": [gateway]")),
        archives=base / _str(g, "archives", where + ": [gateway]"),
        maildir=base / _str(g, "maildir", where + ": [gateway]", "Maildir"),
        state=base / _str(g, "state", where + ": [gateway]", "pbem-mail.sqlite"),
        report_to=_addresses(g["report_to"], where + ": report_to") if "report_to" in g else [],
        interval=float(interval), max_message_bytes=limit)
    s = data.get("smtp", {})
    if not isinstance(s, dict):
        raise ConfigError(f"{where}: [smtp] must be a table")
    unknown = set(s) - {"host", "port", "security", "user", "password_env", "password_file",
                        "cafile", "timeout"}
    if unknown:
        raise ConfigError(f"{where}: [smtp]: unknown key(s) {', '.join(sorted(unknown))}"
                          + (" (put the password in password_env or password_file)"
                             if "password" in unknown else ""))
    sc = SmtpConfig(host=_str(s, "host", where, "127.0.0.1"),
                    security=_str(s, "security", where, "starttls"),
                    user=_str(s, "user", where, ""))
    if sc.security not in ("starttls", "tls", "none"):
        raise ConfigError(f"{where}: [smtp] security must be starttls, tls or none")
    _connection(sc, s, base, where, "smtp", 465 if sc.security == "tls" else 587)
    sc.password = _password(s, base, where, "smtp")
    if sc.user and not sc.password:
        raise ConfigError(f"{where}: [smtp] user is set but no password_env or password_file")
    cfg.smtp = sc
    if "imap" in data:
        cfg.imap = _imap(data["imap"], base, where)
    games = data.get("games", {})
    if not isinstance(games, dict):
        raise ConfigError(f"{where}: [games] must be a table")
    for name, book in games.items():
        if not isinstance(book, dict) or not book:
            raise ConfigError(f"{where}: [games.{name}] must map parties to addresses")
        if "/" in name or name.startswith(".") or not name:
            raise ConfigError(f"{where}: [games.{name}]: not a plain folder name")
        cfg.games[name] = GameEntry(name, {str(k): _addresses(v, f"{where}: [games.{name}].{k}")
                                           for k, v in book.items()})
    return cfg
