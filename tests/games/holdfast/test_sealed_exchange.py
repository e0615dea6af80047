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


def _too_far(t: Table, side: str) -> str | None:
    """A move of one of side's blocks to a hex beyond its MP (reachable with 6 more)."""
    from pbem.games.holdfast.movement import allowance, reachable
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
        for dest, path in sorted(far.items()):
            if dest not in near:
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
