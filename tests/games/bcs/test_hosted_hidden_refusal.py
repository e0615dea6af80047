"""A hosted referee never refuses a file for a fact hidden from its writer (docs/protocol.md
section 7, "A refused file"; threat table: "Probe hidden units with refused files").

The attack: with the house option `stack_count_visible=one_plus` (BBF-G23) an enemy stack shows
its top unit and '1+'. Centauro's aosta-mg (Unprepared: no ZOC, 1.2d) stands in A21.10, alone in
one game and with v-7-brs (Prepared: a ZOC, 6.0a) under it in the other; the Allies' views are
the same byte for byte. The Allies send 'move 3-6-arminf A20.11 A20.10', which their own check
passes. Before the fix the referee refused it in the second game only, with a signed rejection
naming the STOP in A20.11 (6.0g-1): the Allies learned the hidden unit for free and signed file 1
again with other orders. Now the file is taken in both games: the move is carried out where
nothing hidden stops it, and carried out up to A20.11 where the hidden ZOC stops it, the Allies
told only the rule; the move is spent either way, as a move tried at a table is (a review found
that skipping it whole left the unit free to move again: still a free probe). A file their own
view refuses is still refused, with the reason that view gives."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import msgspec

from fixtures.bcs_position import start_from, verify_all
from fixtures.table import Table
from pbem.core.records import Rejection, read_file

SIDES = ("allied", "axis")
OPTIONS = ("entry_blocking=attack_from_off_map", "stack_count_visible=one_plus")
PROBE = "move 3-6-arminf A20.11 A20.10"


def _position(hidden: bool) -> dict:
    units = [{"id": "ccc-hq", "hex": "A18.12"},
             {"id": "3-6-arminf", "hex": "A19.11", "face": "deployed"},
             {"id": "centauro-hq", "hex": "A24.10"}, {"id": "aosta-mg", "hex": "A21.10"}]
    if hidden:
        units.append({"id": "v-7-brs", "hex": "A21.10"})
    return {"scenario": "5.4", "next_side": "allied", "units": units, "active": "ccc",
            "options": {"stack_count_visible": "one_plus"}}


def _game(tmp_path: Path, monkeypatch, hidden: bool) -> Table:
    start_from(monkeypatch, lambda: _position(hidden))
    t = Table(tmp_path / ("hidden" if hidden else "alone"), game="bcs", scenario="5.4",
              mode="hosted", sides=SIDES, options=OPTIONS)
    t.deliver()
    assert t.mover() == "allied"
    return t


def _view_state(t: Table) -> str:
    """The hash of the `state` of the Allies' latest view (what they know)."""
    last = sorted((t.dirs["allied"] / "files").glob("view-*.pbem"))[-1]
    state = msgspec.json.decode(read_file(last).payload_bytes)["state"]
    return hashlib.sha256(msgspec.json.encode(state, order="sorted")).hexdigest()


def _send(t: Table, lines: list[str]) -> tuple[int, str, Path]:
    """The Allies check, sign and send lines; the referee receives them: (exit, output, out)."""
    orders = t.tmp / f"orders-{t.n}.txt"
    orders.write_text("\n".join(lines) + "\n")
    r = t.run("check", str(t.dirs["allied"]), str(orders))
    assert r.exit_code == 0, r.output                  # the Allies' own view allows it
    sent = t.mail("turn-allied")
    t.ok("submit", str(t.dirs["allied"]), str(orders), "--key", t.key("allied"), "--out", sent)
    out = t.tmp / "mail" / f"views-{t.n:04d}"
    t.n += 1
    r = t.run("receive", str(t.dirs["host"]), sent, "--key", t.key("host"), "--out", str(out))
    return r.exit_code, r.output, out


def _unit_hex(t: Table, unit: str) -> str:
    last = sorted((t.dirs["allied"] / "files").glob("view-*.pbem"))[-1]
    own = msgspec.json.decode(read_file(last).payload_bytes)["state"]["own"]
    return next(p["hex"] for p in own if p["id"] == unit)


def test_a_move_stopped_by_a_hidden_unit_is_not_refused_and_tells_only_the_rule(tmp_path,
                                                                                  monkeypatch):
    alone = _game(tmp_path, monkeypatch, hidden=False)
    seen = _view_state(alone)
    code, output, out = _send(alone, [PROBE, "pass"])
    assert code == 0, output
    for v in sorted(out.glob("view-allied-*.pbem")):
        alone.ok("receive", str(alone.dirs["allied"]), str(v), "--key", alone.key("allied"))
    assert _unit_hex(alone, "3-6-arminf") == "A20.10"
    verify_all(alone)                       # (verify replays from the position set now)

    hidden = _game(tmp_path, monkeypatch, hidden=True)
    assert _view_state(hidden) == seen      # the Allies cannot tell the two games apart
    code, output, out = _send(hidden, [PROBE, "pass"])
    # before the fix: exit 1 and a signed rejection 'has stopped in A20.11 ... [BCS-6.0g-1]'
    assert code == 0, output
    assert not list((hidden.dirs["host"] / "files").glob("reject-*"))
    assert not out.is_file() and not list(out.glob("reject-*"))
    views = sorted(out.glob("view-allied-*.pbem"))
    assert len(views) == 1                  # the Allies still decide: they get the new tip
    hidden.ok("receive", str(hidden.dirs["allied"]), str(views[0]), "--key",
              hidden.key("allied"))
    # carried out as far as the hidden ZOC allows: the stack stops where it is stopped (6.0g),
    # as at a table; the probe is not free (the move is spent)
    assert _unit_hex(hidden, "3-6-arminf") == "A20.11"
    view = msgspec.json.decode(read_file(views[0]).payload_bytes)
    told = [e["text"] for e in view["events"]]
    assert (f"Order 1 '{PROBE}' was stopped short: a fact your view does not show forbids it "
            "[BCS-6.0g-1] [PBEM-HIDDEN]; carried out as 'move 3-6-arminf A20.11'") in told, told
    text = json.dumps(view)
    assert "v-7-brs" not in text and "A20.11 and cannot move on" not in text
    # the Allies' own check now refuses to go on: the unit has stopped
    orders = hidden.tmp / "on.txt"
    orders.write_text("move 3-6-arminf A20.10\n")
    r = hidden.run("check", str(hidden.dirs["allied"]), str(orders))
    assert r.exit_code == 1, r.output
    # the game goes on from the new tip, and every archive verifies
    code, output, out = _send(hidden, ["end", "done"])
    assert code == 0, output
    hidden.deliver()
    verify_all(hidden)


def test_a_file_the_writer_s_own_view_refuses_is_refused_with_that_view_s_reason(tmp_path,
                                                                                 monkeypatch):
    """A modified client sends a move its own check refuses (beyond 3-6-arminf's 4 MP, with a
    hidden STOP on its way): the rejection names what the view shows, never the hidden STOP."""
    from pbem.core.keys import load_private
    from pbem.core.records import Turn, seal
    from pbem.protocol.archive import Archive
    from pbem.protocol.hosted import load_player
    from pbem.protocol.session import own_onion

    t = _game(tmp_path, monkeypatch, hidden=True)
    line = "move 3-6-arminf A20.11 A20.10 A20.09 A20.08 A20.07"
    orders = t.tmp / "too-far.txt"
    orders.write_text(line + "\n")
    r = t.run("check", str(t.dirs["allied"]), str(orders))
    assert r.exit_code == 1, r.output
    known = r.output.strip().splitlines()[0].split(": ", 2)[-1]
    assert "A20.11" not in known.split("'")[-1], known
    ps = load_player(Archive(t.dirs["allied"]))
    v = ps.latest
    key = load_private(t.key("allied"))
    own = own_onion(Archive(t.dirs["allied"]), ps.genesis, "allied", key)
    f = seal(Turn(game_id=ps.genesis.game_id, seq=v.seq + 1, prev=v.tip, sender="allied",
                  reveal=own.main.element(v.seq + 1).hex(), orders=[line]),
             key, name=f"{v.seq + 1:04d}-allied.pbem")
    (t.dirs["allied"] / "files" / f.name).write_text(f.text)      # as a modified client would
    sent = t.tmp / "too-far.pbem"
    sent.write_text(f.text)
    rej_path = t.tmp / "rejection.pbem"
    r = t.run("receive", str(t.dirs["host"]), str(sent), "--key", t.key("host"), "--out",
              str(rej_path))
    assert r.exit_code == 1, r.output
    rej = read_file(rej_path).payload
    assert isinstance(rej, Rejection) and rej.order == 1
    assert f"{rej.reason} [{rej.rule}]" in known, (rej, known)
    assert "stopped" not in rej.reason and rej.rule != "BCS-6.0g-1"
    t.ok("receive", str(t.dirs["allied"]), str(rej_path), "--key", t.key("allied"))
    t.ok("verify", str(t.dirs["host"]))
    t.ok("verify", str(t.dirs["allied"]))


def test_after_a_die_a_hidden_stop_still_tells_only_the_rule(tmp_path, monkeypatch):
    """The file's own SNAFU die comes first ('activate ccc'): the orders after it are not judged
    before resolution, and one a hidden fact stops is carried out only as far as the full state
    allows, as after any die. Its writer is told what his own view at that point gives, never
    the full state's reason: the probe's STOP in A20.11 is told as the rule alone (before, the
    view said '3-6-arminf has stopped in A20.11 and cannot move on': the hex of the hidden ZOC,
    for any file that activates first), and the next move, written to go on from A20.10, with
    the reason his view now shows (the unit has stopped in A20.11, which the probe told him)."""
    from pbem.games.bcs import snafu

    def position():
        p = _position(True)
        del p["active"]                        # the Allies activate CCC themselves: a die
        return p

    start_from(monkeypatch, position)
    monkeypatch.setattr(snafu, "snafu_drms", lambda state, form: [("test", 12)])   # a Pass
    t = Table(tmp_path, game="bcs", scenario="5.4", mode="hosted", sides=SIDES, options=OPTIONS)
    t.deliver()
    assert t.mover() == "allied"
    on = "move 3-6-arminf A20.09"
    code, output, out = _send(t, ["activate ccc", PROBE, on, "pass"])
    assert code == 0, output
    views = sorted(out.glob("view-allied-*.pbem"))
    assert len(views) == 1
    view = msgspec.json.decode(read_file(views[0]).payload_bytes)
    told = [e["text"] for e in view["events"]]
    assert any("SNAFU" in x and "Pass" in x for x in told), told
    probe = next(x for x in told if f"'{PROBE}' was stopped short" in x)
    assert probe.endswith("a fact your view does not show forbids it [BCS-6.0g-1] "
                          "[PBEM-HIDDEN]; carried out as 'move 3-6-arminf A20.11'"), probe
    far = next(x for x in told if f"'{on}' was not carried out after the dice" in x)
    assert far.endswith("3-6-arminf has stopped in A20.11 and cannot move on [BCS-6.0g-1]"), far
    assert "v-7-brs" not in json.dumps(view)
    t.ok("receive", str(t.dirs["allied"]), str(views[0]), "--key", t.key("allied"))
    code, output, out = _send(t, ["end", "done"])
    assert code == 0, output
    t.deliver()
    verify_all(t)
