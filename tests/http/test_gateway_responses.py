"""The model gateway speaking the OpenAI Responses API
(conformance/transports/gateway_responses.py): hand-made bodies and events, what Codex CLI 0.171.0
sent on the wire (tests/http/fixtures/codex_probe.json), hostile bodies, and the route over real
loopback HTTP."""

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

from subagent_tck.conformance.core.gateway import Gateway, call, text
from subagent_tck.conformance.core.protocol import Message, ModelReply, ModelRequest, ToolCall
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker, find_marker
from subagent_tck.conformance.transports.gateway_responses import (
    DELTA,
    ResponsesShapeError,
    events_to_reply,
    reply_to_events,
    reply_to_response,
    request_to_responses,
    response_to_reply,
    responses_to_request,
    streaming,
)
from subagent_tck.conformance.transports.gateway_server import GatewayServer
from subagent_tck.spec import StopReason

PROBE = probe("codex_probe.json")

calls = tool_calls(ids)


def _one_reading(request: ModelRequest) -> bool:
    """Whether the wire tells this request's messages apart: an assistant turn without text
    is its call items alone, which join the assistant turn right before them."""
    return not any(a.role == "assistant" and b.role == "assistant" and b.content is None
                   for a, b in zip(request.messages, request.messages[1:], strict=False))


requests = model_requests(calls).filter(_one_reading)
texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=3 * DELTA)
replies = st.builds(ModelReply, text=st.none() | texts, toolCalls=calls,
                    stopReason=st.sampled_from(list(StopReason)))
#: A request offering a namespace (as Codex offers its MCP tools and its multi-agent tools).
NAMESPACED = {"tools": [
    {"type": "namespace", "name": "mcp__tck", "tools": [{"type": "function", "name": "read"}]},
    {"type": "function", "name": "plain"},
    {"type": "custom", "name": "apply_patch", "format": {"type": "text"}}]}


@settings(max_examples=60)
@given(requests)
@example(ModelRequest(agent="", system="", tools=[], messages=[], context=[" ", "  x "]))
@example(ModelRequest(agent="a", system="persona", tools=[], messages=[
    Message(role="assistant", content=None, toolCalls=[ToolCall(id="c", name="n")]),
    Message(role="tool", content="out", toolCallId="c", isError=True),
    Message(role="assistant", content="", toolCalls=[])]))
def test_a_model_request_survives_the_responses_wire(request: ModelRequest) -> None:
    assert responses_to_request(request.agent, request_to_responses(request)) == request


@settings(max_examples=80)
@given(replies, st.sampled_from([None, NAMESPACED]))
@example(ModelReply(text="line one\n\nevent: x\ndata: [DONE]\n\nline\r\nthree"), None)
@example(ModelReply(text="naïve → 東京 🚀 " * 20, toolCalls=[
    ToolCall(id="c1", name="mcp__tck__read", arguments={"path": "a b/ü.txt"}),
    ToolCall(id="c2", name="apply_patch", arguments={"input": "*** Begin Patch"})]), NAMESPACED)
@example(ModelReply(text="", stopReason=StopReason.REFUSAL), None)
def test_a_model_reply_survives_the_responses_wire_streamed_or_not(
        reply: ModelReply, body: dict[str, Any] | None) -> None:
    assert response_to_reply(reply_to_response(reply, body)) == reply
    assert events_to_reply(reply_to_events(reply, body)) == reply


def _events(stream: str) -> list[dict[str, Any]]:
    out = []
    for block in stream.split("\n\n"):
        if block:
            kind, data = block.split("\n")
            event = json.loads(data.removeprefix("data: "))
            assert kind == f"event: {event['type']}"
            out.append(event)
    return out


def test_the_stream_is_the_event_sequence_a_responses_endpoint_sends() -> None:
    reply = ModelReply(text="Reading the file now.", toolCalls=[
        ToolCall(id="call_a", name="mcp__tck__read", arguments={"path": "notes.md"})])
    events = _events(reply_to_events(reply, NAMESPACED, "gpt-x"))
    assert [e["type"] for e in events] == [
        "response.created", "response.in_progress",
        "response.output_item.added", "response.content_part.added",
        "response.output_text.delta", "response.output_text.delta", "response.output_text.done",
        "response.content_part.done", "response.output_item.done",
        "response.output_item.added", "response.function_call_arguments.delta",
        "response.function_call_arguments.delta", "response.function_call_arguments.done",
        "response.output_item.done", "response.completed"]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert done[1] == {"id": done[1]["id"], "type": "function_call", "status": "completed",
                       "call_id": "call_a", "name": "read", "namespace": "mcp__tck",
                       "arguments": '{"path": "notes.md"}'}
    final = events[-1]["response"]
    assert final["status"] == "completed" and final["model"] == "gpt-x"
    assert final["output"] == done and final["usage"]["total_tokens"] == 0
    assert "".join(e["delta"] for e in events if e["type"].endswith("text.delta")) == reply.text


@pytest.mark.parametrize(("stop", "event", "status", "detail"), [
    (StopReason.MAX_TOKENS, "response.incomplete", "incomplete", "max_output_tokens"),
    (StopReason.REFUSAL, "response.incomplete", "incomplete", "content_filter"),
    (StopReason.ERROR, "response.failed", "failed", "server_error"),
    (StopReason.ABORTED, "response.failed", "cancelled", "cancelled"),
])
def test_a_turn_that_did_not_complete_ends_with_its_status(
        stop: StopReason, event: str, status: str, detail: str) -> None:
    last = _events(reply_to_events(ModelReply(text="x", stopReason=stop)))[-1]
    assert (last["type"], last["response"]["status"]) == (event, status)
    said = last["response"]["error"] or last["response"]["incomplete_details"]
    assert detail in said.values()


def test_a_cut_stream_or_an_error_event_is_no_reply() -> None:
    whole = reply_to_events(ModelReply(text="hello"))
    with pytest.raises(ResponsesShapeError, match="cut"):
        events_to_reply(whole[:whole.index("event: response.completed")])
    with pytest.raises(ResponsesShapeError, match="error"):
        events_to_reply('event: error\ndata: {"type": "error", "message": "boom"}\n\n')
    with pytest.raises(ResponsesShapeError, match="unknown"):
        response_to_reply({"output": [], "status": "queued"})


def _probe(index: int) -> dict[str, Any]:
    exchange: dict[str, Any] = PROBE["exchanges"][index]
    return exchange


def test_codexs_root_request_reads_as_its_persona_and_its_namespaced_tools() -> None:
    request = responses_to_request("", _probe(0)["body"])
    agent, system, _ = find_marker(request.system)
    assert agent == "root"
    assert system.startswith("You are a coding agent running in the Codex CLI")
    assert system.endswith("\n\nROOT PERSONA")  # the base instructions, then the persona
    names = [t.name for t in request.tools]
    assert "multi_agent_v1__spawn_agent" in names and "mcp__tck__alpha" in names
    spawn = next(t for t in request.tools if t.name == "multi_agent_v1__spawn_agent")
    assert {"message", "agent_type", "model"} <= set(spawn.parameters["properties"])
    assert request.messages == [Message(role="user", content="ROOT-START go")]
    assert request.model is None  # the placeholder model: none reported


def test_codexs_root_reads_the_namespaced_calls_it_made_and_their_outputs() -> None:
    request = responses_to_request("root", _probe(1)["body"])
    made = [c.name for m in request.messages for c in m.toolCalls]
    assert made == ["mcp__tck__alpha", "multi_agent_v1__spawn_agent",
                    "multi_agent_v1__wait_agent"]
    outputs = [m for m in request.messages if m.role == "tool"]
    assert "alpha" in str(outputs[0].content)  # the MCP result's parts, joined
    assert "agent_id" in str(outputs[1].content)
    assert request.messages[-1].role == "user" and "subagent_notification" in str(
        request.messages[-1].content)


def test_codexs_child_request_carries_its_own_persona_model_and_the_refused_call() -> None:
    first = _probe(2)
    assert first["headers"]["x-openai-subagent"] == "collab_spawn"
    request = responses_to_request("", first["body"])
    agent, system, _ = find_marker(request.system)
    assert agent == "child-1" and system.endswith("You are the reader persona.")
    assert request.model == "child-model-x"
    assert "multi_agent_v1__spawn_agent" not in [t.name for t in request.tools]
    later = responses_to_request("child-1", _probe(3)["body"])
    forged, refused = later.messages[-2:]
    assert [c.name for c in forged.toolCalls] == ["mcp__tck__gamma"]
    assert refused.role == "tool" and "unsupported call" in str(refused.content)


HOSTILE: list[Any] = [
    None, [], "x", {"input": 5}, {"input": [1]}, {"input": [{"type": 5}]},
    {"input": [{"role": "tool", "content": "x"}]},
    {"input": [{"role": "user", "content": 5}]},
    {"input": [{"role": "user", "content": [{"text": "no type"}]}]},
    {"input": [{"role": "user", "content": [{"type": "input_text", "text": 5}]}]},
    {"input": [{"type": "function_call", "name": "a"}]},
    {"input": [{"type": "function_call", "name": "a", "call_id": "c", "arguments": "{"}]},
    {"input": [{"type": "function_call", "name": "a", "call_id": "c", "arguments": "[]"}]},
    {"input": [{"type": "function_call", "name": "a", "call_id": "c", "namespace": 1}]},
    {"input": [{"type": "custom_tool_call", "name": "a", "call_id": "c", "input": 1}]},
    {"input": [{"type": "function_call_output", "output": "x"}]},
    {"input": [], "instructions": 5}, {"input": [], "tools": {}}, {"input": [], "tools": [1]},
    {"input": [], "tools": [{"type": "function"}]},
    {"input": [], "tools": [{"type": "namespace", "name": "n"}]},
    {"input": [], "stream": "yes"},
]


@pytest.mark.parametrize("body", HOSTILE)
def test_a_body_off_the_responses_shape_is_refused_with_where_it_is_wrong(body: Any) -> None:
    with pytest.raises(ResponsesShapeError):
        responses_to_request("a", body)
        streaming(body)


def test_a_string_input_and_items_the_rules_do_not_read_are_taken_as_they_come() -> None:
    assert responses_to_request("a", {"input": "hi"}).messages == [
        Message(role="user", content="hi")]
    request = responses_to_request("a", {"input": [
        {"type": "reasoning", "summary": []},
        {"role": "developer", "content": "mid-conversation note"},
        {"role": "user", "content": [{"type": "input_image", "image_url": "x"},
                                     {"type": "input_text", "text": "look"}]},
        {"type": "custom_tool_call", "call_id": "c", "name": "apply_patch", "input": "p"},
        {"type": "custom_tool_call_output", "call_id": "c", "output": "done"},
    ], "tools": [{"type": "web_search"}, {"type": "custom", "name": "apply_patch"}]})
    assert request.system == "mid-conversation note"  # opening developer messages
    assert [t.name for t in request.tools] == ["web_search", "apply_patch"]
    assert request.messages[1].toolCalls == [ToolCall(id="c", name="apply_patch",
                                                      arguments={"input": "p"})]
    assert request.messages[2] == Message(role="tool", content="done", toolCallId="c")


# --- the route over loopback HTTP --------------------------------------------------------


@pytest.fixture
def server() -> Iterator[GatewayServer]:
    s = GatewayServer(reply_timeout=2.0)
    try:
        yield s
    finally:
        s.close()


def _body(system: str, **more: Any) -> dict[str, Any]:
    return {"model": "gpt-x", "input": [
        {"type": "message", "role": "developer", "content": [
            {"type": "input_text", "text": system}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}],
        **NAMESPACED, **more}


def test_a_marked_request_streams_the_scripted_namespaced_call_to_its_agent(
        server: GatewayServer) -> None:
    gateway = Gateway()
    gateway.script("go", call("mcp__tck__read", {"path": "x"}, call_id="c1"))
    base = server.mount(gateway)
    answer = httpx.post(f"{base}/v1/responses", timeout=10,
                        json=_body(f"You read.\n{agent_marker('child-1')}", stream=True))
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    item = next(e["item"] for e in _events(answer.text) if e["type"] ==
                "response.output_item.done")
    assert (item["namespace"], item["name"], item["call_id"]) == ("mcp__tck", "read", "c1")
    seen = gateway.requests("child-1")[0]
    assert seen.system == "You read." and seen.model == "gpt-x"  # the marker cut


def test_the_agent_in_the_path_attributes_a_whole_response_and_its_marker_is_cut(
        server: GatewayServer) -> None:
    gateway = Gateway()
    gateway.script("go", text("done"))
    base = server.mount(gateway)
    answer = httpx.post(f"{base}/agents/a%2Fb/v1/responses", timeout=10,
                        json=_body(f"p {agent_marker('other')}"))
    assert answer.status_code == 200 and answer.json()["status"] == "completed"
    assert response_to_reply(answer.json()) == ModelReply(text="done")
    assert gateway.requests("a/b")[0].system == "p"


def test_a_request_without_a_marker_is_recorded_unattributed_and_refused(
        server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway)
    answer = httpx.post(f"{base}/v1/responses", timeout=10, json=_body("no marker here"))
    assert answer.status_code == 403 and "/v1/responses" in answer.json()["error"]["message"]
    assert gateway.unattributed and not gateway.requests()


def test_a_hostile_body_and_a_get_are_answered_with_an_openai_error(
        server: GatewayServer) -> None:
    base = server.mount(Gateway())
    bad = httpx.post(f"{base}/v1/responses", timeout=10, json={"input": 5})
    assert bad.status_code == 400 and "Responses API" in bad.json()["error"]["message"]
    assert httpx.get(f"{base}/v1/responses", timeout=10).status_code == 405
    assert httpx.post(f"{base}/agents//v1/responses", timeout=10, json={}).status_code == 404


def test_a_failing_or_stalled_script_fails_the_response_and_tells_the_client_not_to_retry(
        server: GatewayServer) -> None:
    gateway = Gateway()
    release = failing_and_stalling(gateway, "FAIL", "STALL")
    base = server.mount(gateway)
    try:
        for mark, status in (("FAIL", 500), ("STALL", 504)):
            started = time.monotonic()
            body = _body(agent_marker(mark.lower()))  # one agent each
            body["input"][1]["content"][0]["text"] = mark
            answer = httpx.post(f"{base}/v1/responses", timeout=10, json=body)
            assert answer.status_code == status, answer.text
            assert answer.headers["x-should-retry"] == "false"
            assert time.monotonic() - started < 5
    finally:
        release.set()


@given(words)
def test_a_notice_anywhere_in_the_input_is_the_requests_runtime_context(notice: str) -> None:
    body = _body("p")
    body["input"].append({"role": "developer", "content": f"[runtime-context] {notice}"})
    assert responses_to_request("a", body).context == [notice]
