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
  gives an MCP server's tools (``SERVER_NAME``, every character outside ``[A-Za-z0-9_-]`` as
  ``_``; ``tck_NAME`` for a tool that names no server) back to the kit's names; the kit's
  answer is relayed with its tool calls renamed the other way.

What the route keeps of each agent is traffic_chat.ChatRoute's (traffic_routes.TrafficRoute).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.transports import tool_names
from subagent_tck.conformance.transports.gateway_chat import CHAT_PATH
from subagent_tck.conformance.transports.httpd import Answer, Request
from subagent_tck.conformance.transports.traffic_chat import (
    ChatRoute,
    chat_answer,
    chat_error,
    read_chat,
)
from subagent_tck.conformance.transports.traffic_routes import OnePathProxy, js_name
from subagent_tck.conformance.transports.traffic_starts import START, Driver, user_text

PROBE = "[subagent-tck probe]"
SERVER = "tck"  # the MCP server of tools that name none, in opencode.json: tck_NAME


def wire_name(tool: str, server: str = SERVER) -> str:
    """The name opencode 1.18.33 gives the kit's tool ``tool`` of MCP server ``server``: the
    server and tool names joined by ``_``, each cleaned as its JavaScript cleans it (its
    ``Z1``, traffic_routes.js_name), so two kit names may meet in one wire name
    (docs/opencode.md#tool-names)."""
    return js_name(server) + "_" + js_name(tool)


def names_back(tools: Iterable[str],
               wire: Callable[[str], str] = wire_name) -> dict[str, str]:
    """Wire name -> kit name for ``tools`` (tool_names.names_back)."""
    return tool_names.names_back(tools, wire)


class Route(ChatRoute):
    """One deployment's side of the proxy."""

    def __init__(self, gateway_url: str, driver: Driver, tools: Callable[[], list[str]],
                 attribute: Callable[[str], str] = lambda agent: agent,
                 wire: Callable[[str], str] = wire_name) -> None:
        super().__init__(gateway_url)
        self.driver = driver
        #: the kit agent a request marked AGENT is (a start's child runs from its preset's
        #: definition, whose marker is the preset's: target.OpencodeDeployment._attribute)
        self.attribute = attribute
        self.tools = tools  # every global tool name the deployment ever had (known_tools)
        self.wire = wire  # a kit tool's name as opencode gives it (by its server)
        self.probed: ModelRequest | None = None
        self.builtins: set[str] = set()  # opencode's own tools (OpencodeTarget.builtins)

    def forward(self, request: Request) -> Answer:
        read = read_chat(request.body)
        if isinstance(read, Answer):
            return read
        body, seen = read
        user = user_text(body.get("messages"))
        token = START.search(user)
        if token is not None:
            return chat_answer(self.driver(seen, token.group(1)), body)
        if PROBE in user:
            with self.lock:
                self.probed = seen
            return chat_answer(ModelReply(text="done"), body)
        # the names back does not know are opencode's own tools
        kit_tools = self.tools()
        return self.to_gateway(body, kit_tools, names_back(kit_tools, self.wire), self.wire,
                               self.builtins, self.attribute)


class Proxy(OnePathProxy[Route]):
    """Serves every deployment's route on 127.0.0.1: ``/p/{deployment}/v1/chat/completions``."""

    def __init__(self) -> None:
        super().__init__("opencode adapter model endpoint", chat_error, CHAT_PATH)
