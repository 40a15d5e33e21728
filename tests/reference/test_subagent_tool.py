"""The reference ``subagent`` tool (reference/subagent_tool.py), driven through a Host."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subagent_tck.reference import (
    AbortSignal,
    AcpProvider,
    Host,
    InProcessProvider,
    ModelReply,
    ModelRequest,
    ScriptedModel,
    ToolCall,
)
from subagent_tck.reference.subagent_tool import (
    COMPONENT,
    FORK_PROMPT,
    FRESH_PROMPT,
    MOUNT_FAILED,
    SubagentTool,
    SubagentToolConfig,
)
from subagent_tck.spec import (
    CONTROLS,
    PERSONA_SECTION,
    PROVIDER_MANAGED,
    SUBAGENT_TOOL_PARAMETERS,
    Edition,
    ErrorCode,
    StopReason,
    TckError,
    check_depth,
)

from .conftest import make_host


def delegate(prompt: str, tool: str = "subagent", call_id: str = "t1") -> ModelReply:
    return ModelReply(
        tool_calls=(ToolCall(call_id, tool, {"description": "task", "prompt": prompt}),)
    )


def tool_message(model: ScriptedModel, agent: str, call_id: str = "t1") -> Any:
    found = [
        m for r in model.requests_of(agent) for m in r.messages
        if m.role == "tool" and m.tool_call_id == call_id
    ]
    assert found, f"{agent} never received the result of {call_id}"
    return found[-1]


def child_of(model: ScriptedModel, marker: str) -> str | None:
    agents = [r.agent for r in model.requests if any(
        m.role == "user" and marker in str(m.content) for m in r.messages)]
    return agents[0] if agents else None


def refused(action: Any) -> ErrorCode:
    with pytest.raises(TckError) as caught:
        action()
    return caught.value.code


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel()


@pytest.fixture
def host(model: ScriptedModel) -> Host:
    return make_host(model=model)


# --- configuration -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "code"),
    [
        ({}, ErrorCode.INVALID_CONFIG),
        ({"provider": ""}, ErrorCode.INVALID_CONFIG),
        ({"provider": "spawn", "type": "fork"}, ErrorCode.INVALID_CONFIG),
        ({"provider": "spawn", "toolName": "run_code"}, ErrorCode.INVALID_CONFIG),
        ({"provider": "spawn", "toolName": 3}, ErrorCode.INVALID_CONFIG),
        ({"provider": "spawn", "agentOptions": {"temperature": 1}}, ErrorCode.INVALID_CONFIG),
        ({"provider": "spawn", "agentOptions": {"model": 1}}, ErrorCode.INVALID_CONFIG),
        ({"provider": "spawn", "persona": 5}, ErrorCode.INVALID_CONFIG),
        ({"provider": "spawn", "toolFilter": {}}, ErrorCode.INVALID_TOOL_FILTER),
        ({"provider": "spawn", "maxDepth": "unbounded"}, ErrorCode.INVALID_DEPTH),
    ],
)
def test_a_malformed_configuration_is_refused_at_load_and_registers_nothing(
    host: Host, config: dict[str, Any], code: ErrorCode
) -> None:
    assert refused(lambda: host.load_subagent_tool(config)) is code
    assert "subagent" not in host.registry
    assert not host.component_state.get(COMPONENT)


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.integers(), st.floats(allow_nan=True), st.booleans(), st.text(max_size=3)))
def test_max_depth_is_accepted_at_load_iff_it_is_in_the_depth_domain(value: object) -> None:
    host = make_host()
    host.remove_provider("spawn")  # validation is the load's, not the mount's
    config = {"provider": "spawn", "maxDepth": value}
    if check_depth(value).ok:
        host.load_subagent_tool(config)
    elif value != PROVIDER_MANAGED:
        assert refused(lambda: host.load_subagent_tool(config)) is ErrorCode.INVALID_DEPTH


def test_the_preset_composition_edition_refuses_persona_and_tool_filter_on_the_tool() -> None:
    host = make_host(edition=Edition.PRESET_COMPOSITION)
    for key, value in (("persona", "Reviewer."), ("toolFilter", {"allow": ["a"]})):
        config = {"provider": "spawn", key: value}
        assert refused(lambda c=config: host.load_subagent_tool(c)) is (
            ErrorCode.REQUEST_CONTROLS_REFUSED
        )


@pytest.mark.parametrize(
    "config",
    [{"maxDepth": 2}, {"persona": "Reviewer."}, {"toolFilter": {"deny": ["a"]}}],
)
def test_a_control_the_provider_lacks_fails_at_mount(host: Host, config: dict[str, Any]) -> None:
    assert refused(lambda: host.load_subagent_tool({"provider": "acp", **config})) is (
        ErrorCode.UNSUPPORTED_CAPABILITY
    )
    assert "subagent" not in host.registry


def test_a_failed_mount_on_a_later_provider_is_logged_and_the_provider_stays(host: Host) -> None:
    acp = host.providers.get("acp")
    assert acp is not None
    host.remove_provider("acp")
    host.load_subagent_tool({"provider": "acp", "maxDepth": 1})
    host.add_provider(acp)
    assert host.providers.get("acp") is acp and "subagent" not in host.registry
    failed = [e for e in host.events.events() if e.kind == MOUNT_FAILED]
    assert failed and failed[0].data["code"] == ErrorCode.UNSUPPORTED_CAPABILITY.value


def test_request_controls_compose_every_child_the_tool_starts(model: ScriptedModel) -> None:
    host = make_host(model=model)
    host.load_subagent_tool(
        {"provider": "spawn", "persona": "Reviewer.", "toolFilter": {"allow": ["a"]}}
    )
    root = host.create_agent()
    model.script("ROOT", delegate("CHILD go"), ModelReply(text="ok"))
    host.run_turn(root.id, "ROOT")
    child = child_of(model, "CHILD")
    first = model.requests_of(child or "")[0]
    assert "Reviewer." in first.system and "Deployment persona." not in first.system
    assert sorted(t.name for t in first.tools) == ["a"]
    (published,) = [e for e in host.events.events()
                    if e.kind == "agent.published" and e.agent == child]
    assert [PERSONA_SECTION, "Reviewer."] in published.data["snapshot"]["prompt"]


def test_agent_options_are_validated_and_kept(host: Host) -> None:
    host.load_subagent_tool({"provider": "spawn", "agentOptions": {"model": "small"}})
    tool: SubagentTool = host.component_state[COMPONENT]["subagent"]
    assert tool.config == SubagentToolConfig("spawn", agent_options={"model": "small"})


# --- names and lifecycle -------------------------------------------------------------------


def test_a_taken_tool_name_is_refused_until_it_is_unloaded(host: Host) -> None:
    host.load_subagent_tool({"provider": "spawn"})
    again = {"provider": "fork"}
    assert refused(lambda: host.load_subagent_tool(again)) is ErrorCode.DUPLICATE_TOOL_NAME
    host.load_subagent_tool({"provider": "fork", "toolName": "subagent_fork"})
    assert {"subagent", "subagent_fork"} <= set(host.registry.names())
    host.unload_subagent_tool("subagent")
    assert "subagent" not in host.registry
    assert refused(lambda: host.unload_subagent_tool("subagent")) is ErrorCode.UNKNOWN_TOOL
    host.load_subagent_tool(again)
    assert "subagent" in host.registry


def test_the_tool_follows_its_provider_and_rederives_its_wording(host: Host) -> None:
    host.remove_provider("spawn")
    host.load_subagent_tool({"provider": "spawn"})
    assert "subagent" not in host.registry
    host.add_provider(InProcessProvider("spawn", CONTROLS, inherits_parent_context=True))
    prompt = host.registry.get("subagent")
    assert prompt is not None and prompt.parameters["properties"]["prompt"]["description"] == (
        FORK_PROMPT
    )
    host.remove_provider("spawn")
    assert "subagent" not in host.registry
    host.add_provider(InProcessProvider("spawn", CONTROLS))
    fresh = host.registry.get("subagent")
    assert fresh is not None
    assert fresh.parameters["properties"]["prompt"]["description"] == FRESH_PROMPT
    host.unload_subagent_tool("subagent")
    host.remove_provider("spawn")
    host.add_provider(InProcessProvider("spawn", CONTROLS))
    assert "subagent" not in host.registry


def test_the_model_sees_only_description_and_prompt(host: Host) -> None:
    host.load_subagent_tool({"provider": "spawn"})
    root = host.create_agent()
    (schema,) = [s for s in host.tool_schemas(root.id) if s.name == "subagent"]
    assert tuple(sorted(schema.parameters["properties"])) == SUBAGENT_TOOL_PARAMETERS
    assert schema.parameters["additionalProperties"] is False
    result = host.execute(root.id, "subagent", {"prompt": "x", "provider": "fork"})
    assert result.is_error and result.code == ErrorCode.INVALID_REQUEST.value


# --- depth -----------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(depth=st.integers(0, 6), cap=st.integers(0, 6))
def test_the_tool_refuses_iff_the_child_would_pass_the_live_cap(depth: int, cap: int) -> None:
    host = make_host(providers=[AcpProvider()])
    host.load_subagent_tool({"provider": "acp"})
    host.set_host_depth(cap)
    caller = host.create_agent(header_depth=depth)
    result = host.execute(caller.id, "subagent", {"description": "d", "prompt": "p"})
    assert result.is_error == (depth + 1 > cap)
    assert (result.code == ErrorCode.DEPTH_EXCEEDED.value) == (depth + 1 > cap)
    children = [a for a in host.agents() if a.parent == caller.id]
    assert children == []  # a refused call starts nothing; a completed one is disposed


def test_provider_managed_sends_no_cap_and_ignores_the_host_setting(model: ScriptedModel) -> None:
    host = make_host(model=model, host_depth=0)
    host.load_subagent_tool({"provider": "acp", "maxDepth": PROVIDER_MANAGED})
    root = host.create_agent()
    result = host.execute(root.id, "subagent", {"description": "d", "prompt": "p"})
    assert not result.is_error and result.content == "done"


def test_the_at_cap_notice_comes_once_per_cap_and_depth(model: ScriptedModel) -> None:
    host = make_host(model=model)
    host.load_subagent_tool({"provider": "spawn"})
    deep = host.create_agent(header_depth=2)
    model.script("DEEP", delegate("CHILD"), ModelReply(text="ok"), ModelReply(text="ok"))
    host.run_turn(deep.id, "DEEP")
    first, second = (r.context for r in model.requests_of(deep.id))
    assert len(first) == 1 and "depth 2" in first[0] and "cap is 1" in first[0]
    assert second == ()
    host.set_host_depth(3)
    host.run_turn(deep.id, "more")
    assert model.requests_of(deep.id)[-1].context == ()  # below the cap now
    host.set_host_depth(1)
    host.set_runtime_context(False)
    host.run_turn(deep.id, "more")
    assert model.requests_of(deep.id)[-1].context == ()


# --- runs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("reason", list(StopReason))
def test_every_run_is_disposed_and_only_completed_is_success(
    model: ScriptedModel, reason: StopReason
) -> None:
    host = make_host(model=model)
    host.load_subagent_tool({"provider": "spawn"})
    root = host.create_agent()
    model.script("ROOT", delegate("CHILD"), ModelReply(text="ok"))
    model.script("CHILD", ModelReply(text="partial", stop_reason=reason))
    host.run_turn(root.id, "ROOT")
    message = tool_message(model, root.id)
    child = child_of(model, "CHILD")
    assert message.is_error == (reason is not StopReason.COMPLETED)
    assert message.is_error == (reason.value in str(message.content))
    assert child is not None and child not in {a.id for a in host.agents()}
    disposed = [e.agent for e in host.events.events() if e.kind == "run.disposed"]
    assert disposed == [child]


def test_aborting_the_callers_turn_cancels_the_child_run(model: ScriptedModel) -> None:
    host = make_host(model=model)
    host.load_subagent_tool({"provider": "spawn"})
    root = host.create_agent()
    signal = AbortSignal()

    def abort(request: ModelRequest) -> ModelReply:
        signal.abort("user stopped")
        return ModelReply(tool_calls=(ToolCall("c", "a", {}),))

    model.script("ROOT", delegate("CHILD"), ModelReply(text="ok"))
    model.script("CHILD", abort, ModelReply(text="never"))
    result = host.run_turn(root.id, "ROOT", signal)
    child = child_of(model, "CHILD")
    assert result.stop_reason is StopReason.ABORTED
    assert len(model.requests_of(child or "")) == 1
    assert result.tool_results[0].is_error and "aborted" in str(result.tool_results[0].content)
    assert child not in {a.id for a in host.agents()}


def test_a_call_under_an_aborted_signal_starts_nothing(host: Host) -> None:
    host.load_subagent_tool({"provider": "spawn"})
    root = host.create_agent()
    signal = AbortSignal()
    signal.abort("gone")
    result = host.execute(root.id, "subagent", {"description": "d", "prompt": "p"}, signal)
    assert result.is_error and "aborted" in str(result.content)
    assert [a.id for a in host.agents()] == [root.id]
