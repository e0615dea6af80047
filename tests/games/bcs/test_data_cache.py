"""The checked BbF data set kept in pbem.core.cache (pbem.games.bcs.info.data): the entry
holds exactly what loading the files gives, and its name follows every data file and the code."""

from __future__ import annotations

import pickle
import shutil

from pbem.core import cache
from pbem.games.bcs import info, loader


def test_the_cached_data_set_is_the_loaded_one(cache_dir):
    key = info.data_key()
    fresh = loader.load_data()
    built = cache.remember("bcs-data", key, loader.load_data)   # stores the entry
    assert (cache_dir / f"bcs-data-{key}.bin").is_file()

    def refuse():
        raise AssertionError("the entry was not used")

    kept = cache.remember("bcs-data", key, refuse)
    assert kept is not built
    assert pickle.dumps(kept) == pickle.dumps(fresh)
    assert kept.scenarios.keys() == fresh.scenarios.keys()


def test_the_name_follows_every_data_file_and_the_code(tmp_path, monkeypatch):
    copy = tmp_path / "bcs"
    shutil.copytree(loader.DATA_DIR, copy)
    monkeypatch.setattr(loader, "DATA_DIR", copy)
    key = info.data_key()
    assert info.data_key() == key
    scen = copy / "scenarios" / "5.4.toml"
    scen.write_bytes(scen.read_bytes() + b"\n")
    assert info.data_key() != key                      # a scenario file's bytes
    key2 = info.data_key()
    (copy / "scenarios" / "5.4.toml").rename(copy / "scenarios" / "5.7.toml")
    assert info.data_key() != key2                     # a file's name
    assert set(info.DATA_CODE) >= {"pbem.games.bcs.loader", "pbem.games.bcs.data",
                                   "pbem.core.mapdata"}
    key3 = info.data_key()
    real = cache.source_hash
    monkeypatch.setattr(cache, "source_hash", lambda m: "0" * 64 if m is loader else real(m))
    assert info.data_key() != key3                     # the loader's source
