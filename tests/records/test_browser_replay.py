"""The replay page in headless Chromium: click through complete games (Holdfast campaign,
Kasserine), use the keyboard and the turn jump, and let the page's own verifier (WebCrypto)
check good records and records with one changed byte.

Skipped when /usr/bin/chromium is absent (CI installs Debian's chromium package).
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
from pbem.core.encoding import canonical
from pbem.core.keys import load_private
from pbem.core.records import Envelope, open_text, seal
from pbem.records.record import export_text, parse_record
from pbem.records.replay import build_page
from pbem.records.source import open_game, verify_record

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(),
                                 reason="headless browser test needs /usr/bin/chromium "
                                        "(apt-get install chromium)")]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with Browser(tmp_path_factory.mktemp("chromium") / "profile") as b:
        yield b


def open_page(browser: Browser, path: Path) -> dict:
    """Open a page and wait for its verifier; returns the verification result."""
    browser.open(path.as_uri())
    return browser.eval("window.pbemVerification")


def state(browser: Browser) -> dict:
    return browser.eval("""(function () {
      var b = document.body.dataset;
      return {step: Number(b.step), seq: Number(b.seq), verified: b.verified,
              counter: document.getElementById('rp-counter').textContent,
              title: document.getElementById('rp-title').textContent,
              units: document.querySelectorAll('#rp-units .unit').length,
              masked: document.querySelectorAll('#rp-units .unit.masked').length,
              arrows: document.querySelectorAll('#rp-top .arrow').length,
              dice: document.querySelectorAll('#rp-dice tr').length,
              events: document.querySelectorAll('#rp-events li').length,
              over: !document.getElementById('rp-outcome').hidden,
              outcome: document.getElementById('rp-outcome-text').textContent,
              next: document.getElementById('rp-next').disabled,
              status: document.getElementById('verify-status').textContent,
              detail: document.getElementById('verify-detail').textContent};
    })()""")


def replay_of(archive: Path, tmp: Path, name: str) -> tuple[Path, object]:
    rec = tmp / f"{name}.pbemrec"
    rec.write_text(export_text(archive), encoding="ascii")
    v = open_game(rec)
    page = tmp / f"{name}.html"
    page.write_text(build_page(v, rec.read_text()), encoding="utf-8")
    return page, v


def click_through(browser: Browser, v) -> dict:
    """Click 'Next' from the first file to the result, checking every step."""
    browser.key("Home", 36)
    s = state(browser)
    assert s["step"] == 0 and s["title"] == "Start of the game" and s["units"] > 0
    total = v.files + 1
    seen_dice = seen_events = seen_arrows = 0
    for i in range(1, total):
        browser.click("#rp-next")
        s = state(browser)
        assert s["step"] == i and s["seq"] == i, s
        assert s["counter"] == f"Step {i + 1} of {total}"
        assert s["title"] == f"File {i} from {v.session.ledger.turn(i).sender}"
        assert s["units"] > 0
        seen_dice += s["dice"]
        seen_events += s["events"]
        seen_arrows += s["arrows"] > 0
    assert s["next"] is True and s["over"] is True
    o = v.outcome
    assert (o.winner + " wins" if o.winner else "A draw") in s["outcome"]
    assert seen_dice == sum(len(log.rolls) for log in v.session.log)   # full view: every die
    assert seen_events > 0 and seen_arrows > 0
    return s


def check_keyboard_and_turns(browser: Browser, v) -> None:
    browser.key("Home", 36)
    browser.key("ArrowRight", 39)
    browser.key("ArrowRight", 39)
    assert state(browser)["step"] == 2
    browser.key("ArrowLeft", 37)
    assert state(browser)["step"] == 1
    browser.key("End", 35)
    assert state(browser)["step"] == v.files
    turns = browser.eval("Array.from(document.querySelectorAll('#rp-turn option'))"
                         ".map(o => [o.textContent, Number(o.value)])")
    assert len(turns) >= 3
    label, first = turns[len(turns) // 2]
    browser.eval(f"(function(){{var s=document.getElementById('rp-turn'); s.value='{first}';"
                 "s.dispatchEvent(new Event('change'));})()")
    s = state(browser)
    assert s["step"] == first
    assert browser.eval("window.pbemReplay.step()") == first
    browser.key("PageDown", 34)
    assert state(browser)["step"] == turns[len(turns) // 2 + 1][1]
    browser.key("PageUp", 33)
    assert state(browser)["step"] == first


def check_side_view(browser: Browser, side: str) -> None:
    seq = state(browser)["seq"]
    browser.eval(f"(function(){{var s=document.getElementById('rp-view'); s.value='{side}';"
                 "s.dispatchEvent(new Event('change'));})()")
    s = state(browser)
    assert s["seq"] == seq and browser.eval("window.pbemReplay.view()") == side
    shown = browser.eval("Array.from(document.querySelectorAll('.rp-stats'))"
                         ".filter(e => !e.hidden).map(e => e.dataset.view)")
    assert shown == [side]


def test_click_through_a_finished_holdfast_campaign(browser, campaign, tmp_path):
    page, v = replay_of(campaign / "allied", tmp_path, "campaign")
    result = open_page(browser, page)
    assert result["ok"] is True, result
    assert result["counts"]["dice"] == sum(len(log.rolls) for log in v.session.log)
    assert result["counts"]["chain"] == v.files
    assert state(browser)["verified"] == "ok"
    click_through(browser, v)
    check_keyboard_and_turns(browser, v)
    browser.key("Home", 36)
    for _ in range(12):
        browser.key("ArrowRight", 39)
    check_side_view(browser, "allied")
    assert state(browser)["masked"] > 0          # the Axis blocks, as the Allies saw them


def test_click_through_a_finished_kasserine_game(browser, kasserine, tmp_path):
    page, v = replay_of(kasserine / "us", tmp_path, "kasserine")
    result = open_page(browser, page)
    assert result["ok"] is True, result
    click_through(browser, v)
    check_keyboard_and_turns(browser, v)
    check_side_view(browser, "axis")


def test_a_hosted_player_record_verifies_in_the_browser(browser, dash_hosted, tmp_path):
    rec = tmp_path / "red.pbemrec"
    rec.write_text(export_text(dash_hosted / "red"))
    v = open_game(rec)
    page = tmp_path / "red.html"
    page.write_text(build_page(v, rec.read_text()))
    result = open_page(browser, page)
    assert result["ok"] is True and result["counts"]["views"] == len(v.player.views), result
    assert result["counts"]["dice"] == sum(len(f.payload.rolls) for f in v.player.views)
    ref = tmp_path / "ref.pbemrec"
    ref.write_text(export_text(dash_hosted / "referee"))
    vr = open_game(ref)
    page2 = tmp_path / "ref.html"
    page2.write_text(build_page(vr, ref.read_text()))
    result = open_page(browser, page2)
    assert result["ok"] is True and result["counts"]["views"] > 0, result


# -- records with one changed byte -----------------------------------------------------------
def _entry(text: str, path: str) -> tuple[int, int]:
    """Start and end of the armored block of an entry in a record's text."""
    at = text.index(f": {path}\n")
    b = text.index("-----BEGIN PBEM FILE-----\n", at) + len("-----BEGIN PBEM FILE-----\n")
    return b, text.index("-----END PBEM FILE-----", b)


def _with_block(text: str, path: str, block: str) -> str:
    b, e = _entry(text, path)
    return text[:b - len("-----BEGIN PBEM FILE-----\n")] + block + text[e + len(
        "-----END PBEM FILE-----\n"):]


def payload_byte_changed(text: str, path: str, after: bytes = b'"seq":') -> str:
    """The record with one byte of one file's signed payload changed (a digit after the given
    key; the armor stays well formed: only the signature can catch it)."""
    b, e = _entry(text, path)
    env = msgspec.json.decode(base64.b64decode("".join(text[b:e].split())))
    payload = bytearray(base64.b64decode(env["payload"]))
    i = payload.index(after) + len(after)
    payload[i] = ord("9") if payload[i] != ord("9") else ord("8")
    env["payload"] = base64.b64encode(bytes(payload)).decode()
    return _with_block(text, path, armor(canonical(env)))


def armor_byte_changed(text: str, path: str) -> str:
    """The record with one base64 character of one file's armored block changed."""
    b, _ = _entry(text, path)
    i = b + 100
    return text[:i] + ("Q" if text[i] != "Q" else "R") + text[i + 1:]


def die_changed_and_resigned(text: str, path: str, key_path: Path) -> str:
    """The record with one die of the results a file carries changed, and the file signed
    again by its sender: the signature holds, the die does not."""
    b, e = _entry(text, path)
    f = open_text(text[b - len("-----BEGIN PBEM FILE-----\n"):e + len("-----END PBEM FILE-----\n")])
    t = f.payload
    r0 = t.results.rolls[0]
    r1 = msgspec.structs.replace(r0, value=r0.value % r0.sides + 1)
    res = msgspec.structs.replace(t.results, rolls=[r1, *t.results.rolls[1:]])
    forged = seal(msgspec.structs.replace(t, results=res), load_private(key_path))
    block = forged.text[forged.text.index("-----BEGIN"):]
    return _with_block(text, path, block)


def test_records_with_one_changed_byte_name_the_file(browser, dash_peer, tmp_path):
    good_text = export_text(dash_peer / "red")
    rec = parse_record(good_text)
    v = open_game(dash_peer / "red")
    paths = rec.paths()
    assert paths[0] == "files/0000-proposal.pbem"
    last = paths[-1]
    last_sender = last.split("-")[-1].split(".")[0]
    cases = {
        "payload": (payload_byte_changed(good_text, paths[5]), paths[5], "bad signature"),
        "armor": (armor_byte_changed(good_text, paths[7]), paths[7], ""),
        "proposal": (payload_byte_changed(good_text, paths[0], b'"created":"'), paths[0],
                     "bad signature"),
        "die": (die_changed_and_resigned(good_text, last, dash_peer / "keys" / f"{last_sender}.key"),
                last, "the dice commitments give"),
    }
    assert sum(a != b for a, b in zip(cases["armor"][0], good_text)) == 1
    for name, (text, path, words) in cases.items():
        page = tmp_path / f"{name}.html"
        page.write_text(build_page(v, text), encoding="utf-8")
        result = open_page(browser, page)
        assert result["ok"] is False and result["file"] == path, (name, result)
        assert words in result["problem"], (name, result)
        s = state(browser)
        assert s["verified"] == "failed" and s["status"] == f"Does not verify: {path}"
        assert path in s["detail"]
        bad = tmp_path / f"{name}.pbemrec"
        bad.write_text(text)
        assert not verify_record(bad).ok             # and pbem verify agrees
    page = tmp_path / "good.html"
    page.write_text(build_page(v, good_text), encoding="utf-8")
    assert open_page(browser, page)["ok"] is True
    assert "Verified in this browser" in state(browser)["status"]


def test_the_verifier_passes_the_protocol_test_vectors(browser, dash_peer, tmp_path):
    page = tmp_path / "p.html"
    page.write_text(build_page(open_game(dash_peer / "blue"), export_text(dash_peer / "blue")))
    browser.open(page.as_uri())
    assert browser.eval("PbemVerifier.selfTest()") == []
    # canonical JSON as docs/protocol.md section 1 asks
    assert browser.eval('PbemVerifier.canon(JSON.parse(\'{"b":[1,{"z":null,"a":true}],"a":"\\\\u00e9"}\'))') \
        == '{"a":"\u00e9","b":[1,{"a":true,"z":null}]}'
    for bad in ('{"a":1.5}', '{"a":9007199254740993}', '{"a":1,"a":2}', '{ "a":1}', '{"é":1}'):
        raw = json.dumps(list(bad.encode()))
        got = browser.eval(f"(function(){{try{{PbemVerifier.decodeCanonical(new Uint8Array({raw}),'x');"
                           "return 'accepted';}catch(e){return e.message;}})()")
        assert got != "accepted", bad


def test_the_library_page_filters_in_the_browser(browser, dash_peer, dash_hosted, tmp_path):
    from pbem.records.library import build_library

    recs = tmp_path / "records"
    recs.mkdir()
    (recs / "peer.pbemrec").write_text(export_text(dash_peer / "red"))
    (recs / "ref.pbemrec").write_text(export_text(dash_hosted / "referee"))
    (recs / "bad.pbemrec").write_text(export_text(dash_peer / "blue").replace(
        "archive of: blue", "archive of: green"))
    build_library(recs, tmp_path / "site")
    browser.open((tmp_path / "site" / "index.html").as_uri())

    def shown() -> int:
        return int(browser.eval("document.getElementById('lib-shown').textContent"))

    def choose(field: str, value: str) -> None:
        browser.eval(f"(function(){{var s=document.getElementById('{field}'); s.value='{value}';"
                     "s.dispatchEvent(new Event('change'));})()")

    assert shown() == 3                       # the record that does not verify is listed too
    choose("f-result", "invalid")
    assert shown() == 1
    choose("f-result", "")
    browser.eval("(function(){var s=document.getElementById('f-player'); s.value='BLUE';"
                 "s.dispatchEvent(new Event('input'));})()")
    assert shown() == 2
    choose("f-min", "1000")
    assert shown() == 0


# -- renewed dice commitments (docs/protocol.md section 6, Renewal) ------------------------------------------
def test_renewed_commitments_verify_in_the_browser(browser, renewed_peer, renewed_hosted,
                                                   tmp_path):
    from fixtures.renewals import reused_tip_record

    for name, archive in [("peer", renewed_peer / "red"), ("ref", renewed_hosted / "referee"),
                          ("blue", renewed_hosted / "blue")]:
        rec = tmp_path / f"{name}.pbemrec"
        rec.write_text(export_text(archive))
        v = open_game(rec)
        page = tmp_path / f"{name}.html"
        page.write_text(build_page(v, rec.read_text()))
        result = open_page(browser, page)
        assert result["ok"] is True and result["counts"]["renewals"] > 0, (name, result)
    bad, _ = reused_tip_record((tmp_path / "peer.pbemrec").read_text(), renewed_peer / "keys")
    page = tmp_path / "bad.html"
    page.write_text(build_page(open_game(tmp_path / "peer.pbemrec"), bad))
    open_page(browser, page)
    s = state(browser)
    assert s["verified"] == "failed" and "reuses a dice commitment" in s["detail"], s


# -- sealed mode, the default for two players: the proposal and acceptances carry `fact_commit` --
@pytest.fixture(scope="module")
def sealed_race(tmp_path_factory) -> Path:
    from pbem.protocol.demo import play_demo

    root = tmp_path_factory.mktemp("sealed-race")
    play_demo(root, game_name="holdfast", scenario="race-to-tunis", mode="sealed", seed=1,
              style="heuristic")
    return root


def test_a_sealed_game_record_verifies_in_the_browser(browser, sealed_race, tmp_path):
    page, v = replay_of(sealed_race / "allied", tmp_path, "sealed")
    assert '"fact_commit"' in base64.b64decode(
        json.loads(base64.b64decode("".join(
            (tmp_path / "sealed.pbemrec").read_text().split("-----BEGIN PBEM FILE-----\n")[1]
            .split("-----END PBEM FILE-----")[0].split())))["payload"]).decode()
    result = open_page(browser, page)
    assert result["ok"] is True, result
    assert result["counts"]["chain"] == v.files
    assert state(browser)["verified"] == "ok"
    # a fact-key commitment that is not 32 bytes of hex is refused, naming the proposal
    text = (tmp_path / "sealed.pbemrec").read_text()
    bad = payload_byte_changed(text, "files/0000-proposal.pbem", b'"fact_commit":"')
    page.write_text(build_page(v, bad), encoding="utf-8")
    result = open_page(browser, page)
    assert result["ok"] is False and result["file"] == "files/0000-proposal.pbem", result
