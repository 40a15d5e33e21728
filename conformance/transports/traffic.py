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
from collections.abc import Collection
from pathlib import Path
from typing import Any, ClassVar, Generic

from subagent_tck.conformance.core.protocol import (
    AgentRef,
    DeploymentConfig,
    Event,
    Invocation,
    ModelRequest,
    Observation,
    PresetSpec,
    ProviderInfo,
    RunResult,
    Section,
    SectionSpec,
    SessionHeader,
    ToolSchema,
    ToolSpec,
    ViewEntry,
)
from subagent_tck.conformance.transports.gateway_anthropic import agent_marker
from subagent_tck.conformance.transports.traffic_delegation import ROOT, Delegation, Outcome
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
)
from subagent_tck.spec import (
    ErrorCode,
    Origin,
    PresentationMode,
    StopReason,
    TckError,
)


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


def guided_servers(config: DeploymentConfig, default: str) -> dict[str, list[SectionSpec]]:
    """The sections of ``config`` that guide a tool alone on a server of its own, by server
    (a tool on the default server, or beside others, has no instructions of its own)."""
    by_server: dict[str, list[str]] = {}
    for tool in config.tools:
        if isinstance(tool.server, str) and tool.server and tool.server != default:
            by_server.setdefault(tool.server, []).append(tool.name)
    alone = {names[0]: server for server, names in by_server.items() if len(names) == 1}
    out: dict[str, list[SectionSpec]] = {}
    for section in config.sections:
        if section.guides is not None and section.guides in alone:
            out.setdefault(alone[section.guides], []).append(section)
    return out


class TrafficDeployment(Delegation, Generic[R]):
    """A deployment of a runtime seen from its model traffic: a fresh directory (``project``,
    ``home``, the MCP server's files), the kit's global tools on the MCP echo server, the
    presets as project agents, one root agent and the children its starts publish."""

    agents_folder: ClassVar[str]  # where agent definitions go, below the project directory
    temp_prefix: ClassVar[str]  # of the deployment's directory
    #: The name of the MCP server of the kit's tools that name none (traffic_servers.py).
    server: ClassVar[str] = "tck"
    #: How long a tool change waits for a running runtime to list the MCP tools again, in s.
    relist: ClassVar[float] = 2.0
    #: Whether a section that guides a tool alone on its server (``ToolSpec.server``) becomes
    #: that server's MCP instructions, the runtime's own guidance (``TargetInfo.toolGuidance``,
    #: docs/rules.md#TF-16); such a section is then in no system text the adapter writes.
    guidance_as_instructions: ClassVar[bool] = False
    #: Whether the adapter writes a preset's own tools (``PresetSpec.tools``) into the agent
    #: definitions made from it (``TargetInfo.presetTools``): ``_write_agent`` then takes
    #: ``tools``. Without it, a preset with tools is refused when deployed.
    preset_tools: ClassVar[bool] = False

    name: str
    route: R
    url: str  # the deployment's model endpoint (its route's base URL)

    def _instruct(self, config: DeploymentConfig) -> set[str]:
        """Give each server whose one tool a section guides that section's text as its
        instructions; the names of the sections so given."""
        given: set[str] = set()
        for server, sections in guided_servers(config, self.mcp.default).items():
            self.mcp.instruct(server, "\n\n".join(s.text for s in sections))
            given |= {s.name for s in sections}
        return given

    def __init__(self, config: DeploymentConfig) -> None:
        if config.mode is not PresentationMode.NATIVE:
            raise self._unsupported(f"{config.mode.value} presentation mode",
                                    "every tool is a native tool schema (no run_code)")
        if not self.preset_tools and any(p.tools for p in config.presets):
            raise self._unsupported("tools that a preset gives its children", "an agent "
                                    "definition of this adapter names no tools of its own")
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
        #: the sections given as their tool's server instructions (guidance_as_instructions)
        self.instructed = self._instruct(config) if self.guidance_as_instructions else set()
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

    @property
    def preset_files(self) -> dict[str, str]:
        """Each preset's definition (its agent type, without the extension), by preset name."""
        return {p.name: f"tck-preset-{i}-{slug(p.name)}"
                for i, p in enumerate(self.config.presets)}

    def _write_presets(self) -> None:
        """Each preset as a project agent, which a root turn may call the tool with (its spawn
        policy where the runtime has one: :meth:`_policy`)."""
        files = self.preset_files
        for preset in self.config.presets:
            self._write_agent(files[preset.name], preset.persona,
                              preset.toolFilter, f"preset:{preset.name}",
                              model=preset.model if self.model_selection else None,
                              **self._policy(preset.spawnPolicy), **self._locals(preset))

    # --- what the runtime brings ---------------------------------------------------------

    @abstractmethod
    def _write_agent(self, file: str, persona: Any, tool_filter: Any, agent: str,
                     marker: str | None = None, model: str | None = None) -> None:
        """The agent definition ``file`` in ``agents_dir``: persona, tool filter and the marker
        of the kit's ``agent`` (or ``marker``: a start's link, traffic_starts.py); an adapter
        that advertises spawnPolicy also takes ``spawn_policy`` (:meth:`_policy`)
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

    @abstractmethod
    def _own_tools(self) -> list[ToolSchema]:
        """The runtime's own tools its root is offered before its first run."""

    @abstractmethod
    def _listening(self) -> bool:
        """Whether a runtime of this deployment runs now (the lock held): it is told of a
        changed tool list, and the change waits until it has listed the tools again."""

    def _listened_servers(self) -> Collection[str] | None:
        """The MCP servers the running runtime was started with (the lock held), when it
        reads its list of servers only when it starts: a server that came later is not one it
        will list, so a change on it is not waited for. None: every server of the deployment."""
        return None

    def _unlisted(self) -> None:
        """A running runtime did not list the changed tools within ``relist``: it keeps its
        list (a subclass may read its configuration again at the next run)."""

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
                                             origin=Origin.LOCAL if r.get("origin") == "local"
                                             else Origin.GLOBAL, arguments=r.get("arguments"))
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
            mark = self._tools_mark()
            changed = self._write_tools()
        self._relisted(changed, mark)

    def unregister_tool(self, name: str, agent: str | None = None) -> None:
        if agent is not None:
            raise self._unsupported("scope-local tools", "nothing to unregister")
        with self._lock:
            if not any(t.name == name for t in self.tools):
                raise TckError(ErrorCode.UNKNOWN_TOOL, f"no global tool {name!r}")
            self.tools = [t for t in self.tools if t.name != name]
            mark = self._tools_mark()
            changed = self._write_tools()
        self._relisted(changed, mark)

    def _write_tools(self) -> dict[str, set[str]] | None:
        """Give the MCP servers ``self.tools`` (the lock held): the servers whose list changed,
        with their names, when a runtime of this deployment runs (each server tells it its list
        changed), None when none runs (the next one lists them fresh)."""
        changed = self.mcp.write(self.tools)
        if not self._listening():
            return None
        known = self._listened_servers()
        return changed if known is None else {s: n for s, n in changed.items() if s in known}

    def _relisted(self, changed: dict[str, set[str]] | None, mark: Any) -> None:
        """Wait (the lock not held) until the running runtime has listed each changed server
        again and taken the new list in (:meth:`_taken_in`), at most ``relist`` seconds for
        each; the deployment goes on either way."""
        if changed and not (self.mcp.wait_listed(changed, self.relist)
                            and self._taken_in(set(changed), mark, self.relist)):
            self._unlisted()

    def _tools_mark(self) -> Any:
        """What :meth:`_taken_in` compares with, read (the lock held) before the tool list is
        written; None by default."""
        return None

    def _taken_in(self, servers: set[str], mark: Any, timeout: float) -> bool:
        """Whether the running runtime has taken in the list it was answered since ``mark``
        (at most ``timeout`` seconds), for a runtime that says so after it listed: an answer
        served is not yet a list the next request is composed from. True by default (the
        answer is the runtime's list)."""
        return True

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
        return [provider_info(self.provider, self.depth_limit, self.model_selection,
                              self.spawn_policy, self.delegation_tool)] \
            if self._provider else []

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

    def close(self) -> None:
        """The route unmounted and the directory removed (a subclass stops its runtime first)."""
        self._proxy.unmount(self.name)
        shutil.rmtree(self.dir, ignore_errors=True)
