"""opencode as a kit target: each deployment a fresh project directory with its own
``opencode serve``, each kit run a session of that server (docs/opencode.md, "How the adapter
maps the kit's concepts").

- the deployment persona is the prompt of opencode's root agent ``build``
  (``agent.build.prompt``); the kit's global tools are served by the deployment's MCP server
  ``tck`` (the kit's echo server), so the model sees them as ``tck_NAME``; opencode's own tools
  (``bash``, ``read``, ...; found once per adapter by a probe) are denied to every agent in
  ``opencode.json`` but ``task``, the provider, which is the target's own tool
  (docs/certify.md#tools-the-target-brings);
- a preset is a project agent ``.opencode/agent/NAME.md`` (``mode: subagent``): body = persona,
  the tool filter as ordered ``permission`` rules (an allow list: ``"*": deny`` first, then each
  allowed tool ``allow``; then each denied tool ``deny``: opencode's last matching rule wins);
- the kit's ``start`` is a session of ``build`` whose model (answered by the adapter, proxy.py)
  calls ``task`` with a fresh agent made from the preset; the child's requests go to the kit's
  gateway, attributed by the marker planted in its body; what an agent sees is its last
  request; a ``run-turn`` of the root is a message to the root's session, every request of
  which the kit answers.

Operations opencode has no counterpart for are answered ``UNSUPPORTED_OPERATION``
(docs/driver-api.md#unsupported-operations) with what opencode offers instead
(docs/opencode.md, "Operations").
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    AgentRef,
    DeploymentConfig,
    Event,
    Invocation,
    ModelReply,
    ModelRequest,
    Observation,
    ProviderInfo,
    RunResult,
    SdkCall,
    Section,
    SessionHeader,
    StartRequest,
    SubagentToolConfig,
    TargetInfo,
    ToolCall,
    ToolResult,
    ToolSchema,
    ToolSpec,
    ViewEntry,
)
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.mcp_echo import McpTools
from subagent_tck.spec import (
    Capability,
    Edition,
    ErrorCode,
    Origin,
    PresentationMode,
    StopReason,
    TckError,
)

from .proxy import PROBE, SERVER, Proxy, Route, wire_name
from .serve import OPENCODE, Serve

VERSION = "1.18.33"
PROVIDER = "task"  # opencode's task tool with a project agent (docs/opencode.md)
ROOT = "root"
RUN_TIMEOUT = float(os.environ.get("SUBAGENT_TCK_OPENCODE_TIMEOUT", "60"))
#: How long a tool registration waits for a running opencode to list the MCP server's tools
#: again after the server announced the change (it goes on either way).
RELIST = 2.0
#: opencode's answer to a call of a tool it does not offer: the call is rewritten as a call of
#: its internal ``invalid`` tool, whose result says so; where the agent's rules deny
#: ``invalid`` too (an allow list starts with ``"*": deny``), the call itself ends in an error
#: saying the tool is unavailable (docs/opencode.md, "A call of a tool not offered").
INVALID = "invalid"
UNAVAILABLE = "Model tried to call unavailable tool"


def _unsupported(what: str, instead: str) -> TckError:
    return TckError(ErrorCode.UNSUPPORTED_OPERATION, f"opencode has no {what}: {instead} "
                    "(docs/opencode.md#operations)")


def _no_component(what: str, instead: str) -> TckError:
    """The subagent-tool component's operations: the adapter lists no such component, so the
    kit never asks for them; a call is a malformed configuration."""
    return TckError(ErrorCode.INVALID_CONFIG, f"opencode has no {what}: {instead} "
                    "(docs/opencode.md#operations)")


def _slug(value: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:40] or "preset"


def _provider() -> ProviderInfo:
    return ProviderInfo(name=PROVIDER, capabilities=[Capability.PERSONA, Capability.TOOL_FILTER])


def permission(tool_filter: Any) -> Any:
    """The kit's tool filter as opencode's ordered permission rules (a mapping in the order
    written); a filter of another shape is written as it is, for opencode to judge."""
    if not isinstance(tool_filter, dict):
        return tool_filter
    allow, deny = tool_filter.get("allow"), tool_filter.get("deny")
    lists = [v for v in (allow, deny) if v is not None]
    if set(tool_filter) - {"allow", "deny"} or not all(
            isinstance(v, list) and all(isinstance(n, str) for n in v) for v in lists):
        return tool_filter
    rules: dict[str, str] = {}
    if allow is not None:
        rules["*"] = "deny"
        for name in allow:
            rules[wire_name(name)] = "allow"
    for name in deny or []:
        rules.pop(wire_name(name), None)  # last: opencode's last matching rule wins
        rules[wire_name(name)] = "deny"
    return rules


class OpencodeTarget:
    def __init__(self) -> None:
        if not OPENCODE.exists():
            raise TckError(ErrorCode.USAGE, f"{OPENCODE} is missing: run `cd adapters/opencode "
                           "&& npm install`")
        self._proxy: Proxy | None = None
        self._lock = threading.Lock()
        self._names = itertools.count(1)
        self._builtins: list[ToolSchema] | None = None

    def info(self) -> TargetInfo:
        return TargetInfo(name="opencode (via subagent-tck adapters/opencode)",
                          version=VERSION, editions=[Edition.PRESET_COMPOSITION], components=[],
                          providers=[_provider()])

    def builtins(self) -> list[ToolSchema]:
        """opencode's own tools as its root agent is offered them, seen once: a probe
        deployment's root is asked one question the adapter answers (proxy.PROBE)."""
        with self._lock:
            if self._builtins is not None:
                return self._builtins
            assert self._proxy is not None
            probe = OpencodeDeployment(DeploymentConfig(), "http://127.0.0.1:9", self._proxy,
                                       "probe", [])
        try:
            serve = probe.serve()
            serve.prompt(serve.session("subagent-tck probe"), f"{PROBE} list your tools")
            seen = probe.route.probed
        finally:
            probe.close()
        if seen is None:
            raise TckError(ErrorCode.PROTOCOL_ERROR, "opencode's root never asked its model: its "
                           f"built-in tools are unknown ({serve.tail()})")
        with self._lock:
            self._builtins = [t for t in seen.tools if not t.name.startswith(SERVER + "_")]
            return self._builtins

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> OpencodeDeployment:
        base = getattr(gateway, "base_url", None)
        if not isinstance(base, str):
            raise TckError(ErrorCode.INVALID_CONFIG, "the opencode adapter runs behind the "
                           "driver API only: serve it with adapters/opencode/server.py")
        with self._lock:
            if self._proxy is None:
                self._proxy = Proxy()
            name = f"d{next(self._names)}"
        builtins = self.builtins()
        return OpencodeDeployment(config, base, self._proxy, name, builtins)

    def close(self) -> None:
        if self._proxy is not None:
            self._proxy.close()


class OpencodeDeployment:
    def __init__(self, config: DeploymentConfig, gateway_url: str, proxy: Proxy, name: str,
                 builtins: list[ToolSchema]) -> None:
        if config.mode is not PresentationMode.NATIVE:
            raise _unsupported(f"{config.mode.value} presentation mode",
                               "every tool is a native tool schema (no run_code)")
        self.config = config
        self.dir = Path(tempfile.mkdtemp(prefix="tck-opencode-"))
        self.project = self.dir / "project"
        (self.project / ".opencode" / "agent").mkdir(parents=True)
        (self.dir / "home").mkdir()
        self._lock = threading.RLock()
        self.mcp = McpTools(self.dir / "mcp")
        self.tools: list[ToolSpec] = list(config.tools)
        self.mcp.write([t.model_dump() for t in self.tools])
        # opencode's own tools but task (the provider) are denied to every agent: the kit's
        # tools are what the rules judge, and an own tool's name is one the kit cannot give
        # (docs/opencode.md, "How the adapter maps the kit's concepts")
        self.builtins = [b for b in builtins if b.name == PROVIDER]
        denied = {b.name: "deny" for b in builtins if b.name != PROVIDER}
        self.presets = {p.name: p for p in config.presets}
        self._log: list[Event] = []
        self.children: dict[str, SessionHeader] = {}
        self._ids = itertools.count(1)
        self._invocations: list[Invocation] = []
        self._starts: dict[str, dict[str, Any]] = {}
        self._serve: Serve | None = None
        self._stale = False  # agents written or tools changed since opencode last read them
        self._sessions: set[str] = set()  # opencode sessions of running turns
        self._root: str | None = None  # the root's opencode session (run-turn)
        self._turns = 0
        self._provider = True
        self.name = name
        self.route = Route(gateway_url, self._drive, lambda: [t.name for t in self.tools])
        self.route.builtins = {b.name for b in builtins}
        self.url = proxy.mount(name, self.route)
        self._proxy = proxy
        persona = config.persona or ""
        (self.project / "opencode.json").write_text(json.dumps({
            "$schema": "https://opencode.ai/config.json", "autoupdate": False,
            "share": "disabled", "model": "tck/subagent-tck", "small_model": "tck/subagent-tck",
            "provider": {"tck": {"npm": "@ai-sdk/openai-compatible", "name": "subagent-tck",
                                 "options": {"baseURL": self.url, "apiKey": "none"},
                                 "models": {"subagent-tck": {"name": "subagent-tck",
                                                             "tool_call": True}}}},
            "mcp": {SERVER: {"type": "local", "command": self.mcp.command(), "enabled": True}},
            **({"permission": denied} if denied else {}),
            "agent": {"build": {"prompt": (persona + "\n" if persona else "")
                                + agent_marker(ROOT)}},
        }, indent=1), encoding="utf-8")
        for index, preset in enumerate(config.presets):  # a root turn may call task with one
            self._write_agent(f"tck-preset-{index}-{_slug(preset.name)}", preset.persona,
                              preset.toolFilter, f"preset:{preset.name}")

    # --- files and the server ----------------------------------------------------------

    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str) -> None:
        lines = ["---", f"description: {json.dumps('subagent-tck agent ' + agent)}",
                 "mode: subagent"]
        if tool_filter is not None:
            lines.append(f"permission: {json.dumps(permission(tool_filter))}")
        lines.append("---")
        body = persona if isinstance(persona, str) else "" if persona is None else \
            json.dumps(persona)
        text = "\n".join(lines) + "\n" + (body + "\n" if body else "") + agent_marker(agent) + "\n"
        (self.project / ".opencode" / "agent" / f"{file}.md").write_text(text, encoding="utf-8")
        with self._lock:
            self._stale = True

    def serve(self) -> Serve:
        """The deployment's ``opencode serve``, started at its first run; the configuration
        read again when agents or tools changed since."""
        with self._lock:
            if self._serve is None:
                self._serve = Serve(self.project, self.dir / "home", RUN_TIMEOUT)
                self._stale = False
            elif self._stale:
                self._serve.reload()
                self._stale = False
            return self._serve

    def _drive(self, request: ModelRequest, token: str) -> ModelReply:
        """The parent of a kit ``start``: call task once, then end (proxy.Route)."""
        with self._lock:
            start = self._starts.get(token)
        if start is None:
            return ModelReply(text="unknown start")
        for message in request.messages:
            if message.role == "tool" and message.toolCallId == start["call"]:
                start["result"] = message
                return ModelReply(text="done")
        return ModelReply(toolCalls=[ToolCall(id=start["call"], name="task", arguments={
            "description": "subagent-tck start", "prompt": start["prompt"],
            "subagent_type": start["file"]})])

    # --- the Deployment protocol -------------------------------------------------------

    def root(self) -> AgentRef:
        return AgentRef(agent=ROOT, session=f"{ROOT}-session", depth=0)

    def create_agent(self, *, header_depth: Any = 0, runtime_depth: Any = None,
                     has_runtime_depth: bool = False) -> AgentRef:
        raise _unsupported("top-level agents with a stored delegation depth",
                           "each session's root agent is at depth 0")

    def put_session_header(self, header: SessionHeader) -> None:
        raise _unsupported("writable session headers", "its sessions carry no depth")

    def resume(self, session: str) -> AgentRef:
        if session not in {h.session for h in self.sessions()}:
            raise TckError(ErrorCode.UNKNOWN_SESSION, f"no session {session!r}")
        raise _unsupported("cold resume of a subagent's session by the host", "a parent "
                           "continues a child by calling task with the task_id it was given")

    def sessions(self) -> list[SessionHeader]:
        with self._lock:
            return [SessionHeader(session=f"{ROOT}-session"), *self.children.values()]

    def agents(self) -> list[str]:
        with self._lock:
            seen = set(self.route.last)
            named = [f"preset:{p}" for p in self.presets]
            return [ROOT, *self.children] + [a for a in named if self._turns or a in seen]

    def _event(self, kind: str, agent: str | None, data: dict[str, Any] | None = None) -> None:
        with self._lock:
            self._log.append(Event(seq=len(self._log) + 1, kind=kind, agent=agent,
                                   session=f"{agent}-session" if agent else None,
                                   data=data or {}))

    def events(self) -> list[Event]:
        with self._lock:
            return list(self._log)

    def invocations(self) -> list[Invocation]:
        """The bodies run so far, each attributed when first read to the agent last told to
        call that tool (the MCP server cannot tell agents apart)."""
        with self._lock:
            records = self.mcp.invocations()
            with self.route.lock:
                told = dict(self.route.told)
            self._invocations += [Invocation(tool=r["tool"], agent=told.get(r["tool"], ROOT),
                                             origin=Origin.GLOBAL, arguments=r.get("arguments"))
                                  for r in records[len(self._invocations):]]
            return list(self._invocations)

    def observe(self) -> Observation:
        return Observation(sessions=self.sessions(), agents=self.agents(),
                           events=self.events(), invocations=self.invocations())

    def _tools_changed(self) -> None:
        self.mcp.write([t.model_dump() for t in self.tools])
        with self._lock:
            running = self._serve is not None
        if running and not self.mcp.wait_listed({t.name for t in self.tools}, RELIST):
            with self._lock:  # not listed again: the next run reads the configuration again
                self._stale = True

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        if agent is not None:
            raise _unsupported("scope-local tools", "an agent's tools are the built-ins and MCP "
                               "servers its permission rules leave")
        with self._lock:
            if any(t.name == tool.name for t in self.tools):
                raise TckError(ErrorCode.DUPLICATE_TOOL, f"a global tool {tool.name!r} exists")
            self.tools.append(tool)
        self._tools_changed()

    def unregister_tool(self, name: str, agent: str | None = None) -> None:
        if agent is not None:
            raise _unsupported("scope-local tools", "nothing to unregister")
        with self._lock:
            if not any(t.name == name for t in self.tools):
                raise TckError(ErrorCode.UNKNOWN_TOOL, f"no global tool {name!r}")
            self.tools = [t for t in self.tools if t.name != name]
        self._tools_changed()

    def install_restriction(self, agent: str, restriction: Any) -> str:
        raise _unsupported("live restriction of a running agent's tools",
                           "an agent's tools are fixed by its permission rules when it starts")

    def dispose_restriction(self, agent: str, handle: str) -> None:
        raise _unsupported("live restriction of a running agent's tools", "nothing to "
                           "dispose")

    def set_mode(self, agent: str, mode: PresentationMode) -> None:
        self._known(agent)
        if mode is not PresentationMode.NATIVE:
            raise _unsupported(f"{mode.value} presentation mode", "every tool is native")

    def _known(self, agent: str) -> None:
        if agent not in self.agents():
            raise TckError(ErrorCode.UNKNOWN_AGENT, f"no agent {agent!r}")

    def _seen(self, agent: str) -> ModelRequest | None:
        with self.route.lock:
            return self.route.last.get(agent)

    def tool_schemas(self, agent: str) -> list[ToolSchema]:
        """What the agent's last request carried; the root before its first run: opencode's
        own tools (as the adapter's probe saw them) and the kit's global tools."""
        self._known(agent)
        seen = self._seen(agent)
        if seen is not None:
            return list(seen.tools)
        if agent != ROOT:
            return []
        return list(self.builtins) + [
            ToolSchema(name=t.name, description=t.description, parameters=t.parameters)
            for t in self.tools]

    def view(self, agent: str | None = None) -> list[ViewEntry]:
        if agent is None:
            return [ViewEntry(name=t.name, origin=Origin.GLOBAL, description=t.description)
                    for t in self.tools]
        return [ViewEntry(name=s.name, origin=Origin.GLOBAL, description=s.description)
                for s in self.tool_schemas(agent)]

    def lookup(self, agent: str, name: str) -> ViewEntry | None:
        return next((v for v in self.view(agent) if v.name == name), None)

    def execute(self, agent: str, name: str, arguments: dict[str, Any]) -> ToolResult:
        raise _unsupported("direct tool execution outside a model turn",
                           "a tool runs when the agent's model calls it (run-turn)")

    def sdk_bindings(self, agent: str) -> list[str]:
        self._known(agent)
        return []

    def run_code(self, agent: str, calls: list[SdkCall]) -> list[ToolResult]:
        self._known(agent)  # native only: run_code is never offered, no name is bound
        return [ToolResult(isError=True, code="UNKNOWN_TOOL",
                           content="opencode has no run_code tool") for _ in calls]

    def prompt(self, agent: str) -> list[Section]:
        self._known(agent)
        seen = self._seen(agent)
        if seen is not None:
            return [Section(name="system", text=seen.system)]
        if agent == ROOT and self.config.persona:
            return [Section(name="persona", text=self.config.persona)]
        return []

    def providers(self) -> list[ProviderInfo]:
        return [_provider()] if self._provider else []

    def remove_provider(self, name: str) -> None:
        if name != PROVIDER or not self._provider:
            raise TckError(ErrorCode.NO_PROVIDER, f"no provider {name!r}")
        self._provider = False
        self._event("provider.removed", None, {"provider": name})

    def add_provider(self, name: str) -> None:
        if name != PROVIDER:
            raise TckError(ErrorCode.NO_PROVIDER, f"opencode has no provider {name!r}: its one "
                           f"is {PROVIDER!r} (the task tool)")
        self._provider = True
        self._event("provider.added", None, {"provider": name})

    def _turn(self, session: str, text: str) -> Any:
        serve = self.serve()
        with self._lock:
            self._sessions.add(session)
        try:
            return serve.prompt(session, text)
        finally:
            with self._lock:
                self._sessions.discard(session)

    def start(self, request: StartRequest) -> RunResult:
        controls = request.controls()
        if request.parent not in self.agents():
            raise TckError(ErrorCode.UNKNOWN_AGENT, f"no agent {request.parent!r}")
        if request.provider != PROVIDER or not self._provider:
            raise TckError(ErrorCode.NO_PROVIDER, f"no provider {request.provider!r}")
        if "maxDepth" in controls:
            raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "provider task does not advertise "
                           "depthLimit: opencode's task tool takes no depth")
        if "outputSchema" in controls:
            raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "provider task does not advertise "
                           "outputSchema")
        if "persona" in controls or "toolFilter" in controls:
            raise TckError(ErrorCode.REQUEST_CONTROLS_REFUSED, "opencode's task call takes "
                           "description, prompt and subagent_type: persona and tools come from "
                           "the agent definition (the preset)")
        preset = None
        if "preset" in controls:
            preset = self.presets.get(request.preset) if isinstance(request.preset, str) \
                else None
            if preset is None:
                raise TckError(ErrorCode.UNKNOWN_PRESET, f"no preset {request.preset!r}")
            if preset.outputSchema is not None:
                raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, "provider task does not "
                               "advertise outputSchema")
        if request.parent != ROOT:
            raise _unsupported("delegation from a subagent started by the host", "a subagent "
                               "delegates by calling task itself, when its rules allow task")
        with self._lock:
            number = next(self._ids)
        child = f"child-{number}"
        file = f"tck-child-{number}"
        self._write_agent(file, preset.persona if preset else None,
                          preset.toolFilter if preset else None, child)
        descriptor: dict[str, Any] = {"provider": PROVIDER}
        if preset is not None:
            descriptor["preset"] = preset.name
        token = f"s{number}"
        with self._lock:
            self.children[child] = SessionHeader(session=f"{child}-session",
                                                 parent=f"{ROOT}-session", delegationDepth=1,
                                                 descriptor=descriptor)
            self._starts[token] = {"call": f"call_tck_{number}", "prompt": request.prompt,
                                   "file": file}
        self._event("agent.published", child, {"depth": 1, "snapshot": {
            "view": [], "prompt": []}})
        self._event("run.started", child)
        try:
            serve = self.serve()
            session = serve.session(f"subagent-tck start {child}")
            self._turn(session, f"start {child} [subagent-tck start={token}]")
            done = self._child(serve, session)
        except TckError:
            self._event("run.stopped", child, {"stopReason": StopReason.ERROR.value})
            raise
        result = self._starts[token].get("result")
        if done is None or result is None:
            stop, output = StopReason.ERROR, (result.content if result is not None else
                                              f"no child session: {serve.tail()}")
            results: list[ToolResult] = []
        else:
            stop, output, results = done
            output = result.content if stop is StopReason.COMPLETED else output
        self._event("run.stopped", child, {"stopReason": stop.value})
        return RunResult(agent=child, session=f"{child}-session", depth=1, stopReason=stop,
                         output=output, toolResults=results)

    def _child(self, serve: Serve, session: str) -> tuple[StopReason, Any, list[ToolResult]] | None:
        """How the child the start's task call made ended, from opencode's own record of its
        session; None when there is none."""
        children = serve.call("GET", f"/session/{session}/children") or []
        if not children:
            return None
        messages = serve.call("GET", f"/session/{children[0]['id']}/message") or []
        return _outcome(messages)

    def run_turn(self, agent: str, prompt: str) -> RunResult:
        self._known(agent)
        if agent != ROOT:
            raise _unsupported("turns of a finished subagent run by the host",
                               "its parent continues it by calling task with its task_id")
        self._event("run.started", ROOT)
        with self._lock:
            self._turns += 1
        try:
            serve = self.serve()
            if self._root is None:
                self._root = serve.session("subagent-tck root")
            answer = self._turn(self._root, prompt)
            messages = serve.call("GET", f"/session/{self._root}/message") or []
        except TckError:
            self._event("run.stopped", ROOT, {"stopReason": StopReason.ERROR.value})
            raise
        finally:
            with self._lock:
                self._turns -= 1
        asked = (answer or {}).get("info", {}).get("parentID")
        stop, output, results = _outcome([m for m in messages
                                          if m.get("info", {}).get("parentID") == asked])
        self._event("run.stopped", ROOT, {"stopReason": stop.value})
        return RunResult(agent=ROOT, session=f"{ROOT}-session", depth=0, stopReason=stop,
                         output=output, toolResults=results)

    def abort_turn(self, agent: str) -> None:
        with self._lock:
            serve, sessions = self._serve, list(self._sessions)
        for session in sessions if serve is not None else []:
            serve.abort(session)  # type: ignore[union-attr]

    def load_subagent_tool(self, config: SubagentToolConfig) -> None:
        raise _no_component("configurable subagent tool", "its task tool is built in")

    def unload_subagent_tool(self, tool_name: str) -> None:
        raise _no_component("configurable subagent tool", "its task tool is built in")

    def set_host_depth(self, value: Any) -> None:
        raise _no_component("depth component", "its cap is the subagent_depth setting")

    def set_runtime_context(self, enabled: bool) -> None:
        raise _no_component("runtime-context notices", "")

    def close(self) -> None:
        with self._lock:
            serve, self._serve = self._serve, None
        if serve is not None:
            serve.close()
        self._proxy.unmount(self.name)
        shutil.rmtree(self.dir, ignore_errors=True)


def _outcome(messages: list[Any]) -> tuple[StopReason, Any, list[ToolResult]]:
    """A turn's end as opencode recorded it (its assistant messages, in order): the stop
    reason, the last text, and the result of every tool call. opencode's refusal of a call of a
    tool it did not offer (:data:`INVALID`) is an errored result with UNKNOWN_TOOL."""
    stop, text, results = StopReason.COMPLETED, None, []
    for message in messages:
        info = message.get("info") or {}
        if info.get("role") != "assistant":
            continue
        if info.get("error"):
            stop = StopReason.ERROR
            text = json.dumps(info["error"])[:500]
        for part in message.get("parts") or []:
            if part.get("type") == "text" and part.get("text"):
                text = part["text"]
            elif part.get("type") == "tool":
                state = part.get("state") or {}
                content = state.get("output", state.get("error"))
                unknown = part.get("tool") == INVALID or (
                    state.get("status") == "error" and UNAVAILABLE in str(content))
                results.append(ToolResult(isError=unknown or state.get("status") == "error",
                                          content=content,
                                          code="UNKNOWN_TOOL" if unknown else None))
    return stop, text, results


def make_target() -> OpencodeTarget:
    return OpencodeTarget()
