"""pbem.core.cache: entries named by the hash of their inputs, checked by the hash of their body."""

from __future__ import annotations

import hashlib

from pbem.core import cache


def test_an_intact_entry_is_returned_and_a_damaged_one_is_not(cache_dir):
    key = cache.key_of("k", "input")
    assert cache.load("k", key) is None
    assert cache.store("k", key, b"body")
    assert cache.load("k", key) == b"body"
    path = cache_dir / f"k-{key}.bin"
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 1
    path.write_bytes(bytes(raw))
    assert cache.load("k", key) is None                     # body no longer matches its hash
    path.write_bytes(b"junk")
    assert cache.load("k", key) is None


def test_the_key_changes_with_every_input(tmp_path, cache_dir):
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    k1 = cache.files_key("data", [a, b])
    assert cache.files_key("data", [a, b]) == k1
    a.write_text("x = 2\n")
    assert cache.files_key("data", [a, b]) != k1               # other bytes
    assert cache.files_key("data", [b, a]) != cache.files_key("data", [a, b])
    assert cache.files_key("other", [a, b]) != cache.files_key("data", [a, b])
    assert cache.key_of("k", "ab", "c") != cache.key_of("k", "a", "bc")   # length-prefixed


def test_remember_builds_once_and_rebuilds_a_junk_entry(cache_dir):
    built = []

    def build():
        built.append(1)
        return {"x": (1, 2)}

    assert cache.remember("r", "key", build) == {"x": (1, 2)}
    assert cache.remember("r", "key", build) == {"x": (1, 2)}
    assert len(built) == 1
    body = b"\x80not a pickle"                               # right hash, wrong contents
    (cache_dir / "r-key.bin").write_bytes(cache.MAGIC + hashlib.sha256(body).hexdigest().encode()
                                       + b"\n" + body)
    assert cache.remember("r", "key", build) == {"x": (1, 2)}
    assert len(built) == 2


def test_no_cache_folder_means_no_cache(monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, "")
    assert cache.folder() is None
    assert not cache.store("k", "key", b"x") and cache.load("k", "key") is None
    built = []
    cache.remember("r", "key", lambda: built.append(1))
    cache.remember("r", "key", lambda: built.append(1))
    assert len(built) == 2


def test_old_entries_are_pruned(cache_dir, monkeypatch):
    monkeypatch.setattr(cache, "KEEP", 3)
    for i in range(6):
        cache.store("p", f"{i:02d}", b"x")
    assert len(list(cache_dir.glob("p-*.bin"))) == 3
