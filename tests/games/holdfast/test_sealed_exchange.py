"""Holdfast in sealed mode through the real commands (docs/sealed.md, issue 10): complete games
played bot against bot by signed files verify with both final reveals; no byte that one side
receives or stores holds a hidden fact of the other side before the rules reveal it; and a
player who cheats on a hidden value is caught by `pbem verify`'s full replay, naming the file,
the order and the rule, with the archive untouched."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from fixtures.sealed_leaks import check_no_leak as _check_no_leak
from fixtures.table import Table, snapshot
from pbem.core.records import Turn, read_file
from pbem.games.holdfast.data import world
from pbem.games.holdfast.game import GAME
from pbem.protocol import ops

SIDES = ("allied", "axis")
W = world("race-to-tunis")


def _table(tmp_path: Path, seed: int) -> Table:
    t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", mode="sealed", sides=SIDES)
    t.rng.seed(seed)
    return t


@pytest.mark.parametrize("seed", range(4))
def test_sealed_games_play_to_the_end_verify_and_leak_nothing_at_any_step(tmp_path, seed):
    t = _table(tmp_path, seed)
    steps = 0
    for _ in range(400):
        t.deliver()
        if t.status("allied")["over"]:
            break                        # the final reveals publish everything
        _check_no_leak(t)
        steps += 1
        if t.mover() is None:
            break
        t.play_one()
    t.play_to_end()
    assert steps > 5
    for side in SIDES:
        assert t.status(side)["over"]
        r = t.ok("verify", str(t.dirs[side]))
        assert "both final reveals are in" in r.output, r.output
    # what travelled: projections over slots, never a unit id of the sender's real orders
    for p in sorted((t.dirs["axis"] / "files").glob("0*-*.pbem")):
        turn = read_file(p).payload
        if isinstance(turn, Turn) and turn.final is msgspec.UNSET:
            for line in turn.orders:
                assert line.split()[0] in ("seen", "end", "allocate", "standing"), line


def test_pbem_demo_plays_a_sealed_campaign_and_verifies_both_archives(tmp_path):
    from click.testing import CliRunner

    from pbem.cli import cli

    r = CliRunner().invoke(cli, ["demo", str(tmp_path / "d"), "--game", "holdfast",
                                 "--scenario", "campaign", "--mode", "sealed", "--seed", "1",
                                 "--quiet"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert r.output.count(": OK") == 2 and "both final reveals are in" in r.output, r.output


# -- cheats -------------------------------------------------------------------------------
def _finish_and_verify(t: Table) -> list[str]:
    """Play the game to its end; `pbem verify` of each archive, each left untouched."""
    t.play_to_end()
    out = []
    for side in SIDES:
        before = snapshot(t.dirs[side])
        r = t.run("verify", str(t.dirs[side]))
        assert snapshot(t.dirs[side]) == before
        assert r.exit_code == 3, r.output
        out.append(r.output)
    return out


def _too_far(t: Table, side: str, public_bound: bool = True) -> str | None:
    """A move of one of side's blocks to a hex beyond its MP (reachable with 6 more), no
    longer than any block of side may move (public_bound: `sealed.most_steps`) or longer."""
    from pbem.games.holdfast.movement import allowance, reachable
    from pbem.games.holdfast.sealed import most_steps
    from pbem.games.holdfast.supply import in_supply

    s = ops.open_session(t.dirs[side], key_path=t.key(side))
    st = s.state
    if st.public.phase != "turn" or st.public.active != side or st.public.rp[side] < 1:
        return None
    for uid, u in sorted(st.private[side].units.items()):
        if u.where != "map" or u.moved or W.units[uid].type == "support":
            continue
        mp = allowance(W, W.units[uid], weather=st.public.weather, leader=False,
                       strategic=False, supplied=in_supply(st, W, side, uid))
        far = reachable(st, W, side, uid, mp + 6, False)
        near = reachable(st, W, side, uid, mp + 1, False)
        most = most_steps(W, side, st.public.weather, False)
        for dest, path in sorted(far.items()):
            steps = len(path) - 1 if path[0] == u.hex else len(path)
            if dest not in near and (steps <= most) == public_bound:
                return f"move {uid} {'-'.join(path)}"
    return None


def test_a_hidden_move_beyond_the_rules_is_caught_by_the_final_replay(tmp_path, monkeypatch):
    """HF-9.1-b: a cheating processor lets a block move further than its MP; the other side
    cannot tell (its MP is hidden), and `pbem verify` names the file, the order and the rule."""
    from pbem.games.holdfast import actions

    t = _table(tmp_path, 11)
    side = t.play_until(lambda s: _too_far(t, s) is not None)
    line = _too_far(t, side)
    orders = t.tmp / "cheat.txt"
    orders.write_text(f"{line}\nend\n")
    r = t.run("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    assert r.exit_code != 0 and "HF-9.1-b" in r.output     # the cheater's own processor
    with monkeypatch.context() as m:                         # a cheating processor
        m.setattr(actions, "allowance", lambda *a, **k: 99)
        out = t.mail(f"turn-{side}-cheat")
        t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", out)
    t.inbox.append((out, t.other(side)))
    cheat = f"{read_file(out).payload.seq:04d}-{side}.pbem"
    for output in _finish_and_verify(t):
        assert cheat in output and repr(line) in output and "HF-9.1-b" in output, output


def test_a_hidden_move_longer_than_any_block_may_move_is_refused_on_receipt(tmp_path,
                                                                           monkeypatch):
    """The attack: a cheating processor lets a block move further than any block of its side
    could (to reach a victory hex and end the game before anything is checked). Its MP is
    hidden, but the longest move of any block is public (`sealed.most_steps`: the largest
    allowance with a leader, over the cheapest step), so the receiver refuses the file: one
    line naming it and the order, HF-9.1-b, exit status 3, its archive untouched."""
    from pbem.games.holdfast import actions

    t = _table(tmp_path, 11)
    side = t.play_until(lambda s: _too_far(t, s, public_bound=False) is not None)
    line = _too_far(t, side, public_bound=False)
    orders = t.tmp / "cheat.txt"
    orders.write_text(f"{line}\nend\n")
    with monkeypatch.context() as m:                         # a cheating processor
        m.setattr(actions, "allowance", lambda *a, **k: 99)
        out = t.mail(f"turn-{side}-cheat")
        t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", out)
    to = t.other(side)
    before = snapshot(t.dirs[to])
    r = t.run("receive", str(t.dirs[to]), out, "--key", t.key(to), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 3 and len(lines) == 1, r.output
    assert Path(out).name in lines[0] and "seen move" in lines[0] and "HF-9.1-b" in lines[0]
    assert "no " + side + " block moves more than" in lines[0], lines[0]
    assert snapshot(t.dirs[to]) == before and not (t.tmp / "mail" / "never.pbem").exists()


def _turn_start(t: Table, side: str) -> bool:
    """side is to play a player turn in which nothing is activated yet (it may still buy)."""
    st = ops.open_session(t.dirs[side], key_path=t.key(side)).state
    return st.public.phase == "turn" and st.public.active == side and st.public.step != "act"


def test_a_purchase_at_a_price_the_rules_never_give_is_refused_on_receipt(tmp_path):
    """The attack: a cheating processor buys a step for 0 RP (`seen buy ?axis-N 1 rp 0`), so
    that its side keeps RP: its honest file, with that projection put first, signed again. The
    block's type is hidden but every price is public (HF-6-e), so the receiver refuses the
    file: one line naming it, exit status 3, its archive untouched."""
    from fixtures.bcs_sealed import resign

    t = _table(tmp_path, 3)
    side = t.play_until(lambda s: _turn_start(t, s))
    orders = t.tmp / "end.txt"
    orders.write_text("end\n")
    honest = t.mail(f"turn-{side}")
    t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", honest)
    turn = read_file(honest).payload
    bad = resign(t, Path(honest), side, f"cheat-{Path(honest).name}",
                 orders=[f"seen buy ?{side}-1 1 rp 0", *turn.orders])
    to = t.other(side)
    before = snapshot(t.dirs[to])
    r = t.run("receive", str(t.dirs[to]), str(bad), "--key", t.key(to), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 3 and len(lines) == 1, r.output
    assert bad.name in lines[0] and "0 RP is not a price of 1 step" in lines[0]
    assert "HF-6-e" in lines[0], lines[0]
    assert snapshot(t.dirs[to]) == before and not (t.tmp / "mail" / "never.pbem").exists()


def test_a_strength_misstated_in_a_commitment_is_caught_by_the_final_replay(tmp_path,
                                                                           monkeypatch):
    """A cheating processor commits a block's strength one step higher than it is; the final
    replay recomputes every commitment from the real orders."""
    from pbem.games.holdfast import sealed

    t = _table(tmp_path, 12)
    side = t.play_until(lambda s: s == "axis" and t.status(s)["turn"] >= 1)
    honest = sealed.facts

    def lying(state, who):
        out = honest(state, who)
        return {k: v + 1 if who == side and k.endswith(".sp") else v for k, v in out.items()}

    with monkeypatch.context() as m:
        m.setattr(GAME, "facts", lying)
        out = t.play_one()
    seq = read_file(out).payload.seq
    lied = [c.fact for c in read_file(out).payload.commits or [] if c.fact.endswith(".sp")]
    assert lied, "the cheating file commits strengths"
    for output in _finish_and_verify(t):
        assert f"{seq:04d}-{side}.pbem" in output and "committed" in output, output
        assert ".sp" in output and "real orders do not give" in output, output


def test_an_allocation_against_the_committed_standing_order_is_caught(tmp_path, monkeypatch):
    """HF-G7 / PBEM-STANDING: a processor that answers its own pending hits against the
    standing 'hits' order it committed is named by the final replay."""
    from pbem.protocol import sealing

    honest = sealing.standing_reply

    def lying(s, queued=()):
        lines = honest(s, queued)
        if lines and lines[0].startswith("allocate "):
            units = lines[0].split()[1].split(",")
            if len(units) > 1:
                return ["allocate " + ",".join(reversed(units))]
        return lines

    monkeypatch.setattr(sealing, "standing_reply", lying)
    for seed in range(20, 30):
        t = _table(tmp_path / f"g{seed}", seed)
        t.play_to_end()
        bad = [p.name for p in sorted((t.dirs["allied"] / "files").glob("0*-*.pbem"))
               if any(o.startswith("allocate ") and "," in o
                      for o in getattr(read_file(p).payload, "orders", []))]
        r = t.run("verify", str(t.dirs["allied"]))
        if "PBEM-STANDING" in r.output:
            break
    else:
        pytest.skip("no allocation with a real choice came up in ten games")
    assert r.exit_code == 3 and any(name in r.output for name in bad), r.output
    assert "standing hits" in r.output, r.output


# -- guarded orders -----------------------------------------------------------------------
def _movable(t: Table, side: str) -> tuple[str, str, str] | None:
    """(a move the bot would make, the hex of an enemy block, a unit of side on the map) when
    side is to move in its turn; None otherwise."""
    s = ops.open_session(t.dirs[side], key_path=t.key(side))
    st = s.state
    if st.public.phase != "turn" or st.public.active != side:
        return None
    lines = GAME.bot(st, side, t.rng)
    moves = [x for x in lines if x.startswith("move ")]
    foe = [u.hex for u in st.private["allied" if side == "axis" else "axis"].units.values()
           if u.where == "map"]
    if not moves or not foe:
        return None
    return moves[0], foe[0], moves[0].split()[1]


def test_guarded_moves_travel_as_guarded_projections_and_pass_the_final_replay(tmp_path):
    """A guard on a hex reads only public block places, so a sealed game sends it with each
    branch projected; both processors choose the same branch, and the final replay checks the
    projection against the real guarded order."""
    t = _table(tmp_path, 5)
    side = t.play_until(lambda s: _movable(t, s) is not None)
    move, enemy_hex, _ = _movable(t, side)
    line = f"if {enemy_hex} held then {move} else {move}"
    out = t.play_one([line, "end"])
    sent = read_file(out).payload.orders
    assert sent[0].startswith(f"if {enemy_hex} held then seen move ?{side}-"), sent
    assert " else seen move ?" in sent[0] and move.split()[1] not in sent[0], sent
    t.deliver()
    events = t.ok("status", str(t.dirs[side])).output
    assert "Error" not in events
    t.play_to_end()
    for s in SIDES:
        r = t.ok("verify", str(t.dirs[s]))
        assert "both final reveals are in" in r.output, r.output


def test_a_guard_on_a_hidden_unit_or_around_an_attack_is_refused_in_one_line(tmp_path):
    """`UNIT alive` names a block the other side knows only by its slot, and an attack opens
    blocks whichever branch is taken: neither can be sent sealed; nothing is written."""
    t = _table(tmp_path, 5)
    side = t.play_until(lambda s: _movable(t, s) is not None)
    move, enemy_hex, unit = _movable(t, side)
    for lines, words in (([f"if {unit} alive then {move}", "end"], "reads a hidden fact"),
                         ([f"if {enemy_hex} clear then attack {enemy_hex} with {unit}", "end"],
                          "opens hidden facts")):
        orders = t.tmp / "guarded.txt"
        orders.write_text("\n".join(lines) + "\n")
        before = snapshot(t.dirs[side])
        r = t.run("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out",
                  str(t.tmp / "mail" / "never.pbem"))
        assert r.exit_code != 0 and words in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1, r.output
        assert snapshot(t.dirs[side]) == before


def test_a_block_placed_without_its_commitments_is_refused_on_receipt(tmp_path, monkeypatch):
    """The attack: a cheating processor places a block and never commits its unit and
    strength, to choose them when the rules open them. Facts made after a file's first die are
    committed by its sender's next file, so the receiver holds the sender's next file to it:
    every block slot of the sender on the map must be committed before that file is resolved.
    The file is refused in one line naming it, exit status 3 (the signed file proves it),
    PBEM-SEALED, the receiver's archive untouched. (A value chosen when it is first opened is
    caught by the final replay, which compares it with the real orders.)"""
    from pbem.protocol import session as session_mod

    t = _table(tmp_path, 5)
    t.deliver()
    side = t.mover()
    assert side is not None
    honest = GAME.facts
    hidden = f"{side}-1."

    def lying(state, who):
        return {k: v for k, v in honest(state, who).items()
                if who != side or not k.startswith(hidden)}

    to = t.other(side)
    for n in range(40):
        if t.mover() == side:
            with monkeypatch.context() as m:          # the cheating processor
                m.setattr(GAME, "facts", lying)
                m.setattr(session_mod.Session, "_check_committed", lambda *a: None, raising=False)
                out = t.play_one()
            turn = read_file(out).payload
            assert not any(c.fact.startswith(hidden) for c in turn.commits or [])
            if n:
                break
        else:
            t.play_one()
        t.deliver()
    else:
        raise AssertionError(f"{side} never sent a second file")
    path, dest = t.inbox.pop(0)
    assert dest == to
    before = snapshot(t.dirs[to])
    r = t.run("receive", str(t.dirs[to]), path, "--key", t.key(to), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 3 and len(lines) == 1, r.output
    assert Path(path).name in lines[0] and f"{side} never committed {hidden}sp" in lines[0]
    assert "[PBEM-SEALED]" in lines[0], lines[0]
    assert snapshot(t.dirs[to]) == before and not (t.tmp / "mail" / "never.pbem").exists()
