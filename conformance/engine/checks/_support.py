"""The one helper library of the checks: snapshots, views, where an edition puts a child's
controls, starts and the oracle's answer for them, and what a composed child must carry.

Nothing here decides a rule: the helpers observe through the :class:`~..target.Deployment`
protocol and compute expectations with the spec oracle; checks call ``ctx.expect``/``ctx.fail``.
Each concept has one home here:

- :class:`Snapshot` / :func:`snapshot` / :func:`expect_unchanged`: "a rejection changes
  nothing" (DE-04..08, CA-02, CA-05, TF-07, TF-08, FR-02, FR-03, FR-04, EN-02, PE-03) judged
  over sessions, published agents, lifecycle events, tool invocations, model requests and, for
  the agents a check names, their views and prompts.
- :func:`view_set` / :func:`oracle_view` / :func:`view_pairs`: views compared as sets of
  ``(name, origin)`` (docs/rules.md#TF-01: order is free).
- :func:`composition`: where a child's persona, tool filter and output schema go in the run's
  edition (a preset in ``preset-composition``, EN-01; the request in ``request-controls``,
  EN-03). Controls are keyed by their request field; which capability each asks for is the
  spec's :data:`~subagent_tck.spec.FIELD_CAPABILITY`, nowhere else.
- :func:`start_request` / :func:`start_state` / :func:`expected_start` / :func:`judge`: a start
  and the oracle's verdict on it as the deployment stands.
- :func:`config`, :func:`expected_sections`, :func:`expected_view`, :func:`carries_composition`:
  the deployment the PE/FR/EN checks compose their children in (its texts drawn by
  :mod:`._texts`) and what a child of it must carry.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    ABSENT,
    FIELD_CAPABILITY,
    PERSONA_SECTION,
    STRUCTURED_OUTPUT,
    Capability,
    Edition,
    PresentationMode,
    Preset,
    Restriction,
    Section,
    StartOutcome,
    StartState,
    TckError,
    ViewEntry,
    assemble_system_prompt,
    check_depth,
    decide_start,
    render_template,
    resolve_sections,
    resolve_view,
    validate_restriction,
    wire_tool_names,
)
from subagent_tck.spec.persona import NamedText

from ...core.gateway import Gateway
from ...core.protocol import (
    DeploymentConfig,
    ModelRequest,
    Observation,
    PresetSpec,
    ProviderInfo,
    SectionSpec,
    SessionHeader,
    StartRequest,
    ToolSpec,
)
from ...core.target import Deployment
from ..check import CheckContext, Inexpressible
from ._names import names_token
from ._texts import EXAMPLE, Vocabulary, vocabularies

_COUNTER = itertools.count(1)

#: The name :func:`composition` gives the preset it makes in the preset-composition edition.
PRESET_NAME = "tck-composition"
#: A valid output schema: an object schema (FR-01 expects ``structured_output`` in the view).
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
#: The child controls a composition places (``maxDepth`` always travels in the request).
COMPOSED = ("persona", "toolFilter", "outputSchema")


def marker(label: str) -> str:
    """A unique string to place in a prompt so that the gateway can script that agent."""
    return f"[tck:{label}:{next(_COUNTER)}]"


# --- snapshots ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Everything a rejected operation must leave unchanged, as plain JSON values; ``views``
    and ``prompts`` of the agents named when it was taken (``watched``)."""

    sessions: tuple[Any, ...]
    agents: tuple[str, ...]
    events: tuple[Any, ...]
    invocations: tuple[Any, ...]
    requests: int
    watched: tuple[str, ...] = ()
    views: Mapping[str, Any] = field(default_factory=dict)
    prompts: Mapping[str, Any] = field(default_factory=dict)

    def changes(self, other: Snapshot) -> dict[str, Any]:
        """What differs in ``other``, part by part (empty: nothing changed)."""
        out: dict[str, Any] = {}
        for part in ("sessions", "agents", "events", "invocations", "requests", "views",
                     "prompts"):
            before, after = getattr(self, part), getattr(other, part)
            if before != after:
                out[part] = {"before": before, "after": after}
        return out

    def differences(self, other: Snapshot) -> list[str]:
        """The parts that differ between two snapshots, named for a failure message."""
        out = []
        for part in self.changes(other):
            mine, theirs = getattr(self, part), getattr(other, part)
            if part == "requests":
                out.append(f"model requests: {mine} -> {theirs}")
            elif part in ("views", "prompts"):
                moved = sorted(a for a in self.watched if mine.get(a) != theirs.get(a))
                out.append(f"{part} of {', '.join(moved)}")
            else:
                out.append(f"{part}: {len(mine)} -> {len(theirs)}")
        return out


def observe(deployment: Deployment) -> Observation:
    """Sessions, agents, events and invocations in one call (one round trip over HTTP); a
    Python target written before ``observe`` joined the protocol is read four times."""
    method = getattr(deployment, "observe", None)
    if method is not None:
        observed: Observation = method()
        return observed
    return Observation(sessions=deployment.sessions(), agents=deployment.agents(),
                       events=deployment.events(), invocations=deployment.invocations())


def snapshot(deployment: Deployment, gateway: Gateway, agents: Iterable[str] = ()) -> Snapshot:
    """Observe the deployment; ``agents``: whose view and prompt to record as well."""
    watched = tuple(agents)
    seen = observe(deployment)
    return Snapshot(
        tuple(h.model_dump(mode="json") for h in seen.sessions),
        tuple(sorted(seen.agents)),
        tuple(e.model_dump(mode="json") for e in seen.events),
        tuple(i.model_dump(mode="json") for i in seen.invocations),
        len(gateway.requests()),
        watched,
        {a: view_pairs(deployment.view(a)) for a in watched},
        {a: sections_of(deployment, a) for a in watched},
    )


def expect_unchanged(
    ctx: CheckContext, rule: str, before: Snapshot, deployment: Deployment, what: str,
    unrelated: Iterable[str] = (),
) -> bool:
    """``rule`` holds iff nothing observable changed since ``before`` (uses ``ctx.gateway``;
    the agents ``before`` watched are watched again). Model requests of the ``unrelated``
    agents (ones the operation does not address, which may still be finishing earlier work on
    a target whose children run asynchronously) are no trace of it."""
    after = snapshot(deployment, ctx.gateway, before.watched)
    others = set(unrelated)
    if others:
        late = sum(1 for r in ctx.gateway.requests()[before.requests:] if r.agent in others)
        after = dataclasses.replace(after, requests=after.requests - late)
    changed = before.differences(after)
    return ctx.expect(
        rule,
        not changed,
        f"{what} left traces: " + "; ".join(changed),
        "nothing created: no session, agent, event, tool invocation or model request"
        + (", and the watched agents' views and prompts as they were" if before.watched else ""),
        {"changed": changed, "events": list(after.events[len(before.events):]),
         # who made the requests since: a late one from an earlier step or one of the operation
         "new model requests": [{"agent": r.agent, "messages": len(r.messages)}
                                for r in ctx.gateway.requests()[before.requests:]]},
        # the baseline's name for it: which traces a target that runs children on its own
        # time has left by the moment they are counted is its timing (docs/baseline.md)
        key=f"{what} left traces",
    )


# --- views -------------------------------------------------------------------------------


def view_set(entries: Iterable[Any]) -> frozenset[tuple[str, str]]:
    """A view (protocol or spec entries) as a set of ``(name, origin)``."""
    return frozenset((e.name, _value(e.origin)) for e in entries)


def view_pairs(entries: Iterable[Any]) -> list[list[str]]:
    """A view (observed entries or oracle entries) as sorted ``[name, origin]`` pairs."""
    return sorted([e.name, _value(e.origin)] for e in entries)


def duplicate_names(entries: Iterable[Any]) -> list[str]:
    """Names offered more than once (a view has one entry per name)."""
    seen: set[str] = set()
    dup: list[str] = []
    for e in entries:
        if e.name in seen and e.name not in dup:
            dup.append(e.name)
        seen.add(e.name)
    return dup


def oracle_view(
    global_names: Sequence[str],
    restrictions: Iterable[object],
    local_names: Sequence[str] = (),
    mode: PresentationMode = PresentationMode.NATIVE,
    *,
    valid_over: Sequence[str] | None = None,
) -> frozenset[tuple[str, str]]:
    """The oracle's view as a set; ``restrictions`` are raw values, each valid over
    ``valid_over`` (the globals registered when it was installed; default ``global_names``)."""
    over = global_names if valid_over is None else valid_over
    parsed = []
    for raw in restrictions:
        verdict = validate_restriction(raw, over)
        if verdict.restriction is None:
            raise ValueError(f"check bug: restriction {raw!r} is invalid: {verdict.reason}")
        parsed.append(verdict.restriction)
    return view_set(resolve_view(global_names, parsed, local_names, mode))


def wire_names(request: ModelRequest) -> list[str]:
    return sorted(t.name for t in request.tools)


def _value(item: Any) -> str:
    return str(getattr(item, "value", item))


# --- composition -------------------------------------------------------------------------


@dataclass(frozen=True)
class Composition:
    """Where a child's controls go: ``presets`` for the deployment config, ``fields`` for the
    start request (see :func:`composition`)."""

    presets: list[PresetSpec] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)

    def oracle_presets(self) -> dict[str, Preset]:
        return oracle_presets(self.presets)


def oracle_presets(presets: Iterable[PresetSpec]) -> dict[str, Preset]:
    """Deployment presets as the oracle reads them."""
    return {p.name: Preset(p.persona, p.toolFilter, p.outputSchema, p.spawnPolicy, p.model)
            for p in presets}


def composition(
    edition: Edition, controls: Mapping[str, Any], preset: str = PRESET_NAME
) -> Composition:
    """Put ``controls`` (``{persona?, toolFilter?, outputSchema?}``: a key given is asked for,
    whatever its value, ``persona=""`` included, PE-03) in a preset named ``preset``
    (preset-composition: the request names the preset, EN-01) or in the request itself
    (request-controls, EN-03)."""
    unknown = set(controls) - set(COMPOSED)
    if unknown:
        raise TypeError(f"check bug: {sorted(unknown)} are not composed controls")
    if not controls:
        return Composition()
    if edition is Edition.PRESET_COMPOSITION:
        return Composition([PresetSpec(name=preset, **controls)], {"preset": preset})
    return Composition([], dict(controls))


def capabilities_of(controls: Mapping[str, Any]) -> frozenset[Capability]:
    """The capabilities asking for ``controls`` needs (the spec's field-to-capability map)."""
    return frozenset(FIELD_CAPABILITY[k] for k in controls)


def capable(provider: ProviderInfo | None, *capabilities: Capability) -> bool:
    """Whether the provider under test advertises every one of ``capabilities``."""
    return provider is not None and all(c in provider.capabilities for c in capabilities)


def supported_controls(provider: ProviderInfo | None, wanted: Mapping[str, Any]) -> dict[str, Any]:
    """``wanted`` reduced to the controls the provider advertises (the others would be refused
    by capability gating, which CA decides)."""
    return {k: v for k, v in wanted.items() if capable(provider, FIELD_CAPABILITY[k])}


# --- starts ------------------------------------------------------------------------------


def provider_name(ctx: CheckContext) -> str:
    """The name of the provider under test (a per-provider check has one)."""
    if ctx.provider is None:
        raise AssertionError("a per-provider check ran without a provider")
    return ctx.provider.name


def start_request(
    parent: str, provider: object, prompt: str, fields: Mapping[str, Any] | None = None
) -> StartRequest:
    """A start request with exactly ``fields`` set (absent controls stay absent)."""
    return StartRequest(parent=parent, provider=provider, prompt=prompt, **dict(fields or {}))


def start_state(
    ctx: CheckContext,
    *,
    global_names: Sequence[str] = (),
    presets: Mapping[str, Preset] | None = None,
    parent_header: object = 0,
    parent_runtime: object = ABSENT,
    deployment_persona: str | None = None,
    variables: Mapping[str, str] | None = None,
    parent_policies: Sequence[Restriction] = (),
    parent_model: str | None = None,
) -> StartState:
    """The oracle's view of the deployment for a start (providers from the run's target)."""
    return StartState(
        edition=ctx.edition,
        providers={p.name: list(p.capabilities) for p in ctx.providers},
        global_names=tuple(global_names),
        presets=dict(presets or {}),
        variables=dict(variables or {}),
        deployment_persona=deployment_persona,
        parent_header_depth=parent_header,
        parent_runtime_depth=parent_runtime,
        parent_policies=tuple(parent_policies),
        parent_model=parent_model,
    )


def expected_start(state: StartState, request: StartRequest) -> StartOutcome:
    return decide_start(state, {"provider": request.provider, "prompt": request.prompt,
                                **request.controls()})


def judge(
    ctx: CheckContext, cfg: DeploymentConfig, globals_: Sequence[str], request: StartRequest
) -> StartOutcome:
    """The oracle's verdict on ``request`` from the top-level agent of a deployment of ``cfg``
    whose globals are now ``globals_`` (absent fields are not asked for)."""
    state = start_state(ctx, global_names=globals_, presets=oracle_presets(cfg.presets),
                        deployment_persona=cfg.persona, variables=cfg.variables)
    return expected_start(state, request)


def oracle_accepts(outcome: StartOutcome, what: str) -> None:
    """The check's own start must be one the oracle accepts; otherwise the check is wrong."""
    if not outcome.ok:
        reasons = "; ".join(f.reason for f in outcome.faults)
        raise AssertionError(f"the check's {what} is refused by the oracle itself: {reasons}")


def header_of(deployment: Deployment, session: str) -> SessionHeader | None:
    return next((h for h in deployment.sessions() if h.session == session), None)


def header_depth(header: SessionHeader | None) -> int | None:
    """A header's ``delegationDepth`` as the oracle reads it (None: absent or out of domain)."""
    return None if header is None else check_depth(header.delegationDepth).value


# --- the deployment a child is composed in (PE, FR, EN) ----------------------------------


def config(
    edition: Edition,
    *,
    tools: Sequence[str],
    texts: Vocabulary = EXAMPLE,
    persona: Any = ABSENT,
    variables: Mapping[str, str] | None = None,
    presets: Sequence[PresetSpec] = (),
    mode: PresentationMode = PresentationMode.NATIVE,
) -> DeploymentConfig:
    """The deployment a PE/FR/EN case composes its children in: ``texts``'s deployment persona
    (unless ``persona`` is given; ``None``: no deployment persona), variables and sections."""
    return DeploymentConfig(
        edition=edition,
        persona=texts.deployment_persona if persona is ABSENT else persona,
        variables=dict(texts.variables if variables is None else variables),
        sections=[SectionSpec(name=n, text=t) for n, t in texts.sections],
        tools=[ToolSpec(name=t, description=f"tool {t}") for t in tools],
        presets=list(presets),
        mode=mode,
    )


def deploy_or_refusal(ctx: CheckContext, cfg: DeploymentConfig) -> Deployment | TckError:
    """Deploy ``cfg``, or the refusal when the target rejects it at configuration time (a bad
    preset persona may be refused when the preset is added, before any start)."""
    try:
        return ctx.deploy(cfg)
    except TckError as exc:
        return exc


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


# --- reading what a target reports -------------------------------------------------------


def sections_of(deployment: Deployment, agent: str) -> list[list[str]]:
    """Prompt inspection as ``[[name, text], ...]`` (comparable with :func:`as_pairs`)."""
    return [[s.name, s.text] for s in deployment.prompt(agent)]


def as_pairs(sections: Iterable[NamedText]) -> list[list[str]]:
    return [[s.name, s.text] for s in sections]


def message_text(request: ModelRequest) -> str:
    """What a request carries outside its system text (messages and context notices)."""
    parts = list(request.context)
    for message in request.messages:
        content = message.content
        parts.append(content if isinstance(content, str) else json.dumps(content, default=str))
    return "\n".join(parts)


def request_text(request: ModelRequest) -> str:
    """Everything a model request carries as text: system, messages, context notices."""
    return "\n".join((request.system, message_text(request)))


def named(token: str, message: str) -> bool:
    """Whether an error message names a placeholder: the token itself or its inner name."""
    inner = token.strip().strip("{}").strip()
    return token in message or (bool(inner) and inner in message)


def missing_names(exc: TckError, names: Iterable[str], key: str = "offending") -> list[str]:
    """The names an error fails to list: in ``details[key]`` when the error has that key, else
    in its message as whole words."""
    listed = exc.details.get(key)
    if isinstance(listed, (list, tuple)):
        have = {str(n) for n in listed}
        return [n for n in names if n not in have]
    # Whole tokens of the tool-name grammar (``_names``): ``read`` is not listed by a message
    # that names only ``read_file``, ``read-2`` or ``Read``.
    return [n for n in names if not re.search(names_token(n), exc.message)]


def each_case(
    ctx: CheckContext, rules: Sequence[str], body: Callable[[Vocabulary], None],
    strategy: st.SearchStrategy[Vocabulary] | None = None, example: Vocabulary = EXAMPLE,
) -> None:
    """Run ``body`` on the hand-written ``example`` (default :data:`~._texts.EXAMPLE`), then,
    unless one of ``rules`` already failed, on vocabularies drawn by ``strategy`` (default
    :func:`~._texts.vocabularies`; seeded by the run's seed, shrunk on failure). An example the
    target may refuse to set up (it names one of the target's own tools,
    docs/certify.md#tools-the-target-brings) is left out: the drawn cases avoid such names."""
    try:
        body(example)
    except Inexpressible:
        ctx.close()
    if any(f.rule in rules for f in ctx.failures):
        return  # already decided; drawn cases would only shrink to a case like the example
    ctx.for_all(vocabularies(ctx.portable_variables) if strategy is None else strategy, body)
