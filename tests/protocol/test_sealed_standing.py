"""Sealed standing orders (docs/sealed.md section 5c) through the real commands: a standing
order is a hidden policy, committed as facts `standing.TOPIC` and sent only as the line
'standing sealed'; the reactions it would answer wait on both processors, its owner's
processor answers them explicitly in an automatic reply, and the final replay checks every
answer against the committed policy (PBEM-STANDING).

The test game Guard is Blind (tests/fixtures/blindgame.py) with one reaction: an attacked
block's owner answers `react brace` (+1 in the defence) or `react hold` before the dice, and
`standing guard brace|hold` answers it in advance."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from fixtures.blindgame import BlindGame, BlindState, STRENGTH, Attack, _dir
from fixtures.table import Table, snapshot
from pbem.core import registry
from pbem.core.dice import KeyedDice
from pbem.core.errors import IllegalFile, IllegalOrder
from pbem.core.game import Context, Decision
from pbem.core.records import read_file
from pbem.core.sealed import SealedPlay, check_play, standing_answers
from pbem.core.standing import answer
from pbem.protocol import ops
from pbem.protocol.resolve import SEALED_STANDING
from pbem.protocol.sealing import private_path

from fixtures.stored import stored_text


class GuardState(BlindState, kw_only=True):
    react: list[str] = []                        # [attacker, target] waiting for the answer
    stores: dict[str, dict[str, str]] = msgspec.field(
        default_factory=lambda: {"red": {}, "blue": {}})


class React(msgspec.Struct, tag="react"):
    mode: str


class GuardGame(BlindGame):
    """Blind with the defender's reaction, answerable by a standing order."""

    id = "guard"
    title = "Guard (sealed standing orders test game)"
    state_type = GuardState

    def initial(self) -> GuardState:
        return GuardState()

    def setup(self, scenario: str, options: dict[str, Any]) -> GuardState:
        return GuardState()

    def standing_topics(self) -> dict[str, tuple[str, ...]]:
        return {"guard": ("brace", "hold")}

    def standing_store(self, state: GuardState, side: str) -> dict[str, str]:
        return state.stores[side]

    def parse_order(self, text: str) -> Any:
        w = text.split()
        if len(w) == 2 and w[0] == "react" and w[1] in ("brace", "hold"):
            return React(mode=w[1])
        return super().parse_order(text)

    def format_order(self, order: Any) -> str:
        return f"react {order.mode}" if isinstance(order, React) else super().format_order(order)

    def pending(self, state: GuardState) -> list[Decision]:
        if state.react and not state.over:
            target = state.blocks[state.react[1]]
            return [Decision(side=target.side, kind="react", reaction=True,
                             prompt=f"{state.react[1]} is attacked: 'react brace' or 'react hold'")]
        return super().pending(state)

    def apply(self, state: GuardState, side: str, order: Any, ctx: Context) -> None:
        if state.react:
            if not isinstance(order, React) or side != state.blocks[state.react[1]].side:
                raise IllegalOrder("the attacked side must react first", rule="GUARD-1")
            a, d = state.react
            state.react = []
            self._fight(state, a, d, order.mode, ctx)
            return
        if isinstance(order, React):
            raise IllegalOrder("no attack to react to", rule="GUARD-1")
        if not isinstance(order, Attack):
            super().apply(state, side, order, ctx)
            return
        if not any(x.side == side for x in self.pending(state)):
            raise IllegalOrder(f"{side} has no decision now", rule="BLIND-1")
        at = self._own(state, side, order.block)
        df = state.blocks.get(order.target)
        if df is None or df.side == side or df.pos != at.pos + _dir(side):
            raise IllegalOrder(f"{order.target} is not an enemy block one position ahead",
                               rule="BLIND-3")
        if at.moved:
            raise IllegalOrder(f"{order.block} has moved this turn", rule="BLIND-3")
        at.revealed = df.revealed = True
        mode = answer(state.stores[df.side], "guard")
        if mode is None:
            state.react = [order.block, order.target]
        else:
            self._fight(state, order.block, order.target, mode, ctx)

    def _fight(self, state: GuardState, block: str, target: str, mode: str,
               ctx: Context) -> None:
        a, d = state.blocks[block], state.blocks[target]
        sa = ctx.roll(6, "attack") + STRENGTH[a.kind] + max(a.vet, 0)
        sd = ctx.roll(6, "defence") + STRENGTH[d.kind] + max(d.vet, 0) + (mode == "brace")
        loser = target if sa > sd else block
        ctx.log(f"{block} {sa} against {target} ({mode}) {sd}: {loser} is removed")
        del state.blocks[loser]
        if block in state.blocks:
            a.moved = True
        self._check_end(state)

    def project(self, state: GuardState, side: str, order: Any) -> str:
        return self.format_order(order) if isinstance(order, React) else \
            super().project(state, side, order)

    def public(self, state: GuardState) -> dict[str, Any]:
        return {**super().public(state), "react": list(state.react)}

    def standing_answers(self, state: GuardState, side: str,
                         decision: Decision) -> list[str] | None:
        """The reaction side's standing order gives ('react MODE'), None if it asks."""
        if decision.kind != "react":
            return None
        mode = answer(state.stores[side], "guard")
        return None if mode is None else [f"react {mode}"]

    def bot(self, state: GuardState, side: str, rng: random.Random,
            style: str = "random") -> list[str]:
        if state.react:
            return [f"react {rng.choice(('brace', 'hold'))}"]
        pre = ([f"standing guard {rng.choice(('brace', 'hold', 'ask'))}"]
               if state.turn and rng.random() < 0.4 else [])
        return pre + super().bot(state, side, rng, style)

    def _legal(self, state: GuardState, side: str, line: str) -> bool:
        trial = msgspec.json.decode(msgspec.json.encode(state), type=GuardState)
        try:
            self.apply(trial, side, self.parse_order(line), Context(KeyedDice(bytes(32))))
        except IllegalOrder:
            return False
        return True


GUARD = GuardGame()


@pytest.fixture
def guard():
    """Guard registered for the commands while a test runs (and for that test only)."""
    registry.register(GUARD)
    yield GUARD
    registry._GAMES.pop(GUARD.id, None)


def _table(tmp_path, seed: int) -> Table:
    t = Table(tmp_path, game="guard", scenario="short", mode="sealed")
    t.rng.seed(seed)
    return t


def _games(tmp_path, tries: int = 8):
    """Fresh tables, one per seed (each game's dice secrets are fresh: a game is not
    repeatable, so a test plays games until the case it needs comes up)."""
    for seed in range(1, tries + 1):
        yield _table(tmp_path / f"g{seed}", seed)


def _stands(t: Table, side: str, mode: str) -> None:
    """side writes its standing order (and nothing else) in its next decision's file."""
    t.play_until(lambda s: s == side and t.status(s)["turn"] >= 1)
    t.play_one([f"standing guard {mode}", "end"])


# -- the interface ------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(20))
def test_guard_keeps_the_sealed_invariant_with_standing_orders_as_hidden_policy(seed):
    state = GUARD.initial()
    assert check_play(GUARD, state, random.Random(seed)) == []


def test_a_standing_order_changes_no_state_and_its_owner_answers_explicitly():
    sp = SealedPlay(GUARD, GUARD.initial(), bytes(32))
    for side, line in [("red", "assign r1 tank r2 scout"), ("blue", "assign b1 scout b2 tank"),
                       ("red", "standing guard brace"), ("red", "move r2 3"), ("red", "end"),
                       ("blue", "move b1 3"), ("blue", "end")]:
        assert sp.play(side, line) == [], line
    assert sp.policy["red"] == {"guard": "brace"}
    assert all(st.stores == {"red": {}, "blue": {}} for st in (sp.full, *sp.know.values()))
    assert sp.play("red", "move r2 2") == [] and sp.play("red", "end") == []
    assert sp.play("blue", "attack b1 r2") == []
    assert GUARD.pending(sp.full)[0].side == "red"  # the reaction waits on every state
    assert standing_answers(GUARD, sp.full, "red", sp.policy["red"]) == ["react brace"]
    assert standing_answers(GUARD, sp.full, "red", {}) is None


# -- through the real commands -------------------------------------------------------------
def _auto_answers(t: Table, side: str) -> list[str]:
    """The archive names of side's automatic replies that answer a reaction."""
    return [f"{x.seq:04d}-{side}.pbem" for x in (read_file(p).payload for p in sorted(
        (t.tmp / "mail").glob(f"*-reply-{side}.pbem"))) if x.orders and
        x.orders[0].startswith("react ")]


def _play_checking_secrecy(t: Table) -> None:
    """Play to the end; until the final reveals, neither side stores the other's policy."""
    for _ in range(300):
        t.deliver()
        if t.status("red")["over"]:
            break                       # the final reveals publish every policy
        for side in t.sides:
            other = t.other(side)       # its own real orders, kept under private/, aside
            mine = private_path(t.dirs[other])
            theirs = stored_text(t.dirs[other]).replace(
                mine.read_text() if mine.exists() else "\0", "")
            assert "standing guard" not in theirs, f"{other} stores {side}'s policy"
        if t.mover() is None:
            break
        t.play_one()
    t.play_to_end()


def test_a_standing_answer_is_an_automatic_reply_and_the_policy_never_leaves(tmp_path, guard):
    for t in _games(tmp_path):
        _stands(t, "red", "brace")
        _stands(t, "blue", "brace")
        _play_checking_secrecy(t)
        for side in t.sides:
            r = t.ok("verify", str(t.dirs[side]))
            assert "both final reveals are in" in r.output, r.output
        auto = _auto_answers(t, "red") + _auto_answers(t, "blue")
        if auto:
            break
    else:
        raise AssertionError("no standing order answered a reaction in 8 games")
    for name in auto:   # an answer rides alone in its automatic reply
        side = name[5:-5]
        assert read_file(t.dirs[side] / "files" / name).payload.orders[0].startswith("react ")
        assert len(read_file(t.dirs[side] / "files" / name).payload.orders) == 1
    mine = [read_file(p).payload for p in sorted((t.dirs["blue"] / "files").glob("*-red.pbem"))]
    marked = [x for x in mine if SEALED_STANDING in x.orders]
    assert marked
    assert any(c.fact == "standing.guard" for x in marked for c in x.commits or [])


def test_an_answer_against_the_committed_standing_order_is_caught_by_the_final_replay(
        tmp_path, guard, monkeypatch):
    from pbem.protocol import sealing

    honest = sealing.standing_reply

    def lying(s, queued=()):
        lines = honest(s, queued)
        if lines and s.party == "red":
            return ["react hold" if lines[0] == "react brace" else "react brace"]
        return lines

    monkeypatch.setattr(sealing, "standing_reply", lying)
    for t in _games(tmp_path):
        _stands(t, "red", "brace")
        t.play_to_end()
        lies = _auto_answers(t, "red")
        if lies:
            break
    else:
        raise AssertionError("red's standing order never answered a reaction in 8 games")
    cheat = lies[0]
    for side in t.sides:
        before = snapshot(t.dirs[side])
        r = t.run("verify", str(t.dirs[side]))
        assert r.exit_code == 3, r.output
        assert cheat in r.output and "'react hold'" in r.output and "PBEM-STANDING" in r.output, \
            r.output
        assert len(r.output.strip().splitlines()) <= 3, r.output
        assert snapshot(t.dirs[side]) == before


def test_a_reaction_nobody_answers_in_advance_asks_the_player(tmp_path, guard):
    """Without a standing order the reaction is the player's decision: the status asks it,
    in the decision's words, and no automatic reply answers it."""
    for t in _games(tmp_path):
        try:
            asked = t.play_until(lambda s: any("react brace" in d["what"]
                                               for d in t.status(s)["decisions"]))
        except AssertionError:
            continue                    # this game ended before any attack
        if not _auto_answers(t, "red") + _auto_answers(t, "blue"):
            break
    else:
        raise AssertionError("no reaction was asked in 8 games")
    assert asked in t.sides
    s = ops.open_session(t.dirs[asked], key_path=t.key(asked))
    assert ops.sealing.standing_reply(s) is None


def test_standing_lines_keep_every_later_order_at_its_dice_address(tmp_path, guard):
    """The projection keeps one line per order: file order i is action i on both sides."""
    t = _table(tmp_path, 3)
    _stands(t, "red", "hold")
    t.deliver()
    blue = read_file(next((t.dirs["blue"] / "files").glob("*-red.pbem"))).payload
    real = [line for k, v in sorted(__import__("json").loads(
        private_path(t.dirs["red"]).read_text())["orders"].items()) for line in v]
    assert "standing guard hold" in real
    mine = [read_file(p).payload for p in sorted((t.dirs["blue"] / "files").glob("*-red.pbem"))]
    sent = [o for x in mine for o in x.orders]
    assert SEALED_STANDING in sent and len(sent) == len(real) and blue is not None


def test_a_sealed_standing_marker_is_refused_outside_sealed_mode():
    from pbem.protocol.resolve import parse_orders

    with pytest.raises(IllegalFile, match="x.pbem: order 1 'standing sealed'"):
        parse_orders(GUARD, [SEALED_STANDING], name="x.pbem", canonical_only=True)
    assert parse_orders(GUARD, [SEALED_STANDING], name="x.pbem", canonical_only=True,
                        sealed=True) == [None]


def _committed(t: Table, side: str) -> list[set[str]]:
    """The facts each of side's turn files commits, as the other side received them (final
    reveals left out)."""
    other = t.other(side)
    out = []
    for p in sorted((t.dirs[other] / "files").glob(f"0*-{side}.pbem")):
        x = read_file(p).payload
        if getattr(x, "final", msgspec.UNSET) is msgspec.UNSET and hasattr(x, "commits"):
            out.append({c.fact for c in x.commits or []})
    return out


def test_the_names_of_a_sides_commitments_never_say_which_standing_orders_it_has(
        tmp_path, guard):
    """Neither side has a standing order in its first file (red writes `standing guard brace`
    later): both commit `standing.guard` from their first file on (as 'no standing order'),
    so the names of the commitments tell neither which topics the other set. Before, a topic was committed
    from the file that set it on: in Kasserine the first commitment of `standing.retreat`
    told the other side that its opponent's retreats were the engine's (session 30 trial)."""
    t = _table(tmp_path, 3)
    _stands(t, "red", "brace")
    t.play_to_end()
    for side in t.sides:
        files = _committed(t, side)
        # its first file, before any standing order (a game without `fixed_fact`, as the
        # test games, commits again only what changed; Kasserine and Holdfast every file:
        # tests/games/kasserine/test_sealed_standing_topics.py)
        assert files and "standing.guard" in files[0], (side, files)
        r = t.run("verify", str(t.dirs[side]))
        assert r.exit_code == 0 and "both final reveals are in" in r.output, r.output


def test_an_archive_committing_only_the_topics_set_still_verifies(tmp_path, guard,
                                                                  monkeypatch):
    """Files signed before session 30 commit only the topics their side set: such a game
    (no side commits `standing.guard` before it sets it) still verifies."""
    from pbem.core import sealed as core_sealed
    from pbem.protocol import sealing

    def before_30(policy, topics=()):
        return {f"standing.{k}": v for k, v in sorted(policy.items())}

    monkeypatch.setattr(sealing, "standing_facts", before_30)
    t = _table(tmp_path, 3)
    _stands(t, "red", "brace")
    t.play_to_end()
    monkeypatch.undo()
    assert core_sealed.standing_facts({}, ["guard"]) == {"standing.guard": ""}
    assert not any("standing.guard" in _committed(t, side)[0] for side in t.sides)
    for side in t.sides:
        r = t.run("verify", str(t.dirs[side]))
        assert r.exit_code == 0 and "both final reveals are in" in r.output, r.output
