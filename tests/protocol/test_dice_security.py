"""Attacks on the dice, performed through the real commands (issue: nobody can cheat).

Each test plays the attacker: a proposer who reuses an old game id, a referee who lies about
a player's own file, omits a share, equivocates on views, opens hidden rolls, or refuses a
legal file to get other dice.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec

from pbem.core.dice import derive_roll, file_key
from pbem.core.keys import load_private
from pbem.core.records import (DiceProof, Proposal, Rejection, Turn, ViewFile, open_text,
                               read_file, seal)
from pbem.protocol.genesis import HOST
from pbem.protocol.session import load
from fixtures.table import Table, snapshot


def _payload(path: str | Path):
    return open_text(Path(path).read_text()).payload


# -- 1. fresh dice secrets -------------------------------------------------------------------
def test_dice_secret_is_fresh_randomness_not_the_key(tmp_path):
    """Two games between the same keys commit to unrelated onions, and the game ids differ."""
    t = Table(tmp_path)
    t.deliver()
    prop, acc = tmp_path / "p2.pbem", tmp_path / "a2.pbem"
    t.ok("new", "dash", "short", str(tmp_path / "red2"), "--side", "red", "--key", t.key("red"),
         "--opponent", t.pub("blue"), "--out", str(prop))
    t.ok("join", str(prop), "--key", t.key("blue"), "--dir", str(tmp_path / "blue2"),
         "--out", str(acc))
    t.ok("receive", str(tmp_path / "red2"), str(acc), "--key", t.key("red"))
    one, two = load(t.dirs["red"]).genesis, load(tmp_path / "red2").genesis
    assert one.tips["red"] != two.tips["red"] and one.tips["blue"] != two.tips["blue"]
    assert one.game_id != two.game_id


def test_rematch_with_the_same_game_id_is_refused_and_predicts_nothing(tmp_path):
    """The proposer reuses an old game's proposal nonce (its 'game id') to replay its onions."""
    t = Table(tmp_path)
    t.play_to_end()
    old = load(t.dirs["red"])
    old_blue = [old.ledger.share("blue", k) for k in range(1, old.ledger.tip_seq)]
    # red (the attacker) signs a new proposal carrying the old nonce
    prop = _payload(t.dirs["red"] / "files" / "0000-proposal.pbem")
    assert isinstance(prop, Proposal)
    again = msgspec.structs.replace(prop, created="2026-12-01T00:00:00+00:00")
    f = seal(again, load_private(t.key("red")))
    rematch = tmp_path / "rematch.pbem"
    rematch.write_text(f.text)
    r = t.run("join", str(rematch), "--key", t.key("blue"), "--dir", str(tmp_path / "b2"),
              "--out", str(tmp_path / "acc2.pbem"))
    assert r.exit_code == 1 and "already joined a game with this proposal nonce" in r.output
    assert not (tmp_path / "b2").exists()
    # blue on another machine (no registry beside its key) joins: its onion is new all the same
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.copy(t.key("blue"), other / "blue.key")
    t.ok("join", str(rematch), "--key", str(other / "blue.key"), "--dir", str(tmp_path / "b2"),
         "--out", str(tmp_path / "acc2.pbem"))
    acc = _payload(tmp_path / "acc2.pbem")
    assert bytes.fromhex(acc.onion.tip) != old.genesis.tips["blue"]
    # everything red learnt in the old game predicts no die of the new one
    b2 = load(tmp_path / "b2", key=load_private(str(other / "blue.key")))
    new_e1 = b2.own.element("blue", 1)
    assert new_e1 not in old_blue and b2.genesis.game_id != old.genesis.game_id
    fh = b"\x42" * 32
    predicted = file_key(b2.genesis.game_id, [old_blue[0], old.ledger.share("red", 1)], fh, 1)
    actual = file_key(b2.genesis.game_id, [new_e1, old.ledger.share("red", 1)], fh, 1)
    assert [derive_roll(predicted, 0, i, 6) for i in range(20)] != \
        [derive_roll(actual, 0, i, 6) for i in range(20)]


def test_game_id_mixes_both_players_contributions(tmp_path):
    """The proposer cannot choose the game id: it hashes the acceptance, with its fresh nonce."""
    t = Table(tmp_path)
    prop = _payload(t.dirs["red"] / "files" / "0000-proposal.pbem")
    t.deliver()
    gid = load(t.dirs["red"]).genesis.game_id
    assert gid != prop.nonce
    acc = _payload(t.dirs["blue"] / "files" / "0000-accept-blue.pbem")
    assert len(acc.nonce) == 32 and acc.nonce != prop.nonce
    st = t.status("red")
    assert st["game_id"] == gid


def test_the_dice_secret_is_sealed_and_its_loss_is_a_clear_error(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    secret = t.dirs["blue"] / "secret" / "dice.json"
    raw = secret.read_bytes()
    blue = load(t.dirs["blue"], key=load_private(t.key("blue")))
    # the sealed file holds no onion element in clear
    assert blue.own.main.element(1).hex().encode() not in raw
    # mallory's key does not open it
    from pbem.core import dicesecret
    from pbem.core.errors import ArchiveError
    import pytest

    with pytest.raises(ArchiveError, match="does not open with this key"):
        dicesecret.decode(secret, load_private(t.key("mallory")), "blue",
                          blue.genesis.bind)
    # losing it: one clear line, nothing written, never a silent new chain
    t.play_one(["pick alphawolf"])
    path, _ = t.inbox.pop(0)
    secret.unlink()
    before = snapshot(t.dirs["blue"])
    r = t.run("receive", str(t.dirs["blue"]), path, "--key", t.key("blue"))
    assert r.exit_code == 1
    assert r.output.count("\n") == 1 and "dice secret is missing" in r.output
    assert snapshot(t.dirs["blue"]) == before


# -- 2. a referee cannot re-roll -------------------------------------------------------------
def _hosted(tmp_path, **kw) -> Table:
    t = Table(tmp_path, mode="hosted", options=("gusts=1",), **kw)
    t.deliver()
    return t


def _play_until_red_view_with_rolls(t: Table) -> tuple[Path, Path]:
    """Play until red receives a view with rolls of red's own file; return (view, red's file).

    The referee sends a side a view when it must decide (docs/protocol.md): red sees the dice
    of its file in the next view it gets, with the proof for its own file."""
    for _ in range(60):
        t.play_one()
        path, to = t.inbox.pop(0)
        outdir = t.tmp / "mail" / f"views-{t.n:04d}"
        t.n += 1
        t.ok("receive", str(t.dirs["host"]), path, "--key", t.key("host"), "--out", str(outdir))
        views = {v.name.split("-")[1]: v for v in outdir.glob("view-*.pbem")}
        if "red" in views:
            v = read_file(views["red"]).payload
            own = [p.seq for p in v.proofs if p.sender == "red"]
            if own and any(r["seq"] in own for r in v.rolls):
                if "blue" in views:
                    t.ok("receive", str(t.dirs["blue"]), str(views["blue"]), "--key",
                         t.key("blue"))
                seq = max(own)
                return views["red"], t.dirs["red"] / "files" / f"{seq:04d}-red.pbem"
        for s, vf in views.items():
            t.ok("receive", str(t.dirs[s]), str(vf), "--key", t.key(s))
    raise AssertionError("no roll")


def _resign(view: ViewFile, t: Table, path: Path) -> Path:
    f = seal(view, load_private(t.key("host")))
    path.write_text(f.text)
    return path


def _grind(v: ViewFile, proof: DiceProof, file_hash: bytes, shares: list[bytes]) -> ViewFile:
    """Rolls recomputed as a cheating referee would, from a hash and shares of its choice."""
    rolls = []
    for r in v.rolls:
        key = file_key(v.game_id, shares, file_hash, r["seq"], r["visible_to"])
        rolls.append(dict(r, value=derive_roll(key, r["action"], r["index"], r["sides"])))
    proofs = [msgspec.structs.replace(proof, file_hash=file_hash.hex())]
    return msgspec.structs.replace(v, rolls=rolls, proofs=proofs)


def test_referee_cannot_claim_another_hash_for_the_players_own_file(tmp_path):
    t = _hosted(tmp_path)
    vf, _ = _play_until_red_view_with_rolls(t)
    v: ViewFile = read_file(vf).payload
    proof = next(p for p in v.proofs if p.sender == "red")
    shares = [bytes.fromhex(proof.shares[k]) for k in sorted(proof.shares)]
    forged = _resign(_grind(v, proof, b"\x66" * 32, shares), t, tmp_path / "forged.pbem")
    before = snapshot(t.dirs["red"])
    r = t.run("receive", str(t.dirs["red"]), str(forged), "--key", t.key("red"))
    assert r.exit_code == 1 and "different hash for your own file" in r.output
    assert snapshot(t.dirs["red"]) == before


def test_referee_cannot_leave_out_the_players_share(tmp_path):
    """Dice keyed by the referee's share alone: the referee would know them in advance."""
    t = _hosted(tmp_path)
    for _ in range(20):
        vf, _ = _play_until_red_view_with_rolls(t)
        v: ViewFile = read_file(vf).payload
        proof = next(p for p in v.proofs if p.sender == "red")
        # only the rolls of red's own file: a roll of blue's file in the same view would lose
        # its proof below and be refused for that instead
        v = msgspec.structs.replace(v, rolls=[r for r in v.rolls if r["seq"] == proof.seq],
                                    proofs=[proof])
        only_host = {k: s for k, s in proof.shares.items() if k.startswith(HOST)}
        p2 = msgspec.structs.replace(proof, shares=only_host)
        forged = _grind(v, p2, bytes.fromhex(proof.file_hash),
                        [bytes.fromhex(only_host[k]) for k in sorted(only_host)])
        if forged.rolls != v.rolls:   # by chance the same dice: nothing to forge yet
            break
        t.ok("receive", str(t.dirs["red"]), str(vf), "--key", t.key("red"))
    forged = msgspec.structs.replace(forged, proofs=[msgspec.structs.replace(
        p2, file_hash=proof.file_hash)])
    path = _resign(forged, t, tmp_path / "forged.pbem")
    r = t.run("receive", str(t.dirs["red"]), str(path), "--key", t.key("red"))
    assert r.exit_code == 1 and "not what the dice commitments give" in r.output


def test_two_views_of_one_file_are_equivocation_with_both_files_kept(tmp_path):
    t = _hosted(tmp_path)
    vf, _ = _play_until_red_view_with_rolls(t)
    t.ok("receive", str(t.dirs["red"]), str(vf), "--key", t.key("red"))
    v: ViewFile = read_file(vf).payload
    other = _resign(msgspec.structs.replace(v, events=[]), t, tmp_path / "second-view.pbem")
    r = t.run("receive", str(t.dirs["red"]), str(other), "--key", t.key("red"))
    assert r.exit_code == 3 and "equivocation" in r.output
    assert f"view-{v.seq:04d}.pbem" in r.output and other.name in r.output
    kept = list((t.dirs["red"] / "evidence").glob("view-*.pbem"))
    assert len(kept) == 1 and kept[0].read_text() == other.read_text()
    # the referee's own archive, audited with the player's copy, names the equivocation
    r = t.run("verify", str(t.dirs["host"]), str(other))
    assert r.exit_code == 3 and "equivocation" in r.output
    # so does the player's own archive, from the view kept under evidence/ (it said OK before,
    # and the ladder takes a player's audit; a reviewer), and junk in its files/ is named
    r = t.run("verify", str(t.dirs["red"]))
    assert r.exit_code == 3 and "the referee signed two different views" in r.output, r.output
    (t.dirs["red"] / "files" / "zzz-junk.pbem").write_text("junk\n")
    r = t.run("verify", str(t.dirs["red"]))
    assert "zzz-junk.pbem: unexpected file in files/" in r.output, r.output


def test_a_player_s_second_own_file_of_one_number_is_equivocation_in_its_archive(tmp_path):
    """A hosted player's own file and another it signed with the same number, given to
    `pbem verify` of its archive (or kept under evidence/), is equivocation (exit 3), unless
    a rejection signed by the referee refused one of them (a corrected file is not)."""
    t = _hosted(tmp_path)
    _play_until_red_view_with_rolls(t)
    mine = sorted(p for p in (t.dirs["red"] / "files").glob("0*-red.pbem"))[-1]
    turn = read_file(mine).payload
    fork = tmp_path / "fork.pbem"
    fork.write_text(seal(msgspec.structs.replace(turn, message="another"),
                         load_private(t.key("red")), name=fork.name).text)
    t.ok("verify", str(t.dirs["red"]))
    r = t.run("verify", str(t.dirs["red"]), str(fork))
    assert r.exit_code == 3, r.output
    assert (f"fork.pbem: equivocation: red signed two different files with sequence number "
            f"{turn.seq} ({mine.name})") in r.output, r.output


def test_referee_keeps_every_view_and_verify_checks_them(tmp_path):
    t = _hosted(tmp_path)
    vf, _ = _play_until_red_view_with_rolls(t)
    kept = t.dirs["host"] / "files" / vf.name
    assert kept.read_bytes() == vf.read_bytes()
    t.ok("verify", str(t.dirs["host"]))
    # a kept view that lies (re-signed by the referee) is caught by the audit
    v: ViewFile = read_file(kept).payload
    rolls = [dict(r, value=r["value"] % r["sides"] + 1) for r in v.rolls]
    kept.write_text(seal(msgspec.structs.replace(v, rolls=rolls),
                         load_private(t.key("host"))).text)
    r = t.run("verify", str(t.dirs["host"]))
    assert r.exit_code == 3 and "differs from the replay" in r.output
    # a view the player holds but the referee did not keep is caught too
    kept.unlink()
    r = t.run("verify", str(t.dirs["host"]), str(vf))
    assert r.exit_code == 3 and "did not keep it" in r.output


# -- 3. proofs never open hidden rolls -------------------------------------------------------
def test_views_open_only_the_dice_the_side_may_see(tmp_path):
    t = _hosted(tmp_path)
    vf, _ = _play_until_red_view_with_rolls(t)
    t.ok("receive", str(t.dirs["red"]), str(vf), "--key", t.key("red"))
    t.play_to_end()
    ref = load(t.dirs["host"])
    hidden = [(log, r) for log in ref.log for r in log.rolls if r.visible_to != "all"]
    assert any(r.visible_to == "nobody" for _, r in hidden)
    assert any(r.visible_to in t.sides for _, r in hidden)
    for side in t.sides:
        held = {}
        for vf in (t.dirs[side] / "files").glob("view-*.pbem"):
            v = read_file(vf).payload
            assert all(r["visible_to"] in ("all", side) for r in v.rolls)
            for p in v.proofs:
                for label, share in p.shares.items():
                    assert label in {"host", f"host/{side}", *t.sides}, label
                    held[(label, p.seq)] = share
        for log, r in hidden:
            if r.visible_to == side:
                continue
            need = ref.ledger.share_labels(log.seq, r.visible_to)
            assert any((lb, log.seq) not in held for lb in need), (side, log.seq, r.purpose)


# -- 4. a refused hosted file is not a dead end ------------------------------------------------
def _illegal_turn(t: Table, side: str, orders: list[str]) -> Path:
    """A correctly signed and chained file with illegal orders (bypassing the player's check)."""
    from pbem.protocol.hosted import load_player
    from pbem.protocol.session import own_onion
    from pbem.protocol.archive import Archive

    ps = load_player(Archive(t.dirs[side]))
    v = ps.latest
    key = load_private(t.key(side))
    own = own_onion(Archive(t.dirs[side]), ps.genesis, side, key)
    turn = Turn(game_id=ps.genesis.game_id, seq=v.seq + 1, prev=v.tip, sender=side,
                reveal=own.main.element(v.seq + 1).hex(), orders=orders)
    f = seal(turn, key, name=f"{v.seq + 1:04d}-{side}.pbem")
    (t.dirs[side] / "files" / f.name).write_text(f.text)   # as a modified client would
    p = t.tmp / f"illegal-{side}.pbem"
    p.write_text(f.text)
    return p


def test_hosted_check_uses_the_rules_and_says_what_only_the_referee_checks(tmp_path):
    t = _hosted(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text("advance\n")
    r = t.run("check", str(t.dirs["red"]), str(bad))
    assert r.exit_code == 1 and "pick a codeword first [DASH-3]" in r.output
    good = tmp_path / "good.txt"
    good.write_text("pick alphawolf\n")
    r = t.run("check", str(t.dirs["red"]), str(good))
    assert r.exit_code == 0 and "only the referee can check" in r.output
    r = t.run("submit", str(t.dirs["red"]), str(bad), "--key", t.key("red"), "--out",
              str(tmp_path / "x.pbem"))
    assert r.exit_code == 1 and "DASH-3" in r.output


def test_refused_file_gets_a_signed_rejection_and_a_corrected_file_is_not_equivocation(tmp_path):
    t = _hosted(tmp_path)
    illegal = _illegal_turn(t, "red", ["pick zulu"])
    out = tmp_path / "rejection.pbem"
    before_chain = sorted(p.name for p in (t.dirs["host"] / "files").glob("0*.pbem"))
    r = t.run("receive", str(t.dirs["host"]), str(illegal), "--key", t.key("host"),
              "--out", str(out))
    assert r.exit_code == 1 and "refused: order 1: unknown codeword [DASH-3]" in r.output
    assert sorted(p.name for p in (t.dirs["host"] / "files").glob("0*.pbem")) == before_chain
    rej = _payload(out)
    assert isinstance(rej, Rejection) and rej.order == 1 and rej.rule == "DASH-3"
    t.ok("verify", str(t.dirs["host"]))
    # the player takes the rejection and signs a corrected file 1
    r = t.ok("receive", str(t.dirs["red"]), str(out), "--key", t.key("red"))
    assert "refused your file 1" in r.output
    t.play_one(["pick alphawolf"])
    t.deliver()
    t.ok("verify", str(t.dirs["red"]))
    t.ok("verify", str(t.dirs["host"]))
    t.play_to_end()
    for d in ("red", "blue", "host"):
        t.ok("verify", str(t.dirs[d]))


def test_referee_refusing_a_legal_file_is_caught_by_verify(tmp_path):
    t = _hosted(tmp_path)
    legal = tmp_path / "orders.txt"
    legal.write_text("pick alphawolf\n")
    sent = tmp_path / "legal.pbem"
    t.ok("submit", str(t.dirs["red"]), str(legal), "--key", t.key("red"), "--out", str(sent))
    f = read_file(sent)
    # the referee (who knows the dice of this file) pretends it is illegal
    from pbem.protocol.rejection import refused_file_name, rejection_file_name

    rej = Rejection(game_id=f.payload.game_id, seq=1, sender="red", file=f.hash, order=1,
                    reason="unknown codeword", rule="DASH-3")
    rf = seal(rej, load_private(t.key("host")))
    # the player's own view allows the file: it refuses the rejection at once, stores nothing
    rpath = tmp_path / "rej.pbem"
    rpath.write_text(rf.text)
    before = snapshot(t.dirs["red"])
    r = t.run("receive", str(t.dirs["red"]), str(rpath), "--key", t.key("red"))
    assert r.exit_code == 3 and "rej.pbem: the referee refused file 1 of red" in r.output
    assert "own view allows every order of it" in r.output and "\n" not in r.output.strip()
    assert snapshot(t.dirs["red"]) == before
    (t.dirs["host"] / "rejected").mkdir()
    (t.dirs["host"] / "rejected" / refused_file_name(rej)).write_text(f.text)
    (t.dirs["host"] / "files" / rejection_file_name(rej)).write_text(rf.text)
    r = t.run("verify", str(t.dirs["host"]))
    assert r.exit_code == 3 and "the file is legal" in r.output
    # and a rejection the player holds that the referee did not keep is named
    (t.dirs["host"] / "files" / rejection_file_name(rej)).unlink()
    r = t.run("verify", str(t.dirs["host"]), str(rpath))
    assert r.exit_code == 3 and "did not keep it" in r.output


def test_a_rejection_naming_a_false_reason_is_refused_by_the_player_and_by_verify(tmp_path):
    """The file is illegal, but the referee's signed rejection names another order or reason
    than the writer's own view gives: the player refuses it on receipt, verify names it."""
    from pbem.protocol.rejection import refused_file_name, rejection_file_name

    t = _hosted(tmp_path)
    illegal = _illegal_turn(t, "red", ["pick zulu"])
    f = read_file(illegal)
    host = load_private(t.key("host"))
    lies = [dict(order=1, reason="pick a codeword first", rule="DASH-3"),
            dict(order=1, reason="unknown codeword", rule="DASH-9"),
            dict(order=2, reason="unknown codeword", rule="DASH-3")]
    for n, lie in enumerate(lies):
        rej = Rejection(game_id=f.payload.game_id, seq=1, sender="red", file=f.hash, **lie)
        rpath = tmp_path / f"lie-{n}.pbem"
        rpath.write_text(seal(rej, host).text)
        before = snapshot(t.dirs["red"])
        r = t.run("receive", str(t.dirs["red"]), str(rpath), "--key", t.key("red"))
        assert r.exit_code == 3, r.output
        assert (f"lie-{n}.pbem: the referee's rejection of file 1 names order {lie['order']}: "
                f"{lie['reason']}, but the writer's own view refuses order 1: unknown codeword "
                "[DASH-3]") in r.output
        assert snapshot(t.dirs["red"]) == before
    # stored by a player's older pbem, it fails the audit of the player's archive
    red = t.dirs["red"]
    (red / "rejected").mkdir()
    shutil.copy(red / "files" / "0001-red.pbem", red / "rejected" / refused_file_name(rej))
    (red / "files" / "0001-red.pbem").unlink()
    (red / "files" / rejection_file_name(rej)).write_text(rpath.read_text())
    r = t.run("verify", str(red))
    assert r.exit_code == 3 and "names order 2: unknown codeword" in r.output, r.output
    (red / "files" / rejection_file_name(rej)).unlink()
    shutil.move(red / "rejected" / refused_file_name(rej), red / "files" / "0001-red.pbem")
    # kept by the referee, the false rejection fails the audit of his archive
    (t.dirs["host"] / "rejected").mkdir()
    (t.dirs["host"] / "rejected" / refused_file_name(rej)).write_text(f.text)
    (t.dirs["host"] / "files" / rejection_file_name(rej)).write_text(rpath.read_text())
    r = t.run("verify", str(t.dirs["host"]))
    assert r.exit_code == 3 and "names order 2: unknown codeword" in r.output, r.output
    # the true rejection, made by the referee's own receive, is taken and verifies
    (t.dirs["host"] / "files" / rejection_file_name(rej)).unlink()
    shutil.rmtree(t.dirs["host"] / "rejected")
    out = tmp_path / "true.pbem"
    r = t.run("receive", str(t.dirs["host"]), str(illegal), "--key", t.key("host"), "--out", str(out))
    assert r.exit_code == 1 and "refused" in r.output
    t.ok("receive", str(t.dirs["red"]), str(out), "--key", t.key("red"))
    t.ok("verify", str(t.dirs["host"]))
    t.ok("verify", str(t.dirs["red"]))


def test_false_results_in_a_reply_are_refused(tmp_path):
    """Peer mode: the receiver of a file resolves it and must report the dice as they fell."""
    t = Table(tmp_path)
    for _ in range(40):
        t.deliver()
        side = t.mover()
        t.play_one()
        path, to = t.inbox.pop(0)
        out = tmp_path / f"reply-{t.n}.pbem"
        t.n += 1
        t.ok("receive", str(t.dirs[to]), path, "--key", t.key(to), "--out", str(out))
        if not out.exists():
            continue
        f = read_file(out)
        if not f.payload.results.rolls:
            t.inbox.append((str(out), side))
            continue
        r0 = f.payload.results.rolls[0]
        lie = msgspec.structs.replace(r0, value=r0.value % r0.sides + 1)
        res = msgspec.structs.replace(f.payload.results,
                                      rolls=[lie, *f.payload.results.rolls[1:]])
        forged = tmp_path / "forged.pbem"
        forged.write_text(seal(msgspec.structs.replace(f.payload, results=res),
                               load_private(t.key(to))).text)
        before = snapshot(t.dirs[side])
        r = t.run("receive", str(t.dirs[side]), str(forged), "--key", t.key(side))
        assert r.exit_code == 1 and "results disagree with the replay" in r.output
        assert snapshot(t.dirs[side]) == before
        return
    raise AssertionError("no roll in 40 files")


def test_a_rejection_received_again_after_a_crash_completes(tmp_path):
    """Killed after storing the rejection but before setting the refused file aside."""
    t = _hosted(tmp_path)
    illegal = _illegal_turn(t, "red", ["pick zulu"])
    out = tmp_path / "rejection.pbem"
    t.run("receive", str(t.dirs["host"]), str(illegal), "--key", t.key("host"), "--out", str(out))
    from pbem.protocol.rejection import rejection_file_name

    rej = _payload(out)
    (t.dirs["red"] / "files" / rejection_file_name(rej)).write_text(out.read_text())
    r = t.run("receive", str(t.dirs["red"]), str(out), "--key", t.key("red"))
    assert r.exit_code == 0 and "refused your file 1" in r.output, r.output
    assert not (t.dirs["red"] / "files" / "0001-red.pbem").exists()
    t.ok("verify", str(t.dirs["red"]))
    r = t.run("receive", str(t.dirs["red"]), str(out), "--key", t.key("red"))
    assert r.exit_code == 1 and "stale" in r.output
