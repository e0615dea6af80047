"""Games are plugins: found through the pbem.games entry point group, never imported by name."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.tinygame import DashGame
from pbem.core import registry
from pbem.core.errors import PbemError

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


def install_plugin(where: Path, dist: str, entries: dict[str, str], modules: dict[str, str]) -> None:
    """An installed-style distribution: a dist-info folder with entry_points.txt, and its modules."""
    info = where / f"{dist}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[pbem.games]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    for name, text in modules.items():
        (where / f"{name}.py").write_text(text)


PLUGIN = '''
from fixtures.tinygame import DashGame

class PluginDash(DashGame):
    id = "{gid}"
    aliases = ("{gid}-alias",)

GAME = PluginDash()


class OtherDash(DashGame):
    id = "{gid}-class"
'''


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registry that discovers the entry points again (restored after the test)."""
    monkeypatch.setattr(registry, "_GAMES", dict(registry._GAMES))
    monkeypatch.setattr(registry, "_ALIASES", dict(registry._ALIASES))
    monkeypatch.setattr(registry, "_BROKEN", {})
    monkeypatch.setattr(registry, "_discovered", False)


def test_shipped_games_are_declared_entry_points() -> None:
    """holdfast and kasserine come from pyproject.toml's pbem.games group."""
    from importlib import metadata
    eps = {ep.name: ep.value for ep in metadata.entry_points(group="pbem.games")}
    assert eps.get("holdfast") == "pbem.games.holdfast:GAME"
    assert eps.get("kasserine") == "pbem.games.kasserine:GAME"
    assert registry.find_game("holdfast").id == "holdfast"
    assert registry.find_game("Kasserine-Baptism-of-Fire").id == "kasserine"


def test_installed_entry_point_is_discovered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             fresh: None) -> None:
    """A game in a distribution of its own is found by its entry point, aliases included."""
    install_plugin(tmp_path, "pbem_dashplugin", {"dashplugin": "dashplugin_mod:GAME",
                                                 "other": "dashplugin_mod:OtherDash"},
                   {"dashplugin_mod": PLUGIN.format(gid="dashplugin")})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "dashplugin_mod" not in sys.modules
    game = registry.find_game("dashplugin")
    assert game.id == "dashplugin" and type(game).__module__ == "dashplugin_mod"
    assert registry.find_game("DASHPLUGIN-alias") is game
    assert isinstance(registry.find_game("dashplugin-class"), DashGame)    # a class: one instance
    assert "dashplugin" in [g.id for g in registry.all_games()]
    assert registry.plugin_errors() == []


def test_unregistered_game_is_unknown(fresh: None) -> None:
    """Without an entry point (or register) a game is not known, and the message lists those that are."""
    with pytest.raises(PbemError, match=r"unknown game 'nosuchgame' \(known: .*holdfast.*\)"):
        registry.find_game("nosuchgame")


@pytest.mark.parametrize("module, expect", [
    ("raise ImportError('no module named shiny_dependency')",
     "game plugin 'broken' (broken_mod:GAME) failed to load: ImportError: no module named "
     "shiny_dependency"),
    ("GAME = object()", "game plugin 'broken' (broken_mod:GAME) is not a game: it lacks id"),
    ("x = 1", "game plugin 'broken' (broken_mod:GAME) failed to load: AttributeError"),
])
def test_broken_plugin_is_one_line_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             fresh: None, module: str, expect: str) -> None:
    """A plugin that fails to import or is not a game is named in one line; other games still work."""
    install_plugin(tmp_path, "pbem_broken", {"broken": "broken_mod:GAME"},
                   {"broken_mod": module})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "broken_mod", raising=False)
    assert registry.find_game("holdfast").id == "holdfast"
    for call in (lambda: registry.find_game("broken"), registry.all_games,
                 lambda: registry.find_game("other")):
        with pytest.raises(PbemError) as err:
            call()
        assert expect in str(err.value) and "\n" not in str(err.value)


def test_broken_plugin_through_the_cli(tmp_path: Path) -> None:
    """`pbem games` and `pbem new` with a broken installed plugin: one line naming it, no traceback."""
    install_plugin(tmp_path / "site", "pbem_broken", {"broken": "broken_cli_mod:GAME"},
                   {"broken_cli_mod": "import shiny_dependency_that_is_absent\n"})
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(TESTS)]))
    for args in (["games"], ["new", "broken", "s", str(tmp_path / "g"), "--side", "a",
                             "--key", "k.key", "--opponent", "o.pub", "--out", "p.pbem"]):
        r = subprocess.run([sys.executable, "-m", "pbem", *args], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=120)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, r.stderr
        assert lines[0].startswith("Error: game plugin 'broken' (broken_cli_mod:GAME) failed to "
                                   "load: ModuleNotFoundError"), lines[0]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


@pytest.mark.parametrize("layer", ["core", "protocol", "reports", "records"])
def test_layers_import_no_game_package(layer: str) -> None:
    """The core, protocol, reports and records never import pbem.games (games are plugins)."""
    offenders = [f"{p.relative_to(ROOT)}: {m}" for p in sorted((ROOT / "pbem" / layer).rglob("*.py"))
                 for m in _imports(p) if m == "pbem.games" or m.startswith("pbem.games.")]
    assert offenders == []
