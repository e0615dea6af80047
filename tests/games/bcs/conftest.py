"""Shared fixtures for the Baptism By Fire data tests."""

from __future__ import annotations

import pytest

from pbem.games.bcs import load_data


@pytest.fixture(scope="session")
def bbf():
    """The checked BbF data set of scenarios/bcs."""
    return load_data()
