"""Private committed draws (pbem.core.privatedraw, docs/protocol.md section 6a) through the real
commands, on the test game Cup (tests/fixtures/cupgame.py): the axis draws an objective only he
may know; the allies' files, archive and reports never hold it before the rules open it; a
forged or missing opening is refused by `pbem receive` and `pbem verify`; a re-draw gives the
same value; in hosted mode the referee rolls it with dice of the axis's class only."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec
import pytest

from fixtures.cupgame import GAME as CUP
from fixtures.stored import stored_text
from fixtures.table import Table, snapshot
from pbem.core.keys import load_private
from pbem.core.privatedraw import REVEAL_KIND, draw_key, private_share
from pbem.core.records import Turn, read_file, seal
from pbem.core.registry import register
from pbem.protocol import ops
from pbem.protocol.draws import store_path

register(CUP)
SIDES = ("allied", "axis")


def _table(tmp_path: Path, seed: int, mode: str = "peer") -> Table:
    t = Table(tmp_path, game="cup", scenario="short", mode=mode, sides=SIDES)
    t.rng.seed(seed)
    return t




def axis_secret_words(t: Table) -> list[str]:
    """What would give the axis's objective away: his draw key, his private share of the drawn
    file (hex), the value as his reports and state write it."""
    s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    draws = CUP.private_draws(s.state)
    if not draws:
        return []
    key = draw_key(s.own.root_secret())
    words = [key.hex(), private_share(key, draws[0].seq).hex()]
    known = s.draws.known("axis")
    if "objective" in known:    # once the allies' share of the drawn file is revealed
        edge = {1: "north", 2: "south"}[known["objective"]]
        words += [f"Objective: {edge} (secret)", f'"secret":"{edge}"']
    return words


def allied_leaks(t: Table) -> list[str]:
    theirs = stored_text(t.dirs["allied"])
    return [w for w in axis_secret_words(t) if w in theirs]


def _opened(t: Table) -> bool:
    s = ops.open_session(t.dirs["allied"])
    return bool(s.state.objective)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_objective_never_reaches_the_allies_before_it_is_opened(tmp_path, seed):
    t = _table(tmp_path, seed)
    checked = 0
    for _ in range(200):
        t.deliver()
        if not _opened(t):
            assert allied_leaks(t) == []
            checked += len(axis_secret_words(t)) == 4
            s = ops.open_session(t.dirs["allied"])
            assert s.state.secret == "" and not store_path(t.dirs["allied"]).exists()
        if t.mover() is None:
            break
        t.play_one()
    assert checked > 2
    for side in SIDES:
        r = t.ok("verify", str(t.dirs[side]))
        assert "verified" in r.output.lower()
    a = ops.open_session(t.dirs["allied"])
    x = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    assert a.state.objective and a.state.objective == x.state.objective
    assert CUP.outcome(a.state) == CUP.outcome(x.state) is not None


def test_the_axis_report_shows_his_objective_and_the_allied_one_drawn_secret(tmp_path):
    t = _table(tmp_path, 4)
    t.play_until(lambda side: side == "axis" and len(axis_secret_words(t)) == 4
                 and not _opened(t), limit=20)
    t.deliver()
    axis_reports = "\n".join(p.read_text() for p in (t.dirs["axis"] / "reports").rglob("*.txt"))
    allied_reports = "\n".join(p.read_text()
                               for p in (t.dirs["allied"] / "reports").rglob("*.txt"))
    edge = axis_secret_words(t)[2]
    assert edge in axis_reports
    assert "Objective: drawn, secret" in allied_reports and edge not in allied_reports
    # the axis's own reports, made again without his key, read his private store
    r = t.ok("report", str(t.dirs["axis"]), "--side", "axis", "--format", "text", "--out",
             str(tmp_path / "axis.txt"))
    assert edge in (tmp_path / "axis.txt").read_text(), r.output


def _axis_file_with(t: Table, change) -> Path:
    """A file the axis's processor signs now, with its orders changed by change(orders)."""
    out = t.mail("turn-axis")
    orders = t.tmp / "axis-orders.txt"
    orders.write_text("end\n")
    s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    f = ops.make_turn(s, ["end"] if "axis" in {d.side for d in CUP.pending(s.state)}
                      and not CUP._finished(s.state) else [], "")
    turn: Turn = f.payload  # type: ignore[assignment]
    forged = msgspec.structs.replace(turn, orders=change(list(turn.orders)))
    bad = Path(out)
    bad.write_text(seal(forged, load_private(t.key("axis")), name=bad.name).text)
    return bad


def _to_the_reveal(t: Table) -> None:
    """Play until the axis's processor must open the objective (the end of the game)."""
    for _ in range(200):
        t.deliver()
        if t.mover() is None:
            raise AssertionError("the game ended first")
        s = ops.open_session(t.dirs["axis"])
        if CUP._finished(s.state) or (s.draws.due(s.state)):
            return
        t.play_one(["end"])


def _rollback_inbox(t: Table) -> list[tuple[str, str]]:
    held, t.inbox = t.inbox, []
    return held


def _play_to_the_axis_opening(tmp_path) -> tuple[Table, Path]:
    """A game in which the axis's next file must open his objective; that file, as his
    processor signed it (not delivered)."""
    t = _table(tmp_path, 7)
    for _ in range(300):
        path, to = t.inbox[0] if t.inbox else (None, None)
        if path is not None and to == "axis":
            out = t.mail("reply-axis")
            t.ok("receive", str(t.dirs["axis"]), path, "--key", t.key("axis"), "--out", out)
            t.inbox.pop(0)
            if Path(out).exists():
                lines = read_file(out).payload.orders
                if any(x.startswith("draws reveal ") for x in lines):
                    return t, Path(out)
                t.inbox.append((out, "allied"))
            continue
        if t.inbox:
            t.deliver_one()
            continue
        t.play_one(["end"])
    raise AssertionError("no opening")


def test_the_opening_at_the_end_is_written_by_the_axis_processor_and_ends_the_game(tmp_path):
    t, opening = _play_to_the_axis_opening(tmp_path)
    r = t.ok("receive", str(t.dirs["allied"]), str(opening), "--key", t.key("allied"))
    assert "draws reveal" not in r.output
    s = ops.open_session(t.dirs["allied"])
    assert s.state.objective in ("north", "south") and CUP.outcome(s.state) is not None
    t.ok("verify", str(t.dirs["allied"]))


def test_a_forged_opening_is_refused_by_receive_and_verify(tmp_path):
    t, opening = _play_to_the_axis_opening(tmp_path)
    f = read_file(opening)
    turn: Turn = f.payload  # type: ignore[assignment]
    lines = [("draws reveal " + "ab" * 32) if x.startswith("draws reveal ") else x
             for x in turn.orders]
    forged = msgspec.structs.replace(turn, orders=lines)
    bad = t.tmp / "mail" / "forged-reveal.pbem"
    bad.write_text(seal(forged, load_private(t.key("axis")), name=bad.name).text)
    before = snapshot(t.dirs["allied"])
    r = t.run("receive", str(t.dirs["allied"]), str(bad), "--key", t.key("allied"))
    assert r.exit_code == 3, r.output          # a signed false opening: proven cheating
    assert "does not match axis's commitment" in r.output and "PBEM-DRAW" in r.output
    assert len(r.output.strip().splitlines()) == 1 and "forged-reveal.pbem" in r.output
    assert snapshot(t.dirs["allied"]) == before
    # an archive holding the forged file fails its audit, naming the file
    copy = tmp_path / "audit"
    shutil.copytree(t.dirs["allied"], copy)
    name = f"{turn.seq:04d}-axis.pbem"
    stored = read_file(bad)
    (copy / "files" / name).write_text(stored.text)
    r = t.run("verify", str(copy))
    assert r.exit_code != 0 and name in r.output and "PBEM-DRAW" in r.output, r.output


def test_a_missing_opening_is_refused_by_receive_and_verify(tmp_path):
    t, opening = _play_to_the_axis_opening(tmp_path)
    turn: Turn = read_file(opening).payload  # type: ignore[assignment]
    forged = msgspec.structs.replace(
        turn, orders=[x for x in turn.orders if not x.startswith("draws reveal ")])
    bad = t.tmp / "mail" / "no-reveal.pbem"
    bad.write_text(seal(forged, load_private(t.key("axis")), name=bad.name).text)
    before = snapshot(t.dirs["allied"])
    r = t.run("receive", str(t.dirs["allied"]), str(bad), "--key", t.key("allied"))
    assert r.exit_code == 3 and "no-reveal.pbem" in r.output, r.output
    assert "does not open its private draws" in r.output and "PBEM-DRAW" in r.output
    assert snapshot(t.dirs["allied"]) == before
    copy = tmp_path / "audit"
    shutil.copytree(t.dirs["allied"], copy)
    name = f"{turn.seq:04d}-axis.pbem"
    (copy / "files" / name).write_text(read_file(bad).text)
    r = t.run("verify", str(copy))
    assert r.exit_code != 0 and name in r.output and "does not open" in r.output, r.output


def test_a_redraw_gives_the_same_value_and_a_second_commitment_is_refused(tmp_path):
    t = _table(tmp_path, 3)
    t.play_until(lambda side: len(axis_secret_words(t)) == 4, limit=20)
    first = axis_secret_words(t)
    s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    v1 = s.draws.known("axis")
    store_path(t.dirs["axis"]).unlink()               # drawn again from nothing kept
    s2 = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    assert s2.draws.known("axis") == v1 and axis_secret_words(t) == first
    # the commitment is fixed by the axis's dice secret: signing again gives the same line
    line = next(x for x in read_file(next((t.dirs["axis"] / "files").glob("0001-axis.pbem")))
                .payload.orders if x.startswith("draws commit "))
    from pbem.core.privatedraw import commitment
    assert line == "draws commit " + commitment(s.genesis.game_id, "axis",
                                                draw_key(s.own.root_secret()))
    # a player cannot write a draw line, and a second commitment is refused
    orders = t.tmp / "cheat.txt"
    orders.write_text("draws commit " + "cd" * 32 + "\nend\n")
    side = t.mover()
    r = t.run("check", str(t.dirs[side]), str(orders))
    assert r.exit_code != 0 and "PBEM-DRAW" in r.output
    if side == "axis":
        bad = _axis_file_with(t, lambda o: ["draws commit " + "cd" * 32] + o)
        r = t.run("receive", str(t.dirs["allied"]), str(bad), "--key", t.key("allied"))
        assert r.exit_code == 3 and "already committed" in r.output, r.output


def test_a_draw_before_the_commitment_is_refused(tmp_path):
    t = _table(tmp_path, 5)
    # the axis's first file without its commitment line: the draw in it is refused
    t.deliver()
    assert t.mover() == "axis"
    bad = _axis_file_with(t, lambda o: [x for x in o if not x.startswith("draws commit ")])
    r = t.run("receive", str(t.dirs["allied"]), str(bad), "--key", t.key("allied"))
    assert r.exit_code == 3 and "before axis's draw commitment" in r.output, r.output


def test_hosted_the_referee_draws_with_axis_dice_the_allied_view_never_holds_it(tmp_path):
    t = _table(tmp_path, 2, mode="hosted")
    seen = shown = False
    for _ in range(200):
        t.deliver()
        host = ops.open_session(t.dirs["host"])
        secret = host.state.secret
        if secret and not host.state.objective:
            seen = True
            theirs = stored_text(t.dirs["allied"])
            assert f"Objective: {secret} (secret)" not in theirs
            assert f'"secret":"{secret}"' not in theirs
            assert "objective (CUP-2)" not in theirs      # the roll's purpose: axis dice only
            mine = stored_text(t.dirs["axis"])
            if len(list((t.dirs["axis"] / "files").glob("view-*.pbem"))) > 1:   # his view came
                assert "objective (CUP-2)" in mine and f"Objective: {secret} (secret)" in mine
                shown = True
        if t.mover() is None:
            break
        t.play_one()
    assert seen and shown
    from pbem.protocol.session import load

    roll = next(r for log in load(t.dirs["host"]).log for r in log.rolls
                if r.purpose.startswith("objective"))
    assert roll.visible_to == "axis" and roll.sides == 2
    t.ok("verify", str(t.dirs["host"]))


def test_an_opening_due_after_the_owners_own_last_file_goes_in_his_next_file(tmp_path):
    """The axis's own 'end' ends the game (scenario axis-last) and the rules then need his
    objective opened: no receive follows to write an automatic reply, so his status says to
    submit, and his next file, orders or none, opens it first; the game ends and verifies."""
    t = Table(tmp_path, game="cup", scenario="axis-last", mode="peer", sides=SIDES)
    t.rng.seed(3)
    for _ in range(60):
        t.deliver()
        s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
        if CUP.pending(s.state) and CUP.pending(s.state)[0].kind == REVEAL_KIND:
            break
        assert t.mover() is not None
        t.play_one()
    assert s.ledger.turn(s.ledger.tip_seq).sender == "axis" and not s.unresolved()
    status = t.ok("status", str(t.dirs["axis"]), "--key", t.key("axis")).output
    assert "made the rules need your private draw opened" in status, status
    assert t.mover() == "axis"
    last = t.play_one([])                 # an empty orders file: the processor opens the draw
    assert read_file(Path(last)).payload.orders[0].startswith("draws reveal ")
    t.deliver()
    for side in SIDES:
        s = ops.open_session(t.dirs[side], key_path=t.key(side))
        assert s.state.objective in ("north", "south") and CUP.outcome(s.state) is not None
        t.ok("verify", str(t.dirs[side]))
