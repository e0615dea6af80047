"""Writing gateway configurations for tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def pbem_process(*args: str, kill_at: int = 0, when: str = "before") -> subprocess.Popen:
    """The pbem command line in a child process with the test game registered
    (tests/fixtures/crashkill.py: kill_at=N dies by SIGKILL at the N-th write or fsync)."""
    paths = [str(TESTS), str(TESTS.parent), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))
    return subprocess.Popen([sys.executable, "-m", "fixtures.crashkill", str(kill_at), when,
                             *args], cwd=TESTS, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def write_config(path: Path, *, address: str, key: str, archives: Path, maildir: Path,
                 port: int, cafile: Path, games: dict[str, dict[str, str]],
                 security: str = "starttls", report_to: str = "", extra: str = "") -> Path:
    lines = ["[gateway]", f'address = "{address}"', f'key = "{key}"',
             f'archives = "{archives}"', f'maildir = "{maildir}"',
             f'state = "{path.parent / (path.stem + ".sqlite")}"', "interval = 0.1"]
    if report_to:
        lines.append(f'report_to = "{report_to}"')
    lines += ["", "[smtp]", 'host = "127.0.0.1"', f"port = {port}", f'security = "{security}"',
              f'cafile = "{cafile}"', "timeout = 10", extra]
    for name, book in games.items():
        lines += ["", f"[games.{name}]"] + [f'{p} = "{a}"' for p, a in book.items()]
    path.write_text("\n".join(lines) + "\n")
    return path
