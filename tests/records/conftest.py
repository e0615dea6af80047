"""Games for the record tests: finished bot games (played once per session) and helpers."""

from __future__ import annotations

import hashlib
import itertools
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pbem.protocol.demo import play_demo
from pbem.records.record import export_text


def play(root: Path, game: str, scenario: str, mode: str = "peer", seed: int = 1) -> Path:
    """A complete bot game through the real exchange; returns its folder."""
    play_demo(root, game_name=game, scenario=scenario, mode=mode, seed=seed,
              style="random" if game == "dash" else "heuristic")
    return root


def record_of(archive: Path, out: Path) -> Path:
    """Export an archive to a record file."""
    out.write_text(export_text(archive), encoding="ascii")
    return out


@pytest.fixture(scope="session")
def dash_peer(tmp_path_factory) -> Path:
    return play(tmp_path_factory.mktemp("dash-peer"), "dash", "short")


@pytest.fixture(scope="session")
def dash_hosted(tmp_path_factory) -> Path:
    return play(tmp_path_factory.mktemp("dash-hosted"), "dash", "short", mode="hosted")


@pytest.fixture(scope="session")
def campaign(tmp_path_factory) -> Path:
    """A finished Holdfast campaign (peer mode)."""
    return play(tmp_path_factory.mktemp("holdfast"), "holdfast", "campaign")


@pytest.fixture(scope="session")
def kasserine(tmp_path_factory) -> Path:
    """A finished Kasserine game (peer mode)."""
    return play(tmp_path_factory.mktemp("kasserine"), "kasserine", "historical")


@pytest.fixture
def deterministic(monkeypatch):
    """Every random draw pbem makes (keys, nonces, dice secrets) and the proposal's timestamp
    fixed, so that a bot game comes out byte for byte the same on every run."""
    from pbem.protocol import ops

    counter = itertools.count()

    def urandom(n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(f"pbem-records-test-{next(counter)}".encode()).digest()
        return out[:n]

    monkeypatch.setattr(os, "urandom", urandom)
    monkeypatch.setattr(Ed25519PrivateKey, "generate",
                        staticmethod(lambda: Ed25519PrivateKey.from_private_bytes(urandom(32))))
    monkeypatch.setattr(ops, "_now", lambda: "2025-01-01T00:00:00+00:00")
    return urandom


def _renewing(root: Path, mode: str) -> Path:
    """A long test game whose dice commitments cover 16 files only: renewed several times."""
    from pbem.protocol import ops

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ops, "dice_length", lambda game, scenario: 16)
        return play(root, "dash", "long", mode=mode)


@pytest.fixture(scope="session")
def renewed_peer(tmp_path_factory) -> Path:
    """A finished peer game with renewed dice commitments."""
    return _renewing(tmp_path_factory.mktemp("renewed-peer"), "peer")


@pytest.fixture(scope="session")
def renewed_hosted(tmp_path_factory) -> Path:
    """A finished hosted game with renewed dice commitments (the referee's class onions too)."""
    return _renewing(tmp_path_factory.mktemp("renewed-hosted"), "hosted")
