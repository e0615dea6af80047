"""An attack trial of the gateway (docs/protocol.md section 9, docs/mail.md 'Threats'):
messages that cost the standard library's parsers quadratic time, a reply quoting the other
side's file, and a stranger's forged files left behind in the work folder."""

from __future__ import annotations

import time
from email.message import EmailMessage
from pathlib import Path

from mail.test_gateway import RED, _count, _msg
from mail.test_gateway import red  # noqa: F401  (the fixture: red's gateway)
from pbem.mail.maildir import deliver


def _stranger(**parts: str) -> bytes:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"], m["Message-ID"] = "mallory@evil.test", RED, "x", "<x@e>"
    m.set_content("hello")
    for subtype, text in parts.items():
        m.add_alternative(text, subtype=subtype)
    return bytes(m)


def test_a_message_that_costs_the_parsers_quadratic_time_is_cut_off(red, monkeypatch):
    """The standard library's parsers take quadratic time on some inputs: 90 KB of '<a ' in
    an HTML part (html.parser: minutes), a Content-Type of 16,000 encoded words (the email
    header parser: 15 s; 10 MiB: hours). One stranger's message stalled the gateway: one
    pass, every game waiting. A message is now read in a child process given READ_SECONDS
    of CPU and time: refused, kept in failed, not answered, and the next message is done."""
    from pbem.mail import extract

    monkeypatch.setattr(extract, "READ_SECONDS", 2, raising=False)
    t, cfg, office, md = red
    deliver(md, _stranger(html="<html><body>" + "<a " * 30000))
    deliver(md, b"From: mallory@evil.test\r\nTo: red@red.test\r\nMessage-ID: <y@e>\r\n"
                b"MIME-Version: 1.0\r\nContent-Type: text/plain; x=" + b"=?utf-8?q?a?= " * 16000
            + b"\r\n\r\nhello\r\n")
    deliver(md, _msg("Hi!\n\n" + Path(t.inbox[0][0]).read_text()))
    start = time.monotonic()
    r = t.ok("mail", "poll", "--config", cfg)
    assert time.monotonic() - start < 30, r.output
    lines = r.output.strip().splitlines()
    assert sum("takes too long to read (over 2 s" in ln for ln in lines) == 2, r.output
    assert "acceptance 0 from blue received" in lines[2], r.output
    assert _count(md, "failed") == 2 and _count(md, "done") == 1 and not office.received


def test_a_text_of_many_begin_lines_is_read_in_linear_time(red):
    """80,000 BEGIN lines (quoted: lines opening with '--' may open parts) and no END (2 MB): the armor reader looked for the END line from
    every BEGIN line, to the end of the text each time (a minute; a 10 MiB message, half an
    hour). It is refused at once as damaged, unanswered (a stranger)."""
    t, cfg, office, md = red
    deliver(md, _stranger(plain="> -----BEGIN PBEM FILE-----\n" * 80000))   # quoted
    start = time.monotonic()
    r = t.ok("mail", "poll", "--config", cfg)
    assert time.monotonic() - start < 15, r.output
    assert "armored blocks is readable" in r.output and "too long" not in r.output, r.output
    assert _count(md, "failed") == 1 and not office.received


def test_a_reply_quoting_the_other_sides_file_is_received(red):
    """A player answers with his turn and, below it, the file he answers, quoted (what a mail
    client's Reply does). The quoted file is red's own: the gateway checked that blue's
    address was red's and refused the whole message ('blue@blue.test is not an address of
    red'), blue's new file with it. A file of the archive's own party is skipped whoever
    sends it, and so is another party's file the archive holds already."""
    t, cfg, office, md = red
    acc = Path(t.inbox.pop(0)[0]).read_text()
    deliver(md, _msg("Hi!\n\n" + acc))
    t.ok("mail", "poll", "--config", cfg)
    theirs = t.play_one()               # red's turn, received by blue
    t.deliver()
    assert t.mover() == "blue"
    blue = Path(t.play_one()).read_text()
    quoted = "".join("> " + ln + "\n" for ln in Path(theirs).read_text().splitlines())
    deliver(md, _msg(f"my turn\n\n{blue}\nOn Monday red wrote:\n{quoted}",
                     msgid="<m9@blue.test>"))
    seq = t.status("red")["seq"]
    r = t.ok("mail", "poll", "--config", cfg)
    assert "from blue received" in r.output and "failed" not in r.output, r.output
    assert t.status("red")["seq"] == seq + 1
    # blue's earlier acceptance quoted by blue with red's turn: nothing new, not refused
    deliver(md, _msg(f"again\n\n{acc}\n{quoted}", msgid="<m10@blue.test>"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "nothing new" in r.output, r.output


def test_a_forged_file_leaves_nothing_in_the_work_folder(red):
    """Whoever forges a player's From address (and knows the game) made the gateway write his
    files into its work folder, where they stayed after the signature refused them: 10 MiB a
    message, without bound. Every work file goes once its file is handled."""
    from pbem.core.keys import load_private
    from pbem.core.records import read_file, seal

    t, cfg, office, md = red
    acc = read_file(t.inbox[0][0])
    forged = seal(acc.payload, load_private(t.key("mallory"))).text
    deliver(md, _msg("Hi!\n\n" + forged))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "failed" in r.output and "signature" in r.output, r.output
    work = Path(cfg).parent / "red.sqlite.work"
    assert not work.exists() or not list(work.iterdir()), list(work.iterdir())
    deliver(md, _msg("Hi!\n\n" + acc.text, msgid="<m2@blue.test>"))
    r = t.ok("mail", "poll", "--config", cfg)
    assert "acceptance 0 from blue received" in r.output, r.output
    assert not list(work.iterdir()), list(work.iterdir())


def test_a_file_that_meets_its_archive_in_use_waits_and_is_received(red):
    """The player runs a pbem command on his archive (submit, report) while his gateway's
    --watch pass receives the opponent's file: 'another pbem process is using this archive'
    was a refusal, journaled, so the message was failed for good; the opponent's 'mail send'
    of the file again sends nothing (the same Message-ID, already sent) and a copy moved back
    into the inbox is a duplicate: the file was lost to the gateway. It now waits in the
    inbox, unanswered, and is received at a later pass, once the archive is free."""
    import fcntl

    t, cfg, office, md = red
    deliver(md, _msg("Hi!\n\n" + Path(t.inbox[0][0]).read_text()))
    with open(t.dirs["red"] / ".lock", "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        r = t.ok("mail", "poll", "--config", cfg)
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    assert r.output.startswith("held ") and "another pbem process" in r.output, r.output
    assert len(list((md / "new").iterdir())) + len(list((md / "cur").iterdir())) == 1
    assert not office.received
    r = t.ok("mail", "poll", "--config", cfg)
    assert "acceptance 0 from blue received" in r.output, r.output
    assert _count(md, "done") == 1 and t.status("red")["pending"] == ["red"]
