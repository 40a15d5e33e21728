"""ST-07 for a runtime's own delegation tool (conformance/engine/checks/delegation_tool_cap.py):
where the target ships no ``subagent`` tool and a provider names a delegation tool of its own
with depthLimit, the at-cap rule is judged on that tool; the rules of the configurable tool
itself (ST-01..ST-05) stay not applicable (docs/rules.md#ST-07)."""

from __future__ import annotations

from typing import Any

import pytest
from target_wrappers import OwnTool

from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.spec import Edition


def _st(target: OwnTool, seed: int, edition: Edition = Edition.PRESET_COMPOSITION
        ) -> dict[str, Any]:
    cert = certify(target, RunConfig(target_spec="own-tool", seed=seed, edition=edition,
                                     rules=tuple(f"ST-0{i}" for i in range(1, 10))))
    return {rule.id: rule for rule in cert.rules if rule.id.startswith("ST-")}


@pytest.mark.parametrize("seed", [0, 9])
def test_a_delegation_tool_offered_at_the_cap_passes_st_07_and_the_tools_own_st_rules_stay_out(
        seed: int) -> None:
    rules = _st(OwnTool(), seed)
    st07 = rules.pop("ST-07")
    assert st07.outcome is Outcome.PASS, st07.failures
    part = next(p for p in st07.partitions if p.check == "delegation-tool-at-cap")
    assert part.drawn and "spawn" in part.drawn_for
    for judged in ("ST-06", "ST-08", "ST-09"):  # their own tests: test_delegation_tool_*.py
        rules.pop(judged)
    assert {r.outcome for r in rules.values()} == {Outcome.NOT_APPLICABLE}


@pytest.mark.parametrize("seed", [0, 4])
def test_a_delegation_tool_withheld_from_a_child_at_its_cap_fails_st_07(seed: int) -> None:
    # (the filter rides on the start request: the request-controls edition's)
    st07 = _st(OwnTool(at_cap=True), seed, Edition.REQUEST_CONTROLS)["ST-07"]
    assert st07.outcome is Outcome.FAIL
    assert [f.message for f in st07.failures] == [
        "a child at its cap (maxDepth 1) must be offered hand_off in every request, as one "
        "below its cap (maxDepth 2) is"]


def test_a_delegation_tool_no_child_gets_at_any_depth_leaves_st_07_inexpressible() -> None:
    # opencode gives a subagent no task tool unless its definition names it: the cap is not
    # what withholds it, so the at-cap question does not arise
    st07 = _st(OwnTool(every=False), 0)["ST-07"]
    assert st07.outcome is Outcome.NOT_APPLICABLE, st07.failures
    part = next(p for p in st07.partitions if p.check == "delegation-tool-at-cap")
    assert "a child started with maxDepth 2 was offered hand_off in 0 of its 2 requests" in (
        part.inexpressible or ""), part


def test_without_a_declared_delegation_tool_st_07_is_not_applicable() -> None:
    st07 = _st(OwnTool(declared=False), 0)["ST-07"]
    assert st07.outcome is Outcome.NOT_APPLICABLE
