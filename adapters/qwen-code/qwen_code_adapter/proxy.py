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

from subagent_tck.conformance.core.protocol import ModelReply, ModelRequest
from subagent_tck.conformance.transports.gateway_anthropic import find_marker
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
from subagent_tck.conformance.transports.traffic_routes import OnePathProxy, OnePathRoute

from .names import names_back, wire_name

START = re.compile(r"\[subagent-tck start=([A-Za-z0-9_-]+)\]")

#: A start driver's answer: (the request, its token) -> the reply.
Driver = Callable[[ModelRequest, str], ModelReply]


class Route(OnePathRoute):
    """One deployment's side of the proxy."""

    def __init__(self, gateway_url: str, driver: Driver, tools: Callable[[], list[str]]) -> None:
        super().__init__(gateway_url)
        self.driver = driver
        self.tools = tools  # the kit's global tool names now (the deployment's registry)

    def forward(self, request: Request) -> Answer:
        try:
            body = parse_chat(request.body)
            seen = chat_to_request("", body)
            streaming(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return chat_error(400, f"not a Chat Completions request: {exc}")
        token = START.search(seen.system)
        if token is not None:
            return chat_answer(self.driver(seen, token.group(1)), body)
        kit_tools = self.tools()
        own = to_kit(body, names_back(kit_tools))
        model_request = chat_to_request("", body)
        agent, system, _ = find_marker(model_request.system)
        if agent is not None:  # its first request publishes a start's child (traffic.py)
            self.record(agent, model_request.model_copy(update={"agent": agent,
                                                                "system": system}))
        try:
            answer = self.post(CHAT_PATH, json.dumps(body).encode("utf-8"))
        except OSError as exc:
            return chat_error(502, f"the kit's model gateway is unreachable: {exc}")
        if answer.status == 200:
            # a kit tool is the kit's, whatever Qwen Code's own tools are called
            data, names = to_runtime(answer.body, answer.content_type,
                                     own - set(kit_tools), wire_name)
            self.tell(agent, names)
            return answer._replace(body=data)
        return answer


class Proxy(OnePathProxy[Route]):
    """Serves every deployment's route on 127.0.0.1: ``/p/{deployment}/v1/chat/completions``."""

    def __init__(self) -> None:
        super().__init__("qwen-code adapter model endpoint", chat_error, CHAT_PATH)
