"""Errors cross process boundaries whole: the bulk exchange runs games in a process pool, and
an IllegalFile raised in a worker must come back as itself (its default pickling called the
class with the message alone, which its keyword-only arguments refuse, and the pool reported
only 'a process terminated abruptly')."""

from __future__ import annotations

import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

from pbem.core.errors import IllegalFile, IllegalOrder, OrderSyntaxError


def _raise(kind: str) -> None:
    if kind == "file":
        raise IllegalFile("0060-axis.pbem: illegal order 2 'x': no [R-1]", order=2,
                          reason="no", rule="R-1")
    raise IllegalOrder("no such unit", rule="R-2", line=3, order="move x B1.01")


@pytest.mark.parametrize("error", [
    IllegalFile("f.pbem: illegal order 2 'x': no [R-1]", order=2, reason="no", rule="R-1"),
    IllegalOrder("no such unit", rule="R-2", line=3, order="move x B1.01"),
    OrderSyntaxError("malformed 'move'")])
def test_an_error_pickles_with_its_fields(error):
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and str(back) == str(error)
    assert vars(back) == vars(error)


def test_an_illegal_file_raised_in_a_worker_comes_back_as_itself():
    with ProcessPoolExecutor(max_workers=1) as pool:
        with pytest.raises(IllegalFile) as e:
            pool.submit(_raise, "file").result()
        assert (e.value.order, e.value.rule) == (2, "R-1")
        with pytest.raises(IllegalOrder) as o:
            pool.submit(_raise, "order").result()
        assert (o.value.line, o.value.rule) == (3, "R-2")
