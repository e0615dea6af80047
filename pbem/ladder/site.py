"""`ladder site`: a static, self-contained HTML site of the ladder.

    OUTDIR/index.html             standings (overall and per game title), open forfeit
                                  claims, recent games
    OUTDIR/games.html             every recorded game
    OUTDIR/forfeits.html          every forfeit claim and its state
    OUTDIR/players/<n>.html       one page per player: keys, ratings, games, rating history
                                  (inline SVG), dice luck, dice per face against fair dice
                                  (inline SVG charts of pbem.records.stats)
    OUTDIR/games/<game id>.html   one page per game: result, scenario, length, players
    OUTDIR/archives/<game id>.zip the archive the ladder audited, to audit again

Pages are rendered from templates/ladder/ with autoescaping (player names and every other
text from players are escaped), carry their style inline and load nothing from elsewhere.
"""

from __future__ import annotations

import json
import math
import sqlite3
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from pbem.ladder import charts
from pbem.ladder.db import LadderError, meta
from pbem.ladder.players import keys_of, player_by_id
from pbem.ladder.ratings import OVERALL, default_rating, history
from pbem.ladder.standings import scopes, standings

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "ladder"
MARKER = ".pbem-ladder-site"


@lru_cache(maxsize=1)
def env() -> jinja2.Environment:
    """The autoescaping Jinja2 environment of the site's templates."""
    e = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                           undefined=jinja2.StrictUndefined, trim_blocks=True,
                           lstrip_blocks=True, keep_trailing_newline=True)
    e.filters["signed"] = lambda v: f"{v:+.2f}"
    return e


def player_dice(conn: sqlite3.Connection, pid: int, label: str = "") -> Any:
    """A player's public dice over their games, per purpose kind and die size, face by face
    (pbem.records.stats.Stats, side `label`), from the game_dice rows of the sides the
    player played."""
    from pbem.records.stats import Group, Stats

    st = Stats()
    for r in conn.execute(
            "SELECT gd.purpose, gd.die, gd.counts FROM game_dice gd JOIN game_players gp "
            "ON gp.game_seq = gd.game_seq AND gp.side = gd.side WHERE gp.player_id = ? "
            "ORDER BY gd.game_seq, gd.purpose, gd.die", (pid,)):
        counts = [int(c) for c in json.loads(r["counts"])]
        key = ("", label, r["purpose"], r["die"])
        g = st.groups.get(key)
        if g is None:
            g = st.groups[key] = Group(game="", side=label, purpose=r["purpose"],
                                       sides=r["die"], counts=[0] * r["die"])
        g.counts = [a + b for a, b in zip(g.counts, counts)]
    return st


def luck(n: int, dev: float) -> float | None:
    """Dice luck as a z-score: the sum of the rolls' deviations over sqrt(number of rolls)."""
    return dev / math.sqrt(n) if n else None


class Site:
    """What several pages share, computed once (the standings, the ladder's name)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.name = meta(conn, "name", "ladder")
        self.titles = scopes(conn)
        self._table: list[dict[str, Any]] | None = None
        self._rank: dict[int, int] | None = None

    @property
    def table(self) -> list[dict[str, Any]]:
        """The overall standings (computed once)."""
        if self._table is None:
            self._table = standings(self.conn)
        return self._table

    @property
    def rank(self) -> dict[int, int]:
        """Each player's overall rank (computed once)."""
        if self._rank is None:
            self._rank = {d["id"]: d["rank"] for d in self.table}
        return self._rank

    def render(self, template: str, root: str, **ctx: Any) -> str:
        """A page from a template; root is the path back to the site's top folder."""
        return env().get_template(template).render(ladder=self.name, root=root, **ctx)

    # -- pages --------------------------------------------------------------------------
    def index(self) -> str:
        """The home page: standings, open claims, recent games."""
        per_title = [{"game": g, "title": t, "rows": standings(self.conn, g, min_games=1)}
                     for g, t in self.titles]
        return self.render("index.html.j2", "", standings=self.table, per_title=per_title,
                           open_claims=self.claims(open_only=True), recent=self.games(limit=20))

    def games(self, limit: int | None = None, pid: int | None = None) -> list[dict[str, Any]]:
        """Recorded games, newest first, with both sides (one player's games if pid)."""
        where = "WHERE g.seq IN (SELECT game_seq FROM game_players WHERE player_id = ?)" \
            if pid is not None else ""
        q = (f"SELECT g.* FROM games g {where} ORDER BY g.seq DESC"
             + (f" LIMIT {int(limit)}" if limit else ""))
        games = [dict(r) for r in self.conn.execute(q, (pid,) if pid is not None else ())]
        if not games:
            return []
        seqs = [g["seq"] for g in games]
        sides: dict[int, list[dict[str, Any]]] = {}
        for i in range(0, len(seqs), 500):
            chunk = seqs[i:i + 500]
            for r in self.conn.execute(
                    "SELECT gp.*, p.name FROM game_players gp JOIN players p ON p.id = "
                    f"gp.player_id WHERE gp.game_seq IN ({','.join('?' * len(chunk))}) "
                    "ORDER BY gp.side", chunk):
                d = dict(r)
                d["luck"] = luck(d["dice"], d["dice_dev"])
                sides.setdefault(r["game_seq"], []).append(d)
        for g in games:
            g["sides"] = sides.get(g["seq"], [])
            g["winner"] = next((s["name"] for s in g["sides"] if s["result"] == "win"), None)
        return games

    def claims(self, open_only: bool = False, pid: int | None = None) -> list[dict[str, Any]]:
        """Forfeit claims, newest first."""
        from pbem.ladder.forfeits import claims

        out = claims(self.conn)
        if open_only:
            out = [c for c in out if c["status"] in ("pending", "rebutted")]
        if pid is not None:
            ids = {pid}
            out = [c for c in out if self._claim_ids(c["id"]) & ids]
        return out

    def _claim_ids(self, claim_id: int) -> set[int]:
        r = self.conn.execute("SELECT claimant_id, opponent_id FROM forfeits WHERE id = ?",
                              (claim_id,)).fetchone()
        return {r[0], r[1]}

    def player(self, pid: int) -> str:
        """One player's page."""
        p = player_by_id(self.conn, pid)
        rows = {r["scope"]: dict(r) for r in self.conn.execute(
            "SELECT * FROM ratings WHERE player_id = ?", (pid,))}
        titles = dict(self.titles)
        per_title = [{"game": g, "title": titles.get(g, g), **r} for g, r in sorted(rows.items())
                     if g != OVERALL]
        games = []
        for g in self.games(pid=pid):
            me = next(s for s in g["sides"] if s["player_id"] == pid)
            opp = next((s for s in g["sides"] if s["player_id"] != pid), None)
            games.append({**g, "me": me, "opp": opp})
        hist = history(self.conn, pid)
        start = [("registered", default_rating()[2])] if hist else []
        chart = charts.rating_chart(start + [(f"game {h['game_seq']} ({h['recorded'][:10]})",
                                              h["rating"]) for h in hist])
        dice_n = sum(g["me"]["dice"] for g in games)
        dice_dev = sum(g["me"]["dice_dev"] for g in games)
        lucky = [(f"game {g['seq']}", g["me"]["luck"]) for g in reversed(games)
                 if g["me"]["luck"] is not None]
        faces = self.faces(pid, p.name, games)
        return self.render("player.html.j2", "../", p=p, keys=keys_of(self.conn, pid),
                           overall=rows.get(OVERALL), rank=self.rank.get(pid),
                           per_title=per_title, games=games, chart=chart,
                           luck_chart=charts.luck_chart(lucky), dice_n=dice_n,
                           dice_luck=luck(dice_n, dice_dev), faces=faces,
                           claims=self.claims(pid=pid))

    def faces(self, pid: int, name: str, games: list[dict[str, Any]]) -> dict[str, Any]:
        """A player's dice face by face: the charts of pbem.records.stats (each die size,
        then the largest purposes), a row per group, and the games without per-face data."""
        from pbem.records.stats import charts as dice_charts

        st = player_dice(self.conn, pid, name)
        rows = [{"purpose": g.purpose, "die": g.sides, "n": g.n, "mean": g.mean,
                 "expected_mean": g.expected_mean, "chi2": g.chi2, "p": g.p_value,
                 "counts": g.counts} for g in st.sorted_groups()]
        return {"charts": dice_charts(st), "rows": rows,
                "with": sum(1 for g in games if g.get("dice_faces")),
                "without": sum(1 for g in games if not g.get("dice_faces"))}

    def game(self, seq: int) -> str:
        """One game's page."""
        g = next(iter(self._game_rows(seq)))
        after = {r["player_id"]: r["rating"] for r in self.conn.execute(
            "SELECT player_id, rating FROM rating_history WHERE game_seq = ? AND scope = ?",
            (seq, OVERALL))}
        for s in g["sides"]:
            s["rating_after"] = after.get(s["player_id"])
        claim = self.conn.execute("SELECT * FROM forfeits WHERE game_seq = ?", (seq,)).fetchone()
        arch = None
        if g["archive_id"]:
            arch = self.conn.execute("SELECT party, kind, digest, received FROM archives "
                                     "WHERE id = ?", (g["archive_id"],)).fetchone()
        return self.render("game.html.j2", "../", g=g, claim=dict(claim) if claim else None,
                           archive=dict(arch) if arch else None)

    def _game_rows(self, seq: int) -> list[dict[str, Any]]:
        g = self.conn.execute("SELECT * FROM games WHERE seq = ?", (seq,)).fetchone()
        if g is None:
            raise LadderError(f"game #{seq}: not recorded")
        d = dict(g)
        d["sides"] = [dict(r, luck=luck(r["dice"], r["dice_dev"])) for r in self.conn.execute(
            "SELECT gp.*, p.name FROM game_players gp JOIN players p ON p.id = gp.player_id "
            "WHERE gp.game_seq = ? ORDER BY gp.side", (seq,))]
        d["winner"] = next((s["name"] for s in d["sides"] if s["result"] == "win"), None)
        return [d]

    def games_page(self) -> str:
        """Every recorded game."""
        return self.render("games.html.j2", "", games=self.games())

    def forfeits_page(self) -> str:
        """Every forfeit claim."""
        return self.render("forfeits.html.j2", "", claims=self.claims())


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    tmp.replace(path)


def build_site(conn: sqlite3.Connection, outdir: str | Path, *, progress: bool | None = None
               ) -> int:
    """Write the whole site into outdir (a new or empty folder, or an earlier site of the
    ladder); returns the number of pages written."""
    out = Path(outdir)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise LadderError(f"{out}: exists and is not an empty folder or an earlier ladder site")
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("pbem ladder site: written by 'pbem ladder site'\n")
    site = Site(conn)
    show = sys.stderr.isatty() if progress is None else progress
    pages = 0
    _write(out / "index.html", site.index())
    _write(out / "games.html", site.games_page())
    _write(out / "forfeits.html", site.forfeits_page())
    pages += 3
    pids = [r[0] for r in conn.execute("SELECT id FROM players ORDER BY id")]
    seqs = [(r[0], r[1], r[2]) for r in conn.execute(
        "SELECT seq, game_id, archive_id FROM games ORDER BY seq")]
    total = len(pids) + len(seqs)
    for i, pid in enumerate(pids, 1):
        _write(out / "players" / f"{pid}.html", site.player(pid))
        pages += 1
        if show and i % 200 == 0:
            print(f"\rsite: {pages}/{total + 3} pages", end="", file=sys.stderr, flush=True)
    for seq, game_id, archive_id in seqs:
        _write(out / "games" / f"{game_id}.html", site.game(seq))
        if archive_id is not None:
            z = conn.execute("SELECT zip FROM archives WHERE id = ?", (archive_id,)).fetchone()[0]
            _write(out / "archives" / f"{game_id}.zip", z)
        pages += 1
        if show and pages % 200 == 0:
            print(f"\rsite: {pages}/{total + 3} pages", end="", file=sys.stderr, flush=True)
    if show:
        print(f"\rsite: {pages}/{total + 3} pages", file=sys.stderr)
    (out / "site.json").write_text(json.dumps({"ladder": site.name, "players": len(pids),
                                               "games": len(seqs)}, indent=1) + "\n")
    return pages
