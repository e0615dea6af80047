"""Shared fixtures: the test-only game is registered for every test."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixtures.blindgame import GAME as BLIND  # noqa: E402
from fixtures.patrolgame import GAME as PATROL  # noqa: E402
from fixtures.tinygame import GAME as DASH  # noqa: E402

from pbem.core.registry import register  # noqa: E402

register(DASH)
register(PATROL)
register(BLIND)
