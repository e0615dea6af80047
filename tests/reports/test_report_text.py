"""The plain-text report: golden file, width limit, masking, sanitising."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fixtures.report_samples import make_context
from pbem.core.game import Decision, Event, MapUnit, Outcome, Panel, Roll
from pbem.reports import TEXT_WIDTH, render_text
from pbem.reports.render import wrap, wrap_command

GOLDEN = Path(__file__).parent / "golden" / "sample.txt"


def test_golden_sample_text() -> None:
    text = render_text(make_context())
    if os.environ.get("PBEM_REGEN_GOLDEN") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "run with PBEM_REGEN_GOLDEN=1 to create the golden file"
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_text_has_every_section_and_fact() -> None:
    text = render_text(make_context())
    for heading in ("YOUR DECISION", "HOW TO ANSWER", "WHAT HAPPENED", "DICE", "SUPPLY",
                    "REINFORCEMENTS DUE", "VICTORY", "UNITS", "MARKERS", "MOVES SEEN",
                    "REPLY DATA"):
        assert f"\n{heading}\n" in text
    ctx = make_context()
    for cmd in ctx.answer:
        assert cmd in text  # commands fit on one line here, so they are verbatim
    assert ctx.file_hash in text and ctx.game_id in text
    for fp in ctx.fingerprints.values():
        assert fp in text
    assert "Combat 0805: defender die (2/2)" in text
    assert "0906   axis: hidden block" in text
    assert "0704   CCB  3 SP  (armor)  - out of supply" in text


def test_text_lines_fit_width() -> None:
    text = render_text(make_context())
    assert text.endswith("\n") and not text.endswith("\n\n")
    for line in text.splitlines():
        assert len(line) <= TEXT_WIDTH, line
        assert line == line.rstrip()


def test_masked_units_show_nothing_but_side_and_hex() -> None:
    ctx = make_context()
    # A game bug that left a name on a masked unit must still not leak into the report.
    ctx.model.units.append(MapUnit(hex="1208", side="axis", masked=True, label="SECRET-LABEL",
                                   values="SECRET-VALUES", kind="SECRET-KIND", note="SECRET-NOTE"))
    text = render_text(ctx)
    assert "SECRET" not in text
    assert "1208   axis: hidden block" in text


def test_outcome_and_waiting_state() -> None:
    ctx = make_context(outcome=Outcome(winner="axis", reason="Axis hold Tunis and Bizerte."))
    ctx.pending = [Decision(side="axis", kind="movement", prompt="Move.")]
    ctx.answer = []
    text = render_text(ctx)
    assert "GAME OVER\n  Winner: axis\n  Axis hold Tunis and Bizerte." in text
    assert "WAITING FOR AXIS" in text
    assert "HOW TO ANSWER" not in text
    draw = make_context(outcome=Outcome(winner=None, reason="Time ran out."))
    draw.pending = []
    t2 = render_text(draw)
    assert "Result: draw" in t2 and "NO DECISION PENDING" in t2


def test_empty_report() -> None:
    ctx = make_context()
    ctx.events, ctx.rolls, ctx.pending, ctx.answer = [], [], [], []
    ctx.model.units, ctx.model.markers, ctx.model.arrows, ctx.model.panels = [], [], [], []
    text = render_text(ctx)
    assert "Nothing you could see happened" in text
    assert "No dice you could see were rolled" in text
    assert "MARKERS" not in text and "MOVES SEEN" not in text


def test_control_characters_are_neutralised() -> None:
    ctx = make_context(event_text="line one\r\nFAKE: injected\x1b[31m red \x07bell")
    text = render_text(ctx)
    assert "\x1b" not in text and "\r" not in text and "\x07" not in text
    assert "line one  FAKE: injected" in text  # one line: no forged report line


def test_long_command_is_continued_not_cut() -> None:
    cmd = "pbem send " + " ".join(f"--opt{i}=value{i}" for i in range(20))
    out = wrap_command(cmd)
    lines = out.splitlines()
    assert len(lines) > 1
    assert all(len(ln) <= TEXT_WIDTH for ln in lines)
    assert all(ln.endswith(" \\") for ln in lines[:-1])
    rejoined = " ".join(ln.strip().removesuffix(" \\").strip() for ln in lines)
    assert rejoined == cmd


def test_wrap_indents() -> None:
    out = wrap("word " * 60, 40, "  - ", "    ")
    lines = out.splitlines()
    assert lines[0].startswith("  - word")
    assert all(ln.startswith("    ") for ln in lines[1:])
    assert all(len(ln) <= 40 for ln in lines)


_texty = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(_texty, st.text(alphabet=" \t\n\r\x0b\x0cab\u00a0\u2003\u2028\u200b",
                                      max_size=60)),
       width=st.integers(min_value=12, max_value=100),
       indent=st.sampled_from(["", "  ", "> ", "    ", "  - "]),
       sub=st.sampled_from([None, "", "    "]))
def test_wrap_is_textwrap_of_the_cleaned_line(text: str, width: int, indent: str,
                                              sub: str | None) -> None:
    """wrap's short cut for a line that fits gives exactly what textwrap gives."""
    import textwrap

    from pbem.reports.render import _no_controls

    lines = textwrap.wrap(_no_controls(text).rstrip(), width=width, initial_indent=indent,
                          subsequent_indent=indent if sub is None else sub,
                          break_long_words=True, break_on_hyphens=False)
    assert wrap(text, width, indent, sub) == ("\n".join(lines) if lines else indent.rstrip())


@settings(max_examples=60, deadline=None)
@given(label=_texty, event=_texty, purpose=_texty, panel=_texty, word=st.text(
    alphabet="abcdefghij", min_size=101, max_size=400), side=_texty, hexid=_texty)
def test_any_text_keeps_the_width(label: str, event: str, purpose: str, panel: str, word: str,
                                  side: str, hexid: str) -> None:
    ctx = make_context(unit_label=label, event_text=event + word)
    ctx.rolls.append(Roll(action=99999, index=99999, sides=1000, value=1000,
                          purpose=purpose + word))
    ctx.model.panels.append(Panel(title=panel + word, lines=(word, panel)))
    ctx.model.units.append(MapUnit(hex=hexid + word, side=side, label=word, values=word))
    ctx.pending.append(Decision(side=side, kind=word, prompt=panel))
    ctx.events.append(Event(text=word, hexes=(word, hexid)))
    ctx.answer.append(word + " " + label)
    ctx.file_name = word
    ctx.fingerprints[side + word] = word
    for line in render_text(ctx).splitlines():
        assert len(line) <= TEXT_WIDTH


def test_the_newest_text_report_is_also_latest_txt(tmp_path) -> None:
    """A player who reads text finds the newest report under a fixed name, latest.txt."""
    from fixtures.table import Table

    t = Table(tmp_path)
    for _ in range(3):
        t.deliver()
        t.play_one()
    t.deliver()
    for side in t.sides:
        folder = t.dirs[side] / "reports" / side
        newest = sorted(folder.glob("[0-9][0-9][0-9][0-9].txt"))[-1]
        assert (folder / "latest.txt").read_text() == newest.read_text()
