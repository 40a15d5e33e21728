"""The heap a run starts with is set aside from the collector while it runs, and given back
(conformance/core/heap.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from subagent_tck.conformance.core import heap
from subagent_tck.conformance.engine.events import CheckFinished, CheckStarted
from subagent_tck.conformance.engine.runner import RunConfig, certify


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    assert gc.get_freeze_count() == 0, "a test before this one left the heap frozen"
    yield
    gc.unfreeze()


def test_the_heap_is_frozen_inside_the_block_and_given_back_after_it() -> None:
    with heap.set_aside():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_the_heap_is_given_back_when_the_block_raises() -> None:
    with pytest.raises(KeyError), heap.set_aside():
        raise KeyError("raised inside")
    assert gc.get_freeze_count() == 0


def test_a_freeze_made_before_the_block_is_left_to_whoever_made_it() -> None:
    gc.freeze()
    before = gc.get_freeze_count()
    with heap.set_aside():
        pass
    assert gc.get_freeze_count() == before > 0


def test_a_run_checks_with_the_heap_frozen_and_leaves_it_as_it_found_it(
        fakes: ModuleType) -> None:
    seen: list[tuple[str, int]] = []

    def handler(event: Any) -> None:
        if isinstance(event, (CheckStarted, CheckFinished)):
            seen.append((type(event).__name__, gc.get_freeze_count()))

    cert = certify(fakes.FakeTarget(), RunConfig(rules=("TF-92",)), handlers=[handler])
    assert cert.selected_rules == ["TF-92"]
    assert [name for name, _ in seen] == ["CheckStarted", "CheckFinished"]
    assert all(count > 0 for _, count in seen), seen
    assert gc.get_freeze_count() == 0
