"""`pbem verify` without the key of a sealed BbF archive whose side has received and resolved
the other side's last file: that file's dice need this side's own secret dice, which only its
key opens, so the keyless audit says the file is not audited without the key; it does not say
that the file awaits resolution by its receiver (this side resolved it). With `--key` the file
is replayed and no such line is printed. (Seeded games, searched in order: the keys and dice
secrets decide whether the first files roll such dice, so a fresh random game could miss the
case; a CI run did once.)"""

from __future__ import annotations

from fixtures.seeded import seeded
from fixtures.table import Table


def test_keyless_verify_names_the_missing_key_not_a_resolution(tmp_path):
    for seed in range(6):
        with seeded(f"keyless-verify-{seed}"):      # keys and dice secrets: the game's dice
            t = Table(tmp_path / f"seed-{seed}", game="bcs", scenario="5.2", mode="sealed",
                      sides=("allied", "axis"), options=("entry_blocking=attack_from_off_map",))
        t.deliver()
        for _ in range(8):
            t.deliver()
            if t.mover() is None:
                break
            t.play_one()
            t.deliver_one()               # the receiver resolves it; its reply stays in transit
            for side in t.sides:
                keyed = t.ok("verify", str(t.dirs[side]), "--key", t.key(side)).output
                if "awaits resolution" in keyed:
                    continue              # a file of its own waiting for the other side: true
                bare = t.run("verify", str(t.dirs[side]))
                assert "Traceback" not in bare.output, bare.output
                assert "awaits resolution" not in bare.output, bare.output
                if "is not audited without" in bare.output:
                    line = next(x for x in bare.output.splitlines()
                                if "is not audited without" in x)
                    assert line.startswith("File ") and f"without {side}'s key" in line \
                        and "--key KEY" in line, line
                    return
    raise AssertionError("no archive of the first files held a file its side resolved")
