"""Private committed draws in a sealed game (docs/protocol.md section 6a, docs/sealed.md 5a),
through the real commands, on the test game Blind with a secret objective
(tests/fixtures/blindgame.py, ObjectiveBlindGame): red draws its objective with
`Context.private_draw`, a roll of red's class keyed with red's private share. Red's processor
and reports hold the value; nothing blue stores holds it, or red's fact key or private share,
before the rules open it; after the opening both sides agree on it and `pbem verify` passes on
both archives, the final replay drawing it again with red's fact key; a forged opening is
refused with one line naming the file and the rule, the archive untouched; a value committed
against the dice is named by `pbem verify`."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec
import pytest

from fixtures.blindgame import OBJECTIVE, OBJECTIVE_BASE, OBJECTIVE_GAME as GAME
from fixtures.stored import stored_text
from fixtures.table import Table, snapshot
from pbem.core.commitment import fact_key, private_share, salt
from pbem.core.keys import load_private
from pbem.core.records import Turn, read_file, seal
from pbem.core.registry import register
from pbem.protocol import ops
from pbem.protocol.session import load

register(GAME)


def _table(tmp_path: Path, seed: int) -> Table:
    t = Table(tmp_path, game=GAME.id, scenario="short", mode="sealed")
    t.rng.seed(seed)
    return t


def _red(t: Table):
    return ops.open_session(t.dirs["red"], key_path=t.key("red"))


def _opened(t: Table) -> bool:
    return ops.open_session(t.dirs["blue"]).state.opened


def red_secret_words(t: Table) -> list[str]:
    """What would give red's objective away: its fact key, its private share of the drawn
    file, the salt of its objective's commitment (hex), and, once red knows the value, the
    value as red's reports and state write it."""
    s = _red(t)
    draws = GAME.private_draws(s.state)
    if not draws:
        return []
    key = fact_key(s.own.root_secret())
    words = [key.hex(), private_share(key, draws[0].seq).hex(), salt(key, OBJECTIVE, 0).hex()]
    if s.state.objective:
        words += [f"Objective: position {s.state.objective} (secret)",
                  f'"objective":{s.state.objective}']
    return words


def _real_value(t: Table, side: str) -> int:
    """The objective drawn again from side's archive with red's fact key (the final replay's
    dice): what the files prove it is."""
    s = load(t.dirs[side])
    d = GAME.private_draws(s.state)[0]
    key = fact_key(_red(t).own.root_secret())
    return OBJECTIVE_BASE + s.dice_for(d.seq, private_keys={"red": key}).roll(
        d.action, d.index, d.sides, "red")


def _opening_kind(t: Table) -> str:
    """How red's objective was opened in a finished game: by red's own attack, or in red's
    automatic reply to blue's order (with red's final reveal when that order ended the game)."""
    files = load(t.dirs["blue"]).ledger.files
    f = next(f.payload for f in files if f.payload.sender == "red"
             and any(op.fact == OBJECTIVE for op in f.payload.openings or []))
    if f.orders:
        return "own attack" if any(x.startswith("attack") for x in f.orders) else "?"
    return "reply with final" if f.final else "reply"


@pytest.mark.parametrize("seed", [1, 2, 3, "ends"])
def test_the_objective_stays_with_red_until_the_rules_open_it_then_both_agree(tmp_path, seed):
    """Bot games (the rules open the objective at red's own attack on or by a last block, in
    red's reply to such an attack of blue's, or in red's reply to blue's `end` of the last
    turn: which one the dice decide), and a game of `end`s only, which opens it in red's reply
    to blue's last `end`, that reply being red's final reveal too."""
    t = _table(tmp_path, 1 if seed == "ends" else seed)
    seen = checked = 0
    for _ in range(300):
        t.deliver()
        if not _opened(t):
            blue = ops.open_session(t.dirs["blue"])
            assert blue.state.objective == 0             # a stand-in draw: not known
            words = red_secret_words(t)
            theirs = stored_text(t.dirs["blue"])
            assert [w for w in words if w in theirs] == [], "blue stores red's objective"
            checked += 1
            if len(words) == 5:       # red knows it: its reports and its state cache hold it
                mine = stored_text(t.dirs["red"])
                assert words[3] in mine and words[4] in mine
                seen += 1
        side = t.mover()
        if side is None:
            break
        if seed != "ends":
            t.play_one()
        elif ops.open_session(t.dirs[side]).state.turn == 0:
            t.play_one([f"assign {side[0]}1 scout {side[0]}2 tank"])
        else:
            t.play_one(["end"])
    assert checked > 3 and seen > 2          # red knew its objective while it was secret
    red, blue = _red(t), ops.open_session(t.dirs["blue"], key_path=t.key("blue"))
    assert red.state.opened and blue.state.opened
    assert red.state.objective == blue.state.objective == _real_value(t, "blue")
    assert GAME.outcome(red.state) == GAME.outcome(blue.state) is not None
    assert GAME.public(red.state) == GAME.public(blue.state)
    assert _opening_kind(t) in (("reply with final",) if seed == "ends" else
                                ("own attack", "reply", "reply with final"))
    for side in t.sides:
        r = t.ok("verify", str(t.dirs[side]))
        assert "both final reveals are in" in r.output, r.output


def test_red_reports_show_the_objective_and_blue_reports_say_drawn_secret(tmp_path):
    t = _table(tmp_path, 4)
    t.play_until(lambda side: len(red_secret_words(t)) == 5 and not _opened(t), limit=20)
    line = red_secret_words(t)[3]
    red_reports = "\n".join(p.read_text() for p in (t.dirs["red"] / "reports").rglob("*.txt"))
    blue_reports = "\n".join(p.read_text() for p in (t.dirs["blue"] / "reports").rglob("*.txt"))
    assert line in red_reports
    assert "Objective: drawn, secret" in blue_reports and line not in blue_reports
    # red's report made again without its key (`pbem report`) replays red's archive with its
    # private dice stood in, as for Blind's veteran rolls: the draw shows as not known, never
    # as the stand-in's value
    out = tmp_path / "red.txt"
    t.ok("report", str(t.dirs["red"]), "--side", "red", "--format", "text", "--out", str(out))
    assert "Objective: drawn, secret" in out.read_text()
    assert "Objective: position" not in out.read_text()


def _opens_objective(path: str) -> bool:
    t = read_file(path).payload
    return t.sender == "red" and any(op.fact == OBJECTIVE for op in t.openings or [])


def _to_the_opening(tmp_path: Path, seed: int) -> tuple[Table, Path]:
    """A game played until red's processor has signed the file that opens its objective (its
    own attack, or its automatic reply to blue's order that ends the game); that file, not
    yet delivered to blue."""
    t = _table(tmp_path, seed)
    for _ in range(400):
        if t.inbox:
            path, to = t.inbox[0]
            if to == "blue" and _opens_objective(path):
                t.inbox.pop(0)
                return t, Path(path)
            t.deliver_one()
            continue
        assert t.mover() is not None, "the game ended without opening the objective"
        t.play_one()
    raise AssertionError("no opening")


def _resigned(t: Table, turn: Turn, name: str) -> Path:
    bad = t.tmp / "mail" / name
    bad.write_text(seal(turn, load_private(t.key("red")), name=bad.name).text)
    return bad


@pytest.mark.parametrize("forge", ["value", "key"])
def test_a_forged_opening_is_refused_with_one_line_and_the_archive_untouched(tmp_path, forge):
    t, opening = _to_the_opening(tmp_path, 2)
    turn: Turn = read_file(opening).payload  # type: ignore[assignment]
    op = next(o for o in turn.openings if o.fact == OBJECTIVE)
    if forge == "value":                 # another objective, under the honest salt
        lie = OBJECTIVE_BASE + 1 if op.value != OBJECTIVE_BASE + 1 else OBJECTIVE_BASE + 2
        changed = msgspec.structs.replace(op, value=lie)
    else:                                # the same value, salted with another fact key
        changed = msgspec.structs.replace(op, salt=salt(bytes(32), OBJECTIVE, op.version).hex())
    forged = msgspec.structs.replace(turn, openings=[changed if o is op else o
                                                     for o in turn.openings])
    bad = _resigned(t, forged, "forged-objective.pbem")
    before = snapshot(t.dirs["blue"])
    r = t.run("receive", str(t.dirs["blue"]), str(bad), "--key", t.key("blue"), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    assert r.exit_code == 3, r.output      # red signed the commitment the opening contradicts
    assert len(r.output.strip().splitlines()) == 1, r.output
    assert "forged-objective.pbem" in r.output and "PBEM-SEALED" in r.output, r.output
    assert "the opening of objective (version 0) does not match red's commitment" in r.output
    assert snapshot(t.dirs["blue"]) == before
    assert not (t.tmp / "mail" / "never.pbem").exists()
    # an archive holding the forged file fails its audit, naming the file and the rule
    copy = tmp_path / "audit"
    shutil.copytree(t.dirs["blue"], copy)
    name = f"{turn.seq:04d}-red.pbem"
    (copy / "files" / name).write_text(read_file(bad).text)
    r = t.run("verify", str(copy))
    assert r.exit_code == 3 and name in r.output and "PBEM-SEALED" in r.output, r.output
    # the honest opening is taken, and the game ends and verifies on both sides
    t.inbox.insert(0, (str(opening), "blue"))
    t.play_to_end()
    t.deliver()
    for side in t.sides:
        s = ops.open_session(t.dirs[side], key_path=t.key(side))
        assert s.state.opened and s.state.objective == op.value
        assert "both final reveals are in" in t.ok("verify", str(t.dirs[side])).output


def test_an_objective_committed_against_the_dice_is_named_by_the_final_replay(tmp_path,
                                                                             monkeypatch):
    """Red's processor, patched, commits and opens another objective than its dice drew: the
    opening matches the commitment, so blue takes it; the final replay draws the objective
    again with red's fact key and names red's file that committed the false value."""
    from fixtures.blindgame import ObjectiveBlindGame

    honest = ObjectiveBlindGame._assign

    def lying(self, state, side, order, ctx):
        honest(self, state, side, order, ctx)
        if side == "red" and state.objective:        # only red's own processor knows it
            state.objective = OBJECTIVE_BASE + 1 + (state.objective - OBJECTIVE_BASE) % 3

    with monkeypatch.context() as m:
        m.setattr(ObjectiveBlindGame, "_assign", lying)
        t = _table(tmp_path, 1)
        t.play_to_end()
        t.deliver()
        told = ops.open_session(t.dirs["blue"]).state.objective
    assert told and told != _real_value(t, "blue")
    commits = [f.payload for f in load(t.dirs["blue"]).ledger.files
               if any(c.fact == OBJECTIVE for c in f.payload.commits or [])]
    assert [x.sender for x in commits] == ["red"]
    name = f"{commits[0].seq:04d}-red.pbem"
    for side in t.sides:
        r = t.run("verify", str(t.dirs[side]))
        assert r.exit_code == 3, r.output
        assert name in r.output and f"committed {OBJECTIVE} (version 0)" in r.output, r.output


def test_a_sealed_game_with_a_private_draw_is_accepted_and_its_draw_is_a_red_roll(tmp_path):
    """`pbem new --mode sealed` takes a game that declares private draws; the draw is a roll of
    red's class keyed with red's private share: red's processor logs it, blue's log and the
    results in the files never carry it."""
    t = _table(tmp_path, 5)
    t.play_until(lambda side: len(red_secret_words(t)) == 5, limit=20)
    blue = load(t.dirs["blue"])
    assert not [r for log in blue.log for r in log.rolls if r.purpose.startswith("objective")]
    for f in blue.ledger.files:
        res = f.payload.results
        assert res is None or not any(r.purpose.startswith("objective") for r in res.rolls)
    red = load(t.dirs["red"], key=load_private(t.key("red")))
    mine = [r for log in red.log for r in log.rolls if r.purpose.startswith("objective")]
    assert [(r.visible_to, r.sides) for r in mine] == [("red", 3)]
    assert OBJECTIVE_BASE + mine[0].value == _red(t).state.objective == _real_value(t, "blue")


def test_a_peer_game_of_a_game_without_the_peer_draw_hooks_is_refused_at_new_and_at_join(
        tmp_path, monkeypatch):
    """The Blind game with a secret objective draws privately but has none of the hooks a peer
    game's draws need (draws_due, disclose_draws): `pbem new --mode peer` refuses it with one
    line and writes nothing, and a peer proposal made by a processor that skipped the check is
    refused by `pbem join` with one line naming the file, instead of failing in the middle of
    a later receive."""
    from click.testing import CliRunner

    import pbem.protocol.draws as draws_mod
    import pbem.protocol.genesis as genesis_mod
    from pbem.cli import cli

    run = CliRunner().invoke
    for p in ("red", "blue"):
        assert run(cli, ["keygen", p, "--dir", str(tmp_path / "keys"),
                         "--no-passphrase"]).exit_code == 0
    new = ["new", GAME.id, "short", str(tmp_path / "red"), "--side", "red",
           "--key", str(tmp_path / "keys/red.key"), "--opponent",
           str(tmp_path / "keys/blue.pub"), "--out", str(tmp_path / "prop.pbem"), "--mode", "peer"]
    r = run(cli, new)
    assert r.exit_code != 0 and len(r.output.strip().splitlines()) == 1, r.output
    assert "lacks draws_due, disclose_draws for a peer game" in r.output, r.output
    assert not (tmp_path / "red").exists() and not (tmp_path / "prop.pbem").exists()

    monkeypatch.setattr(draws_mod, "owners", lambda game, scenario: ())
    monkeypatch.setattr(genesis_mod, "draw_owners", lambda game, scenario: ())
    assert run(cli, new).exit_code == 0
    monkeypatch.undo()
    r = run(cli, ["join", str(tmp_path / "prop.pbem"), "--key", str(tmp_path / "keys/blue.key"),
                  "--dir", str(tmp_path / "blue"), "--out", str(tmp_path / "acc.pbem")])
    assert r.exit_code != 0 and len(r.output.strip().splitlines()) == 1, r.output
    assert "prop.pbem" in r.output and "lacks draws_due, disclose_draws" in r.output, r.output
    assert not (tmp_path / "blue").exists() and not (tmp_path / "acc.pbem").exists()
