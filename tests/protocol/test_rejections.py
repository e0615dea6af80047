"""Every bad input: a one-line error naming the file, a non-zero exit, the archive unchanged."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core import signing
from pbem.core.armor import armor
from pbem.core.encoding import canonical
from pbem.core.keys import load_private
from pbem.core.records import Envelope, open_text
from fixtures.table import Table, snapshot


def sign_raw(payload: bytes, key_path: str, namespace: str = "pbem-turn-v1") -> str:
    """A correctly signed envelope around arbitrary payload bytes."""
    key = load_private(key_path)
    sig = signing.sign(key, namespace, payload)
    env = Envelope(v=1, payload=base64.b64encode(payload).decode(),
                   sig=base64.b64encode(sig).decode())
    return armor(canonical(env))


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    t.deliver()                      # red gets blue's acceptance; red owes its codeword
    t.file1 = t.play_one(["pick alphawolf"])   # in transit to blue
    t.inbox.clear()
    return t


def rejected(t: Table, path: Path | str, *match: str, party: str = "blue") -> str:
    before = snapshot(t.dirs[party])
    r = t.run("receive", str(t.dirs[party]), str(path), "--key", t.key(party))
    assert r.exit_code != 0
    lines = r.output.strip().splitlines()
    assert len(lines) == 1, r.output
    assert Path(path).name in lines[0]
    for m in match:
        assert m in lines[0], lines[0]
    assert snapshot(t.dirs[party]) == before
    return lines[0]


def payload_of(path: str) -> bytes:
    return open_text(Path(path).read_text()).payload_bytes


def write(t: Table, name: str, text: str | bytes) -> Path:
    p = t.tmp / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return p


def test_flipped_bytes_in_the_signed_block(table):
    text = Path(table.file1).read_text()
    start = text.index("\n", text.index("-----BEGIN")) + 1
    end = text.rindex("-----END")
    for i, pos in enumerate(range(start, end, max(1, (end - start) // 40))):
        if text[pos] == "\n":
            continue
        flipped = text[:pos] + chr(ord(text[pos]) ^ 0x01) + text[pos + 1:]
        rejected(table, write(table, f"flip{i}.pbem", flipped))


def test_truncated_file(table):
    text = Path(table.file1).read_text()
    rejected(table, write(table, "cut.pbem", text[: len(text) // 2]))
    rejected(table, write(table, "cut2.pbem", text[: len(text) - 30] + "\n-----END PBEM FILE-----\n"))


def test_wrong_key(table):
    forged = sign_raw(payload_of(table.file1), table.key("mallory"))
    rejected(table, write(table, "forged.pbem", forged), "bad signature")


def test_another_games_file(table, tmp_path):
    other = Table(tmp_path / "other")
    other.deliver()
    f = other.play_one(["pick bravowolf"])
    rejected(table, f, "another game")


def test_replayed_file(table):
    table.ok("receive", str(table.dirs["blue"]), table.file1, "--key", table.key("blue"))
    rejected(table, table.file1, "stale")


def test_out_of_order_file(table):
    t = msgspec.json.decode(payload_of(table.file1))
    t["seq"] = 3
    rejected(table, write(table, "ahead.pbem", sign_raw(canonical(t), table.key("red"))),
             "out of order")


def test_forked_file_is_equivocation(table):
    table.ok("receive", str(table.dirs["blue"]), table.file1, "--key", table.key("blue"))
    t = msgspec.json.decode(payload_of(table.file1))
    t["orders"] = ["pick charliewolf"]
    fork = write(table, "fork.pbem", sign_raw(canonical(t), table.key("red")))
    blue = table.dirs["blue"]
    before = snapshot(blue)
    r = table.run("receive", str(blue), str(fork), "--key", table.key("blue"))
    assert r.exit_code == 3 and len(r.output.strip().splitlines()) == 1, r.output
    assert "fork.pbem" in r.output and "equivocation" in r.output and "evidence" in r.output
    # nothing of the chain changes; the fork is kept, so the archive alone proves it
    after = snapshot(blue)
    kept = [k for k in after if k not in before]
    assert {k: v for k, v in after.items() if k in before} == before
    assert len(kept) == 1 and kept[0].startswith("evidence/turn-")
    assert open_text(after[kept[0]].decode()).payload_bytes == payload_of(str(fork))
    r = table.run("verify", str(blue))
    assert r.exit_code == 3 and "equivocation" in r.output and "red signed two" in r.output
    r = table.run("verify", str(blue), str(fork))
    assert r.exit_code == 3 and "equivocation" in r.output and "fork.pbem" in r.output
    # delivered again: refused again, still one copy of the evidence
    assert table.run("receive", str(blue), str(fork), "--key", table.key("blue")).exit_code == 3
    assert snapshot(blue) == after


def test_wrong_prev_is_a_fork_of_history(table):
    t = msgspec.json.decode(payload_of(table.file1))
    t["prev"] = "ab" * 32
    rejected(table, write(table, "prev.pbem", sign_raw(canonical(t), table.key("red"))),
             "does not follow")


@pytest.mark.parametrize("edit,match", [
    (lambda b: b.replace(b'"seq":1', b'"seq":1,"seq":1'), "canonical"),
    (lambda b: b.replace(b'"seq":1', b'"seq":1,"zzz":1'), "malformed"),
    (lambda b: b.replace(b'"seq":1', b'"seq":1.0'), "float"),
    (lambda b: b.replace(b'"seq":1', b'"seq": 1'), "canonical"),
], ids=["duplicate-key", "unknown-field", "float", "whitespace"])
def test_malformed_payload_even_when_signed(table, edit, match):
    bad = edit(payload_of(table.file1))
    rejected(table, write(table, "bad.pbem", sign_raw(bad, table.key("red"))), match)


def test_oversized_file(table):
    big = "x" * (4 * 1024 * 1024 + 1)
    rejected(table, write(table, "big.pbem", big), "too large")


def test_path_in_sender_name(table):
    t = msgspec.json.decode(payload_of(table.file1))
    t["sender"] = "../../evil"
    rejected(table, write(table, "evil.pbem", sign_raw(canonical(t), table.key("red"))),
             "unknown sender")


def test_safe_names():
    from pbem.core.errors import ArchiveError
    from pbem.protocol.archive import safe_name

    for bad in ("..", "../x", "a/b", "", "a\\b"):
        with pytest.raises(ArchiveError):
            safe_name(bad)
    assert safe_name("0001-red.pbem") == "0001-red.pbem"


def test_not_a_pbem_file(table):
    rejected(table, write(table, "junk.pbem", b"\xff\xfe binary"), "no '-----BEGIN")
    rejected(table, write(table, "text.pbem", "hello\n"), "no '-----BEGIN")


def test_corrupt_cache_is_rebuilt(table):
    table.ok("receive", str(table.dirs["blue"]), table.file1, "--key", table.key("blue"))
    cache = table.dirs["blue"] / "cache" / "state.json"
    good = table.status("blue")
    cache.write_text('{"garbage": true')
    assert table.status("blue")["pending"] == good["pending"]
    cache.write_bytes(cache.read_bytes() if cache.exists() else b"")
    table.ok("verify", str(table.dirs["blue"]))
    f = table.play_one(["pick echofox"])
    table.ok("receive", str(table.dirs["red"]), f, "--key", table.key("red"))


def test_tampered_cache_state_is_not_trusted(table):
    table.ok("receive", str(table.dirs["blue"]), table.file1, "--key", table.key("blue"))
    cache = table.dirs["blue"] / "cache" / "state.json"
    data = msgspec.json.decode(cache.read_bytes())
    data["state"]["pos"]["red"] = 19
    cache.write_bytes(msgspec.json.encode(data))
    from pbem.protocol.ops import open_session

    s = open_session(table.dirs["blue"], key_path=table.key("blue"))
    assert s.state.pos["red"] == 0


def test_wrong_key_for_archive(table):
    before = snapshot(table.dirs["blue"])
    r = table.run("receive", str(table.dirs["blue"]), table.file1, "--key", table.key("red"))
    assert r.exit_code != 0 and "not blue's key" in r.output
    assert snapshot(table.dirs["blue"]) == before


# -- any single-byte change to a stored file makes verify fail -------------------------------
@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    t = Table(tmp_path_factory.mktemp("finished"))
    t.play_to_end()
    return t


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_byte_change_fails_verify(finished, tmp_path_factory, data):
    src = finished.dirs["red"]
    files = sorted((src / "files").glob("*.pbem"))
    target = data.draw(st.sampled_from(files))
    raw = target.read_bytes()
    pos = data.draw(st.integers(0, len(raw) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != raw[pos]))
    dst = tmp_path_factory.mktemp("copy") / "red"
    shutil.copytree(src, dst)
    (dst / "files" / target.name).write_bytes(raw[:pos] + bytes([new]) + raw[pos + 1:])
    r = finished.run("verify", str(dst))
    assert r.exit_code == 3, (target.name, pos, new)


# -- hosted mode: a player checks every view file from the referee ---------------------------
@pytest.fixture
def hosted(tmp_path):
    t = Table(tmp_path, mode="hosted")
    t.deliver()
    t.play_one(["pick alphawolf"])
    t.deliver()
    t.play_one(["pick echofox"])
    t.deliver()
    t.play_one(["advance", "end"])  # the referee resolves red's die
    t.deliver()
    return t


def _views_with_rolls(t):
    out = []
    for p in sorted((t.tmp / "mail").glob("views-*/view-*.pbem")):
        if msgspec.json.decode(payload_of(str(p)))["rolls"]:
            out.append(p)
    return out


def test_hosted_view_with_a_forged_die_is_rejected(hosted):
    t = hosted
    src = _views_with_rolls(t)[-1]
    side = src.name.split("-")[1]
    v = msgspec.json.decode(payload_of(str(src)))
    v["rolls"][0]["value"] = v["rolls"][0]["value"] % 6 + 1
    # as if the genuine view had not arrived yet (a second view of one file is equivocation)
    (t.dirs[side] / "files" / f"view-{v['seq']:04d}.pbem").unlink()
    forged = write(t, "forged-view.pbem", sign_raw(canonical(v), t.key("host"), "pbem-view-v1"))
    rejected(t, forged, "not what the dice commitments give", party=side)


def test_hosted_view_signed_by_another_key_is_rejected(hosted):
    t = hosted
    src = _views_with_rolls(t)[-1]
    side = src.name.split("-")[1]
    v = msgspec.json.decode(payload_of(str(src)))
    v["seq"] = v["view_seq"] = v["seq"] + 100
    forged = write(t, "mallory-view.pbem", sign_raw(canonical(v), t.key("mallory"), "pbem-view-v1"))
    rejected(t, forged, "bad signature", party=side)


def test_hosted_stale_view_is_rejected(hosted):
    t = hosted
    old = sorted((t.tmp / "mail").glob("views-*/view-red-*.pbem"))[0]
    rejected(t, old, "stale", party="red")


@pytest.mark.parametrize("kind", ["acceptance", "turn", "view"])
def test_a_hosted_players_rejection_slot_holding_another_signed_file_is_one_line(hosted, kind):
    """A file under a hosted player's files/ named as a rejection (reject-NNNN-...) that holds
    another signed file of the game (an acceptance, the player's own turn file, a view) made
    `pbem verify` and `pbem status` of the player's archive (the audit a ladder takes of it)
    fail with an internal error (exit 4, AttributeError): now one line naming the file, verify
    exit 3 as for any tampered archive, status exit 1, the archive untouched."""
    t = hosted
    files = t.dirs["red"] / "files"
    src = {"acceptance": files / "0000-accept-red.pbem", "turn": files / "0001-red.pbem",
           "view": sorted(files.glob("view-*.pbem"))[-1]}[kind]
    shutil.copy(src, files / "reject-0001-0123456789abcdef.pbem")
    before = snapshot(t.dirs["red"])
    for cmd, code in (("verify", 3), ("status", 1)):
        r = t.run(cmd, str(t.dirs["red"]))
        assert r.exit_code == code, (cmd, r.output)
        assert r.output.strip() == "Error: reject-0001-0123456789abcdef.pbem: not a rejection", (
            cmd, r.output)
    assert snapshot(t.dirs["red"]) == before


def test_signed_file_with_an_illegal_order_is_rejected(table):
    """A sender whose processor skipped the checks: the receiver refuses the order by rule."""
    t = msgspec.json.decode(payload_of(table.file1))
    t["orders"] = ["advance"]  # no codeword picked yet
    bad = write(table, "illegal.pbem", sign_raw(canonical(t), table.key("red")))
    rejected(table, bad, "illegal order 1 'advance'", "[DASH-3]")


def test_signed_file_with_non_canonical_order_text_is_rejected(table):
    t = msgspec.json.decode(payload_of(table.file1))
    t["orders"] = ["pick   alphawolf"]
    bad = write(table, "spaces.pbem", sign_raw(canonical(t), table.key("red")))
    rejected(table, bad, "not in canonical notation")
