"""A failure carries the causes its check's runs left (engine/verdicts.py): here, a request the
model gateway refused as off its wire shape, which a target's run then failed on."""

from __future__ import annotations

from types import ModuleType

from subagent_tck.conformance.engine.check import Check, CheckContext
from subagent_tck.conformance.engine.runner import RunConfig, Suite, certify


def test_a_failure_names_a_request_the_gateway_refused_as_off_its_wire_shape(
    fakes: ModuleType,
) -> None:
    def refused(ctx: CheckContext) -> None:
        ctx.deploy()
        ctx.gateway.refuse_shape("not a Chat Completions request: messages[2].tool_calls is an "
                                 "empty list")
        ctx.fail("TF-91", "the child's run failed", "completed", "error")

    check = Check("refused", ("TF-91",), refused, per_provider=False)
    cert = certify(fakes.FakeTarget(), RunConfig(),
                   suite=Suite(fakes.RULES, {**fakes.CHECKS, check.name: check}))
    [failure] = [f for f in cert.rule("TF-91").failures if f.check == "refused"]
    assert failure.cause == ("the model gateway refused a request of the target (HTTP 400): "
                             "not a Chat Completions request: messages[2].tool_calls is an "
                             "empty list")
    assert {"off_shape": "not a Chat Completions request: messages[2].tool_calls is an empty "
            "list"} in failure.transcript


def test_a_failure_of_a_check_whose_requests_were_all_in_shape_names_no_such_cause(
    fakes: ModuleType,
) -> None:
    def failed(ctx: CheckContext) -> None:
        ctx.deploy()
        ctx.fail("TF-91", "wrong", "a", "b")

    check = Check("plain", ("TF-91",), failed, per_provider=False)
    cert = certify(fakes.FakeTarget(), RunConfig(),
                   suite=Suite(fakes.RULES, {**fakes.CHECKS, check.name: check}))
    [failure] = [f for f in cert.rule("TF-91").failures if f.check == "plain"]
    assert failure.cause is None
