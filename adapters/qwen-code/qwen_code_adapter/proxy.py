"""The adapter's model endpoint: every ``qwen`` it runs posts its Chat Completions here
(``OPENAI_BASE_URL`` with ``--auth-type openai``, docs/qwen-code.md).

- A request whose system text carries ``[subagent-tck start=TOKEN]`` is the parent that stands
  for the kit's ``start`` (target.py): it is answered here, by the deployment's start driver
  (the scripted ``agent`` call, then the end), and never reaches the kit.
- Every other request goes to the kit's gateway (``{gatewayUrl}/v1/chat/completions``, the
  route that attributes a request by the agent marker in its system text,
  docs/driver-api.md#model-gateway) with the kit's global tools renamed from the names Qwen Code
  gives an MCP server's tools (``mcp__tck__NAME``, names.py) back to the kit's names; the kit's
  answer is relayed with its tool calls renamed the other way, but for Qwen Code's own tools
  the request offered under their own names (``agent``).

The route keeps each agent's last request (what it sees: ``view``, ``tool-schemas``, ``prompt``)
and which agent was last told to call each kit tool (whose body ran, for ``invocations``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.transports.gateway_anthropic import find_marker
from subagent_tck.conformance.transports.gateway_chat import (
    CHAT_PATH,
    chat_to_request,
    parse_chat,
    reply_to_chat,
    streaming,
)
from subagent_tck.conformance.transports.gateway_chat_stream import reply_to_stream
from subagent_tck.conformance.transports.httpd import Answer, Request
from subagent_tck.conformance.transports.traffic import TrafficProxy, TrafficRoute

from .names import names_back, wire_name

START = re.compile(r"\[subagent-tck start=([A-Za-z0-9_-]+)\]")

#: A start driver's answer: (the request, its token) -> the reply.
Driver = Callable[[ModelRequest, str], ModelReply]


def _error(status: int, message: str) -> Answer:
    body = {"error": {"message": message, "type": "server_error" if status >= 500 else
                      "invalid_request_error"}}
    return Answer(status, json.dumps(body).encode("utf-8"), "application/json",
                  (("x-should-retry", "false"),))


def _functions(items: Any, key: str) -> list[dict[str, Any]]:
    """The ``function`` objects of ``items`` (tools offered, or a message's tool calls) that
    carry a string name."""
    out = []
    for item in items if isinstance(items, list) else []:
        function = item.get(key) if isinstance(item, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            out.append(function)
    return out


def to_kit(body: dict[str, Any], back: dict[str, str]) -> set[str]:
    """Rename, in place, the kit's tools as Qwen Code names them back to the kit's names, in
    the tools offered and in the history's tool calls (``back``: :func:`names.names_back`);
    returns the names offered that are not the kit's (Qwen Code's own, such as ``agent``)."""
    own = set()
    for function in _functions(body.get("tools"), "function"):
        if function["name"] not in back:
            own.add(function["name"])
        function["name"] = back.get(function["name"], function["name"])
    for message in body.get("messages") or []:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for function in _functions(calls, "function"):
            function["name"] = back.get(function["name"], function["name"])
    return own


def to_qwen(data: bytes, kind: str, own: set[str]) -> tuple[bytes, list[str]]:
    """The kit's answer with every tool call named as Qwen Code names the kit's tools, but for
    Qwen Code's own tools the request offered (``own``); and the kit names of the calls."""
    names: list[str] = []

    def rename(calls: Any) -> None:
        for function in _functions(calls, "function"):
            names.append(function["name"])
            if function["name"] not in own:
                function["name"] = wire_name(function["name"])

    if kind.startswith("text/event-stream"):
        out = []
        for line in data.decode("utf-8").split("\n"):
            if line.startswith("data:") and line[5:].strip() != "[DONE]":
                chunk = json.loads(line[5:])
                for choice in chunk.get("choices") or []:
                    rename((choice.get("delta") or {}).get("tool_calls"))
                line = "data: " + json.dumps(chunk, separators=(",", ":"))
            out.append(line)
        return "\n".join(out).encode("utf-8"), names
    message = json.loads(data)
    for choice in message.get("choices") or []:
        rename((choice.get("message") or {}).get("tool_calls"))
    return json.dumps(message).encode("utf-8"), names


class Route(TrafficRoute):
    """One deployment's side of the proxy."""

    def __init__(self, gateway_url: str, driver: Driver, tools: Callable[[], list[str]]) -> None:
        super().__init__(gateway_url)
        self.driver = driver
        self.tools = tools  # the kit's global tool names now (the deployment's registry)

    def answer(self, reply: ModelReply, body: dict[str, Any]) -> Answer:
        stream, usage = streaming(body)
        model = body.get("model") if isinstance(body.get("model"), str) else "subagent-tck"
        if stream:
            return Answer(200, reply_to_stream(reply, model, usage).encode("utf-8"),
                          "text/event-stream", (("cache-control", "no-cache"),))
        return Answer(200, json.dumps(reply_to_chat(reply, model)).encode("utf-8"),
                      "application/json")

    def forward(self, request: Request) -> Answer:
        try:
            body = parse_chat(request.body)
            seen = chat_to_request("", body)
            streaming(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return _error(400, f"not a Chat Completions request: {exc}")
        token = START.search(seen.system)
        if token is not None:
            return self.answer(self.driver(seen, token.group(1)), body)
        kit_tools = self.tools()
        own = to_kit(body, names_back(kit_tools))
        model_request = chat_to_request("", body)
        agent, system, _ = find_marker(model_request.system)
        if agent is not None:
            with self.lock:
                self.last[agent] = model_request.model_copy(update={"agent": agent,
                                                                    "system": system})
        try:
            answer = self.post(CHAT_PATH, json.dumps(body).encode("utf-8"))
        except OSError as exc:
            return _error(502, f"the kit's model gateway is unreachable: {exc}")
        if answer.status == 200:
            # a kit tool is the kit's, whatever Qwen Code's own tools are called
            data, names = to_qwen(answer.body, answer.content_type, own - set(kit_tools))
            self.tell(agent, names)
            return answer._replace(body=data)
        return answer


class Proxy(TrafficProxy[Route]):
    """Serves every deployment's route on 127.0.0.1: ``/p/{deployment}/v1/chat/completions``."""

    def __init__(self) -> None:
        super().__init__("qwen-code adapter model endpoint", _error, "/v1")

    def handle(self, request: Request) -> Answer:
        parts = request.path.split("/", 3)  # "", "p", name, rest
        if (len(parts) < 4 or parts[1] != "p" or request.method != "POST"
                or "/" + parts[3] != CHAT_PATH):
            return _error(404, f"{request.method} {request.path} is not a route here: POST "
                          f"/p/{{deployment}}{CHAT_PATH}")
        route = self.route(parts[2])
        if route is None:
            return _error(404, f"no deployment {parts[2]!r} is open")
        return route.forward(request)
