"""House options for every BbF gap of GAPS.md section 3 (BBF-G1 to BBF-G25), with defaults."""

from __future__ import annotations

import re

from pbem.core.options import check_specs
from pbem.games.bcs.options import OPTIONS


def test_every_bbf_gap_has_an_option():
    named = {g for spec in OPTIONS.values() for g in re.findall(r"BBF-G\d+", spec.doc)}
    assert named == {f"BBF-G{i}" for i in range(1, 26)}


def test_defaults_are_documented_and_valid():
    check_specs(OPTIONS, "bcs")
    for name, spec in OPTIONS.items():
        assert spec.doc and (spec.required or spec.default in spec.choices), name


def test_entry_blocking_has_no_default():
    """BBF-G12: there is no safe default; the players choose (a bot game takes the first
    choice and says so)."""
    spec = OPTIONS["entry_blocking"]
    assert spec.required and set(spec.choices) == {"attack_from_off_map", "five_hex_errata"}
