"""A hosted player's receive re-checks a referee's rejection on the stand-in of his own view
(pbem.protocol.rejection.view_refusal): an honest referee's rejection must pass that re-check
and both audits, whatever illegal file a modified client sent."""

from __future__ import annotations

from pathlib import Path

from fixtures.bcs_position import start_from
from fixtures.table import Table
from pbem.core.records import Rejection, read_file

SIDES = ("allied", "axis")
OPTIONS = ("entry_blocking=attack_from_off_map", "stack_count_visible=one_plus")
DRAW = "draws commit " + "ab" * 32


def _position(active: bool) -> dict:
    p = {"scenario": "5.4", "next_side": "allied",
         "units": [{"id": "ccc-hq", "hex": "A18.12"},
                   {"id": "3-6-arminf", "hex": "A19.11", "face": "deployed"},
                   {"id": "centauro-hq", "hex": "A24.10"}, {"id": "aosta-mg", "hex": "A21.10"},
                   {"id": "v-7-brs", "hex": "A21.10"}],
         "options": {"stack_count_visible": "one_plus"}}
    if active:
        p["active"] = "ccc"
    return p


def _illegal(t: Table, side: str, lines: list[str]) -> Path:
    """A signed, chained file with lines its writer's check never ran (a modified client)."""
    from pbem.core.keys import load_private
    from pbem.core.records import Turn, seal
    from pbem.protocol.archive import Archive
    from pbem.protocol.hosted import load_player
    from pbem.protocol.session import own_onion

    ps = load_player(Archive(t.dirs[side]))
    v = ps.latest
    key = load_private(t.key(side))
    own = own_onion(Archive(t.dirs[side]), ps.genesis, side, key)
    f = seal(Turn(game_id=ps.genesis.game_id, seq=v.seq + 1, prev=v.tip, sender=side,
                  reveal=own.main.element(v.seq + 1).hex(), orders=lines),
             key, name=f"{v.seq + 1:04d}-{side}.pbem")
    (t.dirs[side] / "files" / f.name).write_text(f.text)
    p = t.tmp / f"illegal-{t.n}.pbem"
    t.n += 1
    p.write_text(f.text)
    return p


def _refused_then_received(t: Table, side: str, lines: list[str]) -> Rejection:
    sent = _illegal(t, side, lines)
    rej = t.tmp / f"rejection-{t.n}.pbem"
    t.n += 1
    r = t.run("receive", str(t.dirs["host"]), str(sent), "--key", t.key("host"), "--out",
              str(rej))
    assert r.exit_code == 1 and "refused" in r.output, r.output
    t.ok("verify", str(t.dirs["host"]))                  # the referee's audit takes it
    r = t.run("receive", str(t.dirs[side]), str(rej), "--key", t.key(side))
    assert r.exit_code == 0, r.output                     # and so must the player's re-check
    t.ok("verify", str(t.dirs[side]))
    return read_file(rej).payload


def test_a_draws_line_after_a_die_is_refused_alike_by_referee_and_player(tmp_path, monkeypatch):
    """'activate ccc' rolls the SNAFU die; the 'draws' line after it (a hosted game keeps no
    private draws: resolve refuses it wherever it stands) is refused by the honest referee, and
    the player's own re-check must give the same refusal, not call the referee a cheat."""
    start_from(monkeypatch, lambda: _position(active=False))
    t = Table(tmp_path, game="bcs", scenario="5.4", mode="hosted", sides=SIDES, options=OPTIONS)
    t.deliver()
    assert t.mover() == "allied"
    rej = _refused_then_received(t, "allied", ["activate ccc", DRAW])
    assert rej.order == 2


def test_a_draws_line_after_the_game_waits_is_refused_alike(tmp_path, monkeypatch):
    """The same after an order that hands the decision to the Axis (no die at all)."""
    start_from(monkeypatch, lambda: _position(active=True))
    t = Table(tmp_path, game="bcs", scenario="5.4", mode="hosted", sides=SIDES, options=OPTIONS)
    t.deliver()
    assert t.mover() == "allied"
    rej = _refused_then_received(t, "allied", ["end", "done", DRAW])
    assert rej.order == 3


def test_an_unmodified_client_never_signs_a_draws_line_the_referee_refuses(tmp_path,
                                                                          monkeypatch):
    """`pbem check` named a 'draws' line after a die only as a problem 'whatever the dice' and
    did not look past a wait at all, so `pbem submit` signed it; the referee refuses the file
    wherever the line stands. The player's own check now blocks it in any position."""
    start_from(monkeypatch, lambda: _position(active=False))
    t = Table(tmp_path, game="bcs", scenario="5.4", mode="hosted", sides=SIDES, options=OPTIONS)
    t.deliver()
    for lines in (["activate ccc", DRAW], ["activate ccc", "end", "done", DRAW], [DRAW]):
        orders = tmp_path / "orders.txt"
        orders.write_text("\n".join(lines) + "\n")
        r = t.run("submit", str(t.dirs["allied"]), str(orders), "--key", t.key("allied"),
                  "--out", str(tmp_path / "sent.pbem"))
        assert r.exit_code == 1, (lines, r.output)
        assert "a 'draws' line is written by the owner's processor" in r.output, r.output
        assert not (tmp_path / "sent.pbem").exists()
