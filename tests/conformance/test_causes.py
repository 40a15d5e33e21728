"""A failure carries the causes its check's runs left (engine/verdicts.py): here, a request the
model gateway refused as off its wire shape, which a target's run then failed on, and the
connections the gateway's server turned away past its limit."""

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


def test_a_failure_names_the_connections_the_gateway_turned_away_while_its_check_ran(
    fakes: ModuleType,
) -> None:
    # the DSH adapter once kept a connection per deployment open: past the gateway's limit
    # its children failed before their first model request, and no cause said why
    import socket

    from subagent_tck.conformance.transports.gateway_server import GatewayServer

    server = GatewayServer(max_connections=1)
    held: list[socket.socket] = []

    def crowded(ctx: CheckContext) -> None:
        ctx.deploy()
        base = server.mount(ctx.gateway)
        port = int(base.split(":")[2].split("/")[0])
        held.extend(socket.create_connection(("127.0.0.1", port)) for _ in range(3))
        for sock in held[1:]:  # the first holds the one slot: the others are answered 503
            sock.settimeout(5)
            assert sock.recv(65536).startswith(b"HTTP/1.1 503 ")
        ctx.fail("TF-91", "the child's run failed", "completed", "error")

    check = Check("crowded", ("TF-91",), crowded, per_provider=False)
    try:
        cert = certify(fakes.FakeTarget(), RunConfig(),
                       suite=Suite(fakes.RULES, {**fakes.CHECKS, check.name: check}))
    finally:
        for sock in held:
            sock.close()
        server.close()
    [failure] = [f for f in cert.rule("TF-91").failures if f.check == "crowded"]
    assert failure.cause is not None
    assert failure.cause.startswith("the model gateway turned away 2 connection(s) with HTTP "
                                    "503: it serves at most 1 at once"), failure.cause


def test_a_child_that_stopped_with_an_error_and_no_text_is_named_as_such(
    fakes: ModuleType,
) -> None:
    from subagent_tck.conformance.core.protocol import RunResult
    from subagent_tck.spec import StopReason

    class Silent(fakes.FakeDeployment):  # type: ignore[name-defined, misc]
        def run_turn(self, agent: str, prompt: str) -> RunResult:
            return RunResult(agent=agent, session="s1", stopReason=StopReason.ERROR, output="")

    class Target(fakes.FakeTarget):  # type: ignore[name-defined, misc]
        def deploy(self, config: object, gateway: object) -> Silent:
            self.open_deployments += 1
            return Silent(self, gateway)

    def silent(ctx: CheckContext) -> None:
        ctx.deploy().run_turn("c1", "go")  # type: ignore[attr-defined]
        ctx.fail("TF-91", "the child's run failed", "completed", "error")

    check = Check("silent", ("TF-91",), silent, per_provider=False)
    cert = certify(Target(), RunConfig(),
                   suite=Suite(fakes.RULES, {**fakes.CHECKS, check.name: check}))
    [failure] = [f for f in cert.rule("TF-91").failures if f.check == "silent"]
    assert failure.cause == ("the child c1 stopped with stop reason 'error', and the target "
                             "gave no text with it")
