"""Sealed Holdfast: an attack opens the defender's block only if it is carried out (HF-9.4-a).

A sealed-mode attacker (a trial) opened any hidden Allied block with unmodified processors:
an attack on a far hex written after a die was skipped as illegal, yet the defender's
processor had already counted the block's unit and strength as owed, and its automatic reply
opened them; an attack written after 'end' was held, resumed inside the defender's own file
and left both processors waiting for each other for good; and a changed processor's
projection 'seen attack HEX with  support S' (no attacking block) was accepted, fought and
opened. Now the writer's processor refuses an attack illegal whatever it would open before it
asks for anything, the defender's projected-attack check makes every public check of the real
one, and an order skipped after its reveal owes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtures.seeded import seeded
from fixtures.table import Table
from pbem.core.records import read_file
from pbem.games.holdfast import sealed as hsealed
from pbem.games.holdfast.data import world
from pbem.protocol import ops


def _axis_to_attack(tmp_path: Path) -> tuple[Table, list[str], str, str, str]:
    """A sealed Race to Tunis game at an Axis decision whose bot orders hold an attack: (table,
    those orders, a hex of a hidden Allied block no Axis block is next to, its slot, an Axis
    block on the map). Seeded games, searched in order: the same game on every run."""
    for attempt in range(12):
        with seeded(f"hf-attack-reveals-{attempt}"):
            found = _search(Table(tmp_path / f"g{attempt}", game="holdfast",
                                  scenario="race-to-tunis", mode="sealed",
                                  sides=("allied", "axis")))
        if found is not None:
            return found
    raise AssertionError("no seeded game reaches an Axis attack turn with a far hidden block")


def _search(t: Table) -> tuple[Table, list[str], str, str, str] | None:
    """Play t until the Axis bot's orders attack while a hidden Allied block stands far from
    every Axis block (None if the game ends first)."""
    for _ in range(80):
        t.deliver()
        side = t.mover()
        if side is None:
            return None
        if side != "axis":
            t.play_one()
            continue
        orders = t.tmp / f"probe-{t.n}.txt"
        t.ok("bot", str(t.dirs["axis"]), "--side", "axis", "--out", str(orders), "--seed",
             str(t.rng.randrange(10**6)))
        lines = orders.read_text().splitlines()
        s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
        w = world(s.state.public.scenario)
        mine = [u for u in s.state.private["axis"].units.values() if u.where == "map"]
        # every hex the orders name (paths, targets, placements) and every Axis block's hex:
        # the far block is next to none of them, and the attacker named is one that stays put
        named = {h for x in lines for h in x.replace("-", " ").split() if h.isdigit()}
        near = named | {u.hex for u in mine}
        still = [u.id for u in mine if not any(u.id in x.split() for x in lines)]
        if still and any(x.startswith("attack ") for x in lines):
            for key, b in sorted(s.state.private["allied"].units.items()):
                if b.where == "map" and key.startswith("?") and b.hex not in near \
                        and all(not w.adjacent(h, b.hex) for h in near):
                    return t, lines, b.hex, key.lstrip("?"), still[0]
        t.play_one(lines)
    return None


def _opened(path: str) -> set[str]:
    """The facts a signed file opens."""
    return {o.fact for o in read_file(path).payload.openings or []}


def test_an_illegal_attack_after_a_die_opens_nothing(tmp_path, monkeypatch):
    """HF-9.4-a: 'attack FAR with UNIT' after a legal attack (a die) is skipped, and the
    defender's reply opens nothing of the far block (it opened its unit and strength). An
    honest `submit` refuses the order (next test); a changed processor signs it."""
    from pbem.protocol import checking

    t, lines, far, slot, unit = _axis_to_attack(tmp_path)
    i = next(k for k, x in enumerate(lines) if x.startswith("attack "))
    monkeypatch.setattr(checking, "_opens_own", lambda *a: [])
    t.play_one([*lines[:i + 1], f"attack {far} with {unit}", *lines[i + 1:]])
    monkeypatch.undo()
    sent = t.inbox[-1][0]
    t.deliver_one()                                   # the Allied processor receives it
    replies = [p for p, to in t.inbox if to == "axis"]
    assert replies, "the Allied processor wrote no reply"
    assert not {f"{slot}.unit", f"{slot}.sp"} & _opened(replies[0]), _opened(replies[0])
    assert read_file(sent).payload.orders            # signed and sent as written
    t.deliver()
    s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    assert f"?{slot}" in s.state.private["allied"].units, "the far block was opened"


def test_an_attack_after_a_die_that_can_never_run_is_not_signed(tmp_path):
    """A sealed file opens the attacking blocks of an attack written after a die when it is
    signed, even if the attack is then skipped: 'attack FAR with UNIT' (never adjacent) opened
    UNIT's identity and strength for nothing, while `check` already said it was illegal
    whatever the dice (a trial). `submit` now refuses it, naming the facts it would open, and
    `check` says why; nothing is signed or stored."""
    from fixtures.table import snapshot

    t, lines, far, slot, unit = _axis_to_attack(tmp_path)
    i = next(k for k, x in enumerate(lines) if x.startswith("attack "))
    orders = tmp_path / "far.txt"
    orders.write_text("\n".join([*lines[:i + 1], f"attack {far} with {unit}", *lines[i + 1:]])
                      + "\n")
    r = t.run("check", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"))
    assert r.exit_code == 1 and "whatever the dice" in r.output, r.output
    assert "in a sealed game it would open your own axis-" in r.output, r.output
    before = snapshot(t.dirs["axis"])
    r = t.run("submit", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"), "--out",
              str(tmp_path / "out.pbem"))
    assert r.exit_code == 1 and "though it can never be carried out: remove it" in r.output, \
        r.output
    assert snapshot(t.dirs["axis"]) == before and not (tmp_path / "out.pbem").exists()


def test_a_projected_attack_without_an_attacking_block_is_refused(tmp_path, monkeypatch):
    """A changed processor projects its attack as 'seen attack FAR with  support S' (no
    attacking block): the defender fought it and opened the far block. It is refused as
    proof (exit 3, the order named) before anything is owed or stored."""
    from fixtures.table import snapshot

    t, lines, far, slot, unit = _axis_to_attack(tmp_path)
    real = hsealed.project

    def cheat(state, side, order):
        shown = real(state, side, order)
        if shown.startswith("seen attack "):
            o = hsealed.parse_seen(shown)
            return hsealed.format_seen(hsealed.SeenAttack(hex=far, units=(), support=o.support))
        return shown

    monkeypatch.setattr(hsealed, "project", cheat)
    t.play_one(lines)
    monkeypatch.setattr(hsealed, "project", real)
    path, to = t.inbox.pop()
    assert f"seen attack {far} with " in " | ".join(read_file(path).payload.orders)
    before = snapshot(t.dirs[to])
    r = t.run("receive", str(t.dirs[to]), path, "--key", t.key(to), "--out",
              str(tmp_path / "reply.pbem"))
    assert r.exit_code == 3, r.output
    assert "an attack needs at least one attacking block [HF-9.4-b]" in r.output, r.output
    assert snapshot(t.dirs[to]) == before and not (tmp_path / "reply.pbem").exists()


def _first_axis_turn(tmp_path: Path, seed: str) -> tuple[Table, Any, dict[str, str]]:
    """A seeded sealed Race to Tunis game at the first Axis player turn, the Axis set up at
    1602 (fjr5), 1603 (witzig) and 2005: (table, world, Allied block hex -> its key)."""
    with seeded(seed):
        t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", mode="sealed",
                  sides=("allied", "axis"))
    t.deliver()
    t.play_one(["standing hits strongest-first", "place fjr5 1602", "place witzig 1603",
                "place superga 2005", "end"])
    t.deliver()
    while t.mover() != "axis":
        t.play_one()
        t.deliver()
    s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    blocks = {b.hex: k for k, b in s.state.private["allied"].units.items() if b.where == "map"}
    return t, world(s.state.public.scenario), blocks


def test_a_legal_attack_held_after_end_goes_back_to_its_writer(tmp_path):
    """'move witzig 1603-1604', 'end', then a legal attack from 1604: the attack waited for the
    Axis's next decision and resumed inside the Allied's own file, which cannot open the
    Allied block it attacks, so the Axis processor waited for an opening the Allied one never
    sent and the game stood still (a reviewer of the fix). A held attack now goes back to its
    writer on both processors (check warns of it); the game is played to its end and both
    archives verify."""
    t, w, blocks = _first_axis_turn(tmp_path, "hf-held-attack-1")
    target = next(a for a in sorted(blocks) if w.adjacent("1604", a))
    orders = tmp_path / "held.txt"
    orders.write_text(f"move witzig 1603-1604\nend\nattack {target} with witzig\n")
    r = t.ok("check", str(t.dirs["axis"]), str(orders), "--key", t.key("axis"))
    assert "goes back to you when it would resume" in r.output, r.output
    t.play_one(orders.read_text().splitlines())
    t.play_to_end()
    log = t.ok("log", str(t.dirs["axis"])).output
    assert f"'attack {target} with witzig'" in log and "went back to you" in log, log
    for side in t.sides:
        r = t.run("verify", str(t.dirs[side]))
        assert r.exit_code == 0 and "OK" in r.output, r.output


def test_an_attack_with_support_not_yet_arrived_opens_nothing(tmp_path, monkeypatch):
    """HF-9.4-b: on turn 1 'attack HEX with fjr5 support arnim' (Arnim is due on turn 2),
    written after another attack's die, is skipped by the writer's processor; the defender's
    processor did not check arrival, fought it, opened the block and stalled the game (a
    reviewer of the fix). The defender's check now knows when support units arrive (public):
    both skip it, the reply opens nothing of that block and the game goes on. (An honest
    `submit` now refuses the attack, illegal whatever the dice; a changed processor signs it.)"""
    import itertools

    from pbem.protocol import checking

    t, w, blocks = _first_axis_turn(tmp_path, "hf-support-arrival-0")

    def steps(start: str) -> list[tuple[str, str]]:
        """(a hex at most one step from start, an Allied block it may attack from there)."""
        return [(n, a) for n in (start, *w.neighbours(start))
                if n not in w.prohibited and n not in blocks
                for a in blocks if w.adjacent(n, a) and not w.zoc_blocked(n, a)]

    probe = tmp_path / "probe.txt"
    for (n1, a1), (n2, a2) in itertools.product(steps("1603"), steps("1602")):
        if n1 == n2 or a1 == a2:
            continue
        lines = ([f"move witzig 1603-{n1}"] if n1 != "1603" else []) + \
            ([f"move fjr5 1602-{n2}"] if n2 != "1602" else []) + \
            [f"attack {a1} with witzig", f"attack {a2} with fjr5 support arnim", "end"]
        probe.write_text("\n".join(lines) + "\n")
        r = t.run("check", str(t.dirs["axis"]), str(probe), "--key", t.key("axis"))
        if "arnim has not arrived" in r.output and r.output.count("line ") == 1:
            break
    else:
        raise AssertionError("no pair of attacks with the second alone refused")
    slot = blocks[a2].lstrip("?")
    monkeypatch.setattr(checking, "_opens_own", lambda *a: [])
    t.play_one(lines)
    monkeypatch.undo()
    t.deliver_one()                                       # the Allied processor receives it
    sent = [p for p, to in t.inbox if to == "axis"]       # an automatic reply, if any
    t.deliver()
    if t.mover() == "allied":
        sent.append(t.play_one())                          # and the Allied's next file
    assert sent and not any({f"{slot}.unit", f"{slot}.sp"} & _opened(p) for p in sent)
    t.deliver()                                           # the Axis processor takes them
    assert t.mover() is not None
    s = ops.open_session(t.dirs["axis"], key_path=t.key("axis"))
    assert blocks[a2] in s.state.private["allied"].units, "the block was opened"


def test_a_second_version_of_a_block_s_unit_is_proof_of_cheating(tmp_path):
    """A block's unit never changes, so its slot's `.unit` has one version. A changed
    processor committed a fake unit (opened) and the real one (a later version, never opened)
    in one file: a held attack then resumed with the fake identity, rolled 5 dice instead of 3,
    and the final audit named the honest side's file (a trial). A second version of a `.unit`
    is now refused on receipt as proof (exit 3), nothing stored."""
    import msgspec

    from fixtures.table import snapshot
    from pbem.core.commitment import commit
    from pbem.core.keys import load_private
    from pbem.core.records import FactCommit, seal

    t, _, _ = _first_axis_turn(tmp_path, "hf-second-unit-version")
    t.play_one()
    path, to = t.inbox.pop()
    turn = read_file(path).payload
    gid = turn.game_id
    fake = FactCommit(fact="axis-1.unit", version=1,
                      hash=commit(gid, "axis", "axis-1.unit", 1, "21pz-a", bytes(32)))
    commits = sorted([*(turn.commits or []), fake], key=lambda c: (c.fact, c.version))
    bad = tmp_path / "forged-axis.pbem"
    bad.write_text(seal(msgspec.structs.replace(turn, commits=commits),
                        load_private(t.key("axis")), name=bad.name).text)
    before = snapshot(t.dirs[to])
    r = t.run("receive", str(t.dirs[to]), str(bad), "--key", t.key(to))
    assert r.exit_code == 3, r.output
    assert "commits version 1 of axis-1.unit, a fact that never changes" in r.output, r.output
    assert snapshot(t.dirs[to]) == before


def _projected_setup(tmp_path: Path, monkeypatch, seed: str, to_hex) -> tuple[Table, Any]:
    """A sealed Race to Tunis game whose Axis set-up file projects its first placement to
    to_hex(table) instead of 1602 (a changed processor), received by the Allied processor:
    (table, the result of its `pbem receive`)."""
    with seeded(seed):
        t = Table(tmp_path, game="holdfast", scenario="race-to-tunis", mode="sealed",
                  sides=("allied", "axis"))
    t.deliver()
    target = to_hex(t)
    real = hsealed.project

    def cheat(state, side, order):
        return real(state, side, order).replace(" 1602", f" {target}")

    monkeypatch.setattr(hsealed, "project", cheat)
    t.play_one(["place fjr5 1602", "place witzig 1603", "place superga 2005", "end"])
    monkeypatch.setattr(hsealed, "project", real)
    path, to = t.inbox.pop()
    assert f" {target}" in " | ".join(read_file(path).payload.orders)
    return t, t.run("receive", str(t.dirs[to]), path, "--key", t.key(to))


def test_a_projected_placement_off_the_map_is_proof_not_a_crash(tmp_path, monkeypatch):
    """'seen place ?axis-1 9999' (no such hex) crashed the receiver with an internal error
    (exit 4, a KeyError in the supply trace; a trial): it is refused as proof (exit 3)."""
    t, r = _projected_setup(tmp_path, monkeypatch, "hf-place-off-map", lambda t: "9999")
    assert r.exit_code == 3, r.output
    assert "unknown hex '9999' [HF-8.1-a]" in r.output, r.output


def test_a_projected_placement_onto_another_block_is_refused(tmp_path, monkeypatch):
    """A placement onto a hex another block holds breaks a rule that reads no hidden fact
    (HF-9.1-c at set-up, HF-8.1-e later): the receiver's check of the projection makes it (it
    accepted an Axis block appearing on an Allied one; a trial)."""
    def allied_hex(t: Table) -> str:
        s = ops.open_session(t.dirs["allied"], key_path=t.key("allied"))
        return sorted(b.hex for b in s.state.private["allied"].units.values()
                      if b.where == "map")[0]

    t, r = _projected_setup(tmp_path, monkeypatch, "hf-place-occupied", allied_hex)
    assert r.exit_code == 3, r.output
    assert "is already occupied [HF-9.1-c]" in r.output, r.output


def test_a_projected_reinforcement_off_every_entry_hex_is_refused(tmp_path, monkeypatch):
    """After set-up a placement's entry hex depends on the hidden unit, but no unit of the
    side may enter where none of its kinds may: 'seen place ?axis-4 0104' for a reinforcement
    placed at an Axis entry hex (a changed processor; a reviewer of the fix) was accepted and
    the two processors' states parted silently. It is refused as proof (exit 3)."""
    with seeded("rev27-place-far"):
        t = Table(tmp_path, game="holdfast", scenario="campaign", mode="sealed",
                  sides=("allied", "axis"))
    for _ in range(60):
        t.deliver()
        side = t.mover()
        orders = t.tmp / f"probe-{t.n}.txt"
        t.ok("bot", str(t.dirs[side]), "--side", side, "--out", str(orders), "--seed",
             str(t.rng.randrange(10**6)))
        lines = orders.read_text().splitlines()
        s = ops.open_session(t.dirs[side], key_path=t.key(side))
        if s.state.public.phase != "setup" and any(x.startswith("place ") for x in lines):
            break
        t.play_one(lines)
    else:
        raise AssertionError("no placement after set-up in the seeded game")
    place = next(x for x in lines if x.startswith("place "))
    real_hex = world(s.state.public.scenario).resolve(place.split()[2])
    real = hsealed.project
    monkeypatch.setattr(hsealed, "project", lambda st, sd, o: real(st, sd, o).replace(
        f" {real_hex}", " 0104") if isinstance(o, hsealed.Place) else real(st, sd, o))
    t.play_one([place, "end"])
    monkeypatch.setattr(hsealed, "project", real)
    path, to = t.inbox.pop()
    r = t.run("receive", str(t.dirs[to]), path, "--key", t.key(to))
    assert r.exit_code == 3, r.output
    assert f"no {side} unit may enter at 0104 now [HF-8.1-" in r.output, r.output


def test_an_opened_fact_under_another_spelling_of_its_slot_is_ignored():
    """A slot has one spelling: 'axis-01.unit' (or a digit of another script) is not
    'axis-1.unit'. A changed processor opened such an alias at version 0, beside the real
    fact's one version, and the knowledge state renamed the stand-in of slot 1 to the alias's
    unit (a reviewer of the fix); disclose now ignores it."""
    from pbem.core.options import bot_choices
    from pbem.games.holdfast.game import GAME as HF

    state = HF.setup("race-to-tunis", bot_choices(HF.options()))
    state.private["axis"].units["?axis-1"] = hsealed.UnitState(id="?axis-1", where="map",
                                                               hex="1602", sp=3)
    state.private["axis"].concealed = True
    for alias in ("axis-01.unit", "axis-\u0661.unit", "axis-+1.unit"):
        hsealed.disclose(state, "axis", {alias: "21pz-a"})
        assert "21pz-a" not in state.private["axis"].units, alias
    hsealed.disclose(state, "axis", {"axis-1.unit": "21pz-a"})
    assert "21pz-a" in state.private["axis"].units
