"""`pbem demo`: a complete game bot against bot through the real signed-file exchange."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable

from pbem.core.errors import PbemError
from pbem.core.keys import generate
from pbem.core.planning import plan_stretch
from pbem.core.sealed import can_seal, default_mode
from pbem.core.registry import find_game
from pbem.protocol import ops
from pbem.protocol.audit import verify_archive
from pbem.protocol.draws import owners
from pbem.core.options import bot_choices, required_choices
from pbem.protocol.genesis import HOST
from pbem.protocol.sealing import planning_state

MAX_FILES = 20000


class Exchange:
    """Parties, their archives and keys, and a mail folder where every file travels."""

    def __init__(self, root: Path, sides: tuple[str, ...], mode: str) -> None:
        self.root = root
        self.mode = mode
        self.mail = root / "mail"
        self.keys: dict[str, Path] = {}
        self.dirs: dict[str, Path] = {}
        self.count = 0
        parties = list(sides) + ([HOST] if mode == "hosted" else [])
        for p in parties:
            key, _, _ = generate(p, root / "keys", None)
            self.keys[p] = key
            self.dirs[p] = root / ("referee" if p == HOST else p)

    def mail_path(self, sender: str, kind: str) -> Path:
        """A new file name in the mail folder."""
        self.count += 1
        return self.mail / f"{self.count:05d}-{sender}-{kind}.pbem"


def play_demo(root: str | Path, *, game_name: str = "holdfast", scenario: str | None = None,
              mode: str | None = None, seed: int | None = None, style: str = "heuristic",
              echo: Callable[[str], Any] | None = None,
              options: dict[str, Any] | None = None) -> Any:
    """Play one game bot against bot; returns an ops.Outcome with the audit summary. Without
    a mode, the mode two players would get (sealed where the game can seal). options: house
    options the proposal sets (as `pbem new --option`), the others their defaults."""
    game = find_game(game_name)
    mode = mode or default_mode(game)
    scenario = scenario or next(iter(game.scenarios()))
    if scenario not in game.scenarios():
        raise PbemError(f"unknown scenario {scenario!r} of {game.id}")
    # the players of a real game must choose a required option; the bots take its first choice
    given = dict(options or {})
    chosen = {k: v for k, v in required_choices(game.options(), bot_choices(
        game.options(), owner=game.id)).items() if k not in given}
    if mode == "sealed" and not can_seal(game):
        raise PbemError(f"{game.id} cannot be played in sealed mode yet (docs/sealed.md): "
                        "choose --mode peer or --mode hosted")
    if mode == "peer":
        owners(game, scenario)             # a game that draws privately needs its peer hooks
    root = Path(root)
    if root.exists() and any(root.iterdir()):
        raise PbemError(f"{root}: folder is not empty")
    rng = random.Random(seed)
    ex = Exchange(root, game.sides, mode)
    log = echo or (lambda _m: None)
    if mode in ("peer", "sealed"):
        _play_peer(ex, game, scenario, rng, style, log, mode=mode, options={**chosen, **given})
    else:
        _play_hosted(ex, game, scenario, rng, style, log, options={**chosen, **given})
    result = ops.Outcome()
    for k, v in sorted(chosen.items()):
        result.messages.append(f"Required option {k}={v} was chosen for the bots "
                               f"(players choose it with pbem new --option {k}=...).")
    turns = 0
    for party, d in ex.dirs.items():
        audit = verify_archive(d)
        if not audit.ok:
            raise PbemError(f"verify {d}: " + "; ".join(audit.problems))
        result.messages.append(f"pbem verify {d}: OK")
        if hasattr(audit.loaded, "state") and hasattr(audit.loaded, "game"):
            turns = max(turns, game.turn(audit.loaded.state))
    result.messages.extend(audit.summary)
    for side in game.sides:
        result.messages.append(f"Reports of {side}: {ex.dirs[side] / 'reports' / side / 'index.html'}")
    sent = len(list(ex.mail.glob("*.pbem")))
    per = f" over {turns} game turns: {sent / turns:.1f} per game turn" if turns else ""
    result.messages.append(f"{sent} files exchanged through {ex.mail}{per}.")
    return result


def _bot_orders(ex: Exchange, s: Any, side: str, rng: random.Random, style: str) -> Path:
    """Write the bot's orders for side's whole stretch from a session holding the full state."""
    # 'pass': the bot's stretch is sent as it is, even where it stops short of the end of its
    # decision (docs/cli.md, pbem check)
    # peer mode: the other side's held orders are in the file this side received
    held = ([(h.side, h.line) for h in s.held] if s.genesis.mode in ("peer", "sealed")
            else None)
    lines = plan_stretch(s.game, planning_state(s), side, rng, style, held=held,
                         sealed=s.genesis.mode == "sealed") + ["pass"]
    path = ex.root / "orders" / f"{ex.count + 1:05d}-{side}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _play_peer(ex: Exchange, game: Any, scenario: str, rng: random.Random, style: str,
               log: Callable[[str], Any], mode: str = "peer",
               options: dict[str, Any] | None = None) -> None:
    a, b = game.sides
    other = {a: b, b: a}
    prop = ex.mail_path(a, "proposal")
    ops.new_game(game.id, scenario, ex.dirs[a], side=a, key_path=str(ex.keys[a]),
                 opponent_pub=str(ex.keys[b].with_suffix(".pub")), out=str(prop), mode=mode,
                 options=options or None)
    acc = ex.mail_path(b, "accept")
    ops.join_game(str(prop), key_path=str(ex.keys[b]), root=ex.dirs[b], out=str(acc))
    queue: list[tuple[Path, str]] = [(acc, a)]
    for _ in range(MAX_FILES):
        while queue:
            path, to = queue.pop(0)
            out = ex.mail_path(to, "reply")
            r = ops.receive_file(ex.dirs[to], str(path), key_path=str(ex.keys[to]), out=str(out))
            if r.reply:
                queue.append((Path(r.reply), other[to]))
        s = ops.open_session(ex.dirs[a])
        if s.over and not s.unresolved():
            log(ops.status_lines(s)[0])
            return
        movers = [p for p in (a, b) if _owes(ex, p)]
        if not movers:
            raise PbemError("demo: dead end: nobody owes a decision and no file is in transit")
        side = movers[0]
        own = ops.open_session(ex.dirs[side], key_path=str(ex.keys[side]))
        orders = _bot_orders(ex, own, side, rng, style)
        out = ex.mail_path(side, "turn")
        ops.submit_orders(ex.dirs[side], str(orders), key_path=str(ex.keys[side]), out=str(out))
        s = ops.open_session(ex.dirs[side])
        log(f"file {s.ledger.tip_seq}: {side}, turn {s.game.turn(s.state)}")
        queue.append((out, other[side]))
    raise PbemError(f"demo: no result after {MAX_FILES} files")


def _owes(ex: Exchange, side: str) -> bool:
    s = ops.open_session(ex.dirs[side], key_path=str(ex.keys[side]))
    if s.unresolved() or s.over:
        return False
    return side in s.pending_sides and side in s.may_send()


def _play_hosted(ex: Exchange, game: Any, scenario: str, rng: random.Random, style: str,
                 log: Callable[[str], Any], options: dict[str, Any] | None = None) -> None:
    prop = ex.mail_path(HOST, "proposal")
    ops.host_game(game.id, scenario, ex.dirs[HOST], key_path=str(ex.keys[HOST]),
                  players={s: str(ex.keys[s].with_suffix(".pub")) for s in game.sides},
                  out=str(prop), options=options or None)
    views: dict[str, str] = {}
    for side in game.sides:
        acc = ex.mail_path(side, "accept")
        ops.join_game(str(prop), key_path=str(ex.keys[side]), root=ex.dirs[side], out=str(acc))
        r = ops.receive_file(ex.dirs[HOST], str(acc), key_path=str(ex.keys[HOST]),
                             out=str(ex.mail))
        views.update(r.views)
    for _ in range(MAX_FILES):
        for side, path in views.items():
            ops.receive_file(ex.dirs[side], path, key_path=str(ex.keys[side]))
        views = {}
        s = ops.open_session(ex.dirs[HOST])
        if s.over:
            log(ops.status_lines(s)[0])
            return
        movers = [p for p in game.sides if p in s.pending_sides]
        if not movers:
            raise PbemError("demo: dead end: nobody owes a decision")
        side = movers[0]
        # A hosted player holds only its view and the shipped bots need the full state, so
        # the referee's session computes that side's orders (never shown to the other side).
        orders = _bot_orders(ex, s, side, rng, style)
        out = ex.mail_path(side, "turn")
        ops.submit_orders(ex.dirs[side], str(orders), key_path=str(ex.keys[side]), out=str(out))
        r = ops.receive_file(ex.dirs[HOST], str(out), key_path=str(ex.keys[HOST]),
                             out=str(ex.mail))
        views = dict(r.views)
        log(f"file {s.ledger.tip_seq + 1}: {side}, turn {s.game.turn(s.state)}")
    raise PbemError(f"demo: no result after {MAX_FILES} files")
