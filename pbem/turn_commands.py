"""The commands a player runs every turn (status, check, submit, receive, verify), free of click.

pbem/cli.py declares them to click (help, usage errors, every other command) and calls these
bodies; pbem/entry.py calls the same bodies directly when the command line is one it can read
without click (docs/cli.md, "Fast dispatch"), so a turn does not pay for importing click.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pbem.core.errors import EXIT_CHEATING, EXIT_INTERNAL, EXIT_REFUSED, REPORT_BUGS, PbemError
from pbem.core.textsafe import one_line, printable


def echo(message: Any = "", err: bool = False, nl: bool = True) -> None:
    """Print a line, every escape sequence and control character from files removed."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:                  # closed by the shell (pbem ... >&-): nothing to say
        return
    stream.write(printable(str(message)) + ("\n" if nl else ""))
    stream.flush()


def say(result: Any) -> None:
    """Print an operation's messages."""
    for m in result.messages:
        echo(m)


DEBUG_ENV = "PBEM_DEBUG"


def error_line(e: Exception) -> tuple[str, int]:
    """The one line (without 'Error: ') and exit code of an error a command raised: a user
    error (PbemError), a file the system refused (OSError), else a bug in pbem (docs/cli.md)."""
    if isinstance(e, PbemError):
        return one_line(str(e)), e.exit_code
    if isinstance(e, BrokenPipeError):
        return "standard output was closed before the command finished (broken pipe)", \
            EXIT_REFUSED
    if isinstance(e, OSError):
        where = e.filename or "a file"
        return one_line(f"{where}: {e.strerror or e}"), EXIT_REFUSED
    return one_line(f"internal error (a bug in pbem): {type(e).__name__}: {e}; {REPORT_BUGS} "
                    f"(set {DEBUG_ENV}=1 to see the traceback)"), EXIT_INTERNAL


def status(directory: str, as_json: bool = False, key: str | None = None,
           more: tuple[str, ...] = ()) -> None:
    """Say in plain words whose decision is pending and what it is (with more archives, one
    line each: status_many, exiting with its code)."""
    if more:
        code = status_many([directory, *more], as_json, key)
        if code:
            sys.exit(code)
        return
    data, lines = status_of(directory, key)
    if as_json:
        import json

        echo(json.dumps(data, sort_keys=True))
    else:
        for ln in lines:
            echo(ln)


def status_of(directory: str, key: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """(the status object of `pbem status --json`, the plain lines) of one archive."""
    from pbem.protocol import ops
    from pbem.protocol.archive import Archive
    from pbem.protocol.hosted import load_player, player_status_json, player_status_lines
    from pbem.protocol.session import read_genesis

    archive = Archive(directory)
    info = archive.info()
    _, genesis, _ = read_genesis(archive)
    if not genesis.complete and info.party == genesis.collector:
        data = {"game_id": None, "game": genesis.game.id, "scenario": genesis.p.scenario,
                "party": info.party, "mode": genesis.mode, "seq": 0, "turn": 0, "over": False,
                "pending": [p for p in genesis.acceptors() if p not in genesis.acceptances],
                "decisions": []}
        return data, ["Waiting for acceptance from: " + ", ".join(data["pending"])]
    if genesis.mode == "hosted" and info.party != "host":
        ps = load_player(archive)
        return player_status_json(ps), player_status_lines(ps)
    s = ops.open_session(directory, key_path=key)
    return ops.status_json(s), ops.status_lines(s)


def status_many(directories: list[str], as_json: bool = False, key: str | None = None) -> int:
    """One line per archive (a referee's or a club player's many games): its game and turn,
    and who must act, you first; an archive that cannot be read is one line naming it and
    the listing goes on. Returns the exit code: the worst of the archives' errors, else 0."""
    out: list[dict[str, Any]] = []
    code = 0
    for d in directories:
        try:
            data, _ = status_of(d, key)
        except (PbemError, OSError) as e:
            msg, c = error_line(e)
            code = max(code, c)
            out.append({"directory": d, "error": msg})
            if not as_json:
                echo(msg if d in msg else f"{d}: {msg}", err=True)
            continue
        out.append({"directory": d, **data})
        if not as_json:
            echo(status_summary(d, data))
    if as_json:
        import json

        echo(json.dumps(out, sort_keys=True))
    return code


def status_summary(directory: str, data: dict[str, Any]) -> str:
    """One line of `pbem status DIR DIR...`: where the game stands and who must act."""
    party = data.get("party")
    head = f"{directory}: {data['game']} {data.get('scenario') or ''}".rstrip()
    if data.get("game_id") is None:
        who = ", ".join(data["pending"]) or "the other parties"
        return f"{head}: not started, waiting for acceptance from {who}"
    where = f"turn {data['turn']}, file {data['seq']}"
    if data["over"]:
        won = f"{data['winner']} wins" if data.get("winner") else "a draw"
        where = f"over, {won}"
    mine = [d["what"] for d in data["decisions"] if d["side"] == party]
    others = sorted({d["side"] for d in data["decisions"] if d["side"] != party})
    if mine:
        act = f"YOU ({party}) must act: {mine[0]}"
    elif others:
        act = f"waiting for {', '.join(others)}"
    else:
        act = "nothing pending" if data["over"] else "waiting"
    return f"{head}, {where}: {act}"


def check(directory: str, orders: str, side: str | None = None, key: str | None = None) -> None:
    """Check an orders file against the current position, without signing."""
    from pbem.protocol.ops import check_file, check_messages

    checked, _ = check_file(directory, orders, key_path=key, side=side)
    if not checked.ok:
        for p in checked.problems:
            echo(one_line(p), err=True)
        sys.exit(EXIT_REFUSED)
    n = len(checked.lines)
    later = len(set(checked.after_dice) | set(checked.waiting))
    so_far = (f" as far as they can be checked now ({later} after dice or a wait: see below)"
              if later else "")
    echo(f"{orders}: {n} order{'s are' if n != 1 else ' is'} legal{so_far}.")
    for line in check_messages(checked) + checked.notes:
        echo(line)


def submit(directory: str, orders: str, key: str, out: str, message: str = "") -> None:
    """Check, sign and write the next file with these orders."""
    from pbem.protocol.ops import submit_orders

    say(submit_orders(directory, orders, key_path=key, out=out, message=message))


def receive(directory: str, file: str, key: str, out: str | None = None) -> None:
    """Verify and resolve a received file; write reports and, if nothing is owed, the reply."""
    from pbem.protocol.ops import receive_file

    say(receive_file(directory, file, key_path=key, out=out))


def verify(directory: str, extra: tuple[str, ...] = (), key: str | None = None) -> None:
    """Audit a whole archive (or a one-file record) offline; exit 3 when cheating is proven."""
    from pbem.protocol.audit import audit_collector, verify_archive

    if Path(directory).is_file() and key is not None:
        raise PbemError(f"{directory}: --key audits an archive folder's own private dice; a "
                        "record holds signed files only (verify the folder, or export the game "
                        "after its final reveals)")
    private = None
    if key is not None:
        from pbem.core import keys as keymod

        private = keymod.load_private(key)
    with audit_collector():
        if Path(directory).is_file():
            from pbem.records.source import verify_record

            audit = verify_record(directory, list(extra))
        else:
            audit = verify_archive(directory, list(extra), keep_states=False, key=private)
    for p in audit.problems:
        echo(f"Error: {one_line(p)}", err=True)
    if not audit.ok:
        # a signed file that fails a check proves forgery, cheating or equivocation
        sys.exit(EXIT_CHEATING if audit.failed else EXIT_REFUSED)
    for line in audit.summary:
        echo(line)
    echo(f"OK: the {'record' if Path(directory).is_file() else 'archive'} verifies.")
