"""The director's walkthrough of docs/ladder.md, step by step, with real games; and every
ladder command the guide shows is one the command line accepts as written."""

from __future__ import annotations

import datetime
import json
import re
import shlex
import shutil
import sqlite3
from pathlib import Path

from ladder.helpers import Pool, digest, ok, refused, today
from pbem.cli_ladder import ladder as ladder_group

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_line_in_the_guide_parses() -> None:
    guide = (ROOT / "docs" / "ladder.md").read_text()
    blocks = re.findall(r"```\n(.*?)```", guide, re.S)
    seen = set()
    for block in blocks:
        for line in block.splitlines():
            if not line.startswith("pbem ladder "):
                continue
            words = shlex.split(line.split("#")[0])[2:]
            while ">" in words:
                words = words[:words.index(">")]
            cmd = ladder_group.commands[words[0]]
            with cmd.make_context(words[0], words[1:]) as ctx:   # raises on a bad option
                assert ctx.params is not None
            seen.add(words[0])
    assert {"init", "add-player", "submit", "standings", "claim", "file-claim", "rebut",
            "confirm", "dismiss", "site", "replace-statement", "replace-key", "pairings",
            "seek", "export", "recompute"} <= seen


def test_the_directors_walkthrough(pool: Pool, tmp_path: Path) -> None:
    db = tmp_path / "club.ladder"
    # 1. Create the ladder.
    ok("ladder", "init", db, "--name", "Tunisia Club", "--accept", "dash:short",
       "--accept", "holdfast")
    assert "Accepts: dash:short, holdfast" in ok("ladder", "info", db).output
    # 2. Register the players (the fingerprint printed is the one keygen printed).
    for m in ("ann", "ben", "cat", "dov"):
        out = ok("ladder", "add-player", db, m.capitalize(), pool.pub(m)).output
        assert re.search(r"key [A-Z2-7]{4}(-[A-Z2-7]{4}){3}", out)
    # 4. A dozen real games, peer and hosted, recorded.
    for i, g in enumerate(pool.games):
        target = g.submit
        if i == 5:                       # one of them sent as a one-file game record
            target = tmp_path / "game5.pbemrec"
            ok("export", g.submit, "--out", target)
        assert ok("ladder", "submit", db, target).output.startswith("Recorded game")
    # ... and the refusals, each leaving the file as it was.
    before = digest(db)
    tampered = tmp_path / "tampered"
    shutil.copytree(pool.games[3].submit, tampered)
    f = sorted((tampered / "files").glob("0002-*.pbem"))[0]
    head, body = f.read_text().split("-----BEGIN PBEM FILE-----\n")
    f.write_text(head + "-----BEGIN PBEM FILE-----\n" + body[:30]
                 + ("A" if body[30] != "A" else "B") + body[31:])
    assert "does not verify" in refused("ladder", "submit", db, tampered)
    assert "not over" in refused("ladder", "submit", db, pool.unfinished)
    assert "duplicate" in refused("ladder", "submit", db, pool.games[0].dirs["blue"])
    assert "not registered" in refused("ladder", "submit", db, pool.stranger)
    assert digest(db) == before
    # 5. Standings for people and scripts.
    rows = json.loads(ok("ladder", "standings", db, "--format", "json").output)
    assert sum(r["games"] for r in rows) == 24
    # 6. A forfeit claim, its rebuttal and the director's decision.
    fo = pool.forfeit["peer"]
    claim = tmp_path / "claim.txt"
    ok("ladder", "claim", fo["red"], "--key", fo["red_key"], "--sent",
       (today() - datetime.timedelta(days=9)).isoformat(), "--out", claim)
    ok("ladder", "file-claim", db, claim, fo["red"], "--notice", tmp_path / "notice.txt")
    assert "#1 pending" in ok("ladder", "forfeits", db).output
    ok("ladder", "rebut", db, "1", fo["answer"])
    ok("ladder", "dismiss", db, "1", "--note", "reply shown; play on")
    # 7. A key replacement.
    ok("keygen", "ann2", "--dir", tmp_path, "--no-passphrase")
    ok("ladder", "replace-statement", "--old", pool.key("ann"), "--new", tmp_path / "ann2.key",
       "--out", tmp_path / "replace.txt")
    ok("ladder", "replace-key", db, tmp_path / "replace.txt")
    # 8. Pairings.
    for m in ("Ann", "Ben", "Cat", "Dov"):
        ok("ladder", "seek", db, m)
    assert ok("ladder", "pairings", db, "--recent", "0").output.count(" vs ") == 2
    # 9. Publish.
    ok("ladder", "site", db, tmp_path / "public_html")
    assert (tmp_path / "public_html" / "index.html").is_file()
    # 10. Audit.
    gid = sqlite3.connect(db).execute("SELECT game_id FROM games WHERE seq = 1").fetchone()[0]
    out = ok("ladder", "export", db, gid, tmp_path / "evidence").output
    folder = out.split()[-1]
    assert "OK: the archive verifies." in ok("verify", folder).output
    ok("ladder", "recompute", db, "--check")
