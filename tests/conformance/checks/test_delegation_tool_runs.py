"""ST-09 for a runtime's own delegation tool (conformance/engine/checks/delegation_tool_runs.py):
where the target ships no ``subagent`` tool and a provider names a delegation tool of its own,
what the parent's call of that tool got (``RunResult.delegated``) must be errored exactly when
the child did not complete (docs/rules.md#ST-09)."""

from __future__ import annotations

from typing import Any

import pytest
from target_wrappers import Wrapped

from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import StartRequest, TargetInfo, ToolResult
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.spec import Edition, StopReason


class _Reports(Wrapped):
    """The reference without its ``subagent`` tool component, its provider ``spawn`` naming
    ``hand_off`` as its own delegation tool; each start reports what the parent's call got as
    ``how`` says: ``flag``, errored exactly when the child did not complete (as a conforming
    runtime); ``success``, never errored (a runtime that hands a cut or failed child's words
    back as its answer); ``errored``, always errored; None, not at all (a Chat Completions
    wire)."""

    def __init__(self, how: str | None) -> None:
        super().__init__(reference_target(), self._reporting)
        self.how = how

    def _reporting(self, deployment: Any) -> Any:
        start = deployment.start

        def reported(request: StartRequest) -> Any:
            run = start(request)
            if self.how is None:
                return run
            errored = {"flag": run.stopReason is not StopReason.COMPLETED,
                       "success": False, "errored": True}[self.how]
            return run.model_copy(update={"delegated": ToolResult(
                isError=errored, content=run.output)})

        deployment.start = reported
        return deployment

    def info(self) -> TargetInfo:
        info = self.inner.info()
        return info.model_copy(update={"components": [], "providers": [
            p.model_copy(update={"delegationTool": "hand_off"}) if p.name == "spawn" else p
            for p in info.providers]})


def _st09(target: _Reports, seed: int = 0) -> Any:
    cert = certify(target, RunConfig(target_spec="own-tool", seed=seed,
                                     edition=Edition.PRESET_COMPOSITION, rules=("ST-09",)))
    return cert.rule("ST-09")


@pytest.mark.parametrize("seed", [0, 5])
def test_a_delegation_tool_whose_result_is_errored_exactly_when_the_child_stopped_passes_st_09(
        seed: int) -> None:
    st09 = _st09(_Reports("flag"), seed)
    assert st09.outcome is Outcome.PASS, st09.failures
    part = next(p for p in st09.partitions if p.check == "delegation-tool-run-result")
    assert part.drawn and "spawn" in part.drawn_for


def test_a_child_cut_refused_or_failed_handed_back_as_success_fails_st_09_for_each_stop() -> None:
    st09 = _st09(_Reports("success"))
    assert st09.outcome is Outcome.FAIL
    assert sorted(f.message for f in st09.failures) == sorted(
        f"a child whose model stopped with {reason} must give the parent's call of hand_off "
        "an errored result (isError), not its partial output as success"
        for reason in ("max-tokens", "refusal", "error"))


def test_a_completed_child_answered_with_an_error_fails_st_09() -> None:
    st09 = _st09(_Reports("errored"))
    assert [f.message for f in st09.failures] == [
        "a child that completed must give the parent's call of hand_off its output, not an "
        "error"]


def test_a_target_that_does_not_report_the_parents_result_leaves_st_09_not_applicable() -> None:
    st09 = _st09(_Reports(None))
    assert st09.outcome is Outcome.NOT_APPLICABLE, st09.failures
    part = next(p for p in st09.partitions if p.check == "delegation-tool-run-result")
    assert "RunResult.delegated" in (part.inexpressible or ""), part
