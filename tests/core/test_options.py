"""House options: required options, options that depend on others, and how the genesis records
and checks them (pbem.core.options, through the real commands and the real file functions)."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from fixtures.table import Table
from fixtures.tinygame import DashGame
from pbem.core import registry
from pbem.core.errors import PbemError, ScenarioError
from pbem.core.game import OptionSpec
from pbem.core.keys import load_private
from pbem.core.options import check_specs, resolve
from pbem.core.records import read_file, seal
from pbem.games.holdfast.options import OPTIONS as HF_OPTIONS, resolve_options as hf_resolve
from pbem.games.kasserine.options import Options as KasOptions, resolve_options as kas_resolve
from pbem.protocol.genesis import resolve_options

SPECS = {
    "bonus": OptionSpec(choices=(0, 1), required=True, doc="no default: the proposer chooses"),
    "gusts": OptionSpec(default=0, choices=(0, 1), value_when={1: {"bonus": (0,)}},
                        doc="gusts=1 only without the bonus"),
    "gust_strength": OptionSpec(default=0, choices=(0, 1, 2), when={"gusts": (1,)},
                                doc="only meaningful with gusts"),
}


class ChoosyDash(DashGame):
    """The test game with a required option and two dependent ones."""

    id = "choosy"

    def options(self) -> dict[str, OptionSpec]:
        return dict(SPECS)


@pytest.fixture
def choosy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test game 'choosy' is registered (without an entry point) for this test only."""
    monkeypatch.setattr(registry, "_GAMES", dict(registry._GAMES))
    monkeypatch.setattr(registry, "_ALIASES", dict(registry._ALIASES))
    registry.register(ChoosyDash())


def test_required_option_must_be_chosen() -> None:
    """A required option has no default: missing, it is refused naming it and its choices."""
    with pytest.raises(PbemError) as e:
        resolve(SPECS, {}, owner="choosy")
    assert str(e.value) == ("options: option bonus is required for choosy (no default): "
                            "choose one of 0, 1")
    assert resolve(SPECS, {"bonus": 1}) == {"bonus": 1, "gusts": 0, "gust_strength": 0}
    with pytest.raises(PbemError, match=r"option bonus=2 is not one of 0, 1"):
        resolve(SPECS, {"bonus": 2})


def test_option_only_meaningful_when_another_has_a_value() -> None:
    """`when`: an option that does not apply keeps its default; another value is a contradiction."""
    assert resolve(SPECS, {"bonus": 0, "gusts": 1, "gust_strength": 2})["gust_strength"] == 2
    assert resolve(SPECS, {"bonus": 0, "gust_strength": 0})["gust_strength"] == 0
    with pytest.raises(PbemError) as e:
        resolve(SPECS, {"bonus": 0, "gust_strength": 2})
    assert str(e.value) == ("options: option gust_strength applies only when gusts is 1, not "
                            "with gusts=0: leave it out")


def test_value_only_allowed_when_another_option_has_a_value() -> None:
    """`value_when`: a value another choice forbids is refused, naming both options."""
    with pytest.raises(PbemError) as e:
        resolve(SPECS, {"bonus": 1, "gusts": 1})
    assert str(e.value) == ("options: option gusts=1 (given) needs bonus is 0, not bonus=1: "
                            "choose another gusts or change bonus")
    specs = {"a": OptionSpec(default="x", choices=("x", "y"), value_when={"x": {"b": (True,)}},
                             doc=""),
             "b": OptionSpec(default=True, choices=(False, True), doc="")}
    with pytest.raises(PbemError, match=r"option a='x' \(the default\) needs b is True"):
        resolve(specs, {"b": False})
    assert resolve(specs, {"b": False, "a": "y"}) == {"a": "y", "b": False}


def test_inconsistent_specs_are_the_games_bug() -> None:
    """Specs naming an unknown option, a bad default or a cycle: ScenarioError naming the game."""
    bad = {"a": OptionSpec(default=0, choices=(0, 1), when={"zz": (1,)}, doc="")}
    with pytest.raises(ScenarioError, match="option a depends on 'zz'"):
        check_specs(bad, "g")
    with pytest.raises(ScenarioError, match="option a has default 5"):
        check_specs({"a": OptionSpec(default=5, choices=(0, 1), doc="")}, "g")
    cycle = {"a": OptionSpec(default=0, choices=(0, 1), when={"b": (1,)}, doc=""),
             "b": OptionSpec(default=0, choices=(0, 1), when={"a": (1,)}, doc="")}
    with pytest.raises(ScenarioError, match="a -> b -> a depend on each other in a cycle"):
        resolve(cycle, {})


def test_shipped_games_resolve_through_the_core() -> None:
    """Holdfast and Kasserine validate their options with the core resolver, as before."""
    assert hf_resolve({}) == {k: v.default for k, v in HF_OPTIONS.items()}
    assert hf_resolve({"victory_tie": "axis"})["victory_tie"] == "axis"
    with pytest.raises(ScenarioError, match="unknown option 'nope' for holdfast"):
        hf_resolve({"nope": 1})
    with pytest.raises(ScenarioError, match=r"option victory_tie='x' is not one of"):
        hf_resolve({"victory_tie": "x"})
    assert kas_resolve({}) == KasOptions()
    assert kas_resolve({"sbeitla_hex": "2706"}).sbeitla_hex == "2706"
    with pytest.raises(ScenarioError, match="unknown option 'nope' for kasserine"):
        kas_resolve({"nope": 1})


def one_line_error(r, *must: str) -> str:
    assert r.exit_code != 0, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), r.output
    for m in must:
        assert m in lines[0], lines[0]
    return lines[0]


def test_demo_bots_take_a_required_options_first_choice_and_say_so(tmp_path: Path,
                                                                   choosy: None) -> None:
    """pbem demo is a bot game: it takes a required option's first choice (never a default of
    a real proposal) and names the choice; the genesis records it."""
    r = Table(tmp_path, options=("bonus=1",)).run("demo", str(tmp_path / "d"), "--game",
                                                   "choosy", "--quiet")
    assert r.exit_code == 0, r.output
    assert "Required option bonus=0 was chosen for the bots" in r.output
    prop = read_file(sorted((tmp_path / "d" / "mail").glob("*proposal.pbem"))[0])
    assert prop.payload.options["bonus"] == 0


def test_new_and_host_refuse_a_missing_required_option(tmp_path: Path, choosy: None) -> None:
    """pbem new and host: one line naming the required option and its choices."""
    t = Table(tmp_path, options=("bonus=1",))          # dash: keys and a runner
    need = ("option bonus is required for choosy", "choose one of 0, 1")
    one_line_error(t.run("new", "choosy", "short", str(tmp_path / "n"), "--side", "red",
                         "--key", t.key("red"), "--opponent", t.pub("blue"),
                         "--out", str(tmp_path / "p.pbem")), *need)
    one_line_error(t.run("host", "choosy", "short", str(tmp_path / "h"), "--key", t.key("host"),
                         "--player", f"red={t.pub('red')}", "--player", f"blue={t.pub('blue')}",
                         "--out", str(tmp_path / "p.pbem")), *need)
    assert not (tmp_path / "n").exists() and not (tmp_path / "h").exists()
    assert not (tmp_path / "p.pbem").exists()
    one_line_error(t.run("new", "choosy", "short", str(tmp_path / "n"), "--side", "red",
                         "--key", t.key("red"), "--opponent", t.pub("blue"), "--option",
                         "bonus=1", "--option", "gusts=1", "--out", str(tmp_path / "p.pbem")),
                   "option gusts=1 (given) needs bonus is 0, not bonus=1")
    one_line_error(t.run("new", "choosy", "short", str(tmp_path / "n"), "--side", "red",
                         "--key", t.key("red"), "--opponent", t.pub("blue"), "--option",
                         "bonus=0", "--option", "gust_strength=2", "--out", str(tmp_path / "p.pbem")),
                   "option gust_strength applies only when gusts is 1")


@pytest.mark.parametrize("mode", ["peer", "hosted"])
def test_genesis_records_the_choice(tmp_path: Path, choosy: None, mode: str) -> None:
    """The proposal lists every option, the required one as chosen; the game is played with it."""
    t = Table(tmp_path, game="choosy", mode=mode, options=("bonus=0", "gusts=1"))
    proposal = read_file(sorted((tmp_path / "mail").glob("*proposal.pbem"))[0])
    assert proposal.payload.options == {"bonus": 0, "gusts": 1, "gust_strength": 0}
    t.deliver()
    assert t.status("red")["game"] == "choosy"


FORGED = [
    ({"gusts": 0, "gust_strength": 0}, "option bonus is required for choosy (no default): "
                                       "choose one of 0, 1"),
    ({"bonus": 1, "gusts": 1, "gust_strength": 0}, "option gusts=1 (given) needs bonus is 0"),
    ({"bonus": 0, "gusts": 0, "gust_strength": 2}, "option gust_strength applies only when gusts is 1"),
]


@pytest.mark.parametrize("options, message", FORGED)
def test_join_and_verify_refuse_a_forged_proposal(tmp_path: Path, choosy: None,
                                                  options: dict, message: str) -> None:
    """A proposal signed by the proposer's real key but missing a required option or breaking a
    dependency is refused by `pbem join` (one line naming the file) and by the genesis check."""
    t = Table(tmp_path, game="choosy", options=("bonus=0",))
    good = read_file(sorted((tmp_path / "mail").glob("*proposal.pbem"))[0])
    forged_payload = msgspec.structs.replace(good.payload, options=options,
                                             nonce=os.urandom(16).hex())
    forged = seal(forged_payload, load_private(t.key("red")), name="forged.pbem")
    assert forged.signed_by(bytes.fromhex(good.payload.parties[0].pub)) or \
        forged.signed_by(bytes.fromhex(good.payload.parties[1].pub))
    path = tmp_path / "forged.pbem"
    path.write_text(forged.text)
    line = one_line_error(t.run("join", str(path), "--key", t.key("blue"), "--dir",
                                str(tmp_path / "blue2"), "--out", str(tmp_path / "acc.pbem")),
                          "forged.pbem", message)
    assert "Traceback" not in line
    assert not (tmp_path / "blue2").exists()
    from pbem.protocol.genesis import Genesis
    from pbem.core.errors import FileRejected
    with pytest.raises(FileRejected, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        Genesis(registry.find_game("choosy"), read_file(path))


def test_genesis_resolve_options_is_the_core_resolver(choosy: None) -> None:
    """pbem.protocol.genesis.resolve_options is a thin call to pbem.core.options.resolve."""
    game = registry.find_game("choosy")
    assert resolve_options(game, {"bonus": 1}) == resolve(SPECS, {"bonus": 1})
    with pytest.raises(PbemError, match="^x.pbem: option bonus is required for choosy"):
        resolve_options(game, {}, name="x.pbem")


def test_new_and_join_say_which_options_the_proposal_sets(tmp_path: Path, choosy: None) -> None:
    """The joiner sees the proposal's non-default options before sending the acceptance."""
    t = Table(tmp_path)                               # its keys; a game of its own follows
    r = t.run("new", "choosy", "short", str(tmp_path / "c-red"), "--side", "red", "--key",
              t.key("red"), "--opponent", t.pub("blue"), "--option", "bonus=0", "--option",
              "gusts=1", "--option", "gust_strength=2", "--out", str(tmp_path / "p.pbem"))
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.startswith("House options:"))
    assert "bonus=0" in line and "gusts=1" in line and "gust_strength=2" in line
    assert "pbem games --options choosy" in line
    j = t.run("join", str(tmp_path / "p.pbem"), "--key", t.key("blue"), "--dir",
              str(tmp_path / "c-blue"), "--out", str(tmp_path / "a.pbem"))
    assert j.exit_code == 0, j.output
    line = next(x for x in j.output.splitlines() if x.startswith("House options:"))
    assert "gust_strength=2" in line and "do not send the acceptance" in line
    r = t.run("new", "choosy", "short", str(tmp_path / "d-red"), "--side", "red", "--key",
              t.key("red"), "--opponent", t.pub("blue"), "--option", "bonus=1",
              "--out", str(tmp_path / "p2.pbem"))
    line = next(x for x in r.output.splitlines() if x.startswith("House options:"))
    assert line.startswith("House options: bonus=1; every other option at its default")


def test_games_lists_house_options_with_defaults_and_choices(tmp_path: Path) -> None:
    """`pbem games --options GAME` names every option of the game, its default and choices."""
    t = Table(tmp_path)
    r = t.run("games", "--options", "kasserine")
    assert r.exit_code == 0 and "holdfast" not in r.output
    for name, spec in registry.find_game("kasserine").options().items():
        line = next(x for x in r.output.splitlines() if x.strip().startswith(name + " "))
        assert spec.doc in line
    assert "sbeitla_hex = 2714 (or 2706)" in r.output
    assert t.run("games", "nosuch").exit_code == 1
