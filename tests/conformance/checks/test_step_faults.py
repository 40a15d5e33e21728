"""A fault of the target that a scripted model step meets (the gateway's thread runs it, not
the check's) ends the check that scripted it as the target's error (engine/check.py
``run_check``), never a judgement of the run the fault cut short (docs/certify.md#exit-codes).

Found on Claude Code 2.1.19 under the kit: a step that registers a tool while the agent runs
met an adapter that had exited; the fault went past the gateway server's handlers, printed a
traceback, and the check judged the cut-short run."""

from __future__ import annotations

import contextlib

import pytest

from subagent_tck.conformance.engine.check import REGISTRY, check
from subagent_tck.conformance.engine.faults import TargetFault
from subagent_tck.conformance.transports.targets import load_target
from subagent_tck.spec import Edition, ErrorCode, TckError

from .tiny_runner import run

NAME = "test-step-meets-a-fault"


@pytest.mark.parametrize("fault", [True, False])
def test_a_fault_a_scripted_step_met_ends_its_check_as_the_targets_error(fault: bool) -> None:
    @check("TF-01", name=NAME)
    def step_meets_a_fault(ctx):  # type: ignore[no-untyped-def]
        dep = ctx.deploy()
        root = dep.root().agent

        def step(request):  # type: ignore[no-untyped-def]
            if fault:
                raise TargetFault("register_tool", TckError(
                    ErrorCode.TARGET_UNREACHABLE, "the adapter exited"))
            raise ValueError("the check's own step broke")

        ctx.gateway.script("STEP", step)
        with contextlib.suppress(TckError):  # what the target made of a failed model call
            dep.run_turn(root, "go STEP")
        ctx.expect("TF-01", False, "a judgement of the cut-short run", "x", "y")

    try:
        verdicts = run(load_target("reference"), [NAME],
                       editions=(Edition.PRESET_COMPOSITION,))
    finally:
        REGISTRY.pop(NAME, None)
    messages = [f.message for f in verdicts.failures if f.check == NAME]
    outcomes = {v for (rule, _, _), v in verdicts.outcomes.items() if rule == "TF-01"}
    if fault:
        assert outcomes == {"error"}, messages
        assert any(m.startswith("register_tool:") for m in messages), messages
    else:  # an Exception of the step is the run's business: the check judges it
        assert outcomes == {"fail"}, messages
