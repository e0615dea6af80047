"""Issue 17's acceptance: a finished Holdfast campaign and a finished Kasserine game export to
one-file records that verify, replay from the first file to the result, give dice
statistics and appear in the library page (the browser part: test_browser_replay.py)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pbem.cli import cli


def ok(*args: str):
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert r.exit_code == 0, (args, r.output)
    return r.output


def test_campaign_and_kasserine_records_end_to_end(campaign, kasserine, tmp_path):
    shelf = tmp_path / "records"
    shelf.mkdir()
    games = {"holdfast": campaign / "axis", "kasserine": kasserine / "axis"}
    for name, archive in games.items():
        rec = shelf / f"{name}.pbemrec"
        ok("export", str(archive), "--out", str(rec))
        out = ok("verify", str(rec))
        assert "Final result:" in out and out.rstrip().endswith("OK: the record verifies.")
        page = tmp_path / f"{name}.html"
        out = ok("replay", str(rec), "--out", str(page))
        assert "views: full, " in out and page.stat().st_size > 0
        log = ok("log", str(rec))
        assert "Log of: both sides in full" in log and "Game over:" in log
    data = json.loads(ok("stats", *(str(p) for p in sorted(shelf.iterdir())), "--json"))
    assert {g["game"] for g in data["games"]} == {"holdfast", "kasserine"}
    assert any(g["p_value"] is not None for g in data["groups"] if g["game"] == "holdfast")
    ok("library", str(shelf), "--out", str(tmp_path / "site"))
    index = json.loads((tmp_path / "site" / "library.json").read_text())
    assert sorted((r["game"], r["ok"], r["over"]) for r in index["records"]) == [
        ("holdfast", True, True), ("kasserine", True, True)]
    html = (tmp_path / "site" / "index.html").read_text()
    assert "Holdfast: Tunisia 1942-43" in html and "Kasserine: Baptism of Fire" in html
