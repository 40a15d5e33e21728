"""Broken adapters give the right TckError within a bounded time and leave nothing running
(conformance/transports/http_target.py and conformance/transports/launcher.py against
tests/http/fixtures)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from http_helpers import adapter_command, gone_within

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import PROTOCOL_VERSION, DeploymentConfig
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.launcher import LaunchedTarget, launch
from subagent_tck.conformance.transports.loopback import bind
from subagent_tck.spec import ErrorCode, TckError

BOUND = 8.0  # seconds: start-up, the failure, and the stop together


def fails(tmp_path: Path, mode: str, code: ErrorCode, *words: str,
          during: str = "launch") -> TckError:
    """Launch the broken adapter ``mode``; the step ``during`` must fail with ``code``."""
    began = time.monotonic()
    target: LaunchedTarget | None = None
    pidfile = tmp_path / "adapter.pid"
    env = {**os.environ, "PIDFILE": str(pidfile)}
    with pytest.raises(TckError) as caught:
        if during == "launch":
            launch(adapter_command(mode), startup_timeout=2, timeout=1.5, env=env)
        else:
            target = launch(adapter_command(mode), startup_timeout=2, timeout=1.5, env=env)
            deployment = target.deploy(DeploymentConfig(), Gateway())
            if during == "run":
                deployment.run_turn(deployment.root().agent, "hello")
            else:
                deployment.root()
    if target is not None:
        target.close()
    assert time.monotonic() - began < BOUND
    assert caught.value.code is code, caught.value
    for word in words:
        assert word in caught.value.message, caught.value.message
    assert gone_within([int(pidfile.read_text())]), "the adapter was left running"
    return caught.value


CASES = [
    # mode, code, words the message must carry, the step that fails
    ("silent", ErrorCode.TIMEOUT, ("did not answer info", "1.5 s"), "launch"),
    ("error-500", ErrorCode.PROTOCOL_ERROR, ("crashed: HTTP 500", "boom"), "launch"),
    ("not-json", ErrorCode.PROTOCOL_ERROR, ("not standard JSON", "<html>"), "launch"),
    ("not-http", ErrorCode.PROTOCOL_ERROR, ("not HTTP",), "launch"),
    ("huge", ErrorCode.PROTOCOL_ERROR, ("limit",), "launch"),
    ("exit-at-startup", ErrorCode.TARGET_UNREACHABLE, ("status 3", "no runtime configured"),
     "launch"),
    ("no-ready", ErrorCode.TIMEOUT, ("SUBAGENT_TCK_READY", "starting, slowly"), "launch"),
    ("bad-ready", ErrorCode.PROTOCOL_ERROR, ("base URL",), "launch"),
    ("protocol-2", ErrorCode.PROTOCOL_ERROR, ("2.0", PROTOCOL_VERSION), "launch"),
    ("exit-mid-run", ErrorCode.TARGET_UNREACHABLE, ("without answering root", "status 7"),
     "deployment"),
    ("ignore-gateway", ErrorCode.PROTOCOL_ERROR, ("model gateway", "gatewayUrl"), "run"),
]


@pytest.mark.parametrize(("mode", "code", "words", "during"), CASES,
                         ids=[c[0] for c in CASES])
def test_a_broken_adapter_fails_with_the_right_code_in_bounded_time_and_is_stopped(
    tmp_path: Path, mode: str, code: ErrorCode, words: tuple[str, ...], during: str
) -> None:
    fails(tmp_path, mode, code, *words, during=during)


def test_nothing_listening_is_unreachable() -> None:
    sock = bind()
    port = sock.getsockname()[1]
    sock.close()
    target = HttpTarget(f"http://127.0.0.1:{port}", timeout=2)
    began = time.monotonic()
    with pytest.raises(TckError) as caught:
        target.info()
    assert caught.value.code is ErrorCode.TARGET_UNREACHABLE
    assert "is the adapter running?" in caught.value.message
    assert time.monotonic() - began < 3
