"""The pbem command line: a thin layer over pbem.protocol; user errors are one clean line."""

from __future__ import annotations

import functools
import importlib
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from pbem.core.errors import EXIT_REFUSED, PbemError
from pbem.core.textsafe import printable
from pbem import turn_commands
from pbem.turn_commands import DEBUG_ENV, echo, error_line, say


class Failure(click.ClickException):
    """'Error: <one line>' on standard error and the exit code of its kind (docs/cli.md)."""

    def __init__(self, message: str, exit_code: int = EXIT_REFUSED) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def clean_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn PbemError into 'Error: <one line>' and its exit code, never a traceback.

    Everything the CLI prints goes through printable() (pbem.core.textsafe): text from a file
    (a name, a message, an order, a field a decoder quotes) never reaches the terminal raw.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (PbemError, OSError) as e:
            raise Failure(*error_line(e)) from None

    return wrapper


class LazyCommands(dict):  # type: ignore[type-arg]
    """A group's commands, some imported only when named (or when all are listed, as --help
    does): a command pays for the imports it needs, not for every other command's."""

    def __init__(self, commands: dict[str, click.Command]) -> None:
        super().__init__(commands)
        self.lazy: dict[str, str] = {}        # name -> "module:attribute"

    def _load(self, name: str) -> None:
        if name in self.lazy and not dict.__contains__(self, name):
            module, _, attr = self.lazy[name].partition(":")
            dict.__setitem__(self, name, getattr(importlib.import_module(module), attr))

    def _load_all(self) -> None:
        for name in list(self.lazy):
            self._load(name)

    def get(self, name: str, default: Any = None) -> Any:
        """The command called name (imported first if lazy)."""
        self._load(name)
        return dict.get(self, name, default)

    def __getitem__(self, name: str) -> click.Command:
        self._load(name)
        return dict.__getitem__(self, name)

    def __contains__(self, name: object) -> bool:
        return name in self.lazy or dict.__contains__(self, name)

    def __iter__(self) -> Any:
        self._load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load_all()
        return dict.__len__(self)

    def keys(self) -> Any:
        """Every command name (the lazy ones imported)."""
        self._load_all()
        return dict.keys(self)

    def values(self) -> Any:
        """Every command (the lazy ones imported)."""
        self._load_all()
        return dict.values(self)

    def items(self) -> Any:
        """Every (name, command) (the lazy ones imported)."""
        self._load_all()
        return dict.items(self)


class PbemGroup(click.Group):
    """The top-level group: whatever a command raises ends as one line and an exit code.

    An exception that is not a user error is a bug: it is reported in one line with where to
    report it (exit code EXIT_INTERNAL); the traceback only when $PBEM_DEBUG is set.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = LazyCommands(self.commands)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command, mapping every error to its exit code."""
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as e:
            if not isinstance(e, (PbemError, OSError)) and os.environ.get(DEBUG_ENV):
                raise
            raise Failure(*error_line(e)) from None


def parse_options(values: tuple[str, ...]) -> dict[str, Any]:
    """--option NAME=VALUE pairs; integers and true/false are converted."""
    out: dict[str, Any] = {}
    for v in values:
        if "=" not in v:
            raise PbemError(f"--option {v!r}: expected NAME=VALUE")
        k, val = v.split("=", 1)
        low = val.lower()
        out[k] = True if low == "true" else False if low == "false" else (
            int(val) if val.lstrip("-").isdigit() else val)
    return out


@click.group(cls=PbemGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pbem")
def cli() -> None:
    """Play-by-email processor for wargames: signed turn files, fair dice, masked reports.

    Exit codes: 0 done, 1 input refused, 2 usage error, 3 audit failed (forgery, cheating or
    equivocation proven), 4 internal error (docs/cli.md).
    """
    from pbem.core import keys

    keys.notice = lambda m: echo(m, err=True)
    keys.ask_passphrase = _ask_passphrase
    _asked.clear()


def _interactive() -> bool:
    """True if a passphrase can be asked for on the terminal."""
    return sys.stdin.isatty()


_asked: dict[str, str] = {}


def _ask_passphrase(path: str) -> str | None:
    """An encrypted key's passphrase, asked on the terminal without echo; None with no terminal."""
    if not _interactive():
        return None
    if path not in _asked:
        _asked[path] = click.prompt(f"Passphrase for {printable(path)}", hide_input=True,
                                    default="", show_default=False, err=True)
    return _asked[path]


def _empty_passphrase() -> PbemError:
    from pbem.core.keys import PASSPHRASE_ENV

    return PbemError(f"the passphrase is empty: give one (in ${PASSPHRASE_ENV} or at the prompt), "
                     "or pass --no-passphrase to store the key unencrypted on purpose")


@cli.command()
@click.argument("name")
@click.option("--dir", "directory", default=".", show_default=True, help="Where to write the key.")
@click.option("--no-passphrase", is_flag=True, help="Store the private key unencrypted.")
@clean_errors
def keygen(name: str, directory: str, no_passphrase: bool) -> None:
    """Create an Ed25519 key pair NAME.key / NAME.pub and print its fingerprint.

    Example: pbem keygen alice --dir keys   (passphrase from $PBEM_PASSPHRASE or a prompt)
    """
    from pbem.core.keys import PASSPHRASE_ENV, generate

    passphrase = None
    if not no_passphrase:
        passphrase = os.environ.get(PASSPHRASE_ENV)
        if passphrase is None:
            if not _interactive():
                raise PbemError(f"give a passphrase in ${PASSPHRASE_ENV} or use --no-passphrase")
            passphrase = click.prompt("Passphrase", hide_input=True, confirmation_prompt=True,
                                      default="", show_default=False)
        if not passphrase:
            raise _empty_passphrase()
    key_path, pub_path, fp = generate(name, directory, passphrase)
    echo(f"Private key: {key_path}{' (encrypted)' if passphrase else ' (NOT encrypted)'}")
    echo(f"Public key:  {pub_path}  (send this to your opponent)")
    echo(f"Fingerprint: {fp}  (compare it with your opponent by phone or chat)")


@cli.command()
@click.argument("key")
@click.option("--no-passphrase", is_flag=True, help="Store the private key unencrypted.")
@clean_errors
def rekey(key: str, no_passphrase: bool) -> None:
    """Re-encrypt a private key file in the current format (scrypt); the key stays the same.

    The current passphrase comes from $PBEM_PASSPHRASE or a prompt; the new one from
    $PBEM_NEW_PASSPHRASE, a prompt, or else stays the same. Example: pbem rekey keys/alice.key
    """
    from pbem.core import keys

    keys.notice = lambda m: None
    k = keys.load_private(key)
    new = None
    if not no_passphrase:
        new = os.environ.get("PBEM_NEW_PASSPHRASE")
        if new is None and _interactive():
            new = click.prompt("New passphrase (empty: keep it)", hide_input=True,
                               confirmation_prompt=True, default="", show_default=False) or None
        if new is None:
            new = os.environ.get(keys.PASSPHRASE_ENV)
        if not new:
            raise _empty_passphrase()
    keys.rewrite_private(key, k, new)
    echo(f"{key}: " + (f"encrypted with scrypt (N=2^{keys.SCRYPT_N.bit_length() - 1}, "
                       f"r={keys.SCRYPT_R}, p={keys.SCRYPT_P}) and ChaCha20-Poly1305"
                       if new else "stored unencrypted"))


@cli.command()
@click.option("--options", "with_options", is_flag=True,
              help="Also list each game's house options (pbem new --option NAME=VALUE).")
@click.argument("only", nargs=-1)
@clean_errors
def games(with_options: bool, only: tuple[str, ...]) -> None:
    """List the games and their scenarios (only the games named, if any).

    Example: pbem games --options holdfast
    """
    from pbem.core.options import describe
    from pbem.core.registry import all_games, find_game

    chosen = [find_game(g) for g in only] if only else all_games()
    for g in chosen:
        echo(f"{g.id}: {g.title} (sides: {', '.join(g.sides)})")
        for sid, title in g.scenarios().items():
            echo(f"  {sid}: {title}")
        if with_options:
            echo("  house options (pbem new ... --option NAME=VALUE; the default first):")
            for line in describe(g.options()):
                echo(f"    {line}")
    if not only or "bcs" in only:
        from pbem.games.bcs.info import listing

        for line in listing():              # Baptism By Fire's scenarios that are data only
            echo(line)


@cli.command()
@click.argument("game")
@click.argument("scenario")
@click.argument("directory")
@click.option("--side", required=True, help="Your side.")
@click.option("--key", "key", required=True, help="Your private key file.")
@click.option("--opponent", required=True, help="Your opponent's public key file.")
@click.option("--mode", type=click.Choice(["peer", "hosted", "sealed"]), default=None,
              help="Default: sealed for a game with hidden units that can seal (Holdfast, "
                   "Kasserine), else peer; hosted when --referee is given.")
@click.option("--referee", default=None, help="Hosted mode: the referee's public key file.")
@click.option("--option", "options", multiple=True, help="House option NAME=VALUE.")
@click.option("--out", required=True, help="Where to write the proposal to send.")
@clean_errors
def new(game: str, scenario: str, directory: str, side: str, key: str, opponent: str,
        mode: str | None, referee: str | None, options: tuple[str, ...], out: str) -> None:
    """Create your archive DIRECTORY and the signed proposal to send to your opponent.

    With --mode hosted --referee REF.pub the proposal names a referee too; the opponent and
    the referee both join it and send their acceptances to the referee. Example: pbem new holdfast race-to-tunis game-a --side allied --key alice.key
    --opponent bob.pub --out proposal.pbem
    """
    from pbem.protocol.ops import new_game

    say(new_game(game, scenario, directory, side=side, key_path=key, opponent_pub=opponent,
                 out=out, mode=mode, referee_pub=referee, options=parse_options(options)))


@cli.command()
@click.argument("game")
@click.argument("scenario")
@click.argument("directory")
@click.option("--key", "key", required=True, help="The referee's private key file.")
@click.option("--player", "players", multiple=True, required=True,
              help="SIDE=PUBFILE, once for each side.")
@click.option("--option", "options", multiple=True, help="House option NAME=VALUE.")
@click.option("--out", required=True, help="Where to write the proposal to send to both players.")
@clean_errors
def host(game: str, scenario: str, directory: str, key: str, players: tuple[str, ...],
         options: tuple[str, ...], out: str) -> None:
    """Referee: create a hosted game's archive and the proposal for both players.

    Example: pbem host holdfast campaign ref --key ref.key --player allied=alice.pub
    --player axis=bob.pub --out proposal.pbem
    """
    from pbem.protocol.ops import host_game

    pairs = {}
    for p in players:
        if "=" not in p:
            raise click.ClickException(f"--player {p!r}: expected SIDE=PUBFILE")
        s, f = p.split("=", 1)
        pairs[s] = f
    say(host_game(game, scenario, directory, key_path=key, players=pairs, out=out,
                  options=parse_options(options)))


@cli.command()
@click.argument("file")
@click.option("--key", "key", required=True, help="Your private key file.")
@click.option("--dir", "directory", required=True, help="Your new archive folder.")
@click.option("--out", required=True, help="Where to write the acceptance to send back.")
@clean_errors
def join(file: str, key: str, directory: str, out: str) -> None:
    """Check a proposal, create your archive and write your signed acceptance.

    Example: pbem join proposal.pbem --key bob.key --dir game-b --out accept.pbem
    """
    from pbem.protocol.ops import join_game

    say(join_game(file, key_path=key, root=directory, out=out))


@cli.command()
@click.argument("directory")
@click.argument("more", nargs=-1)
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object for scripts (a list of them for several archives).")
@click.option("--key", "key", default=None, help="Your key (only to rebuild a damaged cache).")
@clean_errors
def status(directory: str, more: tuple[str, ...], as_json: bool, key: str | None) -> None:
    """Say in plain words whose decision is pending and what it is; with several archives,
    one line each (a referee's or a club player's games).

    Example: pbem status game-a --json; pbem status games/*
    """
    turn_commands.status(directory, as_json, key, more)


@cli.command()
@click.argument("directory")
@click.argument("orders")
@click.option("--side", default=None, help="Check for this side (default: your side).")
@click.option("--key", "key", default=None, help="Your key (needed just after receiving).")
@clean_errors
def check(directory: str, orders: str, side: str | None, key: str | None) -> None:
    """Check an orders file against the current position, without signing.

    Example: pbem check game-a orders.txt
    """
    turn_commands.check(directory, orders, side, key)


@cli.command()
@click.argument("directory")
@click.argument("orders")
@click.option("--key", "key", required=True, help="Your private key file.")
@click.option("--out", required=True, help="Where to write the signed file to send.")
@click.option("--message", default="", help="A message to your opponent (signed, shown escaped).")
@clean_errors
def submit(directory: str, orders: str, key: str, out: str, message: str) -> None:
    """Check, sign and write your next file with these orders.

    Example: pbem submit game-a orders.txt --key alice.key --out turn.pbem
    """
    turn_commands.submit(directory, orders, key, out, message)


@cli.command()
@click.argument("directory")
@click.argument("file")
@click.option("--key", "key", required=True, help="Your private key file.")
@click.option("--out", default=None, help="Where to write the reply (referee: a folder for views).")
@clean_errors
def receive(directory: str, file: str, key: str, out: str | None) -> None:
    """Verify and resolve a received file; write reports and, if you owe nothing, the reply.

    Example: pbem receive game-b turn.pbem --key bob.key --out reply.pbem
    """
    turn_commands.receive(directory, file, key, out)


@cli.command()
@click.argument("directory")
@click.argument("extra", nargs=-1)
@click.option("--key", "key", default=None,
              help="Your key: a sealed game's own private dice are audited before its end.")
@clean_errors
def verify(directory: str, extra: tuple[str, ...], key: str | None) -> None:
    """Audit a whole archive offline: signatures, chain, every die, replay and result.

    DIRECTORY may also be a one-file game record (pbem export). Extra files (e.g. a second
    file with a sequence number already used) are checked for equivocation. Without --key, a
    sealed game that is not over is audited up to its side's first private roll (only the
    side's key or its final reveal opens those dice). Exit code 3 when a signed file fails the
    audit (forgery, cheating or equivocation proven), 1 for other problems (no archive, an
    unreadable file, a part not audited). Example: pbem verify game-a
    """
    turn_commands.verify(directory, extra, key)


@cli.command()
@click.argument("directory")
@click.option("--side", required=True)
@click.option("--format", "fmt", type=click.Choice(["html", "text"]), default="text",
              show_default=True)
@click.option("--turn", type=int, default=None, help="The last report of this game turn.")
@click.option("--out", default=None, help="Write to a file instead of standard output.")
@click.option("--key", "key", default=None,
              help="Your key: resolves a received file whose dice need your share.")
@clean_errors
def report(directory: str, side: str, fmt: str, turn: int | None, out: str | None,
           key: str | None) -> None:
    """Render a side's report (the latest, or the last one of a game turn).

    Example: pbem report game-a --side allied --format html --turn 2 --out t2.html
    """
    from pbem.protocol.archive import Archive
    from pbem.protocol.browse import render_report

    if out:
        Archive(directory).check_out(out)
    text, note = render_report(directory, side, fmt=fmt, turn=turn, key_path=key)
    if note:
        echo(note, err=True)
    if out:
        Path(out).write_text(text, encoding="utf-8")
        echo(f"Wrote {out}")
    else:
        echo(text, nl=False)


@cli.command()
@click.argument("directory")
@click.option("--side", required=True)
@click.option("--out", required=True, help="Where to write the orders.")
@click.option("--style", default="heuristic", show_default=True, help="random or heuristic.")
@click.option("--seed", type=int, default=None, help="Seed the bot's choices.")
@click.option("--key", "key", default=None, help="Your key (needed just after receiving).")
@clean_errors
def bot(directory: str, side: str, out: str, style: str, seed: int | None, key: str | None) -> None:
    """Write legal orders for SIDE's pending decision.

    Example: pbem bot game-a --side allied --out orders.txt
    """
    from pbem.protocol.archive import Archive
    from pbem.protocol.ops import open_session
    from pbem.protocol.session import read_genesis

    archive = Archive(directory)
    archive.check_out(out)
    _, genesis, _ = read_genesis(archive)
    if genesis.mode == "hosted" and archive.info().party != "host":
        raise PbemError("in hosted mode the bots need the full state, which only the referee "
                        "holds: the referee runs 'pbem bot REFEREE_DIR --side SIDE'")
    s = open_session(directory, key_path=key)
    if side != s.party and s.party != "host":
        raise PbemError(f"this archive belongs to {s.party}; a bot plays only its own side")
    if side not in s.pending_sides:
        raise PbemError(f"{side} has no decision to make now")
    import random

    rng = random.Random(seed if seed is not None else int.from_bytes(os.urandom(8), "big"))
    from pbem.protocol.sealing import planning_state
    from pbem.protocol.standing_queue import queued

    lines = s.game.bot(planning_state(s, queued(archive)), side, rng, style)
    from pbem.protocol.checking import check_orders

    checked = check_orders(s.game, s.state, side, list(enumerate(lines, 1)), name=out)
    if any("still have a decision" in p for p in checked.problems):
        lines.append("pass  # the bot answers only part of this decision: send it as it is")
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    echo(f"Wrote {len(lines)} order{'s' if len(lines) != 1 else ''} to {out}")


@cli.command()
@click.argument("directory")
@click.option("--game", "game", default="holdfast", show_default=True)
@click.option("--scenario", default=None,
              help="Default: the game's first scenario in 'pbem games' (Holdfast: campaign).")
@click.option("--mode", type=click.Choice(["peer", "hosted", "sealed"]), default=None,
              help="Default: as for pbem new (sealed where the game can seal, else peer).")
@click.option("--seed", type=int, default=None, help="Seed the bots' choices.")
@click.option("--option", "options", multiple=True, help="House option NAME=VALUE.")
@click.option("--quiet", is_flag=True)
@clean_errors
def demo(directory: str, game: str, scenario: str | None, mode: str | None, seed: int | None,
         options: tuple[str, ...], quiet: bool) -> None:
    """Play a complete game bot against bot through the real signed-file exchange.

    One archive per side under DIRECTORY (named by side), every file exchanged, reports
    written, and every archive verified at the end. Example: pbem demo demo-game
    """
    from pbem.protocol.demo import play_demo

    say(play_demo(directory, game_name=game, scenario=scenario, mode=mode, seed=seed,
                  echo=None if quiet else echo, options=parse_options(options)))


def main() -> None:
    """Console entry point."""
    cli(prog_name="pbem")


import pbem.cli_records  # noqa: E402,F401  (attaches export, import, replay, stats, log, library)


cli.commands.lazy.update(ladder="pbem.cli_ladder:ladder", mail="pbem.cli_mail:mail")  # type: ignore[attr-defined]
import pbem.cli_map  # noqa: E402,F401  (attaches map)
import pbem.cli_standing  # noqa: E402,F401  (attaches standing)
