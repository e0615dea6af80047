"""Kasserine: Baptism of Fire (Decision Games, Fire & Movement system), February 1943.

``scenario.py`` and ``crt.py`` load the data; the rules engine is spread over one module per job
(movement, retreat, combat, results, support, sequence, victory, ...); ``game.py`` is the Game
object. See docs/kasserine.md for the order notation and the house options.
"""

from pbem.core.registry import register
from pbem.games.kasserine.game import GAME

register(GAME, "kasserine-baptism-of-fire")

__all__ = ["GAME"]
