"""The model gateway speaking Anthropic Messages, with attribution by marker
(conformance/transports/gateway_anthropic.py), against what Claude Code 2.1.197 sent on the wire
(tests/http/fixtures/claude_code_probe.json) and against hostile bodies."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from http_helpers import failing_and_stalling, ids, model_requests, probe, tool_calls, words
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subagent_tck.conformance.core.gateway import Gateway, ModelFailure, call, text
from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.transports.gateway_anthropic import (
    MessagesShapeError,
    agent_marker,
    events_to_reply,
    find_marker,
    message_to_reply,
    messages_to_request,
    reply_to_events,
    reply_to_message,
    request_to_messages,
)
from subagent_tck.conformance.transports.gateway_server import GatewayServer
from subagent_tck.spec import StopReason

PROBE = probe("claude_code_probe.json")

calls = tool_calls(ids)
requests = model_requests(calls, system=words.filter(lambda t: "[subagent-tck" not in t))
replies = st.builds(ModelReply, text=st.none() | words.filter(bool), toolCalls=calls,
                    stopReason=st.sampled_from(list(StopReason)))


@settings(max_examples=60)
@given(requests)
# a notice of spaces only: the wire's separating space is one, the rest is the notice's text
@example(ModelRequest(agent="", system="", tools=[], messages=[], context=[" ", "  x "]))
def test_a_model_request_survives_the_messages_wire(request: ModelRequest) -> None:
    assert messages_to_request(request.agent, request_to_messages(request)) == request


@settings(max_examples=60)
@given(replies)
def test_a_model_reply_survives_the_messages_wire_streamed_or_not(reply: ModelReply) -> None:
    assert message_to_reply(reply_to_message(reply)) == reply
    assert events_to_reply(reply_to_events(reply)) == reply


@settings(max_examples=40)
@given(ids, words)
def test_a_planted_marker_names_its_agent_and_is_cut_from_the_system_text(
        agent: str, persona: str) -> None:
    found, system, why = find_marker(f"{persona}\n{agent_marker(agent)}\n\nNotes: x")
    assert (found, why) == (agent, None)
    assert "[subagent-tck" not in system and "Notes: x" in system


def test_a_system_text_without_a_marker_or_with_two_agents_markers_is_not_attributed() -> None:
    assert find_marker("You are helpful.")[0] is None
    assert "no agent marker" in str(find_marker("You are helpful.")[2])
    found, _, why = find_marker(agent_marker("a") + agent_marker("b"))
    assert found is None and "several agents" in str(why)
    assert find_marker(agent_marker("a") * 2)[0] == "a"  # the same agent twice is one agent


def _probe(index: int) -> dict[str, Any]:
    exchange: dict[str, Any] = PROBE["exchanges"][index]
    return exchange


def test_claude_codes_child_request_maps_to_the_tools_and_persona_it_was_given() -> None:
    body = _probe(1)["body"]
    assert body["stream"] is True and _probe(1)["path"] == "/v1/messages?beta=true"
    request = messages_to_request("", body)
    agent, system, _ = find_marker(request.system)
    assert agent == "child-1"
    assert [t.name for t in request.tools] == ["Read", "Grep"]
    assert "You are the reader persona." in system and "[subagent-tck" not in system
    assert request.messages[-1].role == "user" and "go read" in str(request.messages[-1].content)


def test_claude_codes_errored_tool_result_is_an_errored_tool_message() -> None:
    request = messages_to_request("child-1", _probe(2)["body"])
    forged, result = request.messages[-2:]
    assert forged.role == "assistant" and [c.name for c in forged.toolCalls] == ["Write"]
    assert result.role == "tool" and result.isError and result.toolCallId == "call-1"
    assert "No such tool available" in str(result.content)


def test_claude_codes_parent_request_offers_the_agent_tool_and_reads_the_childs_result() -> None:
    request = messages_to_request("root", _probe(3)["body"])
    agent = next(t for t in request.tools if t.name == "Agent")
    assert {"description", "prompt", "subagent_type"} <= set(agent.parameters["properties"])
    assert find_marker(request.system)[0] == "root"
    assert any(m.role == "system" for m in request.messages)  # mid-conversation system notes
    assert request.messages[-1].role == "tool" and "child done" in str(
        request.messages[-1].content)


HOSTILE: list[Any] = [
    None, [], "x", {"messages": "x"}, {"messages": [1]}, {"messages": [{"role": "tool"}]},
    {"messages": [{"role": "user", "content": 5}]},
    {"messages": [{"role": "user", "content": [{"text": "no type"}]}]},
    {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
    {"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]},
    # a result that answers no tool_use an earlier assistant turn made (the call dropped)
    {"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}]},
    {"messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "b",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}]},
    {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "a",
                                                     "name": "b", "input": []}]}]},
    {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "name": "b"}]}]},
    {"messages": [], "system": 5}, {"messages": [], "system": [{"type": "text"}]},
    {"messages": [], "tools": {}}, {"messages": [], "tools": [{"name": 1}]},
]


@pytest.mark.parametrize("body", HOSTILE)
def test_a_body_off_the_messages_shape_is_refused_with_where_it_is_wrong(body: Any) -> None:
    with pytest.raises(MessagesShapeError):
        messages_to_request("a", body)


# --- the kit's server ------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[GatewayServer]:
    served = GatewayServer(reply_timeout=1.0).start()
    yield served
    served.close()


def _events(stream: str) -> list[str]:
    return [line[7:] for line in stream.splitlines() if line.startswith("event: ")]


def test_a_streamed_reply_is_the_full_event_sequence_and_carries_the_scripted_call(
        server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway, known=lambda agent: agent == "child-1")
    gateway.script("go read", call("Write", {"file_path": "/x"}), text("child done"))
    answer = httpx.post(f"{base}/v1/messages?beta=true", json=_probe(1)["body"])
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert _events(answer.text) == ["message_start", "content_block_start",
                                    "content_block_delta", "content_block_delta",
                                    "content_block_stop", "message_delta", "message_stop"]
    reply = events_to_reply(answer.text)
    assert [(c.name, c.arguments) for c in reply.toolCalls] == [("Write", {"file_path": "/x"})]
    [exchange] = gateway.exchanges
    assert exchange.request.agent == "child-1" and "[subagent-tck" not in exchange.request.system
    assert [t.name for t in gateway.requests("child-1")[0].tools] == ["Read", "Grep"]


def test_a_request_without_a_marker_is_recorded_unattributed_and_refused(
        server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway, known=lambda agent: True)
    body = {"model": "m", "max_tokens": 5, "system": "no marker here",
            "messages": [{"role": "user", "content": "hi"}]}
    answer = httpx.post(f"{base}/v1/messages", json=body)
    assert answer.status_code == 403 and answer.json()["error"]["type"] == "permission_error"
    assert gateway.exchanges == []
    [refused] = gateway.unattributed
    assert "no agent marker" in refused.reason and refused.request.system == "no marker here"
    assert any("unattributed" in item for item in gateway.transcript())


def test_a_marker_of_an_agent_the_target_never_reported_is_refused(
        server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway, known=lambda agent: agent == "root")
    body = {"model": "m", "max_tokens": 5, "system": agent_marker("ghost"),
            "messages": [{"role": "user", "content": "hi"}]}
    assert httpx.post(f"{base}/v1/messages", json=body).status_code == 403
    assert [u.agent for u in gateway.unattributed] == ["ghost"]


def test_the_agent_id_in_the_path_attributes_a_non_streaming_message(
        server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway)
    gateway.script("hello", text("hi there"))
    body = {"model": "claude-x", "max_tokens": 5, "stream": False,
            "messages": [{"role": "user", "content": "hello"}]}
    answer = httpx.post(f"{base}/agents/a%2Fb/v1/messages", json=body)
    assert answer.status_code == 200 and answer.json()["model"] == "claude-x"
    assert message_to_reply(answer.json()).text == "hi there"
    assert gateway.requests()[0].agent == "a/b"


def test_count_tokens_answers_an_estimate_and_records_no_exchange(server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway, known=lambda agent: False)
    body = {"model": "m", "messages": [{"role": "user", "content": "x" * 400}]}
    answer = httpx.post(f"{base}/v1/messages/count_tokens", json=body)
    assert answer.status_code == 200 and answer.json()["input_tokens"] >= 100
    assert gateway.exchanges == [] and gateway.unattributed == []
    assert httpx.post(f"{base}/v1/messages/count_tokens", json={"x": 1}).status_code == 400


@pytest.mark.parametrize("data", [b"{", b"[]", json.dumps({"messages": 1}).encode(),
                                  b"[" * 200 + b"]" * 200, b"\xff\xfe",
                                  json.dumps(HOSTILE[10]).encode()])
def test_the_server_answers_a_hostile_body_with_an_anthropic_400(
        server: GatewayServer, data: bytes) -> None:
    gateway = Gateway()
    base = server.mount(gateway)
    for path in ("/v1/messages", "/agents/a/v1/messages", "/v1/messages/count_tokens"):
        answer = httpx.post(f"{base}{path}", content=data,
                            headers={"content-type": "application/json"})
        assert answer.status_code == 400, path
        assert answer.json()["type"] == "error"
        assert answer.json()["error"]["type"] == "invalid_request_error"
    assert gateway.exchanges == [] and gateway.unattributed == []


def test_a_failing_or_stalled_script_fails_the_message_and_tells_the_client_not_to_retry(
        server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway)
    release = failing_and_stalling(gateway, "fail", "stall")
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "fail"}]}
    failed = httpx.post(f"{base}/agents/a/v1/messages", json=body)
    assert failed.status_code == 500 and failed.headers["x-should-retry"] == "false"
    assert failed.json()["error"]["message"] == "scripted failure"
    started = time.monotonic()
    body["messages"] = [{"role": "user", "content": "stall"}]
    stalled = httpx.post(f"{base}/agents/b/v1/messages", json=body, timeout=10)
    release.set()
    assert stalled.status_code == 504 and time.monotonic() - started < 4


def test_a_model_failure_is_answered_with_its_own_status_no_client_retries(
        server: GatewayServer) -> None:
    # a 500 may be retried for as long as a runtime likes (opencode retries past any check's
    # time): a failure meant to be final is a 4xx (docs/rules.md#ST-09's failed child)
    gateway = Gateway()
    base = server.mount(gateway)

    def failed(request: ModelRequest) -> ModelReply:
        raise ModelFailure("the model failed for good", status=400)

    gateway.script("fail", failed)
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "fail"}]}
    answer = httpx.post(f"{base}/agents/a/v1/messages", json=body)
    assert answer.status_code == 400 and answer.headers["x-should-retry"] == "false"
    assert answer.json()["error"] == {"type": "invalid_request_error",
                                      "message": "the model failed for good"}
    assert [e.failed for e in gateway.exchanges] == ["ModelFailure: the model failed for good"]


def test_the_scripted_error_and_aborted_stop_reasons_travel_as_named_extensions() -> None:
    for reason in (StopReason.ERROR, StopReason.ABORTED):
        message = reply_to_message(ModelReply(text="x", stopReason=reason))
        assert message["stop_reason"] == reason.value
    assert reply_to_message(ModelReply(stopReason=StopReason.MAX_TOKENS))["stop_reason"] == \
        "max_tokens"
    assert reply_to_message(call("a"))["stop_reason"] == "tool_use"


def test_a_get_on_a_messages_route_is_not_allowed(server: GatewayServer) -> None:
    base = server.mount(Gateway())
    answer = httpx.get(f"{base}/v1/messages")
    assert answer.status_code == 405 and answer.json()["type"] == "error"


NESTED = probe("claude_code_nested_probe.json")


def test_the_recorded_grandchild_of_a_deny_only_child_gets_the_denied_tool_back() -> None:
    """What Claude Code 2.1.197 did (docs/claude-code.md, "What Claude Code does instead"): a
    child whose definition only denies Read is offered Agent, and the grandchild it starts has
    Read again. The mapping must show it as the wire carried it."""
    root, child, grandchild = (messages_to_request("a", e["body"])
                               for e in NESTED["exchanges"][:3])
    assert [t.name for t in root.tools] == ["Agent", "Bash", "Read"]
    assert [t.name for t in child.tools] == ["Agent", "Bash"]
    assert [t.name for t in grandchild.tools] == ["Read", "Bash"]
    assert "grandchild" in str(grandchild.messages[0].content)
