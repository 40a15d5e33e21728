"""Waiting for an ``http://`` target (``certify --wait``), and the typed transport errors of
the HTTP client (conformance/transports/launcher.py, conformance/transports/targets.py,
conformance/transports/http_target.py)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from http_helpers import adapter_command, timed_out

from subagent_tck.conformance import cli
from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import DeploymentConfig
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.http_server import create_app
from subagent_tck.conformance.transports.http_target import HttpTarget, TransportError
from subagent_tck.conformance.transports.httpd import HttpServer
from subagent_tck.conformance.transports.launcher import launch
from subagent_tck.conformance.transports.targets import load_target
from subagent_tck.spec import ErrorCode, TckError


@pytest.fixture
def closed_port() -> Iterator[socket.socket]:
    """A port of 127.0.0.1 held bound but not listening: connecting is refused until
    ``listen`` is called on it."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    yield sock
    sock.close()


def test_a_wait_reaches_a_target_that_starts_listening_during_it(
    closed_port: socket.socket,
) -> None:
    url = f"http://127.0.0.1:{closed_port.getsockname()[1]}"
    servers: list[HttpServer] = []

    def start_later() -> None:
        time.sleep(0.6)
        closed_port.listen(16)
        servers.append(HttpServer(create_app(reference_target()), closed_port).start())

    threading.Thread(target=start_later, daemon=True).start()
    with pytest.raises(TckError):  # without a wait it is unreachable at once
        load_target(url)
    started = time.monotonic()
    target = load_target(url, wait=10)
    try:
        assert target.info().name == "reference"
        assert time.monotonic() - started < 10
    finally:
        target.close()
        for server in servers:
            server.stop()


def test_a_wait_that_expires_is_unreachable_naming_the_wait(closed_port: socket.socket) -> None:
    url = f"http://127.0.0.1:{closed_port.getsockname()[1]}"
    started = time.monotonic()
    with pytest.raises(TckError) as caught:
        load_target(url, wait=0.5)
    assert 0.5 <= time.monotonic() - started < 5
    assert caught.value.code is ErrorCode.TARGET_UNREACHABLE
    assert "within --wait 0.5 s" in caught.value.message
    assert "start the adapter first" in caught.value.message


def test_certify_with_an_expired_wait_exits_3_with_one_clear_line(
    closed_port: socket.socket, capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"http://127.0.0.1:{closed_port.getsockname()[1]}"
    assert cli.main(["certify", "--target", url, "--wait", "0.3"]) == 3
    err = capsys.readouterr().err
    assert "within --wait 0.3 s" in err and "Traceback" not in err


@pytest.mark.parametrize("spec", ["reference", "python:os:getcwd"])
def test_a_wait_for_an_in_process_target_is_a_usage_error(
    spec: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["certify", "--target", spec, "--wait", "1"]) == 2
    assert "--wait applies to http://, https:// and cmd: targets" in capsys.readouterr().err


def test_a_wait_for_a_command_bounds_its_ready_line() -> None:
    refused = timed_out(lambda: load_target("cmd:" + adapter_command("no-ready"), wait=0.5), 5)
    assert "within 0.5 s" in refused.message


def test_an_unreachable_target_is_a_transport_error_of_kind_connect(
    closed_port: socket.socket,
) -> None:
    target = HttpTarget(f"http://127.0.0.1:{closed_port.getsockname()[1]}", timeout=2)
    with pytest.raises(TransportError) as caught:
        target.info()
    assert caught.value.kind == "connect"
    assert caught.value.code is ErrorCode.TARGET_UNREACHABLE
    assert caught.value.details == {"transport": "connect"}


@pytest.mark.parametrize(("mode", "kind", "code"), [
    ("silent", "timeout", ErrorCode.TIMEOUT),
    ("not-http", "http", ErrorCode.PROTOCOL_ERROR),
    ("huge", "http", ErrorCode.PROTOCOL_ERROR),
])
def test_a_transport_failure_answering_info_is_typed(mode: str, kind: str,
                                                     code: ErrorCode) -> None:
    with pytest.raises(TransportError) as caught:
        launch(adapter_command(mode), timeout=1)
    assert (caught.value.kind, caught.value.code) == (kind, code)


def test_a_connection_cut_mid_run_is_a_transport_error_of_kind_reset() -> None:
    target = launch(adapter_command("exit-mid-run"), timeout=5)
    try:
        deployment = target.deploy(DeploymentConfig(), Gateway())
        with pytest.raises(TransportError) as caught:
            deployment.root()
        assert caught.value.kind == "reset"
        assert caught.value.code is ErrorCode.TARGET_UNREACHABLE
    finally:
        target.close()


def test_a_refusal_of_the_target_is_not_a_transport_error(http_target: HttpTarget) -> None:
    deployment = http_target.deploy(DeploymentConfig(), Gateway())
    try:
        with pytest.raises(TckError) as caught:
            deployment.view("no-such-agent")
        assert not isinstance(caught.value, TransportError)
    finally:
        deployment.close()
