"""Holdfast: Tunisia 1942-43 rules engine; importing it registers the game."""

from pbem.core.registry import register
from pbem.games.holdfast.game import GAME

register(GAME, "holdfast-tunisia")

__all__ = ["GAME"]
