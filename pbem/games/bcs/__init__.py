"""Baptism By Fire on the Battalion Combat Series rules v1.2: scenario data and its loader only.

The rules engine is not built yet (docs/bcs.md); this package is not registered as a playable
game. ``load_data()`` reads and checks every file of scenarios/bcs (docs/bcs-data.md).
"""

from pbem.games.bcs.loader import BcsData, load_data

__all__ = ["BcsData", "load_data"]
