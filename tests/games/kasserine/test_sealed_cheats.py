"""Kasserine sealed games through the real commands (`pbem new --mode sealed`, join, bot,
submit, receive, verify; `pbem demo --mode sealed`), and the cheats a sealed Kasserine game
must catch: a marker value chosen at the reveal, an opening of a marker never committed, a
standing order misstated in the final reveal, and a support step answered against the
committed standing order. Each is caught with one line naming the file and the problem."""

from __future__ import annotations

import contextlib
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from fixtures.table import Table, snapshot
from pbem.cli import cli
from pbem.core.commitment import Opening
from pbem.core.keys import load_private
from pbem.core.records import read_file, seal
from pbem.games.kasserine import GAME, support
from pbem.protocol import sealing, session

CHEAT, HONEST = "axis", "us"


def _table(tmp_path: Path, seed: int = 7) -> Table:
    t = Table(tmp_path, game="kasserine", scenario="historical", mode="sealed",
              sides=("axis", "us"))
    t.rng.seed(seed)
    return t


def _verify_ok(t: Table) -> None:
    for side in t.sides:
        r = t.ok("verify", str(t.dirs[side]))
        assert "both final reveals are in" in r.output, r.output


def test_a_sealed_kasserine_game_plays_through_the_commands_and_verifies(tmp_path):
    t = _table(tmp_path)
    t.play_to_end(limit=800)
    for side in t.sides:
        assert t.status(side)["over"]
    _verify_ok(t)
    first = read_file(next((t.dirs["us"] / "files").glob("0001-axis.pbem"))).payload
    assert first.orders and all(not line.startswith("standing ") or line == "standing sealed"
                                for line in first.orders)


def test_pbem_demo_plays_kasserine_sealed_to_the_end_and_verifies(tmp_path):
    r = CliRunner().invoke(cli, ["demo", str(tmp_path / "d"), "--game", "kasserine", "--mode",
                                 "sealed", "--seed", "3", "--quiet"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert r.output.count("pbem verify") == 2 and r.output.count(": OK") == 2, r.output
    assert "both final reveals are in" in r.output, r.output


class Cheater:
    """Runs the table's commands, patching the cheater's processor only (both processors
    share this test's process)."""

    def __init__(self, t: Table, monkeypatch, patch) -> None:
        self.t, self.mp, self.patch = t, monkeypatch, patch

    def as_side(self, side: str):
        """A context in which side's processor runs (patched if it is the cheater's)."""
        if side != CHEAT:
            return contextlib.nullcontext()
        ctx = self.mp.context()
        m = ctx.__enter__()
        self.patch(m)
        return _Exit(ctx)

    def play(self, limit: int = 800):
        """Play on until a command fails: (receiver, file, result, snapshot before) of the
        failing receive, or None at the end of the game."""
        t = self.t
        for _ in range(limit):
            while t.inbox:
                path, to = t.inbox.pop(0)
                out = t.mail(f"reply-{to}")
                before = snapshot(t.dirs[to])
                with self.as_side(to):
                    r = t.run("receive", str(t.dirs[to]), path, "--key", t.key(to), "--out", out)
                if r.exit_code != 0:
                    return to, path, r, before
                if Path(out).exists():
                    t.inbox.append((out, t.other(to)))
            side = t.mover()
            if side is None:
                return None
            with self.as_side(side):
                t.play_one()
        raise AssertionError("the game did not end")


class _Exit:
    def __init__(self, ctx) -> None:
        self.ctx = ctx

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        self.ctx.__exit__(*exc)


def test_KAS_7_2_c_a_marker_chosen_at_the_reveal_is_refused_by_the_other_side(tmp_path,
                                                                              monkeypatch):
    """KAS-7.2-c: the cheater's processor takes its best marker at the reveal instead of the
    one the public draw gives (choosing after seeing the other side's). The draw is recomputed
    by the other side: its public state disagrees, and the first file that claims results
    computed from it is refused, naming the file; the refusing archive is untouched."""
    honest = support.draw

    def best(state, side, purpose, ctx, *, public):
        m = honest(state, side, purpose, ctx, public=public)
        priv = state.private[side]
        if side == CHEAT and "revealed" in purpose and priv.unused:
            top = max(priv.unused + [m], key=lambda x: x.value)
            if top is not m:
                priv.unused.remove(top)
                priv.unused.append(m)
                return top
        return m

    def patch(m):
        m.setattr(support, "draw", best)
        # a cheating processor also ignores the honest side's results of its files
        m.setattr(session, "compare_results", lambda claimed, actual, *, name: None)

    t = _table(tmp_path, 11)
    failed = Cheater(t, monkeypatch, patch).play()
    assert failed is not None, "the game ended without the cheat being seen"
    to, path, r, before = failed
    assert to == HONEST and CHEAT in Path(path).name, (to, path, r.output)
    assert r.exit_code != 0 and len(r.output.strip().splitlines()) == 1, r.output
    assert Path(path).name in r.output and "claim a different state" in r.output, r.output
    assert snapshot(t.dirs[to]) == before


def test_an_opening_of_a_marker_never_committed_is_refused(tmp_path):
    """A file that opens a fact its sender never committed (a face-down marker: a sealed
    Kasserine game commits none, its draws are public at the reveal) is refused on receipt
    with one line naming the file; the archive is untouched."""
    t = _table(tmp_path, 5)
    for _ in range(3):
        t.deliver()
        t.play_one()
    t.deliver()
    side = t.mover()
    out = t.play_one()
    t.inbox.pop()
    turn = read_file(out).payload
    forged = msgspec.structs.replace(turn, openings=[Opening(
        fact=f"{side}.marker.{support.PREFIX[side]}0101a", version=0, value=4,
        salt="00" * 32)])
    bad = t.tmp / "mail" / "forged-marker.pbem"
    bad.write_text(seal(forged, load_private(t.key(side)), name=bad.name).text)
    other = t.other(side)
    before = snapshot(t.dirs[other])
    r = t.run("receive", str(t.dirs[other]), str(bad), "--key", t.key(other), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    assert r.exit_code != 0
    assert len(r.output.strip().splitlines()) == 1, r.output
    assert "forged-marker.pbem" in r.output and "never committed" in r.output, r.output
    assert snapshot(t.dirs[other]) == before


def test_a_final_reveal_that_misstates_a_standing_order_is_caught_by_verify(tmp_path,
                                                                           monkeypatch):
    """A standing order is a hidden fact (standing.TOPIC): a final reveal whose real orders
    give another policy than the one committed is named by `pbem verify` (exit status 3)."""
    honest = sealing.final_reveal

    def lying(root, key, seq, lines):
        fin = honest(root, key, seq, lines)
        if Path(root).name != CHEAT:
            return fin
        orders = {k: [("standing support never" if x.startswith("standing support ") and
                       x != "standing support never" else x) for x in v]
                  for k, v in fin.orders.items()}
        return msgspec.structs.replace(fin, orders=orders)

    monkeypatch.setattr(sealing, "final_reveal", lying)
    t = _table(tmp_path, 2)
    t.play_to_end(limit=800)
    wrote = [x for v in sealing.read_private(t.dirs[CHEAT]).values() for x in v
             if x.startswith("standing support ") and x != "standing support never"]
    if not wrote:
        pytest.skip("this game's axis bot never gave a standing support order but 'never'")
    for side in t.sides:
        r = t.run("verify", str(t.dirs[side]))
        assert r.exit_code == 3, r.output
        assert f"-{CHEAT}.pbem" in r.output and "standing.support" in r.output, r.output


def test_KAS_8_2_1_b_a_support_step_answered_against_the_committed_order_is_caught(
        tmp_path, monkeypatch):
    """KAS-8.2.1-b: the cheater's processor answers its support steps the other way from its
    committed standing support order (after seeing the attack): legal on receipt, named by
    `pbem verify` at the end with the file and PBEM-STANDING."""
    honest = GAME.standing_answers

    def contrary(state, side, decision):
        lines = honest(state, side, decision)
        if lines and lines[0].startswith("support "):
            return ["support no" if lines[0] == "support yes" else "support yes"]
        return lines

    # Keys (hence dice) are fresh in every run: a game may bring the cheater no support step
    # its policy answers, or a flipped answer its processor cannot play (no marker left). Such a
    # game shows nothing; the first game that does carry a contrary answer must be caught.
    for attempt in range(6):
        t = _table(tmp_path / f"game{attempt}", 4 + attempt)
        cheater = Cheater(t, monkeypatch,
                          lambda m: m.setattr(GAME, "standing_answers", contrary))
        if cheater.play() is not None:
            continue
        answered = [x for v in sealing.read_private(t.dirs[CHEAT]).values() for x in v
                    if x.startswith("support ")]
        if answered:
            break
    else:
        raise AssertionError("no game of six carried a support step answered by the cheater")
    for side in t.sides:
        r = t.run("verify", str(t.dirs[side]))
        assert r.exit_code == 3, r.output
        assert "PBEM-STANDING" in r.output and f"-{CHEAT}.pbem" in r.output, r.output


def _support_step(t: Table, side: str) -> bool:
    from pbem.protocol import ops

    s = ops.open_session(t.dirs[side], key_path=t.key(side))
    w = s.state.wait
    return w is not None and w.side == side and w.kind == "support" and side != s.state.active


def test_KAS_8_2_1_b_the_writers_standing_order_answers_its_support_steps_in_its_own_file(
        tmp_path):
    """KAS-8.2.1-b: a defender asked at step 2 who gives 'standing support never' and nothing
    else: its processor writes the answers that order gives (step 2, and step 4 with no die
    between) into the file before signing, says so, and the file resolves on both sides."""
    from pbem.protocol import ops

    t = _table(tmp_path, 3)
    side = t.play_until(lambda s: _support_step(t, s))
    orders = t.tmp / "never.txt"
    orders.write_text("standing support never\n")
    checked = t.ok("check", str(t.dirs[side]), str(orders), "--key", t.key(side))
    assert "Your standing orders answered" in checked.output, checked.output
    out = t.mail(f"turn-{side}")
    r = t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", out)
    assert "Your standing orders answered" in r.output and "support no" in r.output, r.output
    real = sealing.read_private(t.dirs[side])
    mine = real[max(real)]
    assert mine[0] == "standing support never" and mine[1] == "support no", mine
    assert read_file(out).payload.orders[:2] == ["standing sealed", "support no"]
    t.inbox.append((out, t.other(side)))
    t.deliver()                      # both processors resolve it alike (receive exits 0)
    other = ops.open_session(t.dirs[t.other(side)], key_path=t.key(t.other(side)))
    assert other.ledger.tip_seq >= read_file(out).payload.seq and not other.unresolved()


def test_a_sealed_submit_run_again_writes_the_same_file(tmp_path):
    """Submitting the same orders again (a run interrupted after signing) writes the stored
    file again, though the file holds projections ('standing sealed') and the answers the
    writer's standing orders gave; other orders are a new file, never the same number."""
    t = _table(tmp_path, 1)
    t.deliver()
    orders = t.tmp / "o.txt"
    orders.write_text("standing support two\nend\npass\n")
    out = t.mail("turn-axis")
    t.ok("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"), "--out", out)
    first = Path(out).read_bytes()
    r = t.ok("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"), "--out", out)
    assert "already signed and stored" in r.output, r.output
    assert Path(out).read_bytes() == first
    assert sorted(p.name for p in (t.dirs["axis"] / "files").glob("0*-axis.pbem")) == [
        "0001-axis.pbem"]


def _stiff_pending(t: Table, side: str) -> bool:
    from pbem.protocol import ops

    s = ops.open_session(t.dirs[side], key_path=t.key(side))
    w = s.state.wait
    return w is not None and w.side == side and w.kind == "stiff"


def test_KAS_8_4_a_an_answer_against_the_standing_order_set_in_the_same_file_is_refused(
        tmp_path):
    """KAS-8.4-a in a sealed game: 'standing stiff never' answers the stiff decision pending on
    the writer, so a following 'stiff yes' answers it against the order (the final replay would
    report PBEM-STANDING): `check` and `submit` refuse it in one line naming the orders file,
    its line and the answer; nothing is signed or stored. Without the contrary line the
    processor writes 'stiff no' in and signs."""
    t = _table(tmp_path, 5)
    for _ in range(300):
        t.deliver()
        side = t.mover()
        assert side is not None, "the game ended first"
        if _stiff_pending(t, side):
            break
        orders = t.tmp / f"orders-{t.n}.txt"
        t.ok("bot", str(t.dirs[side]), "--side", side, "--out", str(orders), "--seed",
             str(t.rng.randrange(10**6)))
        # no stiff policy, so that a stiff decision is asked
        kept = [x for x in orders.read_text().splitlines() if not x.startswith("standing stiff")]
        t.play_one(kept)
    else:
        raise AssertionError("no stiff decision in 300 files")
    orders = t.tmp / "contrary.txt"
    # the message names the standing order that answers, not every one in force
    orders.write_text("standing support two\nstanding stiff never\nstiff yes\n")
    before = snapshot(t.dirs[side])
    for cmd in ("check", "submit"):
        extra = ("--out", t.mail("refused")) if cmd == "submit" else ()
        r = t.run(cmd, str(t.dirs[side]), str(orders), "--key", t.key(side), *extra)
        assert r.exit_code not in (0, 3), r.output
        assert "contrary.txt: line 3: 'stiff yes'" in r.output, r.output
        assert "(standing stiff never)" in r.output and "support" not in r.output, r.output
        assert "'stiff no'" in r.output and "PBEM-STANDING" in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1, r.output
        assert snapshot(t.dirs[side]) == before
    orders.write_text("standing stiff never\n")
    out = t.mail(f"turn-{side}")
    r = t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", out)
    assert "stiff no" in r.output, r.output
