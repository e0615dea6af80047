"""Fixtures for the mail gateway: a real SMTP server (aiosmtpd) on 127.0.0.1 with TLS, which
delivers every message into the Maildir of each recipient (a tiny post office)."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from pathlib import Path

import pytest

aiosmtpd = pytest.importorskip("aiosmtpd")
from aiosmtpd.controller import Controller  # noqa: E402

from pbem.mail.maildir import deliver  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    d = tmp_path_factory.mktemp("tls")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    (d / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (d / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                  serialization.PrivateFormat.PKCS8,
                                                  serialization.NoEncryption()))
    return d / "cert.pem", d / "key.pem"


class PostOffice:
    """The SMTP handler: records every message and delivers it to each recipient's Maildir."""

    def __init__(self) -> None:
        self.boxes: dict[str, Path] = {}
        self.imap: dict[str, object] = {}      # address -> deliver(raw) into an IMAP inbox
        self.received: list[tuple[str, list[str], bytes]] = []
        self.hold = False                      # True: keep messages (no delivery)

    async def handle_DATA(self, server, session, envelope):
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        if not self.hold:
            for r in envelope.rcpt_tos:
                if r.lower() in self.imap:
                    self.imap[r.lower()](envelope.content)
                    continue
                box = self.boxes.get(r.lower())
                if box is not None:
                    deliver(box, envelope.content)
        return "250 OK"


@pytest.fixture
def smtp_server(tls_files):
    """An aiosmtpd server requiring STARTTLS on 127.0.0.1; yields (PostOffice, port, cafile)."""
    cert, key = tls_files
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    office = PostOffice()
    port = _free_port()
    c = Controller(office, hostname="127.0.0.1", port=port, tls_context=ctx,
                   require_starttls=True)
    c.start()
    try:
        yield office, port, cert
    finally:
        c.stop()


@pytest.fixture
def smtps_server(tls_files):
    """An aiosmtpd server with implicit TLS (SMTPS) on 127.0.0.1."""
    cert, key = tls_files
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    office = PostOffice()
    port = _free_port()
    c = Controller(office, hostname="127.0.0.1", port=port, ssl_context=ctx)
    c.start()
    try:
        yield office, port, cert
    finally:
        c.stop()


DOVECOT = "/usr/sbin/dovecot"


class Dovecot:
    """A real IMAP server (Debian's Dovecot) on 127.0.0.1 with implicit TLS, one Maildir per
    user under a private folder; started and stopped by the test."""

    def __init__(self, root: Path, cert: Path, key: Path, users: dict[str, str]) -> None:
        import os
        import pwd
        import subprocess
        import time

        self.root, self.port, self.users = root, _free_port(), users
        for d in ("run", "state", "home"):
            (root / d).mkdir()
        uid, gid = os.getuid(), os.getgid()
        if uid == 0:                           # dovecot never gives a mailbox to root
            pw = pwd.getpwnam("dovecot")
            uid, gid = pw.pw_uid, pw.pw_gid
            os.chown(root / "home", uid, gid)
        (root / "passwd").write_text("".join(f"{u}:{{PLAIN}}{p}\n" for u, p in users.items()))
        conf = f"""first_valid_uid = 0
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = required
ssl_cert = <{cert}
ssl_key = <{key}
auth_mechanisms = plain
disable_plaintext_auth = yes
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  chroot =
  inet_listener imap {{
    port = 0
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {self.port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
"""
        (root / "dovecot.conf").write_text(conf)
        subprocess.run([DOVECOT, "-c", str(root / "dovecot.conf")], check=True)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)

    def deliver(self, user: str, raw: bytes, cafile: Path) -> None:
        import imaplib

        c = imaplib.IMAP4_SSL("127.0.0.1", self.port,
                              ssl_context=ssl.create_default_context(cafile=cafile))
        c.login(user, self.users[user])
        c.append("INBOX", None, None, raw)
        c.logout()

    def stop(self) -> None:
        import os
        import signal
        import time

        pid = int((self.root / "run" / "master.pid").read_text())
        os.kill(pid, signal.SIGTERM)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)


@pytest.fixture
def dovecot(tls_files):
    """Dovecot on 127.0.0.1 (skipped when it is not installed; .ci/run tries to install it)."""
    import os
    import shutil
    import tempfile

    if not os.path.exists(DOVECOT):
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd)")
    root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    os.chmod(root, 0o755)                      # the mail user must reach its home
    server = Dovecot(root, *tls_files, {u: f"{u}-pw" for u in ("red", "blue", "allied", "axis", "us", "host")})
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
