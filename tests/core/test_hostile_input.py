"""Hostile input costs one line (issue item 6): deep nesting, endless files, terminal escapes.

Every attack goes through the real command line. Commands that could hang or eat memory on
the code before the fix run as subprocesses with a timeout and an address-space limit.
"""

from __future__ import annotations

import base64
import os
import stat
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from fixtures.table import Table, snapshot
from pbem.core import signing
from pbem.core.armor import armor
from pbem.core.encoding import canonical
from pbem.core.keys import load_private
from pbem.core.records import open_text

DEEP = b"[" * 5000 + b"]" * 5000
ESCAPES = "\x1b[2J\x1b]0;title\x07"


def envelope(payload: bytes, sig: bytes = bytes(64), extra: bytes = b"") -> bytes:
    return (b'{' + extra + b'"payload":"' + base64.b64encode(payload) + b'","sig":"'
            + base64.b64encode(sig) + b'","v":1}')


def payload_of(path: str | Path) -> bytes:
    return open_text(Path(path).read_text()).payload_bytes


def signed(payload: bytes, key_path: str, namespace: str) -> str:
    key = load_private(key_path)
    return armor(envelope(payload, signing.sign(key, namespace, payload)))


def one_error_line(r, name: str) -> str:
    assert r.exit_code == 1, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1, r.output
    assert lines[0].startswith("Error: ") and name in lines[0], lines[0]
    assert "Traceback" not in r.output
    return lines[0]


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """A Holdfast peer game (a built-in game, so subprocesses can use it too)."""
    t = Table(tmp_path_factory.mktemp("hostile"), game="holdfast", scenario="race-to-tunis",
              sides=("allied", "axis"))
    t.deliver()
    t.proposal = str(sorted((t.tmp / "mail").glob("*-proposal.pbem"))[0])
    return t


def _commands(t: Table, path: str) -> dict[str, list[str]]:
    """Every command that reads a file a user names, reading `path` in that place."""
    a = str(t.dirs["axis"])
    out = str(t.tmp / "never-written.pbem")
    return {
        "receive": ["receive", a, path, "--key", t.key("axis")],
        "join": ["join", path, "--key", t.key("axis"), "--dir", str(t.tmp / "nojoin"),
                 "--out", out],
        "verify": ["verify", a, path],
        "check": ["check", a, path],
        "submit": ["submit", a, path, "--key", t.key("axis"), "--out", out],
        "key": ["receive", a, t.proposal, "--key", path],
        "status-key": ["status", a, "--key", path],
        "public-key": ["new", "holdfast", "race-to-tunis", str(t.tmp / "nonew"), "--side",
                       "allied", "--key", t.key("allied"), "--opponent", path, "--out", out],
    }


# -- 1. deep nesting: refused before decoding, one line -----------------------------------------
# Fields typed Any (a view's state, a proposal's options) are decoded generically: before the
# fix the decoder recursed into them and died with RecursionError, before any signature check.
# The envelope's own fields are typed, so the decoder used to stop at the first bracket there;
# the depth scan now refuses both before decoding anything.
DEEP_PAYLOADS = {
    "view-state": b'{"type":"pbem/view/v1","state":' + DEEP + b"}",
    "view-state-last": b'{"state":' + DEEP + b',"type":"pbem/view/v1"}',
    "proposal-options": b'{"type":"pbem/proposal/v1","options":{"x":' + DEEP + b"}}",
}


@pytest.mark.parametrize("where", [*DEEP_PAYLOADS, "envelope", "envelope-field", "bare"])
@pytest.mark.parametrize("command", ["receive", "join", "verify"])
def test_deep_nesting_is_one_error_line(game, where, command):
    t = game
    data = envelope(DEEP_PAYLOADS[where]) if where in DEEP_PAYLOADS else {
        "envelope": DEEP,
        "envelope-field": envelope(b"{}", extra=b'"deep":' + DEEP + b","),
        "bare": b'{"payload":' + DEEP + b'}'}[where]
    p = t.tmp / f"deep-{where}.pbem"
    p.write_text(armor(data))
    before = snapshot(t.dirs["axis"])
    r = t.run(*_commands(t, str(p))[command])
    line = one_error_line(r, p.name)
    assert "nested deeper than 64" in line or "malformed" in line
    assert snapshot(t.dirs["axis"]) == before


def test_deep_nesting_inside_a_signed_payload(game):
    """Nested deep inside a field of a validly signed turn file: still one line."""
    t = game
    prop = msgspec.json.decode(payload_of(t.proposal))
    prop["options"] = {"x": msgspec.Raw(b"[" * 3000 + b"1" + b"]" * 3000)}
    raw = msgspec.json.encode(prop, order="sorted")
    p = t.tmp / "deep-signed.pbem"
    p.write_text(signed(raw, t.key("allied"), "pbem-genesis-v1"))
    for command in ("join", "receive", "verify"):
        one_error_line(t.run(*_commands(t, str(p))[command]), p.name)


def test_depth_scan_is_exact_and_ignores_strings():
    from pbem.core.encoding import check_depth

    check_depth(b"[" * 64 + b"]" * 64)
    check_depth(b'["' + b"[" * 500 + b'"]')            # brackets inside a string
    check_depth(b'["\\"' + b"[" * 500 + b'"]')         # ... after an escaped quote
    for bad in (b"[" * 65 + b"]" * 65, b"[" * 65, b'{"a":' * 65, b'[["\\\\"' + b"[" * 70,
                b"[" * 4_000_000):
        with pytest.raises(ValueError, match="nested deeper"):
            check_depth(bad)


# -- 2. endless and special files: refused without a blocking read -----------------------------
def _bounded(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run pbem in a subprocess with 1.5 GiB of address space and a 60 s timeout."""
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))

    return subprocess.run([sys.executable, "-m", "pbem", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60, preexec_fn=limit)


@pytest.fixture
def fifo(game):
    """A FIFO with a writer that wrote a little and never closes."""
    path = game.tmp / f"fifo-{os.getpid()}"
    os.mkfifo(path)
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)  # Linux: a writer end that never blocks
    os.write(fd, b"-----BEGIN PBEM FILE-----\n")
    try:
        yield path
    finally:
        os.close(fd)
        path.unlink()


@pytest.mark.skipif(not hasattr(os, "mkfifo") or sys.platform != "linux", reason="Linux only")
@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_special_files_are_refused_quickly(game, fifo, special):
    t = game
    path = str(fifo) if special == "fifo" else special
    name = Path(path).name
    before = snapshot(t.dirs["axis"])
    for command, args in _commands(t, path).items():
        r = _bounded(args, t.tmp)
        out = (r.stdout + r.stderr).strip().splitlines()
        assert r.returncode == 1, (command, r.stdout, r.stderr[-500:])
        assert len(out) == 1 and out[0].startswith("Error: ") and name in out[0], (command, out)
        assert "not a regular file" in out[0], (command, out)
    assert snapshot(t.dirs["axis"]) == before


def test_folder_and_oversized_files(game):
    t = game
    big = t.tmp / "big.txt"
    big.write_bytes(b"# " + b"x" * (5 * 1024 * 1024))
    for command, args in _commands(t, str(big)).items():
        line = one_error_line(t.run(*args), big.name)
        assert "too large" in line, (command, line)
    for command, args in _commands(t, str(t.tmp)).items():
        one_error_line(t.run(*args), t.tmp.name)


# -- 3. terminal escapes from files never reach the terminal -----------------------------------
def test_printable_strips_escape_sequences():
    from pbem.core.textsafe import one_line, printable

    assert printable("a\x1b[2Jb") == "ab"
    assert printable("a\x1b]0;title\x07b") == "ab"
    assert printable("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b") == "alinkb"
    assert printable("a\x9b31mb\x9dtitle\x9cc") == "abc"
    assert printable("x\ry\x7fz\x00\u202eq") == "x?y?z??q"
    assert printable("name\udcff.pbem") == "name?.pbem"      # undecodable file name byte
    assert printable("line 1\n\tline 2") == "line 1\n\tline 2"
    assert one_line("a\nb\tc") == "a b c"
    plain = "Allied: move 1gds bone (HF-9.1) \u00e9t\u00e9"
    assert printable(plain) is plain
    for text in ("\x1b", "\x1b[", "\x1b]", "\x1bP", "\x9b", ESCAPES * 3):
        assert not any(ord(c) < 32 or 127 <= ord(c) < 160 for c in printable(text))


def _escape_field(data: bytes) -> bytes:
    """A JSON object with one more key, named with escape sequences (a decoder quotes it)."""
    name = msgspec.json.encode(ESCAPES)
    return b"{" + name + b":1," + data[1:]


def _no_escape(r) -> None:
    assert "\x1b" not in r.output and "\x07" not in r.output and "\x9b" not in r.output, \
        repr(r.output)


def test_escapes_in_a_received_file_are_not_printed(game):
    t = game
    p = t.tmp / "esc-envelope.pbem"
    p.write_text(armor(_escape_field(envelope(b"{}"))))
    for command in ("receive", "join", "verify"):
        r = t.run(*_commands(t, str(p))[command])
        one_error_line(r, p.name)
        _no_escape(r)


def test_escapes_in_a_proposal_payload_are_not_printed(game):
    t = game
    p = t.tmp / "esc-proposal.pbem"
    p.write_text(armor(envelope(_escape_field(payload_of(t.proposal)))))
    for command in ("join", "receive", "verify"):
        r = t.run(*_commands(t, str(p))[command])
        one_error_line(r, p.name)
        _no_escape(r)


def test_escapes_in_a_file_name_are_not_printed(game):
    t = game
    p = t.tmp / f"turn{ESCAPES}.pbem"
    p.write_text("no block here\n")
    for command in ("receive", "join", "verify", "check"):
        r = t.run(*_commands(t, str(p))[command])
        assert r.exit_code == 1
        _no_escape(r)


def test_escapes_in_a_referee_view_are_not_printed(tmp_path):
    """Hosted mode: the referee's view file carries the prompts a player's status prints."""
    t = Table(tmp_path, mode="hosted")
    t.deliver()
    t.play_one(["pick alphawolf"])
    path, to = t.inbox[0]
    t.inbox.clear()
    # the referee resolves red's file and writes views; red's view is tampered and re-signed
    outdir = tmp_path / "mail" / "views-x"
    t.ok("receive", str(t.dirs["host"]), path, "--key", t.key("host"), "--out", str(outdir))
    views = sorted(outdir.glob("view-*.pbem"))
    assert views
    for v in views:
        side = v.name.split("-")[1]
        if side != "blue":
            t.ok("receive", str(t.dirs[side]), str(v), "--key", t.key(side))
            continue
        data = msgspec.json.decode(payload_of(v))
        assert data["pending"], "blue should have a decision to make"
        for d in data["pending"]:
            d["prompt"] = f"{ESCAPES}{d['prompt']}{ESCAPES}"
        v.write_text(signed(canonical(data), t.key("host"), "pbem-view-v1"))
        r = t.ok("receive", str(t.dirs["blue"]), str(v), "--key", t.key("blue"))
        _no_escape(r)
    r = t.ok("status", str(t.dirs["blue"]))
    assert "]0;title" not in r.output and "[2J" not in r.output
    _no_escape(r)
    assert "You:" in r.output


@pytest.mark.skipif(not hasattr(os, "mkfifo") or sys.platform != "linux", reason="Linux only")
def test_special_file_check_does_not_open(tmp_path):
    """The refusal happens on the path's type: nothing is opened for a blocking read."""
    from pbem.core.errors import PbemError
    from pbem.core.inputs import read_limited

    import signal

    def hung(*_):
        raise TimeoutError("read_limited blocked on a FIFO")

    p = tmp_path / "f"
    os.mkfifo(p)   # no writer at all: a blocking open would hang forever
    assert stat.S_ISFIFO(os.stat(p).st_mode)
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)                # the test fails instead of hanging
    try:
        with pytest.raises(PbemError, match="not a regular file"):
            read_limited(p, 100)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    q = tmp_path / "small"
    q.write_bytes(b"x" * 101)
    with pytest.raises(PbemError, match="too large"):
        read_limited(q, 100)
    q.write_bytes(b"x" * 100)
    assert read_limited(q, 100) == b"x" * 100


def test_a_megabyte_order_gives_an_error_line_of_bounded_length(tmp_path):
    """An opponent's validly signed file whose order is a megabyte long: refused in one line
    that keeps its start and end (the file's name, the rule) and says how much was left out,
    never the megabyte (the mail gateway used to log it and mail it back whole); the archive
    unchanged."""
    from pbem.core.records import read_file, seal
    from pbem.core.textsafe import MAX_LINE

    t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", sides=("allied", "axis"))
    t.deliver()
    side = t.mover()
    orders = t.tmp / "next.txt"
    t.ok("bot", str(t.dirs[side]), "--side", side, "--out", str(orders), "--seed", "1")
    out = t.mail(f"turn-{side}")
    t.ok("submit", str(t.dirs[side]), str(orders), "--key", t.key(side), "--out", out)
    turn = read_file(out).payload
    huge = "move 36bde " + "-".join(["1106"] * 200_000)
    bad = t.tmp / "mail" / f"long-{turn.seq:04d}-{side}.pbem"
    bad.write_text(seal(msgspec.structs.replace(turn, orders=[huge, *turn.orders]),
                        load_private(t.key(side)), name=bad.name).text)
    other = t.other(side)
    before = snapshot(t.dirs[other])
    r = t.run("receive", str(t.dirs[other]), str(bad), "--key", t.key(other))
    assert r.exit_code != 0 and len(r.output.splitlines()) == 1, r.output[:300]
    assert len(r.output) < MAX_LINE + 100 and "characters left out" in r.output, len(r.output)
    assert r.output.startswith(f"Error: {bad.name}") or bad.name in r.output[:300]
    assert snapshot(t.dirs[other]) == before
