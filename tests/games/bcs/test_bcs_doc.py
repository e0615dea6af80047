"""docs/bcs.md lists every BCS rule id as done (with the test files or rule-case files naming
it) or not yet done."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BOUNDARY = r"(?<![A-Za-z0-9.\-]){}(?![A-Za-z0-9.\-]|\.[A-Za-z0-9])"


def test_docs_bcs_matches_the_tests():
    doc = (ROOT / "docs" / "bcs.md").read_text(encoding="utf-8")
    rows = [ln.split(" | ") for ln in doc.splitlines()
            if ln.startswith("| ") and not ln.startswith(("| id ", "| ---"))]
    assert len(rows) >= 546
    ids = [r[0][2:] for r in rows]
    assert len(ids) == len(set(ids))
    bcs = ROOT / "tests" / "games" / "bcs"
    tests = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
             for p in [*bcs.glob("test_*.py"), *(bcs / "cases").glob("*.toml")]}
    for r in rows:
        rid, status = r[0][2:], r[3]
        named = sorted(f for f, t in tests.items()
                       if f != "tests/games/bcs/test_bcs_doc.py"
                       and re.search(BOUNDARY.format(re.escape(rid)), t))
        if status.startswith("done: "):
            listed = re.findall(r"`([^`]+)`", status)
            assert listed == named, rid
        else:
            assert status == "not yet done" and not named, rid
