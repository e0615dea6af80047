"""Records of games whose dice commitments were renewed: `pbem verify` accepts them and
refuses a record whose renewal was tampered with, naming the file (docs/protocol.md section 6, Renewal)."""

from __future__ import annotations

from pathlib import Path

from fixtures.renewals import renewed_files, reused_tip_record
from pbem.records.record import export_text
from pbem.records.source import verify_record


def test_renewed_games_verify_from_their_records(renewed_peer, renewed_hosted, tmp_path):
    for name, archive in [("peer-red", renewed_peer / "red"),
                          ("hosted-referee", renewed_hosted / "referee"),
                          ("hosted-blue", renewed_hosted / "blue")]:
        rec = record_of(archive, tmp_path / f"{name}.pbemrec")
        audit = verify_record(rec)
        assert audit.ok, (name, audit.problems)
    assert renewed_files((tmp_path / "peer-red.pbemrec").read_text())


def test_a_record_whose_renewal_reuses_a_commitment_does_not_verify(renewed_peer, tmp_path):
    text = record_of(renewed_peer / "red", tmp_path / "r.pbemrec").read_text()
    bad, path = reused_tip_record(text, renewed_peer / "keys")
    out = tmp_path / "bad.pbemrec"
    out.write_text(bad)
    audit = verify_record(out)
    assert not audit.ok
    assert any("reuses a dice commitment" in p for p in audit.problems), audit.problems


def record_of(archive: Path, out: Path) -> Path:
    """Export an archive to a record file."""
    out.write_text(export_text(archive), encoding="ascii")
    return out
