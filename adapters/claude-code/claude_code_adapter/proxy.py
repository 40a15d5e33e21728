"""The adapter's model endpoint: every ``claude`` it runs posts here (``ANTHROPIC_BASE_URL``).

A request of the adapter's start driver (the parent that stands for the kit's ``start``, its
system text carrying ``[subagent-tck start=TOKEN]``) is answered here: the parent's scripted
``Agent`` call, then its end. Every other request is forwarded byte for byte to the kit's
gateway (``{gatewayUrl}/v1/messages``), which attributes it by the agent marker the adapter
planted (conformance/transports/gateway_anthropic.py), and the kit's answer is relayed as it
came. The adapter keeps the last request of each agent (what it sees: ``view``,
``tool-schemas``, ``prompt``) and which agent was last told to call each tool (whose body ran,
for ``invocations``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.transports import gateway_anthropic as anthropic
from subagent_tck.conformance.transports.httpd import Answer, Request
from subagent_tck.conformance.transports.traffic_routes import (
    TrafficProxy,
    TrafficRoute,
    edit_events,
)
from subagent_tck.conformance.transports.traffic_starts import START

#: How Claude Code names the tools of the MCP server ``tck`` (the kit's global tools).
PREFIX = "mcp__tck__"
#: Claude Code's own tools whose calls keep their name even in a request that does not offer
#: them: a forged delegation from a child is a call of the delegation tool itself
#: (docs/promises.md#claude-code); ``Task`` before 2.1.63, ``Agent`` since (install.py).
BUILTINS = frozenset({"Agent"})

#: A start driver's answer: (the request, its token) -> the reply.
Driver = Callable[[ModelRequest, str, dict[str, Any]], ModelReply]


class Route(TrafficRoute):
    """One deployment's side of the proxy."""

    def __init__(self, gateway_url: str, driver: Driver,
                 builtins: frozenset[str] | set[str] = BUILTINS,
                 kit: Callable[[str], str] | None = None,
                 wire: Callable[[str], str] | None = None) -> None:
        super().__init__(gateway_url)
        self.driver = driver
        self.builtins = frozenset(builtins)
        #: a tool's name as Claude Code sends it -> the kit's, and back (the deployment's
        #: servers: mcp__SERVER__NAME); by default the one server tck
        self.kit = kit or kit_name
        self.wire = wire or (lambda name: PREFIX + name)
        self.requests = 0

    def forward(self, request: Request, rest: str) -> Answer:
        body: Any = None
        try:
            body = anthropic.parse(request.body)
            model_request = anthropic.messages_to_request("", body)
        except (ValueError, UnicodeDecodeError):
            model_request = None
        agent = None
        data = request.body
        plain: set[str] = set()
        if model_request is not None and rest.startswith("/v1/messages"):
            token = START.search(model_request.system)
            if token is not None and not rest.startswith("/v1/messages/count_tokens"):
                reply = self.driver(model_request, token.group(1), body)
                return anthropic.answer(reply, body)
            plain = to_kit(body, self.kit) | self.builtins
            fold_listing(body, self.builtins)
            data = json.dumps(body).encode("utf-8")
            agent, system, _ = anthropic.find_marker(model_request.system)
            if agent is not None and not rest.startswith("/v1/messages/count_tokens"):
                seen = anthropic.messages_to_request(agent, body)
                with self.lock:
                    self.requests += 1
                self.record(agent, seen.model_copy(update={"system": system}))
        return self.relay(rest, data, agent, lambda status, message: anthropic.no_retry(
            _refusal(status, message)), None if model_request is None else
            lambda answer, kind: to_claude(answer, kind, plain, self.wire))


def kit_name(name: str) -> str:
    return name[len(PREFIX):] if name.startswith(PREFIX) else name


def to_kit(body: Any, kit: Callable[[str], str] = kit_name) -> set[str]:
    """Rename, in place, the kit's tools as Claude Code names them (``mcp__SERVER__NAME``,
    ``kit`` tells the kit's name) back to the kit's names, in the tools and in the history's
    tool calls; returns the names offered that are no MCP tool's (Claude Code's built-ins, such
    as Agent)."""
    plain: set[str] = set()
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and isinstance(tool.get("name"), str):
            if not tool["name"].startswith("mcp__"):
                plain.add(tool["name"])
            tool["name"] = kit(tool["name"])
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use" \
                    and isinstance(block.get("name"), str):
                block["name"] = kit(block["name"])
    return plain


#: Claude Code's list of the agent types its delegation tool may start. Since agent listings
#: became messages (2.1.332 sends one as a system message, or in a ``<system-reminder>`` of a
#: user message), the tool's description only says "Available agent types are listed in
#: messages from the system in the conversation"; the list follows this header, a line
#: ``- TYPE: DESCRIPTION (Tools: ...)`` per type.
LISTING = re.compile(r"Available agent types for the (?:Agent|Task) tool:\n(?:- [^\n]*(?:\n|$))*")


def fold_listing(body: Any, tools: frozenset[str]) -> None:
    """Append, in place, the last agent-type listing among the request's messages to the
    description of its delegation tool (named in ``tools``), where the tool says the list is
    (docs/claude-code.md#spawn-policies): what the model is offered to delegate with is the
    tool and that list, which SP-02 reads as one (docs/rules.md#SP-02). A request without a
    listing, or whose tool describes the types itself (versions before the messages), is left
    as it is."""
    found = None
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        blocks = [content] if isinstance(content, str) else content \
            if isinstance(content, list) else []
        for block in blocks:
            text = block.get("text") if isinstance(block, dict) else block
            for match in LISTING.finditer(text if isinstance(text, str) else ""):
                found = match.group(0).rstrip("\n")
    if found is None:
        return
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("name") in tools \
                and isinstance(tool.get("description"), str):
            tool["description"] += "\n\n" + found


def to_claude(data: bytes, kind: str, plain: set[str],
              wire: Callable[[str], str] = lambda name: PREFIX + name
              ) -> tuple[bytes, list[str]]:
    """The kit's answer with every tool call named as Claude Code names the kit's tools
    (``wire``: ``mcp__SERVER__NAME``), but for the built-ins the request offered under their
    own names; and the kit names of the calls."""
    names: list[str] = []

    def rename(block: dict[str, Any]) -> None:
        if block.get("type") == "tool_use" and isinstance(block.get("name"), str):
            names.append(block["name"])
            if block["name"] not in plain:
                block["name"] = wire(block["name"])

    if kind.startswith("text/event-stream"):
        def started(event: dict[str, Any]) -> None:
            if event.get("type") == "content_block_start":
                rename(event["content_block"])

        return edit_events(data, started), names
    message = json.loads(data)
    for block in message.get("content") or []:
        rename(block)
    return json.dumps(message).encode("utf-8"), names


def _refusal(status: int, message: str) -> Answer:
    return anthropic.error(status, message, "api_error" if status >= 500 else
                           "invalid_request_error")


class Proxy(TrafficProxy[Route]):
    """Serves every deployment's route on 127.0.0.1: ``/p/{deployment}/v1/messages...``."""

    def __init__(self) -> None:
        super().__init__("claude-code adapter model endpoint", _refusal)

    def handle(self, request: Request) -> Answer:
        parts = request.target.split("/", 3)  # "", "p", name, rest (query kept)
        if len(parts) < 4 or parts[1] != "p" or request.method != "POST":
            return anthropic.error(404, f"{request.method} {request.path} is not a route here",
                                   "not_found_error")
        route = self.route(parts[2])
        if route is None:
            return anthropic.error(404, f"no deployment {parts[2]!r} is open", "not_found_error")
        return route.forward(request, "/" + parts[3])
