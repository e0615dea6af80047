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


def test_entry_blocking_defaults_to_the_printed_rule():
    """BBF-G12: the printed 9.3f of the v1.2 rulebook in force is the default (every game
    proposed without the option, the demo and the conformance suite use it); the v1.0 errata's
    5-hex rule is a choice."""
    spec = OPTIONS["entry_blocking"]
    assert not spec.required and spec.default == "attack_from_off_map"
    assert set(spec.choices) == {"attack_from_off_map", "five_hex_errata"}
