"""Checks of which persona a child carries (PE-01, PE-02), per provider and in the run's edition.

A child persona comes from a preset in ``preset-composition`` and from the start request in
``request-controls`` (see :func:`._support.composition`); the child's prompt is read twice, through
prompt inspection (``Deployment.prompt``) and on the wire (the gateway's record of what the
child's model received), and both are compared with the spec oracle
(:func:`~subagent_tck.spec.compose_persona` through ``decide_start``,
:func:`~subagent_tck.spec.resolve_sections`, :func:`~subagent_tck.spec.assemble_system_prompt`).
Rules a provider cannot exercise because it does not advertise ``persona`` are skipped (CA-01
decides its refusal), except PE-02, which also binds the deployment persona every child
inherits. How the persona reaches the model is :mod:`.persona_channel`'s (PE-03, PE-04), how
its template renders :mod:`.persona_rendering`'s (PE-05).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import PERSONA_SECTION, Capability, Edition, assemble_system_prompt
from subagent_tck.spec.persona import NamedText

from ...core.protocol import DeploymentConfig, PresetSpec
from ...core.target import Deployment
from ..check import CheckContext, check
from ..partitions import Partition
from ._composed import config, each_case, expected_sections
from ._framed import foreign_personas, prompt_agrees, system_agrees
from ._observed import as_pairs, sections_of
from ._placeholders import WHITESPACE
from ._starts import capable, composition, judge, oracle_accepts, provider_name, start_request
from ._texts import Vocabulary, vocabularies

NO_PERSONA = "the provider does not advertise persona (CA-01 decides that it refuses one)"


def _blank_child(ctx: Any) -> Any:
    """Vocabularies whose child persona is whitespace only (a persona all the same)."""
    blank = st.text(st.sampled_from(WHITESPACE), min_size=1, max_size=8)
    return st.tuples(vocabularies(ctx.portable_variables), blank).map(
        lambda t: dataclasses.replace(t[0], child_persona=t[1]))


PE01 = (
    Partition("PE-01", "example-vocabulary", "the hand-written persona, sibling and deployment"),
    Partition("PE-01", "whitespace-only", "a child persona of whitespace only: it shadows the "
              "deployment persona as written", cases=_blank_child,
              member=lambda texts: not texts.child_persona.strip()),
)


@check("PE-01", name="persona-child-shadow", partitions=PE01)
def child_shadow(ctx: CheckContext) -> None:
    """A child persona replaces the deployment persona in the child's prompt, in its position,
    and changes neither the parent's prompt nor a sibling's (a persona of whitespace only
    too)."""
    if not capable(ctx.provider, Capability.PERSONA):
        ctx.skip("PE-01", NO_PERSONA)
        return
    each_case(ctx, ["PE-01"], lambda texts: _child_shadow(ctx, texts))
    ctx.drew("PE-01", "example-vocabulary")
    if not any(f.rule == "PE-01" for f in ctx.failures):
        ctx.cover("PE-01", lambda texts: _child_shadow(ctx, texts))


def _child_shadow(ctx: CheckContext, texts: Vocabulary) -> None:
    name = provider_name(ctx)
    child_preset, sibling_preset, _ = texts.presets
    child_comp = composition(ctx.edition, {"persona": texts.child_persona}, child_preset)
    sibling_comp = composition(ctx.edition, {"persona": texts.sibling_persona}, sibling_preset)
    cfg = config(ctx.edition, tools=texts.tools, texts=texts,
                 presets=child_comp.presets + sibling_comp.presets)
    dep = ctx.deploy(cfg)
    root = dep.root().agent
    # What the parent's prompt is, is PE-02's and PE-04's to judge; PE-01 asks only that the
    # child's persona does not change it (docs/rules.md#PE-01).
    root_before = sections_of(dep, root)
    with ctx.step("PE-01", "starting a sibling child with its own persona"):
        sibling = dep.start(start_request(root, name, "sibling task", sibling_comp.fields))
    sibling_before = sections_of(dep, sibling.agent)
    request = start_request(root, name, "child task", child_comp.fields)
    outcome = judge(ctx, cfg, texts.tools, request)
    oracle_accepts(outcome, "child start")
    with ctx.step("PE-01", "starting a child with a persona"):
        child = dep.start(request)
    expect_child_persona(
        ctx, "PE-01", dep, child.agent, expected_sections(cfg, outcome),
        f"the child's prompt carries its persona as {PERSONA_SECTION} in the deployment "
        "persona's position",
        "the child's model receives the child persona in place of the deployment persona",
        foreign_personas(cfg, outcome.persona),
    )
    ctx.expect(
        "PE-01",
        sections_of(dep, root) == root_before,
        "the parent's prompt is unchanged by the child's persona",
        root_before,
        sections_of(dep, root),
    )
    ctx.expect(
        "PE-01",
        sections_of(dep, sibling.agent) == sibling_before,
        "a sibling's prompt is unchanged by the child's persona",
        sibling_before,
        sections_of(dep, sibling.agent),
    )


PE02 = (
    Partition("PE-02", "no-persona-asked", "a child with no persona: the deployment's"),
    Partition("PE-02", "no-deployment-persona", "no persona anywhere: no persona section"),
    Partition("PE-02", "preset-persona", "a preset's persona, none in the request"),
    Partition("PE-02", "preset-without-persona", "a preset with a filter and no persona: the "
              "deployment's"),
)


@check("PE-02", name="persona-omitted-inherits", partitions=PE02)
def omitted_inherits(ctx: CheckContext) -> None:
    """Without a child persona the child carries the composed persona: the preset's, else the
    deployment's (and no persona section at all when the deployment has none)."""
    each_case(ctx, ["PE-02"], lambda texts: _omitted_inherits(ctx, texts))


def _omitted_inherits(ctx: CheckContext, texts: Vocabulary) -> None:
    tools = texts.tools
    _, _, preset_name = texts.presets
    cases: list[tuple[str, DeploymentConfig, dict[str, Any]]] = []
    cases.append(("no persona asked", config(ctx.edition, tools=tools, texts=texts), {}))
    cases.append(("no persona asked, no deployment persona",
                  config(ctx.edition, tools=tools, texts=texts, persona=None), {}))
    parts = {"no persona asked": "no-persona-asked",
             "no persona asked, no deployment persona": "no-deployment-persona",
             "a preset persona, none in the request": "preset-persona",
             "a preset without persona": "preset-without-persona"}
    # A start may name a preset only in preset-composition: docs/rules.md#editions says a check
    # may not ask a request-controls start to select a preset.
    presets_selectable = ctx.edition is Edition.PRESET_COMPOSITION
    if presets_selectable and capable(ctx.provider, Capability.PERSONA):
        preset = PresetSpec(name=preset_name, persona=texts.preset_persona)
        cases.append(
            (
                "a preset persona, none in the request",
                config(ctx.edition, tools=tools, texts=texts, presets=[preset]),
                {"preset": preset_name},
            )
        )
    if presets_selectable and capable(ctx.provider, Capability.TOOL_FILTER):
        preset = PresetSpec(name=preset_name, toolFilter={"deny": [tools[1]]})
        cases.append(
            (
                "a preset without persona",
                config(ctx.edition, tools=tools, texts=texts, presets=[preset]),
                {"preset": preset_name},
            )
        )
    for what, cfg, extra in cases:
        dep = ctx.deploy(cfg)
        request = start_request(dep.root().agent, provider_name(ctx), "child task", extra)
        outcome = judge(ctx, cfg, tools, request)
        oracle_accepts(outcome, what)
        with ctx.step("PE-02", f"starting a child ({what})"):
            child = dep.start(request)
        expect_child_persona(
            ctx, "PE-02", dep, child.agent, expected_sections(cfg, outcome),
            f"{what}: the child's prompt carries the composed persona",
            f"{what}: the child's model receives the composed persona",
            foreign_personas(cfg, outcome.persona),
        )
        ctx.drew("PE-02", parts.pop(what))
    ctx.inapplicable("PE-02", *parts.values())  # presets of another edition or capability


def expect_child_persona(
    ctx: CheckContext,
    rule: str,
    dep: Deployment,
    child: str,
    expected: Sequence[NamedText],
    claim: str,
    model_claim: str | None = None,
    foreign: Sequence[str] = (),
) -> None:
    """The child's prompt inspection gives the oracle's ``expected`` sections (``claim``)
    and, with ``model_claim``, its first model request's system text is their assembly; for a
    target that declares a prompt frame, inside the frame, with none of the ``foreign`` texts
    (other agents' personas) in the frame's own text (docs/driver-api.md#dialect)."""
    observed = sections_of(dep, child)
    ctx.expect(rule, prompt_agrees(ctx, observed, expected, foreign=foreign), claim,
               as_pairs(expected), observed)
    if model_claim is None:
        return
    requests = ctx.gateway.requests(child)
    ctx.expect(
        rule,
        bool(requests) and system_agrees(ctx, requests[0].system, expected, foreign=foreign),
        model_claim,
        assemble_system_prompt(expected),
        requests[0].system if requests else None,
    )
