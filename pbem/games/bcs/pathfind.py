"""Destination-only moves (`move UNIT[+UNIT] to HEX`): the path pbem check and submit write
in their place before signing, so that the signed file holds the full path and no receiver
searches (docs/bcs.md, "Destination-only moves").

The search walks candidate paths with the movement rules themselves (movement.walk_steps, then
movement.check_move on a path that reaches the destination), cheapest first: by the MP the
stack spends (summed over its units), then by fewest hexes, then by the hex ids in order. A
path is kept only if it is the first to reach its hex (stopped there or not); the rules whose
effect depends on more than the last step (a Screen ignored, a unit's first-hex allowance) can
make that miss a longer legal path, which the player then writes out.
"""

from __future__ import annotations

import heapq

from pbem.core.errors import IllegalOrder
from pbem.games.bcs import orders as o
from pbem.games.bcs.board import bdata, entry_hexes, on_area
from pbem.games.bcs.movement import check_move, check_stack, walk_steps
from pbem.games.bcs.state import BcsState, Piece

# A stack's search walks at most this many candidate paths (a long road move in open country
# is a few thousand); past it the player is asked to write the path.
MAX_WALKS = 40000


def expand(state: BcsState, side: str, order: o.MoveTo) -> o.Move:
    """The Move along the cheapest legal path to order.dest; a problem that is not about the
    path (not your unit, not its Activation, Finished, ...) is left to the rules, which refuse
    the Move naming the destination alone with it."""
    try:
        pieces = check_stack(state, side, order.units)
    except IllegalOrder:
        return o.Move(units=list(order.units), path=[order.dest])
    dest = order.dest
    first = pieces[0]
    if first.status == "map" and first.hex == dest:
        raise IllegalOrder(f"{'+'.join(order.units)} is already in {dest}", rule="BCS-5.1-1")
    if not on_area(state, dest):
        raise IllegalOrder(f"{dest} is outside the playing area", rule="BCS-1.1d")
    path, why = cheapest_path(state, order.units, pieces, dest)
    if path is None and why is not None:      # paths reach dest, and the rules refuse each
        raise IllegalOrder(f"{'+'.join(order.units)} to {dest}: {why.reason}", rule=why.rule)
    if path is None:
        start = first.hex if first.status == "map" else "off the map"
        raise IllegalOrder(f"{'+'.join(order.units)} has no legal path from {start} to {dest} "
                           "this Activation (its MP, terrain, enemy units, ZOC and stacking "
                           "allow none that pbem finds; a path written out is still checked)",
                           rule="BCS-5.1b")
    return o.Move(units=list(order.units), path=path)


def cheapest_path(state: BcsState, units: list[str], pieces: list[Piece], dest: str
                  ) -> tuple[list[str] | None, IllegalOrder | None]:
    """(the cheapest path (see the module) along which the stack's move to dest is legal, its
    own hex left out; None and the refusal of the cheapest path that reached dest, if any)."""
    grid = bdata().game_map.grid
    moving = set(units)
    side = pieces[0].side
    heap: list[tuple[int, int, tuple[str, ...], bool]] = []
    if pieces[0].status == "off":                      # it enters by one of its Entry hexes
        for e in entry_hexes(state, pieces[0]):
            c = _cost(state, pieces, (e,), moving)
            if c is not None:
                heap.append((c[0], 1, (e,), c[1]))
    else:
        heap.append((sum(p.mp for p in pieces), 1, (pieces[0].hex,), False))
    heapq.heapify(heap)
    settled: set[tuple[str, bool]] = set()
    walks = 0
    why: IllegalOrder | None = None
    on_map = pieces[0].status != "off"
    while heap:
        _, n, path, stopped = heapq.heappop(heap)
        here = path[-1]
        if here == dest and (n > 1 or not on_map):
            try:
                check_move(state, side, list(units), list(path))
                return list(path[1:] if on_map else path), None
            except IllegalOrder as e:
                why = why or e
        if (here, stopped) in settled:
            continue
        settled.add((here, stopped))
        if stopped:
            continue                                    # a stopped stack goes no further
        for b in grid.neighbours(here):
            if b in path or not on_area(state, b):
                continue
            walks += 1
            if walks > MAX_WALKS:
                raise IllegalOrder(f"{'+'.join(units)} to {dest}: too many paths to search; "
                                   "write the path out", rule="BCS-5.1-1")
            nxt = path + (b,)
            c = _cost(state, pieces, nxt, moving)
            if c is not None and (b, c[1]) not in settled:
                heapq.heappush(heap, (c[0], n + 1, nxt, c[1]))
    return None, why


def _cost(state: BcsState, pieces: list[Piece], path: tuple[str, ...], moving: set[str]
          ) -> tuple[int, bool] | None:
    """(MP12 the stack has spent, whether a unit of it has stopped) along path; None if a unit
    of the stack cannot walk it."""
    total, stopped = 0, False
    for p in pieces:
        try:
            w = walk_steps(state, p, list(path), moving)
        except IllegalOrder:
            return None
        total += w.mp
        stopped = stopped or bool(w.stopped)
    return total, stopped
