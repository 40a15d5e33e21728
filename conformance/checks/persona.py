"""Checks of the persona family (PE-01..PE-05), per provider and in the run's edition.

A child persona comes from a preset in ``preset-composition`` and from the start request in
``request-controls`` (see :mod:`._composition`); the child's prompt is read twice, through
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

from ..check import CheckContext, check
from ..gateway import call, text
from ..protocol import DeploymentConfig, PresetSpec
from ._composition import (
    DEPLOYMENT_PERSONA_MARK,
    Controls,
    Observed,
    as_pairs,
    capable,
    child_setup,
    config,
    deploy_or_refusal,
    deployment_sections,
    expected_sections,
    judge,
    message_text,
    named,
    oracle_accepts,
    request_text,
    sections_of,
    start_request,
)
from ._template_grammar import Placeholders, classify

GLOBALS = ("read", "write", "search")
CHILD_PERSONA = "CHILD-PERSONA: review as {{role}} for {{team}}."
SIBLING_PERSONA = "SIBLING-PERSONA: research only."
PRESET_PERSONA = "PRESET-PERSONA: a {{role}}."
#: A deployment persona without placeholders, valid whatever variables a case draws.
PLAIN_PERSONA = "DEPLOYMENT-PERSONA: a careful generalist."
NO_PERSONA = "the provider does not advertise persona (CA-01 decides that it refuses one)"


def _no_placeholder_reached_a_model(ctx: CheckContext, rule: str) -> None:
    carried = [r.agent for r in ctx.gateway.requests() if "{{" in request_text(r)]
    ctx.expect(
        rule,
        not carried,
        "no model request carries a raw '{{' placeholder",
        [],
        carried,
    )


@check("PE-01", name="persona-child-shadow")
def child_shadow(ctx: CheckContext) -> None:
    """A child persona replaces the deployment persona in the child's prompt, in its position,
    and changes neither the parent's prompt nor a sibling's."""
    if not capable(ctx.provider, Capability.PERSONA):
        ctx.skip("PE-01", NO_PERSONA)
        return
    child_presets, child_extra = child_setup(
        ctx.edition, Controls.of(persona=CHILD_PERSONA), "child"
    )
    sibling_presets, sibling_extra = child_setup(
        ctx.edition, Controls.of(persona=SIBLING_PERSONA), "sibling"
    )
    cfg = config(ctx.edition, tools=GLOBALS, presets=child_presets + sibling_presets)
    dep = ctx.deploy(cfg)
    root = dep.root().agent
    root_before = sections_of(dep, root)
    ctx.expect(
        "PE-01",
        root_before == as_pairs(deployment_sections(cfg)),
        "the top-level agent's prompt is the deployment's (persona first)",
        as_pairs(deployment_sections(cfg)),
        root_before,
    )
    with ctx.step("PE-01", "starting a sibling child with its own persona"):
        sibling = dep.start(start_request(dep, ctx.provider, "sibling task", sibling_extra))
    sibling_before = sections_of(dep, sibling.agent)
    request = start_request(dep, ctx.provider, "child task", child_extra)
    outcome = judge(dep, cfg, GLOBALS, request)
    oracle_accepts(outcome, "child start")
    with ctx.step("PE-01", "starting a child with a persona"):
        child = dep.start(request)
    expected = expected_sections(cfg, outcome)
    observed = sections_of(dep, child.agent)
    ctx.expect(
        "PE-01",
        observed == as_pairs(expected),
        f"the child's prompt carries its persona as {PERSONA_SECTION} in the deployment "
        "persona's position",
        as_pairs(expected),
        observed,
    )
    requests = ctx.gateway.requests(child.agent)
    ctx.expect(
        "PE-01",
        bool(requests) and requests[0].system == assemble_system_prompt(expected),
        "the child's model receives the child persona in place of the deployment persona",
        assemble_system_prompt(expected),
        requests[0].system if requests else None,
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


@check("PE-02", name="persona-omitted-inherits")
def omitted_inherits(ctx: CheckContext) -> None:
    """Without a child persona the child carries the composed persona: the preset's, else the
    deployment's (and no persona section at all when the deployment has none)."""
    cases: list[tuple[str, DeploymentConfig, dict[str, Any]]] = []
    cases.append(("no persona asked", config(ctx.edition, tools=GLOBALS), {}))
    cases.append(
        ("no persona asked, no deployment persona", config(ctx.edition, persona=None), {})
    )
    # A start may name a preset only in preset-composition: docs/rules.md#editions says a check
    # may not ask a request-controls start to select a preset.
    presets_selectable = ctx.edition is Edition.PRESET_COMPOSITION
    if presets_selectable and capable(ctx.provider, Capability.PERSONA):
        preset = PresetSpec(name="composed", persona=PRESET_PERSONA)
        cases.append(
            (
                "a preset persona, none in the request",
                config(ctx.edition, tools=GLOBALS, presets=[preset]),
                {"preset": "composed"},
            )
        )
    if presets_selectable and capable(ctx.provider, Capability.TOOL_FILTER):
        preset = PresetSpec(name="filtered", toolFilter={"deny": ["write"]})
        cases.append(
            (
                "a preset without persona",
                config(ctx.edition, tools=GLOBALS, presets=[preset]),
                {"preset": "filtered"},
            )
        )
    for what, cfg, extra in cases:
        dep = ctx.deploy(cfg)
        request = start_request(dep, ctx.provider, "child task", extra)
        outcome = judge(dep, cfg, GLOBALS, request)
        oracle_accepts(outcome, what)
        with ctx.step("PE-02", f"starting a child ({what})"):
            child = dep.start(request)
        expected = expected_sections(cfg, outcome)
        observed = sections_of(dep, child.agent)
        ctx.expect(
            "PE-02",
            observed == as_pairs(expected),
            f"{what}: the child's prompt carries the composed persona",
            as_pairs(expected),
            observed,
        )
        requests = ctx.gateway.requests(child.agent)
        ctx.expect(
            "PE-02",
            bool(requests) and requests[0].system == assemble_system_prompt(expected),
            f"{what}: the child's model receives the composed persona",
            assemble_system_prompt(expected),
            requests[0].system if requests else None,
        )


@check("PE-03", name="persona-empty-shadows")
def empty_shadows(ctx: CheckContext) -> None:
    """An explicit empty persona shadows the deployment persona with an empty section; to a
    provider without ``persona`` it is a persona request all the same, and refused."""
    presets, extra = child_setup(ctx.edition, Controls.of(persona=""))
    cfg = config(ctx.edition, tools=GLOBALS, presets=presets)
    dep = ctx.deploy(cfg)
    request = start_request(dep, ctx.provider, "child task", extra)
    outcome = judge(dep, cfg, GLOBALS, request)
    if not capable(ctx.provider, Capability.PERSONA):
        if ErrorCode.UNSUPPORTED_CAPABILITY not in outcome.codes:
            raise AssertionError("the oracle should gate an empty persona by capability")
        before = Observed.take(dep, ctx.gateway, [dep.root().agent])
        ctx.expect_error(
            "PE-03",
            outcome.codes,
            lambda: dep.start(request),
            "an empty persona to a provider without persona",
        )
        changes = before.changes(Observed.take(dep, ctx.gateway, [dep.root().agent]))
        ctx.expect(
            "PE-03",
            not changes,
            "a refused empty persona creates nothing and changes nothing",
            {},
            changes,
        )
        return
    oracle_accepts(outcome, "empty persona")
    with ctx.step("PE-03", "starting a child with an empty persona"):
        child = dep.start(request)
    expected = expected_sections(cfg, outcome)
    observed = sections_of(dep, child.agent)
    ctx.expect(
        "PE-03",
        observed == as_pairs(expected),
        f"the child's prompt has an empty {PERSONA_SECTION} in the deployment persona's place",
        as_pairs(expected),
        observed,
    )
    requests = ctx.gateway.requests(child.agent)
    ctx.expect("PE-03", bool(requests), "the child made a model request", ">= 1", len(requests))
    for number, req in enumerate(requests, 1):
        ctx.expect(
            "PE-03",
            DEPLOYMENT_PERSONA_MARK not in request_text(req)
            and req.system == assemble_system_prompt(expected),
            f"request {number} of the child carries no deployment persona text",
            assemble_system_prompt(expected),
            req.system,
        )


@check("PE-04", name="persona-one-channel")
def one_channel(ctx: CheckContext) -> None:
    """The system text the model received is exactly the prompt inspection reports, and the
    persona reaches the model through no other channel (a message, a context notice)."""
    persona_capable = capable(ctx.provider, Capability.PERSONA)
    controls = Controls.of(persona=CHILD_PERSONA) if persona_capable else Controls.of()
    presets, extra = child_setup(ctx.edition, controls)
    cfg = config(ctx.edition, tools=GLOBALS, presets=presets)
    dep = ctx.deploy(cfg)
    request = start_request(dep, ctx.provider, "child task", extra)
    outcome = judge(dep, cfg, GLOBALS, request)
    oracle_accepts(outcome, "child start")
    script = ctx.gateway.script("PE04-MARK", call("read"), text("ok"))
    with ctx.step("PE-04", "starting a child"):
        child = dep.start(request.model_copy(update={"prompt": f"{script} child task"}))
    inspected = dep.prompt(child.agent)
    expected = expected_sections(cfg, outcome)
    ctx.expect(
        "PE-04",
        as_pairs(inspected) == as_pairs(expected),
        "prompt inspection reports the composed persona section",
        as_pairs(expected),
        as_pairs(inspected),
    )
    persona_names = [s.name for s in inspected if s.name == PERSONA_SECTION]
    ctx.expect(
        "PE-04",
        len(persona_names) == 1,
        f"prompt inspection reports exactly one {PERSONA_SECTION} section",
        1,
        len(persona_names),
    )
    persona_text = outcome.persona or ""
    requests = ctx.gateway.requests(child.agent)
    ctx.expect("PE-04", len(requests) >= 2, "the child made its scripted requests", 2,
               len(requests))
    for number, req in enumerate(requests, 1):
        ctx.expect(
            "PE-04",
            req.system == assemble_system_prompt(inspected),
            f"request {number}: the system text is the inspected sections, assembled",
            assemble_system_prompt(inspected),
            req.system,
        )
        ctx.expect(
            "PE-04",
            req.system.count(persona_text) == 1 and persona_text not in message_text(req),
            f"request {number}: the persona reaches the model once, in the system text only",
            persona_text,
            message_text(req),
        )


def _template_case(
    ctx: CheckContext, template: str, variables: dict[str, str], what: str
) -> None:
    """Start a child whose persona is ``template``; judge substitution or refusal (PE-05).

    What is required comes from :func:`._template_grammar.classify`: ``{{name}}`` spellings and
    unclosed ``{{`` are judged strictly; every other spelling only as "substituted or refused,
    never sent raw". When the refusal comes (at start, or when the child's first request is
    built and its run stops with ``error``) is FR-03's concern, not PE-05's.
    """
    presets, extra = child_setup(ctx.edition, Controls.of(persona=template))
    cfg = config(
        ctx.edition, tools=GLOBALS, persona=PLAIN_PERSONA, presets=presets, variables=variables
    )
    marks = classify(template, variables)
    deployed = deploy_or_refusal(ctx, cfg)
    if isinstance(deployed, TckError):
        # A target may refuse a preset's bad persona when the preset is configured.
        _judge_refusal(ctx, deployed, marks, what)
        return
    dep = deployed
    request = start_request(dep, ctx.provider, "child task", extra)
    try:
        result = dep.start(request)
    except TckError as exc:
        _judge_refusal(ctx, exc, marks, what)
        _no_placeholder_reached_a_model(ctx, "PE-05")
        return
    try:
        observed: list[list[str]] | TckError = sections_of(dep, result.agent)
    except TckError as exc:
        observed = exc
    if result.stopReason is StopReason.ERROR and (
        isinstance(observed, TckError) or marks.must_refuse or marks.lenient
    ):
        # The template was refused when the child's first request was built: the error is the
        # run's (its output) or prompt inspection's.
        texts = [str(result.output or "")]
        if isinstance(observed, TckError):
            texts.append(observed.message)
        _judge_named(ctx, " ".join(texts), marks, f"{what} (refused when the run began)")
    elif isinstance(observed, TckError):
        ctx.fail("PE-05", f"{what}: the child ran but prompt inspection was refused",
                 "the child's sections", observed.to_json())
    elif marks.must_refuse:
        ctx.fail("PE-05", f"{what}: a persona with {', '.join(marks.must_refuse)} was "
                 "accepted and the child ran; the rule makes it an error that names it",
                 "an error naming it", {"run": result.model_dump(), "prompt": observed})
    elif marks.lenient:
        raw = [text for _, text in observed if "{{" in text]
        ctx.expect("PE-05", not raw, f"{what}: an accepted persona with "
                   f"{', '.join(marks.lenient)} is substituted, never kept raw", [], raw)
    else:
        outcome = judge(dep, cfg, GLOBALS, request)
        oracle_accepts(outcome, what)
        expected = expected_sections(cfg, outcome)
        ctx.expect(
            "PE-05",
            observed == as_pairs(expected),
            f"{what}: known variables are substituted in the child's persona",
            as_pairs(expected),
            observed,
        )
    _no_placeholder_reached_a_model(ctx, "PE-05")


def _judge_refusal(ctx: CheckContext, exc: TckError, marks: Placeholders, what: str) -> None:
    """A refused template: it had to be refusable, and the error names a placeholder of it."""
    if not marks.must_refuse and not marks.lenient:
        ctx.fail("PE-05", f"{what}: a persona whose placeholders are all known {{{{name}}}}s "
                 "was refused", "accepted, substituted", exc.to_json())
        return
    ctx.expect(
        "PE-05",
        exc.code is ErrorCode.INVALID_TEMPLATE,
        f"{what}: refused with {exc.code.value}",
        ErrorCode.INVALID_TEMPLATE.value,
        exc.to_json(),
    )
    _judge_named(ctx, exc.message, marks, what)


def _judge_named(ctx: CheckContext, message: str, marks: Placeholders, what: str) -> None:
    """The error names one of the placeholders at fault (an implementation may stop at its
    first; a lenient spelling it refuses is at fault by its grammar)."""
    at_fault = marks.must_refuse or marks.lenient
    ctx.expect(
        "PE-05",
        any(named(token, message) for token in at_fault),
        f"{what}: the error names the placeholder at fault",
        list(at_fault),
        message,
    )


_TOKENS = ("x", " ", "{", "}", "{{team}}", "{{ role }}", "{{ghost}}", "{{}}", "{{a b}}",
           "{{1x}}", "{{team")
#: Non-empty: the empty persona is PE-03's case.
TEMPLATES = st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=5).map("".join)
VARIABLE_SETS = st.dictionaries(
    st.sampled_from(("team", "role", "ghost")), st.text("xyz -", max_size=4), max_size=3
)


@check("PE-05", name="persona-strict-template")
def strict_template(ctx: CheckContext) -> None:
    """Known ``{{variables}}`` are substituted; an unknown ``{{name}}`` or an unclosed ``{{`` is
    an error naming it (at start with ``INVALID_TEMPLATE``, or as the child's run error); other
    spellings are substituted or refused; no model request ever carries ``{{``."""
    # Every child inherits the deployment persona with its variables substituted.
    cfg = config(ctx.edition, tools=GLOBALS)
    dep = ctx.deploy(cfg)
    request = start_request(dep, ctx.provider, "child task", {})
    outcome = judge(dep, cfg, GLOBALS, request)
    oracle_accepts(outcome, "plain child start")
    with ctx.step("PE-05", "starting a child that inherits the deployment persona"):
        child = dep.start(request)
    expected = expected_sections(cfg, outcome)
    ctx.expect(
        "PE-05",
        sections_of(dep, child.agent) == as_pairs(expected),
        "the inherited deployment persona has its variables substituted",
        as_pairs(expected),
        sections_of(dep, child.agent),
    )
    _no_placeholder_reached_a_model(ctx, "PE-05")
    if not capable(ctx.provider, Capability.PERSONA):
        return
    variables = {"team": "TEAM-SEVEN", "role": "REVIEWER"}
    for template, what in (
        ("Act as {{role}} of {{team}}.", "known variables"),
        ("Act as {{ role }}.", "a known variable with spaces in the braces"),
        ("Act as {{nobody}}.", "an unknown variable"),
        ("Act as {{two words}}.", "a malformed placeholder"),
        ("Act as {{role.", "an unclosed placeholder"),
    ):
        _template_case(ctx, template, variables, what)
    if any(f.rule == "PE-05" for f in ctx.failures):
        return  # already decided; drawn cases would only shrink to a case like the above
    ctx.for_all(
        st.tuples(TEMPLATES, VARIABLE_SETS),
        lambda state: _template_case(ctx, state[0], state[1], "a drawn persona"),
    )
