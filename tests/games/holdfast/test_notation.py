"""Holdfast notation through the real commands: path forms, destination-only moves written out
before signing, path errors that explain themselves, misspelt order words, orders file encodings.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec
import pytest

from fixtures.table import Table
from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.records import read_file
from pbem.games.holdfast.data import world
from pbem.games.holdfast.movement import allowance, check_path, reachable
from pbem.games.holdfast.orders import Move, MoveTo, format_order, parse_order
from pbem.games.holdfast.supply import in_supply
from pbem.protocol.ops import open_session


@pytest.mark.parametrize("text", [
    "move 36bde 1004-1005-1106", "move 36bde 1004 1005 1106", "move 36bde 1004-1005 1106",
    "MOVE 36bde  1004 -1005-1106".replace(" -", " "),
])
def test_dashes_or_spaces_give_one_canonical_line(text):
    """HF-9.1-b paths: hexes joined by dashes, spaces or both; the canonical form uses dashes."""
    assert format_order(parse_order(text)) == "move 36bde 1004-1005-1106"


def test_flags_follow_the_path_in_either_form():
    """HF-9.3-a strat and HF-4-e leader come after the path, in any order."""
    assert format_order(parse_order("move 36bde 1004 1104 leader strat")) == \
        "move 36bde 1004-1104 strat leader"
    with pytest.raises(OrderSyntaxError, match="after the path"):
        parse_order("move 36bde 1004 strat 1104")


def test_destination_only_notation():
    """HF-9.1-b: 'move UNIT to HEX [strat] [leader]' names the destination alone."""
    o = parse_order("move 36bde to souk_ahras strat")
    assert o == MoveTo(unit="36bde", dest="souk_ahras", strategic=True)
    assert format_order(o) == "move 36bde to souk_ahras strat"
    with pytest.raises(OrderSyntaxError, match="one destination hex"):
        parse_order("move 36bde to 1004-1005")


@pytest.mark.parametrize("text,word", [("mvoe 36bde 1004", "move"),
                                       ("atack 1004 with 36bde", "attack"),
                                       ("ned", "end"), ("plcae 36bde 1004", "place")])
def test_unknown_order_word_suggests_the_nearest(text, word):
    """An unknown order word names the nearest valid one."""
    with pytest.raises(OrderSyntaxError, match=f"did you mean '{word}'"):
        parse_order(text)


# -- through the real commands -------------------------------------------------------------


def _new_game(tmp):
    """A Race to Tunis game after the Axis set-up: the Allied player turn is pending."""
    t = Table(tmp, game="holdfast", scenario="race-to-tunis", sides=("allied", "axis"))
    t.deliver()
    t.play_one()          # the Axis set-up (bot)
    t.deliver()
    assert t.mover() == "allied"
    return t


@pytest.fixture(scope="module")
def allied_turn(tmp_path_factory):
    """A game whose archives the tests only check against (nothing is submitted)."""
    return _new_game(tmp_path_factory.mktemp("hf"))


def _mp(s, w, uid):
    st = s.state
    return allowance(w, w.units[uid], weather=st.public.weather,
                     supplied=in_supply(st, w, "allied", uid), leader=False, strategic=False)


def _cost(s, w, uid, path, mp):
    try:
        return sum(check_path(s.state, w, "allied", uid, list(path), mp, False))
    except IllegalOrder:
        return None


def _a_long_move(t):
    """(unit, its hex, destination, allowance) with a cheapest path of three hexes or more."""
    s = open_session(str(t.dirs["allied"]))
    w = world(s.state.public.scenario)
    for uid, u in sorted(s.state.private["allied"].units.items()):
        if u.where != "map" or w.units[uid].type == "support":
            continue
        mp = _mp(s, w, uid)
        far = sorted(h for h, p in reachable(s.state, w, "allied", uid, mp, False).items()
                     if len(p) >= 3)
        if far:
            return s, w, uid, u.hex, far[0], mp
    raise AssertionError("no unit can move three hexes")


def _best_paths(s, w, uid, start, dest, mp):
    """Every legal path to dest by brute force, as (cost, hexes, path)."""
    out = []

    def walk(path):
        try:
            c = sum(check_path(s.state, w, "allied", uid, path, mp, False))
        except IllegalOrder as e:
            if e.rule != "HF-9.1-c":       # a friendly block may be passed through
                return
            c = None
        if path[-1] == dest and c is not None:
            out.append((c, len(path), tuple(path)))
            return
        for n in sorted(w.neighbours(path[-1])):
            if n not in path and n != start:
                walk(path + [n])

    for n in w.neighbours(start):
        walk([n])
    return sorted(out)


def test_destination_only_move_is_written_out_before_signing(tmp_path):
    """HF-9.1-b: check accepts 'move UNIT to HEX'; submit signs the cheapest full path, the
    tie broken by fewest hexes then hex ids in order; the receiver accepts it as it is."""
    t = _new_game(tmp_path / "game")
    s, w, uid, start, dest, mp = _a_long_move(t)
    orders = tmp_path / "orders.txt"
    orders.write_text(f"move {uid} to {dest}\npass\n")
    r = t.ok("check", str(t.dirs["allied"]), str(orders))
    assert "1 order is legal" in r.output
    out = tmp_path / "turn.pbem"
    t.ok("submit", str(t.dirs["allied"]), str(orders), "--key", t.key("allied"), "--out",
         str(out))
    signed = read_file(str(out)).payload.orders
    best = _best_paths(s, w, uid, start, dest, mp)[0]
    assert signed == [format_order(Move(unit=uid, path=best[2]))]
    assert signed[0] == f"move {uid} {'-'.join(best[2])}"
    t.inbox.append((str(out), "axis"))
    t.deliver()                               # the Axis processor accepts the signed path
    assert t.status("axis")["seq"] == t.status("allied")["seq"]


def test_signed_destination_only_move_is_refused(allied_turn):
    """A receiver never searches: a signed 'move UNIT to HEX' is refused, naming the reason."""
    s, w, uid, start, dest, mp = _a_long_move(allied_turn)
    from pbem.core.dice import NoDice
    from pbem.core.game import Context

    with pytest.raises(IllegalOrder, match="full path before signing"):
        s.game.apply(s.state, "allied", MoveTo(unit=uid, dest=dest), Context(NoDice()))


def test_too_costly_path_lists_each_hex_and_the_allowance(allied_turn, tmp_path):
    """HF-9.1-b: a path beyond the allowance names the cost of each hex entered and the MP."""
    t = allied_turn
    s, w, uid, start, dest, mp = _a_long_move(t)
    path = list(reachable(s.state, w, "allied", uid, 99, False)[dest])
    # go on from dest until the path costs more than the allowance
    while _cost(s, w, uid, path, 99) is not None and _cost(s, w, uid, path, 99) <= mp:
        nxt = next(n for n in sorted(w.neighbours(path[-1]))
                   if n not in path and n != start and _cost(s, w, uid, path + [n], 99))
        path.append(nxt)
    orders = tmp_path / "far.txt"
    orders.write_text(f"move {uid} {' '.join(path)}\npass\n")
    r = t.run("check", str(t.dirs["allied"]), str(orders))
    assert r.exit_code == 1
    costs = check_path(s.state, w, "allied", uid, path, 99, False)
    listed = " + ".join(f"{h} {c}" for h, c in zip(path, costs))
    assert f"({listed}); {uid} has {mp} MP [HF-9.1-b]" in r.output


def test_destination_beyond_the_allowance_explains_the_cheapest_path(allied_turn, tmp_path):
    """HF-9.1-b: 'move UNIT to HEX' out of reach lists the cheapest path's costs and the MP."""
    t = allied_turn
    s, w, uid, start, dest, mp = _a_long_move(t)
    far = sorted(h for h in reachable(s.state, w, "allied", uid, 99, False)
                 if h not in reachable(s.state, w, "allied", uid, mp, False))[0]
    orders = tmp_path / "to.txt"
    orders.write_text(f"move {uid} to {far}\npass\n")
    r = t.run("check", str(t.dirs["allied"]), str(orders))
    assert r.exit_code == 1
    assert f"{far}" in r.output and f"has {mp} MP [HF-9.1-b]" in r.output and " + " in r.output


def test_non_adjacent_hex_names_the_adjacent_ones(allied_turn, tmp_path):
    """HF-9.1-b: a hex not adjacent to the last one is refused with the hexes that are."""
    t = allied_turn
    s, w, uid, start, dest, mp = _a_long_move(t)
    orders = tmp_path / "jump.txt"
    orders.write_text(f"move {uid} {start}-{dest}\npass\n")
    r = t.run("check", str(t.dirs["allied"]), str(orders))
    assert r.exit_code == 1
    assert (f"{dest} is not adjacent to {start} (adjacent: "
            f"{', '.join(sorted(w.neighbours(start)))}) [HF-9.1-b]") in r.output


def test_start_hex_optional_and_spaces_through_check(allied_turn, tmp_path):
    """HF-9.1-b: the same move with or without the start hex, with dashes or spaces."""
    t = allied_turn
    s, w, uid, start, dest, mp = _a_long_move(t)
    path = reachable(s.state, w, "allied", uid, mp, False)[dest]
    for text in (f"move {uid} {'-'.join(path)}", f"move {uid} {start} {' '.join(path)}",
                 f"move {uid} {start}-{'-'.join(path)}"):
        orders = tmp_path / "p.txt"
        orders.write_text(text + "\npass\n")
        assert "1 order is legal" in t.ok("check", str(t.dirs["allied"]), str(orders)).output


@pytest.mark.parametrize("encoding,newline", [("utf-8-sig", "\r\n"), ("utf-16", "\r\n"),
                                              ("utf-8", "\r")])
def test_orders_file_with_bom_or_windows_line_ends(allied_turn, tmp_path, encoding, newline):
    """An orders file saved with a byte-order mark or Windows line ends is read."""
    t = allied_turn
    s, w, uid, start, dest, mp = _a_long_move(t)
    orders = tmp_path / "win.txt"
    orders.write_bytes(newline.join(["# my move", f"move {uid} to {dest}", "pass", ""]).encode(encoding))
    assert "1 order is legal" in t.ok("check", str(t.dirs["allied"]), str(orders)).output


def test_misspelt_order_word_through_check(allied_turn, tmp_path):
    """check names the nearest valid order word."""
    t = allied_turn
    orders = tmp_path / "typo.txt"
    orders.write_text("edn\n")
    r = t.run("check", str(t.dirs["allied"]), str(orders))
    assert r.exit_code == 1 and "did you mean 'end'" in r.output


# -- where a destination-only move cannot be written out -----------------------------------


class Goto(msgspec.Struct, tag="goto"):
    """A destination-only order for the test game."""

    needs_path: ClassVar[bool] = True
    where: str


def test_destination_only_move_after_dice_asks_for_the_full_path(tmp_path, monkeypatch):
    """Orders after the first die are not simulated before signing, so a destination-only
    move there cannot become a path: check refuses it and asks for the full path. The test
    game gets a 'goto' shorthand (written out as 'end') so that a die comes first for sure."""
    from fixtures.tinygame import GAME as DASH

    parse, fmt = DASH.parse_order, DASH.format_order
    monkeypatch.setattr(DASH, "parse_order", lambda text: Goto(where=text.split()[1])
                        if text.startswith("goto ") else parse(text), raising=False)
    monkeypatch.setattr(DASH, "format_order", lambda o: f"goto {o.where}"
                        if isinstance(o, Goto) else fmt(o), raising=False)
    monkeypatch.setattr(DASH, "expand_order", lambda state, side, o: parse("end")
                        if isinstance(o, Goto) else o, raising=False)
    t = Table(tmp_path)
    t.deliver()
    t.play_one(["pick alphawolf"])
    t.deliver()
    t.play_one(["pick echofox"])
    t.deliver()
    before = tmp_path / "before.txt"
    before.write_text("goto 7\n")
    assert "1 order is legal" in t.ok("check", str(t.dirs["red"]), str(before)).output
    after = tmp_path / "after.txt"
    after.write_text("advance\ngoto 7\n")
    r = t.run("check", str(t.dirs["red"]), str(after))
    assert r.exit_code == 1
    assert "after.txt: line 2: 'goto 7': a destination-only move is written out" in r.output
    assert "(it comes after dice): write the full path" in r.output
    out = tmp_path / "turn.pbem"
    t.ok("submit", str(t.dirs["red"]), str(before), "--key", t.key("red"), "--out", str(out))
    assert read_file(str(out)).payload.orders == ["end"]


def test_destination_only_strategic_move_names_the_strategic_rule(allied_turn, tmp_path):
    """ERR-HF-9.3: no strategic movement on turns 1 and 2, said as such for 'move U to H strat'."""
    t = allied_turn
    s, w, uid, start, dest, mp = _a_long_move(t)
    assert s.state.public.turn == 1
    orders = tmp_path / "strat.txt"
    orders.write_text(f"move {uid} to {dest} strat\npass\n")
    r = t.run("check", str(t.dirs["allied"]), str(orders))
    assert r.exit_code == 1 and "no strategic movement on turns 1 and 2 [ERR-HF-9.3]" in r.output


def test_destination_only_move_onto_a_block_names_the_rule(allied_turn, tmp_path):
    """HF-9.1-c: a move may not end on a friendly block, said for 'move UNIT to HEX' too."""
    t = allied_turn
    s = open_session(str(t.dirs["allied"]))
    w = world(s.state.public.scenario)
    on_map = sorted((uid, u.hex) for uid, u in s.state.private["allied"].units.items()
                    if u.where == "map" and w.units[uid].type != "support")
    (a, _), (_, other) = on_map[0], on_map[1]
    orders = tmp_path / "onto.txt"
    orders.write_text(f"move {a} to {other}\npass\n")
    r = t.run("check", str(t.dirs["allied"]), str(orders))
    assert r.exit_code == 1 and f"{other} already holds a friendly block [HF-9.1-c]" in r.output
