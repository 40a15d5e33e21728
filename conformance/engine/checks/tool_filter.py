"""Checks of the tool filter, part one: how a view is resolved (TF-01, TF-02, TF-06; locals,
TF-04 and TF-05, are :mod:`.tool_filter_locals`'s) and what a child
started with a filter through the provider under test is offered (TF-01, TF-03, TF-12), with the
strategies of restrictions and scopes every TF check draws.

Every expectation comes from the spec oracle (:func:`~subagent_tck.spec.resolve_view`,
:func:`~subagent_tck.spec.validate_restriction`, :func:`~subagent_tck.spec.wire_tool_names`);
views are compared as sets of ``(name, origin)`` (order is free), built and judged by
:mod:`._tool_filter_views`. Each check judges only the aspect its rule is about, on states
drawn so that no other TF rule decides the outcome (one restriction with non-empty lists for
TF-01, single-list restrictions for TF-02, ...): a target that breaks one rule fails that rule,
not its neighbours. Scope semantics need no provider and run once per target on the root and on
``create_agent()`` scopes (``per_provider=False``). Live registry, resolver, isolation and
dispose rules are in :mod:`.tool_filter_runtime`.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import (
    RUN_CODE,
    Capability,
    ErrorCode,
    Origin,
    PresentationMode,
    StopReason,
    wire_tool_names,
)
from subagent_tck.spec import ViewEntry as SpecEntry

from ...core.gateway import call, text
from ...core.protocol import ModelReply, ModelRequest, ToolSpec
from ..check import CheckContext, check
from ..partitions import Partition
from ._channels import channels_for, next_of, placements
from ._clauses import said
from ._folded_names import FOLDED, folded_names
from ._grammar_cases import spelled
from ._names import MAX_NAME, tool_names
from ._nonce import nonce
from ._observed import expect_unchanged, oracle_view, snapshot
from ._starts import composition, marker, start_request
from ._tool_filter_views import (
    ABC,
    AWKWARD,
    MODES,
    RESERVED,
    build,
    drawn_placed,
    drew_if_placed,
    judge_placed,
    nothing_carried,
    through_next,
)

# --- strategies ---------------------------------------------------------------------------

#: Global tool names: every list size from one to eight.
globals_st = tool_names(1, 8)


def subset(names: list[str], min_size: int = 1) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(names), min_size=min_size, max_size=len(names), unique=True)


@st.composite
def restriction_st(
    draw: Any, names: list[str], *, both: bool = True, empty: bool = False,
    kinds: tuple[str, ...] = ("allow", "deny"),
) -> dict[str, list[str]]:
    """One valid restriction over ``names`` with lists among ``kinds``: ``both`` allows two
    lists at once; ``empty`` allows ``[]``."""
    kind = draw(st.sampled_from((*kinds, "both") if both and len(kinds) == 2 else kinds))
    low = 0 if empty else 1
    out: dict[str, list[str]] = {}
    for key in ("allow", "deny"):
        if kind in (key, "both"):
            out[key] = draw(subset(names, low))
    return out


@st.composite
def scope_st(
    draw: Any,
    *,
    restrictions: tuple[int, int] = (0, 3),
    both: bool = True,
    empty: bool = True,
    shadows: bool = False,
    local_count: tuple[int, int] = (0, 3),
    modes: tuple[PresentationMode, ...] = (PresentationMode.NATIVE,),
    kinds: tuple[str, ...] = ("allow", "deny"),
) -> dict[str, Any]:
    """A drawn scope: globals, restrictions, local names and a presentation mode. Local names
    are drawn apart from the globals (often looking like them: ``Read`` next to ``read``);
    with ``shadows`` they may also be names of globals."""
    names = draw(globals_st)
    pool = draw(tool_names(1, 3, avoid=names))
    if shadows:
        pool = [*pool, *names]
    locals_ = draw(st.lists(st.sampled_from(pool), min_size=local_count[0],
                            max_size=local_count[1], unique=True)) if local_count[1] else []
    rules = draw(st.lists(restriction_st(names, both=both, empty=empty, kinds=kinds),
                          min_size=restrictions[0], max_size=restrictions[1]))
    return {"globals": names, "restrictions": rules, "locals": locals_,
            "mode": draw(st.sampled_from(modes))}


# --- TF-01, TF-02: resolving a view -------------------------------------------------------


TF01 = (
    Partition("TF-01", "overlapping-lists", "an allow and a deny list that share a name"),
    Partition("TF-01", "allow-only", "an allow list alone"),
    Partition("TF-01", "deny-only", "a deny list alone"),
    Partition("TF-01", "same-names-in-both", "allow and deny list the same names"),
    Partition("TF-01", "disjoint-lists", "an allow and a deny list with no name in common"),
    Partition("TF-01", "awkward-names", "names that differ only by case, are prefixes of each "
              "other, non-ASCII or 64 characters long"), FOLDED,
)


@check("TF-01", name="tool-filter-allow-before-deny", per_provider=False, partitions=TF01)
def allow_before_deny(ctx: CheckContext) -> None:
    """One restriction admits a global iff the allow list (if any) names it and the deny list
    (if any) does not: allow minus deny. Built through every restriction channel the target
    declares (docs/driver-api.md#dialect), its grammar's spellings drawn too."""
    fixed = [({"allow": ["alpha", "bravo"], "deny": ["bravo"]}, "overlapping-lists"),
             ({"allow": ["alpha", "charlie"]}, "allow-only"), ({"deny": ["charlie"]}, "deny-only"),
             ({"allow": ABC, "deny": ABC}, "same-names-in-both"),
             ({"allow": ["bravo"], "deny": ["alpha"]}, "disjoint-lists")]
    for raw, part in fixed:
        through_next(ctx, "TF-01", ABC, [raw], f"globals {ABC} under the one restriction {raw}")
        drew_if_placed(ctx, "TF-01", part, [raw])
    awkward = [{"allow": ["read", "read_file", "検索"], "deny": ["read_file"]},
               {"allow": ["Read", "read_file_v2", "café", "x" * MAX_NAME],
                "deny": ["read", "read_file_v2"]},
               {"deny": ["read", "mcp__github__create_issue", "検索"]}, {"allow": ["read_file"]},
               {"allow": AWKWARD, "deny": ["Read", "get_weather", "x" * MAX_NAME]}]
    for raw in awkward:
        through_next(ctx, "TF-01", AWKWARD, [raw],
                     f"globals {AWKWARD} under the one restriction {raw}")
    drew_if_placed(ctx, "TF-01", "awkward-names", awkward[:1])
    channels = channels_for(ctx)
    ctx.for_all(drawn_placed(scope_st(restrictions=(1, 1), empty=False, local_count=(0, 0)),
                             channels),
                lambda t: judge_placed(ctx, "TF-01", t[0]["globals"], t[1],
                                       "the view under one restriction"))
    spelled(ctx, "TF-01", channels)
    folded_names(ctx)
    nothing_carried(ctx, "TF-01", "one restriction on a scope, which no declared channel "
                    "carries")


TF02 = (
    Partition("TF-02", "two-restrictions-reordered", "an allow and a deny restriction, "
              "installed in both orders"),
    Partition("TF-02", "three-restrictions-reordered", "three restrictions over awkward names, "
              "installed in another order"),
)


@check("TF-02", name="tool-filter-intersection", per_provider=False, partitions=TF02)
def intersection(ctx: CheckContext) -> None:
    """Several restrictions intersect, whatever the installation order (single-list
    restrictions, so that allow-versus-deny order inside one restriction plays no part). Built
    through every way the declared channels can stack restrictions on one scope: several live
    ones, a child's or the root's own with permission rules, permission rules alone."""
    channels = channels_for(ctx)

    def body(state: dict[str, Any], order: list[int], pick: int | None = None) -> None:
        rules = state["restrictions"]
        permuted = [rules[i] for i in order]
        for what, put_ in (("the view under several restrictions", rules),
                           (f"the same restrictions put in the order {permuted}", permuted)):
            found = placements(channels, put_)
            if found:
                placement = next_of(ctx, found) if pick is None else found[pick % len(found)]
                judge_placed(ctx, "TF-02", state["globals"], placement, what)

    pair = [{"allow": ["alpha", "bravo"]}, {"deny": ["bravo"]}]
    body({"globals": ABC, "restrictions": pair}, [1, 0])
    drew_if_placed(ctx, "TF-02", "two-restrictions-reordered", pair)
    triple = [{"allow": ["read", "Read", "read_file", "検索"]}, {"deny": ["Read"]},
              {"deny": ["read_file_v2", "検索"]}]
    body({"globals": AWKWARD, "restrictions": triple}, [2, 0, 1])
    drew_if_placed(ctx, "TF-02", "three-restrictions-reordered", triple)
    drawn = scope_st(restrictions=(2, 3), both=False, empty=False, local_count=(0, 0)).filter(
        lambda s: bool(placements(channels, s["restrictions"])))
    ctx.for_all(drawn.flatmap(lambda s: st.tuples(
        st.just(s), st.permutations(range(len(s["restrictions"]))), st.integers(0, 7))),
        lambda t: body(t[0], list(t[1]), t[2]))
    nothing_carried(ctx, "TF-02", "several restrictions on one scope, which no declared "
                    "channel (or pair of channels) stacks")


# --- TF-06: run_code ----------------------------------------------------------------------


TF06 = (
    Partition("TF-06", "register-global-run-code", "registering a global named run_code"),
    Partition("TF-06", "register-local-run-code", "registering a scope-local run_code"),
    *(Partition("TF-06", f"{m.value}-mode", f"run_code in {m.value} mode under no restriction, "
                "an allow list, allow: [] and a deny list of every global") for m in MODES),
)


@check("TF-06", name="tool-filter-reserved-run-code", per_provider=False, partitions=TF06)
def reserved_run_code(ctx: CheckContext) -> None:
    """``run_code`` is offered in ptc and both modes whatever the restrictions, never in native
    mode, and no tool may register or shadow that name. Each is a part of its own: the name is
    reserved in the deployment's default mode too, so a target without the ptc and both modes,
    or without scope-local tools, is still judged on what it can set up
    (docs/rules.md#TF-06)."""
    for mode in (PresentationMode.NATIVE, PresentationMode.BOTH):
        for local in (False, True):
            part = "register-local-run-code" if local else "register-global-run-code"
            with ctx.expressible("TF-06", part):
                refused_registration(ctx, mode, local)

    def body(state: dict[str, Any]) -> None:
        dep, agent = build(ctx, "TF-06", state)
        entries = [(e.name, e.origin.value) for e in dep.view(agent) if e.name == RUN_CODE]
        offered = state["mode"] is not PresentationMode.NATIVE
        want = [(RUN_CODE, RESERVED)] if offered else []
        ctx.expect("TF-06", entries == want,
                   said("TF-06", f"run_code in mode {state['mode'].value} under "
                   f"{state['restrictions']}"), want, entries)

    for mode in MODES:
        cases: list[list[dict[str, list[str]]]] = [
            [], [{"allow": ["alpha"]}], [{"allow": []}], [{"deny": ABC}]]
        for rules in cases:
            with ctx.expressible("TF-06", f"{mode.value}-mode"):
                body({"globals": ABC, "restrictions": rules, "mode": mode})
                if rules == cases[-1]:
                    ctx.drew("TF-06", f"{mode.value}-mode")
    with ctx.expressible("TF-06"):
        ctx.for_all(scope_st(modes=MODES), body)


def refused_registration(ctx: CheckContext, mode: PresentationMode, local: bool) -> None:
    """Registering a global (or, with ``local``, a scope-local) ``run_code`` in ``mode`` is
    refused with ``RESERVED_NAME`` and changes no view and nothing else."""
    dep = ctx.deploy(tools=ABC, mode=mode)
    root = dep.root().agent
    where = root if local else None
    before = snapshot(dep, ctx.gateway)
    views = (dep.view(None), dep.view(root))
    ctx.expect_error("TF-06", ErrorCode.RESERVED_NAME,
                     partial(dep.register_tool, ToolSpec(name=RUN_CODE), where),
                     said("TF-06", f"registering a {'scope-local' if local else 'global'} "
                          f"run_code in mode {mode.value}"))
    after = (dep.view(None), dep.view(root))
    ctx.expect("TF-06", views == after,
               said("TF-06", "a refused run_code registration changed a view"),
               [[e.model_dump(mode="json") for e in v] for v in views],
               [[e.model_dump(mode="json") for e in v] for v in after])
    expect_unchanged(ctx, "TF-06", before, dep, "a refused run_code registration")
    ctx.drew("TF-06", "register-local-run-code" if local else "register-global-run-code")


# --- a child started with a filter through the provider under test ------------------------


CHILD_VIEW = (
    Partition("TF-01", "composed-overlapping-lists", "a child's filter with an allow and a deny "
              "list that share a name, in native mode"),
    Partition("TF-01", "composed-awkward-names", "a child's filter over case twins, prefixes and "
              "non-ASCII names"),
    Partition("TF-03", "composed-empty-allow", "a child's filter allow: [] in mode both"),
    Partition("TF-12", "forged-call-of-a-filtered-global", "the child's model calls a global its "
              "filter hides"),
)


@check("TF-01", "TF-03", "TF-12", name="tool-filter-child-view", partitions=CHILD_VIEW)
def child_view(ctx: CheckContext) -> None:
    """A child started with a tool filter through the provider (from a preset in the
    preset-composition edition, from the request in request-controls) is offered exactly the
    oracle's view in its first model request; a forged call to a tool the filter hides gets an
    UNKNOWN_TOOL error result, runs no body, and the run completes."""
    provider = ctx.provider
    if provider is None or Capability.TOOL_FILTER not in provider.capabilities:
        for rule in ("TF-01", "TF-03", "TF-12"):
            ctx.skip(rule, "the provider does not advertise toolFilter (CA-01 judges refusal)")
        return

    def body(state: dict[str, Any]) -> None:
        names, raw, mode = state["globals"], state["filter"], state["mode"]
        rule = "TF-03" if any(v == [] for v in raw.values()) else "TF-01"
        comp = composition(ctx.edition, {"toolFilter": raw})
        dep = ctx.deploy(tools=names, mode=mode, presets=comp.presets)
        root = dep.root().agent
        with ctx.step(rule, f"setting the presentation mode {mode.value}"):
            dep.set_mode(root, mode)  # the deployment's mode, made explicit on the parent
        view = oracle_view(names, [raw], (), mode)
        forged: list[str] = []

        def forge(request: ModelRequest) -> ModelReply:
            """Call a global the child's first request does not offer, if there is one."""
            offered = {t.name for t in request.tools}
            forged.extend(n for n in names if n not in offered)
            return call(forged[0]) if forged else text(f"done {nonce(ctx, repr(state))}")

        mark = ctx.gateway.script(marker(ctx, "tf-child"), forge)
        request = start_request(root, provider.name, f"child task {mark}", comp.fields)
        with ctx.step(rule, f"starting a child with the tool filter {raw}"):
            result = dep.start(request)
        requests = ctx.gateway.requests(result.agent)
        wire = sorted(t.name for t in requests[0].tools) if requests else None
        want = sorted(wire_tool_names([SpecEntry(n, Origin(o)) for n, o in view], mode))
        ctx.expect(rule, wire == want,
                   said(rule, f"the first request of a child filtered by {raw} in "
                   f"mode {mode.value}"), want, wire)
        if forged:
            ctx.drew("TF-12", "forged-call-of-a-filtered-global")
            name = forged[0]
            results = [(r.isError, r.code) for r in result.toolResults]
            ran = [i.model_dump(mode="json") for i in dep.invocations() if i.tool == name]
            ctx.expect("TF-12", (True, ErrorCode.UNKNOWN_TOOL.value) in results and not ran
                       and result.stopReason is StopReason.COMPLETED,
                       said("TF-12", f"a forged call to {name}, which the child's first "
                            "request does not offer"),
                       "an UNKNOWN_TOOL error result, no body run, the run completed",
                       {"toolResults": results, "invocations": ran,
                        "stopReason": result.stopReason.value})

    body({"globals": ABC, "filter": {"allow": ["alpha", "bravo"], "deny": ["bravo"]},
          "mode": PresentationMode.NATIVE})
    ctx.drew("TF-01", "composed-overlapping-lists")
    with ctx.expressible("TF-03", "composed-empty-allow"):  # a target with run_code alone
        body({"globals": ABC, "filter": {"allow": []}, "mode": PresentationMode.BOTH})
        ctx.drew("TF-03", "composed-empty-allow")
    body({"globals": AWKWARD, "filter": {"allow": ["read", "Read", "café", "read_file"],
                                         "deny": ["Read"]}, "mode": PresentationMode.NATIVE})
    ctx.drew("TF-01", "composed-awkward-names")
    with ctx.expressible("TF-01"):  # its draws in the both mode need run_code
        ctx.for_all(globals_st.flatmap(lambda g: st.fixed_dictionaries({
            "globals": st.just(g), "filter": restriction_st(g, empty=True),
            "mode": st.sampled_from((PresentationMode.NATIVE, PresentationMode.BOTH))})), body)
    if "TF-12" not in ctx.exercised:  # TF-12's situation needs a global the child is not offered
        ctx.skip("TF-12", "no child of this check was offered fewer globals than its deployment "
                 "had (its filter hid none: TF-01's and TF-03's verdicts say why), so there was "
                 "no hidden tool to forge a call to")
