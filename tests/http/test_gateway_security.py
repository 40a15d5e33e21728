"""The model gateway attributes only agents the target reported, refuses malformed and deep
bodies with 4xx, and servers bound their connections (conformance/transports/gateway_server.py,
conformance/transports/httpd.py; docs/driver-api.md#security-and-processes)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from target_wrappers import Wrapped

from subagent_tck.conformance.core.gateway import Gateway, text
from subagent_tck.conformance.core.protocol import DeploymentConfig, StartRequest
from subagent_tck.conformance.transports.gateway_chat import MAX_DEPTH, nesting
from subagent_tck.conformance.transports.gateway_server import GatewayServer
from subagent_tck.conformance.transports.http_target import HttpTarget
from subagent_tck.conformance.transports.httpd import HttpServer

BODY = {"model": "m", "messages": [{"role": "system", "content": "s"},
                                   {"role": "user", "content": "do MARK"}]}


@pytest.fixture
def server() -> Iterator[GatewayServer]:
    gateway_server = GatewayServer(reply_timeout=5.0).start()
    yield gateway_server
    gateway_server.close()


def post(url: str, content: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(url, content=content, headers={"content-type": "application/json",
                                                      **(headers or {})}, timeout=5.0)


def chat_url(base: str, agent: str) -> str:
    return f"{base}/agents/{agent}/v1/chat/completions"


def test_a_request_for_an_agent_the_target_never_reported_is_refused_and_recorded(
    server: GatewayServer,
) -> None:
    gateway = Gateway()
    gateway.script("MARK", text("scripted"))
    base = server.mount(gateway, known=lambda agent: agent == "a1")
    answer = post(chat_url(base, "forged-child"), json.dumps(BODY).encode())
    assert answer.status_code == 403
    assert "never reported an agent 'forged-child'" in answer.json()["error"]["message"]
    assert gateway.requests() == [] and gateway.agents_for("MARK") == []  # nothing bound
    assert [u.agent for u in gateway.unattributed] == ["forged-child"]
    assert gateway.transcript()[-1]["unattributed"]["agent"] == "forged-child"
    answer = post(chat_url(base, "a1"), json.dumps(BODY).encode())  # the reported one
    assert answer.status_code == 200
    assert answer.json()["choices"][0]["message"]["content"] == "scripted"
    assert gateway.agents_for("MARK") == ["a1"]


def test_a_resolver_that_raises_refuses_the_request(server: GatewayServer) -> None:
    def broken(agent: str) -> bool:
        raise RuntimeError("the target is gone")

    gateway = Gateway()
    base = server.mount(gateway, known=broken)
    assert post(chat_url(base, "a1"), json.dumps(BODY).encode()).status_code == 403
    assert len(gateway.unattributed) == 1


def test_over_http_a_child_is_attributed_before_start_returns_and_a_forged_id_is_not(
    http_target: HttpTarget,
) -> None:
    gateway = Gateway()
    gateway.script("MARK-CHILD", text("child finished"))
    deployment = http_target.deploy(DeploymentConfig(), gateway)
    try:
        root = deployment.root().agent
        result = deployment.start(StartRequest(parent=root, provider="spawn",
                                               prompt="do MARK-CHILD"))
        assert result.output == "child finished"  # its first request was attributed
        assert gateway.agents_for("MARK-CHILD") == [result.agent]
        forged = post(chat_url(deployment.gateway_url, "never-published"),
                      json.dumps(BODY).encode())
        assert forged.status_code == 403
        assert [u.agent for u in gateway.unattributed] == ["never-published"]
        assert "never-published" not in {r.agent for r in gateway.requests()}
    finally:
        deployment.close()


def deep(levels: int) -> bytes:
    inner = "[" * levels + "]" * levels
    return ('{"messages": [{"role": "user", "content": ' + inner + "}]}").encode()


@pytest.mark.parametrize("content", [deep(10_000), deep(MAX_DEPTH), b'{"messages": [',
                                     b"\xff\xfe", b"not json", b'{"messages": 3}', b""],
                         ids=["10000-deep", "over-the-limit", "truncated", "not-utf8",
                              "not-json", "no-list", "empty"])
def test_a_malformed_or_deeply_nested_body_is_refused_with_400(
    server: GatewayServer, content: bytes,
) -> None:
    gateway = Gateway()
    base = server.mount(gateway)
    answer = post(chat_url(base, "a1"), content)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert gateway.requests() == []


def test_a_body_nested_within_the_limit_is_answered(server: GatewayServer) -> None:
    base = server.mount(Gateway())
    assert post(chat_url(base, "a1"), deep(MAX_DEPTH - 3)).status_code == 200


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="[]{}\"\\ab,:"),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(alphabet="[]{}\"\\k", max_size=4), inner, max_size=3),
    max_leaves=40,
)


@given(JSON)
def test_nesting_is_the_depth_of_the_json_brackets_inside_strings_aside(value: Any) -> None:
    assert nesting(json.dumps(value).encode()) == depth(value)


def test_a_server_answers_503_past_its_connection_limit_and_serves_again_after() -> None:
    class Echo:
        def handle(self, request: Any) -> Any:
            from subagent_tck.conformance.transports.httpd import Answer

            return Answer(200, b"{}")

        def refuse(self, status: int, message: str) -> Any:
            from subagent_tck.conformance.transports.httpd import Answer

            return Answer(status, json.dumps({"message": message}).encode())

    server = HttpServer(Echo(), max_connections=2).start()
    held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(2)]
    try:
        extra = socket.create_connection(("127.0.0.1", server.port))
        extra.settimeout(5)
        answer = extra.recv(65536)
        assert answer.startswith(b"HTTP/1.1 503 ") and b"at most 2" in answer
        extra.close()
        assert server.refused == 1
        for sock in held:
            sock.close()
        for _ in range(100):  # the slots free once their threads see the close
            if httpx.get(server.url + "/", timeout=5).status_code == 200:
                break
        else:
            pytest.fail("the server never served again")
    finally:
        for sock in held:
            sock.close()
        server.stop()


def test_the_gateway_refuses_a_request_a_web_page_sent(server: GatewayServer) -> None:
    base = server.mount(Gateway())
    answer = post(chat_url(base, "a1"), json.dumps(BODY).encode(),
                  {"origin": "https://evil.example"})
    assert answer.status_code == 403


class Forging(Wrapped):
    """The reference, except that every agent posts to the gateway under an id it never
    reported (``forged-`` + its id): as a target faking its children's requests would."""

    def __init__(self) -> None:
        from subagent_tck.conformance.transports.builtin import reference_target

        super().__init__(reference_target())

    def deploy(self, config: Any, gateway: Gateway) -> Any:
        class Renaming(Gateway):
            def complete(self, request: Any) -> Any:
                return gateway.complete(request.model_copy(
                    update={"agent": "forged-" + request.agent}))

        return super().deploy(config, Renaming())


def test_a_check_over_http_fails_when_its_agents_requests_were_unattributed() -> None:
    from subagent_tck.conformance.engine.runner import RunConfig, certify
    from subagent_tck.conformance.transports.http_server import create_app
    from subagent_tck.conformance.transports.httpd import ServerThread

    with ServerThread(create_app(Forging(), model_timeout=10.0)) as served:  # type: ignore[arg-type]
        target = HttpTarget(served.url, timeout=10.0)
        try:
            cert = certify(target, RunConfig(target_spec=served.url, rules=("FR-01",)))
        finally:
            target.close()
    failures = [f for r in cert.model_dump(mode="json")["rules"] for f in r["failures"]]
    assert failures, "a target whose requests were all unattributed passed FR-01"
    refused = [t["unattributed"] for f in failures for t in f["transcript"]
               if "unattributed" in t]
    assert refused and all(u["agent"].startswith("forged-") for u in refused)
    assert "never reported" in refused[0]["reason"]
