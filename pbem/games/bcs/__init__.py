"""Baptism By Fire on the Battalion Combat Series rules v1.2: the scenario data, its loader and
the rules engine (docs/bcs-engine.md). ``GAME`` is the Game object, registered under ``bcs``
(aliases ``bbf``, ``baptism-by-fire``); scenario 5.2 is playable.
"""

from pbem.core.registry import register
from pbem.games.bcs.engine import ENGINE as GAME
from pbem.games.bcs.loader import BcsData, load_data

register(GAME)

__all__ = ["GAME", "BcsData", "load_data"]
