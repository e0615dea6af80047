"""What a report is rendered from: the game's report model plus the facts of the file processed.

A :class:`ReportContext` holds only what one side may see. The caller (the processor) filters
events and rolls by visibility before building it; the renderer never sees the full state.
"""

from __future__ import annotations

import msgspec

from pbem.core.game import ALL, Decision, Event, Outcome, ReportModel, Roll


class ReportContext(msgspec.Struct, kw_only=True):
    """Everything one side's report shows."""

    model: ReportModel              # built by the game from one side's view
    pending: list[Decision]         # what the game waits for (all sides)
    answer: list[str]               # exact commands this side should run next (may be empty)
    events: list[Event]             # already filtered to what this side may see, in order
    rolls: list[Roll]               # already filtered, each with its purpose
    game_id: str
    seq: int                        # sequence number of the file this report follows
    file_name: str                  # the file processed
    file_hash: str                  # its SHA-256 hex
    fingerprints: dict[str, str]    # side -> key fingerprint
    outcome: Outcome | None = None
    mode: str = "peer"              # peer | hosted
    side_colours: dict[str, str] = {}    # side -> CSS colour (the game may supply; else defaults)
    terrain_colours: dict[str, str] = {}  # terrain kind -> colour override


class IndexEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a game's report index: a report, in sequence order."""

    seq: int
    turn: int
    label: str
    href: str


def visible_events(events: list[Event], side: str) -> list[Event]:
    """The events a side may see (public ones and its own), in order."""
    return [e for e in events if e.visible_to in (ALL, side)]


def visible_rolls(rolls: list[Roll], side: str) -> list[Roll]:
    """The rolls a side may see (public ones and its own), in order."""
    return [r for r in rolls if r.visible_to in (ALL, side)]
