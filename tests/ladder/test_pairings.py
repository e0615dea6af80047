"""`pbem ladder pairings`: players who want a game, paired by rating, no recent rematch."""

from __future__ import annotations

import json
from pathlib import Path

from ladder.helpers import ok, refused, synthetic_game, synthetic_ladder
from pbem.ladder.pairings import propose
from pbem.ladder.players import set_seeking


def test_closest_ratings_are_paired(tmp_path: Path) -> None:
    conn, p = synthetic_ladder(tmp_path / "l.ladder", 6)
    # p0 and p1 strong, p2 and p3 middling, p4 and p5 weak.
    n = 0
    for w, losers in ((0, (2, 3, 4, 5)), (1, (2, 3, 4, 5)), (2, (4, 5)), (3, (4, 5))):
        for lo in losers:
            n += 1
            synthetic_game(conn, n, p[w], p[lo], "win")
    for pid in p:
        set_seeking(conn, f"player{pid - 1:05d}", True)
    got = propose(conn, recent=0)
    pairs = {frozenset((x.a, x.b)) for x in got.pairs}
    name = [f"player{i:05d}" for i in range(6)]
    assert pairs == {frozenset((name[0], name[1])), frozenset((name[2], name[3])),
                     frozenset((name[4], name[5]))}
    assert not got.unpaired


def test_recent_opponents_are_avoided(tmp_path: Path) -> None:
    conn, p = synthetic_ladder(tmp_path / "l.ladder", 4)
    synthetic_game(conn, 1, p[0], p[1], "draw")          # 0 and 1 equal, and just met
    for pid in p:
        set_seeking(conn, f"player{pid - 1:05d}", True)
    got = propose(conn, recent=3)
    for x in got.pairs:
        assert {x.a, x.b} != {"player00000", "player00001"}
    assert len(got.pairs) == 2
    got = propose(conn, recent=0)                         # allowed again when not recent
    assert any({x.a, x.b} == {"player00000", "player00001"} for x in got.pairs)


def test_an_odd_player_out_and_the_cli(full_ladder: Path) -> None:
    for m in ("Ann", "Ben", "Cat"):
        ok("ladder", "seek", full_ladder, m)
    out = json.loads(ok("ladder", "pairings", full_ladder, "--format", "json", "--recent",
                        "0").output)
    assert len(out["pairs"]) == 1 and len(out["unpaired"]) == 1
    ok("ladder", "seek", full_ladder, "Cat", "--off")
    text = ok("ladder", "pairings", full_ladder, "--recent", "0").output
    assert " vs " in text and "Cat" not in text
    assert "not registered" in refused("ladder", "seek", full_ladder, "Nobody")
    text = ok("ladder", "pairings", full_ladder, "--player", "Erin", "--player", "Gus").output
    assert "Erin" in text and "Gus" in text
