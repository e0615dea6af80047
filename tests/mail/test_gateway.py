"""One gateway against hostile, duplicated and broken mail: processed once, refused and kept,
answered with the one-line reason (only to the game's own addresses)."""

from __future__ import annotations

import email
import email.policy
import os
import signal
import time
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixtures.table import Table, snapshot
from mail.helpers import pbem_process, write_config
from pbem.mail.maildir import deliver

RED, BLUE = "red@red.test", "blue@blue.test"


def _msg(body: str, frm: str = BLUE, msgid: str = "<m1@blue.test>", **headers) -> bytes:
    m = EmailMessage()
    m["From"] = frm
    m["To"] = RED
    m["Subject"] = "turn"
    m["Message-ID"] = msgid
    for k, v in headers.items():
        m[k.replace("_", "-")] = v
    m.set_content(body)
    return bytes(m)


@pytest.fixture
def red(tmp_path, smtp_server):
    office, port, ca = smtp_server
    office.hold = True
    t = Table(tmp_path)
    cfg = write_config(tmp_path / "red.toml", address=RED, key=t.key("red"), archives=tmp_path,
                       maildir=tmp_path / "inbox", port=port, cafile=ca,
                       games={"red": {"red": RED, "blue": BLUE}})
    t.ok("mail", "poll", "--config", str(cfg))        # creates the Maildir
    return t, str(cfg), office, tmp_path / "inbox"


def _count(md: Path, folder: str) -> int:
    return len(list((md / f".{folder}" / "cur").iterdir()))


def test_a_message_delivered_twice_is_processed_once(red):
    t, cfg, office, md = red
    acc = Path(t.inbox[0][0]).read_text()
    deliver(md, _msg("Hi!\n\n" + acc))
    deliver(md, _msg("Hi!\n\n" + acc))                # the same Message-ID and file again
    r = t.ok("mail", "poll", "--config", cfg)
    assert "duplicate" in r.output and "2 message(s)" in r.output
    assert _count(md, "done") == 2 and _count(md, "failed") == 0
    assert r.output.count("acceptance 0 from blue received") == 1
    assert not office.received                         # red moves first: no reply owed
    assert t.status("red")["pending"] == ["red"]
    # a re-sent copy with another Message-ID: receive is idempotent, nothing new
    deliver(md, _msg("again\n\n" + acc, msgid="<m2@blue.test>"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "nothing new" in r.output and _count(md, "done") == 3 and not office.received


def test_a_stranger_is_refused_kept_and_not_answered(red):
    t, cfg, office, md = red
    acc = Path(t.inbox[0][0]).read_text()
    before = snapshot(t.dirs["red"])
    deliver(md, _msg(acc, frm="mallory@evil.test"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "failed" in r.output and "mallory@evil.test is not an address of blue" in r.output
    assert _count(md, "failed") == 1 and not office.received
    assert snapshot(t.dirs["red"]) == before


def test_a_bad_file_from_a_player_gets_the_one_line_reason(red):
    t, cfg, office, md = red
    acc = Path(t.inbox[0][0]).read_text()
    lines = acc.splitlines()
    i = next(n for n, ln in enumerate(lines) if ln.startswith("-----BEGIN")) + 2
    lines[i] = lines[i][:10] + ("A" if lines[i][10] != "A" else "B") + lines[i][11:]
    deliver(md, _msg("\n".join(lines) + "\n"))
    deliver(md, _msg("no file at all, \x1b[31mred\x1b[0m", msgid="<m3@blue.test>"))
    deliver(md, _msg("robot", msgid="<m4@blue.test>", Auto_Submitted="auto-replied"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "\x1b" not in r.output
    assert _count(md, "failed") == 3
    assert len(office.received) == 2                   # never answer an automatic reply
    for _, rcpt, raw in office.received:
        m = email.message_from_bytes(raw, policy=email.policy.default)
        assert rcpt == [BLUE] and m["Auto-Submitted"] == "auto-replied"
        body = m.get_body(("plain",)).get_content()
        assert "\n> " in body and "BEGIN PBEM" not in body


def test_an_oversized_message_is_refused_before_parsing(red):
    t, cfg, office, md = red
    Path(cfg).write_text(Path(cfg).read_text().replace("interval = 0.1",
                                                       "interval = 0.1\nmax_message_bytes = 4096"))
    deliver(md, _msg("x" * 10000))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "too large" in r.output and _count(md, "failed") == 1


def test_implicit_tls(tmp_path, smtps_server):
    office, port, ca = smtps_server
    t = Table(tmp_path)
    cfg = write_config(tmp_path / "blue.toml", address=BLUE, key=t.key("blue"),
                       archives=tmp_path, maildir=tmp_path / "inbox", port=port, cafile=ca,
                       security="tls", games={"blue": {"red": RED, "blue": BLUE}})
    t.ok("mail", "send", "--config", str(cfg), "blue", t.inbox[0][0])
    assert office.received and office.received[0][1] == [RED]


def test_an_untrusted_certificate_is_refused(tmp_path, smtp_server):
    office, port, _ = smtp_server
    t = Table(tmp_path)
    cfg = write_config(tmp_path / "blue.toml", address=BLUE, key=t.key("blue"),
                       archives=tmp_path, maildir=tmp_path / "inbox", port=port,
                       cafile=Path("/etc/ssl/certs/ca-certificates.crt"),
                       games={"blue": {"red": RED, "blue": BLUE}})
    r = t.run("mail", "send", "--config", str(cfg), "blue", t.inbox[0][0])
    assert r.exit_code == 1 and "Error: smtp" in r.output and not office.received


def test_watch_stops_cleanly_on_sigterm(red):
    t, cfg, office, md = red
    acc = Path(t.inbox[0][0]).read_text()
    p = pbem_process("mail", "poll", "--config", cfg, "--watch")
    try:
        time.sleep(1.0)
        deliver(md, _msg(acc))
        for _ in range(200):
            if _count(md, "done"):
                break
            time.sleep(0.1)
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, out
    assert "watching" in out and "done " in out and out.rstrip().endswith("stopped")
    assert _count(md, "done") == 1 and not office.received    # red owes no reply yet


def test_mail_send_says_a_proposal_goes_by_hand(tmp_path, smtp_server):
    """A referee's (or a player's) own proposal: `mail send` refuses it in one line saying it
    goes by hand (the players' gateways file proposals as failed), not 'not a file of host'."""
    office, port, ca = smtp_server
    t = Table(tmp_path, mode="hosted")
    proposal = next((t.dirs["host"] / "files").glob("*proposal*.pbem"))
    cfg = write_config(tmp_path / "host.toml", address=RED, key=t.key("host"),
                       archives=tmp_path, maildir=tmp_path / "inbox", port=port, cafile=ca,
                       games={"referee": {"red": RED, "blue": BLUE, "host": RED}})
    r = t.run("mail", "send", "--config", str(cfg), "referee", str(proposal))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 1 and len(lines) == 1, r.output
    assert "a proposal is sent by hand" in lines[0] and not office.received


def test_with_the_mail_server_down_a_poll_processes_every_message(tmp_path):
    """SMTP unreachable: one pass still takes every message in the inbox (the answers wait in
    the journal) and ends with one error saying how many were processed and how many mails
    wait; before, the pass stopped after the first message."""
    import socket

    with socket.socket() as s:                  # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t = Table(tmp_path)
    cfg = write_config(tmp_path / "red.toml", address=RED, key=t.key("red"), archives=tmp_path,
                       maildir=tmp_path / "inbox", port=port, cafile=None,
                       games={"red": {"red": RED, "blue": BLUE}})
    t.ok("mail", "poll", "--config", str(cfg))        # creates the Maildir (nothing to send)
    md = tmp_path / "inbox"
    acc = Path(t.inbox[0][0]).read_text()
    deliver(md, _msg("Hi!\n\n" + acc))
    deliver(md, _msg("nothing here", msgid="<m2@blue.test>"))   # refused: answered by mail
    r = t.run("mail", "poll", "--config", str(cfg))
    lines = [ln for ln in r.output.strip().splitlines() if ln.startswith("Error:")]
    assert r.exit_code == 1 and len(lines) == 1, r.output
    assert "2 message(s) processed" in lines[0] and "wait in the journal" in lines[0], lines[0]
    assert not list((md / "new").iterdir())
    assert _count(md, "done") == 1 and _count(md, "failed") == 1


@pytest.mark.parametrize("eol", [b"\r\n", b"\n", b"\r"], ids=["crlf", "lf", "cr"])
def test_a_message_of_many_tiny_parts_is_refused_unparsed_and_the_inbox_goes_on(red, eol):
    """The part bound is checked on the raw bytes, whatever ends the lines (the parser also
    splits on a bare CR: a 7 MB message of a million CR-separated parts cost 53 s and 372 MB
    before 'too many parts'): the message is refused before it is parsed ('lines open a
    part'), kept in failed, not answered (a stranger), and the player's message after it is
    processed (answered: it has no file)."""
    t, cfg, office, md = red
    part = b"--P\r\nContent-Type: text/plain\r\n\r\nx\r\n".replace(b"\r\n", eol)
    head = (b"From: mallory@evil.test\r\nTo: red@red.test\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: multipart/mixed; boundary=P\r\n\r\n").replace(b"\r\n", eol)
    deliver(md, head + part * 3000 + b"--P--" + eol)
    deliver(md, _msg("no file here", msgid="<m2@blue.test>"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "lines open a part" in r.output and _count(md, "failed") == 2, r.output
    assert [to for _, to, _ in office.received] == [[BLUE]]     # the player's, not mallory's


def test_a_mailbox_entry_named_with_a_newline_logs_one_line(red):
    """Whoever names Maildir entries could forge a gateway log line ('done ...') with a
    newline in a name: each message's log line is one line."""
    t, cfg, office, md = red
    (md / "new" / "3.x\ndone red: turn 9 from blue received.host").write_bytes(
        _msg("no file here"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert not any(ln.startswith("done red: turn 9") for ln in r.output.splitlines()), r.output
    assert any(ln.startswith("failed 3.x done red: turn 9") for ln in r.output.splitlines()), \
        r.output


def test_a_message_id_with_a_line_break_is_dropped_and_the_gateway_goes_on(red):
    """A player's address with an encoded Message-ID that decodes to CRLF (a header
    injection into the failure reply's In-Reply-To): before, every pass died with exit 4 on
    it and never moved it. It is answered without that id, and the next message is handled;
    so is a Subject with a Unicode line separator (U+2028), which the reply's Subject kept."""
    t, cfg, office, md = red
    deliver(md, b"From: blue@blue.test\r\nTo: red@red.test\r\nSubject: turn\r\n"
                b"Message-ID: =?utf-8?b?YQ0KQmNjOiB2aWN0aW1AeC5vcmcNCg==?=\r\n\r\n"
                b"no file here\r\n")
    deliver(md, b"From: blue@blue.test\r\nTo: red@red.test\r\nMessage-ID: <m3@blue.test>\r\n"
                b"Subject: =?utf-8?q?turn=E2=80=A8Bcc:_victim@x.org?=\r\n\r\nno file\r\n")
    deliver(md, _msg("nothing either", msgid="<m2@blue.test>"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "3 message(s) processed" in r.output and "internal error" not in r.output, r.output
    assert _count(md, "failed") == 3 and not list((md / "new").iterdir())
    assert len(office.received) == 3
    for _, rcpt, raw in office.received:
        m = email.message_from_bytes(raw, policy=email.policy.default)
        assert rcpt == [BLUE] and m["Bcc"] is None
        assert not any(ln.lower().startswith(b"bcc") for ln in raw.splitlines())
        assert m["In-Reply-To"] in (None, "<m2@blue.test>", "<m3@blue.test>")


def test_a_message_that_trips_a_bug_is_filed_as_failed_and_the_next_goes_on(red, monkeypatch):
    """One message must never stop the gateway: an unexpected error while handling it files
    it under failed with one log line naming the error as a bug, and the pass goes on."""
    from pbem.mail import addressbook

    t, cfg, office, md = red
    acc = Path(t.inbox[0][0]).read_text()
    route = addressbook.route

    def buggy(games, f):
        if type(f.payload).__name__ == "Acceptance" and not buggy.done:
            buggy.done = True
            raise RuntimeError("boom\nforged line")
        return route(games, f)
    buggy.done = False
    monkeypatch.setattr(addressbook, "route", buggy)
    deliver(md, _msg("first\n\n" + acc))
    deliver(md, _msg("second\n\n" + acc, msgid="<m2@blue.test>"))
    r = t.ok("mail", "poll", "--config", cfg)
    lines = r.output.strip().splitlines()
    assert len(lines) == 3 and "Traceback" not in r.output, r.output
    assert lines[0].startswith("failed ") and "internal error (a bug in pbem): RuntimeError: " \
        "boom forged line" in lines[0], lines[0]
    assert lines[1].startswith("done ") and "acceptance 0 from blue received" in lines[1]
    assert _count(md, "failed") == 1 and _count(md, "done") == 1
    assert not office.received                      # no answer to a bug, red owes no reply


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text())
def test_any_message_id_and_subject_make_a_mail_with_only_its_own_headers(msgid, subject):
    """Whatever a message's Message-ID and Subject decode to (CR, LF, NUL, encoded words,
    any length), the failure reply is built, and carries no header of the sender's making."""
    from types import SimpleNamespace

    from pbem.mail.gateway import build_mail, safe_msgid

    _, _, raw = build_mail(SimpleNamespace(address=RED), msgid_seed="ab" * 20, to=[BLUE],
                           subject=f"Re: {subject}", body="x", in_reply_to=safe_msgid(msgid),
                           auto=True)
    m = email.message_from_bytes(raw, policy=email.policy.default)
    own = {"message-id", "from", "to", "subject", "date", "x-pbem-gateway", "auto-submitted",
           "content-type", "content-transfer-encoding", "mime-version"}
    assert {k.lower() for k in m.keys()} - own <= {"in-reply-to"}
    kept = safe_msgid(msgid)
    assert m["In-Reply-To"] == (kept or None) and "\n" not in kept and "\r" not in kept


def _attached(acc: str, frm: str, subject: str = "turn") -> bytes:
    """A message carrying the file as an attachment, Message-ID <m1@blue.test>."""
    m = EmailMessage()
    m["From"], m["To"], m["Subject"], m["Message-ID"] = frm, RED, subject, "<m1@blue.test>"
    m.set_content("my file")
    m.add_attachment(acc.encode(), maintype="application", subtype="octet-stream",
                     filename="accept.pbem")
    return bytes(m)


def test_a_stranger_cannot_make_a_players_message_a_duplicate(red):
    """A stranger sends the player's file with the player's Message-ID first: refused (a
    stranger), and the player's own message after it is still received (before: 'duplicate
    ...: already failed', the file never received); a true duplicate from the player, the
    same bytes or another copy, is still recognised."""
    t, cfg, office, md = red
    acc = Path(t.inbox[0][0]).read_text()
    deliver(md, _attached(acc, "mallory@evil.test"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "mallory@evil.test is not an address of blue" in r.output, r.output
    assert _count(md, "failed") == 1 and not office.received
    deliver(md, _attached(acc, BLUE))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "acceptance 0 from blue received" in r.output and "duplicate" not in r.output, r.output
    assert _count(md, "done") == 1 and t.status("red")["pending"] == ["red"]
    deliver(md, _attached(acc, BLUE))
    deliver(md, _attached(acc, BLUE, subject="turn (again)"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert r.output.count("already done") == 2, r.output
    assert _count(md, "done") == 3 and _count(md, "failed") == 1 and not office.received


def test_files_delivered_out_of_order_wait_in_the_inbox_and_are_received(tmp_path, smtp_server):
    """Mail does not keep order: two files blue sent one after the other (an automatic reply
    and its next file, say) reached red's gateway the other way round. The later one was
    refused ('out of order') and filed as failed for good, blue told to resend. It now waits
    in the inbox, is tried again in the same pass once the file before it is in, and both
    are received."""
    t, cfg, office, md = _sealed_red(tmp_path, smtp_server)
    for _ in range(400):
        reds = [p for p, to in t.inbox if to == "red"]
        if len(reds) >= 2:
            break
        blue = [x for x in t.inbox if x[1] == "blue"]
        if blue:                            # blue receives at once; red's files are held back
            t.inbox.remove(blue[0])
            t.inbox.insert(0, blue[0])
            t.deliver_one()
            continue
        side = t.mover()
        assert side is not None or reds, "the game ended first"
        if side == "blue" or not reds:
            t.play_one()
        else:
            t.deliver()
    else:
        raise AssertionError("blue never sent two files in a row")
    first, second = reds[:2]
    t.inbox = [x for x in t.inbox if x[0] not in (first, second)]
    seq = t.status("red")["seq"]
    late = _attached(Path(second).read_text(), BLUE).replace(b"<m1@blue.test>", b"<l@blue.test>")
    deliver(md, late)
    r = t.ok("mail", "poll", "--config", cfg)          # the later file alone: it waits
    assert "held" in r.output and "out of order" in r.output, r.output
    assert not (md / ".failed").exists() or _count(md, "failed") == 0
    assert t.status("red")["seq"] == seq
    deliver(md, _attached(Path(first).read_text(), BLUE))
    r = t.ok("mail", "poll", "--config", cfg)          # the earlier one, then the held one
    assert r.output.count(" from blue received") == 2, r.output
    assert _count(md, "done") == 2
    assert t.status("red")["seq"] == seq + 2
    assert "OK" in t.ok("verify", str(t.dirs["red"])).output


def _two_attached(first: str, second: str) -> bytes:
    """A message from blue carrying two files."""
    m = EmailMessage()
    m["From"], m["To"], m["Subject"], m["Message-ID"] = BLUE, RED, "two files", "<two@blue.test>"
    m.set_content("my files")
    for i, text in enumerate((first, second)):
        m.add_attachment(text.encode(), maintype="application", subtype="octet-stream",
                         filename=f"file{i}.pbem")
    return bytes(m)


def _sealed_red(tmp_path: Path, smtp_server) -> tuple[Table, str, Any, Path]:
    """A sealed game of the test game 'blind' (openings travel in files of their own) whose
    red side is served by a gateway: (table, config, mail office, red's Maildir)."""
    office, port, ca = smtp_server
    office.hold = True
    t = Table(tmp_path, game="blind", mode="sealed")
    cfg = str(write_config(tmp_path / "red.toml", address=RED, key=t.key("red"),
                           archives=tmp_path, maildir=tmp_path / "inbox", port=port,
                           cafile=ca, games={"red": {"red": RED, "blue": BLUE}}))
    t.ok("mail", "poll", "--config", cfg)             # creates the Maildir
    return t, cfg, office, tmp_path / "inbox"


def test_a_refused_file_does_not_lose_the_answers_to_the_files_before_it(tmp_path, smtp_server):
    """A message with two files: the first is received and owes red's automatic reply, the
    second is refused (here a proposal). The reply was built and thrown away with the
    failure, so blue never got it (a mail trial). It is sent, and so is the failure line."""
    import shutil

    t, cfg, office, md = _sealed_red(tmp_path, smtp_server)
    for _ in range(200):
        if t.inbox and t.inbox[0][1] == "red":
            path = t.inbox[0][0]
            probe = t.tmp / "probe"
            shutil.rmtree(probe, ignore_errors=True)
            shutil.copytree(t.dirs["red"], probe)
            out = t.tmp / "probe-reply.pbem"
            t.ok("receive", str(probe), path, "--key", t.key("red"), "--out", str(out))
            if out.exists():
                break
        if t.inbox:
            t.deliver_one()
            continue
        assert t.mover() is not None, "the game ended first"
        t.play_one()
    else:
        raise AssertionError("no file of blue's owes red a reply")
    import msgspec

    from pbem.core.keys import load_private
    from pbem.core.records import read_file, seal

    path = t.inbox.pop(0)[0]
    # blue's file of another game (after this one, as the gateway orders a message's files)
    turn = read_file(path).payload
    other = seal(msgspec.structs.replace(turn, game_id="ab" * 16, seq=turn.seq + 50),
                 load_private(t.key("blue"))).text
    deliver(md, _two_attached(Path(path).read_text(), other))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "failed" in r.output and "no game served here holds this turn file" in r.output, \
        r.output
    sent = [email.message_from_bytes(raw, policy=email.policy.default)
            for _, _, raw in office.received]
    files = [m for m in sent if any(p.get_filename() == "reply.pbem" for p in m.iter_attachments())]
    assert len(files) == 1 and len(sent) == 2, ([m["Subject"] for m in sent], r.output)
    assert t.status("red")["seq"] == t.status("blue")["seq"] + 1   # file in, reply not yet there


def test_an_unreadable_or_vanished_message_does_not_stop_the_pass(red, monkeypatch):
    """The inbox is the outside world's: a message that cannot be read (EACCES, EIO: the
    OS refuses the read) is filed as failed with the reason, one that left the inbox between
    listing and reading is logged as gone, and the next message is still processed. Before,
    either error ended the pass with a traceback and the same message stopped every pass."""
    from pbem.mail import maildir

    t, cfg, office, md = red
    deliver(md, _msg("locked"))
    deliver(md, _msg("no file here", msgid="<m2@blue.test>"))
    locked = next(p for p in (md / "new").iterdir() if b"locked" in p.read_bytes())
    real_open, real_keys = open, maildir.MaildirSource.keys

    def refusing_open(path, *a, **k):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **k)

    monkeypatch.setattr(maildir, "open", refusing_open, raising=False)
    monkeypatch.setattr(maildir.MaildirSource, "keys",
                        lambda self: [self.root / "new" / "1.vanished.host", *real_keys(self)])
    r = t.ok("mail", "poll", "--config", cfg)
    lines = r.output.strip().splitlines()
    assert "Traceback" not in r.output and "internal error" not in r.output, r.output
    assert lines[0] == "gone 1.vanished.host: it left the inbox before it was read", lines
    assert any(ln.startswith(f"failed {locked.name[:40]}: the message cannot be read "
                             "(Permission denied)") for ln in lines), lines
    assert _count(md, "failed") == 2 and not list((md / "new").iterdir())
    assert [to for _, to, _ in office.received] == [[BLUE]]    # the readable one is answered


def test_a_message_that_cannot_be_moved_is_logged_and_the_pass_goes_on(red, monkeypatch):
    """A Maildir that refuses a move (a folder made read-only by hand, another file system):
    the message's log line says it stays in the inbox, the other messages are filed, and the
    next pass files it without a second answer (the journal holds the first)."""
    from pbem.mail import maildir

    t, cfg, office, md = red
    deliver(md, _msg("first"))
    deliver(md, _msg("second", msgid="<m2@blue.test>"))
    first = next(p for p in (md / "new").iterdir() if b"first" in p.read_bytes())
    real_replace = os.replace

    def refusing_replace(src, dst, *a, **k):
        if Path(src) == first:
            raise PermissionError(13, "Permission denied", str(src))
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(maildir.os, "replace", refusing_replace)
    r = t.ok("mail", "poll", "--config", cfg)
    assert f"failed {first.name[:40]}: " in r.output and "(left in the inbox: it cannot be " \
        "moved to failed: Permission denied)" in r.output, r.output
    assert _count(md, "failed") == 1 and list((md / "new").iterdir()) == [first]
    monkeypatch.setattr(maildir.os, "replace", real_replace)
    r = t.ok("mail", "poll", "--config", cfg)
    assert r.output.startswith(f"failed {first.name[:40]}: ") and "left in" not in r.output
    assert _count(md, "failed") == 2 and not list((md / "new").iterdir())
    assert len(office.received) == 2, office.received
