"""``subagent-tck serve`` and its driver app expose nothing (conformance/transports/http_server.py;
docs/driver-api.md#security-and-processes): loopback unless a flag names the risk, JSON bodies
only, no web page as a client, a loopback gatewayUrl only."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator

import httpx
import pytest

from subagent_tck.conformance.transports import http_server, loopback
from subagent_tck.conformance.transports.builtin import reference_target
from subagent_tck.conformance.transports.http_server import create_app
from subagent_tck.conformance.transports.httpd import ServerThread
from subagent_tck.conformance.transports.wire import VERSION_HEADER


@pytest.fixture(scope="module")
def remote_ok() -> Iterator[ServerThread]:
    """The reference served with --allow-remote-gateway."""
    with ServerThread(create_app(reference_target(), remote_gateway=True)) as server:
        yield server


JSON = {"content-type": "application/json"}


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7"])
def test_serve_off_loopback_without_the_flag_is_a_usage_error_naming_it(
    host: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert http_server.main(["--host", host]) == 2
    err = capsys.readouterr().err
    assert f"--host {host} is not a loopback address" in err
    assert "--unsafe-bind-all-interfaces" in err


def test_serve_off_loopback_with_the_flag_warns_and_names_a_loopback_ready_url(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    bound: list[str] = []

    def bind_loopback(host: str, port: int) -> object:  # never listen on every interface
        bound.append(host)
        return loopback.bind("127.0.0.1", 0)

    def stop_at_once(self: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(http_server, "bind", bind_loopback)
    monkeypatch.setattr(http_server.HttpServer, "serve_forever", stop_at_once)
    args = argparse.Namespace(host="0.0.0.0", port=0, target="reference", model_timeout=5.0,
                              unsafe_bind_all_interfaces=True, allow_remote_gateway=False)
    assert http_server.serve_main(args) == 0
    captured = capsys.readouterr()
    assert bound == ["0.0.0.0"]
    assert captured.out.startswith("SUBAGENT_TCK_READY http://127.0.0.1:")
    assert "warning: serving on 0.0.0.0 (--unsafe-bind-all-interfaces)" in captured.err


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x", None])
def test_a_post_whose_body_is_not_declared_json_is_refused_with_415(
    served: ServerThread, kind: str | None,
) -> None:
    headers = {} if kind is None else {"content-type": kind}
    answer = httpx.post(served.url + "/v1/deployments", content=b'{"gatewayUrl": "x"}',
                        headers=headers)
    assert answer.status_code == 415
    assert answer.json()["code"] == "INVALID_REQUEST"
    assert "Content-Type: application/json" in answer.json()["message"]


def test_a_json_content_type_with_parameters_is_accepted(served: ServerThread) -> None:
    answer = httpx.post(served.url + "/v1/deployments", content=b"{}",
                        headers={"content-type": "application/json; charset=utf-8"})
    assert answer.status_code == 400  # past the guard: the body lacks its gatewayUrl
    assert "gatewayUrl" in answer.json()["message"]


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1:1"])
def test_a_request_from_a_foreign_origin_is_refused_with_403(
    served: ServerThread, origin: str,
) -> None:
    for method in ("GET", "POST"):
        answer = httpx.request(method, served.url + "/v1/info", content=b"{}",
                               headers={**JSON, "origin": origin})
        assert answer.status_code == 403, method
        assert "web origin" in answer.json()["message"]


def test_a_request_from_the_servers_own_origin_is_answered(served: ServerThread) -> None:
    answer = httpx.get(served.url + "/v1/info", headers={"origin": served.url})
    assert answer.status_code == 200 and answer.headers[VERSION_HEADER]


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "10.0.0.1",
                                  "127.0.0.1.nip.io"])
def test_a_host_header_off_loopback_is_refused_with_403(
    served: ServerThread, host: str,
) -> None:
    answer = httpx.get(served.url + "/v1/info", headers={"host": host})
    assert answer.status_code == 403
    assert "not a loopback name" in answer.json()["message"]


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1:9", "[::1]:80", "LOCALHOST:1"])
def test_a_loopback_host_header_is_answered(served: ServerThread, host: str) -> None:
    assert httpx.get(served.url + "/v1/info", headers={"host": host}).status_code == 200


@pytest.mark.parametrize("url", ["http://192.0.2.1:9/d/g1", "http://example.com/d",
                                 "https://10.1.2.3/x"])
def test_a_gateway_url_off_loopback_is_refused_without_the_flag(
    served: ServerThread, url: str,
) -> None:
    answer = httpx.post(served.url + "/v1/deployments", headers=JSON,
                        content=json.dumps({"gatewayUrl": url}).encode())
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == "INVALID_REQUEST" and "--allow-remote-gateway" in body["message"]


def test_a_gateway_url_off_loopback_is_accepted_with_the_flag(remote_ok: ServerThread) -> None:
    answer = httpx.post(remote_ok.url + "/v1/deployments", headers=JSON,
                        content=json.dumps({"gatewayUrl": "http://192.0.2.1:9/d/g1"}).encode())
    assert answer.status_code == 201  # accepted; nothing runs, so nothing is sent
    ident = answer.json()["deployment"]
    assert httpx.delete(f"{remote_ok.url}/v1/deployments/{ident}").status_code == 200
