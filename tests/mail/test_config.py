"""The gateway's configuration: strict TOML, passwords only from the environment or a
private file."""

from __future__ import annotations

import os

import pytest

from pbem.mail import config
from pbem.mail.config import ConfigError

BASE = """[gateway]
address = "me@x.test"
key = "me.key"
archives = "games"
maildir = "Mail"

[smtp]
host = "smtp.x.test"
user = "me"
"""


def test_password_from_the_environment(tmp_path, monkeypatch):
    p = tmp_path / "c.toml"
    p.write_text(BASE + 'password_env = "PBEM_T_PW"\n\n[games.g1]\nred = "a@x.test"\n'
                 'blue = ["b@y.test", "B2@y.test"]\n')
    monkeypatch.setenv("PBEM_T_PW", "s3cret")
    c = config.load(p)
    assert c.smtp.password == "s3cret" and c.smtp.port == 587 and c.smtp.security == "starttls"
    assert c.games["g1"].addresses == {"red": ["a@x.test"], "blue": ["b@y.test", "b2@y.test"]}
    assert c.archives == tmp_path / "games" and c.max_message_bytes == 10 * 1024 * 1024
    monkeypatch.delenv("PBEM_T_PW")
    with pytest.raises(ConfigError, match="not set"):
        config.load(p)


def test_password_file_must_be_private(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(BASE + 'password_file = "pw"\n')
    pw = tmp_path / "pw"
    pw.write_text("hunter2\n")
    os.chmod(pw, 0o644)
    with pytest.raises(ConfigError, match="readable by others"):
        config.load(p)
    os.chmod(pw, 0o600)
    assert config.load(p).smtp.password == "hunter2"


@pytest.mark.parametrize("extra, problem", [
    ('password = "x"\n', "password_env or password_file"),
    ('security = "ssl3"\n', "security"),
    ('port = 0\n', "port"),
    ("", "no password_env"),
])
def test_bad_smtp_settings_are_refused(tmp_path, extra, problem):
    p = tmp_path / "c.toml"
    p.write_text(BASE + extra)
    with pytest.raises(ConfigError, match=problem):
        config.load(p)


def test_bad_files_are_one_line_errors(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text("[gateway\n")
    with pytest.raises(ConfigError):
        config.load(p)
    p.write_text(BASE.replace('user = "me"\n', "") + '\n[games."../x"]\nred = "a@x.test"\n')
    with pytest.raises(ConfigError, match="plain folder name"):
        config.load(p)
    p.write_text(BASE.replace('user = "me"\n', "") + '\n[games.g]\nred = "not-an-address"\n')
    with pytest.raises(ConfigError, match="address"):
        config.load(p)
    p.write_text(BASE.replace('user = "me"\n', "") + "[other]\n")
    with pytest.raises(ConfigError, match="unknown section"):
        config.load(p)


def test_imap_settings(tmp_path, monkeypatch):
    p = tmp_path / "c.toml"
    base = BASE.replace('user = "me"\n', "")
    p.write_text(base + '\n[imap]\nhost = "imap.x.test"\nuser = "me"\n')
    with pytest.raises(ConfigError, match=r"\[imap\] needs password_env"):
        config.load(p)
    p.write_text(base + '\n[imap]\nhost = "imap.x.test"\nuser = "me"\npassword = "x"\n')
    with pytest.raises(ConfigError, match="password_env or password_file"):
        config.load(p)
    monkeypatch.setenv("PBEM_T_IMAP", "pw")
    p.write_text(base + '\n[imap]\nhost = "imap.x.test"\nuser = "me"\nsecurity = "starttls"\n'
                 'password_env = "PBEM_T_IMAP"\n')
    c = config.load(p)
    assert c.imap is not None and c.imap.port == 143 and c.imap.password == "pw"
