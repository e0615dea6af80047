"""Sealed mode: a file opens each fact its own orders reveal at the value the rules revealed,
even when that value is held by no version committed so far (pbem.protocol.sealing.outgoing):
a fact that lives only within the file (a unit under a stack's top for a few orders, BbF), or
one whose value changed before the reveal and again after it. The receiver's FactBook checks
every opening against a commitment of the same file, and `Facts.shown` gives the revealed value.
Before this, such a file opened nothing (the receiver refused it: "an order reveals ... which the
file does not open") or opened the later value under the earlier one's version (refused as a
forged opening)."""

from __future__ import annotations

from types import SimpleNamespace

import msgspec
import pytest

from pbem.core.commitment import commit, salt
from pbem.core.records import FactCommit
from pbem.protocol import sealing

KEY = bytes(range(32))
GAME_ID = "g" * 16


class _Game:
    sides = ("red", "blue")

    def __init__(self, now: dict[str, int]) -> None:
        self.now = now

    def facts(self, state, side):
        return dict(self.now) if side == "red" else {}


def _turn(seq, commits, openings):
    return SimpleNamespace(seq=seq, sender="red", commits=commits or msgspec.UNSET,
                           openings=openings or msgspec.UNSET, final=msgspec.UNSET)


def _outgoing(monkeypatch, game, facts, revealed):
    monkeypatch.setattr(sealing, "simulate", lambda g, st, side, lines: (None, dict(revealed)))
    return sealing.outgoing(game, facts, KEY, game_id=GAME_ID, side="red", state=None,
                            lines=["x"])


def test_a_fact_that_lives_only_within_the_file_is_committed_and_opened(monkeypatch):
    game = _Game(now={})                              # gone again by the end of the file
    mine, theirs = sealing.Facts(game, GAME_ID, "red"), sealing.Facts(game, GAME_ID, "blue")
    commits, openings = _outgoing(monkeypatch, game, mine, {"red-7.unit": "kern"})
    assert [(c.fact, c.version) for c in commits] == [("red-7.unit", 0)]
    assert [(o.fact, o.version, o.value) for o in openings] == [("red-7.unit", 0, "kern")]
    opened = theirs.take(_turn(4, commits, openings), "0004-red.pbem")
    assert opened == {"red-7.unit": "kern"}
    assert theirs.shown("red", "red-7.unit", 4, reply=False) == (True, "kern")


def test_a_fact_revealed_between_two_changes_opens_the_value_then(monkeypatch):
    game = _Game(now={"red-7.steps": 3})
    mine, theirs = sealing.Facts(game, GAME_ID, "red"), sealing.Facts(game, GAME_ID, "blue")
    first = FactCommit(fact="red-7.steps", version=0,
                       hash=commit(GAME_ID, "red", "red-7.steps", 0, 1,
                                   salt(KEY, "red-7.steps", 0)))
    for f in (mine, theirs):                          # an earlier file committed 1
        f.take(_turn(2, [first], []), "0002-red.pbem")
    commits, openings = _outgoing(monkeypatch, game, mine, {"red-7.steps": 2})
    assert [(c.fact, c.version) for c in commits] == [("red-7.steps", 1), ("red-7.steps", 2)]
    assert [(o.version, o.value) for o in openings] == [(1, 2)]
    theirs.take(_turn(4, commits, openings), "0004-red.pbem")
    assert theirs.shown("red", "red-7.steps", 4, reply=False) == (True, 2)


def test_a_fact_revealed_at_its_committed_value_is_not_committed_again(monkeypatch):
    game = _Game(now={"red-7.steps": 1})
    mine = sealing.Facts(game, GAME_ID, "red")
    first = FactCommit(fact="red-7.steps", version=0,
                       hash=commit(GAME_ID, "red", "red-7.steps", 0, 1,
                                   salt(KEY, "red-7.steps", 0)))
    mine.take(_turn(2, [first], []), "0002-red.pbem")
    commits, openings = _outgoing(monkeypatch, game, mine, {"red-7.steps": 1})
    assert commits == []
    assert [(o.fact, o.version, o.value) for o in openings] == [("red-7.steps", 0, 1)]


def test_a_fact_the_other_side_revealed_and_this_file_reveals_again_opens_both(monkeypatch):
    """Revealed at 3 by the other side's order (owed), then at 1 by this side's own order after
    it changed: both openings, each at its own version (the reply's earliest, the file's
    latest)."""
    game = _Game(now={"red-7.steps": 1})
    mine, theirs = sealing.Facts(game, GAME_ID, "red"), sealing.Facts(game, GAME_ID, "blue")
    first = FactCommit(fact="red-7.steps", version=0,
                       hash=commit(GAME_ID, "red", "red-7.steps", 0, 3,
                                   salt(KEY, "red-7.steps", 0)))
    for f in (mine, theirs):
        f.take(_turn(2, [first], []), "0002-red.pbem")
    mine.owed["red-7.steps"] = 3
    commits, openings = _outgoing(monkeypatch, game, mine, {"red-7.steps": 1})
    assert [(o.version, o.value) for o in openings] == [(0, 3), (1, 1)]
    theirs.take(_turn(4, commits, openings), "0004-red.pbem")
    assert theirs.shown("red", "red-7.steps", 4, reply=False) == (True, 1)
    assert theirs.shown("red", "red-7.steps", 3, reply=True) == (True, 3)


def test_a_fact_opened_before_is_opened_again_when_the_file_commits_a_newer_version(monkeypatch):
    """Revealed at the value it was opened at before (BbF: an Activation opens its Prepared
    Defense, which the same order then changes): the receiver knows only facts opened at their
    latest version, so the file opens that version again beside the new commitment."""
    game = _Game(now={"red.pd.f": True})
    mine, theirs = sealing.Facts(game, GAME_ID, "red"), sealing.Facts(game, GAME_ID, "blue")
    key = salt(KEY, "red.pd.f", 0)
    first = FactCommit(fact="red.pd.f", version=0,
                       hash=commit(GAME_ID, "red", "red.pd.f", 0, False, key))
    opening = sealing.Opening(fact="red.pd.f", version=0, value=False, salt=key.hex())
    for f in (mine, theirs):
        f.take(_turn(2, [first], [opening]), "0002-red.pbem")
    commits, openings = _outgoing(monkeypatch, game, mine, {"red.pd.f": False})
    assert [(c.fact, c.version) for c in commits] == [("red.pd.f", 1)]
    assert [(o.version, o.value) for o in openings] == [(0, False)]
    theirs.take(_turn(4, commits, openings), "0004-red.pbem")
    assert theirs.shown("red", "red.pd.f", 4, reply=False) == (True, False)


class _Knowing(_Game):
    """The other side's processor: its knowledge state knows red-7.steps at `known` (opened
    before); each order reveals it; disclose records what is written in."""

    def __init__(self, known: int) -> None:
        super().__init__(now={})
        self.known, self.written = known, []

    def facts(self, state, side):
        return {"red-7.steps": self.known} if side == "red" else {}

    def reveals(self, state, side, order):
        return [("red", "red-7.steps")]

    def disclose(self, state, owner, values):
        self.written.append((owner, dict(values)))


def _opened_at(value: int, version: int):
    k = salt(KEY, "red-7.steps", version)
    return (FactCommit(fact="red-7.steps", version=version,
                       hash=commit(GAME_ID, "red", "red-7.steps", version, value, k)),
            sealing.Opening(fact="red-7.steps", version=version, value=value, salt=k.hex()))


def test_a_known_fact_opened_again_at_a_new_value_is_written_in():
    """A fact the other side knows (opened at 1) that its owner's hidden outcome changed since
    (BbF: a step rebuilt by Replacements, which the rules on the knowledge state cannot
    follow) is opened again at its new version (2) by the next file that reveals it: the
    receiver writes the new value in, where before it kept the stale one (a sealed BbF game
    parted on a unit its knowledge state then destroyed). A file that reveals it without
    opening it leaves the known value to the rules."""
    game = _Knowing(known=1)
    theirs = sealing.Facts(game, GAME_ID, "blue")
    c0, o0 = _opened_at(1, 0)
    theirs.take(_turn(2, [c0], [o0]), "0002-red.pbem")
    c1, o1 = _opened_at(2, 1)
    theirs.take(_turn(4, [c1], [o1]), "0004-red.pbem")
    sealing.check_reveals(game, theirs, "blue", "red", None, "order", next_name=None,
                          name="0004-red.pbem", seq=4)
    assert game.written == [("red", {"red-7.steps": 2})]
    game.written.clear()
    theirs.take(_turn(6, [], []), "0006-red.pbem")
    sealing.check_reveals(game, theirs, "blue", "red", None, "order", next_name=None,
                          name="0006-red.pbem", seq=6)
    assert game.written == []                  # known at its latest version: the rules follow


def _signed_turn(gid, seq, sender, commits=(), openings=()):
    """A turn record carrying only commitments and openings (Facts.take reads nothing else)."""
    from pbem.core.records import Turn

    return Turn(game_id=gid, seq=seq, prev="00" * 32, sender=sender, reveal="00" * 32,
                commits=list(commits) or msgspec.UNSET, openings=list(openings) or msgspec.UNSET)


def _red_commit(gid, fact, version, value, salt_):
    """red's commitment to one version of fact."""
    return FactCommit(fact=fact, version=version,
                      hash=commit(gid, "red", fact, version, value, salt_))


def test_a_fact_opened_before_is_known_to_a_file_resolved_after_later_files_came_in():
    """A keyless `pbem verify` waits for its own side's share of a file while the other side's
    next files are taken: a later file's new version of a fact must not make an order of the
    earlier file look as if it revealed an unopened fact. A reviewer's honest sealed BbF archive
    was called cheating (exit 3) that way: red opened red-1.kind (version 0) in file 94, file 96
    reveals it again, file 97 commits version 1."""
    from pbem.core.commitment import Opening
    from pbem.protocol.sealing import Facts, check_reveals

    gid, fact, salt = "ab" * 16, "red-1.kind", bytes(32)

    def turn(seq, sender, commits=(), openings=()):
        return _signed_turn(gid, seq, sender, commits, openings)

    def c(version, value):
        return _red_commit(gid, fact, version, value, salt)

    disclosed = {}
    game = SimpleNamespace(sides=("red", "blue"), reveals=lambda st, side, o: [("red", fact)],
                           facts=lambda st, owner: {},
                           disclose=lambda st, owner, values: disclosed.update(values))
    facts = Facts(game, gid, me=None)
    facts.take(turn(93, "red", [c(0, "tank")]), "0093-red.pbem")
    facts.take(turn(94, "red", openings=[Opening(fact=fact, version=0, value="tank",
                                                 salt=salt.hex())]), "0094-red.pbem")
    facts.take(turn(96, "red"), "0096-red.pbem")
    facts.take(turn(97, "red", [c(1, "scout")]), "0097-red.pbem")
    assert fact in facts.opened("red", upto=96) and fact not in facts.opened("red")
    check_reveals(game, facts, None, "red", object(), "an order", next_name="0097-red.pbem",
                  name="0096-red.pbem", seq=96)
    assert disclosed == {fact: "tank"}


def test_a_changed_fact_does_not_say_which_fact_changed(tmp_path):
    """A new version of one block's strength told the other side which block of a stack took
    the hit (a reviewer noticed the fact versions are public; another, that a Formation's
    Prepared Defense flipped): every file commits a new version of every fact of its sender
    that can change (the game's fixed_fact), most at unchanged values (the final replay checks
    each against the real state)."""
    from fixtures.table import Table
    from pbem.protocol import ops
    from pbem.protocol.resolve import copy_state
    from pbem.protocol.sealing import outgoing, side_fact_key

    t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", mode="sealed",
              sides=("allied", "axis"))
    for _ in range(20):                       # until the side to move has blocks on the map
        t.deliver()
        side = t.mover()
        s = ops.open_session(t.dirs[side], key_path=t.key(side))
        have = s.game.facts(s.state, side)
        sps = sorted(f for f in have if f.endswith(".sp"))
        if len(sps) >= 3 and all(s.facts.books[side].version(f) >= 0 for f in have):
            break                              # ... all of them committed in an earlier file
        t.play_one()
    assert len(sps) >= 3, have
    state = copy_state(s.game, s.state)
    priv = state.private[side]
    uid = have[sps[0].replace(".sp", ".unit")]
    priv.units[uid].sp -= 1                                  # one block takes a hit
    key = side_fact_key(s.own)
    commits, _ = outgoing(s.game, s.facts, key, game_id=s.genesis.game_id, side=side,
                          state=state, lines=[])
    got = {c.fact for c in commits}
    changing = {f for f in have if not s.game.fixed_fact(f)}      # a slot's unit never changes
    assert changing and changing <= got and not got & (set(have) - changing), sorted(got)
    assert all(c.version == s.facts.books[side].version(c.fact) + 1 for c in commits)
    unchanged, _ = outgoing(s.game, s.facts, key, game_id=s.genesis.game_id, side=side,
                            state=s.state, lines=[])            # nothing changed: the same
    assert {c.fact for c in unchanged} == got


def test_a_reply_that_commits_a_new_version_of_a_revealed_fact_must_open_it():
    """blue's file 5 reveals red-1.steps, opened before at version 0; red's reply, file 6,
    commits version 1 (the value changed out of sight) and opens nothing: refused, naming the
    reply (the versions of the revealed fact are those as of the reply, a reviewer found the
    keyless-verify fix briefly let this through with the old value)."""
    from pbem.core.commitment import Opening
    from pbem.core.errors import FileRejected
    from pbem.protocol.sealing import Facts, check_reveals

    gid, fact, salt = "ab" * 16, "red-1.steps", bytes(32)

    def turn(seq, sender, commits=(), openings=()):
        return _signed_turn(gid, seq, sender, commits, openings)

    def c(version, value):
        return _red_commit(gid, fact, version, value, salt)

    game = SimpleNamespace(sides=("red", "blue"), reveals=lambda st, side, o: [("red", fact)],
                           facts=lambda st, owner: {}, disclose=lambda st, owner, v: None)
    facts = Facts(game, gid, me="blue")
    facts.take(turn(2, "red", [c(0, 3)], [Opening(fact=fact, version=0, value=3,
                                                  salt=salt.hex())]), "0002-red.pbem")
    facts.take(turn(5, "blue"), "0005-blue.pbem")
    facts.take(turn(6, "red", [c(1, 4)]), "0006-red.pbem")
    with pytest.raises(FileRejected, match="0006-red.pbem: does not open red's red-1.steps"):
        check_reveals(game, facts, "blue", "blue", object(), "an attack",
                      next_name="0006-red.pbem", name="0005-blue.pbem", seq=5)


class _Revealing(_Game):
    """A game whose every order reveals red-7.steps (as an attack reveals its block)."""

    fixed = ()

    def reveals(self, state, side, order):
        return [("red", "red-7.steps")]

    def fixed_fact(self, fact):
        return fact in self.fixed

    def disclose(self, state, owner, values):
        state.update(values)


def _commit(fact, version, value):
    return FactCommit(fact=fact, version=version,
                      hash=commit(GAME_ID, "red", fact, version, value, salt(KEY, fact, version)))


def _open(fact, version, value):
    return sealing.Opening(fact=fact, version=version, value=value,
                           salt=salt(KEY, fact, version).hex())


def test_a_held_order_reads_its_fact_at_the_version_in_force_in_its_file():
    """An order held in file 4 resumes in file 6, which opens nothing: the receiver takes the
    fact from file 4 at the version latest there. A changed processor committed a fake value
    (opened) and the real one (a later version, never opened) in file 4: the fake was taken,
    and a held attack rolled the fake strength's dice (a trial). Now the file is refused; an
    honest file 4, which opens its latest version, is read at that value."""
    game = _Revealing(now={})
    cheat = sealing.Facts(game, GAME_ID, "blue")
    cheat.take(_turn(4, [_commit("red-7.steps", 0, 4), _commit("red-7.steps", 1, 2)],
                     [_open("red-7.steps", 0, 4)]), "0004-red.pbem")
    with pytest.raises(sealing.FileRejected, match="which the file does not open"):
        sealing.check_reveals(game, cheat, "blue", "red", {}, "attack", next_name=None,
                              name="0006-red.pbem", seq=6, own_seq=4)
    honest = sealing.Facts(game, GAME_ID, "blue")
    honest.take(_turn(4, [_commit("red-7.steps", 0, 2)], [_open("red-7.steps", 0, 2)]),
                "0004-red.pbem")
    state: dict = {}
    sealing.check_reveals(game, honest, "blue", "red", state, "attack", next_name=None,
                          name="0006-red.pbem", seq=6, own_seq=4)
    assert state == {"red-7.steps": 2}


def test_a_second_version_of_a_fact_that_never_changes_is_refused():
    """The game's `fixed_fact` (a slot's unit) has one version: a file committing another is
    proof (IllegalFile, PBEM-SEALED), whether or not it opens it."""
    game = _Revealing(now={})
    game.fixed = ("red-7.unit",)
    facts = sealing.Facts(game, GAME_ID, "blue")
    facts.take(_turn(2, [_commit("red-7.unit", 0, "kern")], []), "0002-red.pbem")
    with pytest.raises(sealing.IllegalFile, match="a fact that never changes") as e:
        facts.take(_turn(4, [_commit("red-7.unit", 1, "reim")], []), "0004-red.pbem")
    assert e.value.rule == "PBEM-SEALED"
    facts.take(_turn(4, [_commit("red-7.steps", 0, 3), _commit("red-7.steps", 1, 2)], []),
               "0004-red.pbem")                      # a fact that changes may have more
