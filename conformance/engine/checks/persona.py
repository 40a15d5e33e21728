"""Checks of the persona family (PE-01..PE-05), per provider and in the run's edition.

A child persona comes from a preset in ``preset-composition`` and from the start request in
``request-controls`` (see :func:`._starts.composition`); the child's prompt is read twice, through
prompt inspection (``Deployment.prompt``) and on the wire (the gateway's record of what the
child's model received), and both are compared with the spec oracle
(:func:`~subagent_tck.spec.compose_persona` through ``decide_start``,
:func:`~subagent_tck.spec.resolve_sections`, :func:`~subagent_tck.spec.assemble_system_prompt`,
:func:`~subagent_tck.spec.render_template`). Rules a provider cannot exercise because it does
not advertise ``persona`` are skipped (CA-01 decides its refusal), except PE-03, whose empty
persona must be refused by such a provider, and PE-02/PE-04/PE-05, which also bind the
deployment persona every child inherits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    PERSONA_SECTION,
    Capability,
    Edition,
    ErrorCode,
    StopReason,
    TckError,
    assemble_system_prompt,
)
from subagent_tck.spec.persona import NamedText

from ...core.gateway import call, text
from ...core.protocol import DeploymentConfig, ModelRequest, PresetSpec
from ...core.target import Deployment
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Partition
from ._composed import config, deploy_or_refusal, each_case, expected_sections
from ._framed import (
    foreign_personas,
    framed_as,
    inspected_one,
    prompt_agrees,
    system_agrees,
)
from ._observed import as_pairs, expect_unchanged, message_text, request_text, sections_of, snapshot
from ._placeholders import DESCRIPTIONS, SHAPES, WHITESPACE, Case, member, shape, shape_cases
from ._starts import (
    capable,
    composition,
    judge,
    marker,
    oracle_accepts,
    provider_name,
    start_request,
)
from ._template_grammar import classify, judge_named, judge_refusal
from ._texts import EXAMPLE, Vocabulary, template_cases, vocabularies

#: A deployment persona without placeholders, valid whatever variables a case draws.
PLAIN_PERSONA = "DEPLOYMENT-PERSONA: a careful generalist."
NO_PERSONA = "the provider does not advertise persona (CA-01 decides that it refuses one)"
#: A persona text this long is searched for in what a request carries outside its system text
#: (PE-03, PE-04); a shorter one could stand there by chance (a word of the kit's prompt).
DISTINCTIVE = 16


def _distinctive(needle: str, *kit_texts: str) -> bool:
    """Whether finding ``needle`` in a request proves it was sent as persona: long enough, and
    in none of the texts the kit itself sent."""
    return len(needle) >= DISTINCTIVE and not any(needle in t for t in kit_texts)


def _without_values(carried: str, variables: Mapping[str, str]) -> str:
    """``carried`` without the variable values that contain ``{{`` (a value that looks like a
    placeholder is substituted as text, docs/rules.md#PE-05)."""
    for value in variables.values():
        if "{{" in value:
            carried = carried.replace(value, "")
    return carried


def _without_literals(carried: str, literal: Sequence[str]) -> str:
    """``carried`` without the template's literal prose: a ``{{`` that nothing closes is
    the implementation's grammar, sent as written (docs/rules.md#PE-05)."""
    for part in literal:
        if "{{" in part:
            carried = carried.replace(part, "")
    return carried


def _raw_placeholders(request: ModelRequest, texts: Vocabulary,
                      literal: Sequence[str] = ()) -> bool:
    """Whether a request carries ``{{`` other than inside a variable value or literal prose."""
    return "{{" in _without_literals(_without_values(request_text(request), texts.variables),
                                     literal)


def _no_placeholder_reached_a_model(
    ctx: CheckContext, rule: str, texts: Vocabulary = EXAMPLE, literal: Sequence[str] = (),
) -> None:
    carried = [r.agent for r in ctx.gateway.requests() if _raw_placeholders(r, texts, literal)]
    ctx.expect(
        rule,
        not carried,
        "no model request carries a raw '{{' placeholder",
        [],
        carried,
    )


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
    _expect_child_persona(
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
        _expect_child_persona(
            ctx, "PE-02", dep, child.agent, expected_sections(cfg, outcome),
            f"{what}: the child's prompt carries the composed persona",
            f"{what}: the child's model receives the composed persona",
            foreign_personas(cfg, outcome.persona),
        )
        ctx.drew("PE-02", parts.pop(what))
    ctx.inapplicable("PE-02", *parts.values())  # presets of another edition or capability


def _expect_child_persona(
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


PE03 = (
    Partition("PE-03", "empty-persona-shadows", "persona: \"\" to a provider with persona: an "
              "empty section, no deployment persona text anywhere"),
    Partition("PE-03", "empty-persona-refused", "persona: \"\" to a provider without persona: "
              "refused, nothing changed"),
)


@check("PE-03", name="persona-empty-shadows", partitions=PE03)
def empty_shadows(ctx: CheckContext) -> None:
    """An explicit empty persona shadows the deployment persona with an empty section; to a
    provider without ``persona`` it is a persona request all the same, and refused."""
    capable_ = capable(ctx.provider, Capability.PERSONA)
    ctx.inapplicable("PE-03", "empty-persona-refused" if capable_ else "empty-persona-shadows")
    each_case(ctx, ["PE-03"], lambda texts: _empty_shadows(ctx, texts))


def _empty_shadows(ctx: CheckContext, texts: Vocabulary) -> None:
    comp = composition(ctx.edition, {"persona": ""}, texts.presets[0])
    cfg = config(ctx.edition, tools=texts.tools, texts=texts, presets=comp.presets)
    dep = ctx.deploy(cfg)
    root = dep.root().agent
    request = start_request(root, provider_name(ctx), "child task", comp.fields)
    outcome = judge(ctx, cfg, texts.tools, request)
    if not capable(ctx.provider, Capability.PERSONA):
        if ErrorCode.UNSUPPORTED_CAPABILITY not in outcome.codes:
            raise AssertionError("the oracle should gate an empty persona by capability")
        before = snapshot(dep, ctx.gateway, [root])
        ctx.expect_error(
            "PE-03",
            outcome.codes,
            lambda: dep.start(request),
            "an empty persona to a provider without persona",
        )
        expect_unchanged(ctx, "PE-03", before, dep, "a refused empty persona")
        ctx.drew("PE-03", "empty-persona-refused")
        return
    oracle_accepts(outcome, "empty persona")
    with ctx.step("PE-03", "starting a child with an empty persona"):
        child = dep.start(request)
    expected = expected_sections(cfg, outcome)
    _expect_child_persona(
        ctx, "PE-03", dep, child.agent, expected,
        f"the child's prompt has an empty {PERSONA_SECTION} in the deployment persona's place",
        foreign=foreign_personas(cfg, outcome.persona),
    )
    requests = ctx.gateway.requests(child.agent)
    ctx.expect("PE-03", bool(requests), "the child made a model request", ">= 1", len(requests))
    # The deployment persona of this case, as rendered: it must reach the child nowhere.
    shadowed = texts.rendered(texts.deployment_persona)
    system = assemble_system_prompt(expected)
    searched = _distinctive(shadowed, system, request.prompt)
    for number, req in enumerate(requests, 1):
        ctx.expect(
            "PE-03",
            system_agrees(ctx, req.system, expected, foreign=[shadowed])
            and not (searched and shadowed in message_text(req)),
            f"request {number} of the child carries no deployment persona text",
            system,
            {"system": req.system, "messages": message_text(req)},
        )
    ctx.drew("PE-03", "empty-persona-shadows")


PE04 = (
    Partition("PE-04", "child-persona", "a child with its own persona: every request"),
    Partition("PE-04", "inherited-persona", "a child of a provider without persona, inheriting "
              "the deployment's: every request"),
    Partition("PE-04", "after-cold-resume", "every message of every request of the child after "
              "a cold resume"),
)


@check("PE-04", name="persona-one-channel", partitions=PE04)
def one_channel(ctx: CheckContext) -> None:
    """The system text the model received is exactly the prompt inspection reports, and the
    persona reaches the model through no other channel (a message, a context notice), before
    and after a cold resume."""
    own = capable(ctx.provider, Capability.PERSONA)
    ctx.inapplicable("PE-04", "inherited-persona" if own else "child-persona")
    each_case(ctx, ["PE-04"], lambda texts: _one_channel(ctx, texts))


def _one_channel(ctx: CheckContext, texts: Vocabulary) -> None:
    persona_capable = capable(ctx.provider, Capability.PERSONA)
    controls = {"persona": texts.child_persona} if persona_capable else {}
    comp = composition(ctx.edition, controls, texts.presets[0])
    cfg = config(ctx.edition, tools=texts.tools, texts=texts, presets=comp.presets)
    dep = ctx.deploy(cfg)
    request = start_request(dep.root().agent, provider_name(ctx), "child task", comp.fields)
    outcome = judge(ctx, cfg, texts.tools, request)
    oracle_accepts(outcome, "child start")
    script = ctx.gateway.script(marker(ctx, "pe04"), call(texts.tools[0]), text("ok"))
    prompt = f"{script} child task"
    with ctx.step("PE-04", "starting a child"):
        child = dep.start(request.model_copy(update={"prompt": prompt}))
    # Whether the inspected prompt is the right composition is PE-01/PE-02's question; PE-04
    # asks that the model received what inspection reports, through one channel
    # (docs/rules.md#PE-04).
    inspected = dep.prompt(child.agent)
    persona_names = [s.name for s in inspected if s.name == PERSONA_SECTION]
    ctx.expect(
        "PE-04",
        len(persona_names) == 1 or inspected_one(ctx, inspected),
        f"prompt inspection reports exactly one {PERSONA_SECTION} section",
        1,
        len(persona_names),
    )
    persona_text = outcome.persona or ""
    system = assemble_system_prompt(inspected)
    searched = _distinctive(persona_text, prompt, *texts.tools)
    requests = ctx.gateway.requests(child.agent)
    ctx.expect("PE-04", len(requests) >= 2, "the child made its scripted requests", 2,
               len(requests))
    for number, req in enumerate(requests, 1):
        ctx.expect(
            "PE-04",
            framed_as(ctx, req.system, system),
            f"request {number}: the system text is the inspected sections, assembled",
            system,
            req.system,
        )
        ctx.expect(
            "PE-04",
            not (searched and persona_text in message_text(req)),
            f"request {number}: the persona reaches the model in the system text only",
            persona_text,
            message_text(req),
        )
    ctx.drew("PE-04", "child-persona" if persona_capable else "inherited-persona")
    _after_resume(ctx, dep, child.session, persona_text, searched)


def _after_resume(ctx: CheckContext, dep: Deployment, session: str, persona_text: str,
                  searched: bool) -> None:
    """The child cold-resumed and given a turn: every request after the resume carries the
    inspected prompt as its system text and the persona in no message."""
    try:
        resumed = dep.resume(session)
    except Unsupported:  # the target cannot resume: this part of the domain does not exist
        ctx.inapplicable("PE-04", "after-cold-resume")
        return
    seen = len(ctx.gateway.requests(resumed.agent))
    # not scripted: a target may give the resumed child its old agent id, which the gateway
    # has bound to the first turn's script (the default reply is a text)
    with ctx.step("PE-04", "running a turn of the cold-resumed child"):
        dep.run_turn(resumed.agent, "resumed task")
    system = assemble_system_prompt(dep.prompt(resumed.agent))
    for number, req in enumerate(ctx.gateway.requests(resumed.agent)[seen:], 1):
        ctx.expect("PE-04", framed_as(ctx, req.system, system),  # in a declared frame
                   f"request {number} after a cold resume: the system text is the inspected "
                   "sections, assembled", system, req.system)
        ctx.expect("PE-04", not (searched and persona_text in message_text(req)),
                   f"request {number} after a cold resume: the persona reaches the model in the "
                   "system text only (no message carries it)", persona_text, message_text(req))
    ctx.drew("PE-04", "after-cold-resume")


def _template_case(
    ctx: CheckContext, template: str, variables: dict[str, str], what: str,
    texts: Vocabulary = EXAMPLE,
) -> None:
    """Start a child whose persona is ``template``; judge substitution or refusal (PE-05).

    What is required comes from :func:`._template_grammar.classify`: ``{{name}}`` spellings are
    judged strictly; a ``{{`` nothing closes and a ``}}`` that closes nothing as "sent exactly as
    written or refused"; every other spelling only as "substituted or refused, never sent raw".
    When the refusal comes (at start, or when the child's first request is
    built and its run stops with ``error``) is FR-03's concern, not PE-05's.
    """
    comp = composition(ctx.edition, {"persona": template}, texts.presets[0])
    cfg = config(ctx.edition, tools=texts.tools, texts=texts, persona=PLAIN_PERSONA,
                 presets=comp.presets, variables=variables)
    marks = classify(template, variables)
    deployed = deploy_or_refusal(ctx, cfg)
    if isinstance(deployed, TckError):
        # A target may refuse a preset's bad persona when the preset is configured.
        judge_refusal(ctx, deployed, marks, what)
        return
    dep = deployed
    request = start_request(dep.root().agent, provider_name(ctx), "child task", comp.fields)
    try:
        result = dep.start(request)
    except TckError as exc:
        judge_refusal(ctx, exc, marks, what)
        _no_placeholder_reached_a_model(ctx, "PE-05", texts, marks.literal)
        return
    try:
        observed: list[list[str]] | TckError = sections_of(dep, result.agent)
    except TckError as exc:
        observed = exc
    if result.stopReason is StopReason.ERROR and (
        isinstance(observed, TckError) or marks.refusable
    ):
        # The template was refused when the child's first request was built: the error is the
        # run's (its output) or prompt inspection's.
        said = [str(result.output or "")]
        if isinstance(observed, TckError):
            said.append(observed.message)
        judge_named(ctx, " ".join(said), marks, f"{what} (refused when the run began)")
    elif isinstance(observed, TckError):
        ctx.fail("PE-05", f"{what}: the child ran but prompt inspection was refused",
                 "the child's sections", observed.to_json())
    elif marks.must_refuse:
        ctx.fail("PE-05", f"{what}: a persona with {', '.join(marks.must_refuse)} was "
                 "accepted and the child ran; the rule makes it an error that names it",
                 "an error naming it", {"run": result.model_dump(), "prompt": observed})
    elif marks.lenient:
        raw = [body for _, body in observed
               if "{{" in _without_literals(_without_values(body, variables), marks.literal)]
        ctx.expect("PE-05", not raw, f"{what}: an accepted persona with "
                   f"{', '.join(marks.lenient)} is substituted, never kept raw", [], raw)
    else:
        outcome = judge(ctx, cfg, texts.tools, request)
        oracle_accepts(outcome, what)
        expected = expected_sections(cfg, outcome)
        ctx.expect(
            "PE-05",
            prompt_agrees(ctx, observed, expected),
            f"{what}: known variables are substituted in the child's persona"
            + (", and what no brace pair opens or closes is kept as written, never partly "
               "substituted" if marks.literal else ""),
            as_pairs(expected),
            observed,
        )
    _no_placeholder_reached_a_model(ctx, "PE-05", texts, marks.literal)


PE05 = (
    Partition("PE-05", "inherited", "the deployment persona every child inherits, its variables "
              "substituted"),
    *(Partition("PE-05", kind, DESCRIPTIONS[kind], cases=shape_cases(kind), member=member(kind))
      for kind in SHAPES),
)


@check("PE-05", name="persona-strict-template", partitions=PE05)
def strict_template(ctx: CheckContext) -> None:
    """Known ``{{variables}}`` are substituted; an unknown ``{{name}}`` is an error naming it;
    a ``{{`` nothing closes and a ``}}`` that closes nothing are sent as written or refused
    naming them (at start with ``INVALID_TEMPLATE``, or as the child's run error); other
    spellings are substituted or refused; no model request ever carries ``{{``."""
    # Every child inherits the deployment persona with its variables substituted.
    each_case(ctx, ["PE-05"], lambda texts: _inherited_template(ctx, texts))
    ctx.drew("PE-05", "inherited")
    if not capable(ctx.provider, Capability.PERSONA):
        ctx.inapplicable("PE-05", *SHAPES)
        return
    variables = dict(EXAMPLE.variables)
    for template, what in (
        ("Act as {{role}} of {{team}}.", "known variables"),
        ("Act as {{ role }}.", "a known variable with spaces in the braces"),
        ("Act as {{nobody}}.", "an unknown variable"),
        ("Act as {{two words}}.", "a malformed placeholder"),
        ("Act as {{role.", "a '{{' that nothing closes"),
        ("Act as {{role}} }} of {{team}}.", "a '}}' that closes nothing"),
    ):
        _template_case(ctx, template, variables, what)
    if any(f.rule == "PE-05" for f in ctx.failures):
        return  # already decided; drawn cases would only shrink to a case like the above
    ctx.for_all(
        template_cases(ctx.portable_variables),
        lambda state: _template_case(ctx, state[0], dict(state[1].variables), "a drawn persona",
                                     state[1]),
    )
    if any(f.rule == "PE-05" for f in ctx.failures):
        return
    # every shape of the grammar at every seed (docs/certify.md#partitions)
    ctx.cover("PE-05", lambda case: _shapes(ctx, case))


def _shapes(ctx: CheckContext, case: Case) -> None:
    templates, texts = case
    for template in templates:
        kinds = ", ".join(sorted(shape(template, texts.variables))) or "plain prose"
        _template_case(ctx, template, dict(texts.variables), f"a drawn persona ({kinds})", texts)


def _inherited_template(ctx: CheckContext, texts: Vocabulary) -> None:
    cfg = config(ctx.edition, tools=texts.tools, texts=texts)
    dep = ctx.deploy(cfg)
    request = start_request(dep.root().agent, provider_name(ctx), "child task", {})
    outcome = judge(ctx, cfg, texts.tools, request)
    oracle_accepts(outcome, "plain child start")
    with ctx.step("PE-05", "starting a child that inherits the deployment persona"):
        child = dep.start(request)
    expected = expected_sections(cfg, outcome)
    ctx.expect(
        "PE-05",
        prompt_agrees(ctx, sections_of(dep, child.agent), expected),
        "the inherited deployment persona has its variables substituted",
        as_pairs(expected),
        sections_of(dep, child.agent),
    )
    _no_placeholder_reached_a_model(ctx, "PE-05", texts)
