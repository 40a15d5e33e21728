"""The reads the lockstep plans with a change (fuzz/ahead.py): after the ``subagent`` tool's
loads and unloads, provider changes and spawn policies, every read the checks make rides with
the change, the snapshot a refusal is compared with included; none goes out alone."""

from __future__ import annotations

from typing import Any

import pytest

from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.conformance.transports.wire import OBSERVERS
from subagent_tck.fuzz.lockstep_core import Setup
from subagent_tck.fuzz.step import Step

from .conftest import run_steps


class _Counting:
    """A deployment with a batch route that counts the reads made alone and the batches."""

    def __init__(self, inner: Any, log: list[tuple[str, str]]) -> None:
        self.inner, self.log = inner, log

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)
        if name not in OBSERVERS:
            return method

        def alone(*args: Any, **kwargs: Any) -> Any:
            self.log.append(("alone", name))
            return method(*args, **kwargs)

        return alone

    def batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[Any, Any]]:
        out: list[tuple[Any, Any]] = []
        for name, arguments in calls:
            self.log.append(("batched", name))
            try:
                out.append((getattr(self.inner, name)(**arguments), None))
            except Exception as exc:  # a refusal: answered in its entry, as the wire does
                out.append((None, exc))
        return out


class _Target(ReferenceTarget):
    def __init__(self) -> None:
        super().__init__(name="counting")
        self.log: list[tuple[str, str]] = []

    def deploy(self, config: DeploymentConfig, gateway: Any) -> Any:
        return _Counting(super().deploy(config, gateway), self.log)


def _load(name: str, **more: Any) -> Step:
    return Step(op="load_tool", args={"name": name, "provider": "spawn", **more})


#: One of each change whose reads are planned (labels for the reader).
STEPS = {
    "a load": _load("delegate"),
    "a load refused as taken": _load("delegate"),
    "a load refused for its depth": _load("other", max_depth={"json": "-1"}),
    "an unload": Step(op="unload_tool", args={"name": "delegate"}),
    "an unload of an unknown tool": Step(op="unload_tool", args={"name": "never"}),
    "a provider removed": Step(op="remove_provider", args={"provider": "spawn"}),
    "a provider added": Step(op="add_provider", args={"provider": "spawn"}),
    "a refused spawn policy": Step(op="install_policy",
                                   args={"agent": "root", "value": {"allow": "reviewer"}}),
}


@pytest.mark.parametrize("edition", [None, "request-controls"])
def test_the_reads_after_tool_provider_and_policy_changes_ride_with_the_change(
        edition: str | None) -> None:
    target = _Target()
    try:
        setup = Setup() if edition is None else Setup(edition=edition)  # type: ignore[arg-type]
        steps = [Step(op="view", args={"agent": None}), *STEPS.values()]
        assert run_steps(target, setup, steps) is None
    finally:
        target.close()
    log = target.log
    assert ("batched", "observe") in log, "no refusal's snapshot was carried"
    after_setup = log[next(i for i, (how, _) in enumerate(log) if how == "batched"):]
    alone = [name for how, name in after_setup if how == "alone"]
    assert alone == [], f"reads made alone after a planned change: {alone}"
