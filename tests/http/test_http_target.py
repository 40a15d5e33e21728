"""The reference over HTTP is the reference in-process (conformance/transports/http_target.py and
conformance/transports/http_server.py end to end, with the model gateway served by the kit)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from target_wrappers import Wrapped

from subagent_tck.conformance.core.gateway import Gateway, call, text
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    ModelReply,
    ModelRequest,
    PresetSpec,
    SectionSpec,
    SessionHeader,
    StartRequest,
    SubagentToolConfig,
    ToolSpec,
)
from subagent_tck.conformance.core.target import Deployment, Target
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.http_server import create_app
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.httpd import ServerThread
from subagent_tck.conformance.transports.wire import dumps, loads
from subagent_tck.spec import Edition, ErrorCode, PresentationMode, StopReason, TckError

CONFIG = DeploymentConfig(
    persona="You review {{lang}} code.", variables={"lang": "Rust"},
    sections=[SectionSpec(name="guide:web", text="Use web carefully.", guides="web")],
    tools=[ToolSpec(name=n, description=f"tool {n}") for n in ("read", "web", "shell")],
    presets=[PresetSpec(name="reader", persona="You only read.", toolFilter={"allow": ["read"]})],
)


def outcome(action: Callable[[], Any]) -> Any:
    """A result or a refusal, as JSON (so both transports compare as values)."""
    try:
        return loads(dumps(action()))
    except TckError as exc:
        return {"refused": exc.code.value}


def as_wire(request: ModelRequest) -> Any:
    """A recorded request as Chat Completions carries it: a tool result's content is text
    (docs/driver-api.md, "Model gateway"); everything else is kept."""
    messages = [m.model_copy(update={"content": m.content if isinstance(m.content, str)
                                     else json.dumps(m.content)}) if m.role == "tool" else m
                for m in request.messages]
    return loads(dumps(request.model_copy(update={"messages": messages})))


def scenario(target: Target, edition: Edition = Edition.PRESET_COMPOSITION) -> dict[str, Any]:
    """A tour of the driver operations; returns everything observed, as JSON."""
    gateway = Gateway()
    gateway.script("MARK-ROOT", call("read", {"path": "a.txt", "n": 1}), call("forged"),
                   text("root finished"))
    gateway.script("MARK-CHILD", call("web", {"q": "x"}), text("child finished"))
    deployment = target.deploy(CONFIG.model_copy(update={"edition": edition}), gateway)
    seen: dict[str, Any] = {}
    try:
        root = deployment.root().agent
        seen["root"] = outcome(deployment.root)
        handle = deployment.install_restriction(root, {"deny": ["shell"]})
        seen["filtered"] = outcome(lambda: deployment.view(root))
        seen["bad-filter"] = outcome(lambda: deployment.install_restriction(root, {}))
        seen["unknown-name"] = outcome(
            lambda: deployment.install_restriction(root, {"allow": ["nope"]}))
        deployment.register_tool(ToolSpec(name="local", description="mine"), root)
        deployment.set_mode(root, PresentationMode.BOTH)
        for name in ("view", "tool_schemas", "sdk_bindings", "prompt"):
            seen[name] = outcome(lambda name=name: getattr(deployment, name)(root))
        seen["global"] = outcome(lambda: deployment.view(None))
        seen["lookup"] = outcome(lambda: deployment.lookup(root, "shell"))
        seen["execute"] = outcome(lambda: deployment.execute(root, "read", {"x": [1, -0.0]}))
        seen["forged"] = outcome(lambda: deployment.execute(root, "shell", {}))
        deployment.dispose_restriction(root, handle)
        deployment.dispose_restriction(root, handle)
        seen["turn"] = outcome(lambda: deployment.run_turn(root, "go MARK-ROOT"))
        for depth in (math.nan, -0.0, math.inf, 2**53, "1", True, -1, 0.5):
            seen[f"cap {depth!r}"] = outcome(lambda depth=depth: deployment.start(StartRequest(
                parent=root, provider="spawn", prompt="x", maxDepth=depth)))
        seen["preset"] = outcome(lambda: deployment.start(StartRequest(
            parent=root, provider="spawn", prompt="do MARK-CHILD", preset="reader")))
        seen["persona"] = outcome(lambda: deployment.start(StartRequest(
            parent=root, provider="spawn", prompt="p", persona="")))
        seen["acp-cap"] = outcome(lambda: deployment.start(StartRequest(
            parent=root, provider="acp", prompt="p", maxDepth=2)))
        seen["nobody"] = outcome(lambda: deployment.start(StartRequest(
            parent=root, provider="nobody", prompt="p")))
        seen["deep"] = outcome(lambda: deployment.create_agent(
            header_depth=2**53 - 1, runtime_depth=-0.0, has_runtime_depth=True))
        deployment.put_session_header(SessionHeader(session="planted", delegationDepth=-0.0))
        seen["resume-planted"] = outcome(lambda: deployment.resume("planted"))
        seen["subagent-tool"] = outcome(lambda: deployment.load_subagent_tool(
            SubagentToolConfig(provider="spawn", maxDepth=math.nan)))
        deployment.set_host_depth(3)
        seen["host-depth"] = outcome(lambda: deployment.set_host_depth(-0.0))
        deployment.remove_provider("fork")
        seen["providers"] = outcome(deployment.providers)
        seen["re-add"] = outcome(lambda: deployment.add_provider("fork"))
        for name in ("sessions", "agents", "events", "invocations"):
            seen[name] = outcome(getattr(deployment, name))
        seen["transcript"] = [as_wire(e.request) for e in gateway.exchanges]
    finally:
        deployment.close()
    return seen


@pytest.mark.parametrize("edition", list(Edition))
def test_a_deployment_over_http_observes_exactly_what_it_observes_in_process(
    http_target: HttpTarget, edition: Edition
) -> None:
    in_process = scenario(reference_target(), edition)
    over_http = scenario(http_target, edition)
    assert in_process["filtered"] and in_process["transcript"]  # the tour saw something
    for key in in_process:
        assert over_http[key] == in_process[key], key


def test_the_view_of_a_deployment_over_http_equals_the_in_process_view(
    http_target: HttpTarget,
) -> None:
    views = []
    for target in (reference_target(), http_target):
        deployment = target.deploy(CONFIG, Gateway())
        root = deployment.root().agent
        deployment.install_restriction(root, {"allow": ["read", "web"], "deny": ["web"]})
        views.append((deployment.view(root), deployment.view(None)))
        deployment.close()
    assert views[0] == views[1]
    assert [e.name for e in views[1][0]] == ["read"]


def test_info_over_http_is_the_reference_info(http_target: HttpTarget) -> None:
    assert http_target.info() == reference_target().info()


def test_a_refusal_over_http_carries_the_code_message_and_details(
    http_target: HttpTarget,
) -> None:
    deployment = http_target.deploy(CONFIG, Gateway())
    root = deployment.root().agent
    codes = []
    for target_deployment in (deployment, reference_target().deploy(CONFIG, Gateway())):
        with pytest.raises(TckError) as caught:
            target_deployment.install_restriction(
                target_deployment.root().agent, {"allow": ["nope", "run_code"]})
        codes.append((caught.value.code, caught.value.message, caught.value.details))
        target_deployment.close()
    assert codes[0] == codes[1] and codes[0][0] is ErrorCode.INVALID_TOOL_FILTER
    assert root


def test_a_scripted_hook_runs_while_the_target_waits_and_may_call_the_target(
    http_target: HttpTarget,
) -> None:
    holder: dict[str, Deployment] = {}

    def register_late(request: ModelRequest) -> ModelReply:
        holder["d"].register_tool(ToolSpec(name="late"))
        return call("late")

    gateway = Gateway()
    gateway.script("HOOK", register_late, text("ok"))
    holder["d"] = deployment = http_target.deploy(CONFIG, gateway)
    result = deployment.run_turn(deployment.root().agent, "HOOK")
    assert result.stopReason is StopReason.COMPLETED
    assert [i.tool for i in deployment.invocations()] == ["late"]
    assert "late" in [t.name for t in gateway.requests()[1].tools]
    deployment.close()


def test_an_exception_in_a_scripted_hook_fails_the_model_call_as_in_process(
    http_target: HttpTarget,
) -> None:
    def broken(request: ModelRequest) -> ModelReply:
        raise LookupError("the check's hook is wrong")

    results = []
    for target in (reference_target(), http_target):
        gateway = Gateway()
        gateway.script("BROKEN", broken)
        deployment = target.deploy(CONFIG, gateway)
        results.append(deployment.run_turn(deployment.root().agent, "BROKEN"))
        deployment.close()
    assert results[0] == results[1]
    assert results[1].stopReason is StopReason.ERROR
    assert "the check's hook is wrong" in str(results[1].output)


def test_closing_a_deployment_twice_is_harmless_and_the_target_forgets_it(
    http_target: HttpTarget,
) -> None:
    deployment = http_target.deploy(CONFIG, Gateway())
    deployment.close()
    deployment.close()
    with pytest.raises(TckError) as caught:
        deployment.view(None)
    assert caught.value.code is ErrorCode.PROTOCOL_ERROR
    assert "no open deployment" in caught.value.message


class _Serial(Wrapped):
    """The reference, saying in its info that it runs one deployment at a time."""

    def __init__(self) -> None:
        super().__init__(reference_target())

    def info(self) -> Any:
        return super().info().model_copy(update={"serial": "one home directory \u202e"})


def test_a_target_that_runs_one_deployment_at_a_time_says_so_over_http() -> None:
    """``serial`` of GET /v1/info (protocol 1.3, docs/driver-api.md#one-deployment-at-a-time)
    reaches the kit as the target said it; an adapter that leaves it out can run several."""
    with ServerThread(create_app(_Serial(), model_timeout=10.0)) as server:
        target = HttpTarget(server.url, timeout=10.0)
        try:
            assert target.info().serial == "one home directory \u202e"
        finally:
            target.close()
    assert reference_target().info().serial is None
