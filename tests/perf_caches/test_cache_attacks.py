"""Caches are never believed without their hash: attacks through the real commands (issue 12).

docs/protocol.md, "Caches": a stored file changed after it was remembered as verified is
checked in full and refused by whatever opens it; a record of verified files, or of the
verified chain, written without this installation's HMAC key is ignored; damaged or stale entries of the static caches (scenario data, compiled
templates, map layers, the move helper's step tables) are rebuilt and the reports come out
byte-identical; `pbem verify` reads none of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.table import Table, snapshot
from pbem.protocol.archive import Archive


def _played(tmp_path: Path) -> Table:
    t = Table(tmp_path / "game")
    t.deliver()
    for _ in range(3):
        t.play_one()
        t.deliver()
    return t


def _forge_signature(path: Path) -> None:
    """Rewrite a stored file in canonical form with one bit of its signature flipped."""
    from pbem.core.records import _render, read_file, summary

    f = read_file(path, strict=True)
    bad = bytes([f.sig[0] ^ 1]) + f.sig[1:]
    path.write_text(summary(f.payload) + _render(f.payload_bytes, bad), encoding="ascii")


def cache_states(cdir: Path) -> tuple[tuple[str, str], ...]:
    """The runs compared, as (label, PBEM_CACHE_DIR): no cache, a fresh one, a warm one, and
    the same one after damage()."""
    return (("none", ""), ("fresh", str(cdir)), ("warm", str(cdir)), ("damaged", str(cdir)))


def damage(entries: list[Path]) -> None:
    """Damage cache entries both ways, alternately: a body that no longer has its hash, and a
    consistent header over a junk body."""
    import hashlib

    from pbem.core import cache

    for i, p in enumerate(entries):
        raw = bytearray(p.read_bytes())
        if i % 2 == 0:
            raw[-1] ^= 0xFF
            p.write_bytes(bytes(raw))
        else:
            body = b"not what was stored"
            p.write_bytes(cache.MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)


def test_verified_files_are_remembered_by_hash_under_an_hmac(tmp_path, cache_dir):
    t = _played(tmp_path)
    index = json.loads((t.dirs["red"] / "cache" / "verified.json").read_bytes())
    turns = sorted((t.dirs["red"] / "files").glob("0*-red.pbem")) + sorted(
        (t.dirs["red"] / "files").glob("0*-blue.pbem"))
    import hashlib

    stored = {hashlib.sha256(p.read_bytes()).hexdigest() for p in turns}
    # every stored turn file is remembered, except perhaps an automatic reply this archive
    # signed in its last command (its own signature, not verified again until the next load)
    assert set(index["files"]) <= stored and len(index["files"]) >= len(stored) - 1 > 0
    assert (cache_dir / "verified-hmac.key").stat().st_mode & 0o077 == 0
    # the record is used: a status reads the files through it (no Ed25519 verification)
    from pbem.core import signing

    calls = []
    real = signing.verify
    signing.verify = lambda *a: calls.append(a) or real(*a)
    try:
        t.ok("status", str(t.dirs["red"]))
    finally:
        signing.verify = real
    assert len(calls) <= 3          # the genesis files only (proposal, acceptance)


def test_a_file_opened_through_the_record_is_the_strict_reading(tmp_path, cache_dir):
    """A stored file whose hash the record vouches for is opened without the canonical checks,
    and its text taken from its bytes rather than rendered again: name, text, hash, payload
    and signature equal a strict read_file of the same file, for every remembered file."""
    from pbem.core.records import read_file
    from pbem.protocol.archive import Archive
    from pbem.protocol.verified import Stored

    t = _played(tmp_path)
    stored = Stored(Archive(t.dirs["red"]))
    seen = 0
    for p in sorted((t.dirs["red"] / "files").glob("0*-*.pbem")):
        f, g = stored.read(p), read_file(p, strict=True)
        seen += bool(f._verified)
        assert (f.name, f.text, f.hash, f.payload, f.sig, f.payload_bytes) == \
            (g.name, g.text, g.hash, g.payload, g.sig, g.payload_bytes), p.name
        assert f.text.encode("ascii") == p.read_bytes()
    assert seen > 0                      # the record was used, not only the full reading


def test_a_stored_file_changed_after_it_was_cached_is_refused(tmp_path, cache_dir):
    """A changed stored file is refused by whatever opens it: `pbem verify` always, and every
    command once the record of the verified chain does not vouch for the files before it (a
    command that needs only the chain runs on the chain as it was verified: chain.py)."""
    t = _played(tmp_path)
    red = t.dirs["red"]
    victim = sorted((red / "files").glob("0001-*.pbem"))[0]
    _forge_signature(victim)
    for cmd in (["verify", str(red)], ["status", str(red)]):
        if cmd[0] == "status":
            (red / "cache" / "chain.json").unlink()
        r = t.run(*cmd)
        assert r.exit_code != 0
        assert victim.name in r.output and "bad signature" in r.output
        assert len(r.output.strip().splitlines()) == 1


def _files(t: Table, side: str) -> list[Path]:
    return sorted((t.dirs[side] / "files").glob("0*-*.pbem"))


@pytest.mark.parametrize("game,mode", [("dash", "peer"), ("blind", "sealed")])
def test_the_remembered_chain_spares_opening_its_files_and_gives_the_same_results(tmp_path,
                                                                                cache_dir,
                                                                                game, mode):
    """A command on an archive whose chain is remembered opens none of the files it covers
    but the last (which fixes the chain), and says what a full reading says (sealed: the
    commitments, openings and finals are taken from the record)."""
    t = Table(tmp_path / "game", game=game, mode=mode)
    t.deliver()
    for _ in range(6):
        t.play_one()
        t.deliver()
    red = t.dirs["red"]
    turns = [p for p in _files(t, "red") if "-accept-" not in p.name and "proposal" not in p.name]
    assert json.loads((red / "cache" / "chain.json").read_bytes())["files"]
    from pbem.core import inputs

    opened = []
    real = inputs.read_limited

    def spy(path, *a, **k):
        opened.append(Path(path).name)
        return real(path, *a, **k)

    import pbem.protocol.chain as chain_mod
    import pbem.protocol.verified as verified_mod

    for mod in (chain_mod, verified_mod):
        setattr(mod, "read_limited", spy)
    try:
        remembered = t.ok("status", str(red), "--json").output
    finally:
        for mod in (chain_mod, verified_mod):
            setattr(mod, "read_limited", real)
    assert [n for n in opened if n in {p.name for p in turns}] == [turns[-1].name]
    (red / "cache" / "chain.json").unlink()
    assert t.ok("status", str(red), "--json").output == remembered


def test_a_forged_or_foreign_record_of_the_chain_is_ignored(tmp_path, cache_dir):
    """The record of the chain is believed only with this installation's HMAC, for this game,
    with files/ beginning with exactly its files and its last one unchanged."""
    t = _played(tmp_path)
    red = t.dirs["red"]
    path = red / "cache" / "chain.json"
    good = path.read_bytes()
    victim = sorted((red / "files").glob("0001-*.pbem"))[0]
    _forge_signature(victim)
    import hashlib

    forged = json.loads(good)
    forged["files"][0][1] = hashlib.sha256(victim.read_bytes()).hexdigest()   # no new HMAC
    another = json.loads(good)
    another["files"] = another["files"][:1]                                    # HMAC of more
    for record in (json.dumps(forged).encode(), json.dumps(another).encode()):
        path.write_bytes(record)
        r = t.run("status", str(red))
        assert r.exit_code != 0 and victim.name in r.output and "bad signature" in r.output
    # a genuine record whose last file has changed on disk is not used either
    path.write_bytes(good)
    _forge_signature(victim)                            # file 1 back as it was
    last = [p for p in _files(t, "red") if "-accept-" not in p.name][-1]
    _forge_signature(last)
    r = t.run("status", str(red))
    assert r.exit_code != 0 and last.name in r.output and "bad signature" in r.output
    _forge_signature(last)
    # and without the HMAC key nothing is remembered: the honest archive loads in full
    (cache_dir / "verified-hmac.key").unlink()
    t.ok("status", str(red))


def test_a_remembered_file_changed_on_disk_is_refused_when_opened(tmp_path, cache_dir):
    """A command that needs a remembered file's contents (here: the same file 1 received
    again, compared with the stored one) refuses it, in one line naming it, when its bytes
    are no longer those the chain was verified with."""
    t = _played(tmp_path)
    red = t.dirs["red"]
    victim = sorted((red / "files").glob("0001-*.pbem"))[0]
    original = tmp_path / "again.pbem"
    original.write_bytes(victim.read_bytes())
    before = snapshot(red)
    _forge_signature(victim)
    changed = snapshot(red)
    r = t.run("receive", str(red), str(original), "--key", t.key("red"))
    assert r.exit_code != 0
    assert len(r.output.strip().splitlines()) == 1
    assert victim.name in r.output and "changed since this archive's chain was verified" \
        in r.output
    assert snapshot(red) == changed != before


def test_a_forged_record_of_verified_files_is_ignored(tmp_path, cache_dir):
    t = _played(tmp_path)
    red = t.dirs["red"]
    victim = sorted((red / "files").glob("0001-*.pbem"))[0]
    index_path = red / "cache" / "verified.json"
    index = json.loads(index_path.read_bytes())
    (red / "cache" / "chain.json").unlink()           # its files opened through this record
    _forge_signature(victim)
    import hashlib

    digest = hashlib.sha256(victim.read_bytes()).hexdigest()
    signer, mac = next(iter(index["files"].values()))
    index["files"][digest] = [signer, mac]            # a valid entry's HMAC, another hash
    index_path.write_text(json.dumps(index))
    r = t.run("status", str(red))
    assert r.exit_code != 0 and victim.name in r.output and "bad signature" in r.output
    # and with no record at all, or no HMAC key, the honest archive still loads in full
    _forge_signature(victim)                           # flip the bit back
    (cache_dir / "verified-hmac.key").unlink()
    t.ok("status", str(red))


def test_receive_refusing_a_file_leaves_the_archive_and_its_caches_as_they_were(tmp_path,
                                                                              cache_dir):
    t = _played(tmp_path)
    t.play_one()
    path, to = t.inbox.pop(0)
    forged = Path(path).with_name("forged.pbem")
    forged.write_text(Path(path).read_text())
    _forge_signature(forged)
    before = snapshot(t.dirs[to])
    r = t.run("receive", str(t.dirs[to]), str(forged), "--key", t.key(to))
    assert r.exit_code != 0 and "bad signature" in r.output
    assert snapshot(t.dirs[to]) == before


def test_verify_reads_no_cache(tmp_path, cache_dir, monkeypatch):
    t = _played(tmp_path)
    from pbem.protocol import verified

    def refuse(*_a, **_k):
        raise AssertionError("pbem verify must not read the record of verified files")

    monkeypatch.setattr(verified.Stored, "read", refuse)
    t.ok("verify", str(t.dirs["red"]))
    victim = sorted((t.dirs["red"] / "files").glob("0002-*.pbem"))[0]
    _forge_signature(victim)
    r = t.run("verify", str(t.dirs["red"]))
    assert r.exit_code == 3 and victim.name in r.output


@pytest.mark.parametrize("game,scenario,kinds", [
    ("holdfast", "race-to-tunis", ("jinja", "holdfast-data", "svg-static")),
    ("kasserine", "historical", ("jinja", "kasserine-data", "svg-static")),
    ("bcs", "5.4", ("jinja", "bcs-data", "svg-static"))])
def test_damaged_static_caches_are_rebuilt_and_reports_are_identical(tmp_path, game, scenario,
                                                                      kinds):
    """A side's report, rendered by `pbem report` in a fresh process with no cache, with a
    fresh cache, with it warm, and with every entry damaged (body changed: its hash no longer
    matches; or a valid hash over a body that is not what was stored), is the same bytes."""
    import os
    import subprocess
    import sys

    work = tmp_path / "game"
    code = (f"import sys; sys.argv = ['pbem', 'demo', {str(work)!r}, '--game', {game!r}, "
            f"'--scenario', {scenario!r}, '--seed', '3', '--quiet'];"
            "import pbem.protocol.demo as d; d.MAX_FILES = 3;"
            "from pbem.cli import main; main()")
    env = dict(os.environ, PBEM_CACHE_DIR="")
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    side = sorted(p.name for p in work.iterdir() if (p / "archive.json").exists())[0]
    outs = {}
    cdir = tmp_path / "c"
    for label, folder in cache_states(cdir):
        if label == "damaged":
            damage(sorted(cdir.glob("*.bin")))
        outs[label] = []
        for fmt in ("html", "text"):
            r = subprocess.run([sys.executable, "-c", "from pbem.cli import main; main()",
                                "report", str(work / side), "--side", side, "--format", fmt],
                               env=dict(os.environ, PBEM_CACHE_DIR=folder),
                               capture_output=True)
            assert r.returncode == 0, r.stderr
            outs[label].append(r.stdout)
        if label == "fresh":
            assert all(list(cdir.glob(f"{kind}-*.bin")) for kind in kinds)
    assert b"<svg" in outs["none"][0]
    assert outs["none"] == outs["fresh"] == outs["warm"] == outs["damaged"]


def test_a_pickled_entry_is_rebuilt_when_the_code_it_depends_on_changed(cache_dir,
                                                                        monkeypatch):
    from pbem.core import cache
    from pbem.games.kasserine import scenario as sc

    built = []

    def build():
        built.append(1)
        return sc._build(sc.data_files("historical"))

    a = cache.remember("t", "k", build)
    b = cache.remember("t", "k", build)
    assert len(built) == 1 and b is not a and b.map.terrain == a.map.terrain
    real = cache._module_hash
    monkeypatch.setattr(cache, "_module_hash",
                        lambda m: "0" * 64 if m == "pbem.core.mapdata" else real(m))
    cache.remember("t", "k", build)
    assert len(built) == 2



@pytest.mark.parametrize("game,scenario,sides,kind", [
    ("holdfast", "race-to-tunis", ("allied", "axis"), "holdfast-steps"),
    ("kasserine", "historical", ("axis", "us"), "kasserine-edges")])
def test_damaged_move_helper_tables_are_rebuilt_and_reports_are_identical(tmp_path, monkeypatch,
                                                                          game, scenario, sides,
                                                                          kind):
    """The move helper's step tables (Holdfast: each unit type's passable steps and their
    costs; Kasserine: every hex's steps out for one side), kept in the package-side cache:
    `pbem receive` of a file after which the receiver has units to move, in a fresh process
    on a copy of the archive as it was, with no cache, a fresh cache, a warm one and with
    those entries damaged (body changed; or a valid hash over another body), writes the same
    report and reply bytes each time, and the damaged entries are rebuilt."""
    import os
    import shutil
    import subprocess
    import sys

    from pbem.core import cache
    from pbem.protocol.ops import open_session

    monkeypatch.setenv("PBEM_CACHE_DIR", "")          # the game itself is played uncached
    t = Table(tmp_path / "game", game=game, scenario=scenario, sides=sides)

    def moves(side: str) -> bool:
        state = open_session(t.dirs[side]).state
        if game == "holdfast":
            from pbem.games.holdfast.data import world
            from pbem.games.holdfast.reach import movable

            return bool(movable(state, world(state.public.scenario), side))
        from pbem.games.kasserine.board import data_of
        from pbem.games.kasserine.reach import movers

        return any(movers(state, data_of(state), side))

    found = None
    for _ in range(40):
        while t.inbox and found is None:
            path, to = t.inbox[0]
            before = tmp_path / "before"
            shutil.rmtree(before, ignore_errors=True)
            shutil.copytree(t.dirs[to], before)
            t.deliver_one()
            if moves(to):
                found = (path, to, before)
        if found:
            break
        t.play_one()
    assert found, "no position with units to move"
    path, to, before = found
    cdir = tmp_path / "c"
    outs = {}
    for label, folder in cache_states(cdir):
        if label == "damaged":
            damage(sorted(cdir.glob(f"{kind}-*.bin")))
        work = tmp_path / "run"                         # one path: reports name it
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(before, work)
        out = tmp_path / "reply.pbem"
        out.unlink(missing_ok=True)
        r = subprocess.run([sys.executable, "-c", "from pbem.cli import main; main()",
                            "receive", str(work), path, "--key", t.key(to), "--out", str(out)],
                           env=dict(os.environ, PBEM_CACHE_DIR=folder), capture_output=True)
        assert r.returncode == 0, r.stderr
        reports = sorted((work / "reports" / to).glob("[0-9]*.html"))
        outs[label] = (reports[-1].name, reports[-1].read_bytes(),
                       out.read_bytes() if out.exists() else b"")
        if label == "fresh":
            assert list(cdir.glob(f"{kind}-*.bin"))
    assert b"reach" in outs["none"][1]
    assert outs["none"] == outs["fresh"] == outs["warm"] == outs["damaged"]
    monkeypatch.setenv("PBEM_CACHE_DIR", str(cdir))
    for p in cdir.glob(f"{kind}-*.bin"):                  # rebuilt: intact again
        assert cache.load(kind, p.name[len(kind) + 1:-4]) is not None


def _loaded(root: Path) -> tuple:
    """What a command's load makes of an archive: the chain, the dice elements known, the
    state and, sealed, the commitments and openings taken."""
    from pbem.protocol.resolve import state_hash
    from pbem.protocol.session import load

    s = load(root, use_cache=True)
    facts = None if s.facts is None else (
        {side: (b.commits, b.opened) for side, b in s.facts.books.items()},
        s.facts.by_file, s.facts.values, s.facts.owed, sorted(s.facts.finals), s.final_orders)
    return ([(f.name, f.hash, s.ledger.sender(k)) for k, f in enumerate(s.ledger.files, 1)],
            s.ledger.known, s.ledger.commit.gens, s.resolved, state_hash(s.state), s.rolled,
            s.held, facts)


@pytest.mark.parametrize("game,scenario,mode", [
    ("dash", "short", "peer"), ("blind", "short", "sealed"), ("dash", "short", "hosted"),
    ("holdfast", "race-to-tunis", "sealed")])
def test_every_command_of_a_whole_game_reads_the_same_with_the_chain_record(tmp_path,
                                                                           cache_dir, game,
                                                                           scenario, mode):
    """Through a whole bot game, after every delivery, what each archive loads (its chain,
    dice elements, state, held orders; sealed: commitments and openings) and its status are
    the same read through the record of the verified chain as read file by file without it;
    and the record is used."""
    from pbem.protocol.archive import Archive
    from pbem.protocol.chain import recall
    from pbem.protocol.session import read_genesis

    sides = ("axis", "allied") if game == "holdfast" else ("red", "blue")
    t = Table(tmp_path / "game", game=game, scenario=scenario, mode=mode, sides=sides)
    used = 0
    for _ in range(400):
        t.deliver()
        for side in t.dirs:
            root = t.dirs[side]
            record = root / "cache" / "chain.json"
            if not record.exists():
                continue
            _, genesis, paths = read_genesis(Archive(root))
            used += bool(recall(Archive(root), genesis, paths))
            kept = record.read_bytes()
            with_record = t.ok("status", str(root), "--json").output, _loaded(root)
            record.unlink()
            try:
                assert (t.ok("status", str(root), "--json").output, _loaded(root)) == \
                    with_record, side
            finally:
                record.write_bytes(kept)
        if t.mover() is None:
            break
        t.play_one()
    assert t.mover() is None and used >= 3


def test_a_record_of_the_chain_made_by_other_code_is_not_believed(tmp_path, cache_dir,
                                                                  monkeypatch):
    """The record names the code that checked its files (`chain.checking_code`): after pbem
    adds a check (session 31: weak keys, sealed-only fields), a record an older pbem wrote
    is not believed, so every stored file meets the new checks again on the next load."""
    import pbem.protocol.chain as chain_mod

    t = _played(tmp_path)
    red = t.dirs["red"]
    turns = {p.name for p in _files(t, "red") if "-accept-" not in p.name
             and "proposal" not in p.name}
    assert json.loads((red / "cache" / "chain.json").read_bytes())["code"] == \
        chain_mod.checking_code()
    assert len(chain_mod.recall(Archive(red), _genesis(red), _turn_paths(red))) == len(turns)
    monkeypatch.setattr(chain_mod, "checking_code", lambda: "other code")
    assert chain_mod.recall(Archive(red), _genesis(red), _turn_paths(red)) == []
    t.ok("status", str(red))               # loads in full, every file checked again


def _genesis(root):
    from pbem.protocol.session import read_genesis

    return read_genesis(Archive(root))[1]


def _turn_paths(root):
    from pbem.protocol.session import read_genesis

    return list(read_genesis(Archive(root))[2])
