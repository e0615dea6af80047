"""Fixtures for the report tests (the samples live in fixtures/report_samples.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.report_samples import make_context, make_map
from pbem.core.mapdata import GameMap
from pbem.reports.context import ReportContext


@pytest.fixture
def sample_map(tmp_path: Path) -> GameMap:
    return make_map(tmp_path)


@pytest.fixture
def sample_ctx() -> ReportContext:
    return make_context()
