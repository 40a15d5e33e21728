"""The host runtime of one deployment: registry, scopes, prompt, sessions, providers, children.

Every public method validates its input and raises :class:`spec.TckError` with a stable code
(INVALID_REQUEST, UNKNOWN_AGENT, UNKNOWN_SESSION, UNKNOWN_RESTRICTION, ...) whose message names
the fix, leaving the state as it was. Parts can be swapped by subclassing: ``child_start_class``,
``resume_class``, ``loop_class``, ``resolver_class`` and ``scope_class``. Agents become
observable only through :meth:`publish` (FR-02); top-level agents are published at creation
(depth from their header, DE-01). Every new agent, child or not, starts in the deployment's
presentation mode (``mode``); nothing of a parent's scope carries over to a child (flat, TF-13).
Top-level agents run on the deployment's model (``root_model``, MO-01); spawn policies are
installed on a scope and validated against the deployment's presets (SP-01).
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from subagent_tck.spec import (
    ABSENT,
    DEFAULT_EDITION,
    INITIAL_HOST_DEPTH,
    PERSONA_SECTION,
    Edition,
    ErrorCode,
    PresentationMode,
    Preset,
    Section,
    TckError,
    assemble_system_prompt,
    check_depth,
    model_problem,
)

from .agent import Agent
from .delegation import ChildStart, Resume, Run
from .events import AGENT_PUBLISHED, AGENT_RETIRED, PROVIDER_ADDED, PROVIDER_REMOVED, EventLog
from .loop import AgentLoop, RunResult
from .model import Message, Model, ModelRequest
from .prompt import PromptSection, assemble_sections, render_strict, validate_section
from .provider import Provider, ProviderEvent, ProviderRegistry, default_providers
from .registry import ToolRegistry
from .resolver import ResolvedTool, Resolver
from .scope import Scope, parse_mode
from .store import SessionStore, StoredHeader, depth_text
from .tool import AbortSignal, ExecutionContext, Tool, ToolResult, ToolSchema

ContextHook = Callable[[Agent], Sequence[str]]
COMPONENT_MODULE = "subagent_tck.reference.subagent_tool"


def _depth_setting(value: object, what: str) -> int:
    verdict = check_depth(value)
    if verdict.value is None:
        raise TckError(ErrorCode.INVALID_DEPTH, f"{what}: {verdict.advice()}")
    return verdict.value


class Host:
    child_start_class: type[ChildStart] = ChildStart
    resume_class: type[Resume] = Resume
    loop_class: type[AgentLoop] = AgentLoop
    resolver_class: type[Resolver] = Resolver
    scope_class: type[Scope] = Scope
    registry_class: type[ToolRegistry] = ToolRegistry
    #: How a section's template becomes its text when a prompt is assembled (PE-05).
    render_template = staticmethod(render_strict)

    def __init__(
        self,
        model: Model,
        store: SessionStore | str = ":memory:",
        *,
        edition: Edition | str = DEFAULT_EDITION,
        persona: str | None = None,
        variables: Mapping[str, str] | None = None,
        sections: Iterable[PromptSection] = (),
        providers: Iterable[Provider] | None = None,
        host_depth: object = INITIAL_HOST_DEPTH,
        runtime_context: bool = True,
        mode: PresentationMode | str = PresentationMode.NATIVE,
        max_steps: int = 16,
        root_model: object = None,
    ) -> None:
        try:
            self.edition = Edition(edition)
        except ValueError:
            raise TckError(
                ErrorCode.INVALID_CONFIG,
                f"unknown edition {edition!r}; use preset-composition or request-controls",
            ) from None
        variables = dict(variables or {})
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in variables.items()):
            raise TckError(ErrorCode.INVALID_CONFIG, "template variables map names to strings")
        if persona is not None and not isinstance(persona, str):
            raise TckError(ErrorCode.INVALID_CONFIG, "the deployment persona is a string template")
        self.variables: dict[str, str] = variables
        if root_model is not None and model_problem(root_model):
            raise TckError(ErrorCode.INVALID_CONFIG,
                           f"the deployment's model: {model_problem(root_model)}")
        #: The model top-level agents run on (MO-01); None: requests name no model.
        self.root_model: str | None = None if root_model is None else str(root_model)
        self.default_mode = parse_mode(mode)
        self._host_depth = _depth_setting(host_depth, "host depth setting")
        self.runtime_context = bool(runtime_context)
        self._sections: list[PromptSection] = []
        if persona is not None:
            persona_section = PromptSection(PERSONA_SECTION, persona)
            self._sections.append(validate_section(persona_section, variables))
        for section in sections:
            self.add_section(section)
        self.model = model
        self.store = store if isinstance(store, SessionStore) else SessionStore(store)
        self.registry = self.registry_class()
        self.resolver = self.resolver_class(self.registry)
        self.loop = self.loop_class(self, max_steps)
        self.events = EventLog()
        #: what a provider raised while running a child, in order: (provider, exception,
        #: traceback). The run ends with stop reason error; a certifier shows these as the
        #: cause of the failures that follow (docs/certify.md#reading-a-certificate).
        self.provider_faults: list[tuple[str, str, str]] = []
        self.providers = ProviderRegistry()
        self.providers.add_listener(self._on_provider)
        self.presets: dict[str, Preset] = {}
        #: each preset's own tools: a child composed from it gets them as scope-local tools
        self.preset_tools: dict[str, tuple[Tool, ...]] = {}
        self.context_hooks: list[ContextHook] = []
        self.component_state: dict[str, Any] = {}
        self._agents: dict[str, Agent] = {}
        #: The abort signal of each agent's running turn (see :meth:`abort_turn`).
        self.running_turns: dict[str, AbortSignal] = {}
        self._next_agent = 1
        self._next_session = 1
        for provider in default_providers() if providers is None else providers:
            self.providers.add(provider)

    def close(self) -> None:
        self.store.close()

    # --- settings --------------------------------------------------------------------------

    @property
    def host_depth(self) -> int:
        """The live host depth setting (ST-06), initially 1."""
        return self._host_depth

    def set_host_depth(self, value: object) -> None:
        self._host_depth = _depth_setting(value, "host depth setting")

    def set_runtime_context(self, enabled: bool) -> None:
        if not isinstance(enabled, bool):
            raise TckError(ErrorCode.INVALID_REQUEST, "runtime context is on (true) or off (false)")
        self.runtime_context = enabled

    # --- agents ----------------------------------------------------------------------------

    def create_agent(
        self, *, header_depth: object = 0, runtime_depth: object = ABSENT, mode: object = None
    ) -> Agent:
        """A published top-level agent. ``header_depth`` is validated (INVALID_DEPTH); the
        runtime ``subagentDepth`` is kept raw and judged at each start from it (DE-07)."""
        depth = _depth_setting(header_depth, "header delegationDepth")
        scope_mode = self.default_mode if mode is None else parse_mode(mode)
        agent = self.new_agent(depth=depth, runtime_depth=runtime_depth, mode=scope_mode)
        agent.model = self.root_model
        self.publish(agent, None, None)
        return agent

    def agent(self, agent_id: object) -> Agent:
        """A published agent, or UNKNOWN_AGENT."""
        agent = self._agents.get(agent_id) if isinstance(agent_id, str) else None
        if agent is None:
            raise TckError(
                ErrorCode.UNKNOWN_AGENT,
                f"no published agent {agent_id!r}; use an id from create_agent, start or resume",
            )
        return agent

    def agents(self) -> tuple[Agent, ...]:
        return tuple(self._agents.values())

    def sessions(self) -> tuple[StoredHeader, ...]:
        return self.store.headers()

    def new_agent(
        self,
        *,
        depth: int,
        runtime_depth: object = ABSENT,
        parent: str | None = None,
        provider: str | None = None,
        mode: PresentationMode | None = None,
        session: str | None = None,
    ) -> Agent:
        """A private (unpublished) agent with a fresh scope; nothing observable changes."""
        agent_id = f"agent-{self._next_agent}"
        self._next_agent += 1
        if session is None:
            session = f"session-{self._next_session}"
            while self.store.has(session):
                self._next_session += 1
                session = f"session-{self._next_session}"
            self._next_session += 1
        scope = self.scope_class(agent_id, self.registry, mode or self.default_mode)
        return Agent(agent_id, session, scope, depth, runtime_depth, parent, provider)

    def publish(
        self,
        agent: Agent,
        parent_session: str | None,
        descriptor: Mapping[str, Any] | None,
        *,
        write_header: bool = True,
    ) -> None:
        """Make an agent observable: header stored, agent listed, ``agent.published`` (FR-02)."""
        if write_header:
            depth = depth_text(agent.depth)
            self.store.put_header(agent.session, parent_session, depth, descriptor)
        agent.published = True
        self._agents[agent.id] = agent
        snapshot = {
            "view": [e.name for e in self.resolver.view(agent.scope)],
            "prompt": [[s.name, s.text] for s in self.prompt(agent.id)],
        }
        self.events.emit(
            AGENT_PUBLISHED, agent.id, agent.session, {"snapshot": snapshot, "depth": agent.depth}
        )

    def discard(self, agent: Agent) -> None:
        """Roll back a private agent: forget it (it was never observable)."""
        agent.published = False
        self._agents.pop(agent.id, None)

    def retire(self, agent: Agent) -> None:
        """Unpublish a live agent; its session header stays durable for resume."""
        if self._agents.pop(agent.id, None) is not None:
            agent.published = False

    def retire_session_agents(self, session: str) -> None:
        for agent in [a for a in self._agents.values() if a.session == session]:
            self.retire(agent)
            self.events.emit(AGENT_RETIRED, agent.id, agent.session)

    def live_agent_of(self, session: str | None) -> str | None:
        for agent in self._agents.values():
            if agent.session == session:
                return agent.id
        return None

    def restore_messages(self, agent: Agent) -> None:
        agent.messages = [Message.from_json(m) for m in self.store.turns(agent.session)]
        agent.persisted = len(agent.messages)

    def persist_turns(self, agent: Agent) -> None:
        """Store the messages of completed turns (for fork seeding and resume)."""
        fresh = agent.messages[agent.persisted :]
        if fresh:
            self.store.append_turns(agent.session, [m.to_json() for m in fresh])
            agent.persisted = len(agent.messages)

    # --- tools, restrictions, presentation -------------------------------------------------

    def register_tool(self, tool: Tool, agent: str | None = None) -> None:
        if agent is None:
            self.registry.register(tool)
        else:
            self.agent(agent).scope.add_local(tool)

    def unregister_tool(self, name: str, agent: str | None = None) -> None:
        if agent is None:
            self.registry.unregister(name)
        else:
            self.agent(agent).scope.remove_local(name)

    def restrict(self, agent: str, value: object) -> str:
        return self.agent(agent).scope.restrict(value)

    def dispose_restriction(self, agent: str, handle: str) -> None:
        self.agent(agent).scope.dispose(handle)

    def install_spawn_policy(self, agent: str, value: object) -> str:
        """Install a spawn policy over the deployment's presets in the agent's scope (SP-01)."""
        return self.agent(agent).scope.restrict_spawn(value, self.presets)

    def dispose_spawn_policy(self, agent: str, handle: str) -> None:
        self.agent(agent).scope.dispose_spawn(handle)

    def session_model(self, session: str | None) -> str | None:
        """The model a stored session runs on: its descriptor's, else its parent session's,
        else the deployment's (a top-level session; MO-02 on cold resume)."""
        seen: set[str] = set()
        while session is not None and session not in seen and self.store.has(session):
            seen.add(session)
            header = self.store.header(session)
            model = (header.descriptor or {}).get("model")
            if isinstance(model, str):
                return model
            session = header.parent
        return self.root_model

    def set_mode(self, agent: str, mode: PresentationMode | str) -> None:
        scope = self.agent(agent).scope
        scope.mode = parse_mode(mode)

    def view(self, agent: str | None = None) -> tuple[ResolvedTool, ...]:
        return self.resolver.view(None if agent is None else self.agent(agent).scope)

    def tool_schemas(self, agent: str) -> tuple[ToolSchema, ...]:
        return self.resolver.schemas(self.agent(agent).scope)

    def lookup(self, agent: str, name: str) -> ResolvedTool | None:
        scope = self.agent(agent).scope
        if not isinstance(name, str):
            raise TckError(ErrorCode.INVALID_REQUEST, "look a tool up by its string name")
        return self.resolver.lookup(scope, name)

    def execute(
        self,
        agent: str,
        name: str,
        arguments: Mapping[str, Any],
        signal: AbortSignal | None = None,
    ) -> ToolResult:
        """Execute as the agent's model would (TF-12): outside the view, UNKNOWN_TOOL result."""
        scope = self.agent(agent).scope
        if not isinstance(name, str) or not isinstance(arguments, Mapping):
            raise TckError(
                ErrorCode.INVALID_REQUEST, "execute takes a tool name and an arguments object"
            )
        context = ExecutionContext(agent, signal or AbortSignal(), self)
        return self.resolver.execute(scope, name, arguments, context)

    def sdk_bindings(self, agent: str) -> tuple[str, ...]:
        return self.resolver.sdk_bindings(self.agent(agent).scope)

    def run_code(
        self, agent: str, calls: Sequence[tuple[str, Mapping[str, Any]]]
    ) -> tuple[ToolResult, ...]:
        """One ``run_code`` program of SDK calls ``(name, arguments)`` for the agent (TF-12): a
        result per call; outside the bindings, UNKNOWN_TOOL and no body run
        (docs/driver-api.md#run-code)."""
        scope = self.agent(agent).scope
        if not all(isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], str)
                   and isinstance(c[1], Mapping) for c in calls):
            raise TckError(
                ErrorCode.INVALID_REQUEST,
                "run_code takes a list of SDK calls, each a tool name and an arguments object",
            )
        context = ExecutionContext(agent, AbortSignal(), self)
        return self.resolver.run_code(scope, calls, context)

    # --- prompt ----------------------------------------------------------------------------

    def add_section(self, section: PromptSection, agent: str | None = None) -> None:
        """Register a deployment section (replacing one of the same name in place; a persona
        section goes first) or, with ``agent``, a scoped section of that agent."""
        scope = None if agent is None else self.agent(agent).scope
        validate_section(section, self.variables)
        if scope is not None:
            scope.add_section(section)
            return
        for i, existing in enumerate(self._sections):
            if existing.name == section.name:
                self._sections[i] = section
                return
        if section.name == PERSONA_SECTION:
            self._sections.insert(0, section)
        else:
            self._sections.append(section)

    def remove_section(self, name: str, agent: str | None = None) -> None:
        if agent is not None:
            self.agent(agent).scope.remove_section(name)
            return
        for i, existing in enumerate(self._sections):
            if existing.name == name:
                del self._sections[i]
                return
        raise TckError(ErrorCode.INVALID_REQUEST, f"the deployment has no section {name!r}")

    def deployment_sections(self) -> tuple[PromptSection, ...]:
        return tuple(self._sections)

    def prompt(self, agent: str) -> tuple[Section, ...]:
        """The agent's rendered sections in order: what its next request's system text is."""
        scope = self.agent(agent).scope
        visible = {e.name for e in self.resolver.view(scope)}
        return assemble_sections(self._sections, scope.sections(), visible, self.variables,
                                 self.render_template)

    def system_text(self, agent: str) -> str:
        return assemble_system_prompt(self.prompt(agent))

    def build_request(self, agent: Agent) -> ModelRequest:
        """The agent's next model request, composed from its scope as it is now."""
        context: list[str] = []
        if self.runtime_context:
            for hook in list(self.context_hooks):
                context.extend(hook(agent))
        return ModelRequest(
            agent.id,
            self.system_text(agent.id),
            self.resolver.schemas(agent.scope),
            tuple(agent.messages),
            tuple(context),
            agent.model,
        )

    # --- presets and providers -------------------------------------------------------------

    def add_preset(self, name: str, preset: Preset, tools: Sequence[Tool] = ()) -> None:
        """Define a preset; its values are copied (the caller's later edits change nothing).
        ``tools`` are its own: each child composed from it has them as scope-local tools, as a
        runtime's agent definition names tools of its own (docs/rules.md#TF-04)."""
        if not isinstance(name, str) or not name or not isinstance(preset, Preset):
            raise TckError(ErrorCode.INVALID_CONFIG, "add_preset takes a name and a spec.Preset")
        if not all(isinstance(t, Tool) for t in tools):
            raise TckError(ErrorCode.INVALID_CONFIG, "a preset's tools are reference Tools")
        self.presets[name] = copy.deepcopy(preset)
        self.preset_tools[name] = tuple(tools)

    def add_provider(self, provider: Provider) -> None:
        self.providers.add(provider)

    def remove_provider(self, name: str) -> None:
        self.providers.remove(name)

    def _on_provider(self, kind: ProviderEvent, provider: Provider) -> None:
        event = PROVIDER_ADDED if kind is ProviderEvent.ADDED else PROVIDER_REMOVED
        self.events.emit(event, data={"provider": provider.name})

    # --- children, turns, resume -----------------------------------------------------------

    def start(
        self, parent: str, request: Mapping[str, Any], signal: AbortSignal | None = None
    ) -> Run:
        """Start a child (published, not yet run); see :mod:`.delegation` for the pipeline."""
        return self.child_start_class(self, parent, request, signal).run()

    def start_and_run(self, parent: str, request: Mapping[str, Any]) -> RunResult:
        """Start a child and run it until it stops; the child stays published."""
        return self.start(parent, request).result()

    def run_turn(self, agent: str, prompt: str, signal: AbortSignal | None = None) -> RunResult:
        live = self.agent(agent)
        if not isinstance(prompt, str):
            raise TckError(ErrorCode.INVALID_REQUEST, "a turn needs a string prompt")
        return self.loop.run(live, prompt, signal)

    def abort_turn(self, agent: str, reason: str = "aborted") -> None:
        """Fire the abort signal of the agent's running turn (its tool calls see it, so a
        ``subagent`` call cancels its child run, ST-09); a no-op when no turn is running."""
        signal = self.running_turns.get(agent) if isinstance(agent, str) else None
        if signal is None:
            self.agent(agent)  # an unknown agent is still an error
            return
        signal.abort(reason)

    def resume(self, session: str) -> Agent:
        """Cold-resume a stored session as a new published agent (FR-04, DE-06, DE-09)."""
        return self.resume_class(self, session).run()

    # --- the subagent tool component --------------------------------------------------------

    def _component(self) -> Any:
        try:
            return importlib.import_module(COMPONENT_MODULE)
        except ModuleNotFoundError as exc:
            if exc.name != COMPONENT_MODULE:
                raise
            raise TckError(
                ErrorCode.INVALID_CONFIG, "the subagent tool component is not installed"
            ) from None

    def load_subagent_tool(self, config: Mapping[str, Any]) -> None:
        self._component().load_subagent_tool(self, config)

    def unload_subagent_tool(self, tool_name: str) -> None:
        self._component().unload_subagent_tool(self, tool_name)
