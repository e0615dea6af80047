"""The exchange for activation games (issue 9): continuation, standing orders, the peer sender
rule with automatic replies only when needed, checking every order, views only when owed, and
the file counts of a toy game on a map of two sheets with two reactions per activation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fixtures.table import Table, snapshot
from pbem.core.keys import load_private
from pbem.core.records import Turn, read_file, seal
from pbem.protocol.demo import play_demo
from pbem.protocol.session import load


def _turn_files(root: Path) -> list[Turn]:
    return [read_file(p).payload for p in sorted((root / "files").glob("[0-9]*-*.pbem"))
            if "-accept-" not in p.name and "proposal" not in p.name]


def _orders(t: Table, lines: list[str]) -> str:
    t.n += 1
    p = t.tmp / f"orders-{t.n}.txt"
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def _submit(t: Table, side: str, lines: list[str]) -> str:
    out = t.mail(f"turn-{side}")
    r = t.ok("submit", str(t.dirs[side]), _orders(t, lines), "--key", t.key(side), "--out", out)
    t.inbox.append((out, t.other(side)))
    return r.output


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_toy_two_sheet_game_file_counts_peer(tmp_path, seed, capsys):
    """A whole game bot against bot: about two files per game turn although every game turn
    has eight reactions, almost no file without orders, and both archives verify."""
    play_demo(tmp_path / "g", game_name="patrol", scenario="long", seed=seed)
    turns = _turn_files(tmp_path / "g" / "red")
    s = load(tmp_path / "g" / "red")
    game_turns = s.game.turn(s.state)
    empty = sum(1 for t in turns if not t.orders)
    per_turn = len(turns) / game_turns
    with capsys.disabled():
        print(f"\npatrol peer seed {seed}: {len(turns)} files for {game_turns} game turns "
              f"({per_turn:.2f} per turn), {empty} without orders")
    assert s.over and game_turns == 6
    assert per_turn <= 2.5
    # at most: the reply before the reacting side has set its standing orders, and the final
    # reveal of the last file's dice
    assert empty <= 2


@pytest.mark.parametrize("game,scenario,limit", [("kasserine", "historical", 4.0),
                                                 ("holdfast", "campaign", 2.5)])
@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_real_games_file_counts(tmp_path, game, scenario, limit, mode, capsys):
    """The measures of docs/performance.md over three bot games each (dice differ from game to
    game: every game draws fresh dice secrets): files per game turn (peer: every file; hosted:
    what each player sends and receives) and the share of files without orders."""
    files = empty = turns_played = 0
    per_side: dict[str, int] = {}
    for seed in (1, 2, 3):
        root = tmp_path / f"g{seed}"
        play_demo(root, game_name=game, scenario=scenario, seed=seed, mode=mode)
        s = load(root / ("referee" if mode == "hosted" else "axis"))
        turns_played += s.game.turn(s.state)
        if mode == "peer":
            turns = _turn_files(root / "axis")
            files += len(turns)
            empty += sum(1 for t in turns if not t.orders)
            continue
        mail = sorted((root / "mail").glob("*.pbem"))
        for side in s.game.sides:
            per_side[side] = per_side.get(side, 0) + sum(
                1 for p in mail if f"-{side}-turn" in p.name
                or p.name.startswith(f"view-{side}-"))
    with capsys.disabled():
        if mode == "peer":
            print(f"\n{game} peer, 3 games: {files} files, {turns_played} game turns "
                  f"({files / turns_played:.2f} per turn), {empty} without orders "
                  f"({100 * empty / files:.0f}%)")
        else:
            print(f"\n{game} hosted, 3 games, {turns_played} game turns: " + ", ".join(
                f"{side} {n} files ({n / turns_played:.2f} per turn)"
                for side, n in per_side.items()))
    if mode == "peer":
        assert files / turns_played <= limit and empty / files < 0.10
    else:
        assert all(n / turns_played <= limit for n in per_side.values())


def test_toy_two_sheet_game_file_counts_hosted(tmp_path, capsys):
    """Hosted: each player sends its file and gets a view only when it must decide."""
    play_demo(tmp_path / "g", game_name="patrol", scenario="long", seed=4, mode="hosted")
    mail = sorted((tmp_path / "g" / "mail").glob("*.pbem"))
    s = load(tmp_path / "g" / "referee")
    for side in ("red", "blue"):
        sent = [p for p in mail if f"-{side}-turn" in p.name]
        views = [p for p in mail if p.name.startswith(f"view-{side}-")]
        per_turn = (len(sent) + len(views)) / s.game.turn(s.state)
        with capsys.disabled():
            print(f"\npatrol hosted {side}: sends {len(sent)}, receives {len(views)} views: "
                  f"{per_turn:.2f} per game turn")
        assert per_turn <= 4


def test_orders_after_a_wait_are_held_and_resume_with_the_answer(tmp_path):
    """Red writes its whole turn; blue has no standing orders, so red's orders after the first
    move wait for blue's reactions and resume, in order, when blue's file answers them."""
    t = Table(tmp_path, game="patrol")
    t.deliver()
    lines = ["move r1 A2.03", "shoot", "move r2 A5.03", "shoot", "end"]
    r = t.ok("check", str(t.dirs["red"]), _orders(t, lines))
    assert "Orders on lines 2, 3, 4, 5 wait" in r.output and "a decision of blue" in r.output
    assert "watch" in r.output, r.output
    _submit(t, "red", lines)
    t.deliver()
    st = t.status("blue")
    assert st["pending"] == ["blue"] and "watch" in st["decisions"][0]["what"]
    # Blue answers both activations ahead; red's held orders interleave with them.
    _submit(t, "blue", ["watch hold", "alert no", "watch hold", "alert yes"])
    t.deliver()
    s = load(t.dirs["red"], key=load_private(t.key("red")))
    assert s.state.units["r1"].hex == "A2.03" and s.state.units["r2"].hex == "A5.03"
    assert s.state.active == "blue" and s.state.step == "move" and not s.held
    log = [e.text for f in s.log for e in f.events]
    assert any("wait for" in x for x in log)
    assert sum("shoots" in x for x in log) == 2
    for side in t.sides:
        t.ok("verify", str(t.dirs[side]))


def test_standing_orders_answer_reactions_and_stay_hidden(tmp_path):
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["standing watch hold", "standing alert no", "move r1 A2.03"])
    t.deliver()
    _submit(t, "blue", ["standing watch fire", "standing alert yes", "watch hold", "alert no"])
    t.deliver()
    _submit(t, "red", ["shoot", "move r2 A5.03", "shoot", "end"])   # blue's standing answers
    t.deliver()
    s = load(t.dirs["blue"], key=load_private(t.key("blue")))
    assert s.state.active == "blue" and s.state.private["blue"].standing == {
        "watch": "fire", "alert": "yes"}
    red_view = s.game.view(s.state, "red")
    assert red_view.standing == {"watch": "hold", "alert": "no"}
    red_reports = "".join(p.read_text() for p in (t.dirs["red"] / "reports").rglob("*.*")
                          if p.suffix in (".txt", ".html"))
    assert "standing watch fire" not in red_reports
    r = t.run("check", str(t.dirs["blue"]), _orders(t, ["standing watch sometimes"]))
    assert r.exit_code != 0 and "modes: fire, hold, ask" in r.output


def test_a_side_may_not_send_again_before_its_dice_are_revealed(tmp_path):
    """Red's file rolls dice and red decides again: red may not send another file until blue
    has revealed its share (blue owes an automatic reply); a forged second file is refused
    with a one-line error and blue's archive is untouched."""
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["standing watch hold", "standing alert no", "move r1 A2.03"])
    t.deliver()
    _submit(t, "blue", ["standing watch hold", "standing alert no", "watch hold", "alert no"])
    t.deliver()
    _submit(t, "red", ["shoot"])                 # rolls; red then moves again
    r = t.run("submit", str(t.dirs["red"]), _orders(t, ["move r2 A5.03"]), "--key",
              t.key("red"), "--out", str(tmp_path / "no.pbem"))
    assert r.exit_code != 0 and "waiting for the opponent's reply" in r.output
    red = load(t.dirs["red"], key=load_private(t.key("red")))
    last = red.ledger.files[-1]
    forged = Turn(game_id=red.genesis.game_id, seq=red.ledger.tip_seq + 1, prev=last.hash,
                  sender="red", reveal=red.own.main.element(red.ledger.tip_seq + 1).hex(),
                  results=last.payload.results, orders=["move r2 A5.03"])
    f = seal(forged, load_private(t.key("red")), name="forged.pbem")
    path, _ = t.inbox.pop()                       # deliver the real file first
    t.ok("receive", str(t.dirs["blue"]), path, "--key", t.key("blue"), "--out",
         str(tmp_path / "reply.pbem"))
    (tmp_path / "forged.pbem").write_text(f.text)
    before = snapshot(t.dirs["blue"])
    r = t.run("receive", str(t.dirs["blue"]), str(tmp_path / "forged.pbem"), "--key",
              t.key("blue"), "--out", str(tmp_path / "x.pbem"))
    assert r.exit_code != 0
    assert "out of turn" in r.output or "out of order" in r.output or "stale" in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert snapshot(t.dirs["blue"]) == before


def test_a_file_from_a_side_with_nothing_to_decide_is_out_of_turn(tmp_path):
    """Blue has no decision and owes no reveal (red's file rolled nothing): a file from blue is
    refused as out of turn by red's processor, which keeps its archive untouched."""
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["standing watch hold", "move r1 A2.03"])
    t.deliver()
    _submit(t, "blue", ["watch hold", "alert no"])   # no dice; red must decide (shot)
    t.deliver()
    blue = load(t.dirs["blue"], key=load_private(t.key("blue")))
    assert blue.pending_sides == {"red"}
    forged = Turn(game_id=blue.genesis.game_id, seq=blue.ledger.tip_seq + 1,
                  prev=blue.ledger.tip_hash, sender="blue",
                  reveal=blue.own.main.element(blue.ledger.tip_seq + 1).hex(),
                  results=blue.results[blue.ledger.tip_seq], orders=[])
    f = seal(forged, load_private(t.key("blue")), name="x.pbem")
    (tmp_path / "x.pbem").write_text(f.text)
    before = snapshot(t.dirs["red"])
    r = t.run("receive", str(t.dirs["red"]), str(tmp_path / "x.pbem"), "--key", t.key("red"),
              "--out", str(tmp_path / "y.pbem"))
    assert r.exit_code != 0 and "out of turn" in r.output, r.output
    assert snapshot(t.dirs["red"]) == before


def test_check_reports_every_problem_not_only_the_first(tmp_path):
    t = Table(tmp_path, game="patrol")
    t.deliver()
    lines = ["move r9 A1.01", "move r2 Z9.99", "standing watch hold", "move r1 A2.03"]
    r = t.run("check", str(t.dirs["red"]), _orders(t, lines))
    assert r.exit_code != 0
    assert "line 1" in r.output and "r9 is not one of your units" in r.output
    assert "line 2" in r.output and "Z9.99" in r.output
    # after a roll: an order illegal whatever the dice is still reported
    t2 = Table(tmp_path / "b", game="patrol")
    t2.deliver()
    _submit(t2, "red", ["standing watch hold", "standing alert no", "move r1 A2.03"])
    t2.deliver()
    _submit(t2, "blue", ["standing watch hold", "standing alert no", "watch hold", "alert no"])
    t2.deliver()
    r = t2.run("check", str(t2.dirs["red"]), _orders(t2, ["shoot", "move r1 A2.02",
                                                         "move r2 A5.03", "end"]))
    assert r.exit_code != 0
    assert "r1 has already moved this turn" in r.output and "whatever the dice" in r.output
    r = t2.ok("check", str(t2.dirs["red"]), _orders(t2, ["shoot", "move r2 A5.03", "skip",
                                                        "end"]))
    assert "come after dice" in r.output


def test_hosted_views_only_when_owed_and_a_withheld_view_is_caught(tmp_path):
    t = Table(tmp_path, game="patrol", mode="hosted")
    t.play_to_end()
    ref = t.dirs["host"]
    t.ok("verify", str(ref))
    kept = sorted((ref / "files").glob("view-*.pbem"))
    s = load(ref)
    records = s.ledger.tip_seq // 2
    assert len(kept) < 2 * (records + 1), "not every step sends both sides a view"
    # A referee that drops a view a player was owed is caught by verify.
    pending_view = None
    for p in kept:
        v = read_file(p).payload
        st = s.states[v.seq]
        if v.seq > 0 and v.side in {d.side for d in s.game.pending(st)}:
            pending_view = p
            break
    assert pending_view is not None
    p = pending_view
    shutil.move(str(p), str(tmp_path / p.name))
    r = t.run("verify", str(ref))
    assert r.exit_code != 0 and "owed" in r.output and "kept none" in r.output, r.output


def test_status_json_lists_every_side_that_owes_a_file(tmp_path):
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["standing watch hold", "standing alert no", "move r1 A2.03"])
    t.deliver()
    _submit(t, "blue", ["standing watch hold", "standing alert no", "watch hold", "alert no"])
    t.deliver()
    _submit(t, "red", ["shoot"])                 # rolls: blue owes the reply
    path, _ = t.inbox.pop()
    # Red's own status: blocked, waiting for blue's reply.
    st = json.loads(t.ok("status", str(t.dirs["red"]), "--json").output)
    assert "blue" in st["pending"]
    # Blue, before receiving, is owed nothing yet; after receiving it writes the reply at once.
    out = tmp_path / "reply.pbem"
    r = t.ok("receive", str(t.dirs["blue"]), path, "--key", t.key("blue"), "--out", str(out))
    assert out.exists() and "Reply file" in r.output


def test_a_side_whose_file_rolled_nothing_sends_again_without_a_reply(tmp_path):
    """No dice to reveal, so no automatic reply: red decides again and sends the next file."""
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["move r1 A2.03"])
    t.deliver()
    _submit(t, "blue", ["standing watch hold", "standing alert no", "watch hold", "alert no"])
    r = t.ok("receive", str(t.dirs["red"]), t.inbox.pop()[0], "--key", t.key("red"),
             "--out", str(tmp_path / "none.pbem"))
    assert not (tmp_path / "none.pbem").exists() and "Reply file" not in r.output
    _submit(t, "red", ["skip", "pass"])          # file 3: no dice, red moves again next
    t.deliver()
    assert not any(p for p, _ in t.inbox)
    _submit(t, "red", ["move r2 A5.03", "skip", "end"])   # file 4, red again
    t.deliver()
    senders = [x.sender for x in _turn_files(t.dirs["blue"])]
    assert senders == ["red", "blue", "red", "red"]
    for side in t.sides:
        t.ok("verify", str(t.dirs[side]))


def test_an_archive_of_an_older_rules_version_names_the_version_it_needs(tmp_path, monkeypatch):
    """The exchange rules changed with this version (held orders, the sender rule): an archive
    made before says which rules version it needs, in one line, instead of failing a replay."""
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["move r1 A2.03"])
    t.deliver()
    from fixtures.patrolgame import GAME

    monkeypatch.setattr(GAME, "rules_version", "0-old")
    r = t.run("verify", str(t.dirs["red"]))
    assert r.exit_code != 0
    assert "rules version 1" in r.output and "this pbem has 0-old" in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1


def test_the_dice_commitment_length_is_set_per_game_and_scenario(tmp_path):
    t = Table(tmp_path, game="patrol")
    s = load(t.dirs["blue"])
    assert set(s.genesis.lengths.values()) == {64}
    t2 = Table(tmp_path / "b", game="patrol", scenario="long")
    assert set(load(t2.dirs["blue"]).genesis.lengths.values()) == {256}
    t3 = Table(tmp_path / "c")                          # Dash declares none: the default
    assert set(load(t3.dirs["blue"]).genesis.lengths.values()) == {4096}


def test_guarded_orders_choose_on_the_writers_own_view_after_the_dice(tmp_path):
    """'if CONDITION then ORDER else ORDER': the condition reads a result the writer could not
    know (its score after its own shot); the resolver evaluates it on the writer's view, logs
    the branch for the writer only, and the signed file holds the canonical text."""
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["standing watch hold", "standing alert no", "move r1 A2.03"])
    t.deliver()
    _submit(t, "blue", ["standing watch hold", "standing alert no", "watch hold", "alert no"])
    t.deliver()
    out = _submit(t, "red", ["shoot", "move r2 A5.03",
                             "if  score red >=  01 then skip else shoot", "end"])
    assert "come after dice" in out
    t.deliver()
    # blue's processor resolves red's file on receipt (red sees it with blue's next file)
    s = load(t.dirs["blue"], key=load_private(t.key("blue")))
    sent = [f for f in s.ledger.files if f.payload.sender == "red"][-1].payload
    assert sent.orders[2] == "if score red >= 1 then skip else shoot"
    guard = [e for f in s.log for e in f.events if e.kind == "guard"]
    assert len(guard) == 1 and guard[0].visible_to == "red"
    shots = [e.text for f in s.log for e in f.events if "shoots" in e.text]
    first_hit = "hit" in shots[0].split(":")[1]
    assert ("yes -> 'skip'" in guard[0].text) == first_hit
    assert len(shots) == (1 if first_hit else 2)
    blue_reports = "".join(p.read_text() for p in (t.dirs["blue"] / "reports").rglob("*.txt"))
    assert "if score red" not in blue_reports
    r = t.run("check", str(t.dirs["red"]), _orders(t, ["if banana then pass"]))
    assert r.exit_code != 0 and "unknown condition 'banana'" in r.output
    lines = r.output.strip().splitlines()     # the problem, and that submit must wait
    assert len(lines) == 2 and "banana" in lines[0] and "waiting for the opponent" in lines[1]


def test_standing_orders_ride_in_an_automatic_reply(tmp_path):
    """Blue owes only a dice reveal: the standing orders it queued ride in that automatic
    reply, so it changes how it reacts without a decision of its own."""
    t = _blue_owes_a_reply(tmp_path)
    bad = t.run("standing", str(t.dirs["blue"]), _orders(t, ["watch fire"]))
    assert bad.exit_code != 0 and "not a standing order" in bad.output
    r = t.ok("standing", str(t.dirs["blue"]), _orders(t, ["standing watch fire"]))
    assert "standing watch fire" in r.output
    path, _ = t.inbox.pop()
    out = tmp_path / "reply.pbem"
    t.ok("receive", str(t.dirs["blue"]), path, "--key", t.key("blue"), "--out", str(out))
    assert read_file(out).payload.orders == ["standing watch fire"]
    assert not (t.dirs["blue"] / "queue" / "standing.txt").exists()
    t.ok("receive", str(t.dirs["red"]), str(out), "--key", t.key("red"))
    s = load(t.dirs["red"], key=load_private(t.key("red")))
    assert s.state.private["blue"].standing["watch"] == "fire"
    for side in t.sides:
        t.ok("verify", str(t.dirs[side]))


def test_a_hand_edited_queue_line_is_refused_before_anything_is_stored(tmp_path):
    """A line of queue/standing.txt that is not a standing order (the queue is pbem's own file;
    a hand edit) fails receive and submit in one line naming the queue file and the line,
    before the received file is stored: the archive is untouched."""
    t = _blue_owes_a_reply(tmp_path)
    queue = t.dirs["blue"] / "queue" / "standing.txt"
    queue.parent.mkdir(exist_ok=True)
    queue.write_text("standing watch fire\nstanding foo bar\n")
    before = snapshot(t.dirs["blue"])
    path, _ = t.inbox.pop()
    r = t.run("receive", str(t.dirs["blue"]), path, "--key", t.key("blue"), "--out",
              str(tmp_path / "reply.pbem"))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 1 and len(lines) == 1, r.output
    assert str(queue) in lines[0] and "line 2" in lines[0] and "'standing foo bar'" in lines[0]
    assert snapshot(t.dirs["blue"]) == before and not (tmp_path / "reply.pbem").exists()
    queue.write_text("standing watch fire\n")
    t.ok("receive", str(t.dirs["blue"]), path, "--key", t.key("blue"), "--out",
         str(tmp_path / "reply.pbem"))
    assert read_file(tmp_path / "reply.pbem").payload.orders == ["standing watch fire"]


def test_nothing_is_signed_by_mistake(tmp_path):
    """Issue 11 item 6: an empty orders file, or one that stops while the side still decides
    (nothing rolled, nothing waiting: a forgotten 'end'), is refused by check and submit with
    the reason, unless the player writes 'pass' (never signed itself)."""
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["standing watch hold", "move r1 A2.03"])
    t.deliver()
    _submit(t, "blue", ["standing watch hold", "standing alert no", "watch hold", "alert no"])
    t.deliver()
    red = str(t.dirs["red"])
    for lines, why in (([], "no orders"), (["# nothing yet"], "no orders"),
                       (["skip", "move r2 A5.03", "skip"], "still have a decision")):
        before = snapshot(t.dirs["red"])
        r = t.run("check", red, _orders(t, lines))
        assert r.exit_code == 1 and why in r.output and "'pass'" in r.output, r.output
        r = t.run("submit", red, _orders(t, lines), "--key", t.key("red"), "--out",
                  str(tmp_path / "no.pbem"))
        assert r.exit_code == 1 and why in r.output and not (tmp_path / "no.pbem").exists()
        assert snapshot(t.dirs["red"]) == before
    out = _submit(t, "red", ["skip", "move r2 A5.03", "skip", "pass"])
    assert "File 3 signed with 3 orders" in out
    sent = read_file(t.inbox[-1][0]).payload
    assert sent.orders == ["skip", "move r2 A5.03", "skip"]


def test_the_joiner_gets_its_first_report_and_status_reminds_of_an_unsent_file(tmp_path):
    """Issue 11: a peer joiner who decides first has its report at once (no receive needed),
    and `status` reminds a player whose file is the last one to send it."""
    t = Table(tmp_path, game="patrol", sides=("blue", "red"))   # blue proposes, red joins
    assert (t.dirs["red"] / "reports" / "red" / "index.html").is_file()
    text = next((t.dirs["red"] / "reports" / "red").glob("0000.txt")).read_text()
    assert "move UNIT HEX" in text                # red moves first: its decision is there
    t.deliver()
    _submit(t, "red", ["standing watch hold", "move r1 A2.03"])
    r = t.ok("status", str(t.dirs["red"]))
    assert "Your file 1 is the last one in the game" in r.output and "send it now" in r.output
    t.deliver()
    r = t.ok("status", str(t.dirs["red"]))
    assert "is the last one" in r.output          # blue has not answered yet
    _submit(t, "blue", ["watch hold", "alert no"])
    t.deliver()
    assert "is the last one" not in t.ok("status", str(t.dirs["red"])).output


def test_an_own_line_refused_once_the_other_sides_held_orders_resume_names_the_orders_file(
        tmp_path):
    """Blue's third line could only be held by the check (red's orders wait in red's file);
    once red's held orders run on, no alert is asked: submit refuses in one line naming blue's
    orders file, the line and what ran before it, as a player error (not exit 3, which says
    a signed file cheats), and nothing is signed or stored."""
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["move r1 A2.03", "skip", "end"])
    t.deliver()
    before = snapshot(t.dirs["blue"])
    orders = _orders(t, ["watch hold", "alert no", "alert yes"])
    r = t.run("submit", str(t.dirs["blue"]), orders, "--key", t.key("blue"), "--out",
              str(tmp_path / "no.pbem"))
    assert r.exit_code == 1, r.output
    assert r.output.startswith(f"Error: {Path(orders).name}: line 3: 'alert yes': "), r.output
    assert "the other side's orders waiting in its file were carried out" in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1, r.output
    assert snapshot(t.dirs["blue"]) == before and not (tmp_path / "no.pbem").exists()
    _submit(t, "blue", ["watch hold", "alert no"])
    t.deliver()
    for side in t.sides:
        t.ok("verify", str(t.dirs[side]))


def test_the_unfinished_decision_hint_names_the_decision_s_own_choices():
    """'finish it (often with end)' was wrong for a decision whose answers are listed (BbF's
    'second | done'): the hint names them."""
    from pbem.core.game import Decision
    from pbem.protocol.checking import _finishing

    d = Decision(side="axis", kind="second", prompt="p", choices=("second", "done"))
    assert _finishing(d) == "one of: second, done"
    assert _finishing(Decision(side="axis", kind="turn", prompt="p")) == "often with 'end'"


def _blue_owes_a_reply(tmp_path: Path) -> Table:
    """A patrol game where red's last file rolled and red decides again: blue owes only a
    dice reveal (an automatic reply)."""
    t = Table(tmp_path, game="patrol")
    t.deliver()
    _submit(t, "red", ["standing watch hold", "standing alert no", "move r1 A2.03"])
    t.deliver()
    _submit(t, "blue", ["standing watch hold", "standing alert no", "watch hold", "alert no"])
    t.deliver()
    _submit(t, "red", ["shoot"])
    return t
