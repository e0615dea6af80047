"""Real games for the ladder tests, played once per session through the real CLI exchange.

Four club members (ann, ben, cat, dov) play twelve games of the test game 'dash' against
each other, six peer and six hosted; Holdfast is played bot against bot by `pbem demo`
(peer and hosted); plus an unfinished game, a game between unregistered keys, a game whose
chain forks (two verified archives of one game that disagree), and games stopped where a
player has not answered (for forfeit claims).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from fixtures.table import Table
from ladder.helpers import MEMBERS, PAIRS, Game, PlayerTable, Pool, fork, ok, play_forfeit

@pytest.fixture(scope="session")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Pool:
    """Every archive the ladder tests submit (built once)."""
    root = tmp_path_factory.mktemp("ladder-pool")
    p = Pool(root=root)
    for m in MEMBERS:
        ok("keygen", m, "--dir", root / "keys", "--no-passphrase")
        p.keys[m] = root / "keys" / m
    for i, (a, b) in enumerate(PAIRS * 2):
        mode = "peer" if i < 6 else "hosted"
        red, blue = (a, b) if i % 2 == 0 else (b, a)
        t = PlayerTable(root / f"game{i:02d}", {"red": p.keys[red], "blue": p.keys[blue]},
                        mode=mode)
        t.rng = random.Random(i)
        t.play_to_end()
        dirs = {k: v for k, v in t.dirs.items() if v.exists()}
        # a hosted game counts only from the referee's archive (docs/ladder.md)
        submitter = "host" if mode == "hosted" else ["red", "blue"][i % 2]
        p.games.append(Game(mode=mode, dirs=dirs, players={"red": red, "blue": blue},
                            submit=dirs[submitter], table=t))
    ok("demo", root / "demo-peer", "--game", "holdfast", "--scenario", "race-to-tunis",
       "--mode", "peer", "--seed", "1", "--quiet")
    ok("demo", root / "demo-hosted", "--game", "holdfast", "--scenario", "race-to-tunis",
       "--mode", "hosted", "--seed", "2", "--quiet")
    p.demo_peer, p.demo_hosted = root / "demo-peer", root / "demo-hosted"
    t = PlayerTable(root / "unfinished", {"red": p.keys["ann"], "blue": p.keys["ben"]})
    for _ in range(3):
        t.deliver()
        t.play_one()
    t.deliver()
    p.unfinished = t.dirs["red"]
    t = Table(root / "stranger")
    t.play_to_end()
    p.stranger = t.dirs["red"]
    t = PlayerTable(root / "fork", {"red": p.keys["ann"], "blue": p.keys["ben"]})
    for _ in range(4):
        t.deliver()
        t.play_one()
    t.deliver()
    c = fork(t, root / "fork-b", 99)
    t.play_one(["advance", "end"])
    c.play_one(["end"])
    t.play_to_end()
    c.play_to_end()
    p.fork_a, p.fork_b = t.dirs["red"], c.dirs["red"]
    for mode in ("peer", "hosted"):
        p.forfeit[mode] = play_forfeit(root / f"forfeit-{mode}", mode, p.keys)
    return p


@pytest.fixture
def ladder(tmp_path: Path, pool: Pool) -> Path:
    """A new ladder with the four members registered (ann, ben, cat, dov)."""
    db = tmp_path / "club.ladder"
    ok("ladder", "init", db, "--name", "Test Club")
    for m in MEMBERS:
        ok("ladder", "add-player", db, m.capitalize(), pool.pub(m))
    return db


@pytest.fixture(scope="session")
def full_ladder_master(tmp_path_factory: pytest.TempPathFactory, pool: Pool) -> Path:
    """A ladder holding the twelve dash games and both Holdfast games (built once)."""
    db = tmp_path_factory.mktemp("full") / "club.ladder"
    ok("ladder", "init", db, "--name", "Test Club")
    for m in MEMBERS:
        ok("ladder", "add-player", db, m.capitalize(), pool.pub(m))
    for i, (demo, names) in enumerate([(pool.demo_peer, ("Erin", "Finn")),
                                       (pool.demo_hosted, ("Gus", "Hal"))]):
        for side, name in zip(("allied", "axis"), names):
            ok("ladder", "add-player", db, name, demo / "keys" / f"{side}.pub")
    for g in pool.games:
        ok("ladder", "submit", db, g.submit)
    ok("ladder", "submit", db, pool.demo_peer / "axis")
    ok("ladder", "submit", db, pool.demo_hosted / "referee")
    return db


@pytest.fixture
def full_ladder(tmp_path: Path, full_ladder_master: Path) -> Path:
    """A private copy of the full ladder."""
    db = tmp_path / "club.ladder"
    shutil.copy(full_ladder_master, db)
    return db
