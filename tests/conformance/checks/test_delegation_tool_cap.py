"""ST-07 for a runtime's own delegation tool (conformance/engine/checks/delegation_tool_cap.py):
where the target ships no ``subagent`` tool and a provider names a delegation tool of its own
with depthLimit, the at-cap rule is judged on that tool; the other ST rules stay not applicable
(docs/rules.md#ST-07)."""

from __future__ import annotations

from typing import Any

import pytest
from target_wrappers import Wrapped

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import (
    DeploymentConfig,
    StartRequest,
    TargetInfo,
    ToolSpec,
)
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import Edition


class _OwnTool(Wrapped):
    """The reference without its ``subagent`` tool component, its provider ``spawn`` naming
    ``hand_off`` as its own delegation tool (``declared``), offered to every agent (``every``)
    or to the root alone (a runtime that gives a subagent no delegation tool at any depth);
    ``at_cap``: withheld from a child its start's maxDepth puts at its cap, as Claude Code
    does (a start with maxDepth 1 gets the filter ``{"deny": ["hand_off"]}``, which only the
    request-controls edition takes on a start)."""

    def __init__(self, every: bool = True, declared: bool = True, at_cap: bool = False) -> None:
        super().__init__(reference_target(), self._capped)
        self.every, self.declared, self.at_cap = every, declared, at_cap

    def _capped(self, deployment: Any) -> Any:
        start = deployment.start

        def capped(request: StartRequest) -> Any:
            if self.at_cap and request.maxDepth == 1:
                request = request.model_copy(update={"toolFilter": {"deny": ["hand_off"]}})
            return start(request)

        deployment.start = capped
        return deployment

    def info(self) -> TargetInfo:
        info = self.inner.info()
        return info.model_copy(update={"components": [], "providers": [
            p.model_copy(update={"delegationTool": "hand_off" if self.declared else None})
            if p.name == "spawn" else p for p in info.providers]})

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Any:
        deployment = self._wrap(self.inner.deploy(config, gateway))
        tool = ToolSpec(name="hand_off", description="starts a child")
        deployment.register_tool(tool, None if self.every else deployment.root().agent)
        return deployment


def _st(target: _OwnTool, seed: int, edition: Edition = Edition.PRESET_COMPOSITION
        ) -> dict[str, Any]:
    cert = certify(target, RunConfig(target_spec="own-tool", seed=seed, edition=edition,
                                     rules=tuple(f"ST-0{i}" for i in range(1, 10))))
    return {rule.id: rule for rule in cert.rules if rule.id.startswith("ST-")}


@pytest.mark.parametrize("seed", [0, 9])
def test_a_delegation_tool_offered_at_the_cap_passes_st_07_and_the_other_st_rules_stay_out(
        seed: int) -> None:
    rules = _st(_OwnTool(), seed)
    st07 = rules.pop("ST-07")
    assert st07.outcome is Outcome.PASS, st07.failures
    part = next(p for p in st07.partitions if p.check == "delegation-tool-at-cap")
    assert part.drawn and "spawn" in part.drawn_for
    assert {r.outcome for r in rules.values()} == {Outcome.NOT_APPLICABLE}


@pytest.mark.parametrize("seed", [0, 4])
def test_a_delegation_tool_withheld_from_a_child_at_its_cap_fails_st_07(seed: int) -> None:
    # (the filter rides on the start request: the request-controls edition's)
    st07 = _st(_OwnTool(at_cap=True), seed, Edition.REQUEST_CONTROLS)["ST-07"]
    assert st07.outcome is Outcome.FAIL
    assert [f.message for f in st07.failures] == [
        "a child at its cap (maxDepth 1) must be offered hand_off in every request, as one "
        "below its cap (maxDepth 2) is"]


def test_a_delegation_tool_no_child_gets_at_any_depth_leaves_st_07_inexpressible() -> None:
    # opencode gives a subagent no task tool unless its definition names it: the cap is not
    # what withholds it, so the at-cap question does not arise
    st07 = _st(_OwnTool(every=False), 0)["ST-07"]
    assert st07.outcome is Outcome.NOT_APPLICABLE, st07.failures
    part = next(p for p in st07.partitions if p.check == "delegation-tool-at-cap")
    assert "a child started with maxDepth 2 was offered hand_off in 0 of its 2 requests" in (
        part.inexpressible or ""), part


def test_without_a_declared_delegation_tool_st_07_is_not_applicable() -> None:
    st07 = _st(_OwnTool(declared=False), 0)["ST-07"]
    assert st07.outcome is Outcome.NOT_APPLICABLE
