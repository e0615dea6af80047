"""Every command is documented in docs/cli.md, and the README keeps its contract."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_in_cli_doc():
    doc = (ROOT / "docs" / "cli.md").read_text()
    for name in cli.commands:
        assert f"### `pbem {name}" in doc, name


def test_readme_quick_start_has_exactly_two_commands():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    cmds = [ln for ln in block.splitlines() if ln.strip()]
    assert cmds == ["./scripts/demo", "./scripts/test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "./scripts/test" in ci
