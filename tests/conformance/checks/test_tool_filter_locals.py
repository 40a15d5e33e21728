"""TF-04 and TF-05 (conformance/engine/checks/tool_filter_locals.py): scope-local tools given
live and, on a target without live ones, by a child's preset (``TargetInfo.presetTools``,
``PresetSpec.tools``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from subagent_tck.conformance.core.dialect import ChannelKind, RestrictionChannel
from subagent_tck.conformance.core.gateway import Gateway, text
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    PresetSpec,
    StartRequest,
    TargetInfo,
    ToolSpec,
)
from subagent_tck.conformance.core.unsupported import Unsupported
from subagent_tck.conformance.transports.builtin import (
    ReferenceDeployment,
    ReferenceTarget,
    reference_target,
)
from subagent_tck.spec import Edition

from .tiny_runner import Verdicts, run

CHECKS = ["tool-filter-locals-after-filter", "tool-filter-local-shadows-global"]
ROOT = Path(__file__).resolve().parents[3]


class _NoLive(ReferenceDeployment):
    """The reference with no live operation on a scope: its tools and restrictions are fixed
    when it starts, as an agent definition's are."""

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        if agent is not None:
            raise Unsupported("register-tool", "a scope-local tool", "no live ones here")
        super().register_tool(tool)

    def install_restriction(self, agent: str, restriction: Any) -> str:
        raise Unsupported("install-restriction", "a restriction", "no live ones here")


class _Definitions(ReferenceTarget):
    """The reference as a runtime of agent definitions: restrictions through a child's preset
    alone, and a preset's own tools where ``preset_tools`` (its words) is given."""

    def __init__(self, preset_tools: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.preset_tools = preset_tools
        self.deployment_class = _NoLive

    def info(self) -> TargetInfo:
        return super().info().model_copy(update={
            "restrictionChannels": [RestrictionChannel(kind=ChannelKind.CHILD)],
            "presetTools": self.preset_tools})


def _outcomes(target: ReferenceTarget, seed: int = 0) -> tuple[dict[str, str], Verdicts]:
    verdicts = run(target, CHECKS, seed=seed, max_examples=3,
                   editions=[Edition.PRESET_COMPOSITION])
    return {rule: o for (rule, _, _), o in verdicts.outcomes.items()}, verdicts


def _host(module: str) -> Any:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return vars(__import__(f"examples.providers.{module}", fromlist=["x"]))


@pytest.mark.parametrize("seed", [0, 7])
def test_a_preset_s_own_tools_carry_tf04_and_tf05_on_a_target_without_live_locals(
        seed: int) -> None:
    outcomes, verdicts = _outcomes(_Definitions("a preset's tools, on each child"), seed)
    assert outcomes == {"TF-04": "pass", "TF-05": "pass"}, verdicts.explain()


def test_without_preset_tools_or_live_locals_tf04_and_tf05_are_not_applicable() -> None:
    outcomes, verdicts = _outcomes(_Definitions(None))
    assert outcomes == {"TF-04": "n/a", "TF-05": "n/a"}, verdicts.explain()


def test_a_filter_that_hides_a_preset_s_own_tools_fails_tf04_through_the_preset() -> None:
    host = _host("allow_filters_locals")["AllowFiltersLocalsHost"]
    outcomes, verdicts = _outcomes(_Definitions("own tools", host_class=host))
    assert outcomes["TF-04"] == "fail", verdicts.explain()
    assert any("given by the child's preset" in f.message for f in verdicts.failures), \
        verdicts.explain()


def test_a_global_kept_over_a_preset_s_own_tool_of_its_name_fails_tf05() -> None:
    host = _host("global_wins_over_local")["GlobalFirstHost"]
    outcomes, verdicts = _outcomes(_Definitions("own tools", host_class=host))
    assert outcomes["TF-05"] == "fail", verdicts.explain()
    assert any("a child's own bravo over a global bravo" in f.message
               for f in verdicts.failures), verdicts.explain()


def test_the_reference_gives_a_preset_s_own_tools_to_its_child_alone() -> None:
    target = reference_target()
    gateway = Gateway()
    own = ToolSpec(name="bravo", description="own bravo")
    config = DeploymentConfig(tools=[ToolSpec(name="alpha"), ToolSpec(name="bravo")],
                              presets=[PresetSpec(name="p", tools=[own],
                                                  toolFilter={"deny": ["bravo"]})])
    dep = target.deploy(config, gateway)
    try:
        gateway.script("[own]", text("done"))
        child = dep.start(StartRequest(parent=dep.root().agent, provider="spawn",
                                       prompt="task [own]", preset="p")).agent
        assert {(e.name, e.origin.value, e.description) for e in dep.view(child)} == {
            ("alpha", "global", ""), ("bravo", "local", "own bravo")}
        assert ("bravo", "global") in {(e.name, e.origin.value) for e in dep.view(None)}
    finally:
        dep.close()
