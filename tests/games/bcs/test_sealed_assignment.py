"""The Assignment Phase in a sealed Baptism By Fire game (docs/sealed.md 5h; assignment.py).

A sealed game asks every side in every Assignment Phase (public: `assigning` holds both), and
each side's processor answers 'assignment done' for it from its hidden standing order unless it
asked to be asked (`standing assignment ask`) or must place Rommel, as the store answers in a
peer game. An Arty Asset Points order (8.0d, private by 1.5b) travels as 'seen arty': neither
its points nor its HQ; the other side's knowledge state holds none of them and checks a later
use of Arty Points against what it can know (every point the side has received may be at any
of its HQs), so every use stays checkable there and none is refused.
"""

from __future__ import annotations

import collections
import random
from typing import Any

import msgspec
import pytest

from pbem.core.errors import IllegalOrder
from pbem.core.sealed import SealedPlay, bot_play, standing_answers
from pbem.games.bcs import assignment
from pbem.games.bcs import bot as B
from pbem.games.bcs.board import bdata
from pbem.games.bcs.orders import ArtyAssets, Attack, Barrage, Fires, Support, format_order
from pbem.games.bcs.state import BcsState
from pbem.protocol.resolve import standing_decision

from games.bcs.test_sealed_port import GAME, OPTIONS


def _copy(state: BcsState) -> BcsState:
    return msgspec.json.decode(msgspec.json.encode(state), type=BcsState)


def _legal(state: BcsState, side: str, order: Any) -> bool:
    return B._try(_copy(state), side, order) is not False


def _until(sp: SealedPlay, rng: random.Random, stop) -> None:
    """Play bot orders three ways (no problem allowed) until stop(sp) holds."""
    for _side, _line, problems in bot_play(sp, rng, max_orders=3000):
        assert not problems, problems
        if stop(sp):
            return
    pytest.fail("the game never reached the position wanted")


@pytest.fixture(scope="module")
def divarty() -> tuple[SealedPlay, random.Random]:
    """A sealed 5.4 game three ways, the Allies' standing order 'assignment ask' (hidden), at
    their Assignment Phase of 21 Feb 43, the 9 ID Divarty's 3 points arrived in their pool."""
    rng = random.Random(1)
    sp = SealedPlay(GAME, GAME.setup("5.4", OPTIONS), rng.randbytes(32))
    assert sp.play("allied", "standing assignment ask") == []
    _until(sp, rng, lambda sp: sp.full.phase == "assignment" and sp.full.date == "21 Feb 43"
           and sp.full.next_side == "allied")
    assert sp.full.private["allied"].arty_free == 3
    return sp, rng


def _allied_forms(state: BcsState) -> list[str]:
    return sorted(f.id for f in state.formations.values() if f.side == "allied" and f.in_play)


def test_every_side_is_asked_every_phase_and_its_processor_answers_keep():
    """2.1 (1) 2 in a sealed game: whether a side decides reads no store (both sides, every
    phase: public); the processor's answer is its standing order's (keep by default: 'assignment
    done'; ask: the player decides; Rommel due: the Axis places him first)."""
    state = GAME.setup("5.4", OPTIONS)            # opens with the Axis placing Rommel
    assert state.sealed and state.phase == "assignment" and state.assigning == ["axis"]
    assert standing_answers(GAME, state, "axis", {}) is None          # Rommel: asked
    assert not standing_decision(GAME, state, "axis")
    GAME.apply(state, "axis", GAME.parse_order("rommel dak"), _ctx())
    assert standing_answers(GAME, state, "axis", {}) == ["assignment done"]
    assert standing_answers(GAME, state, "axis", {"assignment": "keep"}) == ["assignment done"]
    assert standing_answers(GAME, state, "axis", {"assignment": "ask"}) is None
    assert standing_decision(GAME, state, "axis")       # public: both processors read it alike
    # every Assignment Phase of a sealed game asks both sides, the last to activate first
    for s in ("allied", "axis"):
        assert assignment.wants(state, s)
    peer = GAME.setup("5.4", {k: v for k, v in OPTIONS.items()})
    peer.sealed = False
    assert not assignment.wants(peer, "allied")


def _ctx():
    from pbem.core.dice import KeyedDice
    from pbem.core.game import Context
    return Context(KeyedDice(b"\0" * 32))


def test_a_whole_sealed_game_without_a_policy_ends_each_phase_by_itself():
    """No side writes a standing assignment order: each Assignment Phase of the game (every turn
    from the second) asks both sides, and their processors answer 'assignment done' by themselves
    (bot_play plays the standing answers), three ways with no problem."""
    rng = random.Random(4)
    sp = SealedPlay(GAME, GAME.setup("5.2", OPTIONS), rng.randbytes(32))
    phases: dict[int, list[str]] = collections.defaultdict(list)
    for side, line, problems in bot_play(sp, rng, max_orders=3000):
        assert not problems, problems
        if line == "assignment done":
            phases[sp.full.turn].append(side)
    assert sp.full.phase == "over"
    assert sorted(phases) == list(range(2, sp.full.turn + 1))
    assert all(sorted(v) == ["allied", "axis"] for v in phases.values()), phases


def test_an_arty_order_travels_as_seen_arty_and_its_points_stay_with_their_owner(divarty):
    """8.0d, 1.5b: 'assign arty 3 to F' is projected as 'seen arty' (no points, no HQ), opens
    nothing, and is the writer's to check; the Axis's knowledge state applies it holding none of
    the Allies' Arty Asset Points, commits nothing of them, and its reports and views name none."""
    sp0, _ = divarty
    sp = _fork(sp0)
    full, know = sp.full, sp.know["axis"]
    fid = next(f for f in _allied_forms(full)
               if _legal(full, "allied", ArtyAssets(points=3, formation=f)))
    line = f"assign arty 3 to {fid}"
    order = GAME.parse_order(line)
    mine = sp.know["allied"]
    assert GAME.project(mine, "allied", order) == "seen arty"
    assert GAME.reveals(mine, "allied", order) == []
    seen = GAME.parse_order("seen arty")
    assert GAME.format_order(seen) == "seen arty"
    assert GAME.hidden_legality(order) and GAME.hidden_legality(seen)
    assert sp.play("allied", line) == []                 # three ways, no problem, no leak
    assert full.private["allied"].arty_assigned == {fid: 3}
    assert sp.know["allied"].private["allied"].arty_assigned == {fid: 3}
    theirs = know.private["allied"]
    assert (theirs.arty_pool, theirs.arty_free, theirs.arty_assigned) == (0, 0, {})
    assert "allied.arty" not in GAME.facts(know, "allied")
    assert "allied.arty" in GAME.facts(full, "allied")
    blobs = [msgspec.json.encode(GAME.view(know, "axis")),
             msgspec.json.encode(GAME.report(know, "axis")),
             msgspec.json.encode(GAME.public(know))]
    assert not any(b'"arty_assigned":{"' in b or b"Arty Asset Points assigned" in b
                   for b in blobs)
    assert f'"arty_assigned":{{"{fid}":3}}'.encode() in msgspec.json.encode(
        GAME.view(sp.know["allied"], "allied"))              # the owner's own view has them


def test_seen_arty_is_refused_as_ones_own_order_and_outside_the_phase(divarty):
    """'seen arty' is only the other side's view: refused on a state where its writer's facts are
    real (PBEM-SEALED), and on the knowledge state outside the Assignment Phase (BCS-8.0d)."""
    sp0, _ = divarty
    sp = _fork(sp0)
    with pytest.raises(IllegalOrder) as e:
        GAME.apply(_copy(sp.full), "allied", GAME.parse_order("seen arty"), _ctx())
    assert e.value.rule == "PBEM-SEALED"
    know = _copy(sp.know["axis"])
    know.phase, know.assigning = "activate", []
    with pytest.raises(IllegalOrder) as e:
        GAME.apply(know, "allied", GAME.parse_order("seen arty"), _ctx())
    assert e.value.rule == "BCS-8.0d"


def test_a_knowledge_state_bounds_the_other_sides_arty_points_by_what_it_has_received(divarty):
    """total_arty and irwin on the Axis's knowledge state: before 21 Feb exactly the HQ's
    Intrinsic points (no Allied asset yet: as before); from then on any Allied HQ may hold the
    Divarty's 3 points (an upper bound: a use the Allies may make is never refused there, and
    the writer's processor and the final replay check it exactly)."""
    sp0, _ = divarty
    sp = _fork(sp0)
    know, full = sp.know["axis"], sp.full
    forms = _allied_forms(full)
    fid = next(f for f in forms if _legal(full, "allied", ArtyAssets(points=3, formation=f)))
    assert sp.play("allied", f"assign arty 3 to {fid}") == []
    for f in forms:
        own = bdata().hqs[full.formations[f].hq].arty_points
        assert assignment.total_arty(know, f) == own + 3
        assert assignment.total_arty(full, f) == own + (3 if f == fid else 0)
        assert assignment.irwin(know, f)
        assert assignment.irwin(full, f) == (f == fid)
    early = _copy(know)
    early.turn = early.dates.index("20 Feb 43") + 1
    for f in forms:
        assert assignment.total_arty(early, f) == bdata().hqs[full.formations[f].hq].arty_points
        assert not assignment.irwin(early, f)
    # the Axis's own Formations on its own knowledge state: exact, as ever
    axis = [f for f, x in know.formations.items() if x.side == "axis"]
    assert all(assignment.total_arty(know, f) == assignment.total_arty(full, f) for f in axis)


def _fork(sp: SealedPlay) -> SealedPlay:
    """A copy of a three-way game (states copied; the same dice)."""
    new = SealedPlay.__new__(SealedPlay)
    new.__dict__.update(sp.__dict__)
    new.full = _copy(sp.full)
    new.know = {s: _copy(k) for s, k in sp.know.items()}
    new.opened = {s: set(v) for s, v in sp.opened.items()}
    new.policy = {s: dict(v) for s, v in sp.policy.items()}
    return new


def _wild_first(sp: SealedPlay, rng: random.Random, wrote: collections.Counter):
    """Before the bot's own order: Arty Asset Points assigned when free (unassigned now and
    then), a unit into Support or concentrated now and then, and a use of more Arty Points
    than the HQ's own by the Formation holding them."""
    def first(side: str) -> str | None:
        full = sp.full
        d = [x for x in GAME.pending(full) if x.side == side]
        if not d:
            return None
        priv = full.private[side]
        if d[0].kind == "assignment":
            forms = [f for f in sorted(full.formations) if full.formations[f].side == side]
            rng.shuffle(forms)
            cands: list[Any] = [ArtyAssets(points=priv.arty_free, formation=f)
                                for f in forms if priv.arty_free]
            if priv.arty_assigned and rng.random() < 0.3:
                cands += [ArtyAssets(points=n, formation=f, assign=False)
                          for f, n in priv.arty_assigned.items()]
            if rng.random() < 0.5:
                units = sorted(p.id for p in full.pieces.values() if p.side == side
                               and p.kind == "unit" and p.status in ("map", "support"))
                rng.shuffle(units)
                cands += [Support(unit=u, on=full.pieces[u].status != "support")
                          for u in units[:6]]
            for o in cands:
                if _legal(full, side, o):
                    wrote[type(o).__name__] += 1
                    return format_order(o)
            return None
        act = full.activation
        if d[0].kind != "activation" or act is None or act.side != side \
                or not priv.arty_assigned.get(act.formation):
            return None
        grid = bdata().game_map.grid
        enemy = sorted({p.hex for p in full.pieces.values()
                        if p.side != side and p.status == "map"})
        for p in sorted(full.pieces.values(), key=lambda p: p.id):
            if p.formation != act.formation or p.kind != "unit" or p.status != "map":
                continue
            for h in enemy:
                far = grid.distance(p.hex, h)
                cands = [Barrage(hex=h, spotter=p.id, arty=2)] if far <= 4 else []
                if far == 1:
                    cands.append(Attack(hex=h, unit=p.id,
                                        fires=Fires(mission="destruction", arty=3)))
                for o in cands:
                    if _legal(full, side, o):
                        wrote["use"] += 1
                        return format_order(o)
        return None
    return first


@pytest.mark.parametrize("seed", [1, 3])
def test_a_whole_sealed_game_assigns_arty_uses_it_and_plays_support_three_ways(seed):
    """A whole sealed game of 5.4 three ways (pbem.core.sealed.SealedPlay): both sides' hidden
    standing order 'assignment ask'; the Allies assign and unassign the 9 ID Divarty's points,
    put units into Support and concentrate them, and fire more Arty Points than their HQs' own
    (a Barrage of 2 outside an Attack Sequence, 3 in one); every public outcome agrees, no
    knowledge state ever holds the other side's Arty Asset Points, and the game ends."""
    rng = random.Random(seed)
    sp = SealedPlay(GAME, GAME.setup("5.4", OPTIONS), rng.randbytes(32))
    for s in GAME.sides:
        assert sp.play(s, "standing assignment ask") == []
    wrote: collections.Counter = collections.Counter()
    played: collections.Counter = collections.Counter()
    for side, line, problems in bot_play(sp, rng, max_orders=3000,
                                         first=_wild_first(sp, rng, wrote)):
        assert not problems, (side, line, problems)
        for k in ("assign arty", "unassign arty", "support ", "concentrate "):
            played[k.strip()] += line.startswith(k)
        played["use"] += " arty 2 " in f"{line} " or " arty 3" in line
        for s, o in (("axis", "allied"), ("allied", "axis")):
            theirs = sp.know[s].private[o]
            assert (theirs.arty_pool, theirs.arty_free, theirs.arty_assigned) == (0, 0, {})
    assert sp.full.phase == "over"
    assert played["assign arty"] >= 1 and played["use"] >= 1, played
    assert played["support"] + played["concentrate"] >= 1, played


def test_seen_arty_keeps_what_its_order_opens(divarty, monkeypatch):
    """Where an order of the Allies opens facts of theirs (a stack's profile changed by no order
    of theirs waits for their next order: sealed._trial_reveals), an Arty order's projection keeps
    that list after 'seen arty', and it reads back as the projection of that list."""
    from pbem.games.bcs import sealed as bs

    sp0, _ = divarty
    full = sp0.know["allied"]
    fid = _allied_forms(full)[0]
    order = ArtyAssets(points=3, formation=fid)
    opened = [("allied", "allied-1.unit"), ("allied", "allied-1.face")]
    monkeypatch.setattr(bs, "own_reveals", lambda state, side, o: opened)
    text = GAME.project(full, "allied", order)
    assert text == "seen arty opens allied-1.unit allied-1.face"
    back = GAME.parse_order(text)
    assert isinstance(back, bs.Revealing) and isinstance(back.order, assignment.SeenArty)
    assert GAME.format_order(back) == text
    assert GAME.reveals(full, "allied", back)[:2] == [("allied", "allied-1.unit"),
                                                       ("allied", "allied-1.face")]


def _asking_bot(real):
    """The random bot, but both sides write 'standing assignment ask' (hidden) and, when asked,
    the Allies assign their Arty Asset Points when free (unassign them now and then) and either
    side puts a unit into Support or concentrates one."""
    from pbem.games.bcs.sequence import pending

    def play(state: BcsState, side: str, rng: random.Random, style: str = "random") -> list[str]:
        lines = real(state, side, rng, style)
        d = [x for x in pending(state) if x.side == side]
        if not d or d[0].kind != "assignment":
            return ["standing assignment ask"] + lines
        extra = ["standing assignment ask"]
        priv = state.private[side]
        forms = sorted(f.id for f in state.formations.values() if f.side == side and f.in_play)
        rng.shuffle(forms)
        if priv.arty_free:
            extra += [f"assign arty {priv.arty_free} to {f}" for f in forms]
        elif priv.arty_assigned and rng.random() < 0.3:
            extra += [f"unassign arty {n} from {f}" for f, n in priv.arty_assigned.items()]
        units = sorted(p.id for p in state.pieces.values() if p.side == side
                       and p.kind == "unit" and p.status in ("map", "support"))
        rng.shuffle(units)
        for u in units[:16]:
            o = Support(unit=u, on=state.pieces[u].status != "support")
            if rng.random() < 0.7 and _legal(state, side, o):
                extra.append(format_order(o))
                break
        return extra + lines
    return play


@pytest.mark.slow
def test_arty_assets_and_support_through_the_real_exchange_verify_and_leak_nothing(
        tmp_path, monkeypatch):
    """A whole sealed game of 5.4 through the signed-file exchange (pbem demo's loop, keys and
    dice from a seed): both sides ask to be asked in the Assignment Phase, the Allies assign
    (and unassign) the 9 ID Divarty's points, units go into Support and come back. Both
    archives verify (the final replay checks every `seen arty` against the real order and
    every committed `allied.arty`); nothing the Axis stores, armored payloads decoded, holds an
    Allied Arty order's points (`assign arty N`), an 'Arty Asset Points assigned' event or the
    Allies' `arty_assigned`, while the Allies' own private orders and reports hold them."""
    import re

    from fixtures.seeded import seeded
    from pbem.games.bcs import bot as bots
    from pbem.protocol.audit import verify_archive
    from pbem.protocol.demo import play_demo
    from pbem.protocol.sealing import searchable

    monkeypatch.setattr(bots, "play", _asking_bot(bots.play))
    root = tmp_path / "game"
    with seeded("bcs-sealed-assignment-1"):
        play_demo(root, game_name="bcs", scenario="5.4", mode="sealed", seed=1, style="random")
    for side in GAME.sides:
        audit = verify_archive(root / side)
        assert audit.ok, audit.problems
    own = (root / "allied" / "private" / "orders.json").read_bytes()
    wrote = re.findall(rb'"((?:un)?assign arty \d+ (?:to|from) [a-z0-9-]+)"', own)
    assert wrote, "the Allies never assigned their Arty Asset Points: choose another seed"
    moved = re.findall(rb'"((?:support|concentrate) [a-z0-9-]+)"',
                       own + (root / "axis" / "private" / "orders.json").read_bytes())
    assert moved, "no unit went into Support or came back: choose another seed"
    seen = 0
    for p in (root / "axis").rglob("*"):
        if not p.is_file():
            continue
        for blob in searchable(p.read_bytes()):
            assert not re.search(rb"(?:un)?assign arty \d|Arty Asset Points (?:un)?assigned|"
                                 rb'"arty_assigned":\{"', blob), p
            seen += blob.count(b"seen arty")
    assert seen >= len(wrote)
    assert any(b"Arty Asset Points assigned" in p.read_bytes()
               for p in (root / "allied" / "reports").rglob("*.txt"))


def test_BCS_2_1_1c_a_sealed_game_asks_every_side_in_the_first_turns_phase_after_the_set_up():
    """BCS-2.1-1c, BCS-1.4G: after a Set-up decision the first turn's Assignment Phase opens in
    a sealed game for every side (whether a side asked for it is its hidden policy), the side
    moving second first; each processor answers 'assignment done' unless the policy asks.
    5.2, the Allies setting up: they did not ask, so their processor's answer ends their turn
    in the phase; the Axis did (`standing assignment ask`, hidden) and puts a unit arriving on
    turn 1 into Support. Every state three ways agrees."""
    from pbem.games.bcs import setupphase

    sp = SealedPlay(GAME, GAME.setup("5.2", {**OPTIONS, "setup_decision": "allied"}), b"s" * 32)
    assert sp.full.setting == ["allied"]
    assert sp.play("axis", "standing assignment ask") == []
    unit = setupphase.choosable(sp.full, "allied")[0]
    for line in (f"setup {unit} deployed", "setup done"):
        assert sp.play("allied", line) == []
    for st in (sp.full, *sp.know.values()):
        assert (st.phase, st.assigning, st.next_side) == ("assignment", ["allied", "axis"],
                                                         "allied")
    answer = standing_answers(GAME, sp.full, "allied", sp.policy["allied"])
    assert answer == ["assignment done"]
    assert sp.play("allied", answer[0]) == []
    assert standing_answers(GAME, sp.full, "axis", sp.policy["axis"]) is None
    arriving = sorted(p.id for p in sp.full.pieces.values() if p.side == "axis"
                      and p.kind == "unit" and p.arrives == 1 and p.status == "off")
    into = next(u for u in arriving if _legal(sp.full, "axis", Support(unit=u, on=True)))
    assert sp.play("axis", f"support {into}") == []
    assert sp.full.pieces[into].status == "support"
    assert sp.play("axis", "assignment done") == []
    for st in (sp.full, *sp.know.values()):
        assert (st.phase, st.assigning, st.next_side) == ("activate", [], "axis")


def test_BCS_2_1_1c_without_a_set_up_decision_a_sealed_first_turn_opens_no_phase():
    """As in a peer game, with no Set-up decision nobody can have asked for the first turn's
    phase: a sealed 5.2 starts at the Axis's Activation, a sealed 5.4 at Rommel's placement."""
    two = GAME.setup("5.2", OPTIONS)
    assert (two.phase, two.assigning) == ("activate", [])
    four = GAME.setup("5.4", OPTIONS)
    assert (four.phase, four.assigning) == ("assignment", ["axis"])


def test_BCS_2_1_1c_the_first_turns_phase_through_the_commands(tmp_path):
    """Through the real commands (5.2, the Allies setting up): the Allies' Set-up file carries
    the 'assignment done' their processor wrote in, the Axis's processor answers in an
    automatic file; with `pbem standing ... assignment ask` queued before it receives, the Axis
    is asked instead and puts a unit arriving on turn 1 into Support. Both processors agree."""
    from fixtures.table import Table
    from pbem.core.records import read_file

    def game(root, ask: bool) -> Table:
        t = Table(root, game="bcs", scenario="5.2", mode="sealed", sides=("allied", "axis"),
                  options=(*(f"{k}={v}" for k, v in OPTIONS.items()), "setup_decision=allied"))
        t.deliver()
        if ask:
            q = root / "ask.txt"
            q.write_text("standing assignment ask\n")
            t.ok("standing", str(t.dirs["axis"]), str(q))
        first = t.play_one(["setup done"])
        assert read_file(first).payload.orders[-2:] == ["setup done", "assignment done"]
        t.deliver()
        return t

    t = game(tmp_path / "keep", ask=False)
    auto = read_file(sorted((t.dirs["axis"] / "files").glob("0002-axis.pbem"))[0]).payload
    assert auto.orders == ["assignment done"]
    assert t.status("axis")["decisions"][0]["what"].startswith("activate")
    t = game(tmp_path / "ask", ask=True)
    st = t.status("axis")
    assert st["pending"] == ["axis"] and "Assignment Phase" in st["decisions"][0]["what"]
    t.play_one(["support 1-501-tgr", "assignment done", "pass"])
    t.deliver()
    for side in t.sides:
        assert t.status(side)["turn"] == 1
    mine = [p.name for p in (t.dirs["allied"] / "files").glob("*-axis.pbem")]
    assert "0002-axis.pbem" in mine


def test_own_private_dice_are_not_shown_as_known_without_the_key(tmp_path):
    """A sealed archive read without its side's key (`pbem log`, `pbem stats`, `pbem verify`)
    cannot compute that side's own private dice (Air Points, BbF 1.1d): they were shown as
    stand-in values (a die of 1, 'Air Points: 0') and counted as audited. They are left out,
    and each command says how many; with the key `pbem verify` audits them."""
    from fixtures.table import Table

    t = Table(tmp_path, game="bcs", scenario="5.2", mode="sealed", sides=("allied", "axis"),
              options=tuple(f"{k}={v}" for k, v in OPTIONS.items()))
    for _ in range(6):
        t.deliver()
        t.play_one()
    t.deliver()
    side = "allied"
    log = t.ok("log", str(t.dirs[side])).output
    assert f"Air Points: {side} [{side} only]" not in log
    assert f"Not shown: " in log and f"of {side}'s own private dice and events" in log
    bare = t.ok("verify", str(t.dirs[side])).output
    assert f"Not audited without {side}'s key" in bare
    keyed = t.ok("verify", str(t.dirs[side]), "--key", t.key(side)).output
    assert "Not audited" not in keyed

    def count(out: str) -> int:
        return int(out.split(" dice recomputed")[0].rsplit("; ", 1)[1])

    assert count(keyed) > count(bare)
    stats = t.ok("stats", str(t.dirs[side])).output
    assert f"Air Points: {side}" not in stats
