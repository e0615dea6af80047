"""Killing a gateway (SIGKILL) at random points loses and repeats nothing: a whole game is
played with every gateway pass killed at its N-th write, rename or fsync (random N), then
run again."""

from __future__ import annotations

import random
import signal
import sqlite3
import time

from fixtures.table import Table
from mail.helpers import pbem_process, write_config

ADDR = {"red": "red@red.test", "blue": "blue@blue.test"}


def test_a_game_survives_gateways_killed_at_random_points(tmp_path, smtp_server):
    office, port, ca = smtp_server
    rng = random.Random(16)
    t = Table(tmp_path)
    cfgs = {}
    for s in ("red", "blue"):
        office.boxes[ADDR[s]] = tmp_path / f"mail-{s}"
        cfgs[s] = str(write_config(tmp_path / f"{s}.toml", address=ADDR[s], key=t.key(s),
                                   archives=tmp_path, maildir=tmp_path / f"mail-{s}",
                                   port=port, cafile=ca, games={s: ADDR}))
    t.ok("mail", "send", "--config", cfgs["blue"], "blue", t.inbox.pop()[0])
    kills = 0
    for turn in range(200):
        for _ in range(30):
            busy = False
            for s, c in cfgs.items():
                if rng.random() < 0.7:          # killed at its N-th write, rename or fsync
                    p = pbem_process("mail", "poll", "--config", c, kill_at=rng.randint(1, 12),
                                     when=rng.choice(["before", "after"]))
                else:                           # killed at a random moment (SMTP included)
                    p = pbem_process("mail", "poll", "--config", c)
                    time.sleep(rng.uniform(0.2, 1.2))
                    p.send_signal(signal.SIGKILL)
                out, _ = p.communicate(timeout=120)
                kills += p.returncode == -9
                r = t.ok("mail", "poll", "--config", c)      # the restart finishes the job
                assert "failed" not in out + r.output, out + r.output
                busy |= not (out.rstrip().endswith("0 message(s) processed")
                             and r.output.rstrip().endswith("0 message(s) processed"))
            if not busy:
                break
        side = t.mover()
        if side is None:
            break
        orders = tmp_path / f"o{turn}.txt"
        t.ok("bot", str(t.dirs[side]), "--side", side, "--out", str(orders), "--seed", str(turn))
        out = tmp_path / f"t{turn}.pbem"
        t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", str(out))
        t.ok("mail", "send", "--config", cfgs[side], side, str(out))
    assert kills > 5, kills
    for s in ("red", "blue"):
        assert t.status(s)["over"]
        t.ok("verify", str(t.dirs[s]))
        db = sqlite3.connect(tmp_path / f"{s}.sqlite")
        assert db.execute("SELECT count(*) FROM messages WHERE status='failed'").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM outbox WHERE sent=0").fetchone()[0] == 0
        assert not list((tmp_path / f"mail-{s}" / "new").iterdir())
    # a mail sent twice (killed between the server's OK and the journal) carries the same
    # Message-ID, and the receiving gateway processed it once: one journal row per distinct
    # Message-ID it was sent
    import email
    for s in ("red", "blue"):
        ids = {email.message_from_bytes(b)["Message-ID"] for _, rcpt, b in office.received
               if ADDR[s] in rcpt}
        db = sqlite3.connect(tmp_path / f"{s}.sqlite")
        rows = db.execute("SELECT count(*) FROM messages WHERE detail NOT LIKE 'sent %'")
        assert rows.fetchone()[0] == len(ids)
