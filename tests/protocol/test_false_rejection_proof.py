"""A false rejection the player's receive refused (nothing stored, "keep this signed rejection:
it is the proof") must be provable without the player's key and before the referee publishes
his archive: `pbem verify PLAYER_ARCHIVE REJECTION` judges it as receive does."""

from __future__ import annotations

from pbem.core.keys import load_private
from pbem.core.records import Rejection, read_file, seal

from fixtures.table import Table


def test_a_false_rejection_given_to_verify_of_the_player_archive_is_named(tmp_path):
    t = Table(tmp_path, mode="hosted", options=("gusts=1",))
    t.deliver()
    legal = tmp_path / "orders.txt"
    legal.write_text("pick alphawolf\n")
    sent = tmp_path / "legal.pbem"
    t.ok("submit", str(t.dirs["red"]), str(legal), "--key", t.key("red"), "--out", str(sent))
    f = read_file(sent)
    rej = Rejection(game_id=f.payload.game_id, seq=1, sender="red", file=f.hash, order=1,
                    reason="unknown codeword", rule="DASH-3")
    rpath = tmp_path / "rej.pbem"
    rpath.write_text(seal(rej, load_private(t.key("host"))).text)
    r = t.run("receive", str(t.dirs["red"]), str(rpath), "--key", t.key("red"))
    assert r.exit_code == 3, r.output
    # the proof, checked by anyone holding the player's archive (no key needed)
    r = t.run("verify", str(t.dirs["red"]), str(rpath))
    assert r.exit_code == 3, r.output
    assert "own view allows every order of it" in r.output, r.output
    # a true rejection of the same file (another order) given the same way is no problem
    # (the view allows the file: only the false one is named), nor is a rejection of a file
    # the player never signed
    r = t.run("verify", str(t.dirs["red"]))
    assert r.exit_code == 0, r.output


def test_a_true_rejection_given_to_verify_of_the_player_archive_is_no_problem(tmp_path):
    from pbem.core.records import Turn
    from pbem.protocol.archive import Archive
    from pbem.protocol.hosted import load_player
    from pbem.protocol.session import own_onion

    t = Table(tmp_path, mode="hosted", options=("gusts=1",))
    t.deliver()
    ps = load_player(Archive(t.dirs["red"]))
    v = ps.latest
    key = load_private(t.key("red"))
    own = own_onion(Archive(t.dirs["red"]), ps.genesis, "red", key)
    f = seal(Turn(game_id=ps.genesis.game_id, seq=v.seq + 1, prev=v.tip, sender="red",
                  reveal=own.main.element(v.seq + 1).hex(), orders=["pick zulu"]),
             key, name=f"{v.seq + 1:04d}-red.pbem")
    (t.dirs["red"] / "files" / f.name).write_text(f.text)        # a modified client
    sent = tmp_path / "illegal.pbem"
    sent.write_text(f.text)
    out = tmp_path / "true.pbem"
    r = t.run("receive", str(t.dirs["host"]), str(sent), "--key", t.key("host"), "--out",
              str(out))
    assert r.exit_code == 1 and "refused" in r.output, r.output
    t.ok("verify", str(t.dirs["red"]), str(out))               # not received yet: judged, true
    t.ok("receive", str(t.dirs["red"]), str(out), "--key", t.key("red"))
    t.ok("verify", str(t.dirs["red"]), str(out))               # stored: judged once, true
