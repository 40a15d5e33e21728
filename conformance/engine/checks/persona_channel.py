"""Checks of how a persona reaches the child's model (PE-03, PE-04), per provider and in the
run's edition: an explicit empty persona shadows the deployment persona with an empty section,
and no deployment persona text reaches the child anywhere (PE-03; to a provider without
``persona`` it is refused all the same); the system text the model receives is exactly what
prompt inspection reports, and the persona travels in it alone, never in a message or a notice,
before and after a cold resume (PE-04, which binds the inherited deployment persona too).
"""

from __future__ import annotations

from subagent_tck.spec import PERSONA_SECTION, Capability, ErrorCode, assemble_system_prompt

from ...core.gateway import call, text
from ...core.target import Deployment
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Partition
from ._composed import config, each_case, expected_sections
from ._framed import foreign_personas, framed_as, inspected_one, system_agrees
from ._observed import expect_unchanged, message_text, snapshot
from ._starts import (
    capable,
    composition,
    judge,
    marker,
    oracle_accepts,
    provider_name,
    start_request,
)
from ._texts import Vocabulary
from .persona import expect_child_persona

#: A persona text this long is searched for in what a request carries outside its system text
#: (PE-03, PE-04); a shorter one could stand there by chance (a word of the kit's prompt).
DISTINCTIVE = 16


def _distinctive(needle: str, *kit_texts: str) -> bool:
    """Whether finding ``needle`` in a request proves it was sent as persona: long enough, and
    in none of the texts the kit itself sent."""
    return len(needle) >= DISTINCTIVE and not any(needle in t for t in kit_texts)


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
    expect_child_persona(
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
