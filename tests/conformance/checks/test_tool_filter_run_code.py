"""TF-12 through execution (conformance/engine/checks/tool_filter_run_code.py): run_code reaches
exactly the visible tools; the zoo entries that break it only through execution fail it at two
seeds while the binding check finds nothing; a target without the run-code operation is an
error, never a pass, in-process and over HTTP."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from target_wrappers import Changed, Wrapped

from subagent_tck.conformance.core.certificate import Certificate
from subagent_tck.conformance.core.exitcode import ExitCode, for_certificate
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.outcome import Outcome
from subagent_tck.conformance.core.protocol import DeploymentConfig, SdkCall, TargetInfo, ToolSpec
from subagent_tck.conformance.core.target import Target
from subagent_tck.conformance.engine.checks._names import is_tool_name
from subagent_tck.conformance.engine.checks.tool_filter_run_code import state_st
from subagent_tck.conformance.engine.runner import RunConfig, certify
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.http_server import create_app
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.httpd import ServerThread
from subagent_tck.spec import RUN_CODE, ErrorCode, PresentationMode

ROOT = Path(__file__).resolve().parents[3]
CHECK = "tool-filter-run-code-reach"
#: The check of every call by visibility (conformance/engine/checks/tool_filter_calls.py): it
#: executes run_code too.
EXECUTES = "tool-filter-calls-by-visibility"
EXECUTION_ONLY = ("run_code_reaches_hidden_global", "run_code_runs_global_under_local",
                  "run_code_bindings_frozen")
SEEDS = (0, 7)


def tf12(target: Target, seed: int) -> Certificate:
    return certify(target, RunConfig(rules=("TF-12",), seed=seed))


def zoo(name: str) -> Target:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    module = __import__(f"examples.providers.{name}", fromlist=["provider"])
    assert module.BREAKS == "TF-12"
    target: Target = module.provider()
    return target


@pytest.mark.parametrize("seed", SEEDS)
def test_the_reference_reaches_exactly_its_visible_tools_through_run_code(seed: int) -> None:
    cert = tf12(reference_target(), seed)
    rule = cert.rule("TF-12")
    assert rule.outcome is Outcome.PASS, [f.message for f in rule.failures]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", EXECUTION_ONLY)
def test_a_runtime_whose_run_code_strays_from_the_view_fails_tf12_only_by_execution(
        name: str, seed: int) -> None:
    target = zoo(name)
    try:
        cert = tf12(target, seed)
    finally:
        target.close()
    rule = cert.rule("TF-12")
    assert rule.outcome is Outcome.FAIL, f"{name} at seed {seed} was not caught"
    checks = {f.check for f in rule.failures}
    # the checks that execute run_code find it; the one that reads the bindings finds nothing
    assert CHECK in checks and checks <= {CHECK, EXECUTES}, (
        f"{name}: {checks}: the bindings check should find nothing")
    assert not cert.certified and for_certificate(cert) is ExitCode.FAILED


# --- a target without the operation ------------------------------------------------------


class OlderTarget(Wrapped):
    """The reference behind an adapter of driver protocol 1.0: everything but run_code."""

    def __init__(self) -> None:
        super().__init__(reference_target(), lambda deployment: Changed(deployment,
                                                                         run_code=None))

    def info(self) -> TargetInfo:
        return super().info().model_copy(update={"protocol": "1.0"})


def _an_error_naming_the_operation(cert: Certificate) -> None:
    rule = cert.rule("TF-12")
    assert rule.outcome is Outcome.ERROR, rule.outcome
    mine = [f for f in rule.failures if f.check == CHECK]
    assert mine and all(f.error for f in mine)
    assert "run-code operation" in mine[0].message
    assert "docs/driver-api.md#run-code" in mine[0].message
    assert not cert.certified and for_certificate(cert) is ExitCode.TARGET_BROKEN


def test_an_in_process_target_without_run_code_is_an_error_never_a_pass() -> None:
    _an_error_naming_the_operation(tf12(OlderTarget(), 0))


@contextmanager
def over_http(target: Target) -> Iterator[HttpTarget]:
    """``target`` behind the driver API on a free loopback port, as an HTTP target."""
    with ServerThread(create_app(target, model_timeout=10.0)) as server:
        http = HttpTarget(server.url, timeout=10.0)
        try:
            yield http
        finally:
            http.close()


def test_an_adapter_without_the_run_code_route_is_an_error_never_a_pass() -> None:
    with over_http(OlderTarget()) as older:
        _an_error_naming_the_operation(tf12(older, 0))


class ShortTarget(OlderTarget):
    """A deployment whose run_code answers one result too few."""

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> Any:
        deployment = self.inner.deploy(config, gateway)
        return Changed(deployment, run_code=lambda agent, calls:
                       deployment.run_code(agent, calls)[1:])


def test_an_answer_without_one_result_per_call_is_an_error_never_a_pass() -> None:
    rule = tf12(ShortTarget(), 0).rule("TF-12")
    assert rule.outcome is Outcome.ERROR
    assert any("one result per call" in f.message for f in rule.failures if f.check == CHECK)


# --- the operation itself, in-process and over HTTP ---------------------------------------


@pytest.fixture
def served() -> Iterator[HttpTarget]:
    with over_http(reference_target()) as target:
        yield target


def test_run_code_over_http_runs_bound_tools_once_each_and_refuses_the_rest(
        served: HttpTarget) -> None:
    dep = served.deploy(DeploymentConfig(tools=[ToolSpec(name="alpha"), ToolSpec(name="bravo"),
                                                ToolSpec(name="charlie")],
                                         mode=PresentationMode.PTC), Gateway())
    try:
        root = dep.root().agent
        dep.register_tool(ToolSpec(name="alpha"), root)
        dep.install_restriction(root, {"deny": ["bravo"]})
        args = {"city": "Zürich", "deep": [1, {"n": None}], "q": "\"`${x}`"}
        names = ["charlie", "bravo", "zulu", RUN_CODE, "Alpha", "alpha"]
        results = dep.run_code(root, [SdkCall(name=n, arguments=args) for n in names])
        assert [(r.isError, r.code) for r in results] == [
            (False, None), *[(True, ErrorCode.UNKNOWN_TOOL.value)] * 4, (False, None)]
        assert results[0].content["arguments"] == args
        assert [(i.tool, i.origin.value, i.arguments) for i in dep.invocations()] == [
            ("charlie", "global", args), ("alpha", "local", args)]
        dep.set_mode(root, PresentationMode.NATIVE)
        native = dep.run_code(root, [SdkCall(name="alpha"), SdkCall(name="charlie")])
        assert [r.code for r in native] == [ErrorCode.UNKNOWN_TOOL.value] * 2
        assert len(dep.invocations()) == 2
    finally:
        dep.close()


# --- the drawn names ---------------------------------------------------------------------


@settings(max_examples=60, database=None)
@given(state_st())
def test_drawn_states_name_their_tools_from_the_kits_one_vocabulary(state: dict[str, Any]) -> None:
    names = [*state["globals"], *state["locals"], state["fresh"]]
    assert all(is_tool_name(n) for n in names) and RUN_CODE not in names
    assert len(set(state["globals"])) == len(state["globals"])
    assert state["fresh"] not in [*state["globals"], *state["locals"]]
    added = state["later"].get("register")
    assert added is None or added not in [*state["globals"], *state["locals"], state["fresh"]]
