"""Checks of a child's composition after its first request (FR-04, FR-05), per provider and in
the run's edition: the first request after a cold resume carries the composition the descriptor
restores, a descriptor that no longer applies fails the resume (FR-04), and later requests keep
the first request's prompt while their tools follow the live registry, changed by a gateway hook
between two requests (FR-05). Expectations come from the spec oracle (``resolve_view``,
``validate_restriction``, ``wire_tool_names``, ``assemble_system_prompt``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import Capability, ErrorCode, validate_restriction

from ...core.gateway import call, text
from ...core.protocol import ModelReply, ModelRequest, ToolSpec
from ...core.target import Deployment
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Partition
from ._composed import config, each_case, expected_sections, expected_view, expected_wire
from ._first_request_child import Child, allow_filter, deny_filter, doomed, model_requests
from ._framed import carries_framed, prompt_agrees
from ._observed import as_pairs, expect_unchanged, sections_of, snapshot, view_pairs, wire_names
from ._starts import (
    capable,
    composition,
    header_of,
    judge,
    marker,
    oracle_accepts,
    provider_name,
    start_request,
    supported_controls,
)
from ._texts import Vocabulary, vocabularies

#: The JSON type each descriptor field the resume applies must have (docs/rules.md#FR-04:
#: the descriptor is how the child was composed): a name, or an object.
_TEXT_FIELDS = ("provider", "persona", "model")
_OBJECT_FIELDS = ("toolFilter", "outputSchema", "spawnPolicy")
_JSON_SCALARS = st.one_of(st.booleans(), st.integers(), st.floats(allow_nan=False,
                                                                    allow_infinity=False))
_NAMES = st.text(min_size=1, max_size=12)
#: A value of the wrong type for a text field (a number, a flag, a list of names, an object) or
#: for an object field (a name, a number, a flag, a list of names, which a filter once was).
_WRONG_TEXT = st.one_of(_JSON_SCALARS, st.lists(_NAMES, max_size=3),
                        st.dictionaries(_NAMES, _NAMES, max_size=2))
_WRONG_OBJECT = st.one_of(_NAMES, _JSON_SCALARS, st.lists(_NAMES, max_size=3))
_malformed_st = st.one_of(
    st.tuples(st.sampled_from(_TEXT_FIELDS), _WRONG_TEXT),
    st.tuples(st.sampled_from(_OBJECT_FIELDS), _WRONG_OBJECT),
)
#: A refusal of the resume that says why: it cannot be resumed, its set-up failed, the value is
#: malformed, or the field's own validation refused it (or its provider's gate).
_FIELD_CODE = {
    "provider": ErrorCode.NO_PROVIDER, "persona": ErrorCode.INVALID_TEMPLATE,
    "toolFilter": ErrorCode.INVALID_TOOL_FILTER, "outputSchema": ErrorCode.INVALID_OUTPUT_SCHEMA,
    "spawnPolicy": ErrorCode.INVALID_SPAWN_POLICY, "model": ErrorCode.INVALID_REQUEST,
}
_RESUME_REFUSALS = {ErrorCode.NOT_RESUMABLE, ErrorCode.SETUP_FAILED, ErrorCode.INVALID_REQUEST,
                    ErrorCode.UNSUPPORTED_CAPABILITY}


def _malformed(field: str, value: object) -> bool:
    if field in _TEXT_FIELDS:
        return not isinstance(value, str)
    return field in _OBJECT_FIELDS and not isinstance(value, dict)


FR04 = (
    Partition("FR-04", "historical-composition", "a child with a persona and an allow filter, "
              "cold-resumed: its first resumed request carries both"),
    Partition("FR-04", "descriptor-no-longer-applies", "a descriptor naming a tool that is gone: "
              "the resume fails, nothing published"),
    Partition("FR-04", "deny-filter-then-a-new-global", "a child with a deny-only filter, "
              "cold-resumed, then a global registered: the resumed child is offered it"),
    Partition("FR-04", "malformed-descriptor", "a stored descriptor whose provider, persona, "
              "tool filter, output schema, spawn policy or model is of the wrong JSON type "
              "(written over a composed child's header): the resume fails, nothing published",
              cases=lambda drawer: st.tuples(vocabularies(drawer.portable_variables),
                                             _malformed_st),
              member=lambda case: _malformed(*case[1])),
)


@check("FR-04", name="cold-resume", partitions=FR04)
def cold_resume(ctx: CheckContext) -> None:
    """A cold-resumed child is composed from its descriptor before its first resumed request;
    a descriptor that no longer applies fails the resume and publishes nothing; a deny-only
    filter restored on resume still admits a global registered after it."""
    if not capable(ctx.provider, Capability.TOOL_FILTER):
        ctx.inapplicable("FR-04", "descriptor-no-longer-applies", "deny-filter-then-a-new-global")
    each_case(ctx, ["FR-04"], lambda texts: _cold_resume(ctx, texts))
    if not any(f.rule == "FR-04" for f in ctx.failures):
        ctx.cover("FR-04", lambda case: _malformed_descriptor(ctx, case[0], *case[1]),
                  ["malformed-descriptor"])


def _cold_resume(ctx: CheckContext, texts: Vocabulary) -> None:
    historical = {"persona": texts.child_persona, "toolFilter": allow_filter(texts)}
    controls = supported_controls(ctx.provider, historical)
    child = Child(ctx, "FR-04", texts, controls)
    dep = child.dep
    with ctx.step("FR-04", "cold-resuming the child's session"):
        resumed = dep.resume(child.session)
    seen = len(ctx.gateway.requests(resumed.agent))
    with ctx.step("FR-04", "running a turn of the resumed child"):
        dep.run_turn(resumed.agent, "resumed task")
    requests = ctx.gateway.requests(resumed.agent)[seen:]
    ctx.expect("FR-04", bool(requests), "the resumed child made a model request", ">= 1", 0)
    if requests:
        child.expect_carried(
            ctx, "FR-04", requests[0], resumed.agent,
            "the first resumed request carries the historical persona",
            "the first resumed request carries the historically filtered tool schemas")
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


def _malformed_descriptor(ctx: CheckContext, texts: Vocabulary, field: str,
                         value: object) -> None:
    """A composed child's stored descriptor, its ``field`` rewritten to ``value`` of the wrong
    type, is a descriptor that cannot be applied: the resume is refused and nothing of the
    child runs or is published. A target that shows no descriptor in its session headers, or
    cannot write one (UNSUPPORTED_OPERATION), keeps none the kit can rewrite."""
    controls = supported_controls(ctx.provider, {"persona": texts.child_persona})
    child = Child(ctx, "FR-04", texts, controls)
    dep = child.dep
    stored = header_of(dep, child.session)
    if stored is None or stored.descriptor is None:
        # the target shows no descriptor (FR-04 asks for the composition back, not for a
        # descriptor the kit can read): there is nothing here to rewrite
        ctx.inapplicable("FR-04", "malformed-descriptor")
        return
    planted = {**stored.descriptor, field: value}
    try:
        dep.put_session_header(stored.model_copy(update={"descriptor": planted}))
    except Unsupported:
        ctx.inapplicable("FR-04", "malformed-descriptor")
        return
    before = snapshot(dep, ctx.gateway, [dep.root().agent])
    ctx.expect_error(
        "FR-04", _RESUME_REFUSALS | {_FIELD_CODE[field]},
        lambda: dep.resume(child.session),
        f"resuming a child whose stored descriptor has {field} {value!r}, not "
        f"{'a name' if field in _TEXT_FIELDS else 'an object'}",
    )
    expect_unchanged(ctx, "FR-04", before, dep, "a refused resume of a malformed descriptor",
                     unrelated=[dep.root().agent, child.agent])


def _resumed_deny_filter(ctx: CheckContext, texts: Vocabulary) -> None:
    """Two controls at once: a child composed with a deny-only filter is cold-resumed, then a
    global is registered; the resumed child's next request offers it (the restored filter is
    the same live deny list, docs/rules.md#TF-09, not a snapshot of what it admitted)."""
    child = Child(ctx, "FR-04", texts, {"toolFilter": deny_filter(texts)})
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
        requests = model_requests(ctx, result.agent, "FR-05", at_least=3)
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
