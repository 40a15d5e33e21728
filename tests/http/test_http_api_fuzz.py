"""Schemathesis against the driver API (conformance/api_fuzz.py)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

import pytest
from target_wrappers import patched

from subagent_tck.conformance.api_fuzz import fuzz_api, run
from subagent_tck.conformance.core.protocol import ToolSpec
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.http_server import create_app
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.httpd import ServerThread
from subagent_tck.spec import ErrorCode, TckError

SOME = ("deployments", "view", "install-restriction", "set-host-depth", "start")


def test_the_reference_passes_the_probes_and_the_generated_requests(
    http_target: HttpTarget,
) -> None:
    report = fuzz_api(http_target, examples=2, seed=1, operations=SOME)
    assert report.ok, report.text()
    assert report.operations == len(SOME) and report.requests > 16 + 2 * len(SOME)


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[ServerThread] = []

    def start(target: Any) -> HttpTarget:
        servers.append(ServerThread(create_app(target)).start())
        return HttpTarget(servers[-1].url, timeout=5)

    yield start
    for server in servers:
        server.stop()


def test_a_refusal_that_changes_state_is_caught(serve: Any) -> None:
    def leaky(deployment: Any) -> Any:
        def set_host_depth(value: Any) -> None:
            deployment.register_tool(ToolSpec(name=f"leak{len(deployment.view(None))}"))
            raise TckError(ErrorCode.INVALID_DEPTH, "refused, but something leaked")

        return set_host_depth

    report = fuzz_api(serve(patched(reference_target(), "set_host_depth", leaky)), examples=3,
                      operations=("set-host-depth",))
    checks = {f.check for f in report.failures}
    assert "refusal-changes-nothing" in checks, report.text()
    assert any("global" in f.message for f in report.failures)


def test_a_crash_is_caught_with_a_command_that_replays_it(serve: Any) -> None:
    def crashing(deployment: Any) -> Any:
        def view(agent: Any = None) -> Any:
            raise RuntimeError("adapter bug")

        return view

    target = serve(patched(reference_target(), "view", crashing))
    report = fuzz_api(target, examples=2, operations=("view",), generated=True)
    crashes = [f for f in report.failures if "rror" in f.check]
    assert crashes and all(f.reproduce.startswith("curl") for f in crashes), report.text()
    assert not report.ok


def test_the_command_serves_an_in_process_target_and_prints_a_json_report() -> None:
    printed: list[str] = []
    args = argparse.Namespace(target="reference", examples=1, seed=0, timeout=10.0,
                              budget=None, format="json", operation=["view"])
    assert run(args, printed.append) == 0
    report = json.loads("".join(printed))
    assert report["ok"] is True and report["operations"] == 1 and report["requests"] > 16


def test_the_probes_alone_catch_a_server_that_accepts_raw_nan(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from subagent_tck.conformance.transports import http_server

    strict = http_server.loads
    monkeypatch.setattr(http_server, "loads", lambda data: strict(data.replace(b"NaN", b"0")))
    report = fuzz_api(serve(reference_target()), generated=False)
    nan = [f for f in report.failures if "NaN" in f.operation]
    assert nan and {f.check for f in nan} <= {"malformed-refused", "malformed-status",
                                              "malformed-code"}, report.text()
    assert report.operations == 0


def test_a_bad_examples_count_is_a_usage_error() -> None:
    args = argparse.Namespace(target="reference", examples=0, seed=0, timeout=10.0,
                              budget=None, format="text", operation=None)
    with pytest.raises(TckError) as caught:
        run(args)
    assert caught.value.code is ErrorCode.USAGE


def test_a_command_target_that_crashes_at_once_is_a_protocol_error_before_any_fuzzing() -> None:
    from http_helpers import adapter_command

    args = argparse.Namespace(target=f"cmd:{adapter_command('error-500')}", examples=1, seed=0,
                              timeout=5.0, budget=None, format="text", operation=None)
    with pytest.raises(TckError) as caught:
        run(args)
    assert caught.value.code is ErrorCode.PROTOCOL_ERROR and "HTTP 500" in caught.value.message
