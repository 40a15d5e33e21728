"""Checks of the entry points by edition (EN-01..EN-03), per provider.

``preset-composition``: a new child takes persona, tool filter and output schema from the preset
it is started with (EN-01), and a start request carrying ``persona`` or ``toolFilter`` is refused
with nothing created (EN-02). ``request-controls``: the start request's own ``persona`` and
``toolFilter`` compose the child as the PE and TF rules say, each gated by the provider's
capability (EN-03). Expected compositions and refusals are the spec oracle's
(:func:`~subagent_tck.spec.decide_start` and the view/section resolvers).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from subagent_tck.spec import Edition, ErrorCode, assemble_system_prompt

from ...core.protocol import DeploymentConfig, PresetSpec, StartRequest
from ...core.target import Deployment
from ..check import CheckContext, check
from ..partitions import Partition
from ._composed import config, each_case, expected_sections, expected_view, expected_wire
from ._framed import carries_framed, composed_or_framed, foreign_personas
from ._observed import as_pairs, expect_unchanged, sections_of, snapshot, view_pairs, wire_names
from ._starts import (
    OUTPUT_SCHEMA,
    judge,
    oracle_accepts,
    provider_name,
    start_request,
    supported_controls,
)
from ._texts import EXAMPLE, Vocabulary


def _preset(name: str, controls: dict[str, Any]) -> PresetSpec:
    return PresetSpec(name=name, **controls)


def _judge_composed_child(
    ctx: CheckContext,
    rule: str,
    dep: Deployment,
    cfg: DeploymentConfig,
    request: StartRequest,
    what: str,
) -> None:
    """Start ``request``, which the oracle accepts, and compare the child's prompt, view and
    first model request with the oracle's composition."""
    globals_ = [t.name for t in cfg.tools]
    outcome = judge(ctx, cfg, globals_, request)
    oracle_accepts(outcome, what)
    with ctx.step(rule, f"starting {what}"):
        child = dep.start(request)
    sections = as_pairs(expected_sections(cfg, outcome))
    view = expected_view(outcome, globals_, cfg.mode)
    # As FR-01 judges it (composed_in): the composed sections stand in order; a runtime's own
    # guidance sections between them (TF-16) are not the rule's concern (docs/rules.md#en-01).
    inspected = sections_of(dep, child.agent)
    composed = expected_sections(cfg, outcome)
    foreign = foreign_personas(cfg, outcome.persona)
    ctx.expect(
        rule,
        composed_or_framed(ctx, inspected, composed, foreign=foreign),
        f"{what}: the child's prompt carries the composed persona",
        sections,
        inspected,
    )
    ctx.expect(
        rule,
        view_pairs(dep.view(child.agent)) == view_pairs(view),
        f"{what}: the child's view is the composed one",
        view_pairs(view),
        view_pairs(dep.view(child.agent)),
    )
    requests = ctx.gateway.requests(child.agent)
    wire = expected_wire(view, cfg.mode)
    system = assemble_system_prompt(expected_sections(cfg, outcome))
    ctx.expect(
        rule,
        bool(requests) and wire_names(requests[0]) == wire
        and carries_framed(ctx, requests[0].system, inspected, composed, foreign=foreign),
        f"{what}: the child's first request carries the composition",
        {"system": system, "tools": wire},
        {"system": requests[0].system, "tools": wire_names(requests[0])} if requests else None,
    )


def _judge_refused(
    ctx: CheckContext,
    rule: str,
    dep: Deployment,
    cfg: DeploymentConfig,
    request: StartRequest,
    what: str,
    must_include: ErrorCode,
) -> None:
    """``request`` must be refused with a code the oracle gives, and create nothing."""
    outcome = judge(ctx, cfg, [t.name for t in cfg.tools], request)
    if must_include not in outcome.codes:
        raise AssertionError(f"the oracle should refuse {what} with {must_include.value}")
    before = snapshot(dep, ctx.gateway, [dep.root().agent])
    ctx.expect_error(rule, outcome.codes, lambda: dep.start(request), what)
    expect_unchanged(ctx, rule, before, dep, what)


EN01 = (Partition("EN-01", "two-presets", "two presets, each composing its own persona, "
                  "filter and output schema, named in capitals a folding lookup loses"),)


@check("EN-01", name="preset-composes", edition=Edition.PRESET_COMPOSITION, partitions=EN01)
def preset_composes(ctx: CheckContext) -> None:
    """A child started with preset P gets P's persona, tool filter and output schema (each as
    far as the provider advertises it); another preset gives another composition."""
    # The hand-written case names its presets P and Q: capitals, which a lookup that folds
    # case loses.
    example = replace(EXAMPLE, presets=("P", "Q", "plain"))
    each_case(ctx, ["EN-01"], lambda texts: _preset_composes(ctx, texts), example=example)
    ctx.drew("EN-01", "two-presets")


def _preset_composes(ctx: CheckContext, texts: Vocabulary) -> None:
    t = texts.tools
    p_controls = supported_controls(ctx.provider, {
        "persona": texts.child_persona, "toolFilter": {"allow": [t[0], t[2]]},
        "outputSchema": OUTPUT_SCHEMA})
    q_controls = supported_controls(ctx.provider, {
        "persona": texts.sibling_persona, "toolFilter": {"deny": [t[0]]}})
    if not p_controls:
        ctx.skip(
            "EN-01",
            "the provider advertises none of persona, toolFilter, outputSchema: a preset "
            "composing them is refused (CA-01 decides)",
        )
        return
    p_name, q_name, _ = texts.presets
    presets = [_preset(p_name, p_controls), _preset(q_name, q_controls)]
    cfg = config(Edition.PRESET_COMPOSITION, tools=t, texts=texts, presets=presets)
    dep = ctx.deploy(cfg)
    for name in (p_name, q_name):
        request = start_request(dep.root().agent, provider_name(ctx), f"task for {name}",
                                {"preset": name})
        _judge_composed_child(ctx, "EN-01", dep, cfg, request, f"a child of preset {name!r}")


EN02_CASES = {"a request persona": "request-persona",
              "an empty request persona": "empty-request-persona",
              "a request tool filter": "request-filter",
              "a request persona and tool filter": "request-persona-and-filter",
              "a request persona beside a preset": "persona-beside-a-preset"}
EN02 = tuple(Partition("EN-02", part, f"{what}: refused, nothing created")
             for what, part in EN02_CASES.items())


@check("EN-02", name="request-overrides-refused", edition=Edition.PRESET_COMPOSITION,
       partitions=EN02)
def request_overrides_refused(ctx: CheckContext) -> None:
    """A new start request carrying ``persona`` or ``toolFilter`` is refused
    (``REQUEST_CONTROLS_REFUSED``), with or without a preset; nothing is created."""
    each_case(ctx, ["EN-02"], lambda texts: _request_overrides_refused(ctx, texts))


def _request_overrides_refused(ctx: CheckContext, texts: Vocabulary) -> None:
    t, plain, persona = texts.tools, texts.presets[2], texts.child_persona
    cfg = config(Edition.PRESET_COMPOSITION, tools=t, texts=texts,
                 presets=[PresetSpec(name=plain, outputSchema=None)])
    dep = ctx.deploy(cfg)
    cases: list[tuple[str, dict[str, Any]]] = [
        ("a request persona", {"persona": persona}),
        ("an empty request persona", {"persona": ""}),
        ("a request tool filter", {"toolFilter": {"deny": [t[1]]}}),
        ("a request persona and tool filter",
         {"persona": persona, "toolFilter": {"allow": [t[0]]}}),
        ("a request persona beside a preset", {"preset": plain, "persona": persona}),
    ]
    for what, extra in cases:
        request = start_request(dep.root().agent, provider_name(ctx), "child task", extra)
        _judge_refused(ctx, "EN-02", dep, cfg, request, what, ErrorCode.REQUEST_CONTROLS_REFUSED)
        ctx.drew("EN-02", EN02_CASES[what])


EN03_CASES = {"a request persona": "request-persona",
              "a request tool filter": "request-filter",
              "a request persona and deny-only filter": "request-persona-and-deny-filter"}
EN03 = tuple(Partition("EN-03", part, f"{what}: composes the child (refused where the provider "
                       "lacks the capability)") for what, part in EN03_CASES.items())


@check("EN-03", name="request-controls", edition=Edition.REQUEST_CONTROLS, partitions=EN03)
def request_controls(ctx: CheckContext) -> None:
    """The start request's ``persona`` and ``toolFilter`` compose the child, each gated by the
    provider's capability. The request names no preset: docs/rules.md#editions says a check may
    not ask a request-controls start to select one."""
    each_case(ctx, ["EN-03"], lambda texts: _request_controls(ctx, texts))


def _request_controls(ctx: CheckContext, texts: Vocabulary) -> None:
    t = texts.tools
    cfg = config(Edition.REQUEST_CONTROLS, tools=t, texts=texts)
    dep = ctx.deploy(cfg)
    cases: list[tuple[str, dict[str, Any]]] = [
        ("a request persona", {"persona": texts.child_persona}),
        ("a request tool filter", {"toolFilter": {"allow": [t[0], t[1]], "deny": [t[1]]}}),
        ("a request persona and deny-only filter",
         {"persona": texts.sibling_persona, "toolFilter": {"deny": [t[2]]}}),
    ]
    for what, extra in cases:
        request = start_request(dep.root().agent, provider_name(ctx), "child task", extra)
        outcome = judge(ctx, cfg, t, request)
        if outcome.ok:
            _judge_composed_child(ctx, "EN-03", dep, cfg, request, what)
        else:
            _judge_refused(
                ctx, "EN-03", dep, cfg, request, what, ErrorCode.UNSUPPORTED_CAPABILITY
            )
        ctx.drew("EN-03", EN03_CASES[what])
