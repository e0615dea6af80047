"""Standing orders queued for this party's next signed file, an automatic reply included.

`pbem standing DIR ORDERS` checks the lines (each a standing order of the game's topics) and
keeps them, canonical, in `DIR/queue/standing.txt`; the next file this party signs (its next
orders file, or the automatic reply `pbem receive` writes) carries them first, and the queue
is then emptied. The queue is local and unsigned until it rides in a signed file.
"""

from __future__ import annotations

from pathlib import Path

from pbem.core.errors import OrderSyntaxError, PbemError
from pbem.core.standing import StandingOrder, format_line, parse_line, topics_of
from pbem.core.textsafe import printable
from pbem.protocol.archive import Archive, atomic_write
from pbem.protocol.orders_file import read_lines


def queue_path(archive: Archive) -> Path:
    """Where the queued standing orders are kept."""
    return archive.root / "queue" / "standing.txt"


def queued(archive: Archive) -> list[str]:
    """The queued standing order lines (canonical), oldest first."""
    p = queue_path(archive)
    if not p.is_file():
        return []
    return [ln for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]


def check_queue(archive: Archive, game: object) -> None:
    """PbemError naming the queue file and line if a queued line is not a standing order of
    this game (the queue is pbem's own file, but a hand edit must not fail halfway through a
    command that has already stored something)."""
    for n, line in enumerate(queued(archive), 1):
        try:
            order = parse_line(game, line)
        except OrderSyntaxError as e:
            raise PbemError(f"{queue_path(archive)}: line {n}: {printable(line)!r}: "
                            f"{e.reason}") from None
        if not isinstance(order, StandingOrder):
            raise PbemError(f"{queue_path(archive)}: line {n}: {printable(line)!r} is not a "
                            "standing order")


def clear(archive: Archive) -> None:
    """Empty the queue once its lines ride in a signed file."""
    p = queue_path(archive)
    if p.exists():
        p.unlink()


def queue_standing(root: str | Path, orders_path: str, game: object) -> list[str]:
    """Check and queue standing orders; PbemError naming the file and line of a bad one."""
    archive = Archive(root)
    if topics_of(game) is None:
        raise PbemError(f"{getattr(game, 'id', 'this game')} has no standing orders")
    name = Path(orders_path).name
    lines = []
    for n, line in read_lines(orders_path):
        try:
            order = parse_line(game, line)
        except OrderSyntaxError as e:
            raise PbemError(f"{name}: line {n}: {printable(line)!r}: {e.reason}"
                            + (f" [{e.rule}]" if e.rule else "")) from None
        if not isinstance(order, StandingOrder):
            raise PbemError(f"{name}: line {n}: {printable(line)!r} is not a standing order "
                            "(only 'standing TOPIC MODE' lines can be queued)")
        lines.append(format_line(game, order))
    if not lines:
        raise PbemError(f"{name}: no standing order to queue")
    with archive:
        all_lines = queued(archive) + lines
        queue_path(archive).parent.mkdir(exist_ok=True)
        atomic_write(queue_path(archive), "\n".join(all_lines) + "\n")
    return all_lines
