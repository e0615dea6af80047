"""Sealed Holdfast: the order a player writes his placements in tells the other side nothing.

A block's public slot is the next number of its side when it is placed, and the other side
sees one `seen place ?axis-N HEX` line per `place` line, in the order written. The bots (and
a player who lists his units as his report does) write placements in unit id order, so the
Allies of a sealed game named every Axis set-up block and every Axis reinforcement before any
combat: ?axis-1 fjr5, ?axis-2 superga, ?axis-3 witzig (the ids in order), 7 of 7 guesses right
in each of three bot games (an attack trial, session 30: reading only the Allied archive's
received files and the public set-up list and turn track). A hosted view shows enemy blocks by
hex only and never the order they were placed in.

Now a sealed processor signs each run of placements in a canonical order of the set
(`sealing.signing_order`, the game's `sealed_canonical`, `holdfast.sealed.placement_order`):
hex order, then a keyed hash, the smallest placement next that keeps the file playing out as
written (every unit where the written order puts it, the same block first in each stack),
backtracking where needed. Before (session 30), a file whose hex order played differently
(a stack whose first block stays, a placement whose supply another opens) was signed as
written. Now the projection, the slots and the real orders in the private store are the same
for every order of the same placements that plays out the same.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from fixtures.seeded import seeded
from fixtures.table import Table
from pbem.core.dice import FixedDice, NoDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.core.records import read_file
from pbem.core.rulecases import Case
from pbem.games.holdfast import GAME
from pbem.games.holdfast.rulecases import HOOKS
from pbem.games.holdfast.state import clone
from pbem.protocol import ops, sealing

SETUP = ["place fjr5 1602", "place superga 2005", "place witzig 1603"]
SIDES = ("allied", "axis")


def _table(tmp: Path) -> Table:
    with seeded("hf-placement-order"):
        return Table(tmp, game="holdfast", scenario="race-to-tunis", mode="sealed",
                     sides=SIDES)


def _orders_sent(t: Table) -> list[str]:
    return read_file(t.inbox[-1][0]).payload.orders


def _slots(t: Table) -> dict[str, int]:
    """The Axis's unit -> slot after its own last file up to its first die (the weather die
    of 'end' waits for the Allied share), from its real orders in the private store."""
    s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    state, _ = sealing.simulate(s.game, s.state, "axis", s.private[s.ledger.tip_seq])
    return dict(state.private["axis"].slots)


def test_the_order_of_set_up_placements_is_not_what_the_allies_see(tmp_path):
    """Three orders of the same Axis set-up, signed: the Allies get the same lines (in hex
    order), the same slot names each unit, and the game verifies to its end."""
    sent, slots = [], []
    for k, lines in enumerate([SETUP, SETUP[::-1], [SETUP[1], SETUP[0], SETUP[2]]]):
        t = _table(tmp_path / f"g{k}")
        t.deliver()
        assert t.mover() == "axis"
        t.play_one(["standing hits strongest-first", *lines, "end"])
        sent.append(_orders_sent(t))
        slots.append(_slots(t))
    assert sent[0] == ["standing sealed", "seen place ?axis-1 1602", "seen place ?axis-2 1603",
                       "seen place ?axis-3 2005", "end"], sent[0]
    assert sent[1] == sent[0] and sent[2] == sent[0], sent
    assert slots[0] == {"fjr5": 1, "witzig": 2, "superga": 3} == slots[1] == slots[2], slots
    t.play_to_end()
    for side in SIDES:
        r = t.run("verify", str(t.dirs[side]))
        assert r.exit_code == 0 and "both final reveals are in" in r.output, r.output


def test_reinforcements_placed_in_any_order_get_slots_by_hex(tmp_path):
    """The Axis's turn 1 reinforcements, written in unit id order as the bots write them and
    in reverse: the same projection, the placements in hex order, the rest in place."""
    sent = []
    for k in range(2):
        t = _turn_1_axis(tmp_path / f"g{k}")
        orders = t.tmp / "bot.txt"
        t.ok("bot", str(t.dirs["axis"]), "--side", "axis", "--out", str(orders), "--seed", "3")
        lines = orders.read_text().splitlines()
        places = [x for x in lines if x.startswith("place ")]
        assert len(places) >= 2 and places == sorted(places), lines   # unit id order
        if k:
            i = lines.index(places[0])
            lines[i:i + len(places)] = places[::-1]
        t.play_one(lines)
        sent.append(_orders_sent(t))
        hexes = [x.split()[3] for x in sent[-1] if x.startswith("seen place ")]
        assert hexes == sorted(hexes), sent[-1]
    assert sent[0] == sent[1], sent


def test_submit_run_again_with_the_orders_as_written_sends_the_file_it_signed(tmp_path):
    """The private store holds the placements in the order signed, not as written: submit run
    again (a crash, a second run) still knows the file and writes it again, never a second
    file with that number; check tells the player the order is changed."""
    t = _table(tmp_path)
    t.deliver()
    orders = tmp_path / "setup.txt"
    orders.write_text("\n".join(["standing hits strongest-first", *SETUP[::-1], "end"]) + "\n")
    r = t.ok("check", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"))
    assert "placements are signed in an order of their own" in r.output, r.output
    first, again = tmp_path / "1.pbem", tmp_path / "2.pbem"
    t.ok("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"), "--out", str(first))
    r = t.ok("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"), "--out",
             str(again))
    assert "already signed and stored" in r.output, r.output
    assert first.read_bytes() == again.read_bytes()
    s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    assert s.private[1] == ["standing hits strongest-first", *SETUP[:1], SETUP[2], SETUP[1],
                            "end"], s.private[1]



def test_which_unit_of_a_stack_moves_out_is_not_told_by_its_slot(tmp_path):
    """The Axis's three turn 3 reinforcements (public: the turn track) placed in one hex, one
    of them moving out before the first die, the other two staying there with fjr5 (placed
    earlier: it stays at the end of the turn, HF-8.1-f, and both go back to the track). Before,
    two units staying together kept the whole run in the order written, so with the
    placements written in unit id order the slot of the block that moved out named it
    (?axis-8 10pz-b, ?axis-9 inf334, ?axis-10 pgr69); then the two staying kept their order
    written. Now the Allies get the same file whichever unit moved out and whatever order it
    was written in, and the same real orders are signed for two orders written."""
    units = ["10pz-b", "inf334", "pgr69"]
    sent, signed_of = [], []
    for k, (mover, written) in enumerate([(u, units) for u in units]
                                         + [("inf334", ["pgr69", "inf334", "10pz-b"])]):
        with seeded("hf-stack-part"):
            t = Table(tmp_path / f"g{k}", game="holdfast", scenario="campaign", mode="sealed",
                      sides=SIDES)
        t.rng.seed(7)

        def axis_turn_3(side: str) -> bool:
            st = ops.open_session(t.dirs["axis"], key_path=t.key("axis")).state
            return side == "axis" and st.public.turn == 3 and st.public.phase == "turn"

        t.play_until(axis_turn_3)
        t.play_one([*(f"place {u} 1802" for u in written), f"move {mover} 1802-1903", "end"])
        sent.append(_orders_sent(t))
        s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
        signed = [x.split()[1] for x in s.private[s.ledger.tip_seq] if x.startswith("place ")]
        assert signed[0] == mover and sorted(signed) == sorted(units), signed
        signed_of.append(signed)
        t.deliver()                                    # the Allies take it
        assert t.mover() == "allied"
    assert sent[0][3] == "seen move ?axis-8 1802-1903", sent[0]
    assert sent[0] == sent[1] == sent[2] == sent[3], "\n".join(map(repr, sent))
    assert signed_of[1] == signed_of[3], signed_of    # inf334 moves out: written either way


def _turn_1_axis(tmp: Path) -> Table:
    """A race-to-tunis game at the Axis's turn 1 placement step: barenthin, 10pz-a and 50bde
    due (public: the turn track), 1802 empty."""
    t = _table(tmp)
    t.deliver()
    t.play_one(["standing hits strongest-first", *SETUP, "end"])
    t.deliver()
    t.rng.seed(5)
    while t.mover() != "axis":
        t.play_one()
        t.deliver()
    return t


def test_a_stack_whose_first_block_stays_is_signed_in_one_order_whatever_order_written(
        tmp_path):
    """Two Axis reinforcements placed in empty 1802 stay there together to the first die (the
    weather die of 'end'): the first placed stays at the end of the turn and the other goes
    back to the track (HF-8.1-f), so which one is placed first is the player's choice. Hex
    order with the keyed hash puts one of the two first whoever the player chose: for one of
    the two choices it plays differently from the written order, which session 30's signing
    then kept as written (so the file told the other side the order written). Now, for each
    choice, three orders written of the same placements give the same signed lines (the
    chosen block first in 1802, 50bde in the gray hex where the keyed order puts it), `check`
    says what `submit` signs, and the Allies accept the file; both games verify to the end."""
    by_choice = {}
    for first, other in (("barenthin", "10pz-a"), ("10pz-a", "barenthin")):
        a, b, c = f"place {first} 1802", f"place {other} 1802", "place 50bde 3032"
        signed, sent = [], []
        for k, written in enumerate([[a, b, c], [c, a, b], [a, c, b]]):
            t = _turn_1_axis(tmp_path / f"{first}-{k}")
            orders = t.tmp / "mine.txt"
            orders.write_text("\n".join([*written, "end"]) + "\n")
            r = t.ok("check", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"))
            t.play_one([*written, "end"])
            s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
            signed.append(s.private[s.ledger.tip_seq])
            assert ("placements are signed in an order of their own" in r.output) == (signed[-1][:3] != written), r.output
            sent.append(_orders_sent(t))
            t.deliver()                                     # the Allies take it
            assert t.mover() == "allied"
            if k == 0:
                t.play_to_end()
                for side in SIDES:
                    v = t.run("verify", str(t.dirs[side]))
                    assert v.exit_code == 0 and "both final reveals are in" in v.output, v.output
        assert signed[0] == signed[1] == signed[2], signed
        assert sent[0] == sent[1] == sent[2], sent
        places = [x for x in signed[0] if x.startswith("place ")]
        assert places.index(a) < places.index(b), places      # the chosen block stays
        by_choice[first] = places
    # the same keyed hash orders both choices' placements in 1802: one of them is not it
    assert [x.split()[1] for x in by_choice["barenthin"] if x.endswith(" 1802")] != \
        [x.split()[1] for x in by_choice["10pz-a"] if x.endswith(" 1802")], by_choice


def test_placements_that_open_and_close_entry_hexes_are_signed_in_one_order():
    """Placements whose legality depends on their order, both ways: Axis blocks in 0202 and
    0203 cut 0103 off from supply and close the inland bases, so the Allies enter on the west
    edge (0106); a block placed in 0104 opens 0103, and blocks in 0103 and 0104 reopen the
    inland bases, which closes the west edge again (the synthetic map, a rule-case position:
    no bot game met a placement that opens another in 15 race-to-tunis and 8 campaign games).
    Hex order is refused at 0103, and session 30 signed such a run as written. Now every
    order written that plays is signed in one order, the smallest legal placement next by hex
    (backtracking where the smallest leaves a later one illegal), and it plays to the same
    position."""
    placed = {"fr19": "0102", "inf1": "0103", "inf2": "0104", "us1": "0106"}
    track = [{"id": u, "where": "track", "entry_turn": 3} for u in placed]
    state = HOOKS.build(Case(id="HF-8.1-e", position=dict(
        side="allied", units=[*track, {"id": "ger1", "hex": "0202"},
                              {"id": "ger2", "hex": "0203"}])))
    lines = [f"place {u} {h}" for u, h in placed.items()]

    def plays(order: list[str]) -> bool:
        st = clone(state)
        try:
            for i, x in enumerate(order):
                GAME.apply(st, "allied", GAME.parse_order(x), Context(NoDice(), i))
        except IllegalOrder:
            return False
        assert {u: st.private["allied"].units[u].hex for u in placed} == placed
        return True

    legal = [list(p) for p in itertools.permutations(lines) if plays(list(p))]
    assert not plays(sorted(lines, key=lambda x: x.split()[2])), "hex order plays"
    assert 2 <= len(legal) < 24, legal
    signed = {tuple(GAME.sealed_canonical(state, "allied", [*p, "end"], b"key"))
              for p in legal}
    assert len(signed) == 1, signed                     # whatever order was written
    (one,) = signed
    assert plays(list(one[:4])) and one[4] == "end", one
    assert list(one[:4]) == min(legal, key=lambda p: [x.split()[2] for x in p]), (one, legal)


def test_a_stack_keeps_its_order_placed_when_its_first_block_moves_out_after_the_die():
    """Three Allied blocks placed in 0105, an attack (the first die), then the first placed
    moves out: of the two left, the one placed earlier stays at the end of the turn and the
    other goes back to the track (HF-8.1-f). The signed order kept only the first of the
    stack, ordering the other two by the keyed hash, so the file signed sent the other unit
    back: what the player wrote did not happen. Now a stack keeps its whole order placed."""
    state = HOOKS.build(Case(id="HF-8.1-f", position=dict(side="allied", units=[
        {"id": "inf1", "hex": "0304"}, {"id": "ger1", "hex": "0404"},
        *({"id": u, "where": "track", "entry_turn": 3} for u in ("inf2", "inf3", "us1"))])))

    def ends(lines: list[str]) -> dict[str, str]:
        st = clone(state)
        for i, x in enumerate(lines):
            GAME.apply(st, "allied", GAME.parse_order(x), Context(FixedDice([1] * 40), i))
        return {u: st.private["allied"].units[u].where for u in ("inf2", "inf3", "us1")}

    for rest in (["inf3", "us1"], ["us1", "inf3"]):
        written = [f"place {u} 0105" for u in ["inf2", *rest]] + [
            "attack 0404 with inf1", "move inf2 0106", "end"]
        for key in (b"k", b"other"):
            signed = GAME.sealed_canonical(state, "allied", written, key)
            assert ends(signed) == ends(written) == {
                "inf2": "map", rest[0]: "map", rest[1]: "track"}, (signed, written)


def test_a_set_up_unit_placed_again_does_not_keep_the_run_as_written():
    """A set-up unit placed twice (the second line moves it: a player correcting himself).
    The run was then signed as written, so the slots said which unit is which block as
    before session 30 (?axis-1 the first unit written, and so on). Now it is signed in one
    order of the set, each unit's own placements in their order (the last one counts)."""
    state = GAME.setup("race-to-tunis", {})
    again = "place fjr5 1702"
    signed = set()
    for written in (SETUP, SETUP[::-1], [SETUP[1], SETUP[0], SETUP[2]]):
        lines = [*written, again, "end"]
        one = GAME.sealed_canonical(state, "axis", lines, b"key")
        assert sorted(one) == sorted(lines) and one.index(SETUP[0]) < one.index(again), one
        st = clone(state)
        for i, x in enumerate(one[:4]):
            GAME.apply(st, "axis", GAME.parse_order(x), Context(NoDice(), i))
        assert {u: st.private["axis"].units[u].hex for u in ("fjr5", "superga", "witzig")} \
            == {"fjr5": "1702", "superga": "2005", "witzig": "1603"}
        signed.add(tuple(one))
    assert len(signed) == 1, signed


def test_a_file_of_a_thousand_placements_is_signed_without_a_recursion_error():
    """A set-up unit placed again and again makes a run longer than any side's units: the
    search walks one frame a placement, so past sealed.MAX_PLACEMENTS the file is signed as
    written (a RecursionError at a thousand placements, a traceback from check and submit)."""
    state = GAME.setup("race-to-tunis", {})
    lines = [SETUP[1], SETUP[2], *(f"place fjr5 {'1602' if i % 2 else '1702'}"
                                   for i in range(1000)), "end"]
    assert GAME.sealed_canonical(state, "axis", lines, b"key") == lines
