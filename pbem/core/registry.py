"""The registry of games: game plugins found through the ``pbem.games`` entry point group.

A game ships as a package (inside pbem or as a distribution of its own) that declares, in its
``pyproject.toml``::

    [project.entry-points."pbem.games"]
    mygame = "mygame_package:GAME"

where ``GAME`` is an object implementing ``pbem.core.game.Game`` (an optional ``aliases``
attribute lists other names it answers to). The registry loads every entry point of the group
the first time a game is looked up; nothing here imports a game package by name. Tests and
embedders may also ``register`` a game object directly.
"""

from __future__ import annotations

from typing import Any

from pbem.core.errors import PbemError
from pbem.core.game import Game

GROUP = "pbem.games"
_REQUIRED = ("id", "title", "sides", "rules_version", "scenarios", "options", "setup", "pending",
             "parse_order", "format_order", "apply", "view")

_GAMES: dict[str, Game] = {}
_ALIASES: dict[str, str] = {}
_BROKEN: dict[str, str] = {}     # entry point name -> one-line reason it could not be loaded
_discovered = False


def register(game: Game, *aliases: str) -> Game:
    """Register a game under its id and any aliases; returns the game."""
    _GAMES[game.id] = game
    for a in (game.id, *aliases, *getattr(game, "aliases", ())):
        _ALIASES[a.casefold()] = game.id
    return game


def _entry_points() -> list[Any]:
    from importlib import metadata

    return sorted(metadata.entry_points(group=GROUP), key=lambda ep: ep.name)


def _load(ep: Any) -> None:
    """Load one entry point and register its game; the reason goes to _BROKEN if it fails."""
    try:
        game = ep.load()
    except Exception as e:  # noqa: BLE001 (any error in a plugin's import is the plugin's)
        reason = str(e).splitlines()[0] if str(e) else ""
        _BROKEN[ep.name] = (f"game plugin {ep.name!r} ({ep.value}) failed to load: "
                            f"{type(e).__name__}" + (f": {reason}" if reason else ""))
        return
    if isinstance(game, type) or (callable(game) and not hasattr(game, "id")):
        try:
            game = game()
        except Exception as e:  # noqa: BLE001
            _BROKEN[ep.name] = (f"game plugin {ep.name!r} ({ep.value}) failed to start: "
                                f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            return
    missing = [a for a in _REQUIRED if not hasattr(game, a)]
    if missing:
        _BROKEN[ep.name] = (f"game plugin {ep.name!r} ({ep.value}) is not a game: it lacks "
                            f"{', '.join(missing)}")
        return
    if not isinstance(game.id, str) or not game.id:
        _BROKEN[ep.name] = f"game plugin {ep.name!r} ({ep.value}) has no game id"
        return
    register(game)


def discover() -> None:
    """Load every ``pbem.games`` entry point not loaded yet (once per process)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    try:
        eps = _entry_points()
    except Exception as e:  # noqa: BLE001 (a malformed installed distribution)
        _BROKEN["(entry points)"] = f"cannot list the {GROUP} entry points: {e}"
        return
    for ep in eps:
        _load(ep)


def plugin_errors() -> list[str]:
    """One line per game plugin that could not be loaded."""
    discover()
    return [_BROKEN[k] for k in sorted(_BROKEN)]


def _builtin(name: str) -> None:
    """Register a game shipped inside pbem (pbem.games.NAME.GAME) without listing every
    installed distribution's entry points, which costs a command more than the game itself
    (docs/performance.md); any other name, or a failure, is left to discover()."""
    if not name.isidentifier() or name.casefold() in _ALIASES:
        return
    try:
        import importlib

        game = getattr(importlib.import_module(f"pbem.games.{name}"), "GAME", None)
    except Exception:  # noqa: BLE001 (discover() reports a broken plugin properly)
        return
    if game is not None and getattr(game, "id", None) == name and all(
            hasattr(game, a) for a in _REQUIRED):
        register(game)


def find_game(name: str) -> Game:
    """The registered game with this id or alias; PbemError naming the known games if none."""
    if not _discovered:
        _builtin(name)
    if name.casefold() not in _ALIASES:
        discover()
    gid = _ALIASES.get(name.casefold())
    if gid is None:
        if name in _BROKEN:
            raise PbemError(_BROKEN[name])
        known = ", ".join(sorted(_GAMES)) or "none"
        broken = "".join(f"; {m}" for m in plugin_errors())
        raise PbemError(f"unknown game {name!r} (known: {known}){broken}")
    return _GAMES[gid]


def all_games() -> list[Game]:
    """Every registered game, by id; PbemError naming a game plugin that failed to load."""
    errors = plugin_errors()
    if errors:
        raise PbemError(errors[0] + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
    return [_GAMES[k] for k in sorted(_GAMES)]
