"""The heap a run starts with is set aside from the collector while it runs, and given back
(conformance/core/heap.py)."""

from __future__ import annotations

import gc
import threading
from types import ModuleType
from typing import Any

import pytest

from subagent_tck.conformance.core import heap
from subagent_tck.conformance.engine.events import CheckFinished, CheckStarted
from subagent_tck.conformance.engine.runner import RunConfig, certify

#: More objects than an interpreter starts with frozen (CPython 3.12: a few hundred): a count
#: above it is a freeze of the heap.
FROZEN = 5000


def test_the_heap_is_frozen_inside_the_block_and_given_back_after_it() -> None:
    with heap.set_aside():
        assert gc.get_freeze_count() > FROZEN
    assert gc.get_freeze_count() == 0


def test_the_heap_is_given_back_when_the_block_raises() -> None:
    with pytest.raises(KeyError), heap.set_aside():
        raise KeyError("raised inside")
    assert gc.get_freeze_count() == 0


def test_blocks_open_at_once_share_one_freeze_that_the_last_to_end_gives_back() -> None:
    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with heap.set_aside():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(10)
    with heap.set_aside():
        pass
    assert gc.get_freeze_count() > FROZEN  # the other block is still open
    leave.set()
    thread.join(10)
    assert gc.get_freeze_count() == 0


def test_a_run_checks_with_the_heap_frozen_and_gives_it_back(fakes: ModuleType) -> None:
    seen: list[tuple[str, int]] = []

    def handler(event: Any) -> None:
        if isinstance(event, (CheckStarted, CheckFinished)):
            seen.append((type(event).__name__, gc.get_freeze_count()))

    cert = certify(fakes.FakeTarget(), RunConfig(rules=("TF-92",)), handlers=[handler])
    assert cert.selected_rules == ["TF-92"]
    assert [name for name, _ in seen] == ["CheckStarted", "CheckFinished"]
    assert all(count > FROZEN for _, count in seen), seen
    assert gc.get_freeze_count() == 0
