"""Checks of first-request consistency (FR-01..FR-05), per provider and in the run's edition.

A child is composed with every control its provider advertises (persona, tool filter, output
schema; the others would be refused, which CA decides) and judged on what is observable: the
first model request the gateway recorded (FR-01), the ``agent.published`` event's snapshot and
the event order (FR-02), everything a failed start or resume must leave unchanged (FR-03,
FR-04), the first request after a cold resume (FR-04) and later requests against the live
registry, changed by a gateway hook between two requests (FR-05). Expectations come from the
spec oracle (``decide_start``, ``resolve_sections``, ``resolve_view``, ``wire_tool_names``,
``assemble_system_prompt``).
"""

from __future__ import annotations

from typing import Any

from subagent_tck.spec import (
    Capability,
    ErrorCode,
    PresentationMode,
    Section,
    StartOutcome,
    TckError,
    validate_restriction,
)

from ...core.gateway import call, text
from ...core.protocol import (
    DeploymentConfig,
    ModelReply,
    ModelRequest,
    StartRequest,
    ToolSpec,
    snapshot_of,
)
from ...core.target import Deployment
from ..check import CheckContext, check
from ..partitions import Partition
from ._composed import (
    config,
    deploy_or_refusal,
    each_case,
    expected_sections,
    expected_system,
    expected_view,
    expected_wire,
)
from ._framed import carries_framed, composed_or_framed, prompt_agrees
from ._observed import as_pairs, expect_unchanged, sections_of, snapshot, view_pairs, wire_names
from ._starts import (
    OUTPUT_SCHEMA,
    capable,
    composition,
    judge,
    marker,
    oracle_accepts,
    provider_name,
    start_request,
    supported_controls,
)
from ._texts import EXAMPLE, Vocabulary, strangers

#: Codes a target may give when it refuses a broken preset as soon as it is configured.
CONFIGURATION_CODES = frozenset({
    ErrorCode.INVALID_TOOL_FILTER,
    ErrorCode.INVALID_TEMPLATE,
    ErrorCode.INVALID_OUTPUT_SCHEMA,
    ErrorCode.SETUP_FAILED,
    ErrorCode.INVALID_CONFIG,
})
NO_SETUP_CONTROL = (
    "the provider advertises none of persona, toolFilter, outputSchema: no setup step can be "
    "asked of it (CA-01 decides that it refuses them)"
)


def doomed(texts: Vocabulary) -> str:
    """The global a case unregisters after deploying (the last of its tools)."""
    return texts.tools[-1]


def allow_filter(texts: Vocabulary) -> dict[str, list[str]]:
    """Allow minus deny: of the globals the child sees the first one and :func:`doomed`."""
    t = texts.tools
    return {"allow": [t[0], t[2], doomed(texts)], "deny": [t[2]]}


def deny_filter(texts: Vocabulary) -> dict[str, list[str]]:
    return {"deny": [texts.tools[1]]}


def everything(texts: Vocabulary) -> dict[str, Any]:
    return {"persona": texts.child_persona, "toolFilter": allow_filter(texts),
            "outputSchema": OUTPUT_SCHEMA}


class _Child:
    """A deployment with one composed child started through the provider under test."""

    def __init__(
        self,
        ctx: CheckContext,
        rule: str,
        texts: Vocabulary,
        controls: dict[str, Any],
        *,
        mode: PresentationMode = PresentationMode.NATIVE,
        prompt: str = "child task",
    ) -> None:
        comp = composition(ctx.edition, controls, texts.presets[0])
        self.globals = texts.tools
        self.cfg: DeploymentConfig = config(ctx.edition, tools=self.globals, texts=texts,
                                            presets=comp.presets, mode=mode)
        self.mode = mode
        self.dep: Deployment = ctx.deploy(self.cfg)
        self.request: StartRequest = start_request(self.dep.root().agent, provider_name(ctx),
                                                   prompt, comp.fields)
        self.outcome: StartOutcome = judge(ctx, self.cfg, self.globals, self.request)
        oracle_accepts(self.outcome, "child start")
        with ctx.step(rule, "starting a composed child"):
            result = self.dep.start(self.request)
        self.agent, self.session = result.agent, result.session

    def sections(self) -> list[list[str]]:
        return as_pairs(self.composed())

    def composed(self) -> tuple[Section, ...]:
        return expected_sections(self.cfg, self.outcome)

    def system(self) -> str:
        return expected_system(self.cfg, self.outcome)

    def wire(self) -> list[str]:
        view = expected_view(self.outcome, self.globals, self.mode)
        return expected_wire(view, self.mode)


def _requests(ctx: CheckContext, agent: str, rule: str, at_least: int = 1) -> list[ModelRequest]:
    requests = ctx.gateway.requests(agent)
    ctx.expect(
        rule,
        len(requests) >= at_least,
        f"the child made at least {at_least} model request(s)",
        at_least,
        len(requests),
    )
    return requests


FR01 = tuple(Partition("FR-01", f"{m.value}-mode", f"a child composed with every control its "
                       f"provider advertises, in {m.value} mode") for m in PresentationMode)


@check("FR-01", name="first-request-complete", partitions=FR01)
def first_request_complete(ctx: CheckContext) -> None:
    """The child's first request already carries persona, filtered tool schemas,
    ``structured_output`` for an output schema and ``run_code`` where the mode offers it."""
    each_case(ctx, ["FR-01"], lambda texts: _first_request_complete(ctx, texts))


def _first_request_complete(ctx: CheckContext, texts: Vocabulary) -> None:
    controls = supported_controls(ctx.provider, everything(texts))
    for mode in PresentationMode:
        child = _Child(ctx, "FR-01", texts, controls, mode=mode)
        requests = _requests(ctx, child.agent, "FR-01")
        if not requests:
            continue
        first = requests[0]
        inspected = sections_of(child.dep, child.agent)
        ctx.expect(
            "FR-01",
            carries_framed(ctx, first.system, inspected, child.composed()),
            f"mode {mode.value}: the first request's system text carries the composed persona "
            "and sections (as prompt inspection reports them)",
            {"composed": child.sections(), "system": child.system()},
            {"inspected": inspected, "system": first.system},
        )
        ctx.expect(
            "FR-01",
            wire_names(first) == child.wire(),
            f"mode {mode.value}: the first request carries exactly the child's tool schemas",
            child.wire(),
            wire_names(first),
        )
        ctx.drew("FR-01", f"{mode.value}-mode")


def _failing_controls(
    ctx: CheckContext, texts: Vocabulary
) -> list[tuple[str, dict[str, Any]]]:
    """Setup failures the provider under test can be asked for (FR-02, FR-03)."""
    caps = ctx.provider.capabilities if ctx.provider else []
    cases: list[tuple[str, dict[str, Any]]] = []
    if Capability.TOOL_FILTER in caps:
        # ``doomed`` is registered when the deployment is made and unregistered before the start.
        cases.append(("a filter naming an unknown tool", {"toolFilter": allow_filter(texts)}))
    if Capability.PERSONA in caps:
        ghost = strangers(list(texts.variables))[0]
        cases.append(("a bad persona template",
                      {"persona": f"{texts.child_persona} {{{{{ghost}}}}}"}))
    if Capability.OUTPUT_SCHEMA in caps:
        cases.append(("a string output schema", {"outputSchema": {"type": "string"}}))
        cases.append(("a non-schema output schema", {"outputSchema": "nope"}))
    return cases


#: The partition of FR-03 each failing control is (:func:`_failing_controls`, in its words).
FAILING = {"a filter naming an unknown tool": "unknown-tool-in-filter",
           "a bad persona template": "bad-persona-template",
           "a string output schema": "string-output-schema",
           "a non-schema output schema": "non-schema-output-schema"}
#: A control as a partition's word, and the capability that asks for it.
CONTROL_WORD = {"persona": "persona", "toolFilter": "filter", "outputSchema": "schema"}


def _valid_controls(texts: Vocabulary) -> dict[str, Any]:
    """A valid value of each control (the deny filter names a global that stays)."""
    return {"persona": texts.child_persona, "toolFilter": deny_filter(texts),
            "outputSchema": OUTPUT_SCHEMA}


def _paired_failures(ctx: CheckContext, texts: Vocabulary
                     ) -> list[tuple[str, str, dict[str, Any]]]:
    """Two controls at once: one valid, one whose setup fails (every ordered pair the provider
    can be asked for), so a target that sets them up in any order meets a failure after a step
    that succeeded: ``(partition, what, controls)``."""
    valid = supported_controls(ctx.provider, _valid_controls(texts))
    out = []
    for what, broken in _failing_controls(ctx, texts):
        (failing,) = broken
        if what == "a non-schema output schema":
            continue  # one failing schema is enough beside another control
        for key, value in valid.items():
            if key != failing:
                part = f"valid-{CONTROL_WORD[key]}-failing-{CONTROL_WORD[failing]}"
                out.append((part, f"a valid {key} beside {what}", {key: value, **broken}))
    return out


PAIRS = tuple(f"valid-{CONTROL_WORD[a]}-failing-{CONTROL_WORD[b]}"
              for a in CONTROL_WORD for b in CONTROL_WORD if a != b)


def _failed_start(
    ctx: CheckContext, rule: str, texts: Vocabulary, what: str, controls: dict[str, Any], *,
    must_refuse: bool = True,
) -> None:
    """Deploy, start a sibling, then a child whose setup fails: it must be refused with a clear
    error and leave everything as it was (the parent and the sibling unchanged).

    With ``must_refuse`` false (FR-02, whose statement is about what is observable, not about
    refusing) an accepted start is not judged here: whether the failure had to refuse the start
    is FR-03's statement; a refused one must still have been unobservable."""
    comp = composition(ctx.edition, controls, texts.presets[2])
    cfg = config(ctx.edition, tools=texts.tools, texts=texts, presets=comp.presets)
    dep = deploy_or_refusal(ctx, cfg)
    if isinstance(dep, TckError):
        # Refusing the broken preset when it is configured is refusing it before any start.
        ctx.expect(
            rule,
            dep.code in CONFIGURATION_CODES,
            f"a preset with {what} was refused at configuration with {dep.code.value}",
            sorted(c.value for c in CONFIGURATION_CODES),
            dep.to_json(),
        )
        return
    root = dep.root().agent
    with ctx.step(rule, "starting a sibling child"):
        sibling = dep.start(start_request(root, provider_name(ctx), "sibling task", {}))
    dep.unregister_tool(doomed(texts))
    globals_ = [g for g in texts.tools if g != doomed(texts)]
    request = start_request(root, provider_name(ctx), "child task", comp.fields)
    outcome = judge(ctx, cfg, globals_, request)
    if outcome.ok:
        raise AssertionError(f"the check's broken start ({what}) is accepted by the oracle")
    before = snapshot(dep, ctx.gateway, [root, sibling.agent])
    schemas_before = [s.model_dump(mode="json") for s in dep.tool_schemas(root)]
    if must_refuse:
        ctx.expect_error(
            rule, outcome.codes | {ErrorCode.SETUP_FAILED}, lambda: dep.start(request),
            f"a start with {what}",
        )
    else:
        try:
            dep.start(request)
        except TckError:
            pass
        else:
            return
    expect_unchanged(ctx, rule, before, dep, f"a start with {what} (it must publish nothing, "
                     "send no model request, and leave the parent and its other children as "
                     "they were)")
    schemas_after = [s.model_dump(mode="json") for s in dep.tool_schemas(root)]
    ctx.expect(
        rule,
        schemas_after == schemas_before,
        f"after a start with {what} the parent's tool schemas are unchanged",
        schemas_before,
        schemas_after,
    )


FR02 = (
    Partition("FR-02", "composed-child", "a child composed with every control its provider "
              "advertises: published once, already final"),
    Partition("FR-02", "failed-start", "a start whose setup fails: never observable"),
)


@check("FR-02", name="unpublished-setup", partitions=FR02)
def unpublished_setup(ctx: CheckContext) -> None:
    """The child becomes observable once, already final: the ``agent.published`` snapshot is
    the final view and prompt, no event names the child before it; a failed start is never
    observable."""
    each_case(ctx, ["FR-02"], lambda texts: _unpublished_setup(ctx, texts))


def _unpublished_setup(ctx: CheckContext, texts: Vocabulary) -> None:
    controls = supported_controls(ctx.provider, everything(texts))
    comp = composition(ctx.edition, controls, texts.presets[0])
    cfg = config(ctx.edition, tools=texts.tools, texts=texts, presets=comp.presets)
    dep = ctx.deploy(cfg)
    seen = len(dep.events())
    sessions_before = {h.session for h in dep.sessions()}
    request = start_request(dep.root().agent, provider_name(ctx), "child task", comp.fields)
    outcome = judge(ctx, cfg, texts.tools, request)
    oracle_accepts(outcome, "child start")
    with ctx.step("FR-02", "starting a composed child"):
        child = dep.start(request)
    events = dep.events()[seen:]
    about = [
        e for e in events if e.agent == child.agent or (e.session == child.session and e.session)
    ]
    published = [e for e in about if e.kind == "agent.published"]
    ctx.expect(
        "FR-02",
        len(published) == 1 and about[0] is published[0],
        "the child's first lifecycle event is its one agent.published",
        ["agent.published", "..."],
        [e.kind for e in about],
    )
    ctx.expect(
        "FR-02",
        child.session not in sessions_before and child.agent in dep.agents(),
        "the child is published after its start",
        True,
        child.agent in dep.agents(),
    )
    if published:
        prompt, names = snapshot_of(published[0].data)
        expected_prompt = as_pairs(expected_sections(cfg, outcome))
        view = expected_view(outcome, texts.tools, cfg.mode)
        ctx.expect(
            "FR-02",
            prompt is not None and composed_or_framed(ctx, prompt,
                                                      expected_sections(cfg, outcome)),
            "at publication the child's prompt is already final",
            expected_prompt,
            published[0].data.get("snapshot"),
        )
        ctx.expect(
            "FR-02",
            names == sorted(e.name for e in view),
            "at publication the child's view is already final",
            sorted(e.name for e in view),
            published[0].data.get("snapshot"),
        )
    ctx.drew("FR-02", "composed-child")
    failing = _failing_controls(ctx, texts)
    if not failing:
        ctx.inapplicable("FR-02", "failed-start")
        return
    what, broken = failing[0]
    _failed_start(ctx, "FR-02", texts, what, broken, must_refuse=False)
    ctx.drew("FR-02", "failed-start")


FR03 = (
    *(Partition("FR-03", part, f"{what}, alone") for what, part in FAILING.items()),
    *(Partition("FR-03", part, f"a valid {part.split('-')[1]} beside a failing "
                f"{part.split('-')[3]}: whichever the target sets up first, a step that "
                "succeeded is undone") for part in PAIRS),
)


@check("FR-03", name="setup-rollback", partitions=FR03)
def setup_rollback(ctx: CheckContext) -> None:
    """A setup failure (unknown tool in the filter, bad persona template, invalid output
    schema), alone or beside a valid control set up before it, fails the start clearly:
    nothing published, no model request, parent unchanged."""
    if not _failing_controls(ctx, EXAMPLE):
        ctx.skip("FR-03", NO_SETUP_CONTROL)
        return
    ctx.inapplicable("FR-03", *(set(FAILING.values()) - {
        FAILING[w] for w, _ in _failing_controls(ctx, EXAMPLE)}))
    ctx.inapplicable("FR-03", *(set(PAIRS) - {p for p, _, _ in _paired_failures(ctx, EXAMPLE)}))
    each_case(ctx, ["FR-03"], lambda texts: _setup_rollback(ctx, texts))


def _setup_rollback(ctx: CheckContext, texts: Vocabulary) -> None:
    for what, broken in _failing_controls(ctx, texts):
        _failed_start(ctx, "FR-03", texts, what, broken)
        ctx.drew("FR-03", FAILING[what])
    for part, what, controls in _paired_failures(ctx, texts):
        _failed_start(ctx, "FR-03", texts, what, controls)
        ctx.drew("FR-03", part)


FR04 = (
    Partition("FR-04", "historical-composition", "a child with a persona and an allow filter, "
              "cold-resumed: its first resumed request carries both"),
    Partition("FR-04", "descriptor-no-longer-applies", "a descriptor naming a tool that is gone: "
              "the resume fails, nothing published"),
    Partition("FR-04", "deny-filter-then-a-new-global", "a child with a deny-only filter, "
              "cold-resumed, then a global registered: the resumed child is offered it"),
)


@check("FR-04", name="cold-resume", partitions=FR04)
def cold_resume(ctx: CheckContext) -> None:
    """A cold-resumed child is composed from its descriptor before its first resumed request;
    a descriptor that no longer applies fails the resume and publishes nothing; a deny-only
    filter restored on resume still admits a global registered after it."""
    if not capable(ctx.provider, Capability.TOOL_FILTER):
        ctx.inapplicable("FR-04", "descriptor-no-longer-applies", "deny-filter-then-a-new-global")
    each_case(ctx, ["FR-04"], lambda texts: _cold_resume(ctx, texts))


def _cold_resume(ctx: CheckContext, texts: Vocabulary) -> None:
    historical = {"persona": texts.child_persona, "toolFilter": allow_filter(texts)}
    controls = supported_controls(ctx.provider, historical)
    child = _Child(ctx, "FR-04", texts, controls)
    dep = child.dep
    with ctx.step("FR-04", "cold-resuming the child's session"):
        resumed = dep.resume(child.session)
    seen = len(ctx.gateway.requests(resumed.agent))
    with ctx.step("FR-04", "running a turn of the resumed child"):
        dep.run_turn(resumed.agent, "resumed task")
    requests = ctx.gateway.requests(resumed.agent)[seen:]
    ctx.expect("FR-04", bool(requests), "the resumed child made a model request", ">= 1", 0)
    if requests:
        first = requests[0]
        inspected = sections_of(dep, resumed.agent)
        ctx.expect(
            "FR-04",
            carries_framed(ctx, first.system, inspected, child.composed()),
            "the first resumed request carries the historical persona",
            {"composed": child.sections(), "system": child.system()},
            {"inspected": inspected, "system": first.system},
        )
        ctx.expect(
            "FR-04",
            wire_names(first) == child.wire(),
            "the first resumed request carries the historically filtered tool schemas",
            child.wire(),
            wire_names(first),
        )
    ctx.expect(
        "FR-04",
        prompt_agrees(ctx, sections_of(dep, resumed.agent), child.composed()),
        "prompt inspection of the resumed child reports the historical persona",
        child.sections(),
        sections_of(dep, resumed.agent),
    )
    ctx.drew("FR-04", "historical-composition")
    if "toolFilter" not in controls:
        return
    _resumed_deny_filter(ctx, texts)
    # A second child whose allow list names ``doomed``; unregistering it makes its descriptor
    # unappliable (TF-08 at re-installation).
    with ctx.step("FR-04", "starting a second composed child"):
        second = dep.start(child.request)
    dep.unregister_tool(doomed(texts))
    verdict = validate_restriction(allow_filter(texts),
                                   [g for g in texts.tools if g != doomed(texts)])
    codes = {ErrorCode.NOT_RESUMABLE, ErrorCode.SETUP_FAILED}
    if verdict.code is not None:
        codes.add(verdict.code)
    before = snapshot(dep, ctx.gateway, [dep.root().agent])
    ctx.expect_error(
        "FR-04",
        codes,
        lambda: dep.resume(second.session),
        "resuming a child whose descriptor names a tool that is gone",
    )
    # What FR-04 asks of the failed resume is that the child is not set up: nothing of it
    # runs or is published. The parent may be told of the failure and answer it (DSH wakes a
    # continuable child's parent with it, some time after the refusal), and the first child
    # (resumed above) is another session: their requests are no trace of this resume.
    parent = dep.root().agent
    expect_unchanged(ctx, "FR-04", before, dep, "a failed resume",
                     unrelated=[parent, resumed.agent])
    ctx.drew("FR-04", "descriptor-no-longer-applies")


def _resumed_deny_filter(ctx: CheckContext, texts: Vocabulary) -> None:
    """Two controls at once: a child composed with a deny-only filter is cold-resumed, then a
    global is registered; the resumed child's next request offers it (the restored filter is
    the same live deny list, docs/rules.md#TF-09, not a snapshot of what it admitted)."""
    child = _Child(ctx, "FR-04", texts, {"toolFilter": deny_filter(texts)})
    dep = child.dep
    with ctx.step("FR-04", "cold-resuming a child with a deny-only filter"):
        resumed = dep.resume(child.session)
    with ctx.step("FR-04", f"registering the global {texts.late!r} after the resume"):
        dep.register_tool(ToolSpec(name=texts.late, description=f"tool {texts.late}"))
    seen = len(ctx.gateway.requests(resumed.agent))
    with ctx.step("FR-04", "running a turn of the resumed child"):
        dep.run_turn(resumed.agent, "resumed task")
    requests = ctx.gateway.requests(resumed.agent)[seen:]
    view = expected_view(child.outcome, (*texts.tools, texts.late), child.mode,
                         installed_over=texts.tools)
    want = expected_wire(view, child.mode)
    ctx.expect("FR-04", bool(requests) and wire_names(requests[0]) == want,
               f"a child resumed with the deny-only filter {deny_filter(texts)} is offered "
               f"{texts.late!r}, registered after the resume: the restored filter is the "
               "descriptor's, live", want, wire_names(requests[0]) if requests else None)
    ctx.drew("FR-04", "deny-filter-then-a-new-global")


def _registering(dep: Deployment, name: str, then: ModelReply) -> Any:
    """A gateway hook: registers global tool ``name`` while the child waits for its model."""

    def hook(request: ModelRequest) -> ModelReply:
        dep.register_tool(ToolSpec(name=name, description=f"tool {name}"))
        return then

    return hook


FR05 = (
    Partition("FR-05", "deny-only-child", "a global registered between two requests of a "
              "deny-only child: offered from then on"),
    Partition("FR-05", "allow-list-child", "the same for an allow-list child: not offered"),
    Partition("FR-05", "unfiltered-child", "a child of a provider without toolFilter"),
)


@check("FR-05", name="stable-composition", partitions=FR05)
def stable_composition(ctx: CheckContext) -> None:
    """Later requests keep the first request's composition and change only as the live registry
    changes: a deny-only child sees a global registered between two requests, an allow-list
    child does not."""
    each_case(ctx, ["FR-05"], lambda texts: _stable_composition(ctx, texts))


def _stable_composition(ctx: CheckContext, texts: Vocabulary) -> None:
    persona = texts.child_persona
    cases: list[tuple[str, dict[str, Any]]] = []
    if ctx.provider is not None and Capability.TOOL_FILTER in ctx.provider.capabilities:
        cases.append(("a deny-only child", {"persona": persona, "toolFilter": deny_filter(texts)}))
        cases.append(("an allow-list child", {"toolFilter": allow_filter(texts)}))
        ctx.inapplicable("FR-05", "unfiltered-child")
    else:
        cases.append(("an unfiltered child", {"persona": persona}))
        ctx.inapplicable("FR-05", "deny-only-child", "allow-list-child")
    globals_, late, first = texts.tools, texts.late, texts.tools[0]
    for what, wanted in cases:
        controls = supported_controls(ctx.provider, wanted)
        comp = composition(ctx.edition, controls, texts.presets[0])
        cfg = config(ctx.edition, tools=globals_, texts=texts, presets=comp.presets)
        dep = ctx.deploy(cfg)
        mark = ctx.gateway.script(
            marker(ctx, "fr05"),
            call(first, call_id="call-1"),
            _registering(dep, late, call(first, call_id="call-2")),
            text("done"),
        )
        request = start_request(dep.root().agent, provider_name(ctx), f"{mark} child task",
                                comp.fields)
        outcome = judge(ctx, cfg, globals_, request)
        oracle_accepts(outcome, what)
        with ctx.step("FR-05", f"starting {what}"):
            result = dep.start(request)
        requests = _requests(ctx, result.agent, "FR-05", at_least=3)
        if len(requests) < 3:
            continue
        composed = as_pairs(expected_sections(cfg, outcome))
        system = requests[0].system
        ctx.expect(
            "FR-05",
            carries_framed(ctx, system, sections_of(dep, result.agent),
                           expected_sections(cfg, outcome)),
            f"{what}: the first request carries the composed prompt",
            {"composed": composed},
            {"inspected": sections_of(dep, result.agent), "system": system},
        )
        before = expected_wire(expected_view(outcome, globals_, cfg.mode), cfg.mode)
        later = expected_wire(
            expected_view(outcome, (*globals_, late), cfg.mode, installed_over=globals_),
            cfg.mode,
        )
        for number, req, wire in ((1, requests[0], before), (2, requests[1], before),
                                  (3, requests[2], later)):
            ctx.expect(
                "FR-05",
                req.system == system,
                f"{what}: request {number} keeps the first request's system text",
                system,
                req.system,
            )
            ctx.expect(
                "FR-05",
                wire_names(req) == wire,
                f"{what}: request {number} carries the tools of the live registry"
                + (" (a global registered after request 2)" if number == 3 else ""),
                wire,
                wire_names(req),
            )
        ctx.expect(
            "FR-05",
            view_pairs(dep.view(result.agent))
            == view_pairs(expected_view(outcome, (*globals_, late), cfg.mode,
                                        installed_over=globals_)),
            f"{what}: the child's view follows the live registry",
            later,
            view_pairs(dep.view(result.agent)),
        )
        ctx.drew("FR-05", what.split(" ", 1)[1].replace(" ", "-"))
