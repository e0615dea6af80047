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


def test_every_optional_row_not_done_has_its_reason():
    """docs/bcs.md's section "Optional rules not built, and why" gives one line to each row
    still not yet done, and to no other."""
    doc = (ROOT / "docs" / "bcs.md").read_text(encoding="utf-8")
    rows = [ln.split(" | ") for ln in doc.splitlines()
            if ln.startswith("| ") and not ln.startswith(("| id ", "| ---"))]
    open_rows = sorted(r[0][2:] for r in rows if r[3] == "not yet done")
    section = doc.split("## Optional rules not built, and why", 1)[1]
    listed = re.findall(r"^- ([A-Za-z0-9.\-]+): \S", section, re.M)
    assert listed == sorted(set(listed), key=listed.index)
    assert sorted(listed) == open_rows
    assert all("(optional)" in r[2] for r in rows if r[3] == "not yet done")
