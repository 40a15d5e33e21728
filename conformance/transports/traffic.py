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

import itertools
import json
import shutil
import tempfile
import threading
from abc import abstractmethod
from pathlib import Path
from typing import Any, ClassVar, Generic

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
    Section,
    SessionHeader,
    StartRequest,
    ToolResult,
    ToolSchema,
    ToolSpec,
    ViewEntry,
)
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.traffic_refusals import Refusals
from subagent_tck.conformance.transports.traffic_routes import (
    R,
    TrafficProxy,
    provider_info,
    slug,
)
from subagent_tck.conformance.transports.traffic_servers import McpServers, default_server
from subagent_tck.conformance.transports.traffic_starts import (
    UNSET,
    Lineage,
    Start,
    parse_token,
    refusal,
    start_marker,
    token,
)
from subagent_tck.spec import (
    ErrorCode,
    Origin,
    PresentationMode,
    StopReason,
    TckError,
    check_depth,
)

ROOT = "root"  # the kit's root agent; every agent's session is "{agent}-session"

#: How a start or a root turn ended, as the runtime showed it: stop reason, output, tool results.
Outcome = tuple[StopReason, Any, list[ToolResult]]


def root_preset(config: DeploymentConfig) -> PresetSpec | None:
    """The preset the root is started from (``DeploymentConfig.rootPreset``, the root channel:
    docs/driver-api.md#dialect), or None; one the deployment does not define is refused
    before anything is made."""
    name = config.rootPreset
    if name is None:
        return None
    preset = next((p for p in config.presets if p.name == name), None) \
        if isinstance(name, str) else None
    if preset is None:
        raise TckError(ErrorCode.UNKNOWN_PRESET, f"no preset {name!r} to start the root from "
                       "(rootPreset)")
    return preset


def deny_lists(permissions: Any, runtime: str) -> list[Any]:
    """The deny lists of the deployment's permission rules (``DeploymentConfig.permissions``,
    the permission channel: docs/driver-api.md#dialect), each as given: such a runtime's
    permission rules hide tools by deny rules only, so a restriction with an allow list is a
    configuration the channel does not carry (refused before anything is made)."""
    if permissions is None:
        return []
    if not isinstance(permissions, list) or any(
            not isinstance(r, dict) or r.get("allow") is not None for r in permissions):
        raise TckError(ErrorCode.INVALID_CONFIG, f"{runtime}'s permission rules hide tools by "
                       "deny rules only (its channel carries deny lists): permissions must be "
                       "a list of {deny: [...]}")
    return [r.get("deny") for r in permissions]


class TrafficDeployment(Refusals, Generic[R]):
    """A deployment of a runtime seen from its model traffic: a fresh directory (``project``,
    ``home``, the MCP server's files), the kit's global tools on the MCP echo server, the
    presets as project agents, one root agent and the children its starts publish."""

    provider: ClassVar[str]  # the one provider's name
    call_prefix: ClassVar[str]  # a start's scripted call id: this and the start's number
    agents_folder: ClassVar[str]  # where agent definitions go, below the project directory
    temp_prefix: ClassVar[str]  # of the deployment's directory
    #: The name of the MCP server of the kit's tools that name none (traffic_servers.py).
    server: ClassVar[str] = "tck"
    #: How long a tool change waits for a running runtime to list the MCP tools again, in s.
    relist: ClassVar[float] = 2.0
    #: The start driver's stop reason for a start token it does not know.
    unknown_start: ClassVar[StopReason] = StopReason.COMPLETED
    #: Whether a child may start children (its own call of the tool, traffic_starts.py).
    nesting: bool = False
    #: Whether the provider advertises depthLimit: the runtime's depth setting takes maxDepth.
    depth_limit: bool = False
    #: The most agents a start from a deep parent nests to stand for its ancestors (a parent
    #: created deeper is a probe: traffic_starts.Lineage.truncated).
    deepest: ClassVar[int] = 8
    #: How the runtime words the refusals of a start the adapter translates by their words:
    #: its depth cap (DEPTH_EXCEEDED), a definition it refuses (traffic_starts.refusal).
    refusal_words: ClassVar[dict[ErrorCode, tuple[str, ...]]] = {}

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
        self.tools: list[ToolSpec] = list(config.tools)
        #: every global tool the deployment ever had, by name (the last spec of a name): a
        #: request may still carry one unregistered since, which is named back by it
        self.known_tools: dict[str, ToolSpec] = {t.name: t for t in self.tools}
        self.mcp = McpServers(self.dir / "mcp", default_server(self.server, self.tools))
        self.mcp.write(self.tools)
        self.presets = {p.name: p for p in config.presets}
        self._log: list[Event] = []
        self.children: dict[str, SessionHeader] = {}
        self._ids = itertools.count(1)
        self._invocations: list[Invocation] = []
        self._starts: dict[int, Start] = {}  # the kit's starts by number
        self._pending: dict[str, Start] = {}  # a child not published yet -> its start
        self.lineage: dict[str, Lineage] = {}  # a published child -> what it was written from
        self._created: set[str] = set()  # the agents create_agent made
        self._provider = True
        self._turns = 0  # root turns running (their calls of the tool may start presets)
        #: the runtime's depth setting for runs without a maxDepth (set-host-depth), or UNSET
        self.host_depth: Any = UNSET

    def _mount(self, proxy: TrafficProxy[R], name: str, route: R) -> None:
        self.name, self.route, self._proxy = name, route, proxy
        route.first = self._published
        self.url = proxy.mount(name, route)

    def _write_presets(self) -> None:
        """Each preset as a project agent, which a root turn may call the tool with."""
        for index, preset in enumerate(self.config.presets):
            self._write_agent(f"tck-preset-{index}-{slug(preset.name)}", preset.persona,
                              preset.toolFilter, f"preset:{preset.name}")

    # --- what the runtime brings ---------------------------------------------------------

    @abstractmethod
    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str,
                     marker: str | None = None) -> None:
        """The agent definition ``file`` in ``agents_dir``: persona, tool filter and the marker
        of the kit's ``agent`` (or ``marker``: a start's link, traffic_starts.py)
        (:meth:`_write_definition`)."""

    def _write_definition(self, file: str, front: list[str], persona: Any, agent: str,
                          marker: str | None = None) -> None:
        """``agents_dir/FILE.md``: the front matter (``front``, its lines), the persona as the
        body (a value other than a string as JSON), then the marker that attributes the agent's
        requests (docs/driver-api.md#model-gateway), or ``marker`` instead."""
        body = persona if isinstance(persona, str) else "" if persona is None else \
            json.dumps(persona)
        # the marker right after the body, on its last line: cut out, it leaves the body as
        # written (with or without one), whatever the runtime puts after it
        text = "\n".join(["---", *front, "---"]) + "\n" + body + \
            (marker or agent_marker(agent)) + "\n"
        (self.agents_dir / f"{file}.md").write_text(text, encoding="utf-8")

    def _child_definition(self, number: int, preset: PresetSpec | None, agent: str,
                          written: list[str]) -> str:
        """The definition start ``number``'s parent calls the tool with: a fresh one made from
        the preset, its body marked with the new child's agent id (appended to ``written``)."""
        file = f"tck-child-{number}"
        self._write_agent(file, preset.persona if preset else None,
                          preset.toolFilter if preset else None, agent)
        written.append(file)
        return file

    def _link_definition(self, number: int, level: int, link: Lineage,
                         written: list[str]) -> str:
        """The definition standing for ``link`` at ``level`` of start ``number``: ``link``'s
        own, written afresh with the level's start marker instead of its agent's
        (traffic_starts.py; appended to ``written``)."""
        file = f"tck-link-{number}-{level}"
        self._write_agent(file, link.persona, link.tool_filter, link.agent,
                          start_marker(token(number, level)))
        written.append(file)
        return file

    def _admits_tool(self, link: Lineage) -> bool:
        """Whether ``link``, as the adapter writes it, keeps the runtime's delegation tool (by
        default: no filter, or one that names it in its allow list and not in its deny list:
        docs/claude-code.md "Delegation from a child")."""
        tool_filter = link.tool_filter
        if not isinstance(tool_filter, dict):
            return True
        allow, deny = tool_filter.get("allow"), tool_filter.get("deny")
        return (not isinstance(allow, list) or self._names_tool(allow)) and \
            not (isinstance(deny, list) and self.tool in deny)

    def _names_tool(self, names: list[Any]) -> bool:
        """Whether an allow list admits the delegation tool: its name (or, where the runtime
        reads one, a typed entry ``TOOL(type)``)."""
        return self.tool in names

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
    def _run_start(self, start: Start) -> Outcome:
        """Run ``start`` (its top-level session carries ``[subagent-tck start=sN]``, each link
        ``[subagent-tck start=sN-K]``, all answered by :meth:`_drive`) until its child ended,
        with ``start.setting`` as the runtime's depth setting (UNSET: the runtime's default)."""

    @abstractmethod
    def _run_root(self, prompt: str) -> Outcome:
        """One turn of the root agent on ``prompt``, every request of it the kit's to answer."""

    @abstractmethod
    def abort_turn(self, agent: str) -> None: ...

    def _named(self) -> list[str]:
        """The agents a root turn's call of the tool may run: the presets, by the kit's name."""
        return [f"preset:{p}" for p in self.presets]

    # --- refusals --------------------------------------------------------------------------

    # --- the start driver ----------------------------------------------------------------

    def _drive(self, request: ModelRequest, token: str) -> ModelReply:
        """A driven agent of a kit ``start`` (its top-level session or a link): call the tool
        once with the next agent of the chain, keep its result, then end."""
        parsed = parse_token(token)
        with self._lock:
            start = self._starts.get(parsed[0]) if parsed is not None else None
        if start is None or parsed is None or parsed[1] > start.last:
            return ModelReply(text="unknown start", stopReason=self.unknown_start)
        return start.drive(request, parsed[1], self.tool)

    def create_agent(self, *, header_depth: Any = 0, runtime_depth: Any = None,
                     has_runtime_depth: bool = False) -> AgentRef:
        """A top-level agent at depth ``header_depth``: where children delegate (``nesting``)
        an agent at depth d is the d-th of nested subagents, so a start from it runs d
        ancestors the adapter plays (at most :attr:`deepest`, traffic_starts.Lineage), each
        written with no filter of its own; at depth 0 it stands where the top-level session
        does. A runtime depth, or a depth outside the domain, has no such counterpart
        (docs/claude-code.md "Depth")."""
        if not self.nesting:
            return super().create_agent(header_depth=header_depth, runtime_depth=runtime_depth,
                                        has_runtime_depth=has_runtime_depth)
        if has_runtime_depth:
            raise self._unsupported("runtime depth of an agent", "an agent's depth is how deep "
                                    "it is nested, nothing a runtime value may deepen")
        verdict = check_depth(header_depth)
        if verdict.value is None:
            raise self._unsupported(f"agent at the stored depth {header_depth!r}", "it stores "
                                    "no depth: an agent's depth is how deep it is nested")
        depth = verdict.value
        with self._lock:
            name = f"agent-{next(self._ids)}"
        line: Lineage | None = None
        for level in range(1, min(depth, self.deepest + 1)):
            line = Lineage(f"{name}/{level}", "", None, None, level, None,
                           line.chain if line is not None else (), filler=True)
        own = Lineage(name, "", None, None, depth, None, line.chain if line is not None else (),
                      filler=True)
        header = SessionHeader(session=f"{name}-session", delegationDepth=depth)
        with self._lock:
            self.lineage[name] = own
            self.children[name] = header
            self._created.add(name)
        return AgentRef(agent=name, session=header.session, depth=depth)

    def _published(self, agent: str, request: ModelRequest) -> None:
        """A child's first request reached the adapter: it is published now, with what that
        request carries as its snapshot (traffic_starts.py)."""
        with self._lock:
            start = self._pending.get(agent)
            if start is None or start.published:
                return
            start.published = True
            line = start.child
            self.children[agent] = start.header
            self.lineage[agent] = line
        self._event("agent.published", agent, {"depth": line.depth, "snapshot": {
            "view": sorted(t.name for t in request.tools),
            "prompt": [["system", request.system]]}})
        self._event("run.started", agent)

    # --- the Deployment protocol -----------------------------------------------------------

    def root(self) -> AgentRef:
        return AgentRef(agent=ROOT, session=f"{ROOT}-session", depth=0)

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
            self.known_tools[tool.name] = tool
            changed = self._write_tools()
        self._relisted(changed)

    def unregister_tool(self, name: str, agent: str | None = None) -> None:
        if agent is not None:
            raise self._unsupported("scope-local tools", "nothing to unregister")
        with self._lock:
            if not any(t.name == name for t in self.tools):
                raise TckError(ErrorCode.UNKNOWN_TOOL, f"no global tool {name!r}")
            self.tools = [t for t in self.tools if t.name != name]
            changed = self._write_tools()
        self._relisted(changed)

    def _write_tools(self) -> dict[str, set[str]] | None:
        """Give the MCP servers ``self.tools`` (the lock held): the servers whose list changed,
        with their names, when a runtime of this deployment runs (each server tells it its list
        changed), None when none runs (the next one lists them fresh)."""
        changed = self.mcp.write(self.tools)
        return changed if self._listening() else None

    def _relisted(self, changed: dict[str, set[str]] | None) -> None:
        """Wait (the lock not held) until the running runtime has listed each changed server
        again, at most ``relist`` seconds; the deployment goes on either way."""
        if changed and not self.mcp.wait_listed(changed, self.relist):
            self._unlisted()

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
        if agent != ROOT and agent not in self._created:
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

    def prompt(self, agent: str) -> list[Section]:
        self._known(agent)
        seen = self._seen(agent)
        if seen is not None:
            return [Section(name="system", text=seen.system)]
        if (agent == ROOT or agent in self._created) and self.config.persona:
            return [Section(name="persona", text=self.config.persona)]
        return []

    def providers(self) -> list[ProviderInfo]:
        return [provider_info(self.provider, self.depth_limit)] if self._provider else []

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
        schema, a persona or a filter of the call's own is refused (a depth too, unless the
        runtime has a depth setting: ``depth_limit``); its parent is the root, or a child where
        children delegate (``nesting``)."""
        controls = request.controls()
        if request.parent not in self.agents():
            raise TckError(ErrorCode.UNKNOWN_AGENT, f"no agent {request.parent!r}")
        if request.provider != self.provider or not self._provider:
            raise TckError(ErrorCode.NO_PROVIDER, f"no provider {request.provider!r}")
        if "maxDepth" in controls and not self.depth_limit:
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
        if request.parent != ROOT and not (self.nesting and request.parent in self.lineage):
            raise self._unsupported(*self.reasons["start"])
        return preset

    def start(self, request: StartRequest) -> RunResult:
        """A child of the root or of a child: an agent definition made from the preset, run by
        the runtime (:meth:`_run_start`) as its parent's call of the tool, the parent's
        ancestors played by the start driver (traffic_starts.py); published at its first
        request. A start the runtime refused before the child asked its model publishes
        nothing and is refused here (traffic_starts.refusal)."""
        preset = self._start_preset(request)
        persona = preset.persona if preset else None
        tool_filter = preset.toolFilter if preset else None
        with self._lock:
            number = next(self._ids)
            parent = self.lineage.get(request.parent)
        links = parent.chain if parent is not None else ()
        written: list[str] = []  # the definitions this start wrote (its own to remove)
        file = self._child_definition(number, preset, f"child-{number}", written)
        child = Lineage(f"child-{number}", file, persona, tool_filter, len(links) + 1,
                        request.parent, links)
        link_files = tuple(self._link_definition(number, level, link, written)
                           for level, link in enumerate(links, 1))
        descriptor: dict[str, Any] = {"provider": self.provider}
        if preset is not None:
            descriptor["preset"] = preset.name
        header = SessionHeader(session=f"{child.agent}-session", parent=f"{request.parent}-session",
                               delegationDepth=child.depth, descriptor=descriptor)
        start = Start(number, child, request.prompt, links, link_files, header,
                      setting=request.maxDepth if "maxDepth" in request.controls()
                      else self.host_depth, call_prefix=self.call_prefix,
                      probe=parent is not None and parent.truncated)
        with self._lock:
            self._starts[number] = start
            self._pending[child.agent] = start
        try:
            stop, output, results = self._run_start(start)
        except TckError:
            if start.published:
                self._event("run.stopped", child.agent, {"stopReason": StopReason.ERROR.value})
            raise
        finally:
            with self._lock:
                self._pending.pop(child.agent, None)
            for file in written:  # the child's stays once it is published
                if start.published and file == child.file:
                    continue
                (self.agents_dir / f"{file}.md").unlink(missing_ok=True)
        if not start.published:
            if start.reached:
                raise self._unsupported(f"agent as deep as {request.parent} (depth "
                                        f"{parent.depth if parent else 0})",
                                        f"its depth is how deep it is nested, and "
                                        f"{self.runtime} let a chain of {len(links)} nested "
                                        "agents through: the adapter builds no deeper one")
            raise refusal(start, self.runtime, self.tool, self.refusal_words, self._admits_tool,
                          output if isinstance(output, str) else json.dumps(output))
        self._event("run.stopped", child.agent, {"stopReason": stop.value})
        return RunResult(agent=child.agent, session=header.session, depth=child.depth,
                         stopReason=stop, output=output, toolResults=results)

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

    def set_host_depth(self, value: Any) -> None:
        """The runtime's depth setting for the runs that follow, where it has one (the value as
        given: the runtime reads it); INVALID_CONFIG where it has none (no component lists
        it)."""
        if not self.depth_limit:
            raise self._no_component(*self.reasons["set_host_depth"])
        with self._lock:
            self.host_depth = value

    def close(self) -> None:
        """The route unmounted and the directory removed (a subclass stops its runtime first)."""
        self._proxy.unmount(self.name)
        shutil.rmtree(self.dir, ignore_errors=True)
