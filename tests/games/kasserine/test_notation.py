"""Kasserine notation through the real commands: path forms (dashes or spaces, start hex
optional), destination-only moves written out before signing, path errors that explain
themselves, misspelt order words.
"""

from __future__ import annotations

import pytest

from fixtures.table import Table
from pbem.core.errors import IllegalOrder, OrderSyntaxError
from pbem.core.records import read_file
from pbem.games.kasserine.board import data_of
from pbem.games.kasserine.movement import Walker, check_move
from pbem.games.kasserine.orders import EnterTo, Move, MoveTo, format_order, parse_order
from pbem.protocol.ops import open_session


@pytest.mark.parametrize("text", ["move s501 3214 3215", "move s501 3214-3215",
                                  "Move S501 3214 - 3215".replace(" - ", "-")])
def test_dashes_or_spaces_give_one_canonical_line(text):
    """KAS-5.1-a paths: hexes joined by spaces, dashes or both; canonical form with spaces."""
    assert format_order(parse_order(text)) == "move s501 3214 3215"


def test_enter_and_retreat_paths_take_dashes_too():
    """KAS-11.0-a entries and KAS-8.3-a retreats read the same path forms."""
    assert format_order(parse_order("enter s501 3918-3818")) == "enter s501 3918 3818"
    assert format_order(parse_order("retreat inf3-26 3412-3512")) == "retreat inf3-26 3412 3512"


def test_destination_only_notation():
    """KAS-5.1-a: 'move UNIT to HEX' names the destination alone."""
    assert parse_order("move s501 to 3215") == MoveTo(unit="s501", dest="3215")
    assert format_order(MoveTo(unit="s501", dest="3215")) == "move s501 to 3215"
    with pytest.raises(OrderSyntaxError, match="one destination hex"):
        parse_order("move s501 to 3215 3216")
    # an arrival: the entry hex, then the destination (KAS-11.0-a)
    assert parse_order("enter s501 3918 to 3717") == EnterTo(unit="s501", entry="3918",
                                                             dest="3717")
    assert format_order(parse_order("enter s501 3918 to 3717")) == "enter s501 3918 to 3717"
    for bad in ("enter s501 to 3717", "enter s501 3918 to 3717 3716", "enter s501 3918 3817 to 3717"):
        with pytest.raises(OrderSyntaxError, match="the entry hex, then one destination hex"):
            parse_order(bad)


@pytest.mark.parametrize("text,word", [("mvoe s501 3214", "move"), ("atack 3313 with a", "attack"),
                                       ("bombrd 3313 1", "bombard"), ("retret a auto", "retreat")])
def test_unknown_order_word_suggests_the_nearest(text, word):
    """An unknown order word names the nearest valid one [KAS-ORDERS]."""
    with pytest.raises(OrderSyntaxError, match=f"did you mean '{word}'"):
        parse_order(text)


# -- through the real commands -------------------------------------------------------------


def _new_game(tmp):
    """The historical scenario at the first US Movement Phase (the Axis turn played by bots)."""
    t = Table(tmp, game="kasserine", scenario="historical", sides=("axis", "us"))
    t.deliver()
    for _ in range(12):
        side = t.mover()
        if side == "us" and open_session(str(t.dirs["us"])).state.phase == "movement":
            return t
        t.play_one()
        t.deliver()
    raise AssertionError("no US Movement Phase")


@pytest.fixture(scope="module")
def us_moves(tmp_path_factory):
    """A game at the US Movement Phase that the tests only check against."""
    return _new_game(tmp_path_factory.mktemp("kas"))


def _legal(s, uid, path):
    try:
        return check_move(s.state, data_of(s.state), "us", uid, list(path), False).spent
    except IllegalOrder:
        return None


def _paths(s, uid, start, depth, limit=None):
    """Every legal path of up to depth hexes (and at most limit half-MP) by brute force, as
    (half-MP, hexes, path); each step is checked by the rules' own Walker."""
    data = data_of(s.state)
    grid = data.map.grid
    out = []

    def walk(w, path):
        if s.state.units[uid].hex != path[-1] and w.occ.get(path[-1]) is None:
            out.append((w.spent, len(path), tuple(path)))
        if len(path) < depth and not w.stopped:
            for n in sorted(grid.neighbours(path[-1])):
                if n in path or n == start:
                    continue
                try:
                    nxt = w.branch(n)
                except IllegalOrder:
                    continue
                if limit is None or nxt.spent <= limit:
                    walk(nxt, path + [n])

    walk(Walker(s.state, data, uid, False), [start])
    return [(c, n - 1, p[1:]) for c, n, p in out]


def _a_long_move(t):
    """(session, unit, its hex, destination, cheapest legal paths) for a 3-hex move."""
    s = open_session(str(t.dirs["us"]))
    for uid, u in sorted(s.state.units.items()):
        if u.side != "us" or u.status != "map":
            continue
        paths = _paths(s, uid, u.hex, 4)
        far = sorted({p[-1] for c, n, p in paths if n >= 3} - {p[-1] for c, n, p in paths
                                                                 if n < 3})
        if far:
            dest = far[0]
            return s, uid, u.hex, dest, sorted(x for x in paths if x[2][-1] == dest)
    raise AssertionError("no US unit can move three hexes")


def test_destination_only_move_is_written_out_before_signing(tmp_path):
    """KAS-5.1-a: check accepts 'move UNIT to HEX'; submit signs the cheapest full path (ties:
    fewest hexes, then hex ids in order); the Axis processor accepts it as signed."""
    t = _new_game(tmp_path / "game")
    s, uid, start, dest, paths = _a_long_move(t)
    orders = tmp_path / "orders.txt"
    orders.write_text(f"move {uid} to {dest}\npass\n")
    assert "1 order is legal" in t.ok("check", str(t.dirs["us"]), str(orders)).output
    out = tmp_path / "turn.pbem"
    t.ok("submit", str(t.dirs["us"]), str(orders), "--key", t.key("us"), "--out", str(out))
    signed = read_file(str(out)).payload.orders
    best = sorted(x for x in _paths(s, uid, start, 12, limit=paths[0][0]) if x[2][-1] == dest)
    assert signed == [format_order(Move(unit=uid, path=list(best[0][2])))]
    t.inbox.append((str(out), "axis"))
    t.deliver()
    assert t.status("us")["seq"] == t.status("axis")["seq"]


def test_destination_only_arrival_is_written_out_before_signing(tmp_path):
    """KAS-11.0-a: 'enter UNIT ENTRY to HEX' (a newcomer's first try for a reinforcement) is
    written out by check and submit as the entry hex and the cheapest path on; the Axis
    processor accepts it as signed."""
    from pbem.games.kasserine.movement import can_arrive, cheapest_path

    t = _new_game(tmp_path / "game")
    s = open_session(str(t.dirs["us"]))
    data = data_of(s.state)
    found = None
    for uid, u in sorted(s.state.units.items()):
        if u.side != "us" or not can_arrive(s.state, data, uid):
            continue
        for entry in data.entry_hexes(data.arrival_of[uid][1].entry):
            for dest in sorted(data.map.grid.within(entry, 2)):
                path = cheapest_path(s.state, data, "us", uid, dest, entry=entry)
                if path and len(path) == 3:
                    found = uid, entry, dest, path
                    break
            if found:
                break
        if found:
            break
    assert found, "no US reinforcement can enter and go two hexes on"
    uid, entry, dest, path = found
    orders = tmp_path / "orders.txt"
    orders.write_text(f"enter {uid} {entry} to {dest}\npass\n")
    r = t.ok("check", str(t.dirs["us"]), str(orders))
    assert f"is written out as 'enter {uid} {' '.join(path)}'" in r.output, r.output
    out = tmp_path / "turn.pbem"
    t.ok("submit", str(t.dirs["us"]), str(orders), "--key", t.key("us"), "--out", str(out))
    assert read_file(str(out)).payload.orders == [f"enter {uid} {' '.join(path)}"]
    t.inbox.append((str(out), "axis"))
    t.deliver()
    assert t.status("us")["seq"] == t.status("axis")["seq"]


def test_signed_destination_only_move_is_refused(us_moves):
    """A receiver never searches: a signed 'move UNIT to HEX' is refused [KAS-5.1-a]."""
    from pbem.core.dice import NoDice
    from pbem.core.game import Context

    s, uid, start, dest, paths = _a_long_move(us_moves)
    with pytest.raises(IllegalOrder, match="full path before signing"):
        s.game.apply(s.state, "us", MoveTo(unit=uid, dest=dest), Context(NoDice()))


def test_start_hex_optional_with_dashes_or_spaces(us_moves, tmp_path):
    """KAS-5.1-a: the unit's own hex may be listed first; dashes and spaces both read."""
    t = us_moves
    s, uid, start, dest, paths = _a_long_move(t)
    path = paths[0][2]
    for text in (f"move {uid} {' '.join(path)}", f"move {uid} {start} {' '.join(path)}",
                 f"move {uid} {start}-{'-'.join(path)}"):
        orders = tmp_path / "p.txt"
        orders.write_text(text + "\npass\n")
        assert "1 order is legal" in t.ok("check", str(t.dirs["us"]), str(orders)).output


def test_non_adjacent_hex_names_the_adjacent_ones(us_moves, tmp_path):
    """KAS-5.1-a: a hex not adjacent to the last one is refused with the hexes that are."""
    t = us_moves
    s, uid, start, dest, paths = _a_long_move(t)
    grid = data_of(s.state).map.grid
    orders = tmp_path / "jump.txt"
    orders.write_text(f"move {uid} {dest}\npass\n")
    r = t.run("check", str(t.dirs["us"]), str(orders))
    assert r.exit_code == 1
    assert (f"{dest} is not adjacent to {start} (adjacent: "
            f"{', '.join(sorted(grid.neighbours(start)))}) [KAS-5.1-a]") in r.output


def _too_costly(s):
    """(unit, path) whose last hex is refused for its cost alone [KAS-5.2-d], by search."""
    data = data_of(s.state)
    grid = data.map.grid
    for uid, u in sorted(s.state.units.items()):
        if u.side != "us" or u.status != "map":
            continue
        frontier = [(Walker(s.state, data, uid, False), [])]
        seen = {u.hex}
        while frontier:
            w, path = frontier.pop(0)
            for n in sorted(grid.neighbours(w.pos)):
                if n in seen:
                    continue
                try:
                    nxt = w.branch(n)
                except IllegalOrder as e:
                    if e.rule == "KAS-5.2-d" and path and _legal(s, uid, path) is not None:
                        return uid, path + [n]
                    continue
                seen.add(n)
                if not nxt.stopped:
                    frontier.append((nxt, path + [n]))
    raise AssertionError("no US path runs out of movement points")


def test_too_costly_path_lists_each_hex_and_the_allowance(us_moves, tmp_path):
    """KAS-5.2-d: a path beyond the allowance names the cost of each hex entered and the MA."""
    from pbem.games.kasserine.board import values

    t = us_moves
    s = open_session(str(t.dirs["us"]))
    uid, path = _too_costly(s)
    orders = tmp_path / "far.txt"
    orders.write_text(f"move {uid} {' '.join(path)}\npass\n")
    r = t.run("check", str(t.dirs["us"]), str(orders))
    assert r.exit_code == 1
    ma = values(data_of(s.state), s.state, uid)[2]
    assert f"entering {path[-1]} needs " in r.output
    assert f"; {uid} has {ma:g} MP [KAS-5.2-d]" in r.output
    assert f"({path[0]} " in r.output and f" + {path[-1]} " in r.output


def test_destination_only_move_onto_a_unit_names_the_rule(us_moves, tmp_path):
    """KAS-5.3-b: no stacking at the end of a move; KAS-5.2-e: no entering an enemy's hex."""
    t = us_moves
    s = open_session(str(t.dirs["us"]))
    ours = sorted((uid, u.hex) for uid, u in s.state.units.items()
                  if u.side == "us" and u.status == "map")
    theirs = sorted(u.hex for u in s.state.units.values() if u.side == "axis" and u.status == "map")
    (a, _), (_, other) = ours[0], ours[1]
    for dest, words in ((other, f"{a} may not end its move stacked in {other} [KAS-5.3-b]"),
                        (theirs[0], f"{theirs[0]} holds an enemy unit [KAS-5.2-e]")):
        orders = tmp_path / "onto.txt"
        orders.write_text(f"move {a} to {dest}\npass\n")
        r = t.run("check", str(t.dirs["us"]), str(orders))
        assert r.exit_code == 1 and words in r.output, r.output
