"""The renaming round trip of a Chat Completions runtime's endpoint (traffic_chat.py), for the
proxy tests of each runtime that posts Chat Completions (opencode, Qwen Code): the kit's tools
travel to the kit under the kit's names and come back to the runtime under its names, the
runtime's own tool keeps its name; and the requests those tests post and the answers they
read."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest, ToolCall
from subagent_tck.conformance.transports.gateway_chat import reply_to_chat
from subagent_tck.conformance.transports.gateway_chat_stream import (
    reply_to_stream,
    stream_to_reply,
)
from subagent_tck.conformance.transports.traffic_chat import to_kit, to_runtime

#: a tool name the round trip's reply calls and no request offered
UNOFFERED = "never-offered"


def function(name: str) -> dict[str, Any]:
    """A tool offered in a Chat Completions request."""
    return {"type": "function", "function": {"name": name, "description": "",
                                             "parameters": {"type": "object"}}}


def called(name: str, ident: str = "x") -> dict[str, Any]:
    """A tool call in a Chat Completions history."""
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": "{}"}}


def chat(system: str, user: Any, tools: list[str], stream: bool, **more: Any) -> dict[str, Any]:
    """A Chat Completions request: its system and user content, the tools it offers."""
    body: dict[str, Any] = {"model": "subagent-tck", "stream": stream,
                            "messages": [{"role": "system", "content": system},
                                         {"role": "user", "content": user}],
                            "tools": [function(t) for t in tools], **more}
    if stream:
        body["stream_options"] = {"include_usage": True}
    return body


def read_reply(answer: httpx.Response, stream: bool) -> ModelReply:
    """The answer as the client reads it: the stream accumulated (a stream was asked for), or
    the JSON message."""
    assert answer.status_code == 200, answer.text
    kind = answer.headers["content-type"]
    if stream:
        assert kind.startswith("text/event-stream") and answer.headers["cache-control"] == \
            "no-cache"
        return stream_to_reply(answer.text)
    assert kind.startswith("application/json")
    message = answer.json()["choices"][0]["message"]
    return ModelReply(text=message["content"], toolCalls=[
        ToolCall(id=c["id"], name=c["function"]["name"],
                 arguments=json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []])


def no_driver(request: ModelRequest, token: str) -> ModelReply:
    """A start driver no request should reach."""
    raise AssertionError(f"the start driver was asked ({token})")


def assert_round_trip(tools: list[str], usage: bool, own: str, wire: Callable[[str], str],
                      back: Callable[[list[str]], dict[str, str]]) -> None:
    """The kit's ``tools`` offered under their ``wire`` names beside the runtime's ``own`` tool
    reach the kit under the kit's names (``back``: wire name -> kit name), and a reply calling
    the last of them, ``own`` and an unoffered tool goes back with the kit's tools under their
    wire names (a stream when ``usage`` or not, and a JSON message)."""
    body: dict[str, Any] = {
        "model": "subagent-tck",
        "tools": [function(wire(t)) for t in tools] + [function(own)],
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "go"},
                     {"role": "assistant", "content": None,
                      "tool_calls": [called(wire(tools[0])), called(own, "y")]},
                     {"role": "tool", "tool_call_id": "x", "content": "ok"}]}
    assert to_kit(body, back(tools)) == {own}
    assert [t["function"]["name"] for t in body["tools"]] == [*tools, own]
    assert [c["function"]["name"] for c in body["messages"][2]["tool_calls"]] == [tools[0], own]
    reply = ModelReply(text="on it", toolCalls=[
        ToolCall(id="a", name=tools[-1], arguments={"k": "v"}), ToolCall(id="b", name=own),
        ToolCall(id="c", name=UNOFFERED)])
    for data, kind in ((reply_to_stream(reply, "m", usage).encode(), "text/event-stream"),
                       (json.dumps(reply_to_chat(reply, "m")).encode(), "application/json")):
        renamed, names = to_runtime(data, kind, {own}, wire)
        assert names == [tools[-1], own, UNOFFERED]
        if kind.startswith("text/"):
            answer = stream_to_reply(renamed.decode())
        else:
            message = json.loads(renamed)["choices"][0]["message"]
            answer = ModelReply(text=message["content"], toolCalls=[
                ToolCall(id=c["id"], name=c["function"]["name"],
                         arguments=json.loads(c["function"]["arguments"]))
                for c in message["tool_calls"]])
        assert [c.name for c in answer.toolCalls] == [wire(tools[-1]), own, wire(UNOFFERED)]
        assert answer.text == "on it" and answer.toolCalls[0].arguments == {"k": "v"}
