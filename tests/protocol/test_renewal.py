"""Dice commitment renewal: long games renew their onions in signed files instead of stopping,
and every way of abusing a renewal is refused by the real commands (docs/protocol.md section 6, Renewal)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from pbem.core import dicesecret, renewal
from pbem.core.keys import load_private
from pbem.core.records import Renewal, Turn, ViewFile, read_file, seal
from pbem.protocol import ops
from pbem.protocol.archive import Archive
from pbem.protocol.ledger import own_reveals
from tests.fixtures.table import Table, snapshot

LENGTH = 16  # the shortest commitment allowed: a renewal every 8 files


@pytest.fixture
def short_dice(monkeypatch):
    """Every new game of this test commits onions of LENGTH elements only."""
    monkeypatch.setattr(ops, "dice_length", lambda game, scenario: LENGTH)


def _turns(root: Path) -> list[Turn]:
    out = []
    for p in sorted((root / "files").glob("*.pbem")):
        t = read_file(p).payload
        if isinstance(t, Turn):
            out.append(t)
    return out


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_a_game_longer_than_its_commitments_renews_them_and_verifies(tmp_path, short_dice, mode):
    t = Table(tmp_path, scenario="long", mode=mode)
    t.play_to_end()
    archive = t.dirs["host"] if mode == "hosted" else t.dirs["red"]
    turns = _turns(archive)
    assert len(turns) >= LENGTH, "the game must outlast its genesis commitments"
    gens: dict[str, list[int]] = {}
    for turn in turns:
        for sr in turn.renewals or []:
            r = sr.renewal
            assert r.base == turn.seq and r.party == turn.sender and r.length == LENGTH
            gens.setdefault(r.label, []).append(r.generation)
    parties = ["red", "blue"] + (["host"] if mode == "hosted" else [])
    for p in parties:
        assert gens.get(p, [])[:1] == [1], (p, gens)
    for label, g in gens.items():
        assert g == list(range(1, len(g) + 1)), (label, g)
    assert max(len(g) for g in gens.values()) >= 2, "some commitment is renewed twice"
    if mode == "hosted":
        assert any(lb.startswith("host/") for lb in gens), "the referee's class onions renew"
    for d in ([t.dirs["host"], t.dirs["red"], t.dirs["blue"]] if mode == "hosted"
              else [t.dirs["red"], t.dirs["blue"]]):
        r = t.ok("verify", str(d))
        assert "OK" in r.output


# -- attacks, peer mode: a forged next file, received by the opponent -----------------------
def _session(t: Table, side: str):
    return ops.open_session(t.dirs[side], key_path=t.key(side))


def _forge(t: Table, side: str, *, reveal: str | None = None,
           renewals: list | msgspec.UnsetType = msgspec.UNSET) -> Path:
    """side's next file, signed with side's own key, with the reveal and renewals given."""
    s = _session(t, side)
    seq = s.ledger.tip_seq + 1
    if reveal is None:
        reveal, _ = own_reveals(s.ledger.commit, s.own, side, [], seq)
    turn = Turn(game_id=s.genesis.game_id, seq=seq, prev=s.ledger.tip_hash, sender=side,
                reveal=reveal, results=s.results.get(seq - 1), orders=[],
                renewals=renewals)
    path = tmp = t.tmp / "mail" / f"forged-{seq:04d}-{side}.pbem"
    tmp.write_text(seal(turn, load_private(t.key(side)), name=path.name).text)
    return path


def _refused(t: Table, path: Path, to: str, words: str) -> None:
    before = snapshot(t.dirs[to])
    r = t.run("receive", str(t.dirs[to]), str(path), "--key", t.key(to), "--out",
              str(t.tmp / "mail" / "reply-never.pbem"))
    assert r.exit_code != 0
    line = r.output.strip().splitlines()[-1]
    assert path.name in line and words in line, line
    assert snapshot(t.dirs[to]) == before, "a refused file leaves the archive untouched"


def _renewal(t: Table, side: str, label: str, *, tip: str | None = None,
             key_of: str | None = None):
    s = _session(t, side)
    seq = s.ledger.tip_seq + 1
    gen, cur = s.ledger.commit.current(label)
    r = Renewal(game_id=s.genesis.game_id, party=label.split("/")[0], label=label,
                generation=gen + 1, base=seq, length=cur.length,
                tip=tip or s.own.onion(side, gen + 1, cur.length).tip.hex())
    return renewal.sign(load_private(t.key(key_of or side)), r)


def test_a_renewal_of_the_other_partys_commitment_is_refused(tmp_path, short_dice):
    t = Table(tmp_path, scenario="long")
    side = t.play_until(lambda s: True)
    other = t.other(side)
    forged = _forge(t, side, renewals=[_renewal(t, side, other)])
    _refused(t, forged, other, f"not {side}'s dice commitment")


def test_a_renewal_that_reuses_a_commitment_is_refused(tmp_path, short_dice):
    t = Table(tmp_path, scenario="long")
    side = t.play_until(lambda s: True)
    s = _session(t, side)
    old_tip = s.genesis.tips[side].hex()
    forged = _forge(t, side, renewals=[_renewal(t, side, side, tip=old_tip)])
    _refused(t, forged, t.other(side), "reuses a dice commitment")


def test_a_renewal_signed_by_someone_else_is_refused(tmp_path, short_dice):
    t = Table(tmp_path, scenario="long")
    side = t.play_until(lambda s: True)
    forged = _forge(t, side, renewals=[_renewal(t, side, side, key_of="mallory")])
    _refused(t, forged, t.other(side), f"not signed by {side}'s key")


def test_an_old_generation_reveal_after_a_renewal_is_refused(tmp_path, short_dice):
    t = Table(tmp_path, scenario="long")
    side = t.play_until(lambda s: len(_session(t, s).ledger.commit.gens[s]) >= 2)
    s = _session(t, side)
    seq = s.ledger.tip_seq + 1
    base = s.ledger.commit.gens[side][1].base
    old = s.own.element(side, seq - base).hex()   # a real element, of the retired onion
    assert old != own_reveals(s.ledger.commit, s.own, side, [], seq)[0]
    forged = _forge(t, side, reveal=old)
    _refused(t, forged, t.other(side), f"does not match {side}'s commitment (generation 1)")


def test_without_renewal_a_commitment_runs_out_and_a_late_renewal_is_refused(
        tmp_path, short_dice, monkeypatch):
    monkeypatch.setattr(ops, "due_renewals", lambda *a, **k: [])  # a client that never renews
    t = Table(tmp_path, scenario="long")
    side = t.play_until(lambda s: _session(t, s).ledger.tip_seq + 1 >= LENGTH)
    # the player's own processor says so in one line, and signs nothing
    orders = t.tmp / "orders-exhausted.txt"
    orders.write_text("pass\n")
    before = snapshot(t.dirs[side])
    r = t.run("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    assert r.exit_code != 0 and "exhausted" in r.output, r.output
    assert snapshot(t.dirs[side]) == before
    # a file that reveals the onion's seed as its next element, and renews too late
    s = _session(t, side)
    root = dicesecret.decode(Archive(t.dirs[side]).secret_path, load_private(t.key(side)), side,
                             s.genesis.bind)
    forged = _forge(t, side, reveal=dicesecret.seed(root, side).hex(),
                    renewals=[_renewal(t, side, side)])
    _refused(t, forged, t.other(side), "exhausted")


def test_an_empty_renewal_list_is_not_canonical(tmp_path, short_dice):
    t = Table(tmp_path, scenario="long")
    side = t.play_until(lambda s: True)
    forged = _forge(t, side, renewals=[])
    _refused(t, forged, t.other(side), "empty list of renewals")


# -- attacks, hosted mode: what the referee forwards in views ---------------------------------
def _hosted_until_renewal_view(t: Table, side: str, party: str) -> tuple[Path, int]:
    """Play a hosted game until side's next view carries a renewal of party's that side has
    not seen; return the view file (not yet received by side) and how many renewals side
    knew."""
    known = 0
    for _ in range(200):
        while t.inbox:
            path, to = t.inbox[0]
            if to == side:
                v = read_file(path).payload
                if isinstance(v, ViewFile) and len(v.renewals or []) > known:
                    if any(sr.renewal.party == party for sr in v.renewals[known:]):
                        t.inbox.pop(0)
                        return Path(path), known
                    known = len(v.renewals or [])
            t.deliver_one()
        if t.mover() is None:
            break
        t.play_one()
    raise AssertionError("no renewal reached the player")


def _resign_view(t: Table, v: ViewFile, path: Path) -> Path:
    out = path.with_name("forged-" + path.name)
    out.write_text(seal(v, load_private(t.key("host")), name=out.name).text)
    return out


def test_a_referee_cannot_forge_a_players_renewal_in_a_view(tmp_path, short_dice):
    t = Table(tmp_path, scenario="long", mode="hosted")
    path, known = _hosted_until_renewal_view(t, "blue", "red")
    v = read_file(path).payload
    i = next(i for i, sr in enumerate(v.renewals) if i >= known and sr.renewal.party == "red")
    forged_r = msgspec.structs.replace(v.renewals[i].renewal, tip="ab" * 32)
    renewals = list(v.renewals)
    renewals[i] = renewal.sign(load_private(t.key("host")), forged_r)
    forged = _resign_view(t, msgspec.structs.replace(v, renewals=renewals), path)
    before = snapshot(t.dirs["blue"])
    r = t.run("receive", str(t.dirs["blue"]), str(forged), "--key", t.key("blue"))
    assert r.exit_code != 0 and "not signed by red's key" in r.output, r.output
    assert snapshot(t.dirs["blue"]) == before


def test_a_referee_cannot_show_a_renewal_later_than_the_first_view_after_it(tmp_path, short_dice):
    t = Table(tmp_path, scenario="long", mode="hosted")
    path, known = _hosted_until_renewal_view(t, "blue", "host")
    v = read_file(path).payload
    kept = v.renewals[:known]  # the ones blue saw before; the new ones are withheld
    withheld = msgspec.structs.replace(v, renewals=kept or msgspec.UNSET, rolls=[], proofs=[])
    t.ok("receive", str(t.dirs["blue"]), str(_resign_view(t, withheld, path)), "--key",
         t.key("blue"))
    # the next view shows the renewal the earlier one left out
    for _ in range(200):
        if not t.inbox:
            if t.mover() is None:
                break
            t.play_one()
            continue
        p, to = t.inbox[0]
        if to == "blue":
            nxt = read_file(p).payload
            assert isinstance(nxt, ViewFile)
            before = snapshot(t.dirs["blue"])
            r = t.run("receive", str(t.dirs["blue"]), p, "--key", t.key("blue"))
            assert r.exit_code != 0, r.output
            assert "did not carry" in r.output or "differ from those an earlier view" in r.output
            assert snapshot(t.dirs["blue"]) == before
            return
        t.deliver_one()
    raise AssertionError("blue got no later view")


@pytest.mark.parametrize("game, scenario, mode", [("kasserine", "historical", "peer"),
                                                  ("holdfast", "race-to-tunis", "hosted")])
def test_real_games_renew_their_commitments_and_verify(tmp_path, short_dice, game, scenario,
                                                       mode):
    """The rules games play through renewals like any other file (bots, real exchange)."""
    from pbem.protocol.demo import play_demo
    from pbem.protocol.session import load

    play_demo(tmp_path / "g", game_name=game, scenario=scenario, seed=3, mode=mode)
    root = tmp_path / "g" / ("referee" if mode == "hosted" else game_sides(game)[0])
    assert load(root).over
    assert any(t.renewals for t in _turns(root)), "the game outlasted its genesis commitments"


def game_sides(game: str) -> tuple[str, ...]:
    from pbem.core.registry import find_game

    return find_game(game).sides
