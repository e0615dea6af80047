"""Private committed draws in a peer game (pbem.core.privatedraw, docs/protocol.md section 6a).

A game that draws values only one side may know declares ``private_draw_owners(scenario)``
(the sides that draw), records each draw's public ``PrivateDraw`` in its state
(``private_draws(state)``), says whose draws the rules need opened now (``draws_due(state)``)
and takes the opened values (``disclose_draws(state, owner, values, public)``, which returns
the public event texts). The processor does the rest:

- the owner's first file begins with ``draws commit C`` (written by its processor);
- the owner's processor derives the value of each of its draws once the file's onion shares
  are known and keeps it in ``DIR/private/draws.json`` (never sent; its reports show it);
- when the rules need the draws, the owner's next file begins with ``draws reveal KEY``;
  every processor and ``pbem verify`` check it against the commitment and compute the values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.core.errors import ArchiveError, PbemError
from pbem.core.game import Event, NeedsDice, PrivateDraw
from pbem.core.privatedraw import (DrawLine, check_opening, commitment, draw_key, draw_value,
                                   format_draw_line, is_draw_line, parse_draw_line)
from pbem.protocol.archive import atomic_write


PEER_HOOKS = ("private_draws", "draws_due", "disclose_draws")


def owners(game: Any, scenario: str) -> tuple[str, ...]:
    """The sides that make private draws in this scenario (none for most games); PbemError if
    the game declares some without the hooks a peer game's draws need."""
    f = getattr(game, "private_draw_owners", None)
    found = tuple(f(scenario)) if f is not None else ()
    missing = [h for h in PEER_HOOKS if found and not callable(getattr(game, h, None))]
    if missing:
        raise PbemError(f"{game.id} draws privately in scenario {scenario!r} but lacks "
                        f"{', '.join(missing)} for a peer game: play it sealed or hosted")
    return found


def store_path(root: Path) -> Path:
    """The owner's private store of its draws' values (never sent)."""
    return Path(root) / "private" / "draws.json"


class DrawBook:
    """The private draws of one peer session: commitments and openings found in the chain."""

    def __init__(self, session: Any) -> None:
        self.s = session

    # -- the chain ---------------------------------------------------------------------------
    def _lines(self, upto: int, kind: str, owner: str) -> list[tuple[int, str]]:
        """(seq, value) of every 'draws KIND' line of owner in files 1..upto."""
        out = []
        for f in self.s.ledger.files[:upto]:
            t = f.payload
            if t.sender != owner:
                continue
            for line in t.orders:
                if is_draw_line(line):
                    try:
                        d = parse_draw_line(line)
                    except Exception:       # noqa: BLE001 (refused when that file is resolved)
                        continue
                    if d.kind == kind:
                        out.append((t.seq, d.value))
        return out

    def committed(self, owner: str, seq: int) -> bool:
        """True if owner committed its draw key in files 1..seq."""
        return bool(self._lines(seq, "commit", owner))

    def due(self, state: Any) -> set[str]:
        """The owners whose private draws the rules need opened now."""
        f = getattr(self.s.game, "draws_due", None)
        return set(f(state)) if f is not None else set()

    def take(self, state: Any, turn: Any, line: DrawLine, events: list[Event]) -> str | None:
        """Check and apply one 'draws' line of file turn.seq; the problem, or None."""
        game, owner = self.s.game, turn.sender
        if owner not in owners(game, self.s.genesis.p.scenario):
            return f"{owner} makes no private draw in this scenario"
        commits = self._lines(turn.seq, "commit", owner)
        if line.kind == "commit":
            if len(commits) != 1:
                return f"{owner} has already committed its draw key"
            return None
        if not commits:
            return f"{owner} opens a draw key it never committed"
        if len(self._lines(turn.seq, "reveal", owner)) != 1:
            return f"{owner} has already opened its draw key"
        problem = check_opening(self.s.genesis.game_id, owner, commits[0][1], line.value)
        if problem:
            return problem
        values = self.values(state, owner, bytes.fromhex(line.value))
        if values is None:
            raise NeedsDice(f"file {turn.seq}: a drawn file's dice shares are still secret")
        for text in game.disclose_draws(state, owner, values, True):
            events.append(Event(text=text, kind="draw"))
        return None

    def values(self, state: Any, owner: str, key: bytes) -> dict[str, int] | None:
        """The values of owner's draws in state under its draw key (None while a share of a
        drawn file is still secret)."""
        out = {}
        for d in self.s.game.private_draws(state):
            if d.owner != owner:
                continue
            v = self.value(d, key)
            if v is None:
                return None
            out[d.name] = v
        return out

    def value(self, d: PrivateDraw, key: bytes) -> int | None:
        """One draw's value (None while a share of its file is secret)."""
        shares = self.s.shares_of(d.seq, d.owner)
        if shares is None or d.seq > len(self.s.ledger.files):
            return None
        h = bytes.fromhex(self.s.ledger.files[d.seq - 1].hash)
        return draw_value(self.s.genesis.game_id, d, list(shares.values()), h, key)

    # -- the owner's processor ---------------------------------------------------------------
    def key(self) -> bytes:
        """This party's draw key (its key must be loaded)."""
        if self.s.own is None:
            raise ArchiveError("a key is needed to derive the private draws")
        return draw_key(self.s.own.root_secret())

    def lines_for(self) -> list[str]:
        """The 'draws' lines this party's next file begins with: its commitment in its first
        file, its opening when the rules need it."""
        s, me = self.s, self.s.party
        if me not in owners(s.game, s.genesis.p.scenario):
            return []
        out = []
        seq = s.ledger.tip_seq
        if not self.committed(me, seq):
            out.append(format_draw_line(DrawLine(
                kind="commit", value=commitment(s.genesis.game_id, me, self.key()))))
        if me in self.due(s.state) and not self._lines(seq, "reveal", me):
            out.append(format_draw_line(DrawLine(kind="reveal", value=self.key().hex())))
        return out

    def reveal_owed(self) -> bool:
        """True if this party must open its draws and may send a file now."""
        s = self.s
        return (s.party in owners(s.game, s.genesis.p.scenario) and s.party in self.due(s.state)
                and s.party in s.may_send())

    def known(self, side: str) -> dict[str, int]:
        """side's own draws' values this processor knows: derived with its key, else from its
        private store (only ever its own party's)."""
        s = self.s
        if side != s.party or side not in owners(s.game, s.genesis.p.scenario):
            return {}
        if s.own is None:
            import json

            try:
                data = json.loads(store_path(s.archive.root).read_text())
            except (OSError, ValueError):
                return {}
            return {k: v for k, v in data.items() if isinstance(v, int)}
        key = self.key()
        out = {}
        for d in s.game.private_draws(s.state):
            if d.owner == side:
                v = self.value(d, key)
                if v is not None:
                    out[d.name] = v
        return out

    def keep(self) -> None:
        """Write this party's known draws into its private store (where they changed)."""
        if self.s.own is None:
            return
        vals = self.known(self.s.party)
        if not vals:
            return
        import json

        path = store_path(self.s.archive.root)
        data = json.dumps(vals, sort_keys=True).encode()
        try:
            if path.read_bytes() == data:
                return
        except OSError:
            pass
        path.parent.mkdir(exist_ok=True)
        atomic_write(path, data)


def known_state(s: Any, side: str, state: Any) -> Any:
    """The state side's reports are made from: with its own private draws written in (a copy),
    where this processor knows them."""
    book = getattr(s, "draws", None)
    if book is None:
        return state
    vals = book.known(side)
    if not vals:
        return state
    from pbem.protocol.resolve import copy_state

    out = copy_state(s.game, state)
    s.game.disclose_draws(out, side, vals, False)
    return out
