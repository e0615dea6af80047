"""A differential attack trial of the replay page's verifier (templates/records/verifier.js)
against `pbem verify`: records a cheater forges with his own key (or the referee with its own)
that `pbem verify` refuses for a reason the browser is documented to check (docs/records.md,
"Verified in the browser") must never be "Verified in this browser".

Each case below was verified by the page before the fix. Skipped when /usr/bin/chromium is
absent, as the other browser tests.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import msgspec
import pytest

from fixtures.cdp import CHROMIUM, Browser
from pbem.core import signing
from pbem.core.armor import armor
from pbem.core.encoding import canonical, sha256_hex
from pbem.core.keys import load_private
from pbem.core.records import NAMESPACE, Payload, SignedFile
from pbem.records.record import Entry, export_text, genesis_of, parse_record, render
from pbem.records.replay import build_page
from pbem.records.source import open_game, verify_record

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(),
                                 reason="headless browser test needs /usr/bin/chromium "
                                        "(apt-get install chromium)")]

_SORTED = msgspec.json.Encoder(order="sorted")   # no profile check: a cheater's bytes


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with Browser(tmp_path_factory.mktemp("chromium") / "profile") as b:
        yield b


class Forger:
    """A record and the keys of its game: payloads changed and signed again."""

    def __init__(self, text: str, keys: Path) -> None:
        self.text = text
        self.rec = parse_record(text)
        self.keys = {p.stem: load_private(p) for p in keys.glob("*.key")}

    def payload(self, path: str) -> dict:
        return msgspec.json.decode(self.file(path).payload_bytes)

    def file(self, path: str) -> SignedFile:
        return self.rec.entries[self.rec.paths().index(path)].file

    def signed(self, obj: dict, signer: str) -> SignedFile:
        """A typed signed file of these payload fields (they must decode)."""
        data = _SORTED.encode(obj)
        p = msgspec.json.decode(data, type=Payload)
        return SignedFile("forged", data, p, signing.sign(self.keys[signer], NAMESPACE[type(p)], data))

    def render(self, entries: list[Entry]) -> str:
        """The record of these entries, every unsigned line as pbem derives it."""
        return render(self.rec.party, self.rec.result, entries, genesis_of(entries, "forged"))

    def replaced(self, path: str, f: SignedFile) -> str:
        ents = list(self.rec.entries)
        i = self.rec.paths().index(path)
        ents[i] = Entry(ents[i].folder, f)
        return self.render(ents)

    def added(self, *extra: Entry) -> str:
        return self.render([*self.rec.entries, *extra])

    def raw_block(self, path: str, data: bytes, signer: str) -> str:
        """The record with one file's signed block carrying these payload bytes (which need
        not decode), signed by signer; the rest of the text as it was."""
        ns = NAMESPACE[type(self.file(path).payload)]
        env = canonical({"payload": base64.b64encode(data).decode(),
                         "sig": base64.b64encode(signing.sign(self.keys[signer], ns, data)).decode(),
                         "v": 1})
        block = armor(env)
        old = self.file(path).text
        old_block = old[old.index("-----BEGIN"):]
        at = self.text.index(f": {path}\n")
        i = self.text.index(old_block, at)
        return self.text[:i] + block + self.text[i + len(old_block):]


def both_refuse(browser: Browser, page: Path, good: str, cases: dict, tmp_path: Path) -> None:
    """For every case (text, words): pbem verify refuses the record, and the page's verifier
    says it does not verify, with the words in its problem."""
    browser.open(page.as_uri())
    assert browser.eval("window.pbemVerification.then(r => r.ok)") is True
    assert json.loads(browser.eval(f"PbemVerifier.verify({json.dumps(good)}).then(JSON.stringify)"))["ok"]
    wrong = {}
    for name, (text, words) in cases.items():
        rec = tmp_path / f"{name}.pbemrec"
        rec.write_text(text, encoding="utf-8")
        assert not verify_record(rec).ok, name                       # pbem verify refuses
        got = json.loads(browser.eval(f"PbemVerifier.verify({json.dumps(text)}).then(JSON.stringify)"))
        if got["ok"] is not False or words not in got["problem"]:
            wrong[name] = got.get("problem", "Verified")
    assert not wrong, wrong


def page_of(archive: Path, tmp_path: Path, name: str) -> tuple[Path, str]:
    text = export_text(archive)
    rec = tmp_path / f"{name}-good.pbemrec"
    rec.write_text(text)
    page = tmp_path / f"{name}.html"
    page.write_text(build_page(open_game(rec), text), encoding="utf-8")
    return page, text


def test_a_peer_cheater_s_re_signed_files_do_not_verify_in_the_browser(browser, dash_peer, tmp_path):
    page, good = page_of(dash_peer / "red", tmp_path, "peer")
    fg = Forger(good, dash_peer / "keys")
    paths = fg.rec.paths()
    last = paths[-1]
    p = fg.payload(last)
    me = p["sender"]

    def raw(mutate, fix=lambda b: b):
        q = fg.payload(last)
        mutate(q)
        return fg.raw_block(last, fix(_SORTED.encode(q)), me)

    acc = next(x for x in paths if "accept" in x)
    a = fg.payload(acc)

    def genesis_only(acceptance: dict) -> str:
        """The record of the proposal and this acceptance only (pbem refuses it on reading
        the genesis; the page, before the fix, verified it)."""
        text = fg.raw_block(acc, _SORTED.encode(acceptance), acceptance["party"])
        return text[:text.index("== entry 3 of ")] + "== end of record: 2 entries\n"

    second = fg.signed(dict(p, message="the other version"), me)
    cases = {
        # canonical JSON: an escape that is no Unicode text (msgspec refuses it)
        "lone surrogate": (raw(lambda q: q.update(message="@@@@@@"),
                               lambda b: b.replace(b"@@@@@@", b"\\ud800")), "lone surrogate"),
        # exact fields, each of its type (section 1, step 3)
        "message int": (raw(lambda q: q.update(message=5)), "is not a string"),
        "class reveals list": (raw(lambda q: q.update(class_reveals=[])), "is not an object"),
        "skipped object": (raw(lambda q: q["results"].update(skipped={})), "is not a list"),
        "state hash int": (raw(lambda q: q["results"].update(state_hash=1)), "is not a string"),
        "commit with an unknown field": (raw(lambda q: q.update(
            commits=[{"fact": "x", "version": 0, "hash": "00" * 32, "zz": 1}])), "has fields"),
        "opening with unknown fields": (raw(lambda q: q.update(openings=[{"x": 1}])), "has fields"),
        # sealed-only fields in a peer file (both verified it before session 31)
        "commits in a peer file": (raw(lambda q: q.update(
            commits=[{"fact": "x", "version": 0, "hash": "00" * 32}])), "only the files of a sealed"),
        "a final reveal in a peer file": (raw(lambda q: q.update(
            final={"fact_key": "00" * 32, "orders": {}})), "only the files of a sealed"),
        # the armor's 64 columns (the signed bytes unchanged)
        "armor of 76 columns": (_rewrapped(good, last), "64 columns"),
        # the genesis: a dice commitment shorter than 16, a sealed-only field in a peer game
        "commitment of length 8": (genesis_only(dict(a, onion=dict(a["onion"], length=8))), "bad length"),
        "fact commitment in a peer acceptance": (genesis_only(dict(a, fact_commit="00" * 32)),
                                                 "outside a sealed game"),
        # equivocation: a second, different file of one number signed by its sender
        "equivocation in evidence": (fg.added(Entry("evidence", second)), "equivocation"),
        "equivocation in rejected": (fg.added(Entry("rejected", second)), "equivocation"),
        # a peer record keeps no refused files
        "refused file in a peer record": (fg.added(Entry("rejected", fg.file(last))),
                                          "keeps no refused files"),
    }
    both_refuse(browser, page, good, cases, tmp_path)


def _rewrapped(text: str, path: str) -> str:
    """The record with one armored block wrapped at 76 columns (its bytes unchanged)."""
    at = text.index(f": {path}\n")
    b = text.index("-----BEGIN PBEM FILE-----\n", at) + len("-----BEGIN PBEM FILE-----\n")
    e = text.index("-----END PBEM FILE-----", b)
    b64 = "".join(text[b:e].split())
    return text[:b] + "\n".join(b64[i:i + 76] for i in range(0, len(b64), 76)) + "\n" + text[e:]


def test_a_referee_s_forged_views_and_rejections_do_not_verify_in_the_browser(
        browser, dash_hosted, tmp_path):
    page, good = page_of(dash_hosted / "referee", tmp_path, "referee")
    fg = Forger(good, dash_hosted / "keys")
    paths = fg.rec.paths()
    view = next(x for x in reversed(paths) if "/view-" in x and fg.payload(x)["proofs"])
    v = fg.payload(view)
    side = v["side"]
    other = next(s for s in ("red", "blue") if s != side)
    leak = dict(v, proofs=[dict(v["proofs"][0], shares=dict(v["proofs"][0]["shares"],
                                                             **{f"host/{other}": "00" * 32})),
                             *v["proofs"][1:]])
    # a refused file of a player and the referee's rejection of it
    own = next(x for x in paths if x.endswith(f"-{side}.pbem") and "accept" not in x
               and fg.payload(x)["seq"] > 2)
    t = fg.payload(own)
    refused = fg.signed(dict(t, message="refused"), side)
    rej = {"file": sha256_hex(refused.payload_bytes), "game_id": t["game_id"], "order": 1,
           "reason": "x", "rule": "", "sender": side, "seq": t["seq"], "type": "pbem/reject/v1"}
    cases = {
        "view of a party that is no side": (fg.added(Entry("files", fg.signed(dict(v, side="host"), "host"))),
                                            "not a side"),
        "a view's proof opens another side's class": (fg.replaced(view, fg.signed(leak, "host")),
                                                      "may not show"),
        "two views of one file": (fg.added(Entry("evidence", fg.signed(dict(v, events=[]), "host"))),
                                  "equivocation"),
        "a rejection naming another sequence number": (
            fg.added(Entry("rejected", refused),
                     Entry("files", fg.signed(dict(rej, seq=t["seq"] + 2), "host"))), "names file"),
        "a rejection naming another sender": (
            fg.added(Entry("rejected", refused),
                     Entry("files", fg.signed(dict(rej, sender=other), "host"))), "names file"),
        "a refused file without its rejection": (fg.added(Entry("rejected", refused)), "equivocation"),
    }
    both_refuse(browser, page, good, cases, tmp_path)


def test_a_hosted_player_s_forged_record_does_not_verify_in_the_browser(browser, dash_hosted, tmp_path):
    # blue's first file is file 3: nothing of blue's own chains to the first view's tip
    page, good = page_of(dash_hosted / "blue", tmp_path, "blue")
    fg = Forger(good, dash_hosted / "keys")
    paths = fg.rec.paths()
    v0 = fg.payload("files/view-0000.pbem")
    mine = next(x for x in reversed(paths) if x.endswith("-blue.pbem") and "accept" not in x)
    cases = {
        "the first view names another genesis": (
            fg.replaced("files/view-0000.pbem", fg.signed(dict(v0, tip="00" * 32), "host")),
            "genesis hash"),
        "two different files of one number": (
            fg.added(Entry("evidence", fg.signed(dict(fg.payload(mine), message="other"), "blue"))),
            "equivocation"),
    }
    both_refuse(browser, page, good, cases, tmp_path)


def _block_with_sig(fg: Forger, text: str, path: str, data: bytes, sig: bytes) -> str:
    """The record text with one file's signed block carrying these payload bytes and this
    signature (any 64 bytes)."""
    env = canonical({"payload": base64.b64encode(data).decode(),
                     "sig": base64.b64encode(sig).decode(), "v": 1})
    old = fg.file(path).text
    old_block = old[old.index("-----BEGIN"):]
    i = text.index(old_block, text.index(f": {path}\n"))
    return text[:i] + armor(env) + text[i + len(old_block):]


def test_a_genesis_pinning_a_weak_key_does_not_verify_in_the_browser(browser, dash_peer, tmp_path):
    """A proposal pinning the identity point as the opponent's key (a key anyone can sign for,
    tests/core/test_weak_keys.py): the acceptance "signed" with R = identity, S = 0 verified in
    both pbem and the page before; both refuse the genesis now."""
    page, good = page_of(dash_peer / "red", tmp_path, "weak")
    fg = Forger(good, dash_peer / "keys")
    paths = fg.rec.paths()
    prop_path = paths[0]
    acc = next(x for x in paths if "accept" in x)
    a = fg.payload(acc)
    prop = fg.payload(prop_path)
    identity = "01" + "00" * 31
    prop["parties"] = [dict(k, pub=identity) if k["party"] == a["party"] else k
                       for k in prop["parties"]]
    prop_data = _SORTED.encode(prop)
    text = fg.raw_block(prop_path, prop_data, prop["proposer"])
    acc_data = _SORTED.encode(dict(a, proposal=sha256_hex(prop_data)))
    text = _block_with_sig(fg, text, acc, acc_data, bytes.fromhex(identity) + bytes(32))
    text = text[:text.index("== entry 3 of ")] + "== end of record: 2 entries\n"
    both_refuse(browser, page, good, {"weak key": (text, "weak key")}, tmp_path)
