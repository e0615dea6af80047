"""`pbem verify`'s collector settings (pbem.protocol.audit.audit_collector): what they leave
behind."""

from __future__ import annotations

import gc

from pbem.protocol.audit import AUDIT_GC_THRESHOLD, audit_collector


class _Node:
    def __init__(self) -> None:
        self.me = self


def test_the_collector_is_restored_and_what_the_audit_left_is_still_collected():
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    with audit_collector():
        assert gc.get_threshold()[0] >= AUDIT_GC_THRESHOLD
        assert gc.get_freeze_count() > 0
        cycle = _Node()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    del cycle
    gc.collect()
    assert not any(isinstance(o, _Node) for o in gc.get_objects())


def test_a_freeze_made_by_the_caller_is_left_alone():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with audit_collector():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
