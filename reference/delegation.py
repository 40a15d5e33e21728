"""Starting a child, running it, and resuming a child cold (CA, DE, EN, FR families).

:class:`ChildStart` is one pipeline of named steps, run in this order:

1. ``parse_request``: malformed input is INVALID_REQUEST / UNKNOWN_AGENT;
2. ``select_provider``: NO_PROVIDER (CA-05); ``select_preset``: UNKNOWN_PRESET;
3. ``check_edition``: REQUEST_CONTROLS_REFUSED for persona/toolFilter in preset-composition (EN-02);
4. ``compose``: the effective controls (the request's value over the preset's; null is absent,
   except for maxDepth, where null is a value outside the depth domain);
5. ``gate_capabilities``: UNSUPPORTED_CAPABILITY for every control asked by request or preset,
   before any value check and before the provider is called (CA-01..03);
   ``check_spawn_policy``: SPAWN_DENIED when the parent's spawn policies refuse the preset
   (SP-01; a start that names no preset is outside every policy);
6. ``decide_depth``: :func:`spec.decide_start_depth` over ``maxDepth``, the parent's *stored*
   header and its runtime depth (DE-01..03, DE-05..08, DE-10);
7. ``setup_unpublished``: a private agent with scope gets the tool filter as a restriction, the
   persona as a scoped ``deployment:persona-prefix`` section, ``structured_output`` for an output
   schema, its own spawn policy, its model (the composed one, else its parent's: MO-01) and its
   seed messages; any failure runs ``rollback`` and re-raises (FR-03);
8. ``publish``: the header (delegationDepth, descriptor) is stored, the agent becomes visible and
   ``agent.published`` records the view and prompt it has at that moment (FR-01, FR-02).

Nothing before ``publish`` is observable, so a rejection creates nothing (DE-04, CA-02).
:class:`Resume` re-applies a stored descriptor the same way (FR-04) and restores the header depth
(DE-09). :class:`Run` runs a published child once and is disposed on every path.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from typing import Any, Protocol, cast

from subagent_tck.spec import (
    ABSENT,
    FIELD_CAPABILITY,
    PERSONA_SECTION,
    STRUCTURED_OUTPUT,
    Capability,
    Edition,
    ErrorCode,
    PresentationMode,
    Preset,
    StopReason,
    TckError,
    admits_preset,
    decide_start_depth,
    model_problem,
    read_json_number,
)

from .agent import Agent
from .descriptor import Descriptor, check_output_schema, filter_json
from .events import RUN_DISPOSED, RUN_STARTED, RUN_STOPPED, EventLog
from .loop import RunResult
from .prompt import PromptSection, render_strict
from .provider import Provider, ProviderHost, ProviderRegistry
from .tool import AbortSignal, ExecutionContext, Tool, ToolResult


class DelegationHost(ProviderHost, Protocol):
    """What a start, a resume and a run need of the host that owns them (the host sits above
    delegation and hands itself in: :class:`~.host.Host` is one)."""

    edition: Edition
    variables: dict[str, str]
    presets: dict[str, Preset]
    #: each preset's own tools, a child's scope-local tools when composed from it (TF-04)
    preset_tools: dict[str, tuple[Tool, ...]]
    events: EventLog
    providers: ProviderRegistry
    #: what a provider raised while running a child: (provider, exception, traceback)
    provider_faults: list[tuple[str, str, str]]

    def agent(self, agent_id: object) -> Agent:
        """A published agent, or UNKNOWN_AGENT."""
        ...

    def new_agent(
        self, *, depth: int, runtime_depth: object = ABSENT, parent: str | None = None,
        provider: str | None = None, mode: PresentationMode | None = None,
        session: str | None = None,
    ) -> Agent:
        """A private (unpublished) agent with a fresh scope."""
        ...

    def publish(
        self, agent: Agent, parent_session: str | None, descriptor: Mapping[str, Any] | None,
        *, write_header: bool = True,
    ) -> None:
        """Make an agent observable (FR-02)."""
        ...

    def discard(self, agent: Agent) -> None:
        """Roll back a private agent."""
        ...

    def retire(self, agent: Agent) -> None:
        """Unpublish a live agent."""
        ...

    def retire_session_agents(self, session: str) -> None: ...

    def live_agent_of(self, session: str | None) -> str | None: ...

    def restore_messages(self, agent: Agent) -> None: ...

    def session_model(self, session: str | None) -> str | None:
        """The model a stored session runs on (MO-02 on cold resume)."""
        ...

REQUEST_KEYS = ("provider", "prompt", "maxDepth", "preset", "persona", "toolFilter", "outputSchema",
                "spawnPolicy", "model")


def structured_output_tool(agent: Agent, schema: Mapping[str, Any]) -> Tool:
    """The scope-local tool that carries an output schema (FR-01): calling it hands over the
    child's structured result."""

    def body(arguments: Mapping[str, Any], context: ExecutionContext) -> ToolResult:
        agent.structured_output = dict(arguments)
        return ToolResult(content={"accepted": True})

    return Tool(STRUCTURED_OUTPUT, body, "Hand over your final result in this shape.", schema)


class Composition:
    """Applies persona, tool filter, output schema, spawn policy and model to an unpublished
    agent (shared by :class:`ChildStart` and :class:`Resume`)."""

    host: DelegationHost

    def install_tool_filter(self, agent: Agent, value: object) -> dict[str, Any] | None:
        """Install the filter as a restriction in the agent's scope (TF family)."""
        if value is ABSENT:
            return None
        agent.scope.restrict(value)  # validated: a mapping naming only registered globals
        return filter_json(cast("Mapping[str, Any]", value))

    def install_persona(self, agent: Agent, value: object) -> str | None:
        """Register the persona as the scoped persona section (PE-01, PE-03, PE-05)."""
        if value is ABSENT:
            return None
        if not isinstance(value, str):
            raise TckError(
                ErrorCode.INVALID_REQUEST,
                f"persona must be a string template, got {type(value).__name__}",
            )
        render_strict(value, self.host.variables, "persona")
        agent.scope.add_section(PromptSection(PERSONA_SECTION, value))
        return value

    def install_output_schema(self, agent: Agent, value: object) -> dict[str, Any] | None:
        """Install ``structured_output`` with the schema as its parameters (FR-01, FR-03)."""
        if value is ABSENT:
            return None
        schema = check_output_schema(value)
        agent.scope.add_local(structured_output_tool(agent, schema))
        return schema

    def install_spawn_policy(self, agent: Agent, value: object) -> dict[str, Any] | None:
        """Install the child's own spawn policy over the deployment's presets (SP-01)."""
        if value is ABSENT:
            return None
        agent.scope.restrict_spawn(value, self.host.presets)  # validated: a mapping of lists
        return filter_json(cast("Mapping[str, Any]", value))

    def install_model(self, agent: Agent, value: object, inherited: str | None) -> str | None:
        """The model the child runs on: the composed one, else ``inherited`` (MO-01)."""
        if value is ABSENT:
            agent.model = inherited
            return None
        problem = model_problem(value)
        if problem:
            raise TckError(ErrorCode.INVALID_REQUEST, problem + "; name a model or leave it out")
        agent.model = cast(str, value)
        return agent.model

    def rollback(self, agent: Agent) -> None:
        """Drop everything setup made: the agent was never published, so nothing is seen."""
        self.host.discard(agent)


class ChildStart(Composition):
    def __init__(
        self, host: DelegationHost, parent: str, request: Mapping[str, Any],
        signal: AbortSignal | None,
    ) -> None:
        self.host = host
        self.parent_id = parent
        self.raw_request = request
        self.signal = signal or AbortSignal()
        self.asked: dict[str, object] = {}
        self.preset_name: str | None = None
        self.preset = Preset()

    def run(self) -> Run:
        self.parse_request()
        self.select_provider()
        self.select_preset()
        self.check_edition()
        self.compose()
        self.gate_capabilities()
        self.check_spawn_policy()
        self.decide_depth()
        child = self.create_private_agent()
        try:
            descriptor = self.setup_unpublished(child)
        except BaseException:
            self.rollback(child)
            raise
        self.publish(child, descriptor)
        return Run(self.host, child, self.provider, self.prompt, self.signal)

    def parse_request(self) -> None:
        self.parent = self.host.agent(self.parent_id)
        request = self.raw_request
        if not isinstance(request, Mapping):
            raise TckError(ErrorCode.INVALID_REQUEST, "a start request is a JSON object")
        unknown = sorted(str(k) for k in request if k not in REQUEST_KEYS)
        if unknown:
            raise TckError(
                ErrorCode.INVALID_REQUEST,
                f"unknown start request field(s) {', '.join(unknown)}; use "
                + ", ".join(REQUEST_KEYS),
            )
        prompt = request.get("prompt")
        if not isinstance(prompt, str):
            raise TckError(ErrorCode.INVALID_REQUEST, "a start request needs a string prompt")
        self.prompt = prompt
        self.request = dict(request)

    def select_provider(self) -> None:
        provider = self.host.providers.get(self.request.get("provider"))
        if provider is None:
            names = ", ".join(p.name for p in self.host.providers.all()) or "none"
            raise TckError(
                ErrorCode.NO_PROVIDER,
                f"no provider named {self.request.get('provider')!r}; registered: {names}",
            )
        self.provider: Provider = provider

    def select_preset(self) -> None:
        if "preset" not in self.request:
            return
        name = self.request["preset"]
        preset = self.host.presets.get(name) if isinstance(name, str) else None
        if preset is None:
            raise TckError(
                ErrorCode.UNKNOWN_PRESET,
                f"no preset named {name!r}; define it in the deployment first",
            )
        self.preset_name, self.preset = str(name), preset

    def check_edition(self) -> None:
        if self.host.edition is not Edition.PRESET_COMPOSITION:
            return
        carried = [k for k in ("persona", "toolFilter") if k in self.request]
        if carried:
            raise TckError(
                ErrorCode.REQUEST_CONTROLS_REFUSED,
                f"{' and '.join(carried)} in a start request are refused in the "
                "preset-composition edition (EN-02); put them in a preset and start with it",
                {"fields": carried},
            )

    def compose(self) -> None:
        request = {k: v for k, v in self.request.items() if v is not None or k == "maxDepth"}
        preset = self.preset

        def pick(key: str, preset_value: object) -> object:
            return request.get(key, ABSENT if preset_value is None else preset_value)

        self.asked = {
            "maxDepth": request.get("maxDepth", ABSENT),
            "persona": pick("persona", preset.persona),
            "toolFilter": pick("toolFilter", preset.tool_filter),
            "outputSchema": pick("outputSchema", preset.output_schema),
            "spawnPolicy": pick("spawnPolicy", preset.spawn_policy),
            "model": pick("model", preset.model),
        }

    def gate_capabilities(self) -> None:
        for key, value in self.asked.items():
            capability = FIELD_CAPABILITY[key]
            if value is not ABSENT and not self.provider.supports(capability):
                raise unsupported(self.provider, capability, key)

    def check_spawn_policy(self) -> None:
        """The parent's spawn policies must admit the preset (SP-01)."""
        name = self.preset_name
        if name is not None and not admits_preset(self.parent.scope.spawn_policies(), name):
            raise TckError(
                ErrorCode.SPAWN_DENIED,
                f"the spawn policies of agent {self.parent.id} refuse the preset {name!r} "
                "(SP-01); start a preset they admit, or dispose of the policy",
                {"preset": name, "agent": self.parent.id},
            )

    def decide_depth(self) -> None:
        header = self.host.store.header(self.parent.session)
        try:
            stored: object = read_json_number(header.depth_json)
        except ValueError:
            stored = float("nan")  # NaN/Infinity tokens: outside the domain (DE-06)
        decision = decide_start_depth(stored, self.parent.runtime_depth, self.asked["maxDepth"])
        if decision.child_depth is None:
            assert decision.code is not None
            raise TckError(
                decision.code,
                f"{decision.reason}; the start was refused and nothing was created",
                {"reason": decision.reason},
            )
        self.child_depth = decision.child_depth

    def create_private_agent(self) -> Agent:
        return self.host.new_agent(
            depth=self.child_depth,
            parent=self.parent.id,
            provider=self.provider.name,
        )

    def setup_unpublished(self, child: Agent) -> Descriptor:
        tool_filter = self.install_tool_filter(child, self.asked["toolFilter"])
        for tool in self.host.preset_tools.get(self.preset_name or "", ()):
            child.scope.add_local(tool)  # after the filter, hidden by none (TF-04)
        persona = self.install_persona(child, self.asked["persona"])
        schema = self.install_output_schema(child, self.asked["outputSchema"])
        policy = self.install_spawn_policy(child, self.asked["spawnPolicy"])
        model = self.install_model(child, self.asked["model"], self.parent.model)
        self.seed_messages(child)
        return Descriptor(self.provider.name, self.preset_name, persona, tool_filter, schema,
                          policy, model)

    def seed_messages(self, child: Agent) -> None:
        child.messages = list(self.provider.seed(self.host, self.parent))

    def publish(self, child: Agent, descriptor: Descriptor) -> None:
        self.host.publish(child, self.parent.session, descriptor.to_json())


def unsupported(provider: Provider, capability: Capability, key: str) -> TckError:
    return TckError(
        ErrorCode.UNSUPPORTED_CAPABILITY,
        f"provider {provider.name!r} does not advertise {capability.value}, which {key} needs "
        f"(CA-01); drop {key} or use a provider that advertises it",
        {"capability": capability.value, "provider": provider.name},
    )


class Resume(Composition):
    """Cold resume of a stored session (FR-04, DE-06, DE-09)."""

    def __init__(self, host: DelegationHost, session: str) -> None:
        self.host = host
        self.session = session

    def run(self) -> Agent:
        if not isinstance(self.session, str):
            raise TckError(ErrorCode.INVALID_REQUEST, "resume takes a session id string")
        header = self.host.store.header(self.session)
        depth = header.depth()
        descriptor = None
        provider: Provider | None = None
        if header.descriptor is not None:
            descriptor = Descriptor.from_json(header.descriptor, self.session)
            provider = self.gate(descriptor)
        agent = self.host.new_agent(
            depth=depth,
            parent=self.host.live_agent_of(header.parent),
            provider=None if provider is None else provider.name,
            session=self.session,
        )
        agent.model = self.host.session_model(self.session)  # a top-level session's (MO-02)
        try:
            if descriptor is not None:
                self.apply(agent, descriptor)
            self.host.restore_messages(agent)
        except BaseException:
            self.rollback(agent)
            raise
        self.host.retire_session_agents(self.session)
        self.host.publish(agent, header.parent, header.descriptor, write_header=False)
        return agent

    def gate(self, descriptor: Descriptor) -> Provider:
        provider = self.host.providers.get(descriptor.provider)
        if provider is None:
            raise TckError(
                ErrorCode.NOT_RESUMABLE,
                f"session {self.session} was started on provider {descriptor.provider!r}, "
                "which is not registered now; add that provider again to resume it",
                {"session": self.session, "cause": ErrorCode.NO_PROVIDER.value},
            )
        asked = {
            "persona": descriptor.persona,
            "toolFilter": descriptor.tool_filter,
            "outputSchema": descriptor.output_schema,
            "spawnPolicy": descriptor.spawn_policy,
            "model": descriptor.model,
        }
        for key, value in asked.items():
            capability = FIELD_CAPABILITY[key]
            if value is not None and not provider.supports(capability):
                raise unsupported(provider, capability, key)
        return provider

    def apply(self, agent: Agent, descriptor: Descriptor) -> None:
        def given(value: object) -> object:
            return ABSENT if value is None else value

        try:
            self.install_tool_filter(agent, given(descriptor.tool_filter))
            self.install_persona(agent, given(descriptor.persona))
            self.install_output_schema(agent, given(descriptor.output_schema))
            self.install_spawn_policy(agent, given(descriptor.spawn_policy))
            header = self.host.store.header(self.session)
            self.install_model(agent, given(descriptor.model),
                               self.host.session_model(header.parent))
        except TckError as exc:
            raise TckError(
                ErrorCode.NOT_RESUMABLE,
                f"session {self.session}: its descriptor can no longer be applied: "
                f"{exc.message}",
                {"session": self.session, "cause": exc.code.value, **exc.details},
            ) from exc


class Run:
    """One child run: :meth:`result` runs it once; :meth:`dispose` retires the child."""

    def __init__(
        self, host: DelegationHost, agent: Agent, provider: Provider, prompt: str,
        signal: AbortSignal,
    ) -> None:
        self.host = host
        self.agent = agent
        self.provider = provider
        self.prompt = prompt
        self.signal = signal
        self._result: RunResult | None = None
        self.disposed = False

    def result(self) -> RunResult:
        if self._result is not None:
            return self._result
        if self.disposed:
            raise TckError(ErrorCode.INVALID_REQUEST, "this run was disposed before it ran")
        agent, events = self.agent, self.host.events
        events.emit(RUN_STARTED, agent.id, agent.session, {"provider": self.provider.name})
        try:
            result = self.provider.run(self.host, agent, self.prompt, self.signal)
        except Exception as exc:  # a failing provider ends the run with an error
            self.host.provider_faults.append(
                (self.provider.name, f"{type(exc).__name__}: {exc}", traceback.format_exc())
            )
            result = RunResult(
                agent.id, agent.session, agent.depth, StopReason.ERROR, f"provider failed: {exc}"
            )
        self._result = result
        events.emit(
            RUN_STOPPED, agent.id, agent.session, {"stopReason": result.stop_reason.value}
        )
        return result

    def cancel(self, reason: str = "cancelled") -> None:
        self.signal.abort(reason)

    def dispose(self) -> None:
        """Tear the child down (idempotent): it is unpublished, its header stays durable."""
        if self.disposed:
            return
        self.disposed = True
        self.host.events.emit(RUN_DISPOSED, self.agent.id, self.agent.session)
        self.host.retire(self.agent)
