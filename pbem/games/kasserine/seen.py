"""Moves seen: the paths both sides saw this player turn and the previous one (all face up).

A report follows a decision point; keeping the current player turn plus the previous one means
every report shows at least the opponent's whole last player turn. Entries are recorded only by
the code that carries out an order, after every check of that order has passed.
"""

from __future__ import annotations

from pbem.games.kasserine.state import KasserineState, MoveSeen

KINDS = ("move", "enter", "retreat", "displace", "advance")


def record(state: KasserineState, kind: str, uid: str, path: list[str]) -> None:
    """Note that unit uid went along path (kind one of KINDS) in the current player turn."""
    assert kind in KINDS, kind
    state.moves.append(MoveSeen(turn=state.turn, player=state.active, side=state.units[uid].side,
                                kind=kind, unit=uid, path=list(path)))


def new_player_turn(state: KasserineState, side: str) -> None:
    """Forget the moves older than the player turn just ended, as side's player turn begins."""
    state.moves = [m for m in state.moves if m.player != side]


def seen_lines(moves: list[MoveSeen]) -> list[str]:
    """The moves as panel lines, oldest first: turn, player turn, unit, kind and hexes."""
    return [f"turn {m.turn} {m.player} player turn: {m.unit} ({m.side}) {m.kind} "
            f"{'-'.join(m.path)}" for m in moves]
