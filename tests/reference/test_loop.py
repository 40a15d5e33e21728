"""The agent loop: forged calls, bounded steps, aborts, model failures, stable composition."""

from __future__ import annotations

from typing import Any

from subagent_tck.reference import (
    ExecutionContext,
    Host,
    ModelReply,
    ModelRequest,
    ScriptedModel,
    Tool,
    ToolCall,
)
from subagent_tck.spec import StopReason

from .conftest import calls, echo, make_host


def scripted(host: Host) -> ScriptedModel:
    assert isinstance(host.model, ScriptedModel)
    return host.model


def test_a_forged_call_gets_unknown_tool_and_the_turn_goes_on() -> None:
    log: list[tuple[str, str]] = []
    host = make_host(())
    host.register_tool(echo("hidden", log))
    agent = host.create_agent()
    host.restrict(agent.id, {"deny": ["hidden"]})
    scripted(host).script("GO", calls("hidden"), ModelReply(text="after"))
    result = host.run_turn(agent.id, "GO")
    assert result.stop_reason is StopReason.COMPLETED and result.output == "after"
    assert [(r.is_error, r.code) for r in result.tool_results] == [(True, "UNKNOWN_TOOL")]
    assert log == []
    second = scripted(host).requests_of(agent.id)[1]
    assert second.messages[-1].role == "tool" and second.messages[-1].is_error


def test_later_requests_keep_the_composition_and_follow_the_live_registry() -> None:
    host = make_host(("a", "b"))
    agent = host.create_agent()
    host.restrict(agent.id, {"deny": ["b"]})

    def register_late(request: ModelRequest) -> ModelReply:
        host.register_tool(echo("late"))
        return calls("a")

    scripted(host).script("GO", register_late, ModelReply(text="end"))
    host.run_turn(agent.id, "GO")
    first, second = scripted(host).requests_of(agent.id)
    assert [t.name for t in first.tools] == ["a"]
    assert [t.name for t in second.tools] == ["a", "late"]
    assert first.system == second.system


def test_the_step_limit_ends_the_turn_with_an_error() -> None:
    host = make_host(("a",), model=ScriptedModel(default=calls("a")), max_steps=3)
    agent = host.create_agent()
    result = host.run_turn(agent.id, "loop")
    assert result.stop_reason is StopReason.ERROR and "3 model steps" in result.output
    assert len(scripted(host).requests) == 3


def test_a_model_that_raises_ends_the_turn_with_an_error() -> None:
    class Raising:
        def complete(self, request: ModelRequest) -> ModelReply:
            raise ConnectionError("gateway down")

    host = Host(Raising())
    agent = host.create_agent()
    result = host.run_turn(agent.id, "x")
    assert result.stop_reason is StopReason.ERROR and "gateway down" in result.output


def test_an_abort_during_a_tool_call_stops_the_turn_as_aborted() -> None:
    host = make_host(())
    agent = host.create_agent()

    def abort_own_turn(arguments: Any, context: ExecutionContext) -> str:
        context.host.abort_turn(context.agent, "cancelled by tool")
        return "ok"

    host.register_tool(Tool("stop", abort_own_turn))
    scripted(host).script("GO", calls("stop"), ModelReply(text="never"))
    result = host.run_turn(agent.id, "GO")
    assert result.stop_reason is StopReason.ABORTED and result.output == "cancelled by tool"
    assert len(scripted(host).requests_of(agent.id)) == 1
    assert agent.id not in host.running_turns


def test_an_abort_while_the_model_answers_stops_the_turn() -> None:
    host = make_host(())
    agent = host.create_agent()

    def abort(request: ModelRequest) -> ModelReply:
        host.abort_turn(agent.id)
        return ModelReply(text="late")

    scripted(host).script("GO", abort)
    result = host.run_turn(agent.id, "GO")
    assert result.stop_reason is StopReason.ABORTED


def test_a_nested_turn_restores_the_outer_turns_signal() -> None:
    host = make_host(())
    agent = host.create_agent()
    outer: list[object] = []

    def nested(arguments: Any, context: ExecutionContext) -> str:
        outer.append(host.running_turns[agent.id])
        host.run_turn(agent.id, "inner")
        outer.append(host.running_turns[agent.id])
        return "ok"

    host.register_tool(Tool("nest", nested))
    scripted(host).script("OUTER", calls("nest"), ModelReply(text="end"))
    host.run_turn(agent.id, "OUTER")
    assert outer[0] is outer[1]


def test_tool_calls_with_a_non_completed_stop_reason_end_the_turn() -> None:
    host = make_host(("a",))
    agent = host.create_agent()
    reply = ModelReply("partial", (ToolCall("1", "a", {}),), StopReason.MAX_TOKENS)
    scripted(host).script("GO", reply)
    result = host.run_turn(agent.id, "GO")
    assert result.stop_reason is StopReason.MAX_TOKENS and result.output == "partial"
    assert len(result.tool_results) == 1
