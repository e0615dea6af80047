"""Mail as it really arrives (issue item 7): encodings, quoting, invisible characters, joined
marker lines, replies that quote the previous file; a changed character is still refused."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures.table import Table, snapshot
from pbem.core.armor import BEGIN, END

NBSP, ZWSP, BOM = "\u00a0", "\u200b", "\ufeff"


def block_lines(text: str) -> tuple[list[str], list[str], list[str]]:
    """(summary lines, base64 lines, after) of a canonical file text."""
    lines = text.splitlines()
    b, e = lines.index(BEGIN), lines.index(END)
    return lines[:b], lines[b + 1:e], lines[e + 1:]


def quoted(text: str, prefix: str = "> ") -> str:
    return "".join(prefix + ln + "\n" for ln in text.splitlines())


def mangled(text: str) -> str:
    """What a mail client makes of a file pasted into a mail body (every mangling at once)."""
    head, body, _ = block_lines(text)
    b64 = "".join(body)
    body = [b64[i:i + 70] for i in range(0, len(b64), 70)]
    out = [f"{BOM}Grüße aus München,", "voilà mon tour — “bonne chance”.", ""]
    out += [f"> {ln}" for ln in head]
    out.append(f">{NBSP}>{NBSP}{BEGIN}{body[0]}")                          # BEGIN joined
    for i, ln in enumerate(body[1:-1]):
        cut = len(ln) // 2
        quote = ["> > ", ">> ", "> >> ", ">", "  >  > "][i % 5]
        out.append(f"{quote}{ln[:cut]}{ZWSP}{NBSP}{ln[cut:]}{NBSP}  ")
    out.append(f"> > {body[-1]}{END}{NBSP}")                                # END joined
    out += ["", "-- ", "Envoyé de mon téléphone"]
    return "\r\n".join(out) + "\r\n"


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    t.deliver()
    t.file1 = t.play_one(["pick alphawolf"])
    t.inbox.clear()
    return t


def receive(t: Table, party: str, path: Path | str):
    return t.run("receive", str(t.dirs[party]), str(path), "--key", t.key(party))


def one_line_refusal(t: Table, party: str, path: Path, *match: str) -> str:
    before = snapshot(t.dirs[party])
    r = receive(t, party, path)
    assert r.exit_code == 1, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and path.name in lines[0], r.output
    for m in match:
        assert m in lines[0], lines[0]
    assert snapshot(t.dirs[party]) == before
    return lines[0]


# -- every mangling at once, in every encoding a mail client saves ----------------------------
@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-be-bom", "latin-1"])
def test_mangled_mail_is_received(table, encoding):
    t = table
    text = mangled(Path(t.file1).read_text())
    if encoding == "latin-1":
        text = text.replace(BOM, "").replace(ZWSP, "").replace("—", "-").replace("“", '"') \
            .replace("”", '"')
        data = text.encode("latin-1")
    elif encoding == "utf-16-be-bom":
        data = codecs.BOM_UTF16_BE + text.replace(BOM, "").encode("utf-16-be")
    else:
        data = text.encode(encoding)
    p = t.tmp / f"mail-{encoding}.txt"
    p.write_bytes(data)
    r = receive(t, "blue", p)
    assert r.exit_code == 0, r.output
    assert "File 1 from red verified" in r.output
    stored = sorted((t.dirs["blue"] / "files").glob("0001-*.pbem"))
    assert stored and stored[0].read_text() == Path(t.file1).read_text()   # canonical form kept


# -- a reply that quotes the file it answers -------------------------------------------------
@pytest.fixture
def reply(table):
    """Blue received file 1 and signed file 2; returns (table, file 1 text, file 2 text)."""
    t = table
    t.ok("receive", str(t.dirs["blue"]), t.file1, "--key", t.key("blue"))
    orders = t.tmp / "blue-orders.txt"
    orders.write_text("pick echofox\n")
    out = t.tmp / "file2.pbem"
    t.ok("submit", str(t.dirs["blue"]), str(orders), "--key", t.key("blue"), "--out", str(out))
    return t, Path(t.file1).read_text(), out.read_text()


@pytest.mark.parametrize("layout", ["top-posted", "bottom-posted", "forwarded-twice"])
def test_reply_quoting_the_previous_file_reads_the_new_one(reply, layout):
    t, old, new = reply
    if layout == "top-posted":
        mail = f"My codeword is in.\n\n{new}\nOn Monday, red wrote:\n{quoted(old)}"
    elif layout == "bottom-posted":
        mail = f"On Monday, red wrote:\n{quoted(old)}\nMy answer:\n{new}"
    else:      # everything quoted once more; the old file twice as deep
        mail = quoted(f"{new}\n{quoted(old, '>')}", "> ")
    p = t.tmp / f"reply-{layout}.eml"
    p.write_text(mail, encoding="utf-8")
    r = receive(t, "red", p)
    assert r.exit_code == 0, r.output
    assert "File 2 from blue verified" in r.output


@pytest.mark.parametrize("layout", ["top-posted", "bottom-posted"])
def test_acceptance_quoting_the_proposal_is_read_as_the_acceptance(tmp_path, layout):
    t = Table(tmp_path)
    (acc, _), = t.inbox
    prop = sorted((tmp_path / "mail").glob("*-proposal.pbem"))[0].read_text()
    p = tmp_path / "accept-reply.txt"
    new = Path(acc).read_text()
    p.write_text(f"Accepted!\n{new}\nYou wrote:\n{quoted(prop)}" if layout == "top-posted"
                 else f"You wrote:\n{quoted(prop)}\nAccepted!\n{new}")
    r = receive(t, "red", p)
    assert r.exit_code == 0 and "blue accepted" in r.output, r.output


@pytest.mark.parametrize("damage", ["rewrapped-with-quotes", "truncated"])
def test_damaged_quoted_block_is_skipped(reply, damage):
    t, old, new = reply
    head, body, _ = block_lines(old)
    if damage == "rewrapped-with-quotes":   # a client rewrapped the quoted lines, '>' inside
        b64 = "".join(body)
        broken = [f"> {b64[i:i + 50]}> {b64[i + 50:i + 72]}" for i in range(0, len(b64), 72)]
        old_q = "\n".join(["> " + BEGIN, *broken, "> " + END])
    else:                                   # cut in the middle, no END line
        old_q = "\n".join(["> " + BEGIN, *("> " + ln for ln in body[: len(body) // 2])])
    p = t.tmp / f"damaged-{damage}.txt"
    p.write_text(f"{old_q}\n\nHere is mine:\n{new}")
    r = receive(t, "red", p)
    assert r.exit_code == 0 and "File 2 from blue verified" in r.output, r.output


def test_no_well_formed_block_names_the_problem(table):
    t = table
    _, body, _ = block_lines(Path(t.file1).read_text())
    p = t.tmp / "broken.txt"
    p.write_text("\n".join([BEGIN, *body[:3], "> > not base64 at all", *body[3:], END]))
    one_line_refusal(t, "blue", p, "damaged", "not valid base64")
    p.write_text("\n".join([BEGIN, *body[: len(body) // 2]]))
    one_line_refusal(t, "blue", p, "damaged", "no END line")
    p.write_text("\n".join(["> " + BEGIN, *body[:2], "> " + BEGIN, *body[:2]]))
    one_line_refusal(t, "blue", p, "none of its 2 armored blocks is readable")


def test_a_changed_character_inside_the_block_is_refused(table):
    """Tolerance stops at the block's content: a base64 character changed into another
    base64 character breaks the signature, the canonical form, or the base64 itself."""
    t = table
    text = Path(t.file1).read_text()
    start = text.index("\n", text.index(BEGIN)) + 1
    end = text.rindex(END)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    for i, pos in enumerate(range(start, end, max(1, (end - start) // 25))):
        c = text[pos]
        if c not in alphabet:
            continue
        other = alphabet[(alphabet.index(c) + 1 + i) % 64]
        p = t.tmp / f"changed{i}.txt"
        p.write_text(mangled(text[:pos] + other + text[pos + 1:]), encoding="utf-8")
        one_line_refusal(t, "blue", p)


def test_strict_reading_requires_the_canonical_form(table, tmp_path):
    from pbem.core.errors import FileRejected
    from pbem.core.records import open_text, read_file

    text = Path(table.file1).read_text()
    assert open_text(text, strict=True).text == text
    p = tmp_path / "bom.pbem"
    for variant in (mangled(text), text.replace("\n", "\r\n"), "\n" + text,
                    text + quoted(text)):
        with pytest.raises(FileRejected, match="canonical"):
            open_text(variant, strict=True)
    p.write_bytes(codecs.BOM_UTF8 + text.encode())
    with pytest.raises(FileRejected, match="not an ASCII"):
        read_file(p, strict=True)
    assert read_file(p).payload_bytes == open_text(text).payload_bytes


def test_dearmor_all_and_the_choose_hook(reply, tmp_path):
    from pbem.core.armor import dearmor_all
    from pbem.core.records import open_text, read_file

    t, old, new = reply
    mail = f"{new}\nyou wrote:\n{quoted(old)}"
    assert len(dearmor_all(mail)) == 2
    p = tmp_path / "two.txt"
    p.write_text(mail)
    assert read_file(p).payload.seq == 2
    seen = []

    def first(cands):
        seen.append([c.payload.seq for c in cands])
        return cands[-1]

    assert read_file(p, choose=first).payload.seq == 1
    assert seen == [[2, 1]]
    assert open_text(mail, choose=lambda c: c[0]).payload.seq == 2


# -- property: any mail mangling reads back the identical payload and signature ---------------
_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
_AROUND = ["", "Grüße,", "Привет!", "日本語のテキスト", "Ça va? — “quotes”", "🎲 émoji", "> > quoted ·"]
_QUOTES = ["", "> ", ">", "> > ", ">> ", "> >> ", "|", " > ", f">{NBSP}"]
_TRAIL = ["", " ", "\t", NBSP, f"  {NBSP} ", "\u2009", "\u3000"]
_INVIS = [ZWSP, "\u200c", "\u200d", "\u2060", BOM, "\u00ad"]


def _sealed(orders: list[str], message: str, seq: int):
    from pbem.core.records import Turn, seal

    return seal(Turn(game_id="ab" * 16, seq=seq, prev="00" * 32, sender="red",
                     reveal="11" * 32, orders=orders, message=message), _KEY)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(orders=st.lists(st.text(min_size=1, max_size=40), max_size=30),
       message=st.text(max_size=300), seq=st.integers(1, 10**6), data=st.data())
def test_any_mail_mangling_reads_back_identically(tmp_path, orders, message, seq, data):
    from pbem.core.records import read_file

    f = _sealed(orders, message, seq)
    head, body, _ = block_lines(f.text)
    width = data.draw(st.integers(4, 120), "width")
    b64 = "".join(body)
    body = [b64[i:i + width] for i in range(0, len(b64), width)]
    lines = [*head]
    join_begin = data.draw(st.booleans(), "join BEGIN")
    join_end = data.draw(st.booleans(), "join END")
    if join_begin:
        body[0] = BEGIN + body[0]
    else:
        lines.append(BEGIN.replace(" ", data.draw(st.sampled_from([" ", NBSP, "\u202f"]))))
    if join_end:
        body[-1] = body[-1] + END
    lines += body
    if not join_end:
        lines.append(END)
    out = []
    for ln in lines:
        if ln and data.draw(st.booleans()):
            at = data.draw(st.integers(0, len(ln)))
            extra = _INVIS if "-----" in ln else _INVIS + [NBSP, " "]   # no space in "-----"
            ln = ln[:at] + data.draw(st.sampled_from(extra)) + ln[at:]
        out.append(data.draw(st.sampled_from(_QUOTES)) + ln + data.draw(st.sampled_from(_TRAIL)))
    before = data.draw(st.sampled_from(_AROUND), "before")
    after = data.draw(st.sampled_from(_AROUND), "after")
    eol = data.draw(st.sampled_from(["\n", "\r\n", "\r"]), "eol")
    text = eol.join([before, "", *out, "", after]) + eol
    enc = data.draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32", "latin-1"]),
                    "encoding")
    try:
        raw = text.encode(enc)
    except UnicodeEncodeError:
        raw = text.encode("utf-8")
    p = tmp_path / "mail.txt"
    p.write_bytes(raw)
    g = read_file(p)
    assert g.payload_bytes == f.payload_bytes and g.sig == f.sig


@pytest.mark.parametrize("field", ["payload", "sig"])
def test_an_envelope_field_beyond_ascii_is_a_one_line_refusal(table, field):
    """The armor is sound but the envelope's base64 field holds a character beyond ASCII
    (the JSON reads it as text): a one-line refusal naming the field, exit 1, nothing stored.
    Before, receive and verify ended in 'internal error (a bug in pbem): ValueError' (exit 4)."""
    import json

    from pbem.core.armor import armor, dearmor

    t = table
    env = json.loads(dearmor(Path(t.file1).read_text()))
    env[field] = env[field][:-4] + "é" + env[field][-3:]
    data = json.dumps(env, separators=(",", ":"), ensure_ascii=False).encode()
    p = t.tmp / f"non-ascii-{field}.pbem"
    p.write_text(armor(data))
    one_line_refusal(t, "blue", p, "not valid base64")
