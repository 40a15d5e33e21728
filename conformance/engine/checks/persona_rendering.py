"""Checks of how a persona template renders (PE-05), per provider and in the run's edition:
known ``{{variables}}`` substituted, an unknown ``{{name}}`` an error naming it, what no brace
pair opens or closes sent as written or refused, and no raw ``{{`` in any model request, for a
child's own persona (judged by :func:`~subagent_tck.spec.render_template` and
:mod:`._template_grammar`) and for the deployment persona every child inherits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from subagent_tck.spec import Capability, StopReason, TckError

from ...core.protocol import ModelRequest
from ..check import CheckContext, check
from ..partitions import Partition
from ._composed import config, deploy_or_refusal, each_case, expected_sections
from ._framed import prompt_agrees
from ._observed import as_pairs, request_text, sections_of
from ._placeholders import DESCRIPTIONS, SHAPES, Case, member, shape, shape_cases
from ._starts import capable, composition, judge, oracle_accepts, provider_name, start_request
from ._template_grammar import classify, judge_named, judge_refusal
from ._texts import EXAMPLE, Vocabulary, template_cases

#: A deployment persona without placeholders, valid whatever variables a case draws.
PLAIN_PERSONA = "DEPLOYMENT-PERSONA: a careful generalist."


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
