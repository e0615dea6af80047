"""`pbem standing`: queue standing orders for this party's next signed file.

Attached to the main command group by the last lines of pbem/cli.py.
"""

from __future__ import annotations

import click

from pbem.cli import clean_errors, cli, echo


@cli.command("standing")
@click.argument("directory")
@click.argument("orders")
@clean_errors
def standing_cmd(directory: str, orders: str) -> None:
    """Queue standing orders (lines 'standing TOPIC MODE') for your next signed file.

    They ride in the next file you sign: your next orders file, or the automatic reply that
    'pbem receive' writes when you owe only a dice reveal, so you can change them without a
    decision of your own.

    Example: pbem standing game-a standing.txt
    """
    from pbem.protocol.session import read_genesis
    from pbem.protocol.archive import Archive
    from pbem.protocol.standing_queue import queue_standing

    game, _, _ = read_genesis(Archive(directory))
    lines = queue_standing(directory, orders, game)
    echo(f"Queued for your next file ({len(lines)} standing order"
         f"{'s' if len(lines) != 1 else ''}): " + "; ".join(lines))
