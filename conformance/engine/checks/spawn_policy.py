"""Checks of spawn policies (SP-01, SP-02), per provider that advertises ``spawnPolicy``.

A policy reaches a scope three ways (docs/driver-api.md#spawn-policies-and-models): installed on
a live agent (``install_spawn_policy``, optional), or composed into a child's own scope by its
preset's or its start request's ``spawnPolicy``. SP-01 is judged on every start of every preset
of the deployment from a scope with policies: one the policies admit starts, one they refuse is
``SPAWN_DENIED`` naming the preset and leaves nothing behind (docs/rules.md#SP-01); a policy
naming presets the deployment lacks is refused when installed, listing them all, and nothing is
installed. SP-02's checks, which read what the scope's model is offered to delegate with, are
in spawn_policy_offered.py, over the same cases.

Preset names are drawn from the tool-name grammar (``_names``: case twins, prefixes, non-ASCII,
long), policies of every shape (allow, deny, both, empty lists), one to three on a scope, some
disposed; where the provider advertises depthLimit, the starts of a case may carry a cap the
child's depth is within (the partition ``under-a-cap``: a policy combined with a depth cap). A
start names a preset only in the preset-composition edition (a request-controls start names
none), so the start judgments run there. Each check asks one operation the target
may not express (a live policy, a start from a child): answered ``UNSUPPORTED_OPERATION``, its
rules are not applicable with the reason, and the other checks still judge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    MAX_SAFE_INTEGER,
    Capability,
    Edition,
    ErrorCode,
    Restriction,
    TckError,
    name_token,
    parse_policies,
)

from ...core.dialect import ChannelKind
from ...core.protocol import AgentRef, PresetSpec
from ...core.target import Deployment
from ..check import TARGET_FAULTS, CheckContext, check
from ..partitions import Partition
from ._channels import ROOT_PRESET
from ._depth_driver import reach
from ._names import MAX_NAME, strangers, tool_names
from ._observed import expect_unchanged, missing_names, snapshot
from ._starts import (
    capable,
    expected_start,
    marker,
    oracle_presets,
    provider_name,
    start_request,
    start_state,
)
from .tool_filter import restriction_st

PRESETS_ONLY = "a request-controls start names no preset (docs/rules.md, 'edition'): no start "\
    "for a spawn policy to admit or refuse"

#: Hand-written cases (every seed): case twins, prefixes, non-ASCII, a 64-character name, empty
#: lists, a disposed policy.
EXAMPLES: tuple[dict[str, Any], ...] = (
    {"presets": ["reviewer", "Reviewer", "reviewer_v2", "検索", "x" * MAX_NAME],
     "policies": [{"allow": ["reviewer", "reviewer_v2", "検索"], "deny": ["reviewer_v2"]},
                  {"deny": ["検索"]}], "disposed": [], "headroom": 1},
    {"presets": ["read", "Read", "READ", "read_file"],
     "policies": [{"deny": []}, {"allow": ["Read", "read_file"]}, {"deny": ["read_file"]}],
     "disposed": [], "headroom": 0},
    {"presets": ["writer", "writer-2", "café"], "policies": [{"allow": []}, {"deny": ["writer"]}],
     "disposed": [0]},
)

#: The starts of a case carry ``maxDepth``: the child's depth plus ``headroom`` (0: a cap the
#: child's depth reaches exactly), or the largest safe integer (``"max"``); None: no cap.
Headroom = int | str | None

#: A policy judged on starts that also carry a cap, where the provider advertises depthLimit:
#: a gate that lets a capped start through on its cap alone fails only such a case
#: (docs/rules.md#SP-01 speaks of every start).
UNDER_A_CAP = Partition("SP-01", "under-a-cap", "the starts carry a maxDepth the child's depth "
                        "is within (the policy combined with a cap)")

#: The partition each hand-written case stands for (docs/certify.md#partitions).
EXAMPLE_PARTS = (
    ("overlapping-lists-over-twins", "an allow and a deny list that share a name, over case "
     "twins, prefixes, a non-ASCII and a 64-character name"),
    ("empty-deny-then-allow-over-case-twins", "deny: [] beside allow lists over names that "
     "differ only in case"),
    ("empty-allow-and-a-disposed-policy", "allow: [] (every preset refused), and a disposed "
     "policy that refuses nothing any more"),
)


def example_partitions(rule: str) -> tuple[Partition, ...]:
    return tuple(Partition(rule, name, doc) for name, doc in EXAMPLE_PARTS)


@st.composite
def case_st(draw: Any) -> dict[str, Any]:
    """Preset names, one to three valid policies over them, and which of them are disposed."""
    presets = draw(tool_names(2, 6))
    policies = draw(st.lists(restriction_st(presets, empty=True), min_size=1, max_size=3))
    disposed = draw(st.lists(st.integers(0, len(policies) - 1), unique=True,
                             max_size=len(policies) - 1))
    headroom = draw(st.one_of(st.none(), st.integers(0, 6), st.just("max")))
    return {"presets": presets, "policies": policies, "disposed": sorted(disposed),
            "headroom": headroom}


def cap_for(ctx: CheckContext, case: dict[str, Any], parent_depth: int) -> int | None:
    """The ``maxDepth`` the starts of ``case`` carry from a parent at ``parent_depth`` (None:
    none); a provider without depthLimit gets none, and the partition is not its."""
    headroom: Headroom = case.get("headroom")
    if not capable(ctx.provider, Capability.DEPTH_LIMIT):
        ctx.inapplicable("SP-01", UNDER_A_CAP.name)
        return None
    if headroom is None:
        return None
    ctx.drew("SP-01", UNDER_A_CAP.name)
    return MAX_SAFE_INTEGER if headroom == "max" else parent_depth + 1 + int(headroom)


def names_preset(exc: TckError, preset: str) -> bool:
    """Whether a refusal names ``preset``: ``details.preset``, else its message as a whole
    token (``Read`` is not named by a message that names ``read``)."""
    said = exc.details.get("preset")
    if isinstance(said, str):
        return said == preset
    return re.search(name_token(preset), exc.message) is not None


#: The refusals a spawn policy gives (docs/rules.md#SP-01).
_POLICY_CODES = frozenset({ErrorCode.SPAWN_DENIED, ErrorCode.INVALID_SPAWN_POLICY})


def judge_starts(ctx: CheckContext, dep: Deployment, parent: AgentRef, presets: list[PresetSpec],
                 policies: Sequence[Restriction], where: str,
                 tools: list[str] | None = None, cap: int | None = None) -> None:
    """Start every preset from ``parent``, whose scope holds ``policies``: each as the oracle
    says (SP-01; ``tools``: the deployment's global tools; ``cap``: each start's maxDepth)."""
    provider = provider_name(ctx)
    state = start_state(ctx, global_names=tools or [], presets=oracle_presets(presets),
                        parent_policies=policies, parent_header=parent.depth)
    fields: dict[str, Any] = {} if cap is None else {"maxDepth": cap}
    if cap is not None:
        where = f"{where}, with maxDepth {cap}"
    for spec in presets:
        request = start_request(parent.agent, provider, f"policed {marker(ctx, 'sp')}",
                                {**fields, "preset": spec.name})
        outcome = expected_start(state, request)
        if not outcome.ok and outcome.codes != {ErrorCode.SPAWN_DENIED}:
            raise AssertionError(f"check bug: the oracle refuses {spec.name!r} for "
                                 f"{sorted(c.value for c in outcome.codes)}")
        what = f"a start of the preset {spec.name!r} from {where}"
        before = snapshot(dep, ctx.gateway)
        try:
            dep.start(request)
        except TckError as exc:
            if exc.code in TARGET_FAULTS:
                ctx.target_fault("SP-01", what, exc)
            if outcome.ok and exc.code in _POLICY_CODES:
                ctx.fail("SP-01", f"{what}: refused with {exc.code.value}, but every policy "
                         "admits it", "accepted", exc.to_json())
                continue
            if outcome.ok:
                # refused for no spawn policy's reason (a tool filter the target misjudges,
                # say): the rule of that refusal's own, which SP-01 does not speak of
                # (docs/rules.md#SP-01); the checks of that rule judge it
                continue
            if cap is None and exc.code is ErrorCode.DEPTH_EXCEEDED:
                # a start without maxDepth refused for depth: a depth bound the start did not
                # ask for, which docs/rules.md#DE-10 judges (a runtime whose own default cap
                # stops nesting). The policy is judged by the cases with a cap (under-a-cap,
                # drawn at every seed), where such a refusal is SP-01's failure; nothing may
                # be created all the same.
                expect_unchanged(ctx, "SP-01", before, dep, what)
                continue
            if ctx.expect("SP-01", exc.code is ErrorCode.SPAWN_DENIED,
                          f"{what}: refused with {exc.code.value}", "SPAWN_DENIED",
                          exc.to_json()):
                ctx.expect("SP-01", names_preset(exc, spec.name), f"{what}: the refusal does "
                           "not name the preset", spec.name, exc.to_json())
            expect_unchanged(ctx, "SP-01", before, dep, what)
            continue
        ctx.expect("SP-01", outcome.ok, f"{what} was accepted, but the policies refuse it",
                   "SPAWN_DENIED", "accepted")


def each(ctx: CheckContext, body: Any) -> None:
    """The hand-written cases (each one its partition), then drawn ones unless SP-01 already
    failed."""
    for case, (part, _) in zip(EXAMPLES, EXAMPLE_PARTS, strict=True):
        body(case)
        ctx.drew("SP-01", part)
        if any(f.rule == "SP-01" for f in ctx.failures):
            return
    ctx.for_all(case_st(), body)


def preset_specs(names: list[str]) -> list[PresetSpec]:
    return [PresetSpec(name=name) for name in names]


@check("SP-01", name="spawn-policy-live", edition=Edition.PRESET_COMPOSITION,
       partitions=(*example_partitions("SP-01"), UNDER_A_CAP))
def live(ctx: CheckContext) -> None:
    """Policies installed on the root (some disposed again): every preset of the deployment
    started from it, admitted or refused as the remaining policies say."""

    def body(case: dict[str, Any]) -> None:
        specs = preset_specs(case["presets"])
        dep = ctx.deploy(presets=specs)
        root = dep.root().agent
        handles = []
        for raw in case["policies"]:
            with ctx.step("SP-01", f"installing the valid spawn policy {raw}"):
                handles.append(dep.install_spawn_policy(root, raw))
        for index in case["disposed"]:
            with ctx.step("SP-01", f"disposing the spawn policy {case['policies'][index]}"):
                dep.dispose_spawn_policy(root, handles[index])
        kept = [p for i, p in enumerate(case["policies"]) if i not in case["disposed"]]
        judge_starts(ctx, dep, dep.root(), specs, parse_policies(kept, case["presets"]),
                     f"the root under the policies {kept}", cap=cap_for(ctx, case, 0))

    each(ctx, body)


def root_lead(names: Sequence[str]) -> str:
    """The name of the preset the root is started from, beside the case's presets ``names``
    (a kit-owned name: another when a drawn preset takes it)."""
    return next(n for n in (ROOT_PRESET, *(f"{ROOT_PRESET}_{i}" for i in range(9)))
                if n not in names)


#: A policy the root is started with: its preset's, through the root channel.
ROOT_CHANNEL = Partition("SP-01", "root-preset", "the policy of the preset the root is started "
                         "from (DeploymentConfig.rootPreset: the root channel)")


@check("SP-01", name="spawn-policy-root", edition=Edition.PRESET_COMPOSITION,
       partitions=(ROOT_CHANNEL, UNDER_A_CAP))
def root_preset(ctx: CheckContext) -> None:
    """The root started from a preset that carries a policy (the root channel, for a target
    that declares it: Claude Code's ``--agent NAME``) starts every preset of the deployment as
    that policy says, as a live policy on the root would (docs/rules.md#SP-01,
    docs/driver-api.md#dialect). Each case is a part: one whose policy the target cannot write
    on its root's definition is drawn around, and says so."""
    if not any(c.kind is ChannelKind.ROOT for c in ctx.channels):
        ctx.inapplicable("SP-01", ROOT_CHANNEL.name)
        ctx.inapplicable("SP-01", UNDER_A_CAP.name)
        return

    def body(case: dict[str, Any]) -> None:
        names, policy = case["presets"], case["policies"][0]
        lead = root_lead(names)
        specs = preset_specs(names)
        with ctx.expressible("SP-01", ROOT_CHANNEL.name):
            dep = ctx.deploy(presets=[*specs, PresetSpec(name=lead, spawnPolicy=policy)],
                             rootPreset=lead)
            judge_starts(ctx, dep, dep.root(), specs, parse_policies([policy], names),
                         f"the root started from a preset with the policy {policy}",
                         cap=cap_for(ctx, case, 0))
            ctx.drew("SP-01", ROOT_CHANNEL.name)

    for case in EXAMPLES:  # each policy of a hand-written case on its own: a preset has one
        for policy in case["policies"]:
            body({**case, "policies": [policy]})
    ctx.for_all(case_st(), body)


@check("SP-01", name="spawn-policy-composed", edition=Edition.PRESET_COMPOSITION,
       partitions=(*example_partitions("SP-01"), UNDER_A_CAP,
                   Partition("SP-01", "from-the-request", "the policy composed by the start "
                             "request, beside a preset's"),
                   Partition("SP-01", "from-the-preset", "the policy composed by the preset")))
def composed(ctx: CheckContext) -> None:
    """A child composed with a policy (its preset's, or its start request's over the preset's)
    starts every preset as that policy says; the preset also carries a tool filter and a model
    where the provider advertises them."""

    def body(case: dict[str, Any]) -> None:
        names, policy = case["presets"], case["policies"][0]
        route = "request" if len(case["policies"]) > 1 else "preset"
        lead: dict[str, Any] = {"spawnPolicy": policy if route == "preset" else {"deny": []}}
        if capable(ctx.provider, Capability.TOOL_FILTER):
            lead["toolFilter"] = {"deny": ["tool_b"]}
        if capable(ctx.provider, Capability.MODEL_SELECTION):
            lead["model"] = "composed-model"
        specs = [PresetSpec(name=names[0], **lead), *preset_specs(names[1:])]
        dep = ctx.deploy(tools=["tool_a", "tool_b"], presets=specs)
        fields: dict[str, Any] = {"preset": names[0]}
        if route == "request":
            fields["spawnPolicy"] = policy
        request = start_request(dep.root().agent, provider_name(ctx),
                                f"lead {marker(ctx, 'sp')}", fields)
        with ctx.step("SP-01", f"starting the child of preset {names[0]!r} with the policy "
                      f"{policy} from its {route}"):
            child = dep.start(request)
        with ctx.step("SP-01", "reaching the child as a parent"):
            parent = reach(dep, child)
        judge_starts(ctx, dep, parent, specs, parse_policies([policy], names),
                     f"a child whose {route} composed the policy {policy}", ["tool_a", "tool_b"],
                     cap_for(ctx, case, parent.depth))
        ctx.drew("SP-01", f"from-the-{route}")

    # a policy from the preset alone (the hand-written cases below compose it by the request)
    body({**EXAMPLES[0], "policies": EXAMPLES[0]["policies"][:1]})
    each(ctx, body)


@check("SP-01", name="spawn-policy-resumed", edition=Edition.PRESET_COMPOSITION,
       partitions=(*example_partitions("SP-01"), UNDER_A_CAP))
def resumed(ctx: CheckContext) -> None:
    """A child composed with a policy and resumed cold gets the policy back from its
    descriptor: the resumed child starts every preset as that policy says."""

    def body(case: dict[str, Any]) -> None:
        names, policy = case["presets"], case["policies"][0]
        specs = preset_specs(names)
        dep = ctx.deploy(presets=specs)
        with ctx.step("SP-01", f"starting a child with the policy {policy}"):
            child = dep.start(start_request(dep.root().agent, provider_name(ctx),
                                            f"resumable {marker(ctx, 'sp')}",
                                            {"spawnPolicy": policy}))
        with ctx.step("SP-01", "resuming the child cold"):
            parent = dep.resume(child.session)
        judge_starts(ctx, dep, parent, specs, parse_policies([policy], names),
                     f"a resumed child whose descriptor holds the policy {policy}",
                     cap=cap_for(ctx, case, parent.depth))

    each(ctx, body)


def unknown_case(draw: Any) -> tuple[list[str], dict[str, list[str]], list[str]]:
    presets = draw(tool_names(1, 5))
    unknown = strangers(presets) or ["no_such_preset"]
    bad = draw(st.lists(st.sampled_from(unknown), min_size=1, max_size=3, unique=True))
    known = draw(st.lists(st.sampled_from(presets), max_size=len(presets), unique=True))
    key = draw(st.sampled_from(["allow", "deny"]))
    mixed = draw(st.permutations([*known, *bad]))
    return presets, {key: list(mixed)}, bad


UNKNOWN_EXAMPLES = (
    (["reviewer", "writer"], {"allow": ["reviewer", "Reviewer", "writer_v2"]},
     ["Reviewer", "writer_v2"]),
    (["検索", "café"], {"deny": ["cafe", "検索", "検"]}, ["cafe", "検"]),
)
#: The partition each of them stands for.
UNKNOWN_PARTS = (
    Partition("SP-01", "unknown-case-twins-and-extensions", "an allow list naming a preset's "
              "case twin and extension beside a known preset"),
    Partition("SP-01", "unknown-non-ascii-near-names", "a deny list naming a non-ASCII preset's "
              "prefix and an accent-stripped name"),
)


def judge_unknown(ctx: CheckContext, dep: Deployment, action: Any, bad: list[str],
                  what: str) -> bool:
    """``action`` installs a policy naming ``bad``: refused with INVALID_SPAWN_POLICY listing
    every one, nothing changed. True when it was refused so."""
    before = snapshot(dep, ctx.gateway)
    exc = ctx.expect_error("SP-01", ErrorCode.INVALID_SPAWN_POLICY, action, what)
    if exc is None or exc.code is not ErrorCode.INVALID_SPAWN_POLICY:
        return False
    missing = missing_names(exc, bad)
    ctx.expect("SP-01", not missing, f"{what}: the refusal does not list {missing}",
               sorted(bad), exc.to_json())
    return expect_unchanged(ctx, "SP-01", before, dep, what)


@check("SP-01", name="spawn-policy-unknown-live", per_provider=False, partitions=UNKNOWN_PARTS)
def unknown_live(ctx: CheckContext) -> None:
    """A policy installed on a live scope that names presets the deployment lacks is refused,
    listing them all, and nothing is installed: in the preset-composition edition, a preset it
    would have refused still starts."""
    provider = next((p.name for p in ctx.providers
                     if Capability.SPAWN_POLICY in p.capabilities), ctx.providers[0].name)

    def body(case: tuple[list[str], dict[str, list[str]], list[str]]) -> None:
        presets, policy, bad = case
        dep = ctx.deploy(presets=preset_specs(presets))
        root = dep.root().agent
        what = f"installing the spawn policy {policy} over the presets {presets}"
        if not judge_unknown(ctx, dep, lambda: dep.install_spawn_policy(root, policy), bad,
                             what) or ctx.edition is not Edition.PRESET_COMPOSITION:
            return
        for name in presets:  # the refused policy would have refused some of them
            with ctx.step("SP-01", f"{what} was refused; starting the preset {name!r}"):
                dep.start(start_request(root, provider, f"unpoliced {marker(ctx, 'sp')}",
                                        {"preset": name}))

    for example, part in zip(UNKNOWN_EXAMPLES, UNKNOWN_PARTS, strict=True):
        body(example)
        ctx.drew("SP-01", part.name)
    ctx.for_all(st.composite(unknown_case)(), body)


@check("SP-01", name="spawn-policy-unknown-composed", partitions=(
    *UNKNOWN_PARTS, Partition("SP-01", "unknown-in-a-preset", "the policy naming unknown "
                              "presets composed by a preset")))
def unknown_composed(ctx: CheckContext) -> None:
    """A child's own policy naming presets the deployment lacks, from its start request (both
    editions) or its preset (refused at configuration or at the start), is refused listing
    them all, and nothing is created."""
    provider = provider_name(ctx)

    def body(case: tuple[list[str], dict[str, list[str]], list[str]]) -> None:
        presets, policy, bad = case
        dep = ctx.deploy(presets=preset_specs(presets))
        request = start_request(dep.root().agent, provider, f"misnamed {marker(ctx, 'sp')}",
                                {"spawnPolicy": policy})
        judge_unknown(ctx, dep, lambda: dep.start(request), bad,
                      f"a start whose request composes the policy {policy}")
        if ctx.edition is not Edition.PRESET_COMPOSITION:
            return
        specs = [PresetSpec(name=presets[0], spawnPolicy=policy), *preset_specs(presets[1:])]
        try:
            dep = ctx.deploy(presets=specs)
        except TckError as exc:  # refused as configuration: installed nowhere
            if exc.code in TARGET_FAULTS:
                raise
            ctx.expect("SP-01", exc.code is ErrorCode.INVALID_SPAWN_POLICY and not
                       missing_names(exc, bad), f"the preset {presets[0]!r} with the policy "
                       f"{policy} was refused at configuration with {exc.code.value}",
                       {"code": "INVALID_SPAWN_POLICY", "offending": sorted(bad)},
                       exc.to_json())
            return
        request = start_request(dep.root().agent, provider, f"misnamed {marker(ctx, 'sp')}",
                                {"preset": presets[0]})
        judge_unknown(ctx, dep, lambda: dep.start(request), bad,
                      f"a start of the preset {presets[0]!r} whose policy is {policy}")

    for example, part in zip(UNKNOWN_EXAMPLES, UNKNOWN_PARTS, strict=True):
        body(example)
        ctx.drew("SP-01", part.name)
    if ctx.edition is Edition.PRESET_COMPOSITION:
        ctx.drew("SP-01", "unknown-in-a-preset")
    else:
        ctx.inapplicable("SP-01", "unknown-in-a-preset")
    ctx.for_all(st.composite(unknown_case)(), body)
