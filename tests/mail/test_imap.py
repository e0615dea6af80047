"""The gateway reading from a real IMAP server (Dovecot on 127.0.0.1, implicit TLS): a whole
peer game between two gateways through Dovecot and aiosmtpd, and hostile mail over IMAP."""

from __future__ import annotations

import imaplib
import os
import ssl
from email.message import EmailMessage

from fixtures.table import Table
from mail.helpers import write_config

ADDR = {"red": "red@red.test", "blue": "blue@blue.test"}


def _configs(t: Table, tmp, office, port, ca, dovecot):
    cfgs = {}
    for s in ("red", "blue"):
        pw = tmp / f"{s}-imap-password"
        pw.write_text(dovecot.users[s] + "\n")
        os.chmod(pw, 0o600)
        office.imap[ADDR[s]] = (lambda raw, s=s: dovecot.deliver(s, raw, ca))
        imap = (f'\n[imap]\nhost = "127.0.0.1"\nport = {dovecot.port}\nuser = "{s}"\n'
                f'password_file = "{pw}"\ncafile = "{ca}"\n')
        cfgs[s] = str(write_config(tmp / f"{s}.toml", address=ADDR[s], key=t.key(s),
                                   archives=tmp, maildir=tmp / f"unused-{s}", port=port,
                                   cafile=ca, games={s: ADDR}, extra=imap))
    return cfgs


def _mailbox(dovecot, user: str, ca, box: str) -> int:
    c = imaplib.IMAP4_SSL("127.0.0.1", dovecot.port,
                          ssl_context=ssl.create_default_context(cafile=ca))
    c.login(user, dovecot.users[user])
    typ, data = c.select(box)
    c.logout()
    return int(data[0])


def test_a_peer_game_through_dovecot_and_smtp(tmp_path, smtp_server, dovecot):
    office, port, ca = smtp_server
    t = Table(tmp_path)
    cfgs = _configs(t, tmp_path, office, port, ca, dovecot)
    t.ok("mail", "send", "--config", cfgs["blue"], "blue", t.inbox.pop()[0])
    for turn in range(300):
        for _ in range(20):
            quiet = True
            for c in cfgs.values():
                r = t.ok("mail", "poll", "--config", c)
                assert "failed" not in r.output, r.output
                quiet &= r.output.rstrip().endswith("0 message(s) processed")
            if quiet:
                break
        side = t.mover()
        if side is None:
            break
        orders = tmp_path / f"o{turn}.txt"
        t.ok("bot", str(t.dirs[side]), "--side", side, "--out", str(orders), "--seed", str(turn))
        out = tmp_path / f"t{turn}.pbem"
        t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", str(out))
        t.ok("mail", "send", "--config", cfgs[side], side, str(out))
    for s in ("red", "blue"):
        assert t.status(s)["over"]
        t.ok("verify", str(t.dirs[s]))
        assert _mailbox(dovecot, s, ca, "INBOX") == 0
        assert _mailbox(dovecot, s, ca, "failed") == 0
        assert _mailbox(dovecot, s, ca, "done") > 0
    assert not (tmp_path / "unused-red").exists()


def test_hostile_mail_over_imap_is_refused_and_kept(tmp_path, smtp_server, dovecot):
    office, port, ca = smtp_server
    office.hold = True
    t = Table(tmp_path)
    cfgs = _configs(t, tmp_path, office, port, ca, dovecot)
    Path = type(tmp_path)
    acc = Path(t.inbox[0][0]).read_text()
    big = EmailMessage()
    big["From"] = ADDR["blue"]
    big.set_content("x" * (11 * 1024 * 1024))
    dovecot.deliver("red", bytes(big), ca)
    stranger = EmailMessage()
    stranger["From"] = "mallory@evil.test"
    stranger["Message-ID"] = "<x@evil.test>"
    stranger.set_content(acc)
    dovecot.deliver("red", bytes(stranger), ca)
    r = t.ok("mail", "poll", "--config", cfgs["red"])
    assert "too large" in r.output and "mallory@evil.test is not an address" in r.output
    assert _mailbox(dovecot, "red", ca, "failed") == 2
    assert _mailbox(dovecot, "red", ca, "INBOX") == 0
    assert not office.received
