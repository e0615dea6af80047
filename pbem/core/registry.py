"""The registry of games: each game package registers one Game object on import."""

from __future__ import annotations

from pbem.core.errors import PbemError
from pbem.core.game import Game

_GAMES: dict[str, Game] = {}
_ALIASES: dict[str, str] = {}


def register(game: Game, *aliases: str) -> Game:
    """Register a game under its id and any aliases; returns the game."""
    _GAMES[game.id] = game
    for a in (game.id, *aliases):
        _ALIASES[a.casefold()] = game.id
    return game


def find_game(name: str) -> Game:
    """The registered game with this id or alias; PbemError naming the known games if none."""
    import pbem.games  # noqa: F401  (registers the shipped games)

    gid = _ALIASES.get(name.casefold())
    if gid is None:
        known = ", ".join(sorted(_GAMES)) or "none"
        raise PbemError(f"unknown game {name!r} (known: {known})")
    return _GAMES[gid]


def all_games() -> list[Game]:
    """Every registered game, by id."""
    import pbem.games  # noqa: F401

    return [_GAMES[k] for k in sorted(_GAMES)]
