"""Browsing an archive's reports: any side's report at any game turn (own side only)."""

from __future__ import annotations

from pathlib import Path

from pbem.core.errors import PbemError
from pbem.protocol.archive import Archive
from pbem.protocol.genesis import HOST


def render_report(root: str | Path, side: str, *, fmt: str = "text", turn: int | None = None,
                  key_path: str | None = None) -> tuple[str, str]:
    """Render the latest report of a side, or the last report of a game turn (key_path: the
    archive party's key, which resolves a received file whose dice need its share); returns
    (the report, a note for the player: '' or why it is not the latest file's)."""
    from pbem.protocol.hosted import load_player, player_report_context
    from pbem.protocol.reporting import report_context
    from pbem.protocol.session import load, read_genesis
    from pbem.reports.render import render_html, render_text

    archive = Archive(root)
    info = archive.info()
    game, genesis, _ = read_genesis(archive)
    if side not in game.sides:
        raise PbemError(f"{root}: unknown side {side!r} (sides: {', '.join(game.sides)})")
    if info.party not in (HOST, side):
        raise PbemError(f"{root}: this archive belongs to {info.party}: it shows only "
                        f"{info.party}'s "
                        "reports (the other side's would reveal its hidden units)")
    game_map = game.game_map(genesis.p.scenario)
    note = ""
    if genesis.mode == "hosted" and info.party != HOST:
        ps = load_player(archive)
        pick = [f for f in ps.views
                if turn is None or f.payload.report.get("turn") == turn]  # type: ignore[union-attr]
        if not pick:
            raise PbemError(f"{root}: no report of turn {turn}")
        ctx = player_report_context(ps, pick[-1].payload, pick[-1])  # type: ignore[arg-type]
    else:
        from pbem.core.keys import load_private

        s = load(root, key=load_private(key_path) if key_path else None)
        waiting = s.unresolved()[:1]
        if (turn is None and key_path is None and waiting
                and s.ledger.files[waiting[0] - 1].payload.sender != info.party):
            # a received file's dice need this side's own share (its next file reveals it)
            note = (f"Note: file {waiting[0]} is stored but its dice need {info.party}'s "
                    f"share, which only your key computes: this report is as of file "
                    f"{s.resolved}; give --key KEY for the latest.")
        seqs = sorted(s.states)
        if turn is not None:
            seqs = [q for q in seqs if s.game.turn(s.states[q]) == turn]
            if not seqs:
                raise PbemError(f"{root}: no report of turn {turn}")
        seq = seqs[-1]
        first = max([q for q in s.states if q < seq
                     and s.game.turn(s.states[q]) != s.game.turn(s.states[seq])], default=0)
        logs = [log for log in s.log if first < log.seq <= seq]
        ctx = report_context(s, side, logs, state=s.states[seq], seq=seq)
    return (render_html(ctx, game_map) if fmt == "html" else render_text(ctx, game_map)), note
