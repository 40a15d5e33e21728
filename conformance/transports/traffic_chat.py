"""The OpenAI Chat Completions side of a traffic adapter's model endpoint (traffic.py): the
runtimes that post Chat Completions (opencode, Qwen Code: docs/opencode.md, docs/qwen-code.md)
name the kit's global tools their own way (an MCP server's tools), so a request is renamed back
to the kit's names before it reaches the kit's gateway, and the kit's answer is renamed the other
way before the runtime reads it. A runtime's own tools (its delegation tool) keep their names.

Each function takes the runtime's naming as an argument (``back``: wire name -> kit name;
``wire``: kit name -> wire name); nothing here knows a runtime.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker, find_marker
from subagent_tck.conformance.transports.gateway_chat import (
    CHAT_PATH,
    chat_to_request,
    parse_chat,
    reply_to_chat,
    streaming,
)
from subagent_tck.conformance.transports.gateway_chat_stream import reply_to_stream
from subagent_tck.conformance.transports.httpd import Answer
from subagent_tck.conformance.transports.traffic_routes import OnePathRoute, edit_events


def chat_error(status: int, message: str) -> Answer:
    """An OpenAI error body the runtime's client does not retry."""
    body = {"error": {"message": message, "type": "server_error" if status >= 500 else
                      "invalid_request_error"}}
    return Answer(status, json.dumps(body).encode("utf-8"), "application/json",
                  (("x-should-retry", "false"),))


def read_chat(data: bytes) -> tuple[dict[str, Any], ModelRequest] | Answer:
    """The Chat Completions request ``data`` and what it asks as the kit reads it; the 400
    that refuses it when it is none."""
    try:
        body = parse_chat(data)
        seen = chat_to_request("", body)
        streaming(body)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return chat_error(400, f"not a Chat Completions request: {exc}")
    return body, seen


def chat_answer(reply: ModelReply, body: dict[str, Any]) -> Answer:
    """``reply`` as the answer to the request ``body``: a stream when it asked for one."""
    stream, usage = streaming(body)
    named = body.get("model")
    model = named if isinstance(named, str) else "subagent-tck"
    if stream:
        return Answer(200, reply_to_stream(reply, model, usage).encode("utf-8"),
                      "text/event-stream", (("cache-control", "no-cache"),))
    return Answer(200, json.dumps(reply_to_chat(reply, model)).encode("utf-8"),
                  "application/json")


def _functions(items: Any) -> list[dict[str, Any]]:
    """The ``function`` objects of ``items`` (tools offered, or a message's tool calls) that
    carry a string name."""
    out = []
    for item in items if isinstance(items, list) else []:
        function = item.get("function") if isinstance(item, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            out.append(function)
    return out


def to_kit(body: dict[str, Any], back: dict[str, str]) -> set[str]:
    """Rename, in place, the tools ``back`` knows to the kit's names, in the tools offered and
    in the history's tool calls; returns the names offered that ``back`` does not know (the
    runtime's own tools)."""
    own = set()
    for function in _functions(body.get("tools")):
        if function["name"] not in back:
            own.add(function["name"])
        function["name"] = back.get(function["name"], function["name"])
    for message in body.get("messages") or []:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for function in _functions(calls):
            function["name"] = back.get(function["name"], function["name"])
    return own


def to_runtime(data: bytes, kind: str, own: set[str],
               wire: Callable[[str], str]) -> tuple[bytes, list[str]]:
    """The kit's answer (a stream or a JSON message, by ``kind``) with every tool call named
    ``wire(name)``, but for the runtime's own tools (``own``); and the kit names of the calls."""
    names: list[str] = []

    def rename(calls: Any) -> None:
        for function in _functions(calls):
            names.append(function["name"])
            if function["name"] not in own:
                function["name"] = wire(function["name"])

    if kind.startswith("text/event-stream"):
        def chunk(event: dict[str, Any]) -> None:
            for choice in event.get("choices") or []:
                rename((choice.get("delta") or {}).get("tool_calls"))

        return edit_events(data, chunk, (",", ":")), names
    message = json.loads(data)
    for choice in message.get("choices") or []:
        rename((choice.get("message") or {}).get("tool_calls"))
    return json.dumps(message).encode("utf-8"), names


def remark(body: dict[str, Any], agent: str, kit: str) -> None:
    """Put ``kit``'s agent marker where ``agent``'s is, in place, in the system messages."""
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "system" and \
                isinstance(message.get("content"), str):
            message["content"] = message["content"].replace(agent_marker(agent),
                                                            agent_marker(kit))


class ChatRoute(OnePathRoute):
    """A deployment's route for a runtime that posts Chat Completions."""

    def to_gateway(self, body: dict[str, Any], kit_tools: list[str], back: dict[str, str],
                   wire: Callable[[str], str], own: set[str] | frozenset[str] = frozenset(),
                   attribute: Callable[[str], str] | None = None) -> Answer:
        """``body`` forwarded to the kit's gateway (``{gatewayUrl}/v1/chat/completions``,
        docs/driver-api.md#model-gateway) with the tools ``back`` knows renamed to the kit's
        names, its agent (the marker in its system text; ``attribute`` tells the kit agent a
        marked one is, and the marker is changed to that agent's) recorded; the kit's answer
        relayed with every tool call named as the runtime names the kit's tools (``wire``), but
        for the runtime's own tools the request offered (the names ``back`` does not know, and
        ``own``) that are none of ``kit_tools``."""
        plain = to_kit(body, back)
        model_request = chat_to_request("", body)
        agent, system, _ = find_marker(model_request.system)
        if agent is not None and attribute is not None and (kit := attribute(agent)) != agent:
            remark(body, agent, kit)  # the kit's gateway attributes by the marker it reads
            agent = kit
        if agent is not None:  # its first request publishes a start's child (traffic.py)
            self.record(agent, model_request.model_copy(update={"agent": agent,
                                                                "system": system}))
        runtimes = (plain | own) - set(kit_tools)  # a kit tool is the kit's, whatever its name
        return self.relay(CHAT_PATH, json.dumps(body).encode("utf-8"), agent, chat_error,
                          lambda data, kind: to_runtime(data, kind, runtimes, wire))
