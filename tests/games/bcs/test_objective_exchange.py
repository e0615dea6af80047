"""BBF-4.0-a through the real signed-file exchange: scenario 5.4 (the Axis draws his Victory
Objective at his first order of 19 Feb) played bot against bot in peer mode. At every step
nothing the Allies store (files, armored payloads decoded, archive, caches, reports) holds the
objective, the Axis's draw key or his private share, though the place names are on the map;
the Axis's reports show his objective; his processor opens it at the end, which decides the
campaign result (BbF 4.1), and both archives verify. In hosted mode the referee draws it with
Axis dice only."""

from __future__ import annotations


from click.testing import CliRunner

from fixtures.stored import stored_text
from fixtures.table import Table
from pbem.cli import cli
from pbem.core.privatedraw import draw_key, private_share
from pbem.games.bcs.objective import NAMES, OBJECTIVES, secret_words
from pbem.protocol import ops
from pbem.protocol.draws import store_path
from pbem.protocol.session import load

SIDES = ("allied", "axis")
ENTRY = ("entry_blocking=attack_from_off_map",)




def axis_words(t: Table) -> tuple[list[str], str]:
    """What would give the Axis's objective away, and the objective ('' until he knows it)."""
    s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    draw = s.state.objective_draw
    if draw is None:
        return [], ""
    key = draw_key(s.own.root_secret())
    words = [key.hex(), private_share(key, draw.seq).hex()]
    known = s.draws.known("axis").get("objective")
    obj = OBJECTIVES[known - 1] if known else ""
    return words + (secret_words(obj) if obj else []), obj


def test_BBF_4_0_a_the_objective_never_reaches_the_allies_before_the_end(tmp_path):
    t = Table(tmp_path, game="bcs", scenario="5.4", sides=SIDES, options=ENTRY)
    t.rng.seed(11)
    steps = known_steps = 0
    seen: dict[str, tuple[int, int]] = {}
    history = ""          # everything the Allies have stored so far (files may be rewritten)
    for _ in range(400):
        t.deliver()
        allied = load(t.dirs["allied"], use_cache=True)
        if not allied.state.objective:
            words, obj = axis_words(t)
            history += stored_text(t.dirs["allied"], seen)
            assert [w for w in words if w in history] == [], f"leak at step {steps}"
            assert allied.state.private["axis"].objective == ""
            assert not store_path(t.dirs["allied"]).exists()
            if obj:
                known_steps += 1
                mine = "\n".join(p.read_text() for p in (t.dirs["axis"] / "reports").rglob("*.txt"))
                assert f"Your Victory Objective: {NAMES[obj]}" in mine
                assert "Axis Victory Objective: drawn, secret" in \
                    "\n".join(p.read_text() for p in (t.dirs["allied"] / "reports").rglob("*.txt"))
        steps += 1
        if t.mover() is None:
            break
        t.play_one()
    assert known_steps > 3
    a = load(t.dirs["allied"])
    x = load(t.dirs["axis"])
    assert a.state.objective in OBJECTIVES and a.state.objective == x.state.objective
    assert a.game.outcome(a.state) is not None and "BbF 4.1" in a.game.outcome(a.state).reason
    orders = [line for f in a.ledger.files for line in f.payload.orders]
    assert sum(line.startswith("draws commit ") for line in orders) == 1
    assert sum(line.startswith("draws reveal ") for line in orders) == 1
    for side in SIDES:
        r = CliRunner().invoke(cli, ["verify", str(t.dirs[side])])
        assert r.exit_code == 0 and "OK: the archive verifies." in r.output, r.output


def test_BBF_4_0_a_hosted_the_referee_draws_with_axis_dice(tmp_path):
    t = Table(tmp_path, game="bcs", scenario="5.4", mode="hosted", sides=SIDES, options=ENTRY)
    t.rng.seed(5)
    for _ in range(6):
        t.deliver()
        if load(t.dirs["host"]).state.objective_draw is not None:
            break
        t.play_one()
    t.deliver()
    host = load(t.dirs["host"])
    obj = host.state.private["axis"].objective
    assert obj in OBJECTIVES
    roll = next(r for log in host.log for r in log.rolls if "Victory Objective" in r.purpose)
    assert roll.visible_to == "axis" and roll.sides == 2
    theirs = stored_text(t.dirs["allied"])
    assert not [w for w in secret_words(obj) if w in theirs]
    assert "Axis Victory Objective (BBF-4.0-a)" not in theirs     # the roll itself
