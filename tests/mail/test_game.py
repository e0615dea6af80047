"""Complete games of the test game 'dash' played only through gateways: every file travels
by SMTP (aiosmtpd with STARTTLS) into the recipient's Maildir, and `pbem mail poll` receives
it and mails the answers. Nobody touches a file by hand but to submit orders."""

from __future__ import annotations

import email
import email.policy

import pytest

from fixtures.table import Table
from mail.helpers import write_config

ADDR = {"red": "red@red.test", "blue": "blue@blue.test", "host": "ref@club.test",
        "allied": "allied@a.test", "axis": "axis@b.test", "us": "us@c.test"}


def _setup(t: Table, tmp, office, port, ca, parties, games, dovecot=None):
    """One gateway configuration per party: Maildir inboxes, or Dovecot IMAP inboxes."""
    cfgs = {}
    for p in parties:
        md = tmp / f"mail-{p}"
        office.boxes[ADDR[p]] = md
        extra = ""
        if dovecot is not None:
            office.imap[ADDR[p]] = (lambda raw, p=p: dovecot.deliver(p, raw, ca))
            pw = tmp / f"{p}-imap-password"
            pw.write_text(dovecot.users[p] + "\n")
            pw.chmod(0o600)
            extra = (f'\n[imap]\nhost = "127.0.0.1"\nport = {dovecot.port}\nuser = "{p}"\n'
                     f'password_file = "{pw}"\ncafile = "{ca}"\n')
        cfgs[p] = str(write_config(tmp / f"{p}.toml", address=ADDR[p], key=t.key(p),
                                   archives=tmp, maildir=md, port=port, cafile=ca,
                                   games=games[p], report_to=f"{p}-self@home.test",
                                   extra=extra))
    return cfgs


def _poll_until_quiet(t: Table, cfgs: dict[str, str]) -> None:
    for _ in range(50):
        busy = False
        for c in cfgs.values():
            r = t.ok("mail", "poll", "--config", c)
            busy |= not r.output.rstrip().endswith("0 message(s) processed")
            assert "failed" not in r.output, r.output
        if not busy:
            return
    raise AssertionError("the gateways never went quiet")


def _play(t: Table, cfgs: dict[str, str], archive_of: dict[str, str], bot_dir) -> int:
    turns = 0
    for _ in range(300):
        _poll_until_quiet(t, cfgs)
        side = t.mover()
        if side is None:
            return turns
        orders = t.tmp / f"orders-{turns}.txt"
        t.ok("bot", str(bot_dir(side)), "--side", side, "--out", str(orders),
             "--seed", str(turns))
        out = t.tmp / f"turn-{turns}.pbem"
        t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", str(out))
        t.ok("mail", "send", "--config", cfgs[side], archive_of[side], str(out))
        turns += 1
    raise AssertionError("game did not end")


def test_a_peer_game_played_through_two_gateways(tmp_path, smtp_server):
    office, port, ca = smtp_server
    t = Table(tmp_path)
    book = {"red": ADDR["red"], "blue": ADDR["blue"]}
    cfgs = _setup(t, tmp_path, office, port, ca, ("red", "blue"),
                  {"red": {"red": book}, "blue": {"blue": book}})
    acc = t.inbox.pop()[0]
    t.ok("mail", "send", "--config", cfgs["blue"], "blue", acc)
    turns = _play(t, cfgs, {"red": "red", "blue": "blue"}, lambda s: t.dirs[s])
    assert turns > 2
    for s in ("red", "blue"):
        assert t.status(s)["over"]
        t.ok("verify", str(t.dirs[s]))
        assert not list((tmp_path / f"mail-{s}" / ".failed" / "cur").iterdir())
        assert not list((tmp_path / f"mail-{s}" / "new").iterdir())
    # every player got its own report: text in the body, HTML attached
    reports = [email.message_from_bytes(b, policy=email.policy.default)
               for _, rcpt, b in office.received if rcpt == ["red-self@home.test"]]
    assert reports
    last = reports[-1]
    assert "html" in [p.get_content_subtype() for p in last.iter_attachments()]
    assert "red" in last.get_body(("plain",)).get_content()


def test_a_hosted_game_played_through_three_gateways(tmp_path, smtp_server):
    office, port, ca = smtp_server
    t = Table(tmp_path, mode="hosted")
    book = {"red": ADDR["red"], "blue": ADDR["blue"], "host": ADDR["host"]}
    cfgs = _setup(t, tmp_path, office, port, ca, ("red", "blue", "host"),
                  {"red": {"red": book}, "blue": {"blue": book}, "host": {"referee": book}})
    for acc, _ in t.inbox:
        side = "red" if "red" in acc else "blue"
        t.ok("mail", "send", "--config", cfgs[side], side, acc)
    t.inbox.clear()
    turns = _play(t, cfgs, {"red": "red", "blue": "blue"}, lambda s: t.dirs["host"])
    assert turns > 2
    for p in ("red", "blue", "host"):
        assert t.status(p if p != "host" else "host")["over"]
    t.ok("verify", str(t.dirs["host"]))


GAMES = [("holdfast", "race-to-tunis", ("allied", "axis")),
         ("kasserine", "historical", ("axis", "us"))]


@pytest.mark.parametrize("game, scenario, sides", GAMES)
def test_real_games_played_through_gateways(tmp_path, smtp_server, game, scenario, sides):
    """Race to Tunis and Kasserine between two players (Maildir inboxes), to the end."""
    _real_game(tmp_path, smtp_server, game, scenario, sides, "peer")


@pytest.mark.parametrize("game, scenario, sides",
                         [("holdfast", "campaign", ("allied", "axis")), GAMES[1]])
def test_real_games_played_sealed_through_gateways(tmp_path, smtp_server, game, scenario, sides):
    """Sealed mode by email (issue 10): a whole Holdfast campaign and a Kasserine game, whose
    projections, openings, automatic answers and both final reveals travel through SMTP and
    the gateways alone; both archives verify in full."""
    _real_game(tmp_path, smtp_server, game, scenario, sides, "sealed")
    for s in sides:
        assert "both final reveals are in" in _verify_output(tmp_path, s)


def _verify_output(tmp_path, side: str) -> str:
    from click.testing import CliRunner

    from pbem.cli import cli

    r = CliRunner().invoke(cli, ["verify", str(tmp_path / side)])
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("game, scenario, sides", GAMES)
def test_real_games_with_a_referee_through_dovecot(tmp_path, smtp_server, dovecot, game,
                                                   scenario, sides):
    """Two players and a referee, each reading its mail from Dovecot over TLS."""
    _real_game(tmp_path, smtp_server, game, scenario, sides, "hosted", dovecot)


def _real_game(tmp_path, smtp_server, game, scenario, sides, mode, dovecot=None):
    office, port, ca = smtp_server
    t = Table(tmp_path, game=game, scenario=scenario, sides=sides, mode=mode)
    a, b = sides
    if mode == "hosted":
        book = {a: ADDR[a], b: ADDR[b], "host": ADDR["host"]}
        cfgs = _setup(t, tmp_path, office, port, ca, (a, b, "host"),
                      {a: {a: book}, b: {b: book}, "host": {"referee": book}}, dovecot)
        for acc, _ in t.inbox:
            side = a if f"accept-{a}" in acc else b
            t.ok("mail", "send", "--config", cfgs[side], side, acc)
        bot_dir = lambda s: t.dirs["host"]  # noqa: E731
    else:
        book = {a: ADDR[a], b: ADDR[b]}
        cfgs = _setup(t, tmp_path, office, port, ca, (a, b), {a: {a: book}, b: {b: book}},
                      dovecot)
        t.ok("mail", "send", "--config", cfgs[b], b, t.inbox[0][0])
        bot_dir = lambda s: t.dirs[s]  # noqa: E731
    t.inbox.clear()
    assert _play(t, cfgs, {a: a, b: b}, bot_dir) > 2
    for p in (a, b, *(["host"] if mode == "hosted" else [])):
        assert t.status(p)["over"]
        t.ok("verify", str(t.dirs[p]))
        if dovecot is None:
            assert not list((tmp_path / f"mail-{p}" / ".failed" / "cur").iterdir())
            assert not list((tmp_path / f"mail-{p}" / "new").iterdir())
