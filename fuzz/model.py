"""The fuzzer's model of one deployment: exactly what the spec oracle needs, nothing more.

State (all keyed by the fuzzer's own labels, never by the target's ids): the ordered global
registry, the live agents with their scopes (restrictions by label, locals, presentation mode,
persona, spawn policies by label, the model their requests name), and the sessions with their
durable header depth and composition. Expectations come from the pure oracle functions of
:mod:`subagent_tck.spec`: :func:`resolve_view` (TF-01..TF-06), :func:`validate_restriction`
(TF-07, TF-08), :func:`validate_spawn_policy` (SP-01), :func:`decide_start` (CA, DE, EN, FR-03,
PE-05, SP-01, MO-01), :func:`check_depth` (DE-05..DE-07) and :func:`resolve_sections`
(PE-01..PE-03).

Points the rules leave to the driver protocol are modelled as the protocol's error codes say
(``DUPLICATE_TOOL``, ``RESERVED_NAME``); where a target may choose (refusing a bad header depth
when the agent is created or at its first start; unregistering an unknown name) an
:class:`Expect` admits both, and the lockstep then checks that nothing changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from subagent_tck.spec import (
    ABSENT,
    PERSONA_SECTION,
    RUN_CODE,
    STRUCTURED_OUTPUT,
    Capability,
    Edition,
    ErrorCode,
    PresentationMode,
    Preset,
    Restriction,
    Section,
    StartOutcome,
    StartState,
    ViewEntry,
    check_depth,
    decide_start,
    parse_policies,
    render_template,
    resolve_sections,
    resolve_view,
    sdk_binding_names,
    validate_restriction,
    validate_spawn_policy,
    wire_tool_names,
)

#: The label of a composition restriction (a child's tool filter): not disposable by handle.
COMPOSED = "composed"


@dataclass(frozen=True)
class Expect:
    """What the oracle expects of one operation.

    ``codes`` empty: the operation must be accepted. Otherwise it must be refused with one of
    ``codes``, unless ``may_accept``: then accepting it (as a no-op) is conforming too.
    """

    codes: frozenset[ErrorCode] = frozenset()
    may_accept: bool = False
    reason: str = ""

    @property
    def accept(self) -> bool:
        return not self.codes

    @classmethod
    def ok(cls) -> Expect:
        return cls()

    @classmethod
    def refuse(cls, *codes: ErrorCode, reason: str = "", may_accept: bool = False) -> Expect:
        return cls(frozenset(codes), may_accept, reason)


def null_lists(value: object) -> frozenset[str]:
    """The lists of a raw restriction given as null (``allow``, ``deny``)."""
    if not isinstance(value, Mapping):
        return frozenset()
    return frozenset(k for k in ("allow", "deny") if k in value and value[k] is None)


@dataclass
class ScopeModel:
    """One agent's scope: restrictions by label (insertion order), locals, mode."""

    restrictions: dict[str, Restriction] = field(default_factory=dict)
    #: every restriction label ever issued here, with the step that installed it
    issued: dict[str, int] = field(default_factory=dict)
    #: label -> (restriction, step) of restrictions lifted by dispose
    disposed: dict[str, tuple[Restriction, int]] = field(default_factory=dict)
    #: label -> the lists the installed value gave as null (absent to the oracle; a target
    #: reading them as [] breaks the Decision of docs/rules.md#TF-07)
    nulls: dict[str, frozenset[str]] = field(default_factory=dict)
    locals: list[str] = field(default_factory=list)
    mode: PresentationMode = PresentationMode.NATIVE


@dataclass
class AgentModel:
    label: str
    session: str
    scope: ScopeModel
    #: the rendered text of this agent's persona section (None: it inherits the deployment's)
    persona: str | None = None
    runtime: object = ABSENT
    kind: str = "root"  # root | created | child | resumed
    #: the preset a child was started with (EN-01 diagnosis)
    preset: str | None = None
    #: the request's own persona / toolFilter beside that preset (EN-03 diagnosis)
    overrides: Mapping[str, object] = field(default_factory=dict)
    #: the spawn policies of its scope by label (a composed one under COMPOSED, SP-01), and
    #: every label ever issued (disposing one again is harmless)
    policies: dict[str, Restriction] = field(default_factory=dict)
    policies_issued: set[str] = field(default_factory=set)
    #: the model its requests name (MO-01), and whether a rule judges it: a child whose
    #: provider advertises modelSelection (MO rules bind only that capability's providers)
    model: str | None = None
    model_judged: bool = False
    #: the parts of its persona template that are the implementation's grammar (spaced or
    #: dotted placeholders, stray braces: docs/rules.md#PE-05), which a target may refuse
    persona_grammar: tuple[str, ...] = ()


@dataclass
class SessionModel:
    label: str
    #: the raw durable delegationDepth (as the target received it)
    header: object
    parent: str | None = None
    agent: str | None = None  # label of the live agent of this session
    #: the child's composition, for cold resume (FR-04): raw filter, persona text, schema
    tool_filter: object = None
    persona: str | None = None
    output_schema: object = None
    composed: bool = False
    #: the provider a child was started on (its descriptor's; a rebind changes it)
    provider: str | None = None
    #: whether its stored depth was rewritten under its live agent (fuzz/sessions.py rewrite),
    #: since that agent was made
    rewritten: bool = False
    #: the child's own spawn policy and model as composed (its descriptor's), and the model
    #: its first request named (its parent's when none was composed: MO-02 on resume)
    spawn_policy: object = None
    model: str | None = None
    runs_on: str | None = None
    #: its persona's implementation-grammar parts (AgentModel.persona_grammar)
    persona_grammar: tuple[str, ...] = ()


@dataclass
class DeploymentModel:
    """The oracle's side of one deployment."""

    edition: Edition
    providers: Mapping[str, frozenset[Capability]]
    presets: Mapping[str, Preset]
    variables: Mapping[str, str]
    persona: str | None
    #: deployment sections after the persona: (name, text, the tool it guides or None)
    sections: Sequence[tuple[str, str, str | None]]
    mode: PresentationMode
    #: the model top-level agents run on (MO-01; None: the deployment names none)
    root_model: str | None = None
    globals: list[str] = field(default_factory=list)
    #: name -> step of its latest registration; every name that was ever global
    registered_at: dict[str, int] = field(default_factory=dict)
    ever_global: set[str] = field(default_factory=set)
    #: (step, global names after it) for every change of the registry
    history: list[tuple[int, tuple[str, ...]]] = field(default_factory=lambda: [(-1, ())])
    agents: dict[str, AgentModel] = field(default_factory=dict)
    sessions: dict[str, SessionModel] = field(default_factory=dict)
    step: int = 0
    _counters: dict[str, int] = field(default_factory=dict)

    # --- labels ---------------------------------------------------------------------------

    def new_label(self, prefix: str) -> str:
        """``a1``, ``a2``, ``c1``, ``root.r1``...: numbered per prefix. The machine draws the
        label of what a step creates into the step itself, so that deleting an earlier step
        while shrinking does not rename it."""
        count = self._counters.get(prefix, 0) + 1
        self._counters[prefix] = count
        return f"{prefix}{count}"

    def add_agent(self, agent: AgentModel, session: SessionModel) -> None:
        self.sessions[session.label] = session
        previous = session.agent
        if previous is not None and previous != agent.label:
            self.agents.pop(previous, None)
        session.agent = agent.label
        self.agents[agent.label] = agent

    # --- tools ----------------------------------------------------------------------------

    def expect_register_global(self, name: str) -> Expect:
        if name == RUN_CODE:
            return Expect.refuse(ErrorCode.RESERVED_NAME, reason="run_code is reserved (TF-06)")
        if name in self.globals:
            return Expect.refuse(ErrorCode.DUPLICATE_TOOL, reason=f"{name} is already global")
        return Expect.ok()

    def register_global(self, name: str) -> None:
        self.globals.append(name)
        self.registered_at[name] = self.step
        self.ever_global.add(name)
        self.history.append((self.step, tuple(self.globals)))

    def globals_at(self, step: int) -> tuple[str, ...]:
        """The global names as they were right after ``step``."""
        names: tuple[str, ...] = ()
        for at, snapshot in self.history:
            if at > step:
                break
            names = snapshot
        return names

    def expect_unregister_global(self, name: str) -> Expect:
        if name in self.globals:
            return Expect.ok()
        return Expect.refuse(
            ErrorCode.UNKNOWN_TOOL, reason=f"{name} is not a global tool", may_accept=True
        )

    def unregister_global(self, name: str) -> None:
        self.globals.remove(name)
        self.history.append((self.step, tuple(self.globals)))

    def expect_register_local(self, agent: AgentModel, name: str) -> Expect:
        if name == RUN_CODE:
            return Expect.refuse(
                ErrorCode.RESERVED_NAME, reason="run_code cannot be shadowed (TF-06)"
            )
        if name in agent.scope.locals:
            return Expect.refuse(ErrorCode.DUPLICATE_TOOL, reason=f"{name} is already local")
        return Expect.ok()

    def expect_unregister_local(self, agent: AgentModel, name: str) -> Expect:
        if name in agent.scope.locals:
            return Expect.ok()
        return Expect.refuse(
            ErrorCode.UNKNOWN_TOOL, reason=f"{name} is not local here", may_accept=True
        )

    # --- restrictions ---------------------------------------------------------------------

    def expect_restrict(self, value: object) -> tuple[Expect, Restriction | None, tuple[str, ...]]:
        verdict = validate_restriction(value, self.globals)
        if verdict.restriction is None:
            assert verdict.code is not None
            return Expect.refuse(verdict.code, reason=verdict.reason), None, verdict.offending
        return Expect.ok(), verdict.restriction, ()

    def install(
        self, agent: AgentModel, label: str, restriction: Restriction, value: object = None
    ) -> None:
        """Record ``restriction`` under ``label``; ``value`` is the raw value it came from."""
        agent.scope.restrictions[label] = restriction
        agent.scope.issued[label] = self.step
        nulls = null_lists(value)
        if nulls:
            agent.scope.nulls[label] = nulls

    def expect_dispose(self, agent: AgentModel, label: str) -> Expect:
        if label in agent.scope.issued:
            return Expect.ok()  # installed, or already disposed: harmless (TF-14)
        return Expect.refuse(
            ErrorCode.UNKNOWN_RESTRICTION, reason="a handle this scope never issued",
            may_accept=True,
        )

    def dispose(self, agent: AgentModel, label: str) -> None:
        restriction = agent.scope.restrictions.pop(label, None)
        if restriction is not None:
            agent.scope.disposed[label] = (restriction, self.step)

    # --- spawn policies (SP-01) -------------------------------------------------------------

    def expect_spawn_policy(self, value: object
                            ) -> tuple[Expect, Restriction | None, tuple[str, ...]]:
        verdict = validate_spawn_policy(value, self.presets)
        if verdict.restriction is None:
            assert verdict.code is not None
            return Expect.refuse(verdict.code, reason=verdict.reason), None, verdict.offending
        return Expect.ok(), verdict.restriction, ()

    def expect_dispose_policy(self, agent: AgentModel, label: str) -> Expect:
        if label in agent.policies_issued:
            return Expect.ok()  # installed, or already disposed: harmless
        return Expect.refuse(
            ErrorCode.UNKNOWN_RESTRICTION, reason="a handle this scope never issued",
            may_accept=True,
        )

    # --- what a scope sees ----------------------------------------------------------------

    def view(self, agent: AgentModel | None) -> tuple[ViewEntry, ...]:
        if agent is None:
            return resolve_view(self.globals, (), ())
        scope = agent.scope
        return resolve_view(self.globals, scope.restrictions.values(), scope.locals, scope.mode)

    def wire(self, agent: AgentModel) -> frozenset[str]:
        return wire_tool_names(self.view(agent), agent.scope.mode)

    def sdk(self, agent: AgentModel) -> frozenset[str]:
        return sdk_binding_names(self.view(agent), agent.scope.mode)

    def deployment_persona(self) -> str | None:
        if self.persona is None:
            return None
        return render_template(self.persona, self.variables).text

    def kit_sections(self, observed: Sequence[Sequence[str]]) -> list[list[str]]:
        """``observed`` ``[name, text]`` sections without the runtime's own: a section whose
        name is neither the persona's nor one the deployment declared is the runtime's (its
        tool guidance, say) and no rule speaks of it; the checks allow it too
        (docs/rules.md#FR-01, docs/rules.md#TF-16). A declared section shown where its tool is
        hidden stays, and so does every persona section."""
        names = {PERSONA_SECTION, *(name for name, _, _ in self.sections)}
        return [list(s) for s in observed if s[0] in names]

    def prompt(self, agent: AgentModel) -> tuple[Section, ...]:
        """PE-01..PE-03 (most specific wins) and TF-16 (guidance follows visibility)."""
        inherited: list[Section] = []
        base = self.deployment_persona()
        if base is not None:
            inherited.append(Section(PERSONA_SECTION, base))
        visible = {e.name for e in self.view(agent)}
        inherited.extend(
            Section(name, text)
            for name, text, guides in self.sections
            if guides is None or guides in visible
        )
        scoped = [] if agent.persona is None else [Section(PERSONA_SECTION, agent.persona)]
        return resolve_sections(inherited, scoped)

    # --- depth and children ---------------------------------------------------------------

    def expect_create_agent(self, header: object, runtime: object) -> Expect:
        bad = not check_depth(header).ok or (runtime is not ABSENT and not check_depth(runtime).ok)
        if bad:
            return Expect(frozenset(), True, "")  # refuse now, or at its first start (DE-06/07)
        return Expect.ok()

    def start_state(self, parent: AgentModel) -> StartState:
        return StartState(
            edition=self.edition,
            providers=self.providers,
            global_names=tuple(self.globals),
            presets=self.presets,
            variables=self.variables,
            deployment_persona=self.persona,
            parent_header_depth=self.sessions[parent.session].header,
            parent_runtime_depth=parent.runtime,
            parent_policies=tuple(parent.policies.values()),
            parent_model=parent.model,
        )

    def decide_start(self, parent: AgentModel, request: Mapping[str, object]) -> StartOutcome:
        return decide_start(self.start_state(parent), request)

    def add_child(
        self, parent: AgentModel, outcome: StartOutcome, label: str, request: Mapping[str, object]
    ) -> AgentModel:
        """Record the child a successful start published."""
        child, session = self.compose_child(parent, outcome, label, request)
        self.add_agent(child, session)
        return child

    def compose_child(
        self, parent: AgentModel, outcome: StartOutcome, label: str, request: Mapping[str, object]
    ) -> tuple[AgentModel, SessionModel]:
        """The child a successful start composes, and its session, recorded nowhere (a
        ``subagent`` tool's child is disposed once the call returns)."""
        assert outcome.child_depth is not None
        scope = ScopeModel(mode=self.mode)  # every agent starts in the deployment mode
        verdict = (
            None
            if outcome.tool_filter is None
            else validate_restriction(outcome.tool_filter, self.globals).restriction
        )
        if verdict is not None:
            scope.restrictions[COMPOSED] = verdict
            if null_lists(outcome.tool_filter):
                scope.nulls[COMPOSED] = null_lists(outcome.tool_filter)
        if outcome.output_schema is not None:
            scope.locals.append(STRUCTURED_OUTPUT)
        persona = _child_persona(request, self.presets)
        child = AgentModel(label, label, scope, outcome.persona if persona else None, kind="child",
                           preset=str(request["preset"]) if "preset" in request else None,
                           persona_grammar=outcome.persona_grammar)
        session = SessionModel(
            label,
            outcome.child_depth,
            parent.session,
            tool_filter=outcome.tool_filter,
            persona=outcome.persona if persona else None,
            persona_grammar=outcome.persona_grammar,
            output_schema=outcome.output_schema,
            composed=True,
            provider=str(request["provider"]),
        )
        # the request's own persona / toolFilter (with or without a preset): EN-03 diagnosis
        child.overrides = {k: request[k] for k in ("persona", "toolFilter")
                           if request.get(k) is not None}
        if outcome.spawn_policy is not None:
            child.policies[COMPOSED] = self._policy(outcome.spawn_policy)
        provider = self.providers.get(str(request["provider"]), frozenset())
        child.model, child.model_judged = outcome.model, Capability.MODEL_SELECTION in provider
        composed = request.get("model")
        preset = self.presets.get(str(request.get("preset"))) if "preset" in request else None
        if composed is None and preset is not None:
            composed = preset.model
        session.spawn_policy, session.runs_on = outcome.spawn_policy, outcome.model
        session.model = None if composed is None else str(composed)
        return child, session

    def _policy(self, value: object) -> Restriction:
        """A composed policy the oracle accepted (valid over the presets)."""
        return parse_policies([value], self.presets)[0]

    def expect_resume(self, session: SessionModel) -> tuple[Expect, int | None]:
        """DE-06 (a stored depth outside the domain does not load), FR-04 (a descriptor that
        no longer applies fails cleanly), else the restored header depth (DE-09)."""
        verdict = check_depth(session.header)
        if verdict.value is None:
            return Expect.refuse(ErrorCode.INVALID_DEPTH, reason=verdict.advice()), None
        if session.tool_filter is not None:
            check = validate_restriction(session.tool_filter, self.globals)
            if not check.ok:
                return Expect.refuse(
                    ErrorCode.NOT_RESUMABLE, ErrorCode.INVALID_TOOL_FILTER,
                    ErrorCode.SETUP_FAILED, reason=check.reason,
                ), None
        return Expect.ok(), verdict.value

    def resume(self, session: SessionModel, label: str) -> AgentModel:
        session.rewritten = False  # the resumed agent has the stored depth as it is now
        scope = ScopeModel(mode=self.mode)
        if session.tool_filter is not None:
            restriction = validate_restriction(session.tool_filter, self.globals).restriction
            assert restriction is not None
            scope.restrictions[COMPOSED] = restriction
            if null_lists(session.tool_filter):
                scope.nulls[COMPOSED] = null_lists(session.tool_filter)
        if session.output_schema is not None:
            scope.locals.append(STRUCTURED_OUTPUT)
        agent = AgentModel(label, session.label, scope, session.persona, kind="resumed",
                           persona_grammar=session.persona_grammar)
        if session.spawn_policy is not None:
            agent.policies[COMPOSED] = self._policy(session.spawn_policy)
        agent.model = session.runs_on if session.composed else self.root_model
        provider = self.providers.get(str(session.provider), frozenset())
        agent.model_judged = session.composed and Capability.MODEL_SELECTION in provider
        self.add_agent(agent, session)
        return agent


def _child_persona(request: Mapping[str, object], presets: Mapping[str, Preset]) -> bool:
    """Whether the child got a persona of its own (request or preset), not the inherited one."""
    if request.get("persona") is not None:
        return True
    preset = presets.get(str(request.get("preset"))) if "preset" in request else None
    return preset is not None and preset.persona is not None
