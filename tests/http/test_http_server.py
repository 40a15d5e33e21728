"""The driver API server in front of an in-process target
(conformance/transports/http_server.py)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from target_wrappers import patched

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import PROTOCOL_VERSION, DeploymentConfig, ToolSpec
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.http_server import create_app
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.httpd import ServerThread
from subagent_tck.conformance.transports.wire import MAX_BODY, READY_WORD
from subagent_tck.spec import ErrorCode, TckError

CONFIG = {"tools": [{"name": "read"}, {"name": "web"}], "gatewayUrl": "http://127.0.0.1:9/g"}


@pytest.fixture
def client(served: ServerThread) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=10, trust_env=False,
                      headers={"content-type": "application/json"}) as http:  # as the kit
        yield http


@pytest.fixture
def deployment(client: httpx.Client) -> str:
    answer = client.post("/v1/deployments", json=CONFIG)
    assert answer.status_code == 201, answer.text
    return f"/v1/deployments/{answer.json()['deployment']}"


def state(client: httpx.Client, path: str) -> Any:
    root = client.post(f"{path}/root").json()["agent"]
    return [client.post(f"{path}/{op}", json=body).json() for op, body in [
        ("sessions", {}), ("agents", {}), ("events", {}), ("view", {"agent": root}),
        ("prompt", {"agent": root})]]


@pytest.mark.parametrize("body", [
    b'{"headerDepth": NaN}', b'{"headerDepth": Infinity}', b'{"headerDepth": -Infinity}',
    b'{"headerDepth": 1', b'{"headerDepth": "\xff"}', b'[]', b'null', b'{"bogus": 1}',
    b'{"hasRuntimeDepth": "yes"}',
])
def test_a_malformed_body_is_refused_with_400_invalid_request_and_nothing_changes(
    client: httpx.Client, deployment: str, body: bytes
) -> None:
    before = state(client, deployment)
    answer = client.post(f"{deployment}/create-agent", content=body)
    assert answer.status_code == 400
    error = answer.json()
    assert error["code"] == "INVALID_REQUEST" and error["message"]
    assert state(client, deployment) == before


def test_a_raw_nan_in_a_deployment_config_is_refused_before_any_deployment_exists(
    client: httpx.Client,
) -> None:
    answer = client.post("/v1/deployments", content=b'{"gatewayUrl": "http://x/", '
                         b'"hostDepth": NaN}')
    assert answer.status_code == 400 and answer.json()["code"] == "INVALID_REQUEST"
    assert "$number" in answer.json()["message"]  # the message names the fix


def test_negative_zero_in_a_body_reaches_the_target_as_negative_zero(
    client: httpx.Client, deployment: str
) -> None:
    answer = client.post(f"{deployment}/set-host-depth", content=b'{"value": -0}')
    assert answer.status_code == 422
    assert answer.json()["code"] == "INVALID_DEPTH" and "-0" in answer.json()["message"]
    accepted = client.post(f"{deployment}/set-host-depth", content=b'{"value": 0}')
    assert accepted.status_code == 200 and accepted.json() is None


def test_a_body_over_the_limit_is_refused_without_reading_it_all(
    client: httpx.Client, deployment: str
) -> None:
    answer = client.post(f"{deployment}/set-host-depth",
                         content=b'{"value": "' + b"9" * MAX_BODY + b'"}')
    assert answer.status_code == 400 and answer.json()["code"] == "INVALID_REQUEST"
    assert str(MAX_BODY) in answer.json()["message"]


@pytest.mark.parametrize(("method", "path"), [
    ("POST", "{d}/no-such-operation"), ("POST", "/v1/deployments/d999/view"),
    ("DELETE", "/v1/deployments/d999"), ("GET", "/v2/info"), ("GET", "{d}/view"),
])
def test_an_unknown_route_or_deployment_gets_a_structured_4xx(
    client: httpx.Client, deployment: str, method: str, path: str
) -> None:
    answer = client.request(method, path.format(d=deployment), json={})
    assert 400 <= answer.status_code < 500
    assert answer.json()["code"] == "PROTOCOL_ERROR" and answer.json()["message"]


def test_a_refusal_of_the_target_is_422_with_its_code_and_details(
    client: httpx.Client, deployment: str
) -> None:
    root = client.post(f"{deployment}/root").json()["agent"]
    answer = client.post(f"{deployment}/install-restriction",
                         json={"agent": root, "restriction": {"allow": ["nope"]}})
    assert answer.status_code == 422
    assert answer.json()["code"] == "INVALID_TOOL_FILTER"


def test_an_empty_body_stands_for_no_arguments_where_none_is_required(
    client: httpx.Client, deployment: str
) -> None:
    assert client.post(f"{deployment}/agents").status_code == 200
    assert client.post(f"{deployment}/view").json()[0]["name"] == "read"  # agent: None
    assert client.post(f"{deployment}/register-tool").status_code == 400


def test_numbers_reach_the_target_as_javascript_reads_them() -> None:
    seen: list[Any] = []

    def set_host_depth(value: Any) -> None:
        seen.append(value)

    with ServerThread(create_app(patched(reference_target(), "set_host_depth",
                                           lambda _: set_host_depth))) as server:
        http = httpx.Client(base_url=server.url, trust_env=False, timeout=10,
                            headers={"content-type": "application/json"})
        path = f"/v1/deployments/{http.post('/v1/deployments', json=CONFIG).json()['deployment']}"
        for text in (b"-0", b"9007199254740993", b"7", b"1e400", b'{"$number": "NaN"}'):
            assert http.post(f"{path}/set-host-depth", content=b'{"value": ' + text + b"}"
                             ).status_code == 200
        http.close()
    assert math.copysign(1, seen[0]) == -1.0 and seen[0] == 0
    assert seen[1] == 2.0**53 and isinstance(seen[1], float)
    assert seen[2] == 7 and isinstance(seen[2], int)
    assert seen[3] == math.inf and math.isnan(seen[4])


def test_a_crash_of_the_target_is_a_500_which_the_kit_reports_as_a_protocol_error() -> None:
    def view(agent: str | None = None) -> Any:
        raise ZeroDivisionError("a bug in the adapter")

    with ServerThread(create_app(patched(reference_target(), "view", lambda _: view))) as server:
        answer = httpx.post(f"{server.url}/v1/deployments", json=CONFIG, trust_env=False)
        path = f"/v1/deployments/{answer.json()['deployment']}/view"
        crash = httpx.post(server.url + path, json={}, trust_env=False)
        assert crash.status_code == 500 and "ZeroDivisionError" in crash.json()["message"]
        target = HttpTarget(server.url, timeout=5)
        deployment = target.deploy(DeploymentConfig(tools=[ToolSpec(name="a")]), Gateway())
        with pytest.raises(TckError) as caught:
            deployment.view(None)
        assert caught.value.code is ErrorCode.PROTOCOL_ERROR
        assert "crashed" in caught.value.message
        assert "a bug in the adapter" in caught.value.message
        target.close()


def test_every_answer_names_the_protocol_version(client: httpx.Client) -> None:
    answer = client.get("/v1/info")
    assert answer.headers["x-subagent-tck-protocol"] == PROTOCOL_VERSION
    assert answer.json()["protocol"] == PROTOCOL_VERSION


def test_serve_prints_the_ready_line_first_and_serves_until_stopped(tmp_path: Any) -> None:
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "subagent_tck.conformance.transports.http_server", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        word, url = process.stdout.readline().split()
        assert word == READY_WORD and url.startswith("http://127.0.0.1:")
        info = httpx.get(f"{url}/v1/info", trust_env=False, timeout=10).json()
        assert info["name"] == "reference"
    finally:
        process.terminate()
        process.wait(10)
    assert process.returncode is not None


def test_a_port_in_use_is_a_usage_error(served: ServerThread) -> None:
    from subagent_tck.conformance.transports.http_server import main

    assert main(["--port", str(served.port)]) == 2


def test_tagged_numbers_in_a_body_reach_the_target_as_non_finite_numbers(
    client: httpx.Client, deployment: str
) -> None:
    root = client.post(f"{deployment}/root").json()["agent"]
    for tag in ("NaN", "Infinity", "-Infinity"):
        body = {"request": {"parent": root, "provider": "spawn", "prompt": "x",
                            "maxDepth": {"$number": tag}}}
        answer = client.post(f"{deployment}/start", content=json.dumps(body))
        assert answer.status_code == 422 and answer.json()["code"] == "INVALID_DEPTH", tag
