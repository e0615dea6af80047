"""`pbem mail ...`: the mail gateway's commands (docs/mail.md)."""

from __future__ import annotations

import threading

import click

from pbem.cli import clean_errors, echo


@click.group()
def mail() -> None:
    """The mail gateway: read pbem files from a mailbox, receive them, mail the answers.

    Example: pbem mail poll --config pbem-mail.toml
    """


@mail.command()
@click.option("--config", "config_path", required=True, help="The gateway's TOML file.")
@click.option("--watch", is_flag=True, help="Poll until SIGTERM or SIGINT.")
@clean_errors
def poll(config_path: str, watch: bool) -> None:
    """Process every new message of the inbox once (or keep polling with --watch).

    One log line per message. Example: pbem mail poll --config pbem-mail.toml --watch
    """
    from pbem.mail import config
    from pbem.mail.gateway import Gateway, install_stop

    cfg = config.load(config_path)
    gw = Gateway(cfg, log=lambda line: echo(line))
    try:
        if watch:
            stop = threading.Event()
            install_stop(stop)
            echo(f"watching {cfg.maildir} every {cfg.interval:g} s (stop: SIGTERM or SIGINT)")
            gw.watch(stop)
            echo("stopped")
        else:
            n = gw.poll()
            echo(f"{n} message(s) processed")
    finally:
        gw.close()


@mail.command()
@click.option("--config", "config_path", required=True, help="The gateway's TOML file.")
@click.argument("game")
@click.argument("file")
@clean_errors
def send(config_path: str, game: str, file: str) -> None:
    """Mail a file you signed (pbem submit's output) to the game's other parties.

    GAME is the archive's folder name under the configured archives folder.
    Example: pbem mail send --config pbem-mail.toml game1 turn.pbem
    """
    from pbem.mail import config
    from pbem.mail.gateway import Gateway

    gw = Gateway(config.load(config_path), log=lambda line: echo(line))
    try:
        echo(gw.send_file(game, file))
    finally:
        gw.close()
