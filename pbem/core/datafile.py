"""Reading scenario data files: strict TOML decoding with one-line errors naming the file."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import msgspec

from pbem.core.errors import ScenarioError

T = TypeVar("T")


def read_toml(path: str | Path, type_: type[T]) -> T:
    """Decode a TOML data file strictly into type_; ScenarioError names the file and problem."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ScenarioError(f"{p}: cannot read ({e.strerror})") from None
    try:
        return msgspec.toml.decode(raw, type=type_)
    except (msgspec.ValidationError, msgspec.DecodeError) as e:
        raise ScenarioError(" ".join(f"{p}: {e}".split())) from None
