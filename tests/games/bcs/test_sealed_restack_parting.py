"""5.5d restacking in a sealed BbF game: the `moved` pick (the answer `answer restack moved`,
and a hex offering one choice) steps back the units that moved in the Activation first, then
by id. On the other side's knowledge state the units under a top are stand-ins named after
the top (``TOP--standinN``), so where the ids decide, it stepped back another unit: another
slot moved and another top (found by bench/bcs_wild.py, 5.4 seed 35, order #939, `answer
restack moved`: i-69-inf stepped back under 10-krad on the full state, its top i-7-pz on the
Allied state). The order now opens the hidden units whose ids decide
(sealed._restack_reveals)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pbem.core.sealed import SealedPlay
from pbem.games.bcs import sealed as bs

from games.bcs.test_sealed_port import GAME, SealedBcs, sealed_position


def _position(units: list[dict[str, Any]], ask: bool) -> Any:
    """A sealed position of 5.2: Schutte activated, its HQ in B11.19; with ask, the Axis has
    no standing order 'restack' (he is asked at `end`, as in a sealed game, whose stores stay
    empty), else the engine's `moved` answers it."""
    return sealed_position("restack", {
        "active": "schutte",
        "ask": {"axis": ["restack"]} if ask else {},
        "units": [{"id": "schutte-hq", "hex": "B11.19"}, *units]})


def _tie(ask: bool = True) -> Any:
    """iii-104-inf alone in B8.19; 39-609-mdr (Range 2) next to it in B9.19; 220-pio hidden
    under i-5-pz in B9.18. 39-609-mdr moves into B8.19 (its top), then 220-pio (under it):
    both moved, and 220-pio comes first by id."""
    return _position([{"id": "iii-104-inf", "hex": "B8.19"}, {"id": "39-609-mdr", "hex": "B9.19"},
                      {"id": "220-pio", "hex": "B9.18"}, {"id": "i-5-pz", "hex": "B9.18"}], ask)


MOVES = ["move 39-609-mdr B8.19", "move 220-pio B8.19"]


def _play(sp: SealedPlay, lines: list[str]) -> list[str]:
    problems: list[str] = []
    for line in lines:
        problems += sp.play("axis", line)
    return problems


def _where(st: Any) -> dict[str, str]:
    return {p.id: p.hex for p in st.pieces.values() if p.side == "axis" and p.hex}


def test_answer_restack_moved_opens_the_hidden_unit_its_id_steps_back():
    """The Axis is asked at `end` and answers `moved`: 220-pio (hidden under 39-609-mdr)
    steps back the way it came, under i-5-pz in B9.18. The Allied stand-in of 220-pio is
    39-609-mdr--standinN, after 39-609-mdr by name, so without the opening the Allied state
    stepped back the top itself (to B9.19, where it is the top): the public states parted."""
    st = _tie()
    sp = SealedPlay(GAME, _tie(), b"k" * 32)
    assert _play(sp, MOVES + ["end"]) == []
    assert sp.full.wait is not None and sp.full.wait.topic == "restack"
    k = bs.slot_name("axis", st.slots["axis"]["220-pio"])
    answer = GAME.parse_order("answer restack moved")
    opens = GAME.reveals(sp.know["axis"], "axis", answer)
    projected = GAME.project(sp.know["axis"], "axis", answer)
    assert sp.play("axis", "answer restack moved") == []
    assert opens == [("axis", f"{k}.unit"), ("axis", f"{k}.face"), ("axis", f"{k}.mp")]
    assert projected == f"answer restack moved opens {k}.unit {k}.face {k}.mp"
    assert _where(sp.full)["220-pio"] == _where(sp.know["allied"])["220-pio"] == "B9.18"
    assert _where(sp.know["allied"])["39-609-mdr"] == "B8.19"


def test_an_end_whose_restacking_is_not_asked_opens_it_too():
    """The same pick made by `end` itself (here the standing order 'restack moved'; in a
    sealed game, a hex offering one choice): the `end` opens 220-pio."""
    st = _tie(ask=False)
    sp = SealedPlay(GAME, _tie(ask=False), b"k" * 32)
    assert _play(sp, MOVES) == []
    k = bs.slot_name("axis", st.slots["axis"]["220-pio"])
    opens = GAME.reveals(sp.know["axis"], "axis", GAME.parse_order("end"))
    assert sp.play("axis", "end") == []
    assert opens == [("axis", f"{k}.unit"), ("axis", f"{k}.face"), ("axis", f"{k}.mp")]
    assert _where(sp.know["allied"])["220-pio"] == "B9.18"


def _two_hidden(ask: bool = True) -> Any:
    """39-609-mdr alone in B8.19 (it stays its top, and does not move); iii-104-inf hidden
    under i-5-pz in B9.18 and iv-104-inf under 220-pio in B9.19 both move into B8.19:
    iii-104-inf steps back, iv-104-inf stays."""
    return _position([{"id": "39-609-mdr", "hex": "B8.19"}, {"id": "i-5-pz", "hex": "B9.18"},
                      {"id": "iii-104-inf", "hex": "B9.18"}, {"id": "220-pio", "hex": "B9.19"},
                      {"id": "iv-104-inf", "hex": "B9.19"}], ask)


class OnlyTheOneThatGoes(SealedBcs):
    """The test engine opening, of a restacking, only the unit that steps back."""

    def reveals(self, state: Any, side: str, order: Any) -> list[tuple[str, str]]:
        """The reveals without the unit that stays (iv-104-inf's slot, 5)."""
        return [r for r in super().reveals(state, side, order) if not r[1].startswith("axis-5.")]


def test_a_unit_that_stays_is_opened_when_its_stand_in_would_come_first():
    """Opened, iii-104-inf carries its own name; iv-104-inf's stand-in,
    39-609-mdr--standin5, comes before it by name, so the Allied state would step it back
    instead: both are opened (the top did not move, so the stand-ins are the only ones the
    ids order)."""
    st = _two_hidden()
    go, stay = (bs.slot_name("axis", st.slots["axis"][u]) for u in ("iii-104-inf", "iv-104-inf"))
    assert stay == "axis-5"
    lines = ["move iii-104-inf B8.19", "move iv-104-inf B8.19", "end"]
    sp = SealedPlay(GAME, _two_hidden(), b"k" * 32)
    assert _play(sp, lines) == []
    assert GAME.reveals(sp.know["axis"], "axis", GAME.parse_order("answer restack moved")) == [
        ("axis", f"{go}.unit"), ("axis", f"{go}.face"), ("axis", f"{stay}.unit"),
        ("axis", f"{stay}.face"), ("axis", f"{go}.mp"), ("axis", f"{stay}.mp")]
    assert sp.play("axis", "answer restack moved") == []
    assert _where(sp.know["allied"])["iii-104-inf"] == "B9.18"
    parted = SealedPlay(OnlyTheOneThatGoes(), _two_hidden(), b"k" * 32)
    assert _play(parted, lines) == []
    got = parted.play("axis", "answer restack moved")
    assert got and "allied's public state differs" in got[0]


def test_a_pick_the_moved_flag_decides_alone_opens_nothing():
    """220-pio alone moved into B8.19 (39-609-mdr and iii-104-inf did not move): it steps
    back whatever the ids, so nothing is opened, and both sides agree."""
    st = _position([{"id": "39-609-mdr", "hex": "B8.19"}, {"id": "iii-104-inf", "hex": "B8.19"},
                    {"id": "220-pio", "hex": "B9.18"}, {"id": "i-5-pz", "hex": "B9.18"}], True)
    sp = SealedPlay(GAME, st, b"k" * 32)
    assert _play(sp, ["move 220-pio B8.19"]) == []
    assert GAME.reveals(sp.know["axis"], "axis", GAME.parse_order("end")) == []
    assert sp.play("axis", "end") == []
    assert _where(sp.full)["220-pio"] == "B9.18"


def test_the_wild_game_that_parted_plays_through(monkeypatch):
    """bench/bcs_wild.py, 5.4 seed 35, --p 0.5 --select hidden: the game meets restackings
    whose `moved` pick the ids decide (its order #939 parted) and plays to its end without a
    divergence."""
    root = Path(__file__).resolve().parents[3]
    monkeypatch.syspath_prepend(str(root / "bench"))
    import bcs_wild as wild

    opened: list[list[tuple[str, str]]] = []
    real = getattr(bs, "_restack_reveals", lambda *a: [])

    def counting(state: Any, side: str, picks: Any) -> list[tuple[str, str]]:
        out = real(state, side, picks)
        if out:
            opened.append(out)
        return out

    monkeypatch.setattr(bs, "_restack_reveals", counting, raising=False)
    monkeypatch.setattr(wild, "SELECT", "hidden")
    game = wild.play("5.4", 35, 0.5, 3000, True, wild.Stats())
    assert [(f["index"], f["order"], f["kind"]) for f in game["found"]] == []
    assert opened
    assert game["result"] is not None or game["phase"] == "over"
    sys.modules.pop("bcs_wild", None)
