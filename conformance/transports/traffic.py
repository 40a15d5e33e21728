"""What the adapters that see a runtime only from its model traffic share: Claude Code
(docs/claude-code.md) and opencode (docs/opencode.md).

Such an adapter runs the real runtime against a model endpoint of its own on 127.0.0.1 (a
:class:`TrafficProxy`, one :class:`TrafficRoute` per deployment). The parent that stands for the
kit's ``start`` is answered there, by a scripted call of the runtime's subagent tool
(:meth:`TrafficDeployment._drive`); every other request goes to the kit's model gateway,
attributed by the agent marker the adapter planted (docs/driver-api.md#model-gateway). What an
agent sees (``view``, ``tool-schemas``, ``prompt``) is its last request; a tool body that ran
was run by the agent last told to call that tool; the kit's global tools are served by the
kit's MCP echo server (``mcp_echo.py``).

:class:`TrafficDeployment` holds the operations that read the same whatever the runtime: the
root and the children its starts publish, events, invocations, the one provider, the checks of
a start's controls, and the refusals of what such a runtime cannot express
(``UNSUPPORTED_OPERATION``, docs/driver-api.md#unsupported-operations; ``INVALID_CONFIG`` for
the subagent-tool component, which such a target does not list). A subclass brings the runtime:
how agent definitions and tools are written, what the root has before its first run, how a
start and a root turn run, and the wording of each refusal as its page's "Operations" section
gives it.
"""

from __future__ import annotations

import http.client
import itertools
import json
import re
import shutil
import tempfile
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Generic, TypedDict, TypeVar
from urllib.parse import urlsplit

from subagent_tck.conformance.core.gateway import Gateway
from subagent_tck.conformance.core.protocol import (
    AgentRef,
    DeploymentConfig,
    Event,
    Invocation,
    ModelReply,
    ModelRequest,
    Observation,
    PresetSpec,
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
from subagent_tck.conformance.transports.httpd import Answer, Request, ServerThread
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

ROOT = "root"  # the kit's root agent; every agent's session is "{agent}-session"

#: How a start or a root turn ended, as the runtime showed it: stop reason, output, tool results.
Outcome = tuple[StopReason, Any, list[ToolResult]]


def slug(value: str) -> str:
    """``value`` as part of a file name: lower case, ``[a-z0-9-]``, at most 40 characters."""
    return re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:40] or "preset"


def provider_info(name: str) -> ProviderInfo:
    """The one provider: the runtime's subagent tool called with a project agent, whose
    definition carries the persona and the tool filter (a preset)."""
    return ProviderInfo(name=name, capabilities=[Capability.PERSONA, Capability.TOOL_FILTER])


class TrafficRoute:
    """One deployment's side of the model endpoint: where the kit's gateway is, each agent's
    last request and which agent was last told to call each kit tool."""

    def __init__(self, gateway_url: str) -> None:
        parts = urlsplit(gateway_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.base = parts.path.rstrip("/")
        self.lock = threading.Lock()
        self.last: dict[str, ModelRequest] = {}  # agent -> its last request (markers cut)
        self.told: dict[str, str] = {}  # kit tool name -> the agent last told to call it

    def post(self, path: str, data: bytes) -> Answer:
        """``data`` posted to the kit's gateway at ``path`` (below its base); its answer as it
        came, with the headers a runtime's retry logic reads. OSError when it is unreachable."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=300)
        try:
            connection.request("POST", self.base + path, body=data,
                               headers={"content-type": "application/json"})
            answer = connection.getresponse()
            return Answer(answer.status, answer.read(),
                          answer.getheader("content-type", "application/json"),
                          tuple((k, v) for k, v in answer.getheaders()
                                if k.lower() in ("x-should-retry", "cache-control")))
        finally:
            connection.close()

    def tell(self, agent: str | None, names: list[str]) -> None:
        """``agent`` (when the request was attributed) was told to call the kit tools
        ``names``: a body of one of them that runs from now on is taken as its
        (``invocations``)."""
        if agent is not None:
            with self.lock:
                for name in names:
                    self.told[name] = agent


R = TypeVar("R", bound=TrafficRoute)


class TrafficProxy(ABC, Generic[R]):
    """Serves every deployment's route on 127.0.0.1 below ``/p/{deployment}``. A subclass says
    which paths are routes (``handle``); ``error`` words an error as the runtime's client reads
    it (an Anthropic or an OpenAI error body)."""

    def __init__(self, name: str, error: Callable[[int, str], Answer], suffix: str = "") -> None:
        self._routes: dict[str, R] = {}
        self._lock = threading.Lock()
        self._error = error
        self._suffix = suffix  # after /p/{deployment} in the base URL a runtime is given
        self._thread = ServerThread(self, name=name)
        self._thread.start()
        self.url = self._thread.url

    def mount(self, name: str, route: R) -> str:
        with self._lock:
            self._routes[name] = route
        return f"{self.url}/p/{name}{self._suffix}"

    def unmount(self, name: str) -> None:
        with self._lock:
            self._routes.pop(name, None)

    def route(self, name: str) -> R | None:
        with self._lock:
            return self._routes.get(name)

    def close(self) -> None:
        self._thread.stop()

    @abstractmethod
    def handle(self, request: Request) -> Answer: ...

    def refuse(self, status: int, message: str) -> Answer:
        return self._error(status, message)


P = TypeVar("P", bound=TrafficProxy[Any])


class TrafficTarget(Generic[P]):
    """The target: one model endpoint for all its deployments (made at the first deploy), the
    deployments named ``d1``, ``d2``, ..."""

    runtime: ClassVar[str]  # its name in messages: "Claude Code"
    folder: ClassVar[str]  # the adapter's folder below adapters/, also the target's name
    version: ClassVar[str]  # the runtime's pinned version
    provider: ClassVar[str]  # the one provider's name

    def __init__(self, proxy: Callable[[], P]) -> None:
        self._make_proxy = proxy
        self._proxy: P | None = None
        self._lock = threading.Lock()
        self._names = itertools.count(1)

    def info(self) -> TargetInfo:
        return TargetInfo(name=f"{self.folder} (via subagent-tck adapters/{self.folder})",
                          version=self.version, editions=[Edition.PRESET_COMPOSITION],
                          components=[], providers=[provider_info(self.provider)])

    def _endpoint(self, gateway: Gateway) -> tuple[str, P, str]:
        """For a new deployment: the kit gateway's base URL, the model endpoint and the
        deployment's name. The runtime's requests reach the gateway over HTTP, so the adapter
        runs behind the driver API only (docs/driver-api.md#model-gateway)."""
        base = getattr(gateway, "base_url", None)
        if not isinstance(base, str):
            raise TckError(ErrorCode.INVALID_CONFIG, f"the {self.runtime} adapter runs behind "
                           "the driver API only: serve it with "
                           f"adapters/{self.folder}/server.py")
        with self._lock:
            if self._proxy is None:
                self._proxy = self._make_proxy()
            name = f"d{next(self._names)}"
        return base, self._proxy, name

    def close(self) -> None:
        if self._proxy is not None:
            self._proxy.close()


class Reasons(TypedDict):
    """A runtime's words for the refusals whose wording differs between runtimes (its page's
    "Operations" section): what it offers instead, or ``(what it has no, what instead)``."""

    create_agent: str  # instead of top-level agents with a stored delegation depth
    put_session_header: str  # instead of writable session headers
    resume: tuple[str, str]  # a known session's cold resume
    register_tool: str  # instead of scope-local tools
    install_restriction: str  # instead of live restriction of a running agent's tools
    start: tuple[str, str]  # a start whose parent is not the root
    run_turn: str  # instead of turns of a finished subagent run by the host
    set_host_depth: tuple[str, str]


class TrafficDeployment(ABC, Generic[R]):
    """A deployment of a runtime seen from its model traffic: a fresh directory (``project``,
    ``home``, the MCP server's files), the kit's global tools on the MCP echo server, the
    presets as project agents, one root agent and the children its starts publish."""

    runtime: ClassVar[str]  # its name in messages: "Claude Code"
    page: ClassVar[str]  # what its refusals cite: "docs/claude-code.md#operations"
    provider: ClassVar[str]  # the one provider's name
    tool: ClassVar[str]  # the runtime's subagent tool that provider calls
    call_prefix: ClassVar[str]  # a start's scripted call id: this and the start's number
    agents_folder: ClassVar[str]  # where agent definitions go, below the project directory
    temp_prefix: ClassVar[str]  # of the deployment's directory
    reasons: ClassVar[Reasons]
    #: How long a tool change waits for a running runtime to list the MCP tools again, in s.
    relist: ClassVar[float] = 2.0
    #: The start driver's stop reason for a start token it does not know.
    unknown_start: ClassVar[StopReason] = StopReason.COMPLETED

    name: str
    route: R
    url: str  # the deployment's model endpoint (its route's base URL)

    def __init__(self, config: DeploymentConfig) -> None:
        if config.mode is not PresentationMode.NATIVE:
            raise self._unsupported(f"{config.mode.value} presentation mode",
                                    "every tool is a native tool schema (no run_code)")
        self.config = config
        self.dir = Path(tempfile.mkdtemp(prefix=self.temp_prefix))
        self.project = self.dir / "project"
        self.agents_dir = self.project / self.agents_folder
        self.agents_dir.mkdir(parents=True)
        (self.dir / "home").mkdir()
        self._lock = threading.RLock()
        self.mcp = McpTools(self.dir / "mcp")
        self.tools: list[ToolSpec] = list(config.tools)
        self.mcp.write([t.model_dump() for t in self.tools])
        self.presets = {p.name: p for p in config.presets}
        self._log: list[Event] = []
        self.children: dict[str, SessionHeader] = {}
        self._ids = itertools.count(1)
        self._invocations: list[Invocation] = []
        self._starts: dict[str, dict[str, Any]] = {}  # token -> the start's call, prompt, file
        self._provider = True
        self._turns = 0  # root turns running (their calls of the tool may start presets)

    def _mount(self, proxy: TrafficProxy[R], name: str, route: R) -> None:
        self.name, self.route, self._proxy = name, route, proxy
        self.url = proxy.mount(name, route)

    def _write_presets(self) -> None:
        """Each preset as a project agent, which a root turn may call the tool with."""
        for index, preset in enumerate(self.config.presets):
            self._write_agent(f"tck-preset-{index}-{slug(preset.name)}", preset.persona,
                              preset.toolFilter, f"preset:{preset.name}")

    # --- what the runtime brings ---------------------------------------------------------

    @abstractmethod
    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str) -> None:
        """The agent definition ``file`` in ``agents_dir``: persona, tool filter and the marker
        of the kit's ``agent`` (:meth:`_write_definition`)."""

    def _write_definition(self, file: str, front: list[str], persona: Any, agent: str) -> None:
        """``agents_dir/FILE.md``: the front matter (``front``, its lines), the persona as the
        body (a value other than a string as JSON), then the marker that attributes the agent's
        requests (docs/driver-api.md#model-gateway)."""
        body = persona if isinstance(persona, str) else "" if persona is None else \
            json.dumps(persona)
        text = "\n".join(["---", *front, "---"]) + "\n" + (body + "\n" if body else "") + \
            agent_marker(agent) + "\n"
        (self.agents_dir / f"{file}.md").write_text(text, encoding="utf-8")

    @abstractmethod
    def _own_tools(self) -> list[ToolSchema]:
        """The runtime's own tools its root is offered before its first run."""

    @abstractmethod
    def _listening(self) -> bool:
        """Whether a runtime of this deployment runs now (the lock held): it is told of a
        changed tool list, and the change waits until it has listed the tools again."""

    def _unlisted(self) -> None:
        """A running runtime did not list the changed tools within ``relist``: it keeps its
        list (a subclass may read its configuration again at the next run)."""

    @abstractmethod
    def _run_start(self, child: str, token: str) -> Outcome:
        """Run the start ``token`` (its parent's request carries ``[subagent-tck
        start=TOKEN]``, answered by :meth:`_drive`) until ``child`` ended."""

    @abstractmethod
    def _run_root(self, prompt: str) -> Outcome:
        """One turn of the root agent on ``prompt``, every request of it the kit's to answer."""

    @abstractmethod
    def abort_turn(self, agent: str) -> None: ...

    def _named(self) -> list[str]:
        """The agents a root turn's call of the tool may run: the presets, by the kit's name."""
        return [f"preset:{p}" for p in self.presets]

    # --- refusals --------------------------------------------------------------------------

    def _unsupported(self, what: str, instead: str) -> TckError:
        """The answer to an optional operation the runtime cannot express (docs/driver-api.md
        lists which operations may be answered so)."""
        return TckError(ErrorCode.UNSUPPORTED_OPERATION,
                        f"{self.runtime} has no {what}: {instead} ({self.page})")

    def _no_component(self, what: str, instead: str) -> TckError:
        """The subagent-tool component's operations: the target lists no such component, so the
        kit never asks for them; a call is a malformed configuration."""
        return TckError(ErrorCode.INVALID_CONFIG,
                        f"{self.runtime} has no {what}: {instead} ({self.page})")

    # --- the start driver ----------------------------------------------------------------

    def _drive(self, request: ModelRequest, token: str) -> ModelReply:
        """The parent of a kit ``start``: call the tool once with the start's agent, keep its
        result, then end."""
        with self._lock:
            start = self._starts.get(token)
        if start is None:
            return ModelReply(text="unknown start", stopReason=self.unknown_start)
        for message in request.messages:
            if message.role == "tool" and message.toolCallId == start["call"]:
                start["result"] = message
                return ModelReply(text="done")
        return ModelReply(toolCalls=[ToolCall(id=start["call"], name=self.tool, arguments={
            "description": "subagent-tck start", "prompt": start["prompt"],
            "subagent_type": start["file"]})])

    # --- the Deployment protocol -----------------------------------------------------------

    def root(self) -> AgentRef:
        return AgentRef(agent=ROOT, session=f"{ROOT}-session", depth=0)

    def create_agent(self, *, header_depth: Any = 0, runtime_depth: Any = None,
                     has_runtime_depth: bool = False) -> AgentRef:
        raise self._unsupported("top-level agents with a stored delegation depth",
                                self.reasons["create_agent"])

    def put_session_header(self, header: SessionHeader) -> None:
        raise self._unsupported("writable session headers", self.reasons["put_session_header"])

    def resume(self, session: str) -> AgentRef:
        if session not in {h.session for h in self.sessions()}:
            raise TckError(ErrorCode.UNKNOWN_SESSION, f"no session {session!r}")
        raise self._unsupported(*self.reasons["resume"])

    def sessions(self) -> list[SessionHeader]:
        with self._lock:
            return [SessionHeader(session=f"{ROOT}-session"), *self.children.values()]

    def agents(self) -> list[str]:
        with self._lock:
            seen = set(self.route.last)
            return [ROOT, *self.children] + [a for a in self._named() if self._turns or a in seen]

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

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        if agent is not None:
            raise self._unsupported("scope-local tools", self.reasons["register_tool"])
        with self._lock:
            if any(t.name == tool.name for t in self.tools):
                raise TckError(ErrorCode.DUPLICATE_TOOL, f"a global tool {tool.name!r} exists")
            self.tools.append(tool)
            names = self._write_tools()
        self._relisted(names)

    def unregister_tool(self, name: str, agent: str | None = None) -> None:
        if agent is not None:
            raise self._unsupported("scope-local tools", "nothing to unregister")
        with self._lock:
            if not any(t.name == name for t in self.tools):
                raise TckError(ErrorCode.UNKNOWN_TOOL, f"no global tool {name!r}")
            self.tools = [t for t in self.tools if t.name != name]
            names = self._write_tools()
        self._relisted(names)

    def _write_tools(self) -> set[str] | None:
        """Give the MCP server ``self.tools`` (the lock held): their names when a runtime of
        this deployment runs (the server tells it the list changed), None when none runs (the
        next one lists them fresh)."""
        self.mcp.write([t.model_dump() for t in self.tools])
        return {t.name for t in self.tools} if self._listening() else None

    def _relisted(self, names: set[str] | None) -> None:
        """Wait (the lock not held) until the running runtime has listed ``names`` again, at
        most ``relist`` seconds; the deployment goes on either way."""
        if names is not None and not self.mcp.wait_listed(names, self.relist):
            self._unlisted()

    def install_restriction(self, agent: str, restriction: Any) -> str:
        raise self._unsupported("live restriction of a running agent's tools",
                                self.reasons["install_restriction"])

    def install_spawn_policy(self, agent: str, policy: Any) -> str:
        raise self._unsupported("spawn policies installed on a running agent",
                                "an agent's spawn policy is part of its definition, written "
                                "before it starts")

    def dispose_spawn_policy(self, agent: str, handle: str) -> None:
        raise self._unsupported("spawn policies installed on a running agent",
                                "an agent's spawn policy is part of its definition")

    def dispose_restriction(self, agent: str, handle: str) -> None:
        raise self._unsupported("live restriction of a running agent's tools",
                                "nothing to dispose")

    def set_mode(self, agent: str, mode: PresentationMode) -> None:
        self._known(agent)
        if mode is not PresentationMode.NATIVE:
            raise self._unsupported(f"{mode.value} presentation mode", "every tool is native")

    def _known(self, agent: str) -> None:
        if agent not in self.agents():
            raise TckError(ErrorCode.UNKNOWN_AGENT, f"no agent {agent!r}")

    def _seen(self, agent: str) -> ModelRequest | None:
        with self.route.lock:
            return self.route.last.get(agent)

    def tool_schemas(self, agent: str) -> list[ToolSchema]:
        """What the agent's last request carried; the root before its first run: the runtime's
        own tools (:meth:`_own_tools`) and the kit's global tools."""
        self._known(agent)
        seen = self._seen(agent)
        if seen is not None:
            return list(seen.tools)
        if agent != ROOT:
            return []
        return self._own_tools() + [
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
        raise self._unsupported("direct tool execution outside a model turn",
                                "a tool runs when the agent's model calls it (run-turn)")

    def sdk_bindings(self, agent: str) -> list[str]:
        self._known(agent)
        return []

    def run_code(self, agent: str, calls: list[SdkCall]) -> list[ToolResult]:
        self._known(agent)  # native only: run_code is never offered, no name is bound
        return [ToolResult(isError=True, code="UNKNOWN_TOOL",
                           content=f"{self.runtime} has no run_code tool") for _ in calls]

    def prompt(self, agent: str) -> list[Section]:
        self._known(agent)
        seen = self._seen(agent)
        if seen is not None:
            return [Section(name="system", text=seen.system)]
        if agent == ROOT and self.config.persona:
            return [Section(name="persona", text=self.config.persona)]
        return []

    def providers(self) -> list[ProviderInfo]:
        return [provider_info(self.provider)] if self._provider else []

    def remove_provider(self, name: str) -> None:
        if name != self.provider or not self._provider:
            raise TckError(ErrorCode.NO_PROVIDER, f"no provider {name!r}")
        self._provider = False
        self._event("provider.removed", None, {"provider": name})

    def add_provider(self, name: str) -> None:
        if name != self.provider:
            raise TckError(ErrorCode.NO_PROVIDER, f"{self.runtime} has no provider {name!r}: "
                           f"its one is {self.provider!r} (the {self.tool} tool)")
        self._provider = True
        self._event("provider.added", None, {"provider": name})

    def _start_preset(self, request: StartRequest) -> PresetSpec | None:
        """The preset a start asks for (None: none), once the start is one the runtime can
        make: the tool's call takes a description, a prompt and the agent, so a depth, an output
        schema, a persona or a filter of the call's own is refused; its parent is the root."""
        controls = request.controls()
        if request.parent not in self.agents():
            raise TckError(ErrorCode.UNKNOWN_AGENT, f"no agent {request.parent!r}")
        if request.provider != self.provider or not self._provider:
            raise TckError(ErrorCode.NO_PROVIDER, f"no provider {request.provider!r}")
        if "maxDepth" in controls:
            raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, f"provider {self.provider} does "
                           f"not advertise depthLimit: {self.runtime}'s {self.tool} tool takes "
                           "no depth")
        if "outputSchema" in controls:
            raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, f"provider {self.provider} does "
                           "not advertise outputSchema")
        if "persona" in controls or "toolFilter" in controls:
            raise TckError(ErrorCode.REQUEST_CONTROLS_REFUSED, f"{self.runtime}'s {self.tool} "
                           "call takes description, prompt and subagent_type: persona and tools "
                           "come from the agent definition (the preset)")
        preset = None
        if "preset" in controls:
            preset = self.presets.get(request.preset) if isinstance(request.preset, str) \
                else None
            if preset is None:
                raise TckError(ErrorCode.UNKNOWN_PRESET, f"no preset {request.preset!r}")
            if preset.outputSchema is not None:
                raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, f"provider {self.provider} "
                               "does not advertise outputSchema")
        for field, capability in (("spawnPolicy", Capability.SPAWN_POLICY),
                                  ("model", Capability.MODEL_SELECTION)):
            # not mapped onto the runtime yet (docs/driver-api.md#spawn-policies-and-models):
            # refused as the unadvertised control it is here, never dropped (CA-01)
            if controls.get(field) is not None or getattr(preset, field, None) is not None:
                raise TckError(ErrorCode.UNSUPPORTED_CAPABILITY, f"provider {self.provider} "
                               f"does not advertise {capability.value}",
                               {"capability": capability.value})
        if request.parent != ROOT:
            raise self._unsupported(*self.reasons["start"])
        return preset

    def start(self, request: StartRequest) -> RunResult:
        """A child of the root: an agent definition made from the preset, published, then run
        by the runtime (:meth:`_run_start`) as its root's call of the tool."""
        preset = self._start_preset(request)
        with self._lock:
            number = next(self._ids)
        child, file, token = f"child-{number}", f"tck-child-{number}", f"s{number}"
        self._write_agent(file, preset.persona if preset else None,
                          preset.toolFilter if preset else None, child)
        descriptor: dict[str, Any] = {"provider": self.provider}
        if preset is not None:
            descriptor["preset"] = preset.name
        with self._lock:
            self.children[child] = SessionHeader(session=f"{child}-session",
                                                 parent=f"{ROOT}-session", delegationDepth=1,
                                                 descriptor=descriptor)
            self._starts[token] = {"call": f"{self.call_prefix}{number}",
                                   "prompt": request.prompt, "file": file}
        self._event("agent.published", child, {"depth": 1, "snapshot": {
            "view": [], "prompt": []}})
        self._event("run.started", child)
        try:
            stop, output, results = self._run_start(child, token)
        except TckError:
            self._event("run.stopped", child, {"stopReason": StopReason.ERROR.value})
            raise
        self._event("run.stopped", child, {"stopReason": stop.value})
        return RunResult(agent=child, session=f"{child}-session", depth=1, stopReason=stop,
                         output=output, toolResults=results)

    def run_turn(self, agent: str, prompt: str) -> RunResult:
        self._known(agent)
        if agent != ROOT:
            raise self._unsupported("turns of a finished subagent run by the host",
                                    self.reasons["run_turn"])
        self._event("run.started", ROOT)
        with self._lock:
            self._turns += 1
        try:
            stop, output, results = self._run_root(prompt)
        except TckError:
            self._event("run.stopped", ROOT, {"stopReason": StopReason.ERROR.value})
            raise
        finally:
            with self._lock:
                self._turns -= 1
        self._event("run.stopped", ROOT, {"stopReason": stop.value})
        return RunResult(agent=ROOT, session=f"{ROOT}-session", depth=0, stopReason=stop,
                         output=output, toolResults=results)

    def load_subagent_tool(self, config: SubagentToolConfig) -> None:
        raise self._no_component("configurable subagent tool", f"its {self.tool} tool is built "
                                 "in")

    def unload_subagent_tool(self, tool_name: str) -> None:
        raise self._no_component("configurable subagent tool", f"its {self.tool} tool is built "
                                 "in")

    def set_host_depth(self, value: Any) -> None:
        raise self._no_component(*self.reasons["set_host_depth"])

    def set_runtime_context(self, enabled: bool) -> None:
        raise self._no_component("runtime-context notices", "")

    def close(self) -> None:
        """The route unmounted and the directory removed (a subclass stops its runtime first)."""
        self._proxy.unmount(self.name)
        shutil.rmtree(self.dir, ignore_errors=True)
