"""The deployment the PE/FR/EN checks compose their children in, and what a child of it must
carry; nothing here decides a rule (checks call ``ctx.expect``/``ctx.fail``).

- :func:`config`: the deployment, its texts drawn by :mod:`._texts`; :func:`each_case` runs a
  case on the hand-written texts, then on drawn ones.
- :func:`expected_sections`, :func:`expected_view`, :func:`expected_wire`,
  :func:`expected_system`: what the oracle says the child's prompt, view and wire are;
  :func:`composed_in` / :func:`carries_composition`: whether an observed prompt carries them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    ABSENT,
    PERSONA_SECTION,
    STRUCTURED_OUTPUT,
    Edition,
    PresentationMode,
    Section,
    StartOutcome,
    TckError,
    ViewEntry,
    assemble_system_prompt,
    render_template,
    resolve_sections,
    resolve_view,
    validate_restriction,
    wire_tool_names,
)

from ...core.protocol import DeploymentConfig, PresetSpec, SectionSpec, ToolSpec
from ...core.target import Deployment
from ..check import CheckContext, Inexpressible
from ._texts import EXAMPLE, Vocabulary, vocabularies

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
