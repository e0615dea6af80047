"""Complete games through the real CLI file exchange, in peer and hosted mode."""

from __future__ import annotations

import json
import shutil

import pytest

from fixtures.table import Table


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_complete_game_verifies(tmp_path, mode):
    t = Table(tmp_path, mode=mode)
    t.play_to_end()
    for party in (*t.sides, "host") if mode == "hosted" else t.sides:
        r = t.ok("verify", str(t.dirs[party]))
        assert "OK: the archive verifies." in r.output
    st = t.status("red")
    assert st["over"] is True and st["pending"] == [] and st["winner"] in ("red", "blue")
    assert isinstance(st["turn"], int)
    for side in t.sides:
        assert (t.dirs[side] / "reports" / side / "index.html").exists()


def test_both_archives_hold_the_same_files(tmp_path):
    t = Table(tmp_path)
    t.play_to_end()
    red = sorted(p.name for p in (t.dirs["red"] / "files").iterdir())
    blue = sorted(p.name for p in (t.dirs["blue"] / "files").iterdir())
    assert red == blue
    for name in red:
        assert (t.dirs["red"] / "files" / name).read_bytes() == \
            (t.dirs["blue"] / "files" / name).read_bytes()


def test_status_says_who_decides(tmp_path):
    t = Table(tmp_path)
    st = t.status("red")
    assert st["pending"] == ["blue"] and st["over"] is False  # red waits for blue's acceptance
    t.deliver()
    r = t.ok("status", str(t.dirs["red"]))
    assert "You: Pick a secret codeword" in r.output and "pbem submit" in r.output
    st = json.loads(t.ok("status", str(t.dirs["blue"]), "--json").output)
    assert st["pending"] == ["red"]
    # the side that waits is told it waits, not how the other side answers
    r = t.ok("status", str(t.dirs["blue"]))
    assert r.output.startswith("red: Pick a secret codeword") and "(you wait for their file)" \
        in r.output and "pbem submit" not in r.output, r.output


def test_check_names_line_and_rule(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    bad = tmp_path / "bad.txt"
    bad.write_text("# my orders\npick zulu\n")
    r = t.run("check", str(t.dirs["red"]), str(bad), "--key", t.key("red"))
    assert r.exit_code == 1
    assert "bad.txt: line 2: 'pick zulu': unknown codeword [DASH-3]" in r.output
    bad.write_text("fly away\n")
    r = t.run("check", str(t.dirs["red"]), str(bad))
    assert r.exit_code == 1 and "line 1" in r.output and "[DASH-1]" in r.output
    # one run names every problem: an illegal order beside a line that does not parse
    bad.write_text("pick zulu\nfly away\n")
    r = t.run("check", str(t.dirs["red"]), str(bad))
    assert r.exit_code == 1
    assert "line 1: 'pick zulu': unknown codeword [DASH-3]" in r.output, r.output
    assert "line 2" in r.output and "[DASH-1]" in r.output, r.output
    good = tmp_path / "good.txt"
    good.write_text("pick alphawolf\n")
    assert "1 order is legal" in t.ok("check", str(t.dirs["red"]), str(good)).output


def test_submit_refuses_illegal_orders_and_signs_nothing(tmp_path):
    from fixtures.table import snapshot

    t = Table(tmp_path)
    t.deliver()
    before = snapshot(t.dirs["red"])
    bad = tmp_path / "bad.txt"
    bad.write_text("advance\n")
    r = t.run("submit", str(t.dirs["red"]), str(bad), "--key", t.key("red"), "--out",
              str(tmp_path / "x.pbem"))
    assert r.exit_code == 1 and "[DASH-3]" in r.output
    assert not (tmp_path / "x.pbem").exists()
    assert snapshot(t.dirs["red"]) == before


def test_out_of_turn_submit_refused(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    o = tmp_path / "o.txt"
    o.write_text("pick alphawolf\n")
    r = t.run("submit", str(t.dirs["blue"]), str(o), "--key", t.key("blue"), "--out",
              str(tmp_path / "x.pbem"))
    assert r.exit_code == 1
    assert "Error:" in r.output and "\n" == r.output[-1] and r.output.count("\n") == 1


def test_orders_after_dice_are_skipped_when_illegal(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    t.play_one(["pick alphawolf"])
    t.deliver()
    t.play_one(["pick echofox"])
    t.deliver()
    t.play_one(["advance", "advance", "end"])  # second advance is illegal after the first
    t.deliver()
    t.play_one(["end"])  # blue's file carries the results of red's file
    t.deliver()
    from pbem.protocol.session import load

    s = load(t.dirs["red"])
    skipped = [log for log in s.log if log.skipped]
    assert skipped and skipped[0].skipped == [1]
    assert any("was not carried out" in e.text for e in skipped[0].events)
    assert t.ok("verify", str(t.dirs["blue"]))


def test_keygen_with_passphrase(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pbem.cli import cli
    from pbem.core.errors import KeyFileError
    from pbem.core.keys import load_private

    monkeypatch.setenv("PBEM_PASSPHRASE", "correct horse")
    r = CliRunner().invoke(cli, ["keygen", "alice", "--dir", str(tmp_path)])
    assert r.exit_code == 0 and "(encrypted)" in r.output
    fp = r.output.split("Fingerprint: ")[1].split()[0]
    assert len(fp) == 19 and fp.count("-") == 3
    assert b"ENCRYPTED" in (tmp_path / "alice.key").read_bytes()
    load_private(tmp_path / "alice.key")
    monkeypatch.setenv("PBEM_PASSPHRASE", "wrong")
    with pytest.raises(KeyFileError, match="wrong passphrase"):
        load_private(tmp_path / "alice.key")
    r = CliRunner().invoke(cli, ["keygen", "alice", "--dir", str(tmp_path)])
    assert r.exit_code == 1 and "refusing to overwrite" in r.output


def test_every_command_has_help_with_an_example():
    from click.testing import CliRunner

    from pbem.cli import cli

    for name, cmd in cli.commands.items():
        r = CliRunner().invoke(cli, [name, "--help"])
        assert r.exit_code == 0
        assert "Example" in r.output, name


def test_two_processes_cannot_interleave(tmp_path):
    from pbem.protocol.archive import Archive
    from fixtures.table import snapshot

    t = Table(tmp_path)
    before = snapshot(t.dirs["red"])
    path, _ = t.inbox[0]
    with Archive(t.dirs["red"]):  # another process holds the lock
        r = t.run("receive", str(t.dirs["red"]), path, "--key", t.key("red"))
    assert r.exit_code == 1 and "another pbem process is using this archive" in r.output
    assert snapshot(t.dirs["red"]) == before
    t.deliver()


def test_hosted_player_check_is_syntax_only(tmp_path):
    t = Table(tmp_path, mode="hosted")
    t.deliver()
    o = tmp_path / "o.txt"
    o.write_text("pick alphawolf\nfly\n")
    r = t.run("check", str(t.dirs["red"]), str(o))
    assert r.exit_code == 1 and "line 2" in r.output and "[DASH-1]" in r.output


def test_report_command_any_turn_and_own_side_only(tmp_path):
    t = Table(tmp_path)
    t.play_to_end()
    r = t.ok("report", str(t.dirs["red"]), "--side", "red", "--turn", "1")
    assert "Turn 1" in r.output
    html = tmp_path / "r.html"
    t.ok("report", str(t.dirs["red"]), "--side", "red", "--format", "html", "--out", str(html))
    assert html.read_text().startswith("<!DOCTYPE html>")
    r = t.run("report", str(t.dirs["red"]), "--side", "blue")
    assert r.exit_code == 1 and "only red's reports" in r.output


def test_hosted_game_proposed_by_a_player(tmp_path):
    """`pbem new --mode hosted --referee`: the opponent and the referee join; the referee plays."""
    import json

    t = Table(tmp_path)  # a peer table only for keys and helpers; a new game below
    d = {s: tmp_path / f"h-{s}" for s in ("red", "blue", "host")}
    prop = t.mail("hprop")
    out = t.ok("new", "dash", "short", str(d["red"]), "--side", "red", "--key", t.key("red"),
               "--opponent", t.pub("blue"), "--mode", "hosted", "--referee", t.pub("host"),
               "--out", prop).output
    assert "hosted mode" in out
    t.ok("join", prop, "--key", t.key("host"), "--dir", str(d["host"]), "--out", t.mail("hacc"))
    acc = t.mail("bacc")
    t.ok("join", prop, "--key", t.key("blue"), "--dir", str(d["blue"]), "--out", acc)
    r = t.run("receive", str(d["red"]), acc, "--key", t.key("red"))
    assert r.exit_code == 1 and "acceptances go to host" in r.output
    views = tmp_path / "hviews"
    t.ok("receive", str(d["host"]), acc, "--key", t.key("host"), "--out", str(views))
    for _ in range(200):
        for v in sorted(views.glob("view-*.pbem")):
            side = v.name.split("-")[1]
            t.ok("receive", str(d[side]), str(v), "--key", t.key(side))
            v.unlink()
        host = json.loads(t.ok("status", str(d["host"]), "--json").output)
        if host["over"]:
            break
        side = host["pending"][0]
        orders = tmp_path / "ho.txt"
        t.ok("bot", str(d["host"]), "--side", side, "--out", str(orders))
        f = t.mail(f"hturn-{side}")
        t.ok("submit", str(d[side]), str(orders), "--key", t.key(side), "--out", f)
        t.ok("receive", str(d["host"]), f, "--key", t.key("host"), "--out", str(views))
    for party in d.values():
        assert "OK" in t.ok("verify", str(party)).output
    assert json.loads(t.ok("status", str(d["red"]), "--json").output)["over"] is True


def test_a_referee_outbox_shared_by_two_games_never_overwrites_a_view(tmp_path):
    """View file names carry no game id: a referee who receives with one --out folder for two
    games would overwrite the first game's unsent view with the second's. The second receive is
    refused in one line naming the file, nothing stored; with the first view sent and moved
    away it goes through."""
    from fixtures.table import snapshot

    shared = tmp_path / "outbox"
    games = [Table(tmp_path / n, mode="hosted") for n in ("a", "b")]
    files = []
    for t in games:
        t.deliver()
        t.play_one()
        path, to = t.inbox.pop()
        assert to == "host"
        files.append(path)
    a, b = games
    a.ok("receive", str(a.dirs["host"]), files[0], "--key", a.key("host"), "--out", str(shared))
    views = sorted(shared.glob("view-*.pbem"))
    assert views
    first = {p.name: p.read_bytes() for p in views}
    before = snapshot(b.dirs["host"])
    r = b.run("receive", str(b.dirs["host"]), files[1], "--key", b.key("host"), "--out",
              str(shared))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 1 and len(lines) == 1, r.output
    assert "already holds another file" in lines[0] and str(shared) in lines[0]
    assert snapshot(b.dirs["host"]) == before
    assert {p.name: p.read_bytes() for p in shared.glob("view-*.pbem")} == first
    for p in views:                                   # sent, and moved away
        p.rename(tmp_path / f"sent-{p.name}")
    b.ok("receive", str(b.dirs["host"]), files[1], "--key", b.key("host"), "--out", str(shared))
    assert sorted(p.name for p in shared.glob("view-*.pbem")) == sorted(first)
    # the same receive run again (an interruption) writes the same views: no refusal
    a.ok("receive", str(a.dirs["host"]), files[0], "--key", a.key("host"), "--out",
         str(tmp_path / "again"))


def test_a_wrong_key_and_a_wrong_side_name_the_file_at_fault(tmp_path):
    """The wrong key names the key file (not only the archive); a report of a side the archive
    may not show, or of no side, names the archive. One line each, exit status 1."""
    t = Table(tmp_path)
    t.deliver()
    t.play_one()
    path, to = t.inbox.pop()
    wrong = t.key(t.other(to))
    r = t.run("receive", str(t.dirs[to]), path, "--key", wrong, "--out", str(tmp_path / "x"))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 1 and len(lines) == 1, r.output
    assert lines[0].startswith(f"Error: {wrong}: this key is not {to}'s key"), lines[0]
    for side, why in ((t.other(to), "this archive belongs to"), ("nobody", "unknown side")):
        r = t.run("report", str(t.dirs[to]), "--side", side, "--out", str(tmp_path / "r.txt"))
        lines = r.output.strip().splitlines()
        assert r.exit_code == 1 and len(lines) == 1, r.output
        assert lines[0].startswith(f"Error: {t.dirs[to]}: {why}"), lines[0]


def test_a_view_of_another_game_by_the_same_referee_says_so(tmp_path):
    """A referee hosts two games with one key; a player given the other game's view is told
    it belongs to another game (it said 'carries a different acceptance')."""
    from fixtures.table import snapshot
    from pbem.core.keys import load_private
    from pbem.core.records import read_file, seal

    a, b = (Table(tmp_path / n, mode="hosted") for n in ("a", "b"))
    a.deliver()
    b.deliver()
    b.play_one()
    b.deliver_one()                                   # the referee's views, not delivered
    view, side = next((p, to) for p, to in b.inbox if to != "host")
    f = read_file(view)
    same_key = tmp_path / "b-view-signed-by-a.pbem"        # as if one key hosted both
    same_key.write_text(seal(f.payload, load_private(a.key("host")), name=same_key.name).text)
    before = snapshot(a.dirs[side])
    r = a.run("receive", str(a.dirs[side]), str(same_key), "--key", a.key(side))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 1 and len(lines) == 1, r.output
    assert same_key.name in lines[0] and "belongs to another game" in lines[0], lines[0]
    assert snapshot(a.dirs[side]) == before


def test_a_deleted_stored_file_is_named_not_the_one_after_it(tmp_path):
    """files/0002-... deleted: status and verify name file 2 as missing, exit 1 (they said the
    next file was 'out of order', as if it were at fault)."""
    t = Table(tmp_path)
    for _ in range(4):
        t.deliver()
        t.play_one()
    t.deliver()
    gone = next((t.dirs["red"] / "files").glob("0002-*.pbem"))
    gone.unlink()
    shutil.rmtree(t.dirs["red"] / "cache", ignore_errors=True)
    for args in (["status", str(t.dirs["red"])], ["verify", str(t.dirs["red"])]):
        r = t.run(*args)
        errors = [ln for ln in r.output.strip().splitlines() if ln.startswith("Error:")]
        assert r.exit_code == 1 and len(errors) == 1, r.output
        assert "turn file 2 is missing" in errors[0], errors[0]


def test_status_of_many_archives_is_one_line_each_and_goes_on_past_a_bad_one(tmp_path):
    """A referee's or club player's many games: `pbem status A B C...` gives one line per
    archive (game, scenario, turn, who must act, the archive's own party first), a folder that
    is no archive is one line naming it, the others are still listed, and the exit status is 1.
    --json gives a list of the single-archive objects, each with its directory."""
    from fixtures.table import snapshot

    started = Table(tmp_path / "started")
    started.deliver()
    hosted = Table(tmp_path / "hosted", mode="hosted")
    hosted.deliver()
    waiting = Table(tmp_path / "waiting")                 # red waits for blue's acceptance
    over = Table(tmp_path / "over")
    over.play_to_end()
    (tmp_path / "junk").mkdir()
    dirs = [started.dirs["red"], started.dirs["blue"], hosted.dirs["host"], hosted.dirs["red"],
            waiting.dirs["red"], tmp_path / "junk", over.dirs["blue"]]
    before = {d: snapshot(d) for d in dirs}
    r = started.run("status", *map(str, dirs))
    assert r.exit_code == 1, r.output
    lines = r.output.splitlines()
    assert len(lines) == len(dirs), r.output
    by_dir = {d: next(ln for ln in lines if ln.startswith(f"{d}")) for d in dirs}
    assert "dash short, turn" in by_dir[dirs[0]]
    assert "YOU (red) must act: Pick a secret codeword" in by_dir[dirs[0]]
    assert by_dir[dirs[1]].endswith("waiting for red"), by_dir[dirs[1]]
    assert "waiting for" in by_dir[dirs[2]] and "YOU" not in by_dir[dirs[2]]
    assert "YOU (red) must act" in by_dir[dirs[3]], by_dir[dirs[3]]
    assert by_dir[dirs[4]].endswith("not started, waiting for acceptance from blue")
    assert "not a pbem archive" in by_dir[dirs[5]]
    last = by_dir[dirs[6]]
    assert ", over, " in last and ("wins" in last or "a draw" in last), last
    assert {d: snapshot(d) for d in dirs} == before
    r = started.run("status", "--json", *map(str, dirs))
    assert r.exit_code == 1
    data = json.loads(r.output.splitlines()[-1])
    assert [x["directory"] for x in data] == [str(d) for d in dirs]
    assert data[0]["pending"] == ["red"] and data[0]["scenario"] == "short"
    assert data[3]["mode"] == "hosted" and data[3]["scenario"] == "short"
    assert "not a pbem archive" in data[5]["error"] and "pending" not in data[5]
    single = json.loads(started.ok("status", str(dirs[0]), "--json").output)
    assert {k: v for k, v in data[0].items() if k != "directory"} == single
    # every archive readable: exit 0
    assert started.run("status", str(dirs[0]), str(dirs[1])).exit_code == 0


@pytest.mark.parametrize("where", ["files", "secret", "cache", "archive.json", "Files."])
def test_an_out_path_among_the_archive_s_own_files_is_refused(tmp_path, where):
    """`--out game/files/0001-...pbem` replaced a stored signed file, and verify then called
    the archive forged (exit 3). submit, receive and join now refuse an output among the
    archive's own files in one line naming it, exit 1, nothing signed or stored; an output
    elsewhere in the folder (its reports) is still written."""
    from fixtures.table import snapshot

    t = Table(tmp_path)
    t.deliver()
    side = t.mover()
    d = t.dirs[side]
    stored = sorted((d / "files").iterdir())[0]
    target = {"files": stored, "secret": d / "secret" / "x.pbem", "cache": d / "cache" / "y",
              "archive.json": d / "archive.json",     # one name on macOS and Windows:
              "Files.": d / "Files." / stored.name}[where]
    orders = tmp_path / "o.txt"
    t.ok("bot", str(d), "--side", side, "--out", str(orders), "--seed", "1")
    before = snapshot(d)
    r = t.run("submit", str(d), str(orders), "--key", t.key(side), "--out", str(target))
    assert r.exit_code == 1 and str(target) in r.output and "outside the archive" in r.output
    assert len(r.output.splitlines()) == 1, r.output
    assert snapshot(d) == before
    for cmd in (["bot", str(d), "--side", side], ["report", str(d), "--side", side],
                ["export", str(d)], ["replay", str(d)], ["log", str(d)]):
        r = t.run(*cmd, "--out", str(target))
        assert r.exit_code == 1 and "outside the archive" in r.output, (cmd, r.output)
    assert snapshot(d) == before
    assert "OK" in t.ok("verify", str(d)).output
    out = d / "reports" / "mine.pbem"
    t.ok("submit", str(d), str(orders), "--key", t.key(side), "--out", str(out))
    other = t.other(side)
    before = snapshot(t.dirs[other])
    bad_reply = t.dirs[other] / "files" / "reply.pbem"
    r = t.run("receive", str(t.dirs[other]), str(out), "--key", t.key(other),
              "--out", str(bad_reply))
    assert r.exit_code == 1 and "outside the archive" in r.output and snapshot(t.dirs[other]) \
        == before


def test_a_decision_answered_by_an_automatic_reply_is_not_asked_again_in_the_report(tmp_path):
    """In a sealed game a standing order answers a reaction through an automatic reply, whose
    dice wait for the other side's next file; the report written with it showed the answered
    reaction as 'YOUR DECISION' with the commands to answer it (a player trial). It shows it
    answered, waiting for the other side. (Seeded games, searched in order: deterministic.)"""
    import re

    from fixtures.seeded import seeded
    from pbem.protocol import ops

    for seed in range(6):
        with seeded(f"auto-reply-{seed}"):          # keys and dice secrets: the game's dice
            t = Table(tmp_path / f"seed-{seed}", game="kasserine", scenario="historical",
                      mode="sealed", sides=("axis", "us"))
        seen = 0
        for _ in range(40):
            t.deliver_one() if t.inbox else t.play_one()
            for side in t.sides:
                s = ops.open_session(t.dirs[side], key_path=t.key(side))
                text = (t.dirs[side] / "reports" / side / "latest.txt").read_text()
                after = int(re.search(r"after file #(\d+)", text).group(1))
                own = [q for q in s.unresolved() if s.ledger.sender(q) == side]
                if own and own[-1] == after and side in {d.side for d in
                                                         s.game.pending(s.state)}:
                    seen += 1
                    assert "YOUR DECISION" not in text and "HOW TO ANSWER" not in text, \
                        text[:900]
                    assert f"{side} answered this in file {after}" in text, text[:900]
            if seen:
                return
    raise AssertionError("no automatic reply waited for its dice in the seeded games")


def _kasserine_with_standing_orders(tmp_path):
    """A sealed Kasserine game at its first decision: the table, the side to move and its bot
    orders with two standing orders first."""
    t = Table(tmp_path, game="kasserine", scenario="historical", mode="sealed",
              sides=("axis", "us"))
    t.deliver()
    side = t.mover()
    orders = tmp_path / "o.txt"
    t.ok("bot", str(t.dirs[side]), "--side", side, "--out", str(orders), "--seed", "1")
    lines = [ln for ln in orders.read_text().splitlines() if not ln.startswith("standing")]
    return t, side, ["standing support match", "standing stiff never", *lines]


def test_a_sealed_side_s_own_standing_orders_are_in_its_own_report(tmp_path):
    """A sealed game's standing stores stay empty (a policy is its owner's secret), so the
    owner's report showed none of its standing orders; it shows them, and the other side's
    report none of them."""
    t, side, lines = _kasserine_with_standing_orders(tmp_path)
    t.play_one(lines)
    t.deliver()
    mine = (t.dirs[side] / "reports" / side / "latest.txt").read_text()
    assert "YOUR STANDING ORDERS" in mine and "standing support match" in mine, mine[-1500:]
    theirs = (t.dirs[t.other(side)] / "reports" / t.other(side) / "latest.txt").read_text()
    assert "support match" not in theirs


def test_a_changed_standing_order_does_not_show_in_the_commitment_versions(tmp_path):
    """Kasserine's hidden facts are its standing orders: every file of a side commits each of
    them again, changed or not, so the public versions never say which one changed."""
    from pbem.core.records import read_file

    t, side, lines = _kasserine_with_standing_orders(tmp_path)
    t.play_one(lines)
    for _ in range(12):                        # on to the side's next file (no change)
        t.deliver()
        if t.mover() == side:
            t.play_one()
            break
        t.play_one()
    files = sorted((t.dirs[side] / "files").glob(f"*-{side}.pbem"))
    commits = [{c.fact: c.version for c in read_file(f).payload.commits or []} for f in files]
    firsts = [c for c in commits if "standing.support" in c]
    assert len(firsts) >= 2, commits
    assert [c["standing.support"] for c in firsts[:2]] == [0, 1]
    assert all(set(firsts[0]) <= set(c) for c in firsts[1:]), commits


def test_check_refuses_what_submit_would_refuse_before_the_opponent_s_file(tmp_path):
    """A newcomer's check passed (exit 0, orders 'wait') before the opponent's file had been
    received; submit then refused. check now fails the same way, says to receive the file,
    and still reports the orders' own problems."""
    t = Table(tmp_path)
    t.deliver()
    side = t.other(t.mover())
    d = t.dirs[side]
    orders = tmp_path / "o.txt"
    orders.write_text("end\n")
    r = t.run("check", str(d), str(orders))
    assert r.exit_code == 1 and "no decision to make now" in r.output, r.output
    assert f"pbem receive {d}" in r.output
    s = t.run("submit", str(d), str(orders), "--key", t.key(side), "--out", str(tmp_path / "x"))
    assert s.exit_code == 1 and "no decision to make now" in s.output
    orders.write_text("frobnicate\nend\n")
    r = t.run("check", str(d), str(orders))
    assert r.exit_code == 1 and "frobnicate" in r.output and "no decision" in r.output


def test_newcomer_mistakes_get_a_line_that_says_what_to_do(tmp_path):
    """The arguments of receive swapped said 'FILE/archive.json: damaged (Not a directory)';
    check or submit before the acceptance arrived said only that the game id was not known."""
    from pbem.cli import cli
    from click.testing import CliRunner

    runner = CliRunner()
    keys = tmp_path / "keys"
    for p in ("red", "blue"):
        assert runner.invoke(cli, ["keygen", p, "--dir", str(keys), "--no-passphrase"]).exit_code == 0
    red = tmp_path / "red"
    r = runner.invoke(cli, ["new", "dash", "short", str(red), "--side", "red", "--key",
                            str(keys / "red.key"), "--opponent", str(keys / "blue.pub"),
                            "--out", str(tmp_path / "p.pbem")])
    assert r.exit_code == 0, r.output
    orders = tmp_path / "o.txt"
    orders.write_text("end\n")
    for cmd in (["check", str(red), str(orders)],
                ["submit", str(red), str(orders), "--key", str(keys / "red.key"), "--out",
                 str(tmp_path / "x.pbem")]):
        r = runner.invoke(cli, cmd)
        assert r.exit_code == 1 and len(r.output.strip().splitlines()) == 1, r.output
        assert f"{red}: the game has not started: waiting for the acceptance of blue" in r.output
        assert f"pbem receive {red} FILE" in r.output
    r = runner.invoke(cli, ["receive", str(tmp_path / "p.pbem"), str(red), "--key",
                            str(keys / "red.key")])
    assert r.exit_code == 1 and "a file, not an archive folder" in r.output, r.output
    assert "damaged" not in r.output


def test_report_command_shows_the_latest_file_or_says_it_needs_the_key(tmp_path):
    """`pbem report` replayed without the key, so it stopped before a received file whose dice
    need the receiver's share and printed the report one file behind without a word (a rules
    trial). With --key it shows what receive showed; without, it says (on standard error)
    which file it is as of and that the key gives the latest."""
    import re

    t = Table(tmp_path)
    refused = 0
    for _ in range(40):
        t.deliver()
        if t.mover() is None:
            break
        for side in t.sides:
            d = t.dirs[side]
            latest = (d / "reports" / side / "latest.txt").read_text()
            shown = re.search(r"after file #(\d+)", latest)
            r = t.ok("report", str(d), "--side", side, "--key", t.key(side))
            assert shown is None or shown.group(0) in r.output, (side, r.output[:300])
            r = t.ok("report", str(d), "--side", side)
            if r.stderr:
                refused += 1
                assert "give --key KEY for the latest" in r.stderr
                assert len(r.stderr.strip().splitlines()) == 1 and shown is not None
                assert shown.group(0) not in r.stdout        # one file behind, and it says so
            else:
                assert shown is None or shown.group(0) in r.stdout
        t.play_one()
    assert refused, "no received file waited for its receiver's dice share"


def test_after_submit_the_newest_report_no_longer_asks_the_answered_question(tmp_path):
    """A peer file whose dice wait for the opponent's reveal resolves nothing when submitted;
    the newest report (latest.txt) still asked the decision it answers, with the commands to
    answer it (noted in session reviews). Submit now writes it showing the answer waiting."""
    from pbem.protocol import ops

    t = Table(tmp_path, game="kasserine", scenario="historical", sides=("axis", "us"))
    for _ in range(60):
        t.deliver()
        side = t.mover()
        assert side is not None, "the game ended first"
        t.play_one()
        s = ops.open_session(t.dirs[side], key_path=t.key(side))
        if s.unresolved() and side in {d.side for d in s.game.pending(s.state)}:
            text = (t.dirs[side] / "reports" / side / "latest.txt").read_text()
            assert "YOUR DECISION" not in text and "HOW TO ANSWER" not in text, text[:900]
            assert f"{side} answered this in file {s.unresolved()[-1]}" in text, text[:900]
            return
    raise AssertionError("no submitted file waited for its dice")
