"""`pbem ladder ...`: the club ladder's commands, each a few lines over pbem.ladder."""

from __future__ import annotations

import functools
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any, Callable

import click

from pbem.cli import clean_errors, echo
from pbem.core.errors import PbemError

FORMATS = click.Choice(["text", "json"])


def db_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """SQLite errors (a locked or damaged database) as one-line PbemErrors."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as e:
            raise PbemError(f"{kwargs.get('db', 'ladder')}: database error ({e})") from None

    return wrapper


def command(*args: Any, **kwargs: Any) -> Callable[..., Any]:
    """A ladder subcommand with one-line errors (clean_errors, then db_errors)."""

    def wrap(fn: Callable[..., Any]) -> Any:
        return ladder.command(*args, **kwargs)(clean_errors(db_errors(fn)))

    return wrap


def _open(db: str) -> sqlite3.Connection:
    from pbem.ladder.db import open_db

    return open_db(db)


def _write_out(path: str, text: str) -> None:
    from pbem.protocol.archive import atomic_write

    atomic_write(Path(path), text)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def ladder() -> None:
    """A club ladder: results only from archives it verifies, ratings, standings, a site.

    Example: pbem ladder init club.ladder; pbem ladder submit club.ladder game-a
    (docs/ladder.md walks a director through every command)
    """


@command("init")
@click.argument("db")
@click.option("--name", default="", help="The ladder's name (default: the file's name).")
@click.option("--accept", "accept", multiple=True,
              help="Accept only GAME or GAME:SCENARIO (repeat; default: every game).")
def init(db: str, name: str, accept: tuple[str, ...]) -> None:
    """Create a new ladder database file DB (SQLite).

    Example: pbem ladder init club.ladder --name "Tunisia Club" --accept holdfast
    """
    from pbem.ladder.db import init_db, parse_accept

    rules = [parse_accept(a) for a in accept]
    init_db(db, name=name, accept=rules).close()
    echo(f"Created ladder {db}" + (f", accepting {', '.join(a for a in accept)}" if accept
                                   else ", accepting every game"))


@command("info")
@click.argument("db")
def info(db: str) -> None:
    """Show the ladder's name, schema, accepted games and counts.

    Example: pbem ladder info club.ladder
    """
    from pbem.ladder.db import SCHEMA_VERSION, accepted, meta

    conn = _open(db)
    echo(f"Ladder: {meta(conn, 'name')} (created {meta(conn, 'created')}, schema "
         f"{SCHEMA_VERSION}, ratings: {meta(conn, 'rating_model')})")
    rules = accepted(conn)
    echo("Accepts: " + (", ".join(f"{g}" + ("" if s == "*" else f":{s}") for g, s in rules)
                        if rules else "every game"))
    for table in ("players", "games", "forfeits", "conflicts"):
        echo(f"{table}: {conn.execute(f'SELECT COUNT(*) FROM {table}').fetchone()[0]}")


@command("accept")
@click.argument("db")
@click.argument("specs", nargs=-1, required=True)
@click.option("--remove", is_flag=True, help="Stop accepting these instead.")
def accept_cmd(db: str, specs: tuple[str, ...], remove: bool) -> None:
    """Accept GAME or GAME:SCENARIO from now on (or stop, with --remove).

    Example: pbem ladder accept club.ladder kasserine:historical
    """
    from pbem.ladder.db import parse_accept, transaction

    conn = _open(db)
    rules = [parse_accept(s) for s in specs]
    with transaction(conn):
        for g, s in rules:
            conn.execute("DELETE FROM accepted WHERE game = ? AND scenario = ?" if remove else
                         "INSERT OR IGNORE INTO accepted(game, scenario) VALUES (?, ?)", (g, s))
    echo(f"{'No longer accepting' if remove else 'Accepting'}: {', '.join(specs)}")


@command("add-player")
@click.argument("db")
@click.argument("name")
@click.argument("pubfile")
def add_player(db: str, name: str, pubfile: str) -> None:
    """Register player NAME with the public key file PUBFILE (its fingerprint is the player).

    Example: pbem ladder add-player club.ladder Alice keys/alice.pub
    """
    from pbem.ladder.players import add_player as add

    p = add(_open(db), name, pubfile)
    echo(f"Registered {p.name}: key {p.fingerprint}")


@command("players")
@click.argument("db")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def players(db: str, fmt: str) -> None:
    """List the registered players and their current keys.

    Example: pbem ladder players club.ladder --format json
    """
    from pbem.ladder.players import list_players

    ps = list_players(_open(db))
    if fmt == "json":
        echo(json.dumps([{"name": p.name, "fingerprint": p.fingerprint, "added": p.added,
                          "seeking": p.seeking} for p in ps], indent=1, ensure_ascii=False))
        return
    for p in ps:
        echo(f"{p.fingerprint}  {p.name}{'  (wants a game)' if p.seeking else ''}")


@command("replace-statement")
@click.option("--old", "old", required=True, help="The private key to retire.")
@click.option("--new", "new", required=True, help="The private key that replaces it.")
@click.option("--date", default=None, help="YYYY-MM-DD (default: today).")
@click.option("--message", default="", help="A note (signed).")
@click.option("--out", required=True, help="Where to write the signed statement.")
def replace_statement(old: str, new: str, date: str | None, message: str, out: str) -> None:
    """Sign a key replacement statement with the old key (and the new one) for the director.

    Example: pbem ladder replace-statement --old keys/alice.key --new keys/alice2.key --out r.txt
    """
    import datetime

    from pbem.core.keys import fingerprint, load_private, public_raw
    from pbem.ladder.statements import KeyReplacement, make

    ko, kn = load_private(old), load_private(new)
    st = make(KeyReplacement(old=public_raw(ko.public_key()).hex(),
                             new=public_raw(kn.public_key()).hex(),
                             date=date or datetime.date.today().isoformat(), message=message),
              [ko, kn], name=out)
    _write_out(out, st.text)
    echo(f"Wrote {out}: key {fingerprint(public_raw(ko.public_key()))} replaced by "
         f"{fingerprint(public_raw(kn.public_key()))}")


@command("replace-key")
@click.argument("db")
@click.argument("statement")
def replace_key(db: str, statement: str) -> None:
    """Retire a player's key and register the new one, from a signed replacement statement.

    Example: pbem ladder replace-key club.ladder r.txt
    """
    from pbem.ladder.players import replace_key as replace
    from pbem.ladder.statements import read_statement

    p = replace(_open(db), read_statement(statement))
    echo(f"{p.name}: key replaced; now {p.fingerprint}")


@command("submit")
@click.argument("db")
@click.argument("archive")
@click.option("--allow-retired", is_flag=True, help="Accept a game played with a retired key.")
def submit(db: str, archive: str, allow_retired: bool) -> None:
    """Audit a finished game's archive folder (or one-file game record) and record its
    result (exit 0 only if recorded).

    Example: pbem ladder submit club.ladder games/alice-vs-bob (or alice-vs-bob.pbemrec)
    """
    from pbem.ladder.submit import submit as do_submit

    conn = _open(db)
    r = do_submit(conn, archive, allow_retired=allow_retired)
    a, b = (r.players[s] for s in sorted(r.players))
    result = f"{r.winner} won" if r.winner else "a draw"
    echo(f"Recorded game #{r.seq} ({r.game_id}): {r.title}, {r.scenario}: {a} vs {b}, "
         f"{result} ({r.reason}).")
    echo("Ratings: " + ", ".join(f"{n} {v:.2f}" for n, v in sorted(r.ratings.items())))


@command("games")
@click.argument("db")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def games(db: str, fmt: str) -> None:
    """List the recorded games, in recorded order.

    Example: pbem ladder games club.ladder
    """
    from pbem.ladder.site import Site

    gs = list(reversed(Site(_open(db)).games()))
    if fmt == "json":
        echo(json.dumps([{"seq": g["seq"], "game_id": g["game_id"], "game": g["game"],
                          "scenario": g["scenario"], "kind": g["kind"], "reason": g["reason"],
                          "recorded": g["recorded"], "files": g["files"],
                          "players": {s["side"]: {"name": s["name"], "result": s["result"]}
                                      for s in g["sides"]}} for g in gs],
                        indent=1, ensure_ascii=False))
        return
    for g in gs:
        sides = " vs ".join(f"{s['name']} ({s['side']}, {s['result']})" for s in g["sides"])
        echo(f"#{g['seq']} {g['recorded'][:10]} {g['game']}/{g['scenario']} {sides}"
             f"{' forfeit' if g['kind'] == 'forfeit' else ''}")


@command("standings")
@click.argument("db")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv"]), default="text",
              show_default=True)
@click.option("--game", default=None, help="Ratings in one game title (default: overall).")
@click.option("--min-games", type=int, default=0, show_default=True)
def standings_cmd(db: str, fmt: str, game: str | None, min_games: int) -> None:
    """Print the standings: every player by rating, with games, wins, losses and draws.

    Example: pbem ladder standings club.ladder --format json
    """
    from pbem.core.registry import find_game
    from pbem.ladder.ratings import OVERALL
    from pbem.ladder.standings import as_csv, as_json, as_text, standings

    conn = _open(db)
    scope = find_game(game).id if game else OVERALL
    rows = standings(conn, scope, min_games=min_games)
    if fmt == "json":
        echo(as_json(rows), nl=False)
    elif fmt == "csv":
        echo(as_csv(rows), nl=False)
    else:
        echo(as_text(rows), nl=False)
        n = conn.execute("SELECT COUNT(*) FROM forfeits WHERE status IN ('pending', "
                         "'rebutted')").fetchone()[0]
        if n:
            echo(f"Open forfeit claims: {n} (pbem ladder forfeits {db})")


@command("recompute")
@click.argument("db")
@click.option("--check", is_flag=True, help="Only compare the stored ratings with a replay.")
@click.option("--from", "start", type=int, default=None, metavar="SEQ",
              help="Replay only the games from game SEQ on, over the stored ratings before it.")
def recompute(db: str, check: bool, start: int | None) -> None:
    """Replay every rating from the recorded games in order (or --check they agree).

    Example: pbem ladder recompute club.ladder --check
    """
    from pbem.ladder import ratings

    if start is not None and start < 1:
        raise PbemError(f"--from {start}: games are numbered from 1")
    conn = _open(db)
    if check:
        diffs = ratings.check(conn)
        for d in diffs[:20]:
            echo(f"Error: {d}", err=True)
        if diffs:
            sys.exit(1)
        echo("OK: the stored ratings equal a replay of every recorded game.")
        return
    n = ratings.recompute(conn, start)
    echo(f"Ratings replayed from {n} recorded games"
         + (f" (from game {start} on)." if start and start > 1 else "."))


@command("claim")
@click.argument("archive")
@click.option("--key", "key", required=True, help="Your private key file.")
@click.option("--sent", required=True, help="YYYY-MM-DD: when your last file reached the opponent.")
@click.option("--date", default=None, help="YYYY-MM-DD: the day of the claim (default: today).")
@click.option("--message", default="", help="A note to the director (signed).")
@click.option("--out", required=True, help="Where to write the signed claim.")
def claim(archive: str, key: str, sent: str, date: str | None, message: str, out: str) -> None:
    """Sign a forfeit claim: your opponent has not answered within the game's deadline.

    Example: pbem ladder claim game --key alice.key --sent 2025-03-01 --out claim.txt
    """
    from pbem.core.keys import load_private
    from pbem.ladder.forfeits import make_claim

    st = make_claim(archive, load_private(key), sent, date, message)
    _write_out(out, st.text)
    c: Any = st.payload
    echo(f"Wrote {out}: {c.claimant} claims {c.opponent} has not answered file "
         f"{c.last_seq}. Send it to the director with your archive.")


@command("file-claim")
@click.argument("db")
@click.argument("claim_file", metavar="CLAIM")
@click.argument("archive")
@click.option("--notice", default=None, help="Write the notice for the opponent to this file.")
def file_claim(db: str, claim_file: str, archive: str, notice: str | None) -> None:
    """File a signed forfeit claim with the claimant's archive; it is then pending.

    Example: pbem ladder file-claim club.ladder claim.txt games/alice-vs-bob --notice n.txt
    """
    from pbem.ladder.forfeits import file_claim as do_file

    f = do_file(_open(db), claim_file, archive)
    echo(f"Filed forfeit claim #{f.id}: {f.claimant} against {f.opponent} (pending).")
    if notice:
        _write_out(notice, f.notice)
        echo(f"Wrote the notice for {f.opponent} to {notice}")
    else:
        echo(f.notice, nl=False)


@command("forfeits")
@click.argument("db")
@click.option("--status", type=click.Choice(["pending", "rebutted", "confirmed", "dismissed"]),
              default=None)
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def forfeits(db: str, status: str | None, fmt: str) -> None:
    """List forfeit claims (pending ones wait for a rebuttal and the director).

    Example: pbem ladder forfeits club.ladder --status pending
    """
    from pbem.ladder.forfeits import claims

    cs = claims(_open(db), status)
    if fmt == "json":
        echo(json.dumps(cs, indent=1, ensure_ascii=False))
        return
    for c in cs:
        echo(f"#{c['id']} {c['status']}: {c['claimant']} ({c['claimant_side']}) against "
             f"{c['opponent']} ({c['opponent_side']}), game {c['game_id']}, file {c['last_seq']} "
             f"sent {c['sent']}, {c['reply_days']} days" + (f"; {c['note']}" if c["note"] else ""))
    if not cs:
        echo("No forfeit claims.")


@command("rebut")
@click.argument("db")
@click.argument("claim_id", type=int)
@click.argument("files", nargs=-1, required=True, metavar="FILE|FOLDER...")
def rebut(db: str, claim_id: int, files: tuple[str, ...]) -> None:
    """Record the opponent's proof of a reply: the files that chain from the claimed file, up
    to one the opponent signed (a folder, such as the referee's archive, gives its files).

    Example: pbem ladder rebut club.ladder 3 mail/0002-blue.pbem
    """
    from pbem.ladder.forfeits import rebut as do_rebut

    c = do_rebut(_open(db), claim_id, files)
    echo(f"Claim #{claim_id} rebutted: {c['opponent_name']} signed a file that chains from file "
         f"{c['last_seq']} the claim names; the director decides (pbem ladder confirm / "
         "dismiss).")


@command("confirm")
@click.argument("db")
@click.argument("claim_id", type=int)
@click.option("--note", default="", help="The director's reason.")
def confirm(db: str, claim_id: int, note: str) -> None:
    """Confirm a forfeit claim: the opponent loses, and the result is rated.

    Example: pbem ladder confirm club.ladder 3 --note "no reply to two reminders"
    """
    from pbem.ladder.forfeits import decide

    c = decide(_open(db), claim_id, True, note)
    echo(f"Claim #{claim_id} confirmed: recorded as game #{c['game_seq']}, a loss for "
         f"{c['opponent_name']}.")


@command("dismiss")
@click.argument("db")
@click.argument("claim_id", type=int)
@click.option("--note", default="", help="The director's reason.")
def dismiss(db: str, claim_id: int, note: str) -> None:
    """Dismiss a forfeit claim (the game goes on).

    Example: pbem ladder dismiss club.ladder 3 --note "reply shown"
    """
    from pbem.ladder.forfeits import decide

    decide(_open(db), claim_id, False, note)
    echo(f"Claim #{claim_id} dismissed.")


@command("seek")
@click.argument("db")
@click.argument("player")
@click.option("--off", is_flag=True, help="No longer wants a game.")
def seek(db: str, player: str, off: bool) -> None:
    """Mark PLAYER (a name or fingerprint) as wanting a game, or not (--off).

    Example: pbem ladder seek club.ladder Alice
    """
    from pbem.ladder.players import set_seeking

    p = set_seeking(_open(db), player, not off)
    echo(f"{p.name} {'wants a game' if p.seeking else 'no longer wants a game'}.")


@command("pairings")
@click.argument("db")
@click.option("--game", default=None, help="Pair by rating in one game title.")
@click.option("--recent", type=int, default=3, show_default=True,
              help="Avoid opponents from either player's last N games.")
@click.option("--player", "names", multiple=True, help="Pair these players instead of those "
              "who want a game.")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def pairings(db: str, game: str | None, recent: int, names: tuple[str, ...], fmt: str) -> None:
    """Propose pairings among the players who want a game: close ratings, no recent rematch.

    Example: pbem ladder pairings club.ladder --recent 3
    """
    import msgspec

    from pbem.core.registry import find_game
    from pbem.ladder.pairings import as_text, propose
    from pbem.ladder.ratings import OVERALL

    p = propose(_open(db), scope=find_game(game).id if game else OVERALL, recent=recent,
                names=list(names) or None)
    if fmt == "json":
        echo(msgspec.json.format(msgspec.json.encode(p), indent=1).decode())
    else:
        echo(as_text(p), nl=False)


@command("site")
@click.argument("db")
@click.argument("outdir")
def site(db: str, outdir: str) -> None:
    """Write the static HTML site (standings, players, games, archives) into OUTDIR.

    Example: pbem ladder site club.ladder public_html
    """
    from pbem.ladder.site import build_site

    n = build_site(_open(db), outdir)
    echo(f"Wrote {n} pages to {outdir} (open {Path(outdir) / 'index.html'})")


@command("conflicts")
@click.argument("db")
def conflicts(db: str) -> None:
    """List conflicts: two verified archives of one game that disagree (both kept).

    Example: pbem ladder conflicts club.ladder
    """
    from pbem.ladder.submit import conflicts as list_conflicts

    cs = list_conflicts(_open(db))
    for c in cs:
        echo(f"#{c['id']} {c['found']}: game {c['game_id']}: {c['problem']} (recorded: archive "
             f"{c['recorded_archive']} of {c['recorded_party']}; other: archive "
             f"{c['other_archive']} of {c['other_party']})")
    if not cs:
        echo("No conflicts.")


@command("export")
@click.argument("db")
@click.argument("game_id")
@click.argument("outdir")
def export(db: str, game_id: str, outdir: str) -> None:
    """Write every stored archive of a game into OUTDIR, to audit with 'pbem verify'.

    Example: pbem ladder export club.ladder 8a80f169b015d4392489026a97589d2c evidence
    """
    from pbem.ladder.submit import export as do_export

    for folder in do_export(_open(db), game_id, outdir):
        echo(f"Wrote {folder}")
