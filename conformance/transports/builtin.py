"""The built-in target: the reference runtime behind the Target/Deployment protocols.

``reference_target()`` is what ``--target reference`` certifies. :class:`ReferenceTarget` is made
to be extended: ``providers`` replaces the reference's providers (spawn, fork, acp),
``extra_providers`` adds more (a Python provider certified while hosted by the reference
runtime), ``host_class`` swaps the :class:`~subagent_tck.reference.Host` (the zoo of broken
runtimes subclasses one reference class), and ``make_providers`` / ``make_host`` /
``deployment_class`` can be overridden in a subclass.

Each deployment is one fresh Host over its own SQLite store (``":memory:"``, or a temporary file
that :meth:`ReferenceDeployment.close` removes). The Host's model is the kit's gateway: every
request is sent as a :class:`~.protocol.ModelRequest` whose ``agent`` is the requesting agent's
id. Tools registered through the driver get an echo body that returns
``{"tool", "origin", "arguments"}`` and logs an :class:`~.protocol.Invocation`.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from typing import Any

from subagent_tck import reference as ref
from subagent_tck.conformance.transports.builtin_wire import (
    GatewayModel,
    fresh,
    tool_result,
    view_entry,
)
from subagent_tck.reference.host import COMPONENT_MODULE
from subagent_tck.spec import (
    ABSENT,
    PERSONA_SECTION,
    Capability,
    Component,
    Edition,
    ErrorCode,
    Origin,
    PresentationMode,
    Preset,
    TckError,
)

from ..core.dialect import ChannelKind, RestrictionChannel
from ..core.gateway import Gateway
from ..core.protocol import (
    AgentRef,
    DeploymentConfig,
    Event,
    Invocation,
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
    ToolResult,
    ToolSchema,
    ToolSpec,
    ViewEntry,
    given,
)

ProviderSource = Iterable[ref.Provider] | Callable[[], Iterable[ref.Provider]]
#: The entry points the reference puts a restriction on a scope through
#: (docs/driver-api.md#dialect): live restrictions, a child's composition, the root's preset.
CHANNELS = (RestrictionChannel(kind=ChannelKind.LIVE), RestrictionChannel(kind=ChannelKind.CHILD),
            RestrictionChannel(kind=ChannelKind.ROOT))


def _version() -> str:
    try:
        return metadata.version("subagent-tck")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0.0.0"


def subagent_tool_installed() -> bool:
    """True when the reference ships the ``subagent`` tool component."""
    try:
        return importlib.util.find_spec(COMPONENT_MODULE) is not None
    except ModuleNotFoundError:  # pragma: no cover - parent package missing
        return False


def _provider_info(provider: ref.Provider) -> ProviderInfo:
    caps = [c for c in Capability if c in provider.capabilities]
    return ProviderInfo(
        name=provider.name,
        capabilities=caps,
        inheritsParentContext=provider.inherits_parent_context,
    )


class ReferenceDeployment:
    """One fresh Host behind the Deployment protocol."""

    def __init__(
        self,
        host: ref.Host,
        catalogue: Mapping[str, ref.Provider],
        temp_dir: str | None = None,
        tools: Iterable[ToolSpec] = (),
    ) -> None:
        self.host = host
        self._catalogue = dict(catalogue)
        self._temp_dir = temp_dir
        self._invocations: list[Invocation] = []
        #: conversions kept between reads (see sessions() and events()); callers get the same
        #: (read-only) models again, as a target over the wire would send the same JSON
        self._sessions: tuple[object, list[SessionHeader]] = ((), [])
        self._events: list[Event] = []
        try:
            for tool in tools:
                self.register_tool(tool)
            self._root = host.create_agent()
        except BaseException:
            self.close()
            raise

    # --- agents and sessions ----------------------------------------------------------------

    def _ref(self, agent: ref.Agent) -> AgentRef:
        return AgentRef(agent=agent.id, session=agent.session, depth=agent.depth)

    def root(self) -> AgentRef:
        return self._ref(self._root)

    def start_root_from(self, preset: Any) -> None:
        """The root agent started from ``preset`` (``DeploymentConfig.rootPreset``, the ``root``
        restriction channel, docs/driver-api.md#dialect): the preset's tool filter and spawn
        policy installed on the root's scope and its persona as the root's persona section, as
        a child composed from it would get them."""
        known = self.host.presets.get(preset) if isinstance(preset, str) else None
        if known is None:
            raise TckError(ErrorCode.UNKNOWN_PRESET, f"no preset {preset!r} to start the root "
                           "from: name one of the deployment's presets")
        if known.tool_filter is not None:
            self.host.restrict(self._root.id, known.tool_filter)
        if known.spawn_policy is not None:
            self.host.install_spawn_policy(self._root.id, known.spawn_policy)
        if known.persona is not None:
            self.host.add_section(ref.PromptSection(PERSONA_SECTION, known.persona),
                                  self._root.id)

    def create_agent(
        self, *, header_depth: Any = 0, runtime_depth: Any = None, has_runtime_depth: bool = False
    ) -> AgentRef:
        runtime = runtime_depth if has_runtime_depth else ABSENT
        return self._ref(self.host.create_agent(header_depth=header_depth, runtime_depth=runtime))

    def put_session_header(self, header: SessionHeader) -> None:
        from subagent_tck.reference.store import depth_text

        self.host.store.put_header(
            header.session, header.parent, depth_text(header.delegationDepth), header.descriptor
        )

    def resume(self, session: str) -> AgentRef:
        return self._ref(self.host.resume(session))

    def sessions(self) -> list[SessionHeader]:
        headers = self.host.sessions()
        if headers is not self._sessions[0]:  # the store read them again: convert again
            self._sessions = (headers, [
                SessionHeader(
                    session=h.session,
                    parent=h.parent,
                    delegationDepth=h.raw_depth(),
                    descriptor=None if h.descriptor is None else dict(h.descriptor),
                )
                for h in headers
            ])
        return list(self._sessions[1])

    def agents(self) -> list[str]:
        return [a.id for a in self.host.agents()]

    def events(self) -> list[Event]:
        logged = self.host.events.events()
        # the log is append-only: convert only what was logged since the last read
        self._events.extend(
            Event(seq=e.seq, kind=e.kind, agent=e.agent, session=e.session, data=dict(e.data))
            for e in logged[len(self._events):]
        )
        return list(self._events)

    def invocations(self) -> list[Invocation]:
        return list(self._invocations)

    def observe(self) -> Observation:
        return Observation(sessions=self.sessions(), agents=self.agents(), events=self.events(),
                           invocations=self.invocations())

    # --- tools, restrictions, presentation ----------------------------------------------------

    def _echo_tool(self, spec: ToolSpec, origin: Origin) -> ref.Tool:
        def body(arguments: Mapping[str, Any], context: ref.ExecutionContext) -> dict[str, Any]:
            args = dict(arguments)
            self._invocations.append(
                Invocation(tool=spec.name, agent=context.agent, origin=origin, arguments=args)
            )
            return {"tool": spec.name, "origin": origin.value, "arguments": args}

        return ref.Tool(spec.name, body, spec.description, dict(spec.parameters))

    def register_tool(self, tool: ToolSpec, agent: str | None = None) -> None:
        origin = Origin.GLOBAL if agent is None else Origin.LOCAL
        copied = tool.model_copy(update={"name": fresh(tool.name)})
        self.host.register_tool(self._echo_tool(copied, origin), agent)

    def give_preset_tools(self, presets: Iterable[PresetSpec]) -> None:
        """Each preset's own tools (``PresetSpec.tools``), as the local tools of every child
        composed from it (docs/driver-api.md#dialect, ``presetTools``)."""
        for preset in presets:
            if preset.tools:
                tools = [self._echo_tool(t.model_copy(update={"name": fresh(t.name)}),
                                         Origin.LOCAL) for t in preset.tools]
                self.host.add_preset(preset.name, self.host.presets[preset.name], tools)

    def unregister_tool(self, name: str, agent: str | None = None) -> None:
        self.host.unregister_tool(name, agent)

    def install_restriction(self, agent: str, restriction: Any) -> str:
        return self.host.restrict(agent, restriction)

    def dispose_restriction(self, agent: str, handle: str) -> None:
        self.host.dispose_restriction(agent, handle)

    def install_spawn_policy(self, agent: str, policy: Any) -> str:
        return self.host.install_spawn_policy(agent, policy)

    def dispose_spawn_policy(self, agent: str, handle: str) -> None:
        self.host.dispose_spawn_policy(agent, handle)

    def set_mode(self, agent: str, mode: PresentationMode) -> None:
        self.host.set_mode(agent, mode)

    def _entry(self, entry: ref.ResolvedTool) -> ViewEntry:
        return view_entry(entry.name, entry.origin, entry.tool.description)

    def view(self, agent: str | None = None) -> list[ViewEntry]:
        return [self._entry(e) for e in self.host.view(agent)]

    def tool_schemas(self, agent: str) -> list[ToolSchema]:
        return [
            ToolSchema(name=s.name, description=s.description, parameters=dict(s.parameters))
            for s in self.host.tool_schemas(agent)
        ]

    def lookup(self, agent: str, name: str) -> ViewEntry | None:
        entry = self.host.lookup(agent, fresh(name))
        return None if entry is None else self._entry(entry)

    def execute(self, agent: str, name: str, arguments: dict[str, Any]) -> ToolResult:
        return tool_result(self.host.execute(agent, fresh(name), arguments))

    def sdk_bindings(self, agent: str) -> list[str]:
        return list(self.host.sdk_bindings(agent))

    def run_code(self, agent: str, calls: list[SdkCall]) -> list[ToolResult]:
        program = [(fresh(c.name), c.arguments) for c in calls]
        return [tool_result(r) for r in self.host.run_code(agent, program)]

    def prompt(self, agent: str) -> list[Section]:
        return [Section(name=s.name, text=s.text) for s in self.host.prompt(agent)]

    # --- providers and children ---------------------------------------------------------------

    def providers(self) -> list[ProviderInfo]:
        return [_provider_info(p) for p in self.host.providers.all()]

    def remove_provider(self, name: str) -> None:
        self.host.remove_provider(fresh(name))

    def add_provider(self, name: str) -> None:
        provider = self._catalogue.get(name)
        if provider is None:
            raise TckError(
                ErrorCode.NO_PROVIDER,
                f"this target has no provider named {name!r}; it ships "
                + ", ".join(self._catalogue),
            )
        self.host.add_provider(provider)

    def faults(self) -> list[tuple[str, str, str]]:
        """What a provider raised while running a child: (provider, exception, traceback).
        Not part of the Deployment protocol: the runner reads it, where a target has it, as
        the cause of the failures a check finds (docs/certify.md#reading-a-certificate)."""
        return list(self.host.provider_faults)

    def _run(self, result: ref.RunResult) -> RunResult:
        return RunResult(
            agent=result.agent,
            session=result.session,
            depth=result.depth,
            stopReason=result.stop_reason,
            output=result.output,
            toolResults=[tool_result(r) for r in result.tool_results],
        )

    def start(self, request: StartRequest) -> RunResult:
        body: dict[str, Any] = {"provider": request.provider, "prompt": request.prompt}
        body.update(request.controls())
        return self._run(self.host.start_and_run(request.parent, body))

    def run_turn(self, agent: str, prompt: str) -> RunResult:
        return self._run(self.host.run_turn(agent, prompt))

    def abort_turn(self, agent: str) -> None:
        self.host.abort_turn(agent)

    # --- the subagent tool component and host settings --------------------------------------

    def load_subagent_tool(self, config: SubagentToolConfig) -> None:
        self.host.load_subagent_tool({k: fresh(v) for k, v in given(config).items()})

    def unload_subagent_tool(self, tool_name: str) -> None:
        self.host.unload_subagent_tool(tool_name)

    def set_host_depth(self, value: Any) -> None:
        self.host.set_host_depth(value)

    def set_runtime_context(self, enabled: bool) -> None:
        self.host.set_runtime_context(enabled)

    def close(self) -> None:
        self.host.close()
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None


class ReferenceTarget:
    """The reference runtime as a certifiable target."""

    host_class: type[ref.Host] = ref.Host
    deployment_class: type[ReferenceDeployment] = ReferenceDeployment

    def __init__(
        self,
        *,
        providers: ProviderSource | None = None,
        extra_providers: ProviderSource = (),
        host_class: type[ref.Host] | None = None,
        store: str = "memory",
        name: str = "reference",
        version: str | None = None,
    ) -> None:
        if store not in ("memory", "file"):
            raise TckError(ErrorCode.INVALID_CONFIG, "store is 'memory' or 'file'")
        self._providers = providers
        self._extra = extra_providers
        if host_class is not None:
            self.host_class = host_class
        self.store = store
        self.name = name
        self.version = version or _version()

    @staticmethod
    def _list(source: ProviderSource) -> list[ref.Provider]:
        return list(source() if callable(source) else source)

    def make_providers(self) -> list[ref.Provider]:
        """The providers of a fresh deployment (override to replace or add)."""
        base = ref.default_providers() if self._providers is None else self._list(self._providers)
        return [*base, *self._list(self._extra)]

    def components(self) -> list[Component]:
        return [Component.SUBAGENT_TOOL] if subagent_tool_installed() else []

    def info(self) -> TargetInfo:
        return TargetInfo(
            name=self.name,
            version=self.version,
            editions=[Edition.PRESET_COMPOSITION, Edition.REQUEST_CONTROLS],
            components=self.components(),
            providers=[_provider_info(p) for p in self.make_providers()],
            restrictionChannels=list(CHANNELS),
            presetTools="a preset's tools are registered on each child composed from it as "
                        "scope-local tools, after its filter",
        )

    def make_host(
        self, config: DeploymentConfig, model: ref.Model, store: str, providers: list[ref.Provider]
    ) -> ref.Host:
        host = self.host_class(
            model,
            store,
            edition=config.edition,
            persona=config.persona,
            variables=config.variables,
            sections=[ref.PromptSection(fresh(s.name), s.text, s.guides)
                      for s in config.sections],
            providers=providers,
            host_depth=config.hostDepth,
            runtime_context=config.runtimeContext,
            mode=config.mode,
            root_model=config.model,
        )
        try:
            for preset in config.presets:
                host.add_preset(
                    preset.name, Preset(preset.persona, preset.toolFilter, preset.outputSchema,
                                        preset.spawnPolicy, preset.model)
                )
        except BaseException:
            host.close()
            raise
        return host

    def deploy(self, config: DeploymentConfig, gateway: Gateway) -> ReferenceDeployment:
        if "permissions" in config.model_fields_set:
            raise TckError(ErrorCode.INVALID_CONFIG, "the reference has no permission rules: it "
                           "restricts a scope live (install-restriction), from a preset or as "
                           "the root's preset (rootPreset); docs/driver-api.md#dialect")
        temp_dir = tempfile.mkdtemp(prefix="subagent-tck-") if self.store == "file" else None
        path = ":memory:" if temp_dir is None else os.path.join(temp_dir, "sessions.sqlite")
        providers = self.make_providers()
        try:
            host = self.make_host(config, GatewayModel(gateway), path, providers)
        except BaseException:
            if temp_dir is not None:
                shutil.rmtree(temp_dir, ignore_errors=True)
            raise
        catalogue = {p.name: p for p in providers}
        deployment = self.deployment_class(host, catalogue, temp_dir, config.tools)
        try:
            deployment.give_preset_tools(config.presets)
        except BaseException:
            deployment.close()
            raise
        if "rootPreset" in config.model_fields_set:
            try:
                deployment.start_root_from(config.rootPreset)
            except BaseException:
                deployment.close()
                raise
        return deployment

    def close(self) -> None:
        """Deployments are closed by their owners; the target holds nothing."""


def reference_target(
    *, extra_providers: ProviderSource = (), store: str = "memory"
) -> ReferenceTarget:
    """The built-in target (``--target reference``)."""
    return ReferenceTarget(extra_providers=extra_providers, store=store)
