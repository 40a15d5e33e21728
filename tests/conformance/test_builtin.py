"""The built-in target: every Deployment method through ReferenceTarget."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from subagent_tck.conformance.core.gateway import Gateway, call, text
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    ModelReply,
    PresetSpec,
    SectionSpec,
    SessionHeader,
    StartRequest,
    SubagentToolConfig,
    ToolSpec,
)
from subagent_tck.conformance.core.target import Deployment, Target
from subagent_tck.conformance.transports import builtin
from subagent_tck.conformance.transports.builtin import ReferenceTarget, reference_target
from subagent_tck.reference import ChildStart, Host, InProcessProvider
from subagent_tck.spec import (
    PERSONA_SECTION,
    Capability,
    Component,
    Edition,
    ErrorCode,
    Origin,
    PresentationMode,
    StopReason,
    TckError,
)

CONFIG = DeploymentConfig(
    edition=Edition.REQUEST_CONTROLS,
    persona="You are {{name}}.",
    variables={"name": "Ada"},
    sections=[SectionSpec(name="guide", text="Use b well.", guides="b")],
    tools=[ToolSpec(name=n, description=f"tool {n}") for n in ("a", "b", "c")],
    presets=[PresetSpec(name="rev", persona="Reviewer.", toolFilter={"allow": ["a"]})],
)


@pytest.fixture
def gateway() -> Gateway:
    return Gateway()


@pytest.fixture
def dep(gateway: Gateway) -> Iterator[Deployment]:
    deployment = reference_target().deploy(CONFIG, gateway)
    yield deployment
    deployment.close()


def test_the_reference_target_describes_itself() -> None:
    target = reference_target()
    assert isinstance(target, Target)
    info = target.info()
    assert info.name == "reference" and info.version
    assert info.editions == [Edition.PRESET_COMPOSITION, Edition.REQUEST_CONTROLS]
    by_name = {p.name: p for p in info.providers}
    assert list(by_name) == ["spawn", "fork", "acp"]
    assert by_name["fork"].inheritsParentContext and not by_name["spawn"].inheritsParentContext
    assert by_name["acp"].capabilities == []
    assert set(by_name["spawn"].capabilities) == {
        Capability.DEPTH_LIMIT, Capability.PERSONA, Capability.TOOL_FILTER,
        Capability.OUTPUT_SCHEMA, Capability.SPAWN_POLICY, Capability.MODEL_SELECTION,
    }
    shipped = builtin.subagent_tool_installed()
    assert (Component.SUBAGENT_TOOL in info.components) is shipped
    target.close()


def test_a_deployment_implements_the_protocol_and_starts_with_a_root(dep: Deployment) -> None:
    assert isinstance(dep, Deployment)
    root = dep.root()
    assert root.depth == 0 and dep.agents() == [root.agent]
    assert [v.name for v in dep.view(root.agent)] == ["a", "b", "c"]
    assert [(s.name, s.text) for s in dep.prompt(root.agent)] == [
        (PERSONA_SECTION, "You are Ada."), ("guide", "Use b well.")
    ]
    published = [e for e in dep.events() if e.kind == "agent.published"]
    assert published[0].data["snapshot"]["view"] == ["a", "b", "c"]


def test_a_child_start_goes_through_the_gateway_with_its_agent_id(
    dep: Deployment, gateway: Gateway
) -> None:
    root = dep.root()
    gateway.script("M1", call("b"), call("a", {"x": 1}), text("fin"))
    result = dep.start(StartRequest(
        parent=root.agent, provider="spawn", prompt="M1 go", persona="Child {{name}}.",
        toolFilter={"deny": ["b"]}, maxDepth=1, outputSchema={"type": "object"},
    ))
    assert result.stopReason is StopReason.COMPLETED and result.output == "fin"
    assert result.depth == 1
    assert [(r.isError, r.code) for r in result.toolResults] == [
        (True, "UNKNOWN_TOOL"), (False, None)
    ]
    first = gateway.requests(result.agent)[0]
    assert first.system == "Child Ada."
    assert [t.name for t in first.tools] == ["a", "c", "structured_output"]
    assert [i.model_dump() for i in dep.invocations()] == [
        {"tool": "a", "agent": result.agent, "origin": Origin.GLOBAL, "arguments": {"x": 1}}
    ]
    kinds = [e.kind for e in dep.events() if e.agent == result.agent]
    assert kinds == ["agent.published", "run.started", "run.stopped"]
    headers = {h.session: h for h in dep.sessions()}
    assert headers[result.session].delegationDepth == 1
    assert headers[result.session].parent == root.session
    assert headers[result.session].descriptor == {
        "provider": "spawn", "persona": "Child {{name}}.", "toolFilter": {"deny": ["b"]},
        "outputSchema": {"type": "object"},
    }


def test_a_preset_start_and_a_refused_start(dep: Deployment, gateway: Gateway) -> None:
    root = dep.root().agent
    result = dep.start(StartRequest(parent=root, provider="fork", prompt="p", preset="rev"))
    assert gateway.requests(result.agent)[0].system == "Reviewer."
    before = (dep.events(), dep.sessions(), dep.agents(), len(gateway.requests()))
    with pytest.raises(TckError) as caught:
        dep.start(StartRequest(parent=root, provider="acp", prompt="p", maxDepth=-1))
    assert caught.value.code is ErrorCode.UNSUPPORTED_CAPABILITY
    assert caught.value.details["capability"] == "depthLimit"
    assert (dep.events(), dep.sessions(), dep.agents(), len(gateway.requests())) == before


def test_tools_restrictions_modes_and_the_resolver(dep: Deployment) -> None:
    root = dep.root().agent
    dep.register_tool(ToolSpec(name="mine", description="local"), root)
    handle = dep.install_restriction(root, {"deny": ["a"]})
    dep.set_mode(root, PresentationMode.BOTH)
    assert [(v.name, v.origin) for v in dep.view(root)] == [
        ("b", Origin.GLOBAL), ("c", Origin.GLOBAL), ("mine", Origin.LOCAL),
        ("run_code", Origin.RESERVED),
    ]
    assert dep.view() == [v for v in dep.view() if v.origin is Origin.GLOBAL]
    assert dep.sdk_bindings(root) == ["b", "c", "mine"]
    assert [s.name for s in dep.tool_schemas(root)] == ["b", "c", "mine", "run_code"]
    assert dep.lookup(root, "a") is None
    entry = dep.lookup(root, "mine")
    assert entry is not None and entry.description == "local"
    assert dep.execute(root, "a", {}).code == "UNKNOWN_TOOL"
    echoed = dep.execute(root, "mine", {"k": 2})
    assert echoed.content == {"tool": "mine", "origin": "local", "arguments": {"k": 2}}
    ran = dep.execute(root, "run_code", {"calls": [{"tool": "b", "arguments": {}}]})
    assert ran.content["results"][0]["content"]["tool"] == "b"
    dep.dispose_restriction(root, handle)
    dep.dispose_restriction(root, handle)
    dep.unregister_tool("mine", root)
    dep.unregister_tool("c")
    assert [v.name for v in dep.view(root)] == ["a", "b", "run_code"]
    with pytest.raises(TckError) as caught:
        dep.install_restriction(root, {"allow": ["c", "zz"]})
    assert caught.value.details["offending"] == ["c", "zz"]


def test_agents_headers_and_resume(dep: Deployment) -> None:
    agent = dep.create_agent(header_depth=2, runtime_depth=5, has_runtime_depth=True)
    result = dep.start(StartRequest(parent=agent.agent, provider="spawn", prompt="x"))
    assert result.depth == 6
    dep.put_session_header(SessionHeader(session="planted", delegationDepth=float("nan")))
    with pytest.raises(TckError) as caught:
        dep.resume("planted")
    assert caught.value.code is ErrorCode.INVALID_DEPTH
    dep.put_session_header(SessionHeader(session="ok", delegationDepth=1, descriptor={
        "provider": "spawn", "persona": "Old."}))
    resumed = dep.resume("ok")
    assert resumed.depth == 1
    assert [s.text for s in dep.prompt(resumed.agent)] == ["Old.", "Use b well."]
    with pytest.raises(TckError) as bad:
        dep.create_agent(header_depth=-1)
    assert bad.value.code is ErrorCode.INVALID_DEPTH


def test_providers_can_be_removed_and_added_back_by_name(dep: Deployment) -> None:
    dep.remove_provider("fork")
    assert [p.name for p in dep.providers()] == ["spawn", "acp"]
    dep.add_provider("fork")
    assert [p.name for p in dep.providers()] == ["spawn", "acp", "fork"]
    with pytest.raises(TckError) as caught:
        dep.add_provider("nope")
    assert caught.value.code is ErrorCode.NO_PROVIDER
    assert [e.kind for e in dep.events()][-2:] == ["provider.removed", "provider.added"]


def test_turns_settings_and_abort(dep: Deployment, gateway: Gateway) -> None:
    root = dep.root().agent

    def abort(request: Any) -> ModelReply:
        dep.abort_turn(root)
        return ModelReply(text="late")

    gateway.script("T1", abort)
    result = dep.run_turn(root, "T1")
    assert result.stopReason is StopReason.ABORTED
    dep.abort_turn(root)
    dep.set_host_depth(3)
    dep.set_runtime_context(False)
    with pytest.raises(TckError) as caught:
        dep.set_host_depth(-0.0)
    assert caught.value.code is ErrorCode.INVALID_DEPTH


def test_the_subagent_tool_entries_reach_the_host(dep: Deployment) -> None:
    if builtin.subagent_tool_installed():
        dep.load_subagent_tool(SubagentToolConfig(provider="spawn", toolName="delegate"))
        assert "delegate" in [v.name for v in dep.view()]
        dep.unload_subagent_tool("delegate")
        assert "delegate" not in [v.name for v in dep.view()]
    else:
        with pytest.raises(TckError) as caught:
            dep.load_subagent_tool(SubagentToolConfig(provider="spawn"))
        assert caught.value.code is ErrorCode.INVALID_CONFIG


def test_a_file_store_is_removed_on_close(gateway: Gateway) -> None:
    dep = ReferenceTarget(store="file").deploy(CONFIG, gateway)
    assert isinstance(dep, builtin.ReferenceDeployment)
    path = dep.host.store.path
    assert os.path.exists(path)
    dep.close()
    assert not os.path.exists(os.path.dirname(path))


def test_a_bad_configuration_fails_the_deployment_cleanly(gateway: Gateway) -> None:
    with pytest.raises(TckError) as bad_template:
        reference_target().deploy(DeploymentConfig(persona="{{nope}}"), gateway)
    with pytest.raises(TckError) as duplicate:
        ReferenceTarget(store="file").deploy(
            DeploymentConfig(tools=[ToolSpec(name="a"), ToolSpec(name="a")]), gateway
        )
    with pytest.raises(TckError) as bad_preset:
        reference_target().deploy(DeploymentConfig(presets=[PresetSpec(name="")]), gateway)
    with pytest.raises(TckError) as bad_store:
        ReferenceTarget(store="disk")
    assert [e.value.code for e in (bad_template, duplicate, bad_preset, bad_store)] == [
        ErrorCode.INVALID_TEMPLATE, ErrorCode.DUPLICATE_TOOL, ErrorCode.INVALID_CONFIG,
        ErrorCode.INVALID_CONFIG,
    ]


def test_the_target_takes_extra_replacement_providers_and_a_host_class(gateway: Gateway) -> None:
    class NoGate(ChildStart):
        def gate_capabilities(self) -> None:
            """Broken on purpose: never refuses a control."""

    class BrokenHost(Host):
        child_start_class = NoGate

    extra = InProcessProvider("python", [Capability.PERSONA])
    target = ReferenceTarget(extra_providers=[extra], host_class=BrokenHost)
    assert [p.name for p in target.info().providers] == ["spawn", "fork", "acp", "python"]
    dep = target.deploy(CONFIG, gateway)
    root = dep.root().agent
    result = dep.start(StartRequest(parent=root, provider="acp", prompt="x", persona="P"))
    assert result.stopReason is StopReason.COMPLETED  # the broken host let it through
    dep.close()
    only = ReferenceTarget(providers=lambda: [InProcessProvider("solo")])
    assert [p.name for p in only.info().providers] == ["solo"]
    assert [p.name for p in reference_target(extra_providers=lambda: [extra]).info().providers][
        -1] == "python"


def test_every_agent_starts_in_the_configured_mode(gateway: Gateway) -> None:
    config = CONFIG.model_copy(update={"mode": PresentationMode.PTC})
    dep = reference_target().deploy(config, gateway)
    root = dep.root().agent
    child = dep.start(StartRequest(parent=root, provider="spawn", prompt="x"))
    for agent in (root, child.agent):
        assert [s.name for s in dep.tool_schemas(agent)] == ["run_code"]
    assert [t.name for t in gateway.requests(child.agent)[0].tools] == ["run_code"]
    dep.close()


def test_a_failed_file_deployment_leaves_no_temporary_store(
    gateway: Gateway, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for config in (DeploymentConfig(persona="{{nope}}"),
                   DeploymentConfig(tools=[ToolSpec(name="a"), ToolSpec(name="a")])):
        with pytest.raises(TckError):
            ReferenceTarget(store="file").deploy(config, gateway)
    assert list(tmp_path.iterdir()) == []


def test_an_in_process_target_gets_equal_copies_of_names_never_the_kits_own_objects(
    gateway: Gateway,
) -> None:
    seen: list[tuple[str, str]] = []

    class Recording(Host):
        def register_tool(self, tool: Any, agent: str | None = None) -> None:
            seen.append(("register_tool", tool.name))
            super().register_tool(tool, agent)

        def execute(self, agent: str, name: str, arguments: Any, signal: Any = None) -> Any:
            seen.append(("execute", name))
            return super().execute(agent, name, arguments, signal)

        def remove_provider(self, name: str) -> None:
            seen.append(("remove_provider", name))
            super().remove_provider(name)

    tool_name = "".join(["read", "_file"])  # a runtime-built string, not a shared literal
    config = CONFIG.model_copy(update={"tools": [ToolSpec(name=tool_name)]})
    dep = ReferenceTarget(host_class=Recording).deploy(config, gateway)
    try:
        provider = dep.providers()[0].name
        assert dep.execute(dep.root().agent, tool_name, {}).isError is False
        dep.remove_provider(provider)
    finally:
        dep.close()
    (_, registered), (_, executed), (_, removed) = seen
    # a reserved name compared by identity passes in-process with the kit's own string only
    # (examples/providers/reserved_name_by_identity.py)
    assert registered == tool_name and registered is not tool_name
    assert executed == tool_name and executed is not tool_name
    assert removed == provider and removed is not provider


def test_the_root_started_from_a_preset_carries_its_filter_and_persona(gateway: Gateway) -> None:
    target = reference_target()
    config = CONFIG.model_copy(update={"rootPreset": "rev"})
    dep = target.deploy(config, gateway)
    try:
        root = dep.root().agent
        assert {e.name for e in dep.view(root)} == {"a"}
        first = dep.prompt(root)[0]
        assert (first.name, first.text) == (PERSONA_SECTION, "Reviewer.")
    finally:
        dep.close()


@pytest.mark.parametrize(("update", "code"), [
    ({"permissions": [{"deny": ["a"]}]}, ErrorCode.INVALID_CONFIG),
    ({"rootPreset": "nobody"}, ErrorCode.UNKNOWN_PRESET),
    ({"rootPreset": 7}, ErrorCode.UNKNOWN_PRESET),
    ({"rootPreset": "bad", "presets": [PresetSpec(name="bad", toolFilter={"deny": ["z"]})]},
     ErrorCode.INVALID_TOOL_FILTER),
])
def test_a_root_preset_that_cannot_be_applied_or_permission_rules_refuse_the_deployment(
        gateway: Gateway, update: dict[str, Any], code: ErrorCode) -> None:
    with pytest.raises(TckError) as refused:
        reference_target().deploy(CONFIG.model_copy(update=update), gateway)
    assert refused.value.code is code


def test_the_reference_declares_the_live_child_and_root_channels() -> None:
    channels = reference_target().info().restrictionChannels or []
    assert [c.kind.value for c in channels] == ["live", "child", "root"]
