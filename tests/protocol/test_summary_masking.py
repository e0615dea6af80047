"""Peer files show the opponent nothing hidden in clear text (issue item 9).

The readable summary above the armored block travels in the mail body: it may say no more
than the recipient's view shows. Orders may place or move hidden blocks, so no order text
appears there at all; hidden rolls are not even counted.
"""

from __future__ import annotations

import re
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fixtures.table import Table
from pbem.core.armor import BEGIN


def outside_block(text: str) -> str:
    """The part of a mail file a reader sees without decoding the signed block."""
    assert text.count(BEGIN) == 1
    return text[:text.index(BEGIN)] + text[text.index("-----END PBEM FILE-----"):]


def test_holdfast_axis_setup_file_shows_no_hidden_placement(tmp_path):
    t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", sides=("allied", "axis"))
    t.deliver()
    assert t.mover() == "axis"
    sent = Path(t.play_one())                    # the bot's set-up: 'place UNIT HEX' lines
    orders = [ln.split("#")[0].strip()
              for ln in sorted(tmp_path.glob("orders-*.txt"))[-1].read_text().splitlines()]
    placed = [ln.split()[1] for ln in orders if ln.startswith("place ")]
    assert placed, orders
    clear = outside_block(sent.read_text())
    assert "place" not in clear.lower(), clear
    for unit in placed:
        assert not re.search(rf"(?<![A-Za-z0-9]){re.escape(unit)}(?![A-Za-z0-9])", clear,
                             re.I), (unit, clear)
    for line in orders:
        assert not line or line not in clear
    assert f"orders: {len(orders) - orders.count('')} lines in the signed block" in clear
    # the signed block still carries them: the opponent's processor resolves the set-up
    t.deliver()
    st = t.status("allied")
    assert st["seq"] >= 1 and "axis" not in st["pending"]


def test_turn_summary_counts_only_public_dice_and_keeps_the_message():
    from pbem.core.records import Results, RollRecord, Turn, ViewFile, seal

    key = Ed25519PrivateKey.generate()
    rolls = [RollRecord(action=0, index=i, sides=6, value=3, purpose="secret draw",
                        visible_to=v) for i, v in enumerate(["all", "axis", "axis", "all", "us"])]
    t = Turn(game_id="ab" * 16, seq=4, prev="00" * 32, sender="axis", reveal="11" * 32,
             results=Results(seq=3, rolls=rolls, state_hash="22" * 32),
             orders=["place superga 1902", "march witzig 1803 1804"],
             message="Good luck! -----BEGIN PBEM FILE----- \x1b[2J")
    text = seal(t, key).text
    clear = outside_block(text)
    assert "results of file 3: 2 dice seen by both sides" in clear
    assert "superga" not in clear and "witzig" not in clear and "place" not in clear
    assert "orders: 2 lines in the signed block" in clear
    assert "message: Good luck!" in clear and "\x1b" not in clear
    assert clear.count("-----BEGIN") == 0 and text.count(BEGIN) == 1
    v = ViewFile(game_id="ab" * 16, side="axis", seq=7, tip="33" * 32, view_seq=7,
                 state={"secret": "witzig at 1803"}, report={}, pending=[])
    clear = outside_block(seal(v, key).text)
    assert "witzig" not in clear and "1803" not in clear
    assert clear.splitlines()[0] == "pbem view for axis after file 7"
