"""A test table: two (or three) parties playing the test game through the real CLI."""

from __future__ import annotations

import random
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import cli


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under a folder with its bytes (to prove an archive is untouched)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".lock"}


class Table:
    """Keys, archives and a mail folder for one game of the test game 'dash'."""

    def __init__(self, tmp: Path, *, game: str = "dash", scenario: str = "short",
                 mode: str = "peer", sides: tuple[str, str] = ("red", "blue")) -> None:
        self.tmp, self.game, self.mode, self.sides = tmp, game, mode, sides
        self.runner = CliRunner()
        self.n = 0
        self.rng = random.Random(7)
        for p in (*sides, "host", "mallory"):
            self.ok("keygen", p, "--dir", str(tmp / "keys"), "--no-passphrase")
        self.dirs = {s: tmp / s for s in sides} | {"host": tmp / "referee"}
        a, b = sides
        if mode == "peer":
            prop = self.mail("proposal")
            self.ok("new", game, scenario, str(self.dirs[a]), "--side", a, "--key", self.key(a),
                    "--opponent", self.pub(b), "--out", prop)
            acc = self.mail("accept")
            self.ok("join", prop, "--key", self.key(b), "--dir", str(self.dirs[b]), "--out", acc)
            self.inbox: list[tuple[str, str]] = [(acc, a)]
        else:
            prop = self.mail("proposal")
            self.ok("host", game, scenario, str(self.dirs["host"]), "--key", self.key("host"),
                    "--player", f"{a}={self.pub(a)}", "--player", f"{b}={self.pub(b)}",
                    "--out", prop)
            self.inbox = []
            for s in sides:
                acc = self.mail(f"accept-{s}")
                self.ok("join", prop, "--key", self.key(s), "--dir", str(self.dirs[s]),
                        "--out", acc)
                self.inbox.append((acc, "host"))

    def key(self, p: str) -> str:
        return str(self.tmp / "keys" / f"{p}.key")

    def pub(self, p: str) -> str:
        return str(self.tmp / "keys" / f"{p}.pub")

    def mail(self, kind: str) -> str:
        self.n += 1
        (self.tmp / "mail").mkdir(exist_ok=True)
        return str(self.tmp / "mail" / f"{self.n:04d}-{kind}.pbem")

    def run(self, *args: str):
        return self.runner.invoke(cli, list(args), catch_exceptions=False)

    def ok(self, *args: str):
        r = self.run(*args)
        assert r.exit_code == 0, (args, r.output)
        return r

    def other(self, side: str) -> str:
        return self.sides[1] if side == self.sides[0] else self.sides[0]

    def deliver(self) -> None:
        """Deliver every file in transit (and the automatic replies they cause)."""
        while self.inbox:
            path, to = self.inbox.pop(0)
            if self.mode == "peer":
                out = self.mail(f"reply-{to}")
                self.ok("receive", str(self.dirs[to]), path, "--key", self.key(to), "--out", out)
                if Path(out).exists():
                    self.inbox.append((out, self.other(to)))
            elif to == "host":
                outdir = self.tmp / "mail" / f"views-{self.n:04d}"
                self.n += 1
                self.ok("receive", str(self.dirs["host"]), path, "--key", self.key("host"),
                        "--out", str(outdir))
                for v in sorted(outdir.glob("view-*.pbem")) if outdir.exists() else []:
                    self.inbox.append((str(v), v.name.split("-")[1]))
            else:
                self.ok("receive", str(self.dirs[to]), path, "--key", self.key(to))

    def status(self, side: str) -> dict:
        import json

        return json.loads(self.ok("status", str(self.dirs[side]), "--json").output)

    def mover(self) -> str | None:
        for s in self.sides:
            st = self.status(s)
            if not st["over"] and s in st["pending"]:
                return s
        return None

    def play_one(self, lines: list[str] | None = None) -> str:
        """The side that owes a decision submits (bot orders unless lines are given)."""
        side = self.mover()
        assert side is not None
        orders = self.tmp / f"orders-{self.n}.txt"
        if lines is None:
            self.ok("bot", str(self.dirs[side if self.mode == "peer" else "host"]), "--side",
                    side, "--out", str(orders), "--seed", str(self.rng.randrange(10**6))) \
                if self.mode == "peer" else self._host_bot(side, orders)
        else:
            orders.write_text("\n".join(lines) + "\n")
        out = self.mail(f"turn-{side}")
        self.ok("submit", str(self.dirs[side]), str(orders), "--key", self.key(side), "--out", out)
        self.inbox.append((out, self.other(side) if self.mode == "peer" else "host"))
        return out

    def _host_bot(self, side: str, orders: Path) -> None:
        from pbem.protocol.ops import open_session

        s = open_session(self.dirs["host"])
        orders.write_text("\n".join(s.game.bot(s.state, side, self.rng)) + "\n")

    def play_to_end(self, limit: int = 500) -> None:
        for _ in range(limit):
            self.deliver()
            if self.mover() is None:
                return
            self.play_one()
        raise AssertionError("game did not end")
