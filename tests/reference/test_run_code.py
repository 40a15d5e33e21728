"""The reference's run-code (Host.run_code, Resolver.run_code): a program of SDK calls made
through the scope's own run_code tool; the bindings decide what runs (docs/rules.md#tf-12)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from subagent_tck.reference import (
    ExecutionContext,
    Host,
    Resolver,
    Scope,
    ScriptedModel,
    ToolResult,
)
from subagent_tck.spec import RUN_CODE, ErrorCode, TckError

from .conftest import echo


def _host(log: list[tuple[str, str]], resolver: type[Resolver] = Resolver) -> tuple[Host, str]:
    class _Host(Host):
        resolver_class = resolver

    host = _Host(ScriptedModel())
    for name in ("a", "b", "c"):
        host.register_tool(echo(name, log))
    agent = host.create_agent().id
    host.register_tool(echo("a", log, "local a"), agent)
    host.restrict(agent, {"deny": ["b"]})
    return host, agent


@pytest.mark.parametrize("mode", ["ptc", "both"])
def test_a_program_runs_each_bound_call_once_in_order_and_refuses_the_rest(mode: str) -> None:
    log: list[tuple[str, str]] = []
    host, agent = _host(log)
    host.set_mode(agent, mode)
    results = host.run_code(agent, [("c", {"x": 1}), ("b", {}), ("zulu", {}), (RUN_CODE, {}),
                                    ("A", {}), ("a", {"y": [1]})])
    assert [(r.is_error, r.code) for r in results] == [
        (False, None), *[(True, ErrorCode.UNKNOWN_TOOL.value)] * 4, (False, None)]
    assert results[0].content == {"tool": "c", "arguments": {"x": 1}}
    assert log == [("c", agent), ("a", agent)]
    assert host.lookup(agent, "a").tool.description == "local a"  # type: ignore[union-attr]


def test_in_native_mode_nothing_is_bound_and_nothing_runs() -> None:
    log: list[tuple[str, str]] = []
    host, agent = _host(log)
    results = host.run_code(agent, [("a", {}), ("c", {})])
    assert [r.code for r in results] == [ErrorCode.UNKNOWN_TOOL.value] * 2
    assert "ptc or both" in str(results[0].content) and log == []


def test_the_program_goes_through_the_scopes_run_code_tool() -> None:
    seen: list[Any] = []

    class Watching(Resolver):
        def _run_calls(self, scope: Scope, arguments: Mapping[str, Any],
                       context: ExecutionContext) -> ToolResult:
            seen.append(dict(arguments))
            return super()._run_calls(scope, arguments, context)

    log: list[tuple[str, str]] = []
    host, agent = _host(log, Watching)
    host.set_mode(agent, "ptc")
    host.run_code(agent, [("c", {"k": "v"})])
    assert seen == [{"calls": [{"tool": "c", "arguments": {"k": "v"}}]}]


@pytest.mark.parametrize("calls", [[("a",)], [(1, {})], [("a", [])], ["a"]])
def test_a_malformed_program_is_refused_and_runs_nothing(calls: Any) -> None:
    log: list[tuple[str, str]] = []
    host, agent = _host(log)
    host.set_mode(agent, "ptc")
    with pytest.raises(TckError) as caught:
        host.run_code(agent, calls)
    assert caught.value.code is ErrorCode.INVALID_REQUEST and log == []


def test_an_unknown_agent_is_refused() -> None:
    host, _ = _host([])
    with pytest.raises(TckError) as caught:
        host.run_code("nobody", [("a", {})])
    assert caught.value.code is ErrorCode.UNKNOWN_AGENT
