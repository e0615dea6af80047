"""`pbem submit --out FILE` never writes over a file the player has nowhere else: a file not yet
received (here, one of another game), notes, anything the archive does not hold. Refused in one
line naming the file, exit 1, nothing signed or stored; the same submit run again (the same file
to write) succeeds, and so does a name used again for each turn (`--out turn.pbem`): what it
held, a file sent or received before, is kept in the archive."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.table import Table, snapshot


def _orders(t: Table, side: str, tmp: Path) -> Path:
    orders = tmp / f"orders-{side}.txt"
    d = t.dirs[side if t.mode != "hosted" else "host"]
    t.ok("bot", str(d), "--side", side, "--out", str(orders), "--seed", "3")
    return orders


@pytest.mark.parametrize("mode", ["peer", "hosted", "sealed"])
def test_submit_never_writes_over_another_file(tmp_path: Path, mode: str) -> None:
    t = Table(tmp_path, mode=mode, game="blind" if mode == "sealed" else "dash")
    t.deliver()
    first = Path(t.play_one())                 # a file the other side will receive
    t.deliver()
    side = t.mover()
    assert side is not None
    d = t.dirs[side]
    mail_files = sorted((tmp_path / "mail").rglob("*.pbem"))
    stored = {p.read_bytes(): p.name for p in (d / "files").glob("*.pbem")}

    def mailed(sender: str) -> Path:     # the newest mailed copy of a stored file of sender
        return [p for p in mail_files if stored.get(p.read_bytes(), "").endswith(
            f"-{sender}.pbem")][-1]
    received = (mailed(t.other(side)) if mode != "hosted" else
                sorted((tmp_path / "mail").glob(f"views-*/view-{side}-*.pbem"))[-1])
    assert first in mail_files
    notes = tmp_path / "notes.txt"
    notes.write_text("my plans\n")
    saved = tmp_path / "saved-mail.txt"       # a received file, kept, in a mail with words
    saved.write_text("Your move. Good luck!\n\n" + received.read_text())
    saved_bytes = saved.read_bytes()
    other = Table(tmp_path / "other", mode=mode, game="blind" if mode == "sealed" else "dash")
    other.deliver()
    unreceived = Path(other.play_one())      # a file this archive has never taken in
    unreceived_bytes = unreceived.read_bytes()
    orders = _orders(t, side, tmp_path)
    mail = snapshot(tmp_path / "mail")
    before = snapshot(d)
    for target, what in ((unreceived, "not received"), (notes, "notes"), (saved, "saved mail")):
        r = t.run("submit", str(d), str(orders), "--key", t.key(side), "--out", str(target))
        assert r.exit_code == 1, (what, r.output)
        lines = r.output.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: {target}: "), (what, r.output)
        assert "exists" in lines[0] and "nothing was signed or stored" in lines[0], r.output
        assert "Traceback" not in r.output
        assert snapshot(d) == before, what            # the archive untouched
    assert snapshot(tmp_path / "mail") == mail and notes.read_text() == "my plans\n"
    assert unreceived.read_bytes() == unreceived_bytes and saved.read_bytes() == saved_bytes
    # a folder is not a file to write either
    r = t.run("submit", str(d), str(orders), "--key", t.key(side), "--out", str(tmp_path))
    assert r.exit_code == 1 and "not a file" in r.output and snapshot(d) == before, r.output
    # a new name: signed and written; the same submit again writes the same file again
    out = tmp_path / "mine.pbem"
    t.ok("submit", str(d), str(orders), "--key", t.key(side), "--out", str(out))
    signed, stored = out.read_bytes(), snapshot(d)
    r = t.ok("submit", str(d), str(orders), "--key", t.key(side), "--out", str(out))
    assert "already signed and stored" in r.output and out.read_bytes() == signed
    # ... but never over another file, even then
    r = t.run("submit", str(d), str(orders), "--key", t.key(side), "--out", str(notes))
    assert r.exit_code == 1 and r.output.startswith(f"Error: {notes}: "), r.output
    assert notes.read_text() == "my plans\n"
    files = {k: v for k, v in snapshot(d).items() if k.startswith("files")}
    assert files == {k: v for k, v in stored.items() if k.startswith("files")}
    assert "OK" in t.ok("verify", str(d)).output


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_a_name_used_for_every_turn_replaces_a_file_the_archive_keeps(tmp_path: Path,
                                                                       mode: str) -> None:
    t = Table(tmp_path, mode=mode)
    t.deliver()
    t.play_one()
    t.deliver()
    side = t.mover()
    assert side is not None
    d = t.dirs[side]
    stored = {p.read_bytes() for p in (d / "files").glob("*.pbem")}
    kept = [p for p in sorted((tmp_path / "mail").rglob("*.pbem")) if p.read_bytes() in stored]
    assert kept                        # a file this side sent or received, kept in its archive
    orders = _orders(t, side, tmp_path)
    quoted = tmp_path / "saved-mail.txt"       # a kept file quoted in a mail, with words around
    quoted.write_text("My notes: hold the pass.\n> " + kept[-1].read_text().replace("\n", "\n> "))
    words = quoted.read_bytes()
    r = t.run("submit", str(d), str(orders), "--key", t.key(side), "--out", str(quoted))
    assert r.exit_code == 1 and r.output.startswith(f"Error: {quoted}: "), r.output
    assert quoted.read_bytes() == words
    target = kept[-1]
    r = t.ok("submit", str(d), str(orders), "--key", t.key(side), "--out", str(target))
    assert "signed" in r.output, r.output
    assert target.read_bytes() in {p.read_bytes() for p in (d / "files").glob("*.pbem")}
    assert "OK" in t.ok("verify", str(d)).output
