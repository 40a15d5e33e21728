"""Private helpers of the PE, FR and EN checks: how a child is composed, and what it must carry.

A check asks for a child composition (persona, tool filter, output schema) and this module puts
it where the run's edition takes it from: a preset (``preset-composition``, EN-01) or the start
request itself (``request-controls``, EN-03). The expected composition is always the spec
oracle's: :func:`~subagent_tck.spec.decide_start` judges the start, and
:func:`~subagent_tck.spec.resolve_sections` / :func:`~subagent_tck.spec.resolve_view` say what
the child's prompt and view must be. :class:`Observed` is everything a rejection must leave
unchanged (FR-02, FR-03, EN-02).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagent_tck.spec import (
    PERSONA_SECTION,
    STRUCTURED_OUTPUT,
    Capability,
    Edition,
    PresentationMode,
    Preset,
    Section,
    StartOutcome,
    StartState,
    TckError,
    ViewEntry,
    assemble_system_prompt,
    decide_start,
    render_template,
    resolve_sections,
    resolve_view,
    validate_restriction,
    wire_tool_names,
)
from subagent_tck.spec.persona import NamedText

from ..check import CheckContext
from ..gateway import Gateway
from ..protocol import (
    DeploymentConfig,
    ModelRequest,
    PresetSpec,
    ProviderInfo,
    SectionSpec,
    StartRequest,
    ToolSpec,
    given,
)
from ..target import Deployment
from ._support import observe

#: The preset a check composes its child through in the preset-composition edition.
CHILD_PRESET = "child"
#: A valid output schema: an object schema (FR-01 expects ``structured_output`` in the view).
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
#: Deployment prose after the persona section; brace-free, so it renders as itself.
HOUSE_SECTION = SectionSpec(name="house:rules", text="HOUSE-RULES: answer briefly.")
DEPLOYMENT_PERSONA = "DEPLOYMENT-PERSONA of {{team}}: a careful generalist."
VARIABLES = {"team": "TEAM-SEVEN", "role": "REVIEWER"}
#: The deployment persona's rendered text must never reach a child that shadows it.
DEPLOYMENT_PERSONA_MARK = "DEPLOYMENT-PERSONA"


@dataclass(frozen=True)
class Controls:
    """A child composition to ask for; a field left unset is not asked for."""

    persona: Any = None
    tool_filter: Any = None
    output_schema: Any = None
    asked: frozenset[str] = frozenset()

    @classmethod
    def of(cls, **values: Any) -> Controls:
        """``Controls.of(persona=..., tool_filter=..., output_schema=...)``: the keys given are
        asked for, whatever their value (``persona=""`` is a persona request, PE-03)."""
        unknown = set(values) - {"persona", "tool_filter", "output_schema"}
        if unknown:
            raise TypeError(f"unknown control(s) {sorted(unknown)}")
        return cls(asked=frozenset(values), **values)

    @property
    def capabilities(self) -> frozenset[Capability]:
        wanted = {
            "persona": Capability.PERSONA,
            "tool_filter": Capability.TOOL_FILTER,
            "output_schema": Capability.OUTPUT_SCHEMA,
        }
        return frozenset(wanted[k] for k in self.asked)


def capable(provider: ProviderInfo | None, *capabilities: Capability) -> bool:
    """Whether the provider under test advertises every one of ``capabilities``."""
    return provider is not None and all(c in provider.capabilities for c in capabilities)


def supported_controls(provider: ProviderInfo | None, wanted: Controls) -> Controls:
    """``wanted`` reduced to the controls the provider advertises (the others would be refused
    by capability gating, which CA decides)."""
    keep = {
        key: getattr(wanted, key)
        for key, cap in (
            ("persona", Capability.PERSONA),
            ("tool_filter", Capability.TOOL_FILTER),
            ("output_schema", Capability.OUTPUT_SCHEMA),
        )
        if key in wanted.asked and capable(provider, cap)
    }
    return Controls.of(**keep)


def child_setup(
    edition: Edition, controls: Controls, preset_name: str = CHILD_PRESET
) -> tuple[list[PresetSpec], dict[str, Any]]:
    """Where the edition takes ``controls`` from: the presets to deploy and the start request's
    extra fields. In ``preset-composition`` a preset named ``preset_name`` carries them; in
    ``request-controls`` the request does."""
    if not controls.asked:
        return [], {}
    if edition is Edition.PRESET_COMPOSITION:
        preset = PresetSpec(
            name=preset_name,
            persona=controls.persona,
            toolFilter=controls.tool_filter,
            outputSchema=controls.output_schema,
        )
        return [preset], {"preset": preset_name}
    fields = {
        "persona": "persona",
        "tool_filter": "toolFilter",
        "output_schema": "outputSchema",
    }
    return [], {fields[k]: getattr(controls, k) for k in controls.asked}


def config(
    edition: Edition,
    *,
    tools: Sequence[str] = ("read", "write", "search"),
    persona: str | None = DEPLOYMENT_PERSONA,
    variables: Mapping[str, str] | None = None,
    presets: Sequence[PresetSpec] = (),
    mode: PresentationMode = PresentationMode.NATIVE,
) -> DeploymentConfig:
    """The deployment the PE/FR/EN checks use unless they say otherwise."""
    return DeploymentConfig(
        edition=edition,
        persona=persona,
        variables=dict(VARIABLES if variables is None else variables),
        sections=[HOUSE_SECTION],
        tools=[ToolSpec(name=t, description=f"tool {t}") for t in tools],
        presets=list(presets),
        mode=mode,
    )


def start_state(
    deployment: Deployment, cfg: DeploymentConfig, globals_: Sequence[str]
) -> StartState:
    """The oracle's view of the deployment at the moment of a start."""
    return StartState(
        edition=cfg.edition,
        providers={p.name: list(p.capabilities) for p in deployment.providers()},
        global_names=list(globals_),
        presets={
            p.name: Preset(p.persona, p.toolFilter, p.outputSchema) for p in cfg.presets
        },
        variables=dict(cfg.variables),
        deployment_persona=cfg.persona,
    )


def judge(
    deployment: Deployment, cfg: DeploymentConfig, globals_: Sequence[str], request: StartRequest
) -> StartOutcome:
    """The oracle's verdict on ``request`` (absent fields are not asked for)."""
    return decide_start(start_state(deployment, cfg, globals_), given(request))


def deployment_sections(cfg: DeploymentConfig) -> tuple[Section, ...]:
    """The deployment's own prompt: the rendered persona (if any), then its sections."""
    out: list[Section] = []
    if cfg.persona is not None:
        rendered = render_template(cfg.persona, cfg.variables)
        if rendered.text is None:
            raise ValueError(f"the check's deployment persona is itself invalid: {rendered.reason}")
        out.append(Section(PERSONA_SECTION, rendered.text))
    out.extend(Section(s.name, s.text) for s in cfg.sections)
    return tuple(out)


def expected_sections(cfg: DeploymentConfig, outcome: StartOutcome) -> tuple[Section, ...]:
    """The child's prompt: its persona shadows the deployment's (PE-01..03)."""
    scoped = [] if outcome.persona is None else [Section(PERSONA_SECTION, outcome.persona)]
    return resolve_sections(deployment_sections(cfg), scoped)


def expected_view(
    outcome: StartOutcome,
    globals_: Sequence[str],
    mode: PresentationMode,
    installed_over: Iterable[str] | None = None,
) -> tuple[ViewEntry, ...]:
    """The child's view: globals through its filter, then ``structured_output`` when it has an
    output schema, then ``run_code`` where the mode offers it (FR-01). ``installed_over``: the
    globals the filter was validated against (when some of them are gone since, TF-11)."""
    restrictions = []
    if outcome.tool_filter is not None:
        over = list(globals_ if installed_over is None else installed_over)
        verdict = validate_restriction(outcome.tool_filter, over)
        if verdict.restriction is None:
            raise ValueError(f"the oracle accepted a filter it cannot read: {verdict.reason}")
        restrictions.append(verdict.restriction)
    locals_ = [STRUCTURED_OUTPUT] if outcome.output_schema is not None else []
    return resolve_view(list(globals_), restrictions, locals_, mode)


def expected_wire(view: Sequence[ViewEntry], mode: PresentationMode) -> list[str]:
    return sorted(wire_tool_names(view, mode))


def expected_system(cfg: DeploymentConfig, outcome: StartOutcome) -> str:
    return assemble_system_prompt(expected_sections(cfg, outcome))


def composed_in(observed: Sequence[Sequence[str]], expected: Sequence[Sequence[str]]) -> bool:
    """The expected ``[name, text]`` sections stand in ``observed`` in their order (FR-01,
    FR-02). A runtime may contribute sections of its own between them (tool guidance that
    follows visibility, TF-16), but none may carry the name of a composed section: that would
    be a second channel (PE-04)."""
    want = [list(e) for e in expected]
    names = {e[0] for e in want}
    position = 0
    for section in (list(o) for o in observed):
        if position < len(want) and section == want[position]:
            position += 1
        elif section[0] in names:
            return False
    return position == len(want)


def carries_composition(
    system: str, inspected: Sequence[Sequence[str]], expected: Sequence[Sequence[str]]
) -> bool:
    """A request's system text is the agent's inspected prompt (one channel, PE-04) and that
    prompt carries the composed sections (:func:`composed_in`)."""
    text = assemble_system_prompt([Section(name, body) for name, body in inspected])
    return system == text and composed_in(inspected, expected)


# --- observations ------------------------------------------------------------------------


def sections_of(deployment: Deployment, agent: str) -> list[list[str]]:
    """Prompt inspection as ``[[name, text], ...]`` (comparable with :func:`as_pairs`)."""
    return [[s.name, s.text] for s in deployment.prompt(agent)]


def as_pairs(sections: Iterable[NamedText]) -> list[list[str]]:
    return [[s.name, s.text] for s in sections]


def view_pairs(entries: Iterable[Any]) -> list[list[str]]:
    """A view (observed entries or oracle entries) as sorted ``[name, origin]`` pairs."""
    return sorted([e.name, getattr(e.origin, "value", e.origin)] for e in entries)


def wire_names(request: ModelRequest) -> list[str]:
    return sorted(t.name for t in request.tools)


def request_text(request: ModelRequest) -> str:
    """Everything a model request carries as text: system, messages, context notices."""
    parts = [request.system, *request.context]
    for message in request.messages:
        content = message.content
        parts.append(content if isinstance(content, str) else json.dumps(content, default=str))
    return "\n".join(parts)


def message_text(request: ModelRequest) -> str:
    """What a request carries outside its system text (messages and context notices)."""
    parts = list(request.context)
    for message in request.messages:
        content = message.content
        parts.append(content if isinstance(content, str) else json.dumps(content, default=str))
    return "\n".join(parts)


@dataclass
class Observed:
    """Everything observable that a rejected operation must leave as it was."""

    sessions: list[Any]
    agents: list[str]
    events: list[Any]
    invocations: list[Any]
    requests: int
    views: dict[str, list[list[str]]] = field(default_factory=dict)
    prompts: dict[str, list[list[str]]] = field(default_factory=dict)

    @classmethod
    def take(
        cls, deployment: Deployment, gateway: Gateway, agents: Iterable[str] = ()
    ) -> Observed:
        """Observe the deployment; ``agents``: whose view and prompt to record as well."""
        agents = list(agents)
        seen = observe(deployment)
        return cls(
            sessions=[h.model_dump(mode="json") for h in seen.sessions],
            agents=sorted(seen.agents),
            events=[e.model_dump(mode="json") for e in seen.events],
            invocations=[i.model_dump(mode="json") for i in seen.invocations],
            requests=len(gateway.requests()),
            views={a: view_pairs(deployment.view(a)) for a in agents},
            prompts={a: sections_of(deployment, a) for a in agents},
        )

    def changes(self, other: Observed) -> dict[str, Any]:
        """What differs in ``other`` (empty: nothing changed)."""
        out: dict[str, Any] = {}
        for name in ("sessions", "agents", "events", "invocations", "requests", "views",
                     "prompts"):
            before, after = getattr(self, name), getattr(other, name)
            if before != after:
                out[name] = {"before": before, "after": after}
        return out


def deploy_or_refusal(ctx: CheckContext, cfg: DeploymentConfig) -> Deployment | TckError:
    """Deploy ``cfg``, or the refusal when the target rejects it at configuration time (a bad
    preset persona may be refused when the preset is added, before any start)."""
    try:
        return ctx.deploy(cfg)
    except TckError as exc:
        return exc


def named(token: str, message: str) -> bool:
    """Whether an error message names a placeholder: the token itself or its inner name."""
    inner = token.strip().strip("{}").strip()
    return token in message or (bool(inner) and inner in message)


def oracle_accepts(outcome: StartOutcome, what: str) -> None:
    """The check's own start must be one the oracle accepts; otherwise the check is wrong."""
    if not outcome.ok:
        reasons = "; ".join(f.reason for f in outcome.faults)
        raise AssertionError(f"the check's {what} is refused by the oracle itself: {reasons}")


def start_request(
    deployment: Deployment, provider: ProviderInfo | None, prompt: str, extra: Mapping[str, Any]
) -> StartRequest:
    """A start from the root agent through the provider under test."""
    if provider is None:
        raise AssertionError("a per-provider check ran without a provider")
    return StartRequest(
        parent=deployment.root().agent, provider=provider.name, prompt=prompt, **extra
    )
