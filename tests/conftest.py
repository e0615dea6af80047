"""Shared fixtures: the test-only games are registered for every test; a private folder for
the package-side cache."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixtures.blindgame import GAME as BLIND  # noqa: E402
from fixtures.patrolgame import GAME as PATROL  # noqa: E402
from fixtures.tinygame import GAME as DASH  # noqa: E402

from pbem.core.registry import register  # noqa: E402
from fixtures import suite_games  # noqa: E402

register(DASH)
register(PATROL)
register(BLIND)
suite_games.freeze()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh folder for pbem.core.cache ($PBEM_CACHE_DIR) for this test."""
    d = tmp_path / "pbem-cache"
    monkeypatch.setenv("PBEM_CACHE_DIR", str(d))
    return d
