"""The adapter's model endpoint: every ``codex exec`` it runs posts its Responses API requests
here (the ``base_url`` of the deployment's model provider ``tck``, docs/codex.md).

- A request whose user text carries ``[subagent-tck start=TOKEN]`` is the root that stands for
  the kit's ``start`` (target.py): it is answered here, by the deployment's start driver
  (``spawn_agent``, then ``wait_agent``, then the end), and never reaches the kit. Its thread
  (Codex's ``thread-id`` header) is remembered as that start's.
- A request whose user text carries ``[subagent-tck probe]`` is the adapter's own look at what
  Codex offers a root agent and how it frames its instructions (target.py ``Probe``): answered
  ``done`` here and kept as ``probed``.
- Every other request goes to the kit's gateway (``{gatewayUrl}/v1/responses``, attributed by
  the agent marker in its system text, docs/driver-api.md#model-gateway) with the kit's global
  tools, which Codex offers as the namespace ``mcp__tck`` under its own spelling of their names
  (:func:`wire_name`), as plain function tools named as the kit named them; the kit's answer
  is relayed with each call of a kit tool put back in that namespace.

Attribution of a child that carries no marker of its own: a child started without an agent
type (Codex's default role) inherits its parent's instructions, the root's marker included.
Codex names a child's parent thread in ``x-codex-parent-thread-id``; a request whose marker is
its parent thread's own is that parent's child, never the parent: the start's child when the
parent is a start's root (its marker is replaced by the child's before the request is
forwarded), otherwise unattributed (its marker is cut, and the kit refuses and records it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from subagent_tck.conformance.core.protocol import ModelReply
from subagent_tck.conformance.transports import tool_names
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker, find_marker
from subagent_tck.conformance.transports.gateway_responses import (
    JOIN,
    RESPONSES_PATH,
    answer,
    responses_to_request,
    streaming,
)
from subagent_tck.conformance.transports.httpd import Answer, Request
from subagent_tck.conformance.transports.traffic_routes import (
    OnePathProxy,
    OnePathRoute,
    edit_events,
)
from subagent_tck.conformance.transports.traffic_starts import START, Driver, user_text

PROBE = "[subagent-tck probe]"
SERVER = "tck"  # the MCP server's name in config.toml: its tools are the namespace mcp__tck
NAMESPACE = f"mcp__{SERVER}"
_CLEAN = re.compile(r"[^A-Za-z0-9_]")


def wire_name(tool: str) -> str:
    """The name Codex 0.171.0 gives the kit's tool ``tool`` inside the namespace ``mcp__tck``:
    every character (code point) outside ``[A-Za-z0-9_]`` replaced by ``_``, an empty name
    ``_``. Two kit names that clean alike are told apart by a hash suffix Codex adds to one of
    them (docs/codex.md#tool-names)."""
    return _CLEAN.sub("_", tool) or "_"


def names_back(tools: Iterable[str]) -> dict[str, str]:
    """Wire name -> kit name for ``tools``, but for a wire name two kit names share: Codex
    suffixes one of them with a hash, so neither can be told apart here and both reach the
    kit under the names Codex gave them (tools no check gave)."""
    return tool_names.names_back(tools, wire_name)


def _error(status: int, message: str) -> Answer:
    body = {"error": {"message": message, "type": "server_error" if status >= 500 else
                      "invalid_request_error", "code": None}}
    return Answer(status, json.dumps(body).encode("utf-8"), "application/json",
                  (("x-should-retry", "false"),))


def to_kit(body: dict[str, Any], back: dict[str, str]) -> None:
    """Rename, in place, the kit's tools as Codex offers them (functions of the namespace
    ``mcp__tck`` under their wire names) to plain function tools with the kit's names, in the
    tools offered and in the history's calls."""
    tools: list[Any] = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("type") == "namespace" and \
                tool.get("name") == NAMESPACE and isinstance(tool.get("tools"), list):
            tools += [{**t, "name": back.get(t["name"], t["name"])} for t in tool["tools"]
                      if isinstance(t, dict) and isinstance(t.get("name"), str)]
        else:
            tools.append(tool)
    if "tools" in body:
        body["tools"] = tools
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("namespace") == NAMESPACE and \
                isinstance(item.get("name"), str):
            del item["namespace"]
            item["name"] = back.get(item["name"], item["name"])


def to_codex(data: bytes, kind: str, own: dict[str, str | None]) -> tuple[bytes, list[str]]:
    """The kit's answer with each call of a kit tool (any name but Codex's own tools, ``own``:
    the name as the gateway reads it -> its namespace) put in the namespace ``mcp__tck`` under
    its wire name, and a call of one of Codex's own namespaced tools the request did not offer
    (``multi_agent_v1__spawn_agent`` from a child) in its namespace; and the kit names of the
    calls."""
    names: list[str] = []

    def rename(item: Any) -> None:
        if not isinstance(item, dict) or item.get("type") != "function_call" or \
                not isinstance(item.get("name"), str):
            return
        if isinstance(item.get("namespace"), str):  # an offered tool of Codex's: as it was
            names.append(item["namespace"] + JOIN + item["name"])
            return
        name = item["name"]
        names.append(name)
        if name in own:
            namespace = own[name]
            if namespace is not None:
                item["namespace"], item["name"] = namespace, name[len(namespace + JOIN):]
            return
        item["namespace"], item["name"] = NAMESPACE, wire_name(name)

    def walk(event: dict[str, Any]) -> None:
        rename(event.get("item"))
        response = event.get("response")
        for item in response.get("output") or [] if isinstance(response, dict) else []:
            rename(item)

    if kind.startswith("text/event-stream"):
        return edit_events(data, walk, (",", ":")), names
    whole = json.loads(data)
    walk({"response": whole})
    return json.dumps(whole).encode("utf-8"), names


def own_tools(body: dict[str, Any]) -> dict[str, str | None]:
    """Codex's own tools a request offers (all but the kit's namespace ``mcp__tck``), as the
    gateway names them -> the namespace each is in (None: none)."""
    own: dict[str, str | None] = {}
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        name = tool.get("name") if isinstance(tool.get("name"), str) else tool.get("type")
        if tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):
            if name != NAMESPACE:
                own.update({name + JOIN + t["name"]: name for t in tool["tools"]
                            if isinstance(t, dict) and isinstance(t.get("name"), str)})
        elif isinstance(name, str):
            own[name] = None
    return own


class Route(OnePathRoute):
    """One deployment's side of the proxy."""

    def __init__(self, gateway_url: str, driver: Driver, tools: Callable[[], list[str]],
                 own: Callable[[], dict[str, str | None]]) -> None:
        super().__init__(gateway_url)
        self.driver = driver
        self.tools = tools  # the kit's global tool names now (the deployment's registry)
        self.own = own  # Codex's own tools, as the gateway names them -> their namespace
        self.probed: dict[str, Any] | None = None
        self.threads: dict[str, str] = {}  # Codex thread id -> the agent it was attributed to
        self.starts: dict[str, str] = {}  # a start root's thread id -> its start token
        self.children: dict[str, str] = {}  # a start token -> the child it makes

    def forward(self, request: Request) -> Answer:
        try:
            body = json.loads(request.body or b"null")
            responses_to_request("", body)
            streaming(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            return _error(400, f"not a Responses API request: {exc}")
        thread = request.headers.get("thread-id", "")
        parent = request.headers.get("x-codex-parent-thread-id")
        user = user_text(body.get("input"))
        token = START.search(user)
        if token is not None and parent is None:
            with self.lock:
                self.starts[thread] = token.group(1)
            return answer(self.driver(responses_to_request("", body), token.group(1)), body)
        if PROBE in user:
            with self.lock:
                self.probed = body
            return answer(ModelReply(text="done"), body)
        agent = self._attribute(body, thread, parent)
        to_kit(body, names_back(self.tools()))
        model_request = responses_to_request("", body)
        if agent is not None:
            _, system, _ = find_marker(model_request.system)
            # its first request publishes a start's child (traffic_starts.py)
            self.record(agent, model_request.model_copy(update={"agent": agent,
                                                                "system": system}))
        return self.relay(RESPONSES_PATH, json.dumps(body).encode("utf-8"), agent, _error,
                          lambda data, kind: to_codex(data, kind, self.own()))

    def _attribute(self, body: dict[str, Any], thread: str, parent: str | None) -> str | None:
        """The agent a request is from (its marker, or its start's child when it inherited its
        parent's), with the body's marker made to name it; None when it cannot be attributed
        (its marker is cut, so the kit records it unattributed)."""
        marked, _, _ = find_marker(responses_to_request("", body).system)
        with self.lock:
            inherited = parent is not None and marked is not None and \
                self.threads.get(parent) == marked
            start = self.starts.get(parent or "")
            agent = marked
            if parent is not None and start is not None:
                agent = self.children.get(start)
            elif inherited:
                agent = None
            if agent is not None:
                self.threads[thread] = agent
        if marked is not None and agent != marked:
            _remark(body, agent_marker(marked), agent_marker(agent) if agent else "")
        return agent


def _remark(body: dict[str, Any], old: str, new: str) -> None:
    """Replace the marker ``old`` by ``new`` in every text of the body's input."""
    for item in body.get("input") or []:
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, str):
            item["content"] = content.replace(old, new)
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                part["text"] = part["text"].replace(old, new)
    if isinstance(body.get("instructions"), str):
        body["instructions"] = body["instructions"].replace(old, new)


class Proxy(OnePathProxy[Route]):
    """Serves every deployment's route on 127.0.0.1: ``/p/{deployment}/v1/responses``."""

    def __init__(self) -> None:
        super().__init__("codex adapter model endpoint", _error, RESPONSES_PATH)
