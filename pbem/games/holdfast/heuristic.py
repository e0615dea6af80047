"""The heuristic bot's player turn: hold the bases, keep supply, feed the front, attack at odds.

Only what the side may know is read: its own units, the enemy blocks' hexes and the public
tracks. Every order is tried on the bot's scratch copy (`_Sim` in bot.py), so only legal
orders are kept; no die is rolled and rng is not needed, so the answer is deterministic.
The plan of one player turn (bot.play calls these in order; moves and advance are in
heuristic_moves.py):
  place    due units on threatened empty bases first, else the free entry nearest the front
  buy      rebuild and refit with the RP not needed for moving and attacking
  moves    take empty enemy bases; garrison each threatened own victory base (the unit
           hardest to hit); a reserve next to bases with enemy blocks near; hunt raiders
           near the bases; units out of supply back into supply; clear overstacked hexes
  attack   the best attack whose expected hits clearly beat the defender's (lower odds
           accepted near our bases, on objectives, or for units lost anyway out of supply)
  advance  when no attack is worth it: gather units around enemy blocks already in contact,
           then the rest toward the objective, rear units first, keeping an RP reserve
The game asks again after each attack's dice, so a turn is several such answers.
"""

from __future__ import annotations

from typing import Any

from pbem.games.holdfast import combat
from pbem.games.holdfast.data import World
from pbem.games.holdfast.orders import Attack, parse_order
from pbem.games.holdfast.reinforcement import entry_hexes, setup_zone
from pbem.games.holdfast.state import HoldfastState, enemy
from pbem.games.holdfast.supply import block_hexes

THREAT = 18          # an enemy block this many hexes from a base or nearer threatens it (a
                     # strategic move runs 16 road hexes)
ASSAULT = 4          # units gathered around one enemy block for an attack
RP_RESERVE = 2       # RP kept back from advancing moves for an attack
RESERVE_RANGE = 9    # each enemy block this near a base calls one more unit next to it
NEAR_BASE = 6        # an enemy block this close to one of our bases is hunted and attacked


def objectives(w: World, side: str) -> list[str]:
    """The hexes side must take to win (the enemy's victory bases)."""
    v = w.scenario.victory
    names = (v.allied_hold_all or v.allied_hold_any_at_end) if side == "allied" else v.axis_hold_any
    return [w.hex_of(n) for n in names] or list(w.home_bases[enemy(side)])


def defended(w: World, side: str) -> list[str]:
    """The hexes side must not lose (its own victory bases), in scenario order."""
    v = w.scenario.victory
    names = v.axis_hold_any if side == "allied" else [*v.allied_hold_all, *v.axis_hold_any_at_end]
    out = list(dict.fromkeys(w.hex_of(n) for n in names))
    return out or list(w.home_bases[side])


def nearest(w: World, h: str, hexes: Any) -> int:
    """Hex distance from h to the nearest of hexes (large if none)."""
    return min((w.dist(h, x) for x in hexes), default=99)


def threatened(st: HoldfastState, w: World, side: str) -> list[str]:
    """side's own bases with an enemy block within THREAT hexes, most threatened first."""
    foe = block_hexes(st, enemy(side))
    out = [(nearest(w, b, foe), b) for b in defended(w, side)
           if st.public.control.get(b) == side]
    return [b for d, b in sorted(out) if d <= THREAT]


def setup(sim: Any) -> None:
    """Axis set-up: garrison each defended base in the zone, the rest toward the enemy."""
    w, side = sim.w, sim.side
    bases = [b for b in defended(w, side)]
    goals = objectives(w, side)
    for uid, u in sorted(sim.state.private[side].units.items()):
        if u.where != "setup":
            continue
        zone = sorted(setup_zone(w, uid))
        occupied = block_hexes(sim.state, side)
        free = [b for b in bases if b in zone and b not in occupied]
        for h in free or sorted(zone, key=lambda x: (nearest(w, x, goals), x)):
            if sim.try_line(f"place {uid} {h}"):
                break


def place(sim: Any) -> None:
    """Place due units: empty threatened bases first, then the free entry nearest the front."""
    w, side, st = sim.w, sim.side, sim.state
    due = sorted(u.id for u in st.private[side].units.values()
                 if u.where == "track" and u.entry_turn <= st.public.turn
                 and w.units[u.id].type != "support")
    goals = objectives(w, side)
    for uid in due:
        hexes = entry_hexes(sim.state, w, side, uid)
        own = block_hexes(sim.state, side)
        threat = threatened(sim.state, w, side)
        order = sorted(hexes, key=lambda h: (h in own, not (h in threat),
                                             threat.index(h) if h in threat else 0,
                                             nearest(w, h, goals), h))
        for h in order:
            if sim.try_line(f"place {uid} {h}"):
                break


def buy(sim: Any) -> None:
    """Rebuild eliminated units and refit weak ones with the RP left over for the turn."""
    w, side, st = sim.w, sim.side, sim.state
    units = st.private[side].units
    on_map = [u for u in units.values() if u.where == "map"]
    keep = max(3, (len(on_map) + 1) // 2)
    for u in sorted(units.values(), key=lambda x: (w.units[x.id].type != "armor", x.id)):
        if u.where == "eliminated" and not u.gray and st.public.rp[side] - keep >= 3:
            sim.try_line(f"rebuild {u.id}")
            st = sim.state
    foe = block_hexes(sim.state, enemy(side))
    weak = sorted((u for u in sim.state.private[side].units.values() if u.where == "map"
                   and u.sp < w.units[u.id].max_sp),
                  key=lambda x: (x.sp, nearest(w, x.hex, foe), x.id))
    for u in weak:
        if sim.state.public.rp[side] - keep < 2:
            break
        sim.try_line(f"buy {u.id} 1")


def _p_hit(th: int) -> float:
    return max(0, 7 - th) / 6


def attack(sim: Any) -> str | None:
    """The best attack at good odds (expected hits), or None."""
    w, side, st = sim.w, sim.side, sim.state
    foe = block_hexes(st, enemy(side))
    mine = st.private[side].units
    ready = [u for u in mine.values() if u.where == "map" and not u.attacked
             and sum(1 for x in mine.values() if x.where == "map" and x.hex == u.hex) == 1]
    support = sorted(u.id for u in mine.values() if u.where == "offmap" and not u.used)
    home = defended(w, side)
    goals = objectives(w, side)
    own_blocks = sum(1 for u in mine.values() if u.where == "map")
    bold = min(1.4, max(0.6, 1.2 * len(foe) / max(own_blocks, 1)))   # bolder when stronger
    best: tuple[float, str] | None = None
    for target in sorted(foe):
        attackers = sorted(u.id for u in ready if w.adjacent(u.hex, target)
                           and not w.zoc_blocked(u.hex, target))
        if not attackers:
            continue
        nats = {w.units[a].nationality for a in attackers}
        if len(nats) > 1 and st.public.rp[side] < w.rp_cost("joint_attack") + 1:
            main = max(sorted(nats), key=lambda n: sum(w.units[a].drc for a in attackers
                                                       if w.units[a].nationality == n))
            attackers = [a for a in attackers if w.units[a].nationality == main]
        sup = combat.one_support_per_kind(w, support, st.public.weather)
        line = f"attack {target} with {' '.join(attackers)}" + (
            f" support {' '.join(sup)}" if sup else "")
        if not sim.attack_ok(line):
            line = f"attack {target} with {' '.join(attackers)}"
            if not sim.attack_ok(line):
                continue
        order = parse_order(line)
        assert isinstance(order, Attack)
        plan = combat.check_attack(st, w, side, order)
        out = (sum(plan.dice.values()) + plan.extra) * _p_hit(5) + (0.5 if plan.air else 0)
        kinds_here = w.map.place_kinds(target)
        d_dice = 4 + ("town" in kinds_here) + ("port" in kinds_here) + sum(
            1 for a in attackers for k in w.side_kinds(mine[a].hex, target)
            if getattr(w.tables.hexside[k], "defender_bonus_dice", 0))
        worst_th = min(w.units[a].th for a in attackers)
        inn = d_dice * _p_hit(worst_th)
        doomed = not all(plan.supplied.values())     # out of supply now: lost at turn end
        urgent = nearest(w, target, home) <= NEAR_BASE or target in goals or doomed
        need = min(1.0, bold) if urgent else bold
        if out < 1.0 or out < need * inn:
            continue
        score = out - inn + (1.0 if urgent else 0.0)
        if best is None or score > best[0]:
            best = (score, line)
    return best[1] if best else None
