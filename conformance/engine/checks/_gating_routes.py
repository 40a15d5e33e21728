"""How a gating check asks a provider for a control, and how it judges the refusal
(docs/rules.md#ca-01, docs/rules.md#ca-02).

A control is asked for by each route it can come from in the run's edition (:func:`routes`:
the request, a preset) and by a stored descriptor read back on cold resume
(:func:`descriptor_route`); the values asked are valid (CA-01) or invalid (CA-03). A refusal
must be ``UNSUPPORTED_CAPABILITY`` naming the capability (:func:`named`) and leave no trace
(:func:`judged`); accepting the start is a silent downgrade. Nothing here is a check: the
checks are :mod:`.gating`'s.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import CONTROLS, FIELD_CAPABILITY, Capability, Edition, ErrorCode, TckError

from ...core.protocol import PresetSpec, ProviderInfo, StartRequest
from ...core.target import Deployment
from ..check import CheckContext
from ._clauses import said
from ._observed import expect_unchanged, snapshot
from ._starts import Composition, expected_start, header_of, start_request, start_state

TOOLS = ["alpha", "bravo"]
#: The request field that asks for each capability (the spec's map, read the other way).
FIELD = {cap: name for name, cap in FIELD_CAPABILITY.items()}
#: A valid value for each control (CA-01, CA-04) and an invalid one (CA-03).
VALID: dict[Capability, Any] = {
    Capability.DEPTH_LIMIT: 5,
    Capability.PERSONA: "GATED-PERSONA: you review diffs.",
    Capability.TOOL_FILTER: {"allow": ["alpha"]},
    Capability.OUTPUT_SCHEMA: {"type": "object", "properties": {"answer": {"type": "string"}}},
    Capability.SPAWN_POLICY: {"allow": []},  # valid over any presets: it names none
    Capability.MODEL_SELECTION: "gated-model",
}
INVALID: dict[Capability, Any] = {
    Capability.DEPTH_LIMIT: -1,
    Capability.PERSONA: "{{no_such_variable}}",
    Capability.TOOL_FILTER: {},
    Capability.OUTPUT_SCHEMA: {"type": "string"},
    Capability.SPAWN_POLICY: {},
    Capability.MODEL_SELECTION: "",
}
REQUEST, PRESET, DESCRIPTOR = "request", "preset", "descriptor"
#: Controls a start request carries in both editions beside a preset's (EN-02 refuses only
#: persona and toolFilter in the request of the preset-composition edition).
REQUEST_AND_PRESET = (Capability.OUTPUT_SCHEMA, Capability.SPAWN_POLICY,
                      Capability.MODEL_SELECTION)
#: Caps of the whole depth domain: an unadvertised cap is refused whatever its value, and 0,
#: the one a target applying it would refuse with DEPTH_EXCEEDED instead, is always tried
#: (docs/rules.md#ca-01).
VALID_CAPS = st.one_of(st.just(0), st.integers(min_value=0, max_value=2**53 - 1))


def routes(edition: Edition, cap: Capability) -> list[str]:
    """Where a start can ask for ``cap`` in ``edition`` (the descriptor route aside)."""
    # A request-controls start names no preset (docs/rules.md#editions: a check may not ask a
    # request-controls start to select one), so every control travels in the request there.
    if cap is Capability.DEPTH_LIMIT or edition is Edition.REQUEST_CONTROLS:
        return [REQUEST]
    if cap in REQUEST_AND_PRESET:
        return [REQUEST, PRESET]
    return [PRESET]


#: A capability as a partition name.
SLUG = {Capability.DEPTH_LIMIT: "depth-limit", Capability.PERSONA: "persona",
        Capability.TOOL_FILTER: "tool-filter", Capability.OUTPUT_SCHEMA: "output-schema",
        Capability.SPAWN_POLICY: "spawn-policy", Capability.MODEL_SELECTION: "model-selection"}
#: Every route a control can be asked by, in some edition.
ALL_ROUTES = {c: [REQUEST] if c is Capability.DEPTH_LIMIT else [REQUEST, PRESET, DESCRIPTOR]
              for c in CONTROLS}


def route_partition(cap: Capability, route: str) -> str:
    return f"{SLUG[cap]}-in-{'a' if route != REQUEST else 'the'}-{route}"


def missing(provider: ProviderInfo | None) -> list[Capability]:
    return [c for c in CONTROLS if provider is not None and c not in provider.capabilities]


def named(exc: TckError, provider: str | None = None) -> tuple[set[str], bool]:
    """The capabilities an error names, and whether it names them exactly.

    ``details["capability"]`` (the adapter's translation, docs/driver-api.md) is exact. Else the
    message is read: a capability is named by its own word or by the control that needs it
    (``maxDepth`` names depthLimit), as a whole word, the provider's own name left out (a
    provider called ``persona-only`` names no control). A message may mention other
    capabilities too (what the provider does offer): CA-01 asks that it name the missing one,
    not that it name nothing else."""
    said = exc.details.get("capability")
    if isinstance(said, str):
        return {said}, True
    # the provider's name as a whole word only: "spawn" is not left out of "spawnPolicy"
    message = re.sub(_word(provider), "", exc.message) if provider else exc.message
    found = set()
    for cap in CONTROLS:
        if any(re.search(_word(word), message) for word in {cap.value, FIELD[cap]}):
            found.add(cap.value)
    return found, False


def _word(word: str) -> str:
    return rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])"


def compose(asks: dict[Capability, tuple[str, Any]]) -> Composition:
    """Put each asked control (route, value) where its route says."""
    preset = {FIELD[c]: v for c, (route, v) in asks.items() if route == PRESET}
    fields = {FIELD[c]: v for c, (route, v) in asks.items() if route == REQUEST}
    if preset:
        return Composition([PresetSpec(name="gated", **preset)], {**fields, "preset": "gated"})
    return Composition([], fields)


def refusal(ctx: CheckContext, rule: str, asks: dict[Capability, tuple[str, Any]],
            what: str, header: int | None = None) -> bool:
    """Start with ``asks`` (from a top-level agent whose header records ``header``, else from
    the root); judge the code and the capability named (``rule``) and, when refused, that
    nothing was created (CA-02). False when the target refused the preset as configuration,
    before any start could be judged."""
    assert ctx.provider is not None
    comp = compose(asks)
    try:
        dep = ctx.deploy(tools=TOOLS, presets=comp.presets)
    except TckError:
        if any(c in ctx.provider.capabilities for c in asks) or rule != "CA-03":
            raise
        return False
    if header is None:
        parent = dep.root().agent
    else:
        with ctx.step(rule, f"creating a top-level agent at depth {header}"):
            parent = dep.create_agent(header_depth=header).agent
    request = start_request(parent, ctx.provider.name, "gated child", comp.fields)
    outcome = expected_start(start_state(ctx, global_names=TOOLS, presets=comp.oracle_presets(),
                                         parent_header=header or 0), request)
    unsupported = {c.value for c in asks if c not in ctx.provider.capabilities}
    if ErrorCode.UNSUPPORTED_CAPABILITY not in outcome.codes:
        raise AssertionError(f"check bug: the oracle does not refuse {what}")
    judged(ctx, rule, dep, lambda: dep.start(request), unsupported, what)
    return True


def judged(ctx: CheckContext, rule: str, dep: Deployment, action: Any, unsupported: set[str],
           what: str) -> None:
    before = snapshot(dep, ctx.gateway)
    try:
        accepted = action()
    except TckError as exc:
        refused = exc
    else:  # no refusal at all: a silent downgrade, whatever the check's rule (CA-01)
        ctx.fail("CA-01", said("CA-01", f"{what}: accepted, expected UNSUPPORTED_CAPABILITY"),
                 ErrorCode.UNSUPPORTED_CAPABILITY.value, accepted)
        return
    if ctx.expect(rule, refused.code is ErrorCode.UNSUPPORTED_CAPABILITY,
                  said(rule, f"{what}: refused with {refused.code.value}"),
                  ErrorCode.UNSUPPORTED_CAPABILITY.value, refused.to_json()):
        names, exact = named(refused, ctx.provider.name if ctx.provider else None)
        ok = bool(names) and (names <= unsupported if exact else bool(names & unsupported))
        ctx.expect(rule, ok,
                   said(rule, f"{what}: refused with UNSUPPORTED_CAPABILITY, but the refusal "
                        "does not name the capability"),
                   sorted(unsupported), {"named": sorted(names), "error": refused.to_json()})
    if "CA-02" in ctx.check.rules:
        expect_unchanged(ctx, "CA-02", before, dep, what)
        ctx.drew("CA-02", "refusal-leaves-nothing")


def descriptor_route(ctx: CheckContext, cap: Capability) -> None:
    """A stored descriptor asks for ``cap`` on cold resume of a child of this provider. The
    control is written into the child's own descriptor under its wire name, beside the
    ``provider`` key the descriptor must already carry (else this route is not judged)."""
    assert ctx.provider is not None
    dep = ctx.deploy(tools=TOOLS)
    with ctx.step("CA-01", "starting a plain child to resume"):
        result = dep.start(StartRequest(parent=dep.root().agent, provider=ctx.provider.name,
                                        prompt="plain child"))
    stored = header_of(dep, result.session)
    if stored is None:
        # No stored header, no descriptor to ask through: this route is not judged (CA-01 asks
        # only that a descriptor asking for a control be refused; whether a child has a header
        # is the DE rules' subject, docs/rules.md#de-01).
        return
    if not stored.descriptor or stored.descriptor.get("provider") != ctx.provider.name:
        return  # not a descriptor in the wire-named form this route writes into: not judged
    descriptor = {**stored.descriptor, FIELD[cap]: VALID[cap]}
    with ctx.step("CA-01", "storing a descriptor that asks for " + cap.value):
        dep.put_session_header(stored.model_copy(update={"descriptor": descriptor}))
    judged(ctx, "CA-01", dep, lambda: dep.resume(result.session), {cap.value},
           f"resuming a child whose descriptor asks {ctx.provider.name} for {cap.value}")
    ctx.drew("CA-01", route_partition(cap, DESCRIPTOR))


@st.composite
def asks_st(draw: Any, edition: Edition, provider: ProviderInfo) -> dict[Capability, Any]:
    """1-4 controls, at least one the provider lacks, each on one of its routes."""
    lacking = missing(provider)
    caps = draw(st.lists(st.sampled_from(list(CONTROLS)), min_size=1, max_size=4, unique=True)
                .filter(lambda cs: any(c in lacking for c in cs)))
    return {c: (draw(st.sampled_from(routes(edition, c))),
                draw(VALID_CAPS) if c is Capability.DEPTH_LIMIT else VALID[c]) for c in caps}


def lacking_or_skip(
    ctx: CheckContext, *rules: str
) -> tuple[ProviderInfo, list[Capability]] | None:
    """The provider and the controls it lacks; ``None``, with ``rules`` skipped, when there is
    no provider or it advertises every control (nothing to refuse)."""
    provider = ctx.provider
    lacking = missing(provider)
    if provider is None or not lacking:
        for rule in rules:
            ctx.skip(rule, "the provider advertises every control: nothing to refuse")
        return None
    return provider, lacking
