"""Checks of capability gating (CA-01..CA-05), per provider.

A control a provider does not advertise is asked for from every place it can come from: the
request (``maxDepth`` always; ``persona`` and ``toolFilter`` in the request-controls edition;
``outputSchema``, ``spawnPolicy`` and ``model`` in both), a preset, and a stored descriptor read
back on cold resume. The refusal must be ``UNSUPPORTED_CAPABILITY`` naming the capability
(``details["capability"]`` or the message, CA-01) and must leave no trace (CA-02); it should
come before any value check (CA-03). A control a provider does advertise must visibly work
(CA-04, made concrete: the persona in the child's first request, the filtered tool list, the
cap enforced, ``structured_output`` offered, the composed model named by its requests, a start
its own policy refuses refused). An unknown provider name is ``NO_PROVIDER`` with nothing
created (CA-05).
Expectations come from :func:`~subagent_tck.spec.decide_start`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    CONTROLS,
    MAX_SAFE_INTEGER,
    STRUCTURED_OUTPUT,
    Capability,
    DepthProblem,
    Edition,
    ErrorCode,
    PresentationMode,
    StartOutcome,
    check_depth,
    resolve_view,
    validate_restriction,
    wire_tool_names,
)

from ...core.protocol import PresetSpec
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Partition
from ._clauses import said
from ._depth_values import anything_st
from ._gating_routes import (
    ALL_ROUTES,
    DESCRIPTOR,
    FIELD,
    INVALID,
    REQUEST,
    SLUG,
    TOOLS,
    VALID,
    asks_st,
    descriptor_route,
    lacking_or_skip,
    refusal,
    route_partition,
    routes,
)
from ._nonce import nonce
from ._observed import expect_unchanged, snapshot
from ._starts import composition, expected_start, marker, start_request, start_state

CA01 = (
    *(Partition("CA-01", route_partition(c, r), f"{c.value} asked by the {r} of a provider "
                "that does not advertise it") for c in CONTROLS for r in ALL_ROUTES[c]),
    Partition("CA-01", "max-depth-zero", "maxDepth 0 asked of a provider without depthLimit: "
              "UNSUPPORTED_CAPABILITY, not DEPTH_EXCEEDED"),
    Partition("CA-02", "refusal-leaves-nothing", "a gated refusal leaves no run, event, child "
              "or model request"),
)


@check("CA-01", "CA-02", name="gating-unsupported-refused", partitions=CA01)
def unsupported_refused(ctx: CheckContext) -> None:
    """A control the provider does not advertise, asked for by the request, a preset or a
    descriptor, is refused with UNSUPPORTED_CAPABILITY naming it, before the provider runs."""
    found = lacking_or_skip(ctx, "CA-01", "CA-02")
    if found is None:
        return
    provider, lacking = found
    ctx.inapplicable("CA-01", *(route_partition(c, r) for c in CONTROLS for r in ALL_ROUTES[c]
                                if c not in lacking or (r != DESCRIPTOR
                                                        and r not in routes(ctx.edition, c))))
    if Capability.DEPTH_LIMIT not in lacking:
        ctx.inapplicable("CA-01", "max-depth-zero")
    for cap in lacking:
        for route in routes(ctx.edition, cap):
            refusal(ctx, "CA-01", {cap: (route, VALID[cap])},
                    f"{cap.value} asked of {provider.name} by the {route}")
            ctx.drew("CA-01", route_partition(cap, route))
        if cap is Capability.DEPTH_LIMIT:  # a cap a start from the root would exceed
            refusal(ctx, "CA-01", {cap: (REQUEST, 0)},
                    f"maxDepth 0 asked of {provider.name}, which lacks depthLimit")
            ctx.drew("CA-01", "max-depth-zero")
        if cap is not Capability.DEPTH_LIMIT:  # a target without writable headers lacks it
            with ctx.expressible("CA-01", route_partition(cap, DESCRIPTOR)):
                descriptor_route(ctx, cap)
        # whatever else is wrong with the start: a parent at 2^53-1, whose child would
        # overflow (docs/rules.md#de-08 fixes no code of its own, CA-01 does)
        refusal(ctx, "CA-01", {cap: (routes(ctx.edition, cap)[0], VALID[cap])},
                f"{cap.value} asked of {provider.name} from a parent at depth 2^53-1",
                header=MAX_SAFE_INTEGER)
    def drawn(asks: dict[Capability, Any]) -> None:
        fields = sorted(FIELD[c] for c in asks)
        refusal(ctx, "CA-01", asks, f"the controls {fields} asked of {provider.name}")

    ctx.for_all(asks_st(ctx.edition, provider), drawn)


#: maxDepth values outside the domain a JSON request can carry (a non-finite one makes the
#: request itself malformed, docs/rules.md#de-05): the value check CA-03 orders after the gate.
INVALID_CAPS = anything_st.filter(
    lambda v: check_depth(v).value is None
    and check_depth(v).problem is not DepthProblem.NOT_FINITE)


def _value_rule(cap: Capability) -> str:
    """Whose an invalid ``cap`` value asked of a provider without ``cap`` is: maxDepth's is a
    value check of the start itself, ordered after the gate by CA-03; a persona, filter or
    schema is checked at setup, after the gate, so refusing it for its value first is CA-01's
    (docs/rules.md#ca-02)."""
    return "CA-03" if cap is Capability.DEPTH_LIMIT else "CA-01"


CA03 = tuple(Partition(_value_rule(c), f"invalid-{SLUG[c]}", f"an invalid {c.value} value "
                       "asked of a provider that does not advertise it") for c in CONTROLS)


@check("CA-03", "CA-01", name="gating-capability-first", partitions=CA03)
def capability_first(ctx: CheckContext) -> None:
    """An invalid value for a control the provider lacks reports UNSUPPORTED_CAPABILITY, not
    the value's own error (a start accepted outright is CA-01's failure, a silent downgrade).
    maxDepth's domain is a value check of the start itself, whose order after the gate is
    CA-03's (a SHOULD); a persona, filter or schema is checked when the child is set up, after
    the gate (docs/rules.md#ca-02), so refusing it for its value first breaks CA-01."""
    found = lacking_or_skip(ctx, "CA-03", "CA-01")
    if found is None:
        return
    provider, lacking = found
    judged_any = False
    for c in CONTROLS:
        if c not in lacking:
            ctx.inapplicable(_value_rule(c), f"invalid-{SLUG[c]}")
    for cap in lacking:
        route = routes(ctx.edition, cap)[0]
        rule = _value_rule(cap)
        judged = refusal(ctx, rule, {cap: (route, INVALID[cap])},
                         f"the invalid {cap.value} value {INVALID[cap]!r} asked of "
                         f"{provider.name}")
        if judged:
            ctx.drew(rule, f"invalid-{SLUG[cap]}")
        judged_any |= judged
    if Capability.DEPTH_LIMIT not in lacking:
        ctx.skip("CA-03", "the provider advertises depthLimit: no maxDepth value check can meet "
                 "the gate (a persona, filter or schema refused first is CA-01's)")
    elif not judged_any:
        ctx.skip("CA-03", "the target refused every invalid preset as configuration, before "
                 "a start could show which check comes first")
    else:
        def drawn(cap: object) -> None:
            refusal(ctx, "CA-03", {Capability.DEPTH_LIMIT: (REQUEST, cap)},
                    f"the invalid maxDepth {cap!r} asked of {provider.name}")

        ctx.for_all(INVALID_CAPS, drawn)


def effect(ctx: CheckContext, cap: Capability) -> None:
    """Ask for an advertised control and show that it took effect at all (its exact semantics
    are its family's: a control that works with an off-by-one fails DE-03, not CA-04)."""
    assert ctx.provider is not None
    name = ctx.provider.name
    if cap is Capability.DEPTH_LIMIT:
        dep = ctx.deploy(tools=TOOLS)
        root = dep.root().agent
        ctx.expect_error("CA-04", ErrorCode.DEPTH_EXCEEDED, lambda: dep.start(
            start_request(root, name, "capped child", {"maxDepth": 0})),
            said("CA-04", f"{name} advertises depthLimit: maxDepth 0 must forbid a child"))
        with ctx.step("CA-04", f"{name} advertises depthLimit: maxDepth 5 allows a child"):
            result = dep.start(start_request(root, name, "capped child", {"maxDepth": 5}))
        ctx.expect("CA-04", result.depth == 1,
                   said("CA-04", "a child under maxDepth 5"), 1, result.depth)
        return
    if cap in (Capability.SPAWN_POLICY, Capability.MODEL_SELECTION):
        composed_effect(ctx, cap)
        return
    # A persona with a per-case nonce: only a child composed with it can show it.
    value = VALID[cap] if cap is not Capability.PERSONA else (
        f"GATED-PERSONA {nonce(ctx, 'persona')}: you review diffs.")
    comp = composition(ctx.edition, {FIELD[cap]: value})
    dep = ctx.deploy(tools=TOOLS, presets=comp.presets)
    request = start_request(dep.root().agent, name, f"composed child {marker(ctx, 'ca')}",
                            comp.fields)
    outcome: StartOutcome = expected_start(
        start_state(ctx, global_names=TOOLS, presets=comp.oracle_presets()), request)
    if not outcome.ok:
        raise AssertionError(f"check bug: the oracle refuses {cap.value} {value!r}")
    with ctx.step("CA-04", f"{name} advertises {cap.value}: starting a child that uses it"):
        result = dep.start(request)
    sent = ctx.gateway.requests(result.agent)
    first = sent[0] if sent else None
    if cap is Capability.PERSONA:
        ctx.expect("CA-04", first is not None and outcome.persona is not None
                   and outcome.persona in first.system,
                   said("CA-04", f"{name} advertises persona: the child's first request must "
                        "carry the persona (PE-01)"),
                   outcome.persona, first.system if first else None)
        return
    restrictions = []
    if outcome.tool_filter is not None:
        verdict = validate_restriction(outcome.tool_filter, TOOLS)
        assert verdict.restriction is not None
        restrictions.append(verdict.restriction)
    locals_ = [STRUCTURED_OUTPUT] if outcome.output_schema is not None else []
    mode = PresentationMode.NATIVE
    want = sorted(wire_tool_names(resolve_view(TOOLS, restrictions, locals_, mode), mode))
    wire = sorted(t.name for t in first.tools) if first else None
    ctx.expect("CA-04", wire == want,
               said("CA-04", f"{name} advertises {cap.value}: the child's first "
               "request must offer the tools it implies"), want, wire)


def composed_effect(ctx: CheckContext, cap: Capability) -> None:
    """A child composed with a model names it in its first request (docs/rules.md#MO-01); a
    child composed with a spawn policy that refuses a preset cannot start it (SP-01: only where
    a start may name a preset and a child may start one; otherwise not judged here)."""
    assert ctx.provider is not None
    name = ctx.provider.name
    dep = ctx.deploy(tools=TOOLS, presets=[PresetSpec(name="gated")])
    root = dep.root().agent
    if cap is Capability.MODEL_SELECTION:
        model = f"gated-model-{nonce(ctx, 'model')}"
        with ctx.step("CA-04", f"{name} advertises modelSelection: starting a child on a model"):
            result = dep.start(start_request(root, name, f"model {marker(ctx, 'ca')}",
                                             {"model": model}))
        sent = ctx.gateway.requests(result.agent)
        ctx.expect("CA-04", bool(sent) and sent[0].model == model,
                   said("CA-04", f"{name} advertises modelSelection: the child's first request "
                        "must name its model"), model, sent[0].model if sent else None)
        return
    if ctx.edition is not Edition.PRESET_COMPOSITION:
        # a request-controls start names no preset: nothing for a policy to refuse
        ctx.inapplicable("CA-04", "spawn-policy-works")
        return
    with ctx.step("CA-04", f"{name} advertises spawnPolicy: starting a child with a policy"):
        child = dep.start(start_request(root, name, "policed child",
                                        {"spawnPolicy": {"deny": ["gated"]}}))
    fields: dict[str, Any] = {"preset": "gated"}
    if Capability.DEPTH_LIMIT in ctx.provider.capabilities:
        # a cap the grandchild is within: a runtime whose own default cap stops nesting (a
        # deviation docs/rules.md#DE-10 judges) still shows whether the policy takes effect
        fields["maxDepth"] = 5
    try:
        ctx.expect_error("CA-04", ErrorCode.SPAWN_DENIED, lambda: dep.start(
            start_request(child.agent, name, "refused grandchild", fields)),
            said("CA-04", f"{name} advertises spawnPolicy: a child whose policy denies the "
                 "preset gated must not start it"))
    except Unsupported:  # the target cannot start from a child: SP-01's checks say so
        ctx.inapplicable("CA-04", "spawn-policy-works")


CA04 = tuple(Partition("CA-04", f"{SLUG[c]}-works", f"an advertised {c.value} visibly takes "
                       "effect") for c in CONTROLS)


@check("CA-04", name="gating-honest-advertising", partitions=CA04)
def honest_advertising(ctx: CheckContext) -> None:
    """Every control the provider advertises visibly works: a provider that advertises one and
    silently ignores it is false advertising."""
    provider = ctx.provider
    advertised = [c for c in CONTROLS if provider is not None and c in provider.capabilities]
    if not advertised:
        ctx.skip("CA-04", "the provider advertises no control")
        return
    ctx.inapplicable("CA-04", *(f"{SLUG[c]}-works" for c in CONTROLS if c not in advertised))
    for cap in advertised:
        effect(ctx, cap)
        if ("CA-04", f"{SLUG[cap]}-works") not in ctx.inapplicable_partitions:
            ctx.drew("CA-04", f"{SLUG[cap]}-works")


CA05 = (
    Partition("CA-05", "unknown-name", "a name no provider has"),
    Partition("CA-05", "empty-name", "the empty name"),
    Partition("CA-05", "another-case", "a provider's name in another case"),
    Partition("CA-05", "extended-name", "a provider's name with a character more"),
    Partition("CA-05", "with-max-depth", "an unknown provider asked for a cap too"),
    Partition("CA-05", "removed-provider", "a provider removed before the start"),
)


@check("CA-05", name="gating-no-provider", per_provider=False, partitions=CA05)
def no_provider(ctx: CheckContext) -> None:
    """A start on a provider name that is not registered fails with NO_PROVIDER and creates
    nothing: a misspelling, another case, an empty name, a provider removed."""
    known = [p.name for p in ctx.providers]

    def body(name: str, fields: dict[str, Any], removed: str | None = None) -> None:
        dep = ctx.deploy(tools=TOOLS)
        if removed is not None:
            with ctx.step("CA-05", f"removing the provider {removed}"):
                dep.remove_provider(removed)
        request = start_request(dep.root().agent, name, "orphan child", fields)
        state = start_state(ctx, global_names=TOOLS)
        if removed is not None:
            state = replace(state, providers={k: v for k, v in state.providers.items()
                                              if k != removed})
        outcome = expected_start(state, request)
        if outcome.codes != {ErrorCode.NO_PROVIDER}:
            raise AssertionError(f"check bug: the oracle does not say NO_PROVIDER for {name!r}")
        before = snapshot(dep, ctx.gateway)
        exc = ctx.expect_error("CA-05", ErrorCode.NO_PROVIDER, lambda: dep.start(request),
                               said("CA-05", f"a start on the provider {name!r}"))
        if exc is not None:
            expect_unchanged(ctx, "CA-05", before, dep, f"a start on the provider {name!r}")

    names = [("no-such-provider", "unknown-name"), ("", "empty-name")]
    if known:
        names += [(n, part) for n, part in ((known[0].upper(), "another-case"),
                                            (known[0] + "x", "extended-name")) if n not in known]
    for name, part in names:
        body(name, {})
        ctx.drew("CA-05", part)
    body("no-such-provider", {"maxDepth": 1})
    ctx.drew("CA-05", "with-max-depth")
    if known:
        body(known[0], {}, removed=known[0])
        ctx.drew("CA-05", "removed-provider")
    ctx.for_all(st.text(st.sampled_from("abcdefgklmnopqrs-_"), min_size=1, max_size=10)
                .filter(lambda n: n not in known), lambda n: body(n, {}))
