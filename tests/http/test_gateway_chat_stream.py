"""Chat Completions streaming on the model gateway (conformance/transports/gateway_chat_stream.py):
the chunks a reply becomes, the kit's reader of them, and the stream over real loopback HTTP."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from http_helpers import failing_and_stalling, words
from hypothesis import example, given, settings
from hypothesis import strategies as st

from subagent_tck.conformance.core.gateway import Gateway, call, text
from subagent_tck.conformance.core.protocol import Message, ModelReply, ModelRequest, ToolCall
from subagent_tck.conformance.transports.gateway_chat import (
    ChatShapeError,
    chat_to_request,
    finish_reason,
    reply_to_chat,
    request_to_chat,
    streaming,
)
from subagent_tck.conformance.transports.gateway_chat_stream import (
    DELTA,
    reply_to_chunks,
    reply_to_stream,
    stream_to_reply,
)
from subagent_tck.conformance.transports.gateway_server import GatewayServer
from subagent_tck.spec import StopReason

#: Texts long enough to be cut in many deltas: any UTF-8 (spaces, newlines, "\r", non-ASCII).
texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=3 * DELTA)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | words,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=10)
calls = st.lists(st.builds(ToolCall, id=words, name=words,
                           arguments=st.dictionaries(words, values, max_size=4)), max_size=4)
replies = st.builds(ModelReply, text=st.none() | texts, toolCalls=calls,
                    stopReason=st.sampled_from(list(StopReason)))


@settings(max_examples=80)
@given(replies, st.booleans())
@example(ModelReply(text=""), False)
@example(ModelReply(text="line one\n\ndata: [DONE]\n\nline\r\nthree"), True)
@example(ModelReply(text="naïve → 東京 🚀 " * 20, toolCalls=[
    ToolCall(id="call_1", name="read", arguments={"path": "a b/ü.txt"}),
    ToolCall(id="", name="", arguments={}),
    ToolCall(id="c3", name="write", arguments={"deep": {"list": [1, [2.5, None], {"k": "\n"}]}}),
]), True)
@example(ModelReply(stopReason=StopReason.MAX_TOKENS), False)
def test_a_model_reply_survives_the_chat_completions_stream(reply: ModelReply,
                                                            usage: bool) -> None:
    assert stream_to_reply(reply_to_stream(reply, "gpt-x", usage)) == reply


@given(replies)
def test_a_streamed_reply_ends_as_the_same_reply_answered_whole_would(reply: ModelReply) -> None:
    last = reply_to_chunks(reply)[-1]["choices"][0]
    assert last == {"index": 0, "delta": {}, "logprobs": None,
                    "finish_reason": reply_to_chat(reply)["choices"][0]["finish_reason"]}


def _deltas(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c["choices"][0]["delta"] for c in chunks if c["choices"]]


def test_the_stream_has_the_shape_openai_endpoints_send() -> None:
    reply = ModelReply(text="Reading the file now.", toolCalls=[
        ToolCall(id="call_a", name="read", arguments={"path": "notes.md"}),
        ToolCall(id="call_b", name="grep", arguments={"pattern": "x", "opts": {"i": True}})])
    chunks = reply_to_chunks(reply, "gpt-x")
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert {c["model"] for c in chunks} == {"gpt-x"} and len({c["id"] for c in chunks}) == 1
    deltas = _deltas(chunks)
    assert deltas[0] == {"role": "assistant", "content": ""}
    pieces = [d["content"] for d in deltas if "content" in d and "role" not in d]
    assert len(pieces) >= 2 and "".join(pieces) == "Reading the file now."
    tool = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    starts = [t for t in tool if "id" in t]
    assert starts == [
        {"index": 0, "id": "call_a", "type": "function",
         "function": {"name": "read", "arguments": ""}},
        {"index": 1, "id": "call_b", "type": "function",
         "function": {"name": "grep", "arguments": ""}}]
    for index, call_ in enumerate(reply.toolCalls):
        parts = [t["function"]["arguments"] for t in tool if t["index"] == index and "id" not in t]
        assert len(parts) >= 2 and json.loads("".join(parts)) == call_.arguments
        assert all(set(t["function"]) == {"arguments"} for t in tool
                   if t["index"] == index and "id" not in t)
    assert [c["choices"][0]["finish_reason"] for c in chunks][:-1] == [None] * (len(chunks) - 1)
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert all("usage" not in c for c in chunks)
    stream = reply_to_stream(reply)
    assert stream.endswith("\n\ndata: [DONE]\n\n") and stream.startswith("data: {")
    assert all(line.startswith("data: ") for line in stream.split("\n\n") if line)


def test_a_reply_without_text_streams_a_null_content_role_delta() -> None:
    deltas = _deltas(reply_to_chunks(call("read", {"path": "x"})))
    assert deltas[0] == {"role": "assistant", "content": None}
    assert not any("content" in d for d in deltas[1:])


def test_include_usage_adds_a_usage_chunk_without_choices_after_the_finish() -> None:
    chunks = reply_to_chunks(text("hi"), include_usage=True)
    assert all(c["usage"] is None for c in chunks[:-1])
    assert chunks[-1]["choices"] == [] and set(chunks[-1]["usage"]) == {
        "prompt_tokens", "completion_tokens", "total_tokens"}
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize(("reason", "finish"), [
    (StopReason.COMPLETED, "stop"), (StopReason.MAX_TOKENS, "length"),
    (StopReason.REFUSAL, "content_filter"), (StopReason.ERROR, "error"),
    (StopReason.ABORTED, "aborted")])
def test_the_finish_reason_is_mapped_from_the_stop_reason_as_when_answered_whole(
        reason: StopReason, finish: str) -> None:
    reply = ModelReply(text="x", stopReason=reason)
    assert finish_reason(reply) == finish
    assert reply_to_chunks(reply)[-1]["choices"][0]["finish_reason"] == finish
    assert finish_reason(call("read")) == "tool_calls"


def test_the_reader_takes_crlf_lines_comments_and_split_data_lines() -> None:
    stream = reply_to_stream(ModelReply(text="a\nb", toolCalls=[call("t", {"x": 1}).toolCalls[0]]))
    crlf = ": keep-alive\r\n\r\n" + stream.replace("\n", "\r\n")
    assert stream_to_reply(crlf) == stream_to_reply(stream)
    chunk = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"},
                          "finish_reason": "stop"}]}
    split = "data: " + json.dumps(chunk, indent=1).replace("\n", "\ndata: ") + "\n\ndata: [DONE]\n"
    assert stream_to_reply(split) == ModelReply(text="hi")


@pytest.mark.parametrize(("stream", "why"), [
    (reply_to_stream(text("hello")).replace("data: [DONE]\n\n", ""), "cut"),
    ('data: {"error": {"message": "overloaded"}}\n\ndata: [DONE]\n\n', "overloaded"),
    ("data: {nope\n\ndata: [DONE]\n\n", "not JSON"),
    ('data: {"choices": {}}\n\ndata: [DONE]\n\n', "choices must be a list"),
    ('data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"function": {}}]}}]}\n\n'
     "data: [DONE]\n\n", "integer index"),
    ('data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "exploded"}]}\n\n'
     "data: [DONE]\n\n", "exploded"),
])
def test_the_reader_refuses_a_stream_off_the_shape_saying_why(stream: str, why: str) -> None:
    with pytest.raises(ChatShapeError, match=why):
        stream_to_reply(stream)


@pytest.mark.parametrize("body", [
    {"stream": "yes"}, {"stream": 1}, {"stream": True, "stream_options": []},
    {"stream": True, "stream_options": {"include_usage": 1}},
    {"stream": True, "stream_options": {"include_usage": "yes"}}])
def test_stream_and_stream_options_off_the_shape_are_refused(body: dict[str, Any]) -> None:
    with pytest.raises(ChatShapeError, match="stream"):
        streaming(body)


def test_stream_options_mean_nothing_without_a_stream() -> None:
    assert streaming({}) == (False, False)
    assert streaming({"stream": True}) == (True, False)
    assert streaming({"stream": False, "stream_options": {"include_usage": True}}) == (False, False)
    assert streaming({"stream": True, "stream_options": {"include_usage": True}}) == (True, True)


# --- over loopback HTTP ------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[GatewayServer]:
    served = GatewayServer(reply_timeout=1.0).start()
    yield served
    served.close()


def _request(marker: str) -> ModelRequest:
    return ModelRequest(agent="child-1", system="You are the reader.", tools=[],
                        messages=[Message(role="user", content=f"{marker}: read notes.md")])


def test_a_streamed_answer_over_http_carries_the_script_and_records_as_a_whole_one(
        server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway, known=lambda agent: agent == "child-1")
    scripted = ModelReply(text="Zeile 1\nline two — ok", toolCalls=[
        ToolCall(id="call_9", name="write", arguments={"path": "/x", "body": {"n": [1, 2]}})])
    gateway.script("STREAMED", scripted)
    gateway.script("WHOLE", scripted)
    body = {**request_to_chat(_request("STREAMED")), "model": "gpt-x", "stream": True,
            "stream_options": {"include_usage": True}}
    url = f"{base}/agents/child-1/v1/chat/completions"
    with httpx.stream("POST", url, json=body, trust_env=False) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        lines = list(answer.iter_lines())
    events = [line for line in lines if line]
    assert len(events) >= 8 and events[-1] == "data: [DONE]"
    assert json.loads(events[-2][6:])["usage"] is not None
    assert stream_to_reply("\n".join(lines)) == scripted
    whole = {**request_to_chat(_request("WHOLE")), "model": "gpt-x"}
    answered = httpx.post(url, json=whole, trust_env=False)
    assert answered.headers["content-type"].startswith("application/json")
    assert answered.json()["model"] == "gpt-x"
    streamed, answered_whole = gateway.exchanges
    assert streamed.request == chat_to_request("child-1", body)
    assert (streamed.request.agent, streamed.reply) == (answered_whole.request.agent, scripted)


def test_a_streaming_request_of_an_unreported_agent_is_refused_and_recorded_unattributed(
        server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway, known=lambda agent: agent == "root")
    body = {**request_to_chat(_request("X")), "stream": True}
    answer = httpx.post(f"{base}/agents/ghost/v1/chat/completions", json=body, trust_env=False)
    assert answer.status_code == 403 and answer.json()["error"]["type"] == "permission_error"
    assert [u.agent for u in gateway.unattributed] == ["ghost"] and gateway.exchanges == []


def test_a_failing_or_stalled_script_fails_a_streaming_request_as_a_whole_one(
        server: GatewayServer) -> None:
    gateway = Gateway()
    base = server.mount(gateway)
    release = failing_and_stalling(gateway, "FAIL", "STALL")
    url = f"{base}/agents/a/v1/chat/completions"  # each agent binds its own script
    failed = httpx.post(url, json={**request_to_chat(_request("FAIL")), "stream": True},
                        trust_env=False)
    assert failed.status_code == 500 and failed.headers["x-should-retry"] == "false"
    assert failed.json()["error"]["message"] == "scripted failure"
    started = time.monotonic()
    stalled = httpx.post(url.replace("/a/", "/b/"), trust_env=False, timeout=10,
                         json={**request_to_chat(_request("STALL")), "stream": True})
    release.set()
    assert stalled.status_code == 504 and stalled.headers["x-should-retry"] == "false"
    assert "stalled" in stalled.json()["error"]["message"] and time.monotonic() - started < 4
