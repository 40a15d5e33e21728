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

What the route keeps of each agent is traffic_chat.ChatRoute's (traffic_routes.TrafficRoute).
"""

from __future__ import annotations

from collections.abc import Callable

from subagent_tck.conformance.transports.gateway_chat import CHAT_PATH
from subagent_tck.conformance.transports.httpd import Answer, Request
from subagent_tck.conformance.transports.traffic_chat import (
    ChatRoute,
    chat_answer,
    chat_error,
    read_chat,
)
from subagent_tck.conformance.transports.traffic_routes import OnePathProxy
from subagent_tck.conformance.transports.traffic_starts import START, Driver

from .names import names_back, wire_name


class Route(ChatRoute):
    """One deployment's side of the proxy."""

    def __init__(self, gateway_url: str, driver: Driver, tools: Callable[[], list[str]],
                 wire: Callable[[str], str] = wire_name) -> None:
        super().__init__(gateway_url)
        self.driver = driver
        self.tools = tools  # the kit's global tool names now (the deployment's registry)
        self.wire = wire  # a kit tool's name as Qwen Code gives it (by its server)

    def forward(self, request: Request) -> Answer:
        read = read_chat(request.body)
        if isinstance(read, Answer):
            return read
        body, seen = read
        token = START.search(seen.system)
        if token is not None:
            return chat_answer(self.driver(seen, token.group(1)), body)
        # the names back does not know are Qwen Code's own tools
        kit_tools = self.tools()
        return self.to_gateway(body, kit_tools, names_back(kit_tools, self.wire), self.wire)


class Proxy(OnePathProxy[Route]):
    """Serves every deployment's route on 127.0.0.1: ``/p/{deployment}/v1/chat/completions``."""

    def __init__(self) -> None:
        super().__init__("qwen-code adapter model endpoint", chat_error, CHAT_PATH)
