"""Sealed peer mode through the real commands (docs/sealed.md), on the sealed test game Blind:
whole games with final reveals that `pbem verify` replays with full information, nothing of
the other side's unrevealed types in anything a side receives or stores, and the cheats a
sealed game must catch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest

from fixtures.blindgame import BLOCKS, GAME as BLIND
from fixtures.stored import stored_text
from fixtures.table import Table, snapshot
from pbem.core.keys import load_private
from pbem.core.records import Turn, read_file, seal
from pbem.protocol import ops
from pbem.protocol.sealing import private_path
from pbem.protocol.session import load


def _table(tmp_path: Path, seed: int = 7) -> Table:
    t = Table(tmp_path, game="blind", scenario="short", mode="sealed")
    t.rng.seed(seed)
    return t




def _secrets(t: Table, side: str) -> list[str]:
    """side's unrevealed block labels ('r1:tank'), from side's own (knowledge) state."""
    s = ops.open_session(t.dirs[side], key_path=t.key(side))
    return BLIND.secrets(s.state, side)


def _assignment(t: Table, side: str) -> str:
    s = ops.open_session(t.dirs[side], key_path=t.key(side))
    return " ".join(f"{b} {s.state.blocks[b].kind}" for b in BLOCKS[side]
                    if b in s.state.blocks)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_sealed_games_end_with_final_reveals_and_leak_nothing_at_any_step(tmp_path, seed):
    t = _table(tmp_path, seed)
    for _ in range(300):
        t.deliver()
        for side in t.sides:
            other = t.other(side)
            theirs = stored_text(t.dirs[other])
            for secret in _secrets(t, side):
                assert secret not in theirs, f"{other} stores {side}'s hidden {secret}"
            if t.status(side)["over"] is False and _assignment(t, side):
                assert f"assign {_assignment(t, side)}" not in theirs
            assert not private_path(t.dirs[other]).exists() or side not in \
                private_path(t.dirs[other]).read_text()
        if t.mover() is None:
            break
        t.play_one()
    for side in t.sides:
        assert t.status(side)["over"]
        r = t.ok("verify", str(t.dirs[side]))
        assert "both final reveals are in" in r.output, r.output
    finals = [x for x in map(lambda p: read_file(p).payload,
                             sorted((t.dirs["red"] / "files").glob("0*-*.pbem")))
              if isinstance(x, Turn) and x.final]
    assert sorted(x.sender for x in finals) == ["blue", "red"]


def test_files_carry_projections_commitments_and_openings_only(tmp_path):
    t = _table(tmp_path)
    t.deliver()
    t.play_one()                       # red's set-up
    t.deliver()
    first = read_file(next((t.dirs["blue"] / "files").glob("0001-red.pbem"))).payload
    assert first.orders == ["assign hidden"]
    assert sorted(c.fact for c in first.commits) == ["r1.kind", "r2.kind"]
    assert first.openings is msgspec.UNSET
    real = json.loads(private_path(t.dirs["red"]).read_text())["orders"]["1"]
    assert real[0].startswith("assign r1 ") and real[0] != "assign hidden"


# -- cheats -------------------------------------------------------------------------------
def _tank(t: Table, side: str) -> str | None:
    s = ops.open_session(t.dirs[side], key_path=t.key(side))
    for b in BLOCKS[side]:
        blk = s.state.blocks.get(b)
        if blk is not None and blk.kind == "tank" and not blk.moved and not blk.revealed:
            ahead = blk.pos + (3 if side == "red" else -3)
            lo, hi = sorted((blk.pos, ahead))
            if 0 <= ahead <= 9 and not any(o.side != side and lo <= o.pos <= hi
                                           for o in s.state.blocks.values()):
                return b
    return None


def _cheat_and_play_on(tmp_path, monkeypatch) -> str:
    """Red's processor, patched to let a tank move 3, signs such a move; play on. Returns
    'reveal' if blue's processor refused a later file whose openings prove the cheat, 'final'
    if `pbem verify` caught it at the end (each checked for the file and the rule)."""
    t = _table(tmp_path, 3)
    side = t.play_until(lambda s: s == "red" and t.status(s)["pending"] and
                       _tank(t, s) is not None)
    tank = _tank(t, side)
    orders = t.tmp / "cheat.txt"
    orders.write_text(f"move {tank} 3\nend\n")
    r = t.run("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    assert r.exit_code != 0 and "BLIND-2" in r.output       # the cheater's own processor
    from fixtures import blindgame

    with monkeypatch.context() as m:                          # a cheating processor
        m.setitem(blindgame.REACH, "tank", 3)
        out = t.mail("turn-red-cheat")
        t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", out)
    t.inbox.append((out, "blue"))
    t.deliver()                        # blue cannot tell yet: a '?' block may move 3
    cheat = f"0{read_file(out).payload.seq:03d}-red.pbem"
    for _ in range(300):               # play on: caught when the tank is revealed, or at the end
        while t.inbox:
            path, to = t.inbox.pop(0)
            before = snapshot(t.dirs[to])
            reply = t.mail(f"reply-{to}")
            r = t.run("receive", str(t.dirs[to]), path, "--key", t.key(to), "--out", reply)
            if r.exit_code != 0:
                assert r.exit_code == 3 and to == "blue", r.output
                assert "what it opens shows that" in r.output and cheat in r.output, r.output
                assert f"move {tank} 3" in r.output and "BLIND-2" in r.output, r.output
                assert snapshot(t.dirs[to]) == before
                return "reveal"
            if Path(reply).exists():
                t.inbox.append((reply, t.other(to)))
        if t.mover() is None:
            break
        t.play_one()
    r = t.run("verify", str(t.dirs["blue"]))
    assert r.exit_code == 3, r.output
    assert "BLIND-2" in r.output and f"move {tank} 3" in r.output and cheat in r.output
    return "final"


def test_a_hidden_move_beyond_the_rules_is_caught_when_its_unit_is_revealed(tmp_path,
                                                                           monkeypatch):
    """The cheating tank is attacked later (seed 3): the opening of its type proves the
    earlier move illegal, and blue's processor refuses the file, naming the cheat."""
    assert _cheat_and_play_on(tmp_path, monkeypatch) == "reveal"


def test_a_hidden_move_beyond_the_rules_is_caught_by_the_final_replay(tmp_path, monkeypatch):
    """The same cheat against a processor that does not check at the reveal: `pbem verify`
    replays the finished game with full information and names the file and the rule."""
    from pbem.protocol import sealing

    monkeypatch.setattr(sealing, "recheck", lambda s, name: None)
    assert _cheat_and_play_on(tmp_path, monkeypatch) == "final"


def test_an_opening_with_another_value_is_refused(tmp_path):
    t = _table(tmp_path, 5)
    attack = {}

    def ready(side):
        s = ops.open_session(t.dirs[side], key_path=t.key(side))
        for b, blk in s.state.blocks.items():
            for o, ob in s.state.blocks.items():
                if blk.side == side and ob.side != side and not blk.moved and \
                        ob.pos == blk.pos + (1 if side == "red" else -1):
                    attack[side] = (b, o)
                    return True
        return False

    side = t.play_until(ready)
    b, o = attack[side]
    orders = t.tmp / "attack.txt"
    orders.write_text(f"attack {b} {o}\n")
    out = t.mail(f"turn-{side}")
    t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", out)
    f = read_file(out)
    turn = f.payload
    op = turn.openings[0]
    lie = "scout" if op.value == "tank" else "tank"
    forged = msgspec.structs.replace(turn, openings=[msgspec.structs.replace(op, value=lie)])
    bad = t.tmp / "mail" / "forged-opening.pbem"
    bad.write_text(seal(forged, load_private(t.key(side)), name=bad.name).text)
    other = t.other(side)
    before = snapshot(t.dirs[other])
    r = t.run("receive", str(t.dirs[other]), str(bad), "--key", t.key(other), "--out",
              str(t.tmp / "mail" / "never2.pbem"))
    assert r.exit_code != 0
    assert "forged-opening.pbem" in r.output and "does not match" in r.output, r.output
    assert snapshot(t.dirs[other]) == before


def test_a_final_reveal_that_changes_a_committed_type_is_caught(tmp_path, monkeypatch):
    from pbem.protocol import sealing

    honest = sealing.final_reveal

    def lying(root, key, seq, lines):
        fin = honest(root, key, seq, lines)
        if Path(root).name != "red":
            return fin
        w = fin.orders["1"][0].split()            # assign r1 K1 r2 K2 -> the other way round
        return msgspec.structs.replace(fin, orders=dict(
            fin.orders, **{"1": [f"assign {w[1]} {w[4]} {w[3]} {w[2]}"]}))

    monkeypatch.setattr(sealing, "final_reveal", lying)
    t = _table(tmp_path, 2)
    t.play_to_end()
    for side in t.sides:
        r = t.run("verify", str(t.dirs[side]))
        assert r.exit_code == 3, r.output
        assert "0001-red.pbem" in r.output and "committed r1.kind" in r.output, r.output


def _unfinished(tmp_path: Path) -> Table:
    """A sealed game a few files in: no final reveal yet."""
    t = _table(tmp_path, 1)
    for _ in range(6):
        t.deliver()
        if t.mover() is None:
            break
        t.play_one()
    return t


def test_a_game_without_both_final_reveals_is_reported_unaudited(tmp_path):
    t = _unfinished(tmp_path)
    r = t.ok("verify", str(t.dirs["red"]))
    assert "hidden moves are not audited yet" in r.output, r.output


def test_verify_with_the_side_s_own_key_and_only_that_key(tmp_path):
    """`pbem verify --key`: the archive side's own key (its private dice computed) audits an
    unfinished sealed game as far as without it, or further; the other side's key is refused
    in one line, exit 1."""
    t = _unfinished(tmp_path)
    r = t.ok("verify", str(t.dirs["red"]), "--key", t.key("red"))
    assert "OK: the archive verifies." in r.output, r.output
    bad = t.run("verify", str(t.dirs["red"]), "--key", t.key("blue"))
    lines = bad.output.strip().splitlines()
    assert bad.exit_code == 1 and len(lines) == 1 and "this key is not red's key" in lines[0], \
        bad.output
    # a one-file record holds no private part for the key to open: refused, not ignored
    record = tmp_path / "red.pbemrec"
    r = t.run("export", str(t.dirs["red"]), "--out", str(record))   # not before the reveal
    assert r.exit_code == 1 and not record.exists(), r.output
    record.write_text("a record file\n")
    keyed = t.run("verify", str(record), "--key", t.key("red"))
    lines = keyed.output.strip().splitlines()
    assert keyed.exit_code == 1 and len(lines) == 1 and "a record holds signed files only" \
        in lines[0], keyed.output


@pytest.mark.parametrize("own_dice_unknown", [True, False])
def test_a_keyless_mismatch_after_own_private_dice_is_not_audited_never_cheating(
        tmp_path, monkeypatch, own_dice_unknown):
    """Without the side's key, `pbem verify` stands in for the side's own private dice (5a);
    a results mismatch from then on proves nothing and is reported as not audited (exit 1,
    one line); without such a stand-in a mismatch is a proof (exit 3). The mismatch and the
    stand-in are forced here (a real one needs a game whose private dice change the public
    state: tests/games/bcs/test_sealed_attacks.py meets it when its dice do)."""
    from pbem.core.errors import FileRejected
    from pbem.protocol import resolve as resolve_mod, session as session_mod

    t = _unfinished(tmp_path)

    def mismatch(claimed, actual, *, name):
        raise FileRejected(f"{name}: results of file {actual.seq} claim a different state "
                           "(state hash differs from the replay)")
    monkeypatch.setattr(session_mod, "compare_results", mismatch)
    monkeypatch.setattr(resolve_mod.LazyDice, "stands_in",
                        lambda self, cls: own_dice_unknown and cls == "red")
    r = t.run("verify", str(t.dirs["red"]))
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "claim a different state" in lines[0], r.output
    if own_dice_unknown:
        assert r.exit_code == 1 and "not audited" in lines[0] and "red's private dice" in \
            lines[0] and "pbem verify --key" in lines[0], r.output
        # a keyless status that must replay (its cache gone) says the same, and how to rebuild
        shutil.rmtree(t.dirs["red"] / "cache")
        st = t.run("status", str(t.dirs["red"]))
        assert st.exit_code == 1 and "not audited" in st.output and \
            "pbem status --key KEY" in st.output, st.output
    else:
        assert r.exit_code == 3 and "not audited" not in lines[0], r.output


def test_sealed_mode_is_refused_for_a_game_that_cannot_seal(tmp_path):
    t = Table(tmp_path, game="dash", scenario="short")
    r = t.run("new", "dash", "short", str(tmp_path / "x"), "--side", "red", "--key",
              t.key("red"), "--opponent", t.pub("blue"), "--out", str(tmp_path / "p.pbem"),
              "--mode", "sealed")
    assert r.exit_code != 0 and "cannot be played in sealed mode" in r.output


def test_private_dice_only_their_side_computes(tmp_path):
    """A roll only one side may see is keyed with that side's private share too: its own
    processor computes it, the other side's gets a stand-in, and a roll nobody may see is
    refused (docs/sealed.md section 5a)."""
    from pbem.core.commitment import fact_key
    from pbem.protocol.session import load

    t = _table(tmp_path)
    t.deliver()
    t.play_one()
    t.deliver()
    t.play_one()
    t.deliver()                                   # both set-ups resolved
    red = ops.open_session(t.dirs["red"], key_path=t.key("red"))
    blue = ops.open_session(t.dirs["blue"], key_path=t.key("blue"))
    mine = red.dice_for(1)
    real = [mine.roll(1, i, 6, "red") for i in range(12)]
    assert [blue.dice_for(1).roll(1, i, 6, "red") for i in range(12)] == [1] * 12
    assert len(set(real)) > 1, "a real die, not a stand-in"
    full = load(t.dirs["blue"]).dice_for(1, private_keys={"red": fact_key(
        red.own.root_secret())})
    assert [full.roll(1, i, 6, "red") for i in range(12)] == real   # the final replay's dice
    with pytest.raises(Exception, match="cannot roll dice no side may see"):
        red.dice_for(1).roll(0, 0, 6, "nobody")
    vets = {b: red.state.blocks[b].vet for b in BLOCKS["red"]}
    assert set(vets.values()) <= {0, 1}
    assert all(blue.state.blocks[b].vet == -1 for b in BLOCKS["red"])


def test_pbem_demo_refuses_sealed_mode_for_a_game_not_ported(tmp_path):
    from click.testing import CliRunner

    from pbem.cli import cli

    r = CliRunner().invoke(cli, ["demo", str(tmp_path / "d"), "--game", "dash", "--mode",
                                 "sealed", "--quiet"])
    assert r.exit_code != 0
    assert r.output.strip() == ("Error: dash cannot be played in sealed mode yet "
                                "(docs/sealed.md): choose --mode peer or --mode hosted")
    assert not (tmp_path / "d").exists()


def test_a_finished_sealed_game_verifies_from_its_one_file_record(tmp_path):
    """A record holds no private store: the final reveals supply the real orders."""
    from pbem.records.record import export_text
    from pbem.records.source import verify_record

    t = _table(tmp_path, 2)
    t.play_to_end()
    rec = tmp_path / "red.pbemrec"
    rec.write_text(export_text(t.dirs["red"]))
    assert "private/" not in rec.read_text()
    audit = verify_record(rec)
    assert audit.ok, audit.problems
    assert any("both final reveals are in" in line for line in audit.summary)


def _forged_next(t: Table, side: str, **changes) -> Path:
    """side's honest next file (bot orders), changed and signed again with side's key."""
    orders = t.tmp / "next.txt"
    t.ok("bot", str(t.dirs[side]), "--side", side, "--out", str(orders), "--seed", "1")
    out = t.mail(f"turn-{side}")
    t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", out)
    turn = read_file(out).payload
    bad = t.tmp / "mail" / f"forged-{turn.seq:04d}-{side}.pbem"
    bad.write_text(seal(msgspec.structs.replace(turn, **changes), load_private(t.key(side)),
                        name=bad.name).text)
    return bad


def test_a_final_reveal_before_the_end_is_refused(tmp_path):
    from pbem.core.records import FinalReveal

    t = _table(tmp_path, 4)
    side = t.play_until(lambda s: True)
    bad = _forged_next(t, side, final=FinalReveal(fact_key="00" * 32, orders={}))
    other = t.other(side)
    before = snapshot(t.dirs[other])
    r = t.run("receive", str(t.dirs[other]), str(bad), "--key", t.key(other))
    assert r.exit_code != 0 and "a final reveal before the game is over" in r.output, r.output
    assert snapshot(t.dirs[other]) == before


# -- orders only their writer can check, after dice (docs/sealed.md 5g) ---------------------
def _blocks(t: Table, side: str) -> dict[str, tuple[int, str]]:
    s = ops.open_session(t.dirs[side], key_path=t.key(side))
    return {b: (blk.pos, blk.kind) for b, blk in s.state.blocks.items()}


def test_a_hidden_move_after_dice_goes_back_to_its_writer_on_both_processors(tmp_path):
    """The receiver resolves red's file: after the attack's dice, 'move r2 1' reads r2's hidden
    type, which blue's processor could only check leniently (a '?' may go 3) while red's checks
    it strictly; the position the dice leave could make the two disagree (a Holdfast block's MP
    against a path whose cost changed), and the game would stall on a state-hash mismatch. So
    both processors give the move, and every later order of the file, back to red; the public
    states agree (every file is accepted), red is asked again and sends the move anew."""
    t = _table(tmp_path)
    t.deliver()
    for lines in (["assign r1 scout r2 tank"], ["assign b1 scout b2 tank"],
                  ["move r1 3", "end"], ["move b1 3", "end"], ["move r1 2", "end"], ["end"]):
        t.play_one(lines)
        t.deliver()
    assert _blocks(t, "red")["r1"][0] == 5 and _blocks(t, "red")["b1"][0] == 6
    assert t.mover() == "red"
    orders = tmp_path / "orders-back.txt"
    orders.write_text("attack r1 b1\nmove r2 1\nend\n")
    r = t.run("check", str(t.dirs["red"]), str(orders), "--key", t.key("red"))
    assert "line 2: in a sealed game an order that reads your hidden facts goes back" in r.output
    t.play_one(["attack r1 b1", "move r2 1", "end"])
    t.deliver()
    for side in ("red", "blue"):
        assert _blocks(t, side)["r2"][0] == 0, side         # not moved on either processor
    assert t.mover() == "red"                               # its 'end' went back too
    told = [e.text for log in load(t.dirs["red"]).log for e in log.events
            if "went back to you" in e.text]
    assert told and "PBEM-SEALED-RETURN" in told[0] and "move r2 1" in told[0], told
    t.play_one(["move r2 1", "end"])
    t.deliver()
    for side in ("red", "blue"):
        assert _blocks(t, side)["r2"][0] == 1, side
    assert t.mover() == "blue"


def test_a_sealed_bot_stretch_ends_before_a_hidden_move_that_would_go_back():
    """The planner of the bots (pbem.core.planning) stops a sealed stretch before an order
    that would go back (docs/sealed.md 5g): the file never projects a move that is not carried
    out. In peer mode the same stretch goes on past the attack's imagined dice."""
    import random

    from fixtures.blindgame import Block, BlindState
    from pbem.core.planning import plan_stretch
    from pbem.core.sealed import hidden_legality

    def position() -> BlindState:
        return BlindState(turn=1, active="red", assigned=["red", "blue"], blocks={
            "r1": Block(side="red", pos=5, kind="scout", vet=0),
            "r2": Block(side="red", pos=0, kind="tank", vet=0),
            "b1": Block(side="blue", pos=6, kind="?"),
            "b2": Block(side="blue", pos=9, kind="?")})

    def after_attack(lines: list[str]) -> list[str]:
        first = next((i for i, x in enumerate(lines) if x.startswith("attack")), None)
        return [] if first is None else [x for x in lines[first + 1:] if x.startswith("move")]

    sealed = [plan_stretch(BLIND, position(), "red", random.Random(s), sealed=True)
              for s in range(40)]
    peer = [plan_stretch(BLIND, position(), "red", random.Random(s)) for s in range(40)]
    assert any(x.startswith("attack") for lines in sealed for x in lines)
    assert not any(after_attack(lines) for lines in sealed), sealed
    assert any(after_attack(lines) for lines in peer)
    assert hidden_legality(BLIND, BLIND.parse_order("move r2 1"))
    assert not hidden_legality(BLIND, BLIND.parse_order("attack r1 b1"))


def test_archive_json_naming_the_other_party_is_a_local_error_not_a_cheat(tmp_path):
    """The attack (or a slip): archive.json edited to name the other side. The replay would
    take the honest side's files for this one's and report one of them as cheating (exit 3).
    The private orders show whose archive it is: one line naming archive.json, exit 1."""
    import json

    from fixtures.table import Table, snapshot

    t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", mode="sealed",
              sides=("allied", "axis"))
    for _ in range(4):
        t.deliver()
        t.play_one()
    t.deliver()
    info = t.dirs["axis"] / "archive.json"
    data = json.loads(info.read_text())
    data["party"] = "allied"
    info.write_text(json.dumps(data))
    before = snapshot(t.dirs["axis"])
    for args in (["status", str(t.dirs["axis"])], ["verify", str(t.dirs["axis"])]):
        r = t.run(*args)
        lines = r.output.strip().splitlines()
        errors = [ln for ln in lines if ln.startswith("Error:")]
        assert r.exit_code == 1 and len(errors) == 1, r.output
        assert str(info) in errors[0] and "names allied" in errors[0], errors[0]
    assert snapshot(t.dirs["axis"]) == before


# -- the fact key is committed in the genesis (docs/sealed.md 5a) --------------------------------
# A reviewer showed that without it a side could choose its own private dice: its fact key
# keys them, and a die of its side rolled in a file it receives before its first commitment
# could be tried offline with key after key, the final replay none the wiser.

def test_a_final_reveal_opening_another_fact_key_than_committed_is_cheating(tmp_path,
                                                                           monkeypatch):
    """red's processor plays the whole game with another fact key than the one its acceptance
    committed to: every file checks out as it arrives, and the final audit names red's final
    reveal, exit 3."""
    from pbem.protocol import sealing, session

    real = sealing.side_fact_key

    def chosen(own):
        return b"\x07" * 32 if own.party == "red" else real(own)

    t = _table(tmp_path)
    for mod in (sealing, ops, session):
        monkeypatch.setattr(mod, "side_fact_key", chosen)
    t.play_to_end()
    monkeypatch.undo()
    r = t.run("verify", str(t.dirs["blue"]), "--key", t.key("blue"))
    assert r.exit_code == 3, r.output
    assert "red's final reveal opens a fact key other than the one it committed to" in r.output
    assert "-red.pbem" in r.output


def test_a_sealed_proposal_or_acceptance_without_a_fact_key_commitment_is_refused(tmp_path,
                                                                                  monkeypatch):
    """join refuses a sealed proposal whose proposer did not commit to its fact key, and the
    proposer refuses such an acceptance: one line naming the file, exit 1, nothing stored."""
    t = Table(tmp_path, game="blind", scenario="short", mode="sealed")
    uncommitted = lambda mode, secret: msgspec.UNSET        # noqa: E731  an older or altered pbem
    bare = t.mail("bare-proposal")
    with monkeypatch.context() as m:
        m.setattr(ops, "_fact_commit", uncommitted)
        t.ok("new", "blind", "short", str(tmp_path / "red2"), "--side", "red", "--key",
             t.key("red"), "--opponent", t.pub("blue"), "--mode", "sealed", "--out", bare)
    r = t.run("join", bare, "--key", t.key("blue"), "--dir", str(tmp_path / "blue2"),
              "--out", t.mail("never"))
    assert r.exit_code == 1 and "red did not commit to its fact key" in r.output, r.output
    assert "bare-proposal.pbem" in r.output and not (tmp_path / "blue2").exists()
    prop, acc = t.mail("proposal3"), t.mail("bare-accept")
    t.ok("new", "blind", "short", str(tmp_path / "red3"), "--side", "red", "--key",
         t.key("red"), "--opponent", t.pub("blue"), "--mode", "sealed", "--out", prop)
    with monkeypatch.context() as m:
        m.setattr(ops, "_fact_commit", uncommitted)
        t.ok("join", prop, "--key", t.key("blue"), "--dir", str(tmp_path / "blue3"),
             "--out", acc)
    before = snapshot(tmp_path / "red3")
    r = t.run("receive", str(tmp_path / "red3"), acc, "--key", t.key("red"))
    assert r.exit_code == 1 and "blue did not commit to its fact key" in r.output, r.output
    assert "bare-accept.pbem" in r.output and snapshot(tmp_path / "red3") == before
