"""The optional batch route (docs/driver-api.md#batch): the kit's server answers each call as it
would alone, the kit's client falls back to one call at a time where a target lacks the route,
and the fuzz campaign carries a step's reads with its change without changing what it sees."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig, ToolSpec
from subagent_tck.conformance.engine import own_tools
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.http_server import DriverApp
from subagent_tck.conformance.transports.http_target import HttpDeployment, HttpTarget
from subagent_tck.conformance.transports.httpd import Answer, Request, ServerThread
from subagent_tck.fuzz.campaign import run_campaign
from subagent_tck.spec import ErrorCode, TckError


def _deployment(target: HttpTarget) -> HttpDeployment:
    return target.deploy(DeploymentConfig(), Gateway())


def test_a_batch_answers_each_call_as_alone_in_order(http_target: HttpTarget) -> None:
    deployment = _deployment(http_target)
    tool = ToolSpec(name="batched")
    outcomes = deployment.batch([
        ("register_tool", {"tool": tool}), ("register_tool", {"tool": tool}),
        ("view", {"agent": None}), ("unregister_tool", {"name": "batched"}),
        ("view", {}),
    ])
    assert outcomes is not None and len(outcomes) == 5
    assert outcomes[0] == (None, None)
    refused = outcomes[1][1]
    assert isinstance(refused, TckError) and refused.code is ErrorCode.DUPLICATE_TOOL
    assert [e.name for e in outcomes[2][0]] == ["batched"]  # the refusal stopped nothing
    assert outcomes[3] == (None, None) and outcomes[4] == ([], None)
    assert http_target.batches is True
    deployment.close()


def test_a_batch_of_the_wrong_shape_is_refused_whole_and_runs_nothing(
    http_target: HttpTarget,
) -> None:
    deployment = _deployment(http_target)
    path = f"{deployment._path}/batch"
    for body in ({}, {"calls": {}}, {"calls": [{"arguments": {}}]}, {"calls": [], "x": 1},
                 {"calls": [{"operation": "register-tool",
                             "arguments": {"tool": {"name": "never"}}}, 5]},
                 {"calls": [{"operation": "view"}] * 257}):
        with pytest.raises(TckError) as refused:
            http_target.request("POST", path, body, what="batch")
        assert refused.value.code is ErrorCode.INVALID_REQUEST
    assert deployment.view(None) == []
    deployment.close()


def test_an_unknown_operation_in_a_batch_breaks_the_protocol_like_its_own_route(
    http_target: HttpTarget,
) -> None:
    deployment = _deployment(http_target)
    data = http_target.request("POST", f"{deployment._path}/batch",
                               {"calls": [{"operation": "no-such-op"}, {"operation": "agents"}]},
                               what="batch")
    assert data["results"][0]["error"]["code"] == "PROTOCOL_ERROR"
    assert len(data["results"][1]["result"]) == 1  # the root, answered all the same
    deployment.close()


class _NoBatch(DriverApp):
    """A server of an adapter that has no batch route (the route is an unknown operation)."""

    requests = 0

    def handle(self, request: Request) -> Answer:
        type(self).requests += 1
        if request.target.endswith("/batch"):
            request.target = request.target[: -len("batch")] + "no-batch-here"
        return super().handle(request)


@pytest.fixture
def no_batch() -> Iterator[HttpTarget]:
    with ServerThread(_NoBatch(reference_target(), model_timeout=10.0)) as server:
        target = HttpTarget(server.url, timeout=10.0)
        yield target
        target.close()


def test_a_target_without_the_route_is_asked_once_then_driven_call_by_call(
    no_batch: HttpTarget,
) -> None:
    deployment = _deployment(no_batch)
    assert deployment.batch([("view", {"agent": None})]) is None
    assert no_batch.batches is False
    before = _NoBatch.requests
    assert deployment.batch([("view", {"agent": None})]) is None  # not asked again
    assert _NoBatch.requests == before
    deployment.close()


def _campaign(target: Any) -> Any:
    return run_campaign(target, seed=3, max_examples=6, budget_seconds=300, database_dir=None,
                        output_dir=None)


def test_a_campaign_sees_the_same_with_a_steps_reads_batched_or_not(
    http_target: HttpTarget, no_batch: HttpTarget,
) -> None:
    counted: list[str] = []
    original = HttpTarget.exchange

    def exchange(self: HttpTarget, method: str, path: str, *args: Any, **kwargs: Any) -> Any:
        counted.append(path)
        return original(self, method, path, *args, **kwargs)

    local = _campaign(reference_target())
    HttpTarget.exchange = exchange  # type: ignore[method-assign]
    try:
        batched = _campaign(http_target)
        round_trips = len(counted)
        counted.clear()
        alone = _campaign(no_batch)
    finally:
        HttpTarget.exchange = original  # type: ignore[method-assign]
    for result in (local, batched, alone):
        assert result.finding is None and result.error is None, result.report()
    assert (batched.steps, batched.operations) == (local.steps, local.operations)
    assert (alone.steps, alone.operations) == (local.steps, local.operations)
    # a step's reads ride with its change: far fewer round trips than one call at a time
    assert round_trips * 2 < len(counted), (round_trips, len(counted))


def test_an_entry_with_a_kit_code_is_the_target_breaking_the_protocol(
    http_target: HttpTarget, monkeypatch: pytest.MonkeyPatch,
) -> None:
    deployment = _deployment(http_target)
    monkeypatch.setattr(http_target, "_interpret", lambda status, data, what: {"results": [
        {"error": {"code": "TIMEOUT", "message": "made up", "details": {}}}]})
    with pytest.raises(TckError) as broken:
        deployment.batch([("agents", {})])
    assert broken.value.code is ErrorCode.PROTOCOL_ERROR and "TIMEOUT" in broken.value.message
    monkeypatch.undo()
    deployment.close()


def test_a_batch_leaves_the_targets_own_tools_out_as_its_reads_alone_do(
        http_target: HttpTarget) -> None:
    # docs/certify.md#tools-the-target-brings: the fuzz campaign's reads ride in batches, so a
    # batch that showed the target's own tool would be a divergence the target never made
    inner = _deployment(http_target)
    inner.register_tool(ToolSpec(name="plugin_route"))
    deployment: Any = own_tools._HidingDeployment(inner, frozenset({"plugin_route"}))
    root = deployment.root().agent
    outcomes = deployment.batch([
        ("register_tool", {"tool": ToolSpec(name="read")}), ("view", {"agent": None}),
        ("view", {"agent": root}), ("tool_schemas", {"agent": root}), ("observe", {}),
    ])
    assert outcomes is not None and len(outcomes) == 5
    alone = [deployment.view(None), deployment.view(root), deployment.tool_schemas(root)]
    assert [[e.name for e in value] for value, _ in outcomes[1:4]] == \
        [[e.name for e in value] for value in alone] == [["read"]] * 3
    assert outcomes[4][0] == deployment.observe()
