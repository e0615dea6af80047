"""A block placed beyond what the rules allow, in a sealed Holdfast game, through the real
commands (attack trial session 30: a changed Axis processor placed pgr86, due on turn 2, on
turn 1 beside the three due reinforcements; the honest receiver took the file). How many
units a side may place is public (PublicState.due: the set-up list, the turn track, delays,
rebuilds, units sent back by overstacking), so the receiver refuses a 'seen place' beyond it
on receipt; a placement within it whose unit the rules refuse is the final replay's, which
names that order and its rule (not a later line whose slot it shifted)."""

from __future__ import annotations

from pathlib import Path


from fixtures.table import Table, snapshot
from pbem.core.dice import NoDice
from pbem.core.errors import IllegalOrder
from pbem.core.game import Context
from pbem.core.records import read_file
from pbem.games.holdfast import reinforcement as rf
from pbem.games.holdfast.data import world
from pbem.games.holdfast.state import HoldfastState, clone
from pbem.protocol import ops

SIDES = ("allied", "axis")
W = world("race-to-tunis")
REAL_CHECK = rf.check_place


def _lax(state: HoldfastState, w, side: str, unit: str, target: str) -> str:
    """The cheating processor's check: a unit on the track may enter before it is due (on a
    knowledge state only: the final replay's full state keeps the rule)."""
    if not state.private["allied" if side == "axis" else "axis"].concealed:
        return REAL_CHECK(state, w, side, unit, target)
    u = state.private[side].units[unit]
    saved = u.entry_turn
    u.entry_turn = min(saved, state.public.turn)
    try:
        return REAL_CHECK(state, w, side, unit, target)
    finally:
        u.entry_turn = saved


def _axis_turn(tmp_path: Path) -> tuple[Table, HoldfastState]:
    """A sealed game at the Axis's first placement step; the Axis processor's state."""
    t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", mode="sealed", sides=SIDES)
    t.rng.seed(7)
    t.play_until(lambda s: s == "axis" and _state(t).public.phase == "turn")
    st = _state(t)
    assert st.public.step == "place" and st.public.turn == 1
    return t, st


def _state(t: Table) -> HoldfastState:
    return ops.open_session(t.dirs["axis"], key_path=t.key("axis")).state


def _placements(st: HoldfastState, units: list[tuple[str, bool]],
                within: set[str] | None = None) -> list[tuple[str, str]]:
    """(unit, hex) for each (unit, lowest): its lowest or highest entry hex (the first unit's
    in within, if given) the check in place accepts, placed in turn on a copy of st."""
    sim = clone(st)
    out = []
    for uid, lowest in units:
        hexes = sorted(rf.entry_hexes(sim, W, "axis", uid), reverse=not lowest)
        if within is not None and not out:
            hexes = [h for h in hexes if h in within]
        for h in hexes:
            try:
                _lax(sim, W, "axis", uid, h)
            except IllegalOrder:
                continue
            rf.do_place(sim, W, "axis", uid, h, Context(NoDice()))
            out.append((uid, h))
            break
    assert len(out) == len(units), (units, out)
    return out


def _due(st: HoldfastState) -> tuple[list[str], str]:
    """The Axis units due now, and one on the track due later (not yet placeable)."""
    units = st.private["axis"].units
    combat = sorted(k for k, u in units.items()
                    if u.where == "track" and W.units[k].type != "support")
    due = [k for k in combat if units[k].entry_turn <= st.public.turn]
    later = next(k for k in combat if units[k].entry_turn > st.public.turn
                 and W.units[k].nationality == "german")
    assert due and st.public.due["axis"] == len(due)
    return due, later


def _cheat(t: Table, lines: list[str]) -> str:
    """The Axis submits lines with its lax check in place; the file."""
    orders = t.tmp / "cheat.txt"
    orders.write_text("\n".join(lines) + "\n")
    out = t.mail("turn-axis-cheat")
    t.ok("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"), "--out", out)
    return out


def test_a_block_placed_beyond_the_units_due_is_refused_on_receipt(tmp_path, monkeypatch):
    """Every due unit placed, and one more: the receiver refuses the file at that 'seen place'
    (HF-8.1-a), one line naming the file, exit status 3, its archive untouched."""
    t, st = _axis_turn(tmp_path)
    due, later = _due(st)
    placed = _placements(st, [(u, True) for u in due] + [(later, True)])
    with monkeypatch.context() as m:        # the cheating processor's submit
        m.setattr(rf, "check_place", _lax)
        out = _cheat(t, [f"place {u} {h}" for u, h in placed] + ["end"])
    sent = read_file(out).payload.orders
    assert sum(x.startswith("seen place") for x in sent) == len(due) + 1, sent
    before = snapshot(t.dirs["allied"])
    r = t.run("receive", str(t.dirs["allied"]), out, "--key", t.key("allied"), "--out",
              str(t.tmp / "mail" / "never.pbem"))
    lines = r.output.strip().splitlines()
    assert r.exit_code == 3 and len(lines) == 1, r.output
    assert Path(out).name in lines[0] and "HF-8.1-a" in lines[0], lines[0]
    assert f"illegal order {len(due) + 1} 'seen place " in lines[0], lines[0]
    assert "axis has no unit left to place on turn 1" in lines[0], lines[0]
    assert snapshot(t.dirs["allied"]) == before and not (t.tmp / "mail" / "never.pbem").exists()


REAL_ENTRY = rf.entry_hexes


def _any_entry(state: HoldfastState, w, side: str, unit: str) -> set[str]:
    """The cheating Axis processor's entry hexes: any Axis unit's, whatever the unit (on a
    knowledge state only)."""
    if side != "axis" or not state.private["allied"].concealed:
        return REAL_ENTRY(state, w, side, unit)
    return set().union(*(REAL_ENTRY(state, w, side, k) for k, spec in w.units.items()
                         if spec.side == side and spec.type != "support"))


def test_a_unit_placed_where_it_may_not_enter_is_named_by_the_final_replay(tmp_path,
                                                                           monkeypatch):
    """A German unit placed in a gray hex, where only the asterisked units enter (HF-8.1-i):
    which unit a block is, is hidden, and some unit may enter there, so the receiver takes
    the file. The final replay names that order and its rule, although the placement signed
    after it is projected on the state before it (its slot shifted by one)."""
    t, st = _axis_turn(tmp_path)
    due, _ = _due(st)
    gray = sorted(k for k in due if W.units[k].gray_hex_entry)
    german = sorted(k for k in due if not W.units[k].gray_hex_entry)
    assert gray and german
    # the cheating processor keeps its entry hexes for the rest of the game (the honest Allied
    # one reads the real ones); the final replay's full state has the real ones
    monkeypatch.setattr(rf, "entry_hexes", _any_entry)
    placed = _placements(st, [(german[0], True), (gray[0], False)], within=set(W.gray))
    cheat, cheat_hex = placed[0]
    assert cheat_hex in W.gray and placed[1][1] > cheat_hex    # signed after the cheat
    out = _cheat(t, [f"place {u} {h}" for u, h in placed] + ["end"])
    sent = read_file(out).payload.orders
    assert sent[:2] == [f"seen place ?axis-4 {cheat_hex}", f"seen place ?axis-5 {placed[1][1]}"]
    t.inbox.append((out, "allied"))
    t.deliver()                                           # taken: a hidden fact forbids it
    t.play_to_end()
    name = f"{read_file(out).payload.seq:04d}-axis.pbem"
    for side in SIDES:
        before = snapshot(t.dirs[side])
        r = t.run("verify", str(t.dirs[side]))
        assert snapshot(t.dirs[side]) == before
        assert r.exit_code == 3, r.output
        assert name in r.output and "HF-8.1-i" in r.output, r.output
        assert f"illegal order 1 'place {cheat} {cheat_hex}'" in r.output, r.output
        assert "is not what" not in r.output, r.output
