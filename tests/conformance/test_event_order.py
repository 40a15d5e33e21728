"""The lifecycle log is one ordered log whose seq increases (docs/driver-api.md#routes): a
target whose log is out of order answered off the protocol, an error of the target (exit 3),
never a rule failure and never read as events in another order."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.unsupported import in_order
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.reference import Host
from subagent_tck.reference.events import EventLog
from subagent_tck.spec import ErrorCode, TckError


def log(*seqs: object) -> list[Any]:
    return [SimpleNamespace(seq=s) for s in seqs]


@given(st.lists(st.integers(), unique=True).map(sorted))
def test_a_log_whose_seq_increases_is_in_order(seqs: list[int]) -> None:
    in_order(log(*seqs), "events")


@pytest.mark.parametrize("seqs", [(1, 1), (2, 1), (1, 3, 3), (1, "2"), (None, 1), (1.0, 2)])
def test_a_log_out_of_order_is_a_protocol_error_naming_the_pair(seqs: tuple[object, ...]) -> None:
    with pytest.raises(TckError) as raised:
        in_order(log(*seqs), "observe")
    assert raised.value.code is ErrorCode.PROTOCOL_ERROR
    assert "observe: the lifecycle log is out of order" in raised.value.message


class RepeatingLog(EventLog):
    """Every event numbered 1 (an adapter that forgot to count)."""

    def emit(self, *args: Any, **kwargs: Any) -> Any:
        event = super().emit(*args, **kwargs)
        with self._lock:
            self._events[-1] = dataclasses.replace(event, seq=1)
        return self._events[-1]


class RepeatingHost(Host):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events = RepeatingLog()


def test_a_target_whose_log_is_out_of_order_is_an_error_of_the_target_not_a_failure() -> None:
    target = ReferenceTarget(host_class=RepeatingHost, name="repeating-seq")
    try:
        cert = certify(target, RunConfig(seed=0, rules=("DE-01",)))
    finally:
        target.close()
    rule = cert.rule("DE-01")
    assert rule.outcome is Outcome.ERROR, rule.outcome
    assert any("out of order" in f.message and f.error for f in rule.failures)
