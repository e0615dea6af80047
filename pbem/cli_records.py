"""Commands for game records: export, import, replay, stats, log, library (docs/records.md).

A thin layer over pbem.records, attached to the main command group when pbem.cli imports
this module (its last line); `pbem verify FILE` (pbem/cli.py) reads records too.
"""

from __future__ import annotations

import sys
from typing import Callable

import click

from pbem.core.textsafe import printable

from pbem.cli import clean_errors, cli, echo


@click.command("export")
@click.argument("directory")
@click.option("--out", required=True, help="The record file to write.")
@clean_errors
def export_cmd(directory: str, out: str) -> None:
    """Export an archive to a one-file game record (every signed file, in order).

    The archive is verified first. The record holds only signed files (never the dice
    secret); `pbem verify RECORD` checks it and `pbem import` rebuilds the archive.
    Example: pbem export game-a --out game-a.pbemrec
    """
    from pbem.records.record import export_archive

    result, n = export_archive(directory, out)
    echo(f"Wrote {out}: {n} signed files of the archive {directory}; result: {result}")


@click.command("import")
@click.argument("file")
@click.option("--dir", "directory", required=True, help="The new archive folder.")
@clean_errors
def import_cmd(file: str, directory: str) -> None:
    """Import a game record into a new archive folder (verified first).

    The folder can be verified, replayed and exported again; it holds no dice secret, so
    it cannot be played on. Example: pbem import game-a.pbemrec --dir game-a-copy
    """
    from pbem.records.record import import_record

    rec, g = import_record(file, directory)
    echo(f"Imported {len(rec.entries)} signed files of {rec.party}'s archive into {directory}; "
         f"result: {g.result}")


def _progress() -> Callable[[int, int, str], None] | None:
    """A progress line on standard error for long runs, only on a terminal."""
    if not sys.stderr.isatty():
        return None

    def progress(done: int, total: int, name: str) -> None:
        click.echo(f"\r{done}/{total} {printable(name)[-50:]:<50}", err=True, nl=done == total)

    return progress


def _views(view: tuple[str, ...]) -> list[str] | None:
    return list(view) or None


@click.command("replay")
@click.argument("source")
@click.option("--out", required=True, help="The HTML page to write.")
@click.option("--view", "view", multiple=True,
              help="full (both sides, once the game is over) or a side; repeat for several. "
                   "Default: every view the record allows.")
@clean_errors
def replay_cmd(source: str, out: str, view: tuple[str, ...]) -> None:
    """Write a self-contained replay page of a record file or an archive folder.

    The page steps through every file with the map, units, moves, events and dice (buttons,
    arrow keys, jump to a turn) and verifies the record in the browser itself.
    Example: pbem replay game-a.pbemrec --out replay.html
    """
    from pbem.records.replay import write_replay

    v, size = write_replay(source, out, _views(view))
    echo(f"Wrote {out} ({size // 1024} KiB): {v.files} files, views: "
         f"{', '.join(_views(view) or v.default_views())}")


@click.command("stats")
@click.argument("sources", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object for scripts.")
@clean_errors
def stats_cmd(sources: tuple[str, ...], as_json: bool) -> None:
    """Dice statistics over one or more records or archive folders.

    Per side and roll purpose: count, mean, distribution, chi-square test and p-value, and
    a luck summary. Example: pbem stats game-a.pbemrec game-b.pbemrec --json
    """
    from pbem.records.source import open_game
    from pbem.records.stats import Stats

    st = Stats()
    progress = _progress()
    for n, s in enumerate(sources, 1):
        st.add_game(open_game(s))
        if progress is not None and len(sources) > 1:
            progress(n, len(sources), s)
    if as_json:
        import json

        echo(json.dumps(st.to_json(), sort_keys=True, indent=1))
    else:
        echo(st.text(), nl=False)


@click.command("log")
@click.argument("source")
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of text.")
@click.option("--view", default=None, help="full or a side (default: full once the game is "
                                           "over, else the archive's side).")
@click.option("--out", default=None, help="Write to a file instead of standard output.")
@clean_errors
def log_cmd(source: str, as_json: bool, view: str | None, out: str | None) -> None:
    """The whole game as a readable move list (turn by turn: orders, results, dice).

    Example: pbem log game-a.pbemrec --out game-a.txt
    """
    from pbem.records.source import open_game
    from pbem.records.textlog import json_lines, text_log

    if out:
        from pbem.records.record import outside_archives

        outside_archives(out)
    v = open_game(source)
    text = "".join(ln + "\n" for ln in json_lines(v, view)) if as_json else text_log(v, view)
    if out:
        from pbem.records.record import write_shared

        write_shared(out, text, durable=False)
        echo(f"Wrote {out}")
    else:
        echo(text, nl=False)


@click.command("library")
@click.argument("directory")
@click.option("--out", required=True, help="The folder for index.html and library.json.")
@click.option("--replays", is_flag=True, help="Also write a replay page for every record.")
@clean_errors
def library_cmd(directory: str, out: str, replays: bool) -> None:
    """Index a folder of records into a browsable page and a JSON index (incremental).

    Each record is verified once; later runs verify only new or changed records (known by
    their SHA-256). A record that cannot be read or does not verify is listed with its
    problem and named on standard error; the library is still written, and the exit status
    is then 1. Example: pbem library records/ --out site/
    """
    from pbem.core.textsafe import one_line
    from pbem.records.library import build_library

    lib = build_library(directory, out, replays=replays, progress=_progress())
    for it in lib.items:
        if not it.ok:
            echo(f"Error: {one_line(_named(it.file, it.problem))}", err=True)
    extra = f", {lib.no_replay} without a replay page" if lib.no_replay else ""
    echo(f"Indexed {lib.total} records in {out}: {lib.verified} verified now, {lib.reused} "
         f"unchanged, {lib.failed} that do not verify{extra}.")
    if lib.failed:
        sys.exit(1)


def _named(rel: str, problem: str) -> str:
    """A record's problem named by its path in the library (not only its file name)."""
    name = rel.rsplit("/", 1)[-1]
    rest = problem[len(name) + 2:] if problem.startswith(f"{name}: ") else problem
    return f"{rel}: {rest}"


COMMANDS = [export_cmd, import_cmd, replay_cmd, stats_cmd, log_cmd, library_cmd]
for _command in COMMANDS:
    cli.add_command(_command)
