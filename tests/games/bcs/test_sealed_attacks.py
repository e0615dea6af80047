"""Attacks on Baptism By Fire's sealed projections through the real commands (docs/sealed.md 5h,
"Threats of BbF's projections, and what catches them"), as tests/protocol/test_sealed.py does
for the test game Blind.

The tests set `BcsEngine.sealed_ready` for themselves (`fixtures.bcs_sealed.offered`, the
flag that kept the port back until session 16), so they hold whatever the engine says. One
whole honest game of 5.4 (heuristic bots, `fixtures.table.Table`, keys and dice drawn from a
seed so that it is the same game on every run, shared by the module) serves every attack: it keeps a copy of both
archives just before a file worth attacking is delivered; an attack restores that copy, changes
the file as a cheating processor would (its sender's own key signs it again; to play on, the
sender's archive keeps the forged file as its own), delivers it, and asserts what refuses it:
the receiver on receipt (one line naming the file and the problem, exit status 3 for a signed
proof, the receiver's archive untouched), the public hashes at the next exchange, or the final
replay of `pbem verify`. The same game is the leak test of the Axis's Victory Objective: the
Allied side stores nothing of it before the Axis opens it, and after the end the Allied archive
verifies and the result names it. About a minute and a half in all, the shared game most of it.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest

from fixtures.bcs_sealed import SIDES, Point, offered, play_watched, resign, table
from fixtures.seeded import seeded
from fixtures.stored import stored_text
from fixtures.table import Table, snapshot
from pbem.core.commitment import Opening, private_share, salt
from pbem.core.errors import IllegalFile
from pbem.core.records import Turn, read_file
from pbem.games.bcs.loader import STANDIN_MARK
from pbem.games.bcs.objective import NAMES, OBJECTIVES, secret_words
from pbem.protocol import ops
from pbem.protocol.sealing import side_fact_key
from pbem.protocol.session import load

SEED = 18
OBJ_FACT = "axis.objective"


def _orders(turn: Turn) -> list[str]:
    return [o for o in turn.orders if o != "standing sealed"]


def _session(t: Table, side: str):
    return ops.open_session(t.dirs[side], key_path=t.key(side))


def _dead(t: Table, side: str) -> list[str]:
    s = _session(t, side)
    return sorted(p.id for p in s.state.pieces.values()
                  if p.side == side and p.kind == "unit" and p.status == "dead")


def _top_move(o: str) -> bool:
    return o.startswith("move ") and re.search(r" opens .*\.unit", o) is not None


def _drawn(t: Table) -> bool:
    return bool(_session(t, "axis").state.private["axis"].objective)


WATCHERS = {
    # an Activation of the Axis that opens his Prepared Defense (and more) in his own file
    "opening": lambda t, x, to: x.sender == "axis" and bool(x.openings)
    and any(" opens axis.pd." in o for o in x.orders),
    # a move whose projection opens the new top of a stack (5.5e): the last one of the game
    "top": lambda t, x, to: any(_top_move(o) for o in x.orders),
    # a Replacement Phase answer, as its public outcome
    "repls": lambda t, x, to: any(o.startswith("seen repls ") for o in x.orders),
    # one whose sender has a unit in its Dead Pile
    "repls_dead": lambda t, x, to: any(o.startswith("seen repls ") for o in x.orders)
    and bool(_dead(t, x.sender)),
    # the Allies' Replacement Phase answer (they answer first) to an Axis with units in his
    # Dead Pile, who answers his own `repls` in his reply: the last one of the game
    "repls_to_dead": lambda t, x, to: x.sender == "allied"
    and any(o.startswith("seen repls ") for o in x.orders) and bool(_dead(t, to)),
    # a move that brings a unit onto the map unseen under another top, naming its arrival
    "arrival": lambda t, x, to: _brings_on_unseen(x),
    # such a move while another arrival of the unit's Formation is off the map: one whose units
    # could make the move (due, by that Entry hex), or only others
    "arrival_able": lambda t, x, to: _brings_on_unseen(x) and bool(_other_arrivals(t, x, to)[1]),
    "arrival_other": lambda t, x, to: _brings_on_unseen(x) and bool(_other_arrivals(t, x, to)[2]),
    # a file of Axis orders once his objective is drawn, long before the rules need it
    "axis_turn": lambda t, x, to: x.sender == "axis" and bool(_orders(x))
    and x.final is msgspec.UNSET and not any(o.startswith("open objective") for o in x.orders)
    and _drawn(t),
}


class ObjectiveWatch:
    """After every delivery until the Axis's opening reaches the Allies: nothing the Allied side
    stores (files, armored payloads decoded, archive, caches, reports) holds his objective's
    value in any form it travels or is stored in, his fact key or his private share of the
    draw's file."""

    def __init__(self, t: Table) -> None:
        self.t, self.seen, self.history = t, {}, ""
        self.words: list[str] = []
        self.obj = ""
        self.steps = 0               # steps checked with the objective drawn
        self.opened_at: int | None = None

    def __call__(self, t: Table, turn: Turn, to: str) -> None:
        if self.opened_at is not None:
            return
        if to == "allied" and any(o.startswith("open objective")
                                  for o in getattr(turn, "orders", [])):
            self.opened_at = turn.seq                # from here on the Allies may know it
            return
        new = stored_text(t.dirs["allied"], self.seen)
        if not self.obj:                # until it is drawn: what the Allies stored so far
            self.history += new
        if not self.obj and f'"{OBJ_FACT}"' in self.history:      # its commitment arrived
            s = _session(t, "axis")
            self.obj = s.state.private["axis"].objective
            assert self.obj in OBJECTIVES
            key = side_fact_key(s.own)
            draw = s.state.objective_draw
            self.words = [*secret_words(self.obj), f'"{self.obj}"', key.hex(),
                          private_share(key, draw.seq).hex(),
                          f"Victory Objective: {NAMES[self.obj]}"]
            new = self.history
        if self.obj:
            self.steps += 1
            found = [w for w in self.words if w in new]
            assert not found, f"the Allies store the Axis's objective ({found}) before its opening"


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """One whole honest sealed game of 5.4, the copies the attacks start from, the leak watch,
    and `pbem verify` of the Allied archive. An honest game whose processors part (the public
    hashes differ: a divergence of the port, not an attack) is recorded in `parted`, which
    `test_the_honest_game_plays_to_its_end` reports, and a second game is played."""
    parted = []
    for attempt in range(2):
        root = tmp_path_factory.mktemp("bcs-sealed")
        # the same game on every run (keys, dice secrets and bot from the seed): a game the OS
        # drew might not meet every point the attacks start from (a unit in a Dead Pile at a
        # Replacement Phase, a unit brought on unseen...); seed 18's meets them all (seed 11,
        # chosen before, brings no unit on unseen any more since every sealed file commits
        # every standing topic (session 30), which changed the files' bytes and so the dice;
        # under bcs-engine-7 seed 6 had stopped meeting it the same way)
        with offered(), seeded(f"bcs-sealed-attacks-{SEED + attempt}"):
            t = table(root / "game", SEED + attempt)
            watch = ObjectiveWatch(t)
            try:
                points = play_watched(t, root / "points", {**WATCHERS, "late": LateWatch()},
                                      last=("top", "repls_to_dead"), after_step=watch)
            except AssertionError as e:
                if "claim a different state" not in str(e) or attempt:
                    raise
                parted.append(f"seed {SEED + attempt}: {str(e)[-300:]}")
                continue
        with offered():
            audits = {"allied": t.run("verify", str(t.dirs["allied"]))}
        return SimpleNamespace(t=t, points=points, watch=watch, audits=audits, parted=parted)


@pytest.fixture
def sealed_bcs():
    with offered():
        yield


def _point(game, name: str) -> Point:
    if name not in game.points:
        pytest.fail(f"the shared game never met the point {name!r} (seed {SEED}): choose another")
    return game.points[name]


def _forge(t: Table, path: Path, tag: str, plant: bool = False, **changes) -> Path:
    """The file at path changed and signed again with its sender's key. plant: the sender's
    archive keeps the forged file as its own, as a cheating processor's would (to play on)."""
    turn = read_file(path).payload
    bad = resign(t, path, turn.sender, f"{tag}-{path.name}", **changes)
    if plant:
        (t.dirs[turn.sender] / "files" / f"{turn.seq:04d}-{turn.sender}.pbem").write_text(
            bad.read_text())
        # its cache named the honest file: rebuilt with its key (a keyless rebuild takes its
        # own private dice as stand-ins)
        t.ok("status", str(t.dirs[turn.sender]), "--key", t.key(turn.sender))
    return bad


def _refused(t: Table, to: str, bad: Path) -> str:
    """Deliver bad to `to`, which must refuse it with one line, exit status 3, its archive
    untouched; the line."""
    before = snapshot(t.dirs[to])
    r = t.run("receive", str(t.dirs[to]), str(bad), "--key", t.key(to), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 3 and len(lines) == 1, r.output
    assert bad.name in lines[0], r.output
    assert snapshot(t.dirs[to]) == before
    assert not (t.tmp / "mail" / "never.pbem").exists()
    return lines[0]


def test_the_honest_game_plays_to_its_end(game):
    """The shared game's first attempt did not part (see the fixture `game`)."""
    assert not game.parted, game.parted


def test_an_unfinished_honest_archive_is_never_reported_as_cheating_without_its_key(
        game, sealed_bcs, tmp_path):
    """Without a key, `pbem verify` cannot compute a side's own private dice mid-game (Air and
    Replacement Points, 5a), so the replay of that side's hidden outcomes stops there. It says
    so (exit status 1, 'not audited'), never exit status 3, which would accuse an honest
    player; with the side's key (`pbem verify --key`) the same archive is audited to its last
    file; once the game is over the final reveals give the audit everything (the fixture's
    `pbem verify` of the finished Allied archive). Another side's key is refused."""
    for name in ("repls", "repls_to_dead", "top"):
        t, _ = _point(game, name).restore(tmp_path / name)
        for side in SIDES:
            r = t.run("verify", str(t.dirs[side]))
            assert r.exit_code in (0, 1), (name, side, r.output)
            if r.exit_code == 0:
                keyed = t.run("verify", str(t.dirs[side]), "--key", t.key(side))
                assert keyed.exit_code == 0, keyed.output
            if r.exit_code == 1:
                lines = r.output.strip().splitlines()
                assert len(lines) == 1 and "not audited" in lines[0] and \
                    f"{side}'s private dice" in lines[0], r.output
                keyed = t.run("verify", str(t.dirs[side]), "--key", t.key(side))
                assert keyed.exit_code == 0 and "OK: the archive verifies." in keyed.output, \
                    keyed.output
                other = next(x for x in SIDES if x != side)
                wrong = t.run("verify", str(t.dirs[side]), "--key", t.key(other))
                assert wrong.exit_code == 1 and "this key is not" in wrong.output, wrong.output
    # whether a point meets the case depends on the game's dice (fresh secrets every run):
    # tests/protocol/test_sealed.py forces it
    assert game.audits["allied"].exit_code == 0, game.audits["allied"].output


# -- `pbem new` ------------------------------------------------------------------------------
def test_pbem_new_refuses_sealed_mode_for_bbf_while_it_is_not_offered(tmp_path, monkeypatch):
    """With `sealed_ready` False (how a port is kept back, as BbF's was until session 16,
    docs/sealed.md 5h): one line, nothing written."""
    from click.testing import CliRunner

    from pbem.cli import cli
    from pbem.games.bcs.engine import BcsEngine

    monkeypatch.setattr(BcsEngine, "sealed_ready", False)
    keys = tmp_path / "keys"
    for p in SIDES:
        r = CliRunner().invoke(cli, ["keygen", p, "--dir", str(keys), "--no-passphrase"])
        assert r.exit_code == 0, r.output
    out = tmp_path / "proposal.pbem"
    r = CliRunner().invoke(cli, [
        "new", "bcs", "5.4", str(tmp_path / "g"), "--side", "axis", "--key",
        str(keys / "axis.key"), "--opponent", str(keys / "allied.pub"), "--out", str(out),
        "--mode", "sealed", "--option", "entry_blocking=attack_from_off_map"])
    assert r.exit_code != 0
    assert r.output.strip() == ("Error: bcs cannot be played in sealed mode yet "
                                "(docs/sealed.md): choose --mode peer or --mode hosted")
    assert not out.exists() and not (tmp_path / "g").exists()


# -- threat 1: an `opens` list outside the fact grammar -----------------------------------------
def test_an_opens_list_naming_a_fact_outside_the_grammar_is_refused(game, sealed_bcs, tmp_path):
    pt = _point(game, "opening")
    t, path = pt.restore(tmp_path / "t")
    turn = read_file(path).payload
    i, line = next((i, o) for i, o in enumerate(turn.orders) if " opens axis.pd." in o)
    base, _, facts = line.partition(" opens ")
    forged = f"{base} opens axis-1.secret {facts}"
    orders = [*turn.orders[:i], forged, *turn.orders[i + 1:]]
    bad = _forge(t, path, "grammar", orders=orders)
    line = _refused(t, pt.to, bad)
    assert f"order {i + 1} {forged!r}" in line and "expected 'ORDER opens FACT ...'" in line
    with pytest.raises(IllegalFile) as e:        # the exception and its rule
        ops.receive_file(t.dirs[pt.to], str(bad), key_path=t.key(pt.to))
    assert e.value.rule == "PBEM-SEALED"


def test_an_opens_list_naming_a_fact_twice_is_refused(game, sealed_bcs, tmp_path):
    """A fact listed twice is no projection an honest processor writes: refused on receipt
    (before, only the final replay's comparison of projections would have named it)."""
    pt = _point(game, "opening")
    t, path = pt.restore(tmp_path / "t")
    turn = read_file(path).payload
    i, line = next((i, o) for i, o in enumerate(turn.orders) if " opens axis.pd." in o)
    forged = f"{line} {line.partition(' opens ')[2].split()[0]}"
    orders = [*turn.orders[:i], forged, *turn.orders[i + 1:]]
    bad = _forge(t, path, "twice", orders=orders)
    line = _refused(t, pt.to, bad)
    assert f"order {i + 1} {forged!r}" in line and "each once" in line, line


def test_an_opens_list_naming_the_other_side_s_fact_is_refused(game, sealed_bcs, tmp_path):
    """A fact name of the other side's form (`allied-3.unit` in an Axis file) reads as the
    sender's own fact, which the file never committed nor opens."""
    pt = _point(game, "opening")
    t, path = pt.restore(tmp_path / "t")
    turn = read_file(path).payload
    orders = [o.replace(" opens axis.pd.", " opens allied-3.unit axis.pd.") for o in turn.orders]
    bad = _forge(t, path, "owner", orders=orders)
    before = snapshot(t.dirs[pt.to])
    r = t.run("receive", str(t.dirs[pt.to]), str(bad), "--key", t.key(pt.to))
    assert r.exit_code != 0, r.output
    assert r.output.strip() == (f"Error: {bad.name}: an order reveals axis's allied-3.unit, "
                                "which the file does not open")
    assert snapshot(t.dirs[pt.to]) == before


# -- threat 3: an opening with another value than committed ---------------------------------
def test_an_opening_with_another_value_than_committed_is_refused(game, sealed_bcs, tmp_path):
    pt = _point(game, "opening")
    t, path = pt.restore(tmp_path / "t")
    turn = read_file(path).payload
    op = turn.openings[0]
    lie = (not op.value) if isinstance(op.value, bool) else \
        (op.value + 1 if isinstance(op.value, int) else f"{op.value}x")
    bad = _forge(t, path, "value", openings=[msgspec.structs.replace(op, value=lie),
                                             *turn.openings[1:]])
    line = _refused(t, pt.to, bad)
    assert f"the opening of {op.fact} (version {op.version}) does not match axis's " \
           "commitment [PBEM-SEALED]" in line, line


# -- threat 2: an `opens` list that leaves out the new top ----------------------------------
def test_an_opens_list_without_the_new_top_is_caught(game, sealed_bcs, tmp_path):
    """The move's projection drops the new top's `.unit .face` (and the file their openings),
    so the receiver never learns a unit the rules showed (5.5e). The receiver cannot tell on
    receipt. Where its public state then differs, the next exchange's public hashes part;
    where a later order of the cheater's moves the unit the receiver still holds as a
    stand-in in a way the stand-in may not, the receiver refuses that file (exit status 3, the
    order named: an earlier shared game, seed 4, met this); where the receiver knows the unit
    the order moves to the top, it refuses the file on arrival, since an order reveals a fact
    the file does not open (exit status 1, nothing stored: seed 11 met this); where neither
    (measured: the new top of the hex a stack left, a passing top, stays a stand-in while the
    public states agree; seed 11 met this too), only the final replay, which projects the real
    order, names the file and the order (exit status 3). The test takes whichever of these the
    shared game (SEED) meets."""
    pt = _point(game, "top")
    t, path = pt.restore(tmp_path / "t")
    turn = read_file(path).payload
    orders, dropped, which = [], set(), None
    for i, o in enumerate(turn.orders):
        m = re.match(r"^(move .*) opens (.*)$", o)
        if m and ".unit" in m.group(2) and which is None:
            keep = [f for f in m.group(2).split() if not f.endswith((".unit", ".face"))]
            dropped = set(m.group(2).split()) - set(keep)
            o = m.group(1) + (" opens " + " ".join(keep) if keep else "")
            which = (i, o)
        orders.append(o)
    assert dropped and which is not None
    openings = [op for op in turn.openings or [] if op.fact not in dropped]
    bad = _forge(t, path, "top", plant=True, orders=orders, openings=openings or msgspec.UNSET)
    t.inbox = [(str(bad), pt.to), *t.inbox]
    how = _play_on(t)
    print(f"{path.name}: caught by {how}")
    if how == "hashes":
        return
    if how.startswith("refused on arrival: "):   # the order reveals a unit the file hides
        assert bad.name in how and f"reveals {turn.sender}'s" in how, how
        return
    if how.startswith("refused: "):     # a later order of the cheater's is illegal on what
        assert f"-{turn.sender}" in how and "illegal order" in how, how   # the receiver knows
        return
    i, shown = which
    r = t.run("verify", str(t.dirs[pt.to]))              # the honest side's archive
    assert r.exit_code == 3, r.output
    assert f"{turn.seq:04d}-{turn.sender}.pbem: order {i + 1} {shown!r} is not what " \
           f"{turn.sender}'s real order" in r.output, r.output


def _play_on(t: Table, limit: int = 3000) -> str:
    """Deliver and play on to the end. 'hashes' if a processor refused a file because its
    results claim another public state, 'refused: LINE' if it refused one as a signed proof
    (exit status 3: an order illegal on what its side knows), 'refused on arrival: LINE' if it
    refused one whose order reveals a fact of its sender that the file does not open (exit
    status 1: nothing stored), 'end' if the game ended."""
    for _ in range(limit):
        while t.inbox:
            path, to = t.inbox.pop(0)
            reply = t.mail(f"reply-{to}")
            r = t.run("receive", str(t.dirs[to]), path, "--key", t.key(to), "--out", reply)
            if r.exit_code != 0:
                if "claim a different state" in r.output:
                    return "hashes"
                lines = r.output.strip().splitlines()
                if r.exit_code == 1 and "which the file does not open" in r.output:
                    assert len(lines) == 1, r.output
                    return f"refused on arrival: {lines[0]}"
                assert r.exit_code == 3 and len(lines) == 1, r.output
                return f"refused: {lines[0]}"
            if Path(reply).exists():
                t.inbox.append((reply, t.other(to)))
        if t.mover() is None:
            return "end"
        t.play_one()
    raise AssertionError("the game did not end")


# -- threat 4: false `seen repls` placements ------------------------------------------------
def _repls_forged(t: Table, path: Path, tag: str, item: str, plant: bool = False
                  ) -> tuple[Path, str]:
    turn = read_file(path).payload
    i = next(i for i, o in enumerate(turn.orders) if o.startswith("seen repls "))
    line = f"seen repls {item}"
    orders = [*turn.orders[:i], line, *turn.orders[i + 1:]]
    return _forge(t, path, tag, plant, orders=orders), f"order {i + 1} {line!r}"


@pytest.mark.parametrize("whose", ["own unit on the map", "other side's unit"])
def test_seen_repls_placing_a_unit_not_in_the_senders_dead_pile_is_refused(game, sealed_bcs,
                                                                           tmp_path, whose):
    pt = _point(game, "repls")
    t, path = pt.restore(tmp_path / "t")
    sender = read_file(path).payload.sender
    owner = sender if whose.startswith("own") else t.other(sender)
    s = _session(t, sender)
    unit = sorted(p.id for p in s.state.pieces.values() if p.side == owner and p.kind == "unit"
                  and p.status == "map" and STANDIN_MARK not in p.id)[0]
    bad, where = _repls_forged(t, path, "repls", f"{unit}@A20.10")
    line = _refused(t, pt.to, bad)
    assert where in line and f"{unit} is not one of {sender}'s units in the Dead Pile " \
                             "[BCS-9.4c-1]" in line, line


def test_seen_repls_placing_a_dead_unit_the_repls_did_not_place_parts_the_public_hashes(
        game, sealed_bcs, tmp_path):
    """A unit of the sender's Dead Pile brought back where the real answer placed nothing (or
    placed it elsewhere): the receiver accepts the file (the place is not checked on receipt:
    the owner computes where a rebuilt unit goes, 9.4c), but the public states part: the
    cheater's own processor refuses the honest side's next file (its results claim another
    state), and a cheating processor that ignores this has its own next file refused by the
    honest side, naming it. A cheater that also forges its results as the honest side computes
    them is left to the final replay, which projects the real answer (as the test above)."""
    pt = _point(game, "repls_dead")
    t, path = pt.restore(tmp_path / "t")
    turn = read_file(path).payload
    cheater, honest = turn.sender, pt.to
    bad, _ = _repls_forged(t, path, "dead", f"{_dead(t, cheater)[0]}@A20.10", plant=True)
    t.inbox = [(str(bad), honest), *t.inbox]
    to, name, out = _until_refused(t)
    print(f"first refused by {to}: {out}")
    assert name != bad.name, "refused on receipt"
    if to == cheater:
        # a cheating processor that does not compare the honest side's results plays on
        t.inbox.insert(0, (str(t.tmp / "mail" / name), cheater))
        to, name, out = _until_refused(t, lenient=cheater)
    assert to == honest, out
    # the honest state holds a unit the cheater's does not: its results differ, or (first)
    # the unit's slot was never committed by the cheater (Session._check_committed)
    assert re.fullmatch(rf"Error: {re.escape(name)}: (results of file [0-9]+ claim a different "
                        r"state \(state hash differs from the replay\)|"
                        rf"{cheater} never committed {cheater}-[0-9]+\.steps, which the game "
                        r"holds \[PBEM-SEALED\])", out), out


def _until_refused(t: Table, lenient: str | None = None, limit: int = 60
                   ) -> tuple[str, str, str]:
    """Deliver and play (bot orders) until a processor refuses a file, which must leave its
    archive untouched: (receiver, file name, its one line). lenient: that side's processor
    does not compare the other side's results."""
    from pbem.protocol import session as session_mod

    for _ in range(limit):
        if not t.inbox:
            t.play_one()
            continue
        path, to = t.inbox.pop(0)
        reply = t.mail(f"reply-{to}")
        before = snapshot(t.dirs[to])
        with pytest.MonkeyPatch.context() as m:
            if to == lenient:
                m.setattr(session_mod, "compare_results", lambda *a, **k: None)
            r = t.run("receive", str(t.dirs[to]), path, "--key", t.key(to), "--out", reply)
        if r.exit_code != 0:
            assert snapshot(t.dirs[to]) == before and not Path(reply).exists()
            lines = r.output.strip().splitlines()
            assert len(lines) == 1 and Path(path).name in lines[0], r.output
            return to, Path(path).name, lines[0]
        if Path(reply).exists():
            t.inbox.append((reply, t.other(to)))
    raise AssertionError("nothing was refused")


def test_a_consistent_false_seen_repls_placement_is_caught_by_the_final_replay(
        game, sealed_bcs, tmp_path):
    """A cheating processor that really brings back a unit of its Dead Pile the Repls did not
    rebuild (its own state agrees with its projection, so the public hashes never part): the
    receiver cannot tell, the game plays on to its end, and the final replay of `pbem verify`,
    which projects the real `repls` answer, names the file and the order (exit status 3)."""
    from pbem.games.bcs import replacements

    pt = _point(game, "repls_to_dead")
    t, path = pt.restore(tmp_path / "t")
    cheater = pt.to
    honest_place = replacements.place_rebuilt
    placed: list[str] = []
    phase: list[int] = []          # the turn of the Reinforcement Phase the Allies answered

    def place_rebuilt(state, side, ctx):            # the cheating processor's rule
        honest_place(state, side, ctx)
        if side != cheater or side in state.concealed:
            return
        phase[:] = phase or [state.turn]
        if state.turn != phase[0]:
            return
        dead = [p for p in state.pieces.values() if p.side == side and p.kind == "unit"
                and p.status == "dead" and replacements.spots(state, p)]
        if dead:
            p = sorted(dead, key=lambda p: p.id)[0]
            to = replacements.rebuilt_hex(state, p)
            p.status, p.hex, p.steps, p.face, p.start = "map", to, 1, "move", to
            ctx.log(f"{p.id} is rebuilt from the Dead Pile in {to} (9.4c)", hexes=(to,),
                    kind=replacements.REBUILT)
            placed.append(f"{p.id}@{to}")

    t.inbox = [(str(path), pt.to), *t.inbox]         # the Allies' answer, as it was sent
    with pytest.MonkeyPatch.context() as m:
        m.setattr(replacements, "place_rebuilt", place_rebuilt)
        how = _play_on(t)
    if how == "end" and not placed:
        pytest.fail(f"the shared game (seed {SEED}) left the cheater no Dead Pile unit to "
                    "bring back then: choose another")
    assert how == "end" and placed, (how, placed)
    mine = sorted((t.dirs[cheater] / "files").glob(f"[0-9][0-9][0-9][0-9]-{cheater}.pbem"))
    cheat = next(f for f in mine
                 if any(o.startswith("seen repls ") and placed[0] in o
                        for o in read_file(f).payload.orders))
    honest = t.other(cheater)
    r = t.run("verify", str(t.dirs[honest]))
    assert r.exit_code == 3, r.output
    assert re.search(rf"{cheat.name}: order [0-9]+ 'seen repls [^']*{re.escape(placed[0])}"
                     rf"[^']*' is not what {cheater}'s real order", r.output), r.output


# -- threat 8: more Arty Points than the Formation holds, within what the other side can know --
class LateWatch:
    """A file to the Allies once the date is 21 Feb 43 or later, when the 9 ID Divarty's 3 Arty
    Asset Points have arrived: from then on the Axis's knowledge state lets any Allied
    Formation fire as if it held them (assignment.total_arty, irwin: an upper bound). The date
    is read from the sender's archive at each `seen repls` (once per side and turn)."""

    def __init__(self) -> None:
        self.late = False

    def __call__(self, t: Table, turn: Turn, to: str) -> bool:
        if not self.late and any(o.startswith("seen repls ") for o in turn.orders):
            st = _session(t, turn.sender).state
            self.late = st.dates.index(st.date) >= st.dates.index(DIVARTY_DAY)
        return self.late and to == "allied"


DIVARTY_DAY = "21 Feb 43"


def _cheat_fire(t: Table, cheater: str, legal_honestly) -> list[str] | None:
    """Orders of the cheater's Formation now in its Activities that fire more Arty Points than
    it holds, within every point its side has received (which any of its HQs may hold, as far
    as the other side can know): a Barrage outside an Attack Sequence of 2 points (BbF 3.2b:
    only the Formation holding the 9 ID Divarty's points may fire 2), after a Combat OBJ that
    puts the target in an OBJ Zone where needed, or an Attack whose Barrage fires 2 or 3
    (8.0b). Legal by the cheating rules in force, the fire not by legal_honestly(state,
    order); None if there is none."""
    from pbem.games.bcs import bot as bots
    from pbem.games.bcs.board import bdata
    from pbem.games.bcs.orders import Attack, Barrage, Fires, Obj, format_order

    state = _session(t, cheater).state
    act = state.activation
    if state.phase != "activities" or act is None or act.side != cheater:
        return None
    grid = bdata().game_map.grid
    enemy = sorted({p.hex for p in state.pieces.values()
                    if p.side != cheater and p.status == "map" and p.kind == "unit"})
    mine = sorted((p for p in state.pieces.values() if p.formation == act.formation
                   and p.status == "map" and p.side == cheater), key=lambda p: p.id)
    for h in enemy:
        near = [p for p in mine if grid.distance(p.hex, h) <= 4]
        if not near:
            continue
        fires: list[Any] = [Attack(hex=h, unit=p.id, fires=Fires(mission="destruction", arty=n))
                            for p in near if grid.distance(p.hex, h) == 1 for n in (3, 2)]
        fires += [Barrage(hex=h, spotter=p.id, arty=2) for p in near]
        for first in [None, *(Obj(hex=x) for x in [h, *sorted(grid.neighbours(h))])]:
            base = _copy(state)
            if first is not None and bots._try(base, cheater, first) is not True:
                continue
            for o in fires:
                if bots._try(_copy(base), cheater, o) is not False \
                        and not legal_honestly(base, o):
                    return [*([format_order(first)] if first is not None else []),
                            format_order(o)]
    return None


def _copy(state):
    from pbem.games.bcs.state import BcsState

    return msgspec.json.decode(msgspec.json.encode(state), type=BcsState)


def test_arty_points_beyond_the_formations_within_the_other_sides_bound_are_caught_by_the_final_replay(
        game, sealed_bcs, tmp_path):
    """From 21 Feb 43 the Axis cannot know which Allied HQ holds the 9 ID Divarty's 3 Arty
    Asset Points (1.5b), so his processor lets any Allied Formation fire as if it held them
    (`assignment.total_arty`, `irwin`: an upper bound); the Allies' own processor checks their
    real points. A cheating Allied processor whose Formations all fire as if they held them
    plays on (the Axis cannot tell, and the public states agree, since the cheater's own state
    fired the points too) to the end, and the final replay of `pbem verify`, which applies
    every order on the full state, names the file and the order (exit status 3). The Allies
    never assigned the points in this game (their processor answers 'assignment done' from
    their hidden standing order), so every Formation fires its HQ's own points only."""
    from pbem.games.bcs import assignment, barrage
    from pbem.games.bcs import bot as bots

    pt = _point(game, "late")
    t, path = pt.restore(tmp_path / "t")
    cheater = pt.to
    assert cheater == "allied"
    honest_irwin, honest_total = barrage.irwin, barrage.total_arty

    def own(state, fid: str) -> bool:       # the cheater's Formation on its own processor
        return state.formations[fid].side == cheater and cheater not in state.concealed

    def cheat_irwin(state, fid: str) -> bool:
        return own(state, fid) or honest_irwin(state, fid)

    def cheat_total(state, fid: str) -> int:
        extra = assignment.asset_points(state, cheater) if own(state, fid) else 0
        return honest_total(state, fid) + extra

    def legal_honestly(state, order) -> bool:
        barrage.irwin, barrage.total_arty = honest_irwin, honest_total
        try:
            return bots._try(_copy(state), cheater, order) is not False
        finally:
            barrage.irwin, barrage.total_arty = cheat_irwin, cheat_total

    fired: list[tuple[str, str]] = []
    t.inbox = [(str(path), pt.to), *t.inbox]
    with pytest.MonkeyPatch.context() as m:   # the cheating processor's rules
        m.setattr(barrage, "irwin", cheat_irwin)
        m.setattr(barrage, "total_arty", cheat_total)
        for _ in range(400):
            t.deliver()
            side = t.mover()
            if side is None:
                break
            lines = _cheat_fire(t, cheater, legal_honestly) \
                if side == cheater and not fired else None
            if lines is None:
                t.play_one()
                continue
            out = t.play_one(lines)
            fired.append((lines[-1], f"{read_file(Path(out)).payload.seq:04d}-{cheater}.pbem"))
        else:
            raise AssertionError("the game did not end")
    if not fired:
        pytest.fail(f"the shared game (seed {SEED}) gave the Allies no Barrage or Attack to "
                    f"fire after {DIVARTY_DAY}: choose another")
    line, name = fired[0]
    print(f"the cheat: {line} in {name}")
    r = t.run("verify", str(t.dirs[t.other(cheater)]))
    assert r.exit_code == 3, r.output
    assert re.search(rf"{re.escape(name)}: .*\[(BCS-8\.0b|BCS-8\.0-2)\]", r.output), r.output


# -- threat 7: a false arrival for a unit entering unseen under another top -------------------
def _brings_on_unseen(turn: Turn) -> bool:
    return any(o.startswith("move ") and " arrivals " in o for o in turn.orders)


def _arrival_line(turn: Turn) -> tuple[int, str, str, str]:
    """The first order of turn that brings a unit on unseen: (index, line, slot, arrival)."""
    i, line = next((i, o) for i, o in enumerate(turn.orders)
                   if o.startswith("move ") and " arrivals " in o)
    item = line.partition(" arrivals ")[2].partition(" opens ")[0].split()[0]
    slot, _, group = item.partition("=")
    return i, line, slot, group


def test_an_arrivals_clause_that_does_not_fit_the_move_is_refused(game, sealed_bcs, tmp_path):
    """The receiver takes a unit of its pool, of the arrival named, for each unit a move brings
    on unseen, and refuses the file (exit status 3, PBEM-SEALED), its archive untouched, when
    the clause names the arrival of a slot the move does not bring on (a move of the stack whose
    new top it opens, always met), or, where the game brought a unit on unseen (its dice
    decide), an arrival of which the sender has no unit off the map."""
    def no_such_slot(turn: Turn) -> tuple[int, str]:
        i = next(i for i, o in enumerate(turn.orders) if _top_move(o))
        item, o = f"{turn.sender}-99=1:F", turn.orders[i]
        return i, o.replace(" arrivals ", f" arrivals {item} ", 1) if " arrivals " in o \
            else o.replace(" opens ", f" arrivals {item} opens ", 1)

    def no_such_arrival(turn: Turn) -> tuple[int, str]:
        i, line, slot, group = _arrival_line(turn)
        return i, line.replace(f"{slot}={group}", f"{slot}=9:Z", 1)

    cases = [("top", no_such_slot, "not of ")]
    if "arrival" in game.points:
        cases.append(("arrival", no_such_arrival, "arrival 9:Z"))
    for name, lie, why in cases:
        pt = _point(game, name)
        t, path = pt.restore(tmp_path / name)
        turn = read_file(path).payload
        i, forged = lie(turn)
        assert forged != turn.orders[i]
        bad = _forge(t, path, name, orders=[*turn.orders[:i], forged, *turn.orders[i + 1:]])
        out = _refused(t, pt.to, bad)
        assert f"order {i + 1} {forged!r}" in out and why in out and "[PBEM-SEALED]" in out, out


def _other_arrivals(t: Table, turn: Turn, to: str) -> tuple[str, list[str], list[str]]:
    """The first unit entering unseen in turn, and the other arrivals of its Formation in the
    receiver's pool before the file: those of a unit due and able to enter by the move's Entry
    hex (a lie the receiver cannot tell from the truth), and the rest."""
    from pbem.games.bcs.board import bdata, entry_hexes
    from pbem.games.bcs.state import arrival_group
    from pbem.protocol.sealing import read_private

    i, line, slot, group = _arrival_line(turn)
    real = read_private(t.dirs[turn.sender]).get(turn.seq, [])[i:i + 1]   # its real order
    if not real or not real[0].startswith("move "):
        return "", [], []
    units = dict(zip(line.split()[1].split("+"), real[0].split()[1].split("+")))
    target = units.get(f"slot-{slot}", "")
    if target not in bdata().units:
        return "", [], []
    state = _session(t, to).state
    first = line.split()[2]
    pool = [p for p in state.pieces.values() if p.side == turn.sender and p.kind == "unit"
            and p.status == "off" and p.formation == bdata().units[target].formation
            and arrival_group(p) != group]
    able = {arrival_group(p) for p in pool
            if p.arrives <= state.turn and first in entry_hexes(state, p)}
    return target, sorted(able), sorted({arrival_group(p) for p in pool} - able)


def test_a_false_arrival_is_caught(game, sealed_bcs, tmp_path):
    """The projection names another arrival of the Formation for a unit it brings on unseen.
    Where no unit of that arrival in the receiver's pool can make the move (not due, or not by
    that Entry hex), the receiver refuses the file (exit status 3, PBEM-SEALED), its archive
    untouched. Where one can, a cheating processor keeps its own state in step with the lie (its
    rules take the unit for one of that arrival, so the Activation's public record of Entry
    hexes by arrival agrees on both sides and the public hashes never part): the receiver takes
    a unit of the false arrival and cannot tell, the game plays on to its end, and the final
    replay of `pbem verify`, which projects the real order, names the file and the order (exit
    status 3). The shared game (seed 18) meets the second: a unit of the false arrival could
    make the move."""
    from pbem.games.bcs import movement, sealed
    from pbem.games.bcs.state import arrival_group

    name = next((n for n in ("arrival_able", "arrival_other") if n in game.points), None)
    if name is None:
        pytest.fail(f"the shared game (seed {SEED}) brought no unit on unseen while another "
                    "arrival of its Formation was off the map: choose another")
    pt = game.points[name]
    t, path = pt.restore(tmp_path / "t")
    turn = read_file(path).payload
    cheater = turn.sender
    i, line, slot, group = _arrival_line(turn)
    target, able, rest = _other_arrivals(t, turn, pt.to)
    assert able or rest
    lie = (able or rest)[0]
    forged = line.replace(f"{slot}={group}", f"{slot}={lie}", 1)
    orders = [*turn.orders[:i], forged, *turn.orders[i + 1:]]
    print(f"{path.name}: {line!r} forged as {forged!r} ({'able' if able else 'unable'})")
    if not able:
        out = _refused(t, pt.to, _forge(t, path, "arrival", orders=orders))
        assert f"order {i + 1} {forged!r}" in out and f"arrival {lie}" in out \
            and "[PBEM-SEALED]" in out, out
        return
    honest_group = arrival_group
    active: list[bool] = [False]

    def cheating_group(p):               # the cheater's rules: target is of the false arrival
        return lie if active[0] and p.id == target else honest_group(p)

    run = t.run

    def cheaters_run(*args):             # only the cheater's processor runs the false rule
        active[0] = len(args) > 1 and args[1] == str(t.dirs[cheater])
        try:
            return run(*args)
        finally:
            active[0] = False

    t.run = cheaters_run
    try:
        with pytest.MonkeyPatch.context() as m:
            m.setattr(sealed, "arrival_group", cheating_group)
            m.setattr(movement, "arrival_group", cheating_group)
            bad = _forge(t, path, "arrival", plant=True, orders=orders)
            t.inbox = [(str(bad), pt.to), *t.inbox]
            how = _play_on(t)
    finally:
        t.run = run
    assert how == "end", how
    r = t.run("verify", str(t.dirs[pt.to]))              # the honest side's archive
    assert r.exit_code == 3, r.output
    assert f"{turn.seq:04d}-{cheater}.pbem: order {i + 1} {forged!r} is not what " \
           f"{cheater}'s real order" in r.output, r.output


# -- threat 5: `open objective` when the rules do not need it ---------------------------------
def test_open_objective_when_the_rules_do_not_need_it_is_refused(game, sealed_bcs, tmp_path):
    """The Axis's file opens his objective (a true opening of his committed draw) long before
    the end: the Allied processor refuses the order (exit status 3, BBF-4.0-a), and stores
    nothing of the file."""
    pt = _point(game, "axis_turn")
    t, path = pt.restore(tmp_path / "t")
    turn = read_file(path).payload
    s = _session(t, "axis")
    obj = s.state.private["axis"].objective
    v = s.facts.books["axis"].version(OBJ_FACT)
    assert obj in OBJECTIVES and v >= 0
    key = side_fact_key(s.own)
    op = Opening(fact=OBJ_FACT, version=v, value=obj, salt=salt(key, OBJ_FACT, v).hex())
    i = next(i for i, o in enumerate(turn.orders) if o != "standing sealed")
    orders = [*turn.orders[:i], f"open objective opens {OBJ_FACT}", *turn.orders[i:]]
    bad = _forge(t, path, "open", orders=orders,
                 openings=sorted([*(turn.openings or []), op], key=lambda o: (o.fact, o.version)))
    line = _refused(t, pt.to, bad)
    assert f"order {i + 1} 'open objective opens {OBJ_FACT}'" in line, line
    assert "the rules do not need the Axis's Victory Objective opened now" in line, line
    assert "[BBF-4.0-a]" in line, line


# -- threat 6: the Axis's Victory Objective ---------------------------------------------------
def test_the_axis_objective_reaches_the_allies_only_when_opened_and_verifies_after(game):
    """BBF-4.0-a in a sealed game: the objective travels only as the commitment of the fact
    `axis.objective` until the Axis's `open objective`; nothing the Allies store holds it before
    (ObjectiveWatch, after every delivery); after the end the Allied archive verifies (the final
    replay draws it again with the Axis's fact key) and the result names it."""
    w, t = game.watch, game.t
    assert w.obj in OBJECTIVES and w.steps > 20 and w.opened_at is not None
    allied = load(t.dirs["allied"])
    files = [f.payload for f in allied.ledger.files]
    commits = [(x.seq, c.version) for x in files for c in x.commits or [] if c.fact == OBJ_FACT]
    opens = [(x.seq, o.value) for x in files for o in x.openings or [] if o.fact == OBJ_FACT]
    assert commits and commits[0][0] < w.opened_at
    assert opens == [(w.opened_at, w.obj)]
    assert allied.state.objective == w.obj
    mid = load(_point(game, "axis_turn").root / "allied")      # while the game went on
    assert mid.state.objective == "" and mid.state.private["axis"].objective == ""
    r = game.audits["allied"]                                  # the Allies can prove it
    assert r.exit_code == 0, r.output
    assert "both final reveals are in" in r.output and "OK: the archive verifies." in r.output
    result = next(x for x in r.output.splitlines() if x.startswith("Final result:"))
    assert NAMES[w.obj] in result, result
