"""The adapter's model endpoint: every ``opencode serve`` it runs posts its Chat Completions here
(the ``baseURL`` of the deployment's provider ``tck``, docs/opencode.md).

- A request whose user text carries ``[subagent-tck start=TOKEN]`` is the parent that stands for
  the kit's ``start`` (target.py): it is answered here, by the deployment's start driver (the
  scripted ``task`` call, then the end), and never reaches the kit.
- A request whose user text carries ``[subagent-tck probe]`` is the adapter's own look at what
  opencode offers a root agent (its built-in tools, target.py ``Builtins``): answered ``done``
  here and kept as ``probed``.
- Every other request goes to the kit's gateway (``{gatewayUrl}/v1/chat/completions``, the route
  that attributes a request by the agent marker in its system text,
  docs/driver-api.md#model-gateway) with the kit's global tools renamed from the names opencode
  gives an MCP server's tools (``tck_NAME``, every character outside ``[A-Za-z0-9_-]`` as ``_``)
  back to the kit's names; the kit's answer is relayed with its tool calls renamed the other way.

The route keeps each agent's last request (what it sees: ``view``, ``tool-schemas``, ``prompt``)
and which agent was last told to call each kit tool (whose body ran, for ``invocations``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.transports import tool_names
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker, find_marker
from subagent_tck.conformance.transports.gateway_chat import (
    CHAT_PATH,
    chat_to_request,
    parse_chat,
    streaming,
)
from subagent_tck.conformance.transports.httpd import Answer, Request
from subagent_tck.conformance.transports.traffic_chat import (
    chat_answer,
    chat_error,
    to_kit,
    to_runtime,
)
from subagent_tck.conformance.transports.traffic_routes import (
    OnePathProxy,
    OnePathRoute,
    js_name,
)

START = re.compile(r"\[subagent-tck start=([A-Za-z0-9_-]+)\]")
PROBE = "[subagent-tck probe]"
SERVER = "tck"  # the MCP server's name in opencode.json: its tools are tck_NAME

#: A start driver's answer: (the request, its token) -> the reply.
Driver = Callable[[ModelRequest, str], ModelReply]


def wire_name(tool: str) -> str:
    """The name opencode 1.18.33 gives the kit's tool ``tool`` of MCP server ``tck``: the server
    and tool names joined by ``_``, the tool's cleaned as its JavaScript cleans it
    (traffic_routes.js_name), so two kit names may meet in one wire name
    (docs/opencode.md#tool-names)."""
    return SERVER + "_" + js_name(tool)


def names_back(tools: Iterable[str]) -> dict[str, str]:
    """Wire name -> kit name for ``tools`` (tool_names.names_back)."""
    return tool_names.names_back(tools, wire_name)


def _user_text(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


class Route(OnePathRoute):
    """One deployment's side of the proxy."""

    def __init__(self, gateway_url: str, driver: Driver, tools: Callable[[], list[str]],
                 attribute: Callable[[str], str] = lambda agent: agent) -> None:
        super().__init__(gateway_url)
        self.driver = driver
        #: the kit agent a request marked AGENT is (a start's child runs from its preset's
        #: definition, whose marker is the preset's: target.OpencodeDeployment._attribute)
        self.attribute = attribute
        self.tools = tools  # every global tool name the deployment ever had (known_tools)
        self.probed: ModelRequest | None = None
        self.builtins: set[str] = set()  # opencode's own tools (OpencodeTarget.builtins)

    def forward(self, request: Request) -> Answer:
        try:
            body = parse_chat(request.body)
            chat_to_request("", body)
            streaming(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return chat_error(400, f"not a Chat Completions request: {exc}")
        user = _user_text(body)
        token = START.search(user)
        if token is not None:
            return chat_answer(self.driver(chat_to_request("", body), token.group(1)), body)
        back = names_back(self.tools())
        if PROBE in user:
            with self.lock:
                self.probed = chat_to_request("", body)
            return chat_answer(ModelReply(text="done"), body)
        plain = to_kit(body, back)  # the names back does not know: opencode's own tools
        model_request = chat_to_request("", body)
        agent, system, _ = find_marker(model_request.system)
        if agent is not None and (kit := self.attribute(agent)) != agent:
            remark(body, agent, kit)  # the kit's gateway attributes by the marker it reads
            agent = kit
        if agent is not None:
            self.record(agent, model_request.model_copy(update={"agent": agent,
                                                                "system": system}))
        try:
            answer = self.post(CHAT_PATH, json.dumps(body).encode("utf-8"))
        except OSError as exc:
            return chat_error(502, f"the kit's model gateway is unreachable: {exc}")
        if answer.status == 200:
            # a kit tool is the kit's, whatever opencode's own tools are called
            data, names = to_runtime(answer.body, answer.content_type,
                                     (plain | self.builtins) - set(self.tools()), wire_name)
            self.tell(agent, names)
            return answer._replace(body=data)
        return answer


def remark(body: dict[str, Any], agent: str, kit: str) -> None:
    """Put ``kit``'s agent marker where ``agent``'s is, in place, in the system messages."""
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "system" and \
                isinstance(message.get("content"), str):
            message["content"] = message["content"].replace(agent_marker(agent),
                                                            agent_marker(kit))


class Proxy(OnePathProxy[Route]):
    """Serves every deployment's route on 127.0.0.1: ``/p/{deployment}/v1/chat/completions``."""

    def __init__(self) -> None:
        super().__init__("opencode adapter model endpoint", chat_error, CHAT_PATH)
