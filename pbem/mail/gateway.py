"""The gateway: one pass over the inbox (`poll`), or passes until a signal (`watch`).

For each message: bound its size, parse it (email package), find every pbem file, route each
to its archive by game id (acceptances by proposal hash), check that the sender's address is
in the game's address book for the party that signed the file, run `receive`, and journal the
outcome with every mail it sends (the signed reply, the referee's views and rejections, the
player's own report, or a one-line failure notice) before the message moves to `done` or
`failed`. See docs/mail.md.
"""

from __future__ import annotations

import email.policy
import hashlib
import os
import shutil
import signal
import sys
import threading
import traceback
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate
from pathlib import Path
from typing import Callable

from pbem.core.errors import ArchiveBusy, OutOfOrder, PbemError
from pbem.core.records import SignedFile, open_text
from pbem.core.textsafe import one_line, printable
from pbem.mail import addressbook, extract
from pbem.mail.config import Config
from pbem.mail.journal import Journal
from pbem.mail.maildir import MaildirSource
from pbem.mail.smtp import Sender
from pbem.protocol.archive import Archive
from pbem.protocol.genesis import HOST
from pbem.protocol.ops import receive_file
from pbem.protocol.rejection import Refused
from pbem.turn_commands import DEBUG_ENV, error_line

Log = Callable[[str], None]


def _h(*parts: bytes | str) -> str:
    d = hashlib.sha256()
    for p in parts:
        b = p.encode("utf-8", "surrogateescape") if isinstance(p, str) else p
        d.update(len(b).to_bytes(8, "big") + b)
    return d.hexdigest()


#: The longest Message-ID the gateway keeps (RFC 5322 allows 998 characters a line; real ids
#: are well under 100).
MAX_MSGID = 250


def safe_msgid(value: object) -> str:
    """A Message-ID as one line of printable ASCII of bounded length with no encoded word
    ('=?'), else "" (dropped: the gateway then keys the message by its bytes)."""
    text = str(value or "").strip()
    if not 0 < len(text) <= MAX_MSGID or not all(" " <= c <= "~" for c in text) \
            or "=?" in text:
        return ""
    return text


@dataclass
class Result:
    status: str                          # done | failed | duplicate
    detail: str
    mails: list[tuple[str, list[str], bytes]] = field(default_factory=list)


def _domain(cfg: Config) -> str:
    return cfg.address.rpartition("@")[2] or "pbem.invalid"


def build_mail(cfg: Config, *, msgid_seed: str, to: list[str], subject: str, body: str,
               attachments: list[tuple[str, str, str]] = (),
               in_reply_to: str = "", auto: bool = False) -> tuple[str, list[str], bytes]:
    """One outgoing mail: (Message-ID, recipients, bytes). The Message-ID is derived from
    msgid_seed, so the same mail built again (after a crash) carries the same id."""
    m = EmailMessage()
    msgid = f"<pbem.{msgid_seed[:40]}@{_domain(cfg)}>"
    m["Message-ID"] = msgid
    m["From"] = cfg.address
    m["To"] = ", ".join(to)
    m["Subject"] = " ".join(printable(subject).splitlines())[:200]   # U+2028 ends a line too
    m["Date"] = formatdate(localtime=False)
    m["X-Pbem-Gateway"] = "1"
    reply_to = safe_msgid(in_reply_to)
    if reply_to:
        m["In-Reply-To"] = reply_to
    if auto:
        m["Auto-Submitted"] = "auto-replied"     # RFC 3834: never answered automatically
    m.set_content(body)
    for name, ctype, content in attachments:
        maintype, subtype = ctype.split("/")
        m.add_attachment(content, subtype=subtype, filename=name)
    return msgid, to, m.as_bytes(policy=email.policy.SMTP)


def _file_mail(cfg: Config, seed: str, to: list[str], game: addressbook.Game,
               text: str, name: str) -> tuple[str, list[str], bytes]:
    first = text.split("\n", 1)[0].strip() or "pbem file"
    return build_mail(cfg, msgid_seed=_h(seed, name, ",".join(to)), to=to,
                      subject=f"pbem {game.name}: {first}", body=text,
                      attachments=[(name, "text/plain", text)])


def _stored_texts(game: addressbook.Game) -> set[str]:
    """The text of every file the archive holds (received, sent or rejected)."""
    a = Archive(game.root)
    out: set[str] = set()
    for d in (a.files_dir, a.rejected_dir):
        if d.is_dir():
            for p in d.glob("*.pbem"):
                try:
                    out.add(p.read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError):
                    continue
    return out


def _report_mail(cfg: Config, seed: str, game: addressbook.Game) -> list:
    """The player's own latest report: text in the body, HTML attached."""
    if not cfg.report_to or game.party == HOST:
        return []
    d = game.root / "reports" / game.party
    txts = sorted(d.glob("[0-9][0-9][0-9][0-9].txt")) if d.is_dir() else []
    if not txts:
        return []
    txt = txts[-1]
    html = txt.with_suffix(".html")
    att = [(f"{game.name}-{txt.stem}.html", "text/html", html.read_text(encoding="utf-8"))] \
        if html.is_file() else []
    return [build_mail(cfg, msgid_seed=_h(seed, "report", txt.name), to=cfg.report_to,
                       subject=f"pbem {game.name}: report {txt.stem} for {game.party}",
                       body=txt.read_text(encoding="utf-8"), attachments=att)]


class Gateway:
    def __init__(self, cfg: Config, *, log: Log = print) -> None:
        self.cfg = cfg
        self.log = log
        self._source = None
        self.journal = Journal(cfg.state)
        self.work = cfg.state.parent / (cfg.state.name + ".work")
        self.sender = Sender(cfg.smtp)
        self.held: list = []      # this round's messages whose files wait for earlier ones

    @property
    def source(self):
        """The inbox: IMAP when configured, else the Maildir (opened on first use)."""
        if self._source is None:
            if self.cfg.imap is not None:
                from pbem.mail.imap import ImapSource

                self._source = ImapSource(self.cfg.imap)
            else:
                self._source = MaildirSource(self.cfg.maildir)
        return self._source

    def close(self) -> None:
        self.sender.close()
        if self._source is not None:
            self._source.close()
            self._source = None
        self.journal.close()

    # -- one message -------------------------------------------------------------------

    def _process(self, raw: bytes, raw_hash: str, games: list[addressbook.Game]
                 ) -> tuple[str, Result]:
        cfg = self.cfg
        try:
            got = extract.read(raw)          # in a child process, bounded in time
        except extract.MessageRefused as e:
            return _h("raw", raw_hash), Result("failed", str(e))
        if got.stage in ("parse", "headers"):
            return _h("raw", raw_hash), Result("failed", got.error)
        msgid = safe_msgid(got.msgid)        # a CRLF in it: dropped
        frm, auto, subject = got.frm, got.auto, got.subject
        sender = frm[0] if len(frm) == 1 else ""
        known = any(sender in b for g in games for b in g.addresses.values())

        def fail(key: str, reason: str, sent: list | None = None) -> tuple[str, Result]:
            """A failed message: the reply quoting the reason, after the answers owed for
            files of the same message received before the one refused (sent)."""
            reason = one_line(reason)
            mails = [m for m in sent or [] if m[1]]
            if known and auto == "no":      # never answer strangers (backscatter) or robots
                mails.append(build_mail(
                    cfg, msgid_seed=_h(key, "failed"), to=[sender],
                    subject=f"Re: {subject}"[:200], in_reply_to=msgid, auto=True,
                    body=("pbem could not process your message:\n\n> "
                          f"{reason}\n\nThe message is kept; nothing was changed.\n")))
            return key, Result("failed", reason, mails)

        if got.stage == "files":
            return fail(_h("msg", msgid, raw_hash), got.error)
        files = [open_text(text, name="message") for text in got.files]
        # the sender is part of the key: a stranger's refusal never marks a player's message
        key = _h("msg", msgid or raw_hash, sender, *sorted(f.hash for f in files))
        if self.journal.status(key, raw_hash):
            return key, Result("duplicate", "already processed")
        if not sender:
            return fail(key, "the message has no single From address")
        mails: list = []
        details: list[str] = []
        done_any = False
        texts: dict[str, set[str]] = {}

        def stored(game: addressbook.Game, f: SignedFile) -> bool:
            """True if the archive holds this exact file (a quoted or re-sent old file); its
            files are read once a message."""
            if game.name not in texts:
                texts[game.name] = _stored_texts(game)
            return f.text in texts[game.name]

        for f in files:
            game = addressbook.route(games, f)
            kind = type(f.payload).__name__
            if game is None:
                if kind == "Proposal":
                    return fail(key, "a proposal is answered with 'pbem join', not by the "
                                     "gateway", mails)
                return fail(key, f"no game served here holds this {kind.lower()} file", mails)
            party = addressbook.sender_party(f)
            if party == game.party:
                continue                    # our own file, quoted back to us
            if party is None or sender not in game.addresses.get(party, []):
                if stored(game, f):
                    continue                # another party's old file, quoted
                return fail(key, f"{sender} is not an address of {party} in game {game.name}: "
                                 "refused", mails)
            self.work.mkdir(parents=True, exist_ok=True)
            path = self.work / f"{f.hash[:32]}.pbem"
            out = self.work / f"out-{key[:16]}-{f.hash[:16]}"
            out_arg = out if game.party == HOST else out.with_suffix(".pbem")
            try:                            # the work files go once read (a stranger's too)
                path.write_text(f.text, encoding="ascii")
                try:
                    result = receive_file(game.root, str(path), key_path=cfg.key,
                                          out=str(out_arg))
                except Refused as e:
                    if out_arg.is_file():
                        to = game.addresses.get(getattr(f.payload, "sender", ""), [])
                        mails.append(_file_mail(cfg, key, to, game,
                                                out_arg.read_text(encoding="ascii"),
                                                "rejection.pbem"))
                    details.append(f"{game.name}: {one_line(str(e))}")
                    done_any = True
                    continue
                except (OutOfOrder, ArchiveBusy) as e:
                    # mail may deliver a later file first: it waits in the inbox for the ones
                    # before it (nothing journaled, nothing answered), unless a file of the
                    # same message was received already: its answers are owed now; so does a
                    # file whose archive another pbem process holds (the player's own command)
                    if done_any:
                        return fail(key, str(e), mails)
                    return key, Result("held", one_line(str(e)))
                except PbemError as e:
                    if stored(game, f):
                        continue            # an old file quoted in the reply: nothing to do
                    return fail(key, str(e), mails)
                done_any = True
                details.append(f"{game.name}: {kind.lower()} "
                               f"{getattr(f.payload, 'seq', 0)} from {party} received")
                seed = _h(key, f.hash)
                if result.reply:
                    to = sorted({a for p in game.others() for a in game.addresses[p]})
                    text = Path(result.reply).read_text(encoding="ascii")
                    mails.append(_file_mail(cfg, seed, to, game, text, "reply.pbem"))
                for side, vpath in sorted(result.views.items()):
                    text = Path(vpath).read_text(encoding="ascii")
                    mails.append(_file_mail(cfg, seed, game.addresses.get(side, []), game,
                                            text, f"view-{side}.pbem"))
                mails += _report_mail(cfg, seed, game)
            finally:
                path.unlink(missing_ok=True)
                if out_arg.is_dir():
                    shutil.rmtree(out_arg, ignore_errors=True)
                else:
                    out_arg.unlink(missing_ok=True)
        if not done_any:
            return key, Result("done", "nothing new (every file is already in its archive)")
        return key, Result("done", "; ".join(details), [m for m in mails if m[1]])

    def handle(self, p, games: list[addressbook.Game]) -> str:
        """Process one inbox message to the end; returns its log line."""
        try:
            raw = self.source.read(p, self.cfg.max_message_bytes)
        except extract.MessageGone as e:
            return f"gone {self.source.name(p)}: {e}"
        except extract.MessageRefused as e:
            key = _h("oversize", self.source.name(p))
            if not self.journal.status(key, key):
                self.journal.finish(key, key, "failed", str(e), [])
            return f"failed {self.source.name(p)}: {e}{self._file(p, 'failed')}"
        raw_hash = hashlib.sha256(raw).hexdigest()
        try:
            key, res = self._process(raw, raw_hash, games)
        except Exception as e:              # noqa: BLE001  one message never stops the gateway
            return self._crashed(p, e)
        if res.status == "duplicate":
            st = self.journal.status(key, raw_hash) or "done"
            return f"duplicate {self.source.name(p)}: already {st}{self._file(p, st)}"
        if res.status == "held":
            self.held.append(p)
            return (f"held {self.source.name(p)}: {res.detail}; left in the inbox until it "
                    "can be received (the files before it arrive, the archive is free)")
        self.journal.finish(key, raw_hash, res.status, res.detail, res.mails)
        return f"{res.status} {self.source.name(p)}: {res.detail}{self._file(p, res.status)}"

    def _crashed(self, p, e: Exception) -> str:
        """File a message whose handling failed unexpectedly (a bug) under failed, unjournaled
        (so a copy is processed again once pbem is fixed); the log line names the error."""
        if os.environ.get(DEBUG_ENV):
            traceback.print_exception(e, file=sys.stderr)
        return f"failed {self.source.name(p)}: {error_line(e)[0]}{self._file(p, 'failed')}"

    def _file(self, p, folder: str) -> str:
        """Move a handled message into folder; '' or, if the inbox refuses the move, a note for
        its log line (the journal already knows it: the next pass only tries the move again)."""
        try:
            self.source.move(p, folder)
        except OSError as e:
            return f" (left in the inbox: it cannot be moved to {folder}: {e.strerror or e})"
        return ""

    # -- passes --------------------------------------------------------------------------

    def flush(self) -> int:
        """Send every journaled mail not yet sent; returns how many were sent."""
        n = 0
        for row, msgid, rcpt, body in self.journal.unsent():
            self.sender.send(self.cfg.address, rcpt, body)
            self.journal.mark_sent(row)
            n += 1
        return n

    def send_file(self, game_name: str, path: str) -> str:
        """Send a file this party signed (pbem submit's output) to the game's other parties."""
        from pbem.core.records import read_file

        game = next((g for g in addressbook.games(self.cfg) if g.name == game_name), None)
        if game is None:
            raise PbemError(f"{game_name}: no such game in {self.cfg.path} (or no archive yet)")
        f = read_file(path)
        if type(f.payload).__name__ == "Proposal":
            raise PbemError(f"{Path(path).name}: a proposal is sent by hand, as the first mail "
                            "to each player (who answers it with 'pbem join'; a gateway files "
                            "proposals as failed); the gateway sends the files after it")
        if addressbook.sender_party(f) != game.party:
            raise PbemError(f"{Path(path).name}: not a file of {game.party}, this archive's party")
        if game.party != HOST and getattr(f.payload, "game_id", game.game_id) != game.game_id:
            raise PbemError(f"{Path(path).name}: belongs to another game")
        others = [HOST] if HOST in game.addresses and game.party != HOST else game.others()
        to = sorted({a for p in others for a in game.addresses.get(p, [])})
        if not to:
            raise PbemError(f"{game_name}: the address book names no one to send to")
        key = _h("send", f.hash)
        mail = _file_mail(self.cfg, key, to, game, f.text, Path(path).name)
        self.journal.finish(key, key, "done", f"sent {Path(path).name}", [mail])
        self.flush()
        self.sender.close()
        return f"sent {Path(path).name} to {', '.join(to)}"

    def poll(self) -> int:
        """One pass: send what is owed, process every inbox message, send again. With the
        mail server down, every message is still processed (its answers wait in the journal)
        and the pass ends with one error saying how many mails wait."""
        down: PbemError | None = None

        def send() -> None:
            nonlocal down
            if down is not None:
                return
            try:
                self.flush()
            except PbemError as e:
                down = e
        send()
        n = 0
        queue = self.source.keys()
        while queue:
            self.held = []
            for p in queue:
                games = addressbook.games(self.cfg)
                self.log(one_line(self.handle(p, games)))   # an entry's name may hold a newline
                n += 1
                send()
            if len(self.held) == len(queue):
                break                   # nothing came in before them: the next pass tries again
            queue = self.held           # a file before a held one came in: try it again now
        self.sender.close()
        if down is not None:
            waiting = self.journal.counts().get("unsent", 0)
            raise PbemError(f"{one_line(str(down))}; {n} message(s) processed, {waiting} "
                            "mail(s) wait in the journal for the next pass")
        return n

    def watch(self, stop: threading.Event) -> None:
        """Poll until stop is set, waiting at most the configured interval between passes."""
        while not stop.is_set():
            try:
                self.poll()
            except PbemError as e:          # SMTP down, say: log, wait, try again
                self.log(printable(f"error: {one_line(str(e))}"))
            if self._source is not None and self.cfg.imap is not None:
                self._source.close()        # a fresh IMAP session each pass
                self._source = None
            stop.wait(self.cfg.interval)


def install_stop(stop: threading.Event) -> None:
    """SIGTERM and SIGINT end the watch after the message in hand."""
    def handler(signum, frame):             # noqa: ARG001
        stop.set()
    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
