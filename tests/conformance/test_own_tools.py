"""Global tools a target brings itself (docs/certify.md#tools-the-target-brings): found once on
an empty deployment, named in every output, left out of what the checks judge, never a name the
kit gives a tool; and a target broken for the kit's own tools still fails with one loaded."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from target_wrappers import Wrapped

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    Message,
    ModelRequest,
    ToolSchema,
    ToolSpec,
)
from subagent_tck.conformance.engine import own_tools
from subagent_tck.conformance.engine.check import Inexpressible
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.report.report_junit import render as to_junit
from subagent_tck.conformance.report.report_markdown import render as to_markdown
from subagent_tck.conformance.transports.builtin import ReferenceTarget
from subagent_tck.conformance.transports.targets import load_target
from subagent_tck.spec import RUN_CODE, Edition

ROOT = Path(__file__).resolve().parents[2]


class _WithPluginTool(Wrapped):
    """``inner`` with a plugin that registers one global tool in every deployment."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, self._plugged)
        self.name = name

    def _plugged(self, deployment: Any) -> Any:
        deployment.register_tool(ToolSpec(name=self.name, description="a plugin's own tool"))
        return deployment


def test_an_empty_deployments_global_tools_are_the_targets_own() -> None:
    target = _WithPluginTool(ReferenceTarget(), "plugin_route")
    assert own_tools.find(target, Edition.PRESET_COMPOSITION) == ("plugin_route",)
    assert own_tools.find(ReferenceTarget(), Edition.PRESET_COMPOSITION) == ()


class _RootOffered(_WithPluginTool):
    """A runtime that offers its top-level agent a tool of its own (Claude Code's Agent)."""

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Any:
        deployment = self.inner.deploy(config, gateway)
        deployment.register_tool(ToolSpec(name=self.name), deployment.root().agent)
        return deployment


def test_a_tool_the_root_agent_is_offered_on_an_empty_deployment_is_the_targets_own() -> None:
    assert own_tools.find(_RootOffered(ReferenceTarget(), "Agent"),
                          Edition.PRESET_COMPOSITION) == ("Agent",)


def test_a_name_the_rules_give_a_meaning_is_never_taken_for_the_targets_own() -> None:
    target = _WithPluginTool(ReferenceTarget(), RUN_CODE)
    # the reference refuses to register run_code (TF-06): no deployment, nothing own
    assert own_tools.find(target, Edition.PRESET_COMPOSITION) == ()


def test_own_tools_are_left_out_of_views_and_of_recorded_requests() -> None:
    target = own_tools.hiding(_WithPluginTool(ReferenceTarget(), "plugin_route"),
                              ["plugin_route"])
    gateway = Gateway()
    deployment = target.deploy(DeploymentConfig(tools=[ToolSpec(name="read")]), gateway)
    try:
        root = deployment.root().agent
        assert [e.name for e in deployment.view(root)] == ["read"]
        assert [s.name for s in deployment.tool_schemas(root)] == ["read"]
        request = ModelRequest(agent=root, system="s", messages=[Message(role="user", content="x")],
                               tools=[ToolSchema(name="plugin_route"), ToolSchema(name="read")])
        gateway.complete(request)
        assert [t.name for t in gateway.requests()[0].tools] == ["read"]
    finally:
        deployment.close()


def test_the_kit_never_gives_its_own_tool_a_name_the_target_owns() -> None:
    target = own_tools.hiding(_WithPluginTool(ReferenceTarget(), "plugin_route"),
                              ["plugin_route"])
    with pytest.raises(Inexpressible, match="plugin_route"):
        target.deploy(DeploymentConfig(tools=[ToolSpec(name="plugin_route")]), Gateway())
    deployment = target.deploy(DeploymentConfig(), Gateway())
    try:
        with pytest.raises(Inexpressible, match="plugin_route"):
            deployment.register_tool(ToolSpec(name="plugin_route"))
    finally:
        deployment.close()


def test_a_roster_plugins_delegate_tool_is_named_and_the_target_still_certifies(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    target = load_target("python:examples.roster.target:make_target")
    cert = certify(target, RunConfig(rules=("TF-01", "TF-12", "FR-01", "FR-05", "EN-01"),
                                     seed=3))
    assert cert.target_tools == ["delegate"]
    assert cert.succeeded, cert.failing()
    assert "delegate" in to_markdown(cert)
    assert 'name="target_tools" value="delegate"' in to_junit(cert)
    assert json.loads(cert.model_dump_json())["target_tools"] == ["delegate"]
    # a target's tool names are untrusted text in every output
    hostile = cert.model_copy(update={"target_tools": ["<b>x</b>|\x1b[31mred\x00"]})
    markdown, junit = to_markdown(hostile), to_junit(hostile)
    assert "\x1b" not in markdown and "<b>" not in markdown
    assert "\x00" not in junit and "\x1b" not in junit
    ET.fromstring(junit.split("\n", 1)[1])  # still well-formed XML


def test_a_target_broken_for_the_kits_tools_still_fails_with_a_plugin_tool_loaded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    broken = load_target("python:examples.providers.union_of_restrictions:provider")
    cert = certify(_WithPluginTool(broken, "plugin_route"), RunConfig(rules=("TF-02",), seed=0))
    assert cert.target_tools == ["plugin_route"]
    assert {r.id for r in cert.failing()} == {"TF-02"}


def test_a_fixed_case_naming_the_targets_own_tool_is_left_out_and_no_check_crashes() -> None:
    # opencode brings `read` and `write`; EN-01's and EN-02's fixed cases give the kit's tools
    # those names: the case is left out (drawn cases follow), never a crash
    target = _WithPluginTool(ReferenceTarget(), "read")
    cert = certify(target, RunConfig(rules=("EN-01", "EN-02", "TF-12"), seed=0))
    assert cert.target_tools == ["read"]
    crashed = [f.message for r in cert.rules for f in r.failures if "crashed" in f.message]
    assert not crashed, crashed
    assert cert.succeeded, cert.failing()


class _Batching:
    """``inner`` (a deployment) with a batch route: each call answered as it would be alone."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def batch(self, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[Any, Any]]:
        return [(getattr(self.inner, name)(**arguments), None) for name, arguments in calls]


def test_own_tools_are_left_out_of_the_reads_a_batch_carries() -> None:
    """The fuzz lockstep sends its reads with the change they follow (fuzz/ahead.py): a read
    carried by a batch is judged as the same read alone would be."""

    class Target(_WithPluginTool):
        def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Any:
            return _Batching(super().deploy(config, gateway))

    target = own_tools.hiding(Target(ReferenceTarget(), "plugin_route"), ["plugin_route"])
    deployment = target.deploy(DeploymentConfig(tools=[ToolSpec(name="read")]), Gateway())
    try:
        root = deployment.root().agent
        answers = deployment.batch([  # type: ignore[attr-defined]
            ("register_tool", {"tool": ToolSpec(name="write")}), ("view", {"agent": root}),
            ("tool_schemas", {"agent": root}), ("view", {"agent": None})])
        assert [[e.name for e in result] for result, _ in answers[1:]] == [
            ["read", "write"]] * 3
        assert all(error is None for _, error in answers)
    finally:
        deployment.close()


def test_a_scope_local_tool_named_as_the_targets_own_is_a_case_drawn_around() -> None:
    # what is hidden is hidden by name: a kit local called "read" beside the target's own
    # "read" would vanish from every view the checks read (TF-12 once judged it invisible)
    target = own_tools.hiding(_WithPluginTool(ReferenceTarget(), "read"), ["read"])
    deployment = target.deploy(DeploymentConfig(tools=[ToolSpec(name="alpha")]), Gateway())
    try:
        root = deployment.root().agent
        with pytest.raises(Inexpressible, match="read"):
            deployment.register_tool(ToolSpec(name="read"), root)
        deployment.register_tool(ToolSpec(name="beta"), root)
        assert [e.name for e in deployment.view(root)] == ["alpha", "beta"]
    finally:
        deployment.close()
