"""Starts the DE checks make, judged against the oracle: a start from a parent at given depths,
through the provider under test, a chain of children reached as parents.

Every expectation comes from :func:`~subagent_tck.spec.decide_start` (which applies
:func:`~subagent_tck.spec.decide_start_depth`); a refusal must leave sessions, agents, events,
invocations and model requests unchanged.

Attribution keeps one broken step to one failing rule: a refusal with ``DEPTH_EXCEEDED`` of a
start that gave no ``maxDepth`` is DE-10's failure (an omitted cap is unbounded) wherever it is
seen, and traces left by a ``DEPTH_EXCEEDED`` refusal are DE-04's.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.spec import (
    ABSENT,
    Capability,
    DepthProblem,
    ErrorCode,
    StartOutcome,
    TckError,
    check_depth,
)

from ...core.protocol import AgentRef, RunResult
from ...core.target import Deployment
from ..check import CheckContext
from ._depth_values import MAX, label
from ._observed import expect_unchanged, snapshot
from ._starts import expected_start, header_depth, header_of, start_request, start_state


def codes(outcome: StartOutcome, *values: object) -> set[ErrorCode]:
    """The codes a refusal may carry: the oracle's, plus INVALID_REQUEST for a non-finite
    number (over a JSON wire ``NaN``/``Infinity`` make the request itself malformed)."""
    out = set(outcome.codes)
    if any(check_depth(v).problem is DepthProblem.NOT_FINITE for v in values):
        out.add(ErrorCode.INVALID_REQUEST)
    return out


def oracle(
    ctx: CheckContext, header: object = 0, runtime: object = ABSENT,
    fields: dict[str, Any] | None = None,
) -> StartOutcome:
    """The oracle's answer for a start through the provider under test from a parent with
    ``header``/``runtime`` asking for ``fields``."""
    name = ctx.provider.name if ctx.provider else "-"
    state = start_state(ctx, parent_header=header, parent_runtime=runtime)
    return expected_start(state, start_request("-", name, "depth child", fields))


def has_cap(ctx: CheckContext) -> bool:
    return ctx.provider is not None and Capability.DEPTH_LIMIT in ctx.provider.capabilities


def cited(ctx: CheckContext, rule: str, fallback: str) -> str:
    """``rule`` when this check cites it, else ``fallback`` (attribution, see the module doc)."""
    return rule if rule in ctx.check.rules else fallback


#: The rules whose statements are about the depth a started child gets: DE-01 (one deeper than
#: its parent), DE-02 (the parent's effective depth), DE-06/DE-07 (an in-domain stored or
#: runtime value read as the number it is, docs/rules.md "Decision (domain)") and DE-09 (the
#: restored header). DE-03, DE-04, DE-05, DE-08 and DE-10 decide only whether a start is
#: accepted, so their checks do not judge the depth the child reports (DE-01's check does).
DEPTH_RULES = frozenset({"DE-01", "DE-02", "DE-06", "DE-07", "DE-09"})

#: Why a refusal's code matters (docs/driver-api.md, "Codes are the adapter's translation").
WHY_CODE = ("the driver API tells a refusal for the depth from any other refusal by its code, "
            "the adapter's translation of the runtime's error")


def attempt(
    ctx: CheckContext,
    rule: str,
    dep: Deployment,
    parent: str,
    outcome: StartOutcome,
    what: str,
    fields: dict[str, Any] | None = None,
    values: tuple[object, ...] = (),
    cap_rule: str | None = None,
) -> RunResult | None:
    """Start a child of ``parent`` through the provider under test and judge it by ``outcome``.

    ``rule`` decides the code of a refusal, an unexpected acceptance and the child's depth;
    a decision that differs from the oracle's only on the cap (DEPTH_EXCEEDED against a valid
    cap) is ``cap_rule``'s (default DE-03 when cited); an unexpected DEPTH_EXCEEDED without a
    cap is DE-10's; traces of a DEPTH_EXCEEDED refusal are DE-04's; the session header is
    DE-01's (each when cited, else ``rule``'s). The child's depth is judged only for
    :data:`DEPTH_RULES`."""
    assert ctx.provider is not None, "depth checks run per provider"
    request = start_request(parent, ctx.provider.name, "depth child", fields)
    capped = "maxDepth" in request.controls()
    cap_rule = cap_rule or cited(ctx, "DE-03", rule)
    allowed = codes(outcome, *values)
    before = snapshot(dep, ctx.gateway)
    try:
        result = dep.start(request)
    except TckError as exc:
        if outcome.ok:
            blame = rule
            if exc.code is ErrorCode.DEPTH_EXCEEDED:
                blame = cap_rule if capped else cited(ctx, "DE-10", rule)
            ctx.fail(blame, f"{what}: refused with {exc.code.value}, expected a child at depth "
                     f"{outcome.child_depth}", {"childDepth": outcome.child_depth}, exc.to_json())
            return None
        ctx.expect(rule, exc.code in allowed,
                   f"{what}: refused with {exc.code.value} ({WHY_CODE})",
                   sorted(c.value for c in allowed), exc.to_json())
        residue = rule
        if exc.code is ErrorCode.DEPTH_EXCEEDED:
            residue = cited(ctx, "DE-04", rule)
        expect_unchanged(ctx, residue, before, dep, f"{what} (refused)")
        return None
    if not outcome.ok:
        blame = cap_rule if outcome.codes == {ErrorCode.DEPTH_EXCEEDED} else rule
        ctx.fail(blame, f"{what}: accepted at depth {result.depth}, expected a refusal with "
                 + " or ".join(sorted(c.value for c in allowed)),
                 sorted(c.value for c in allowed), result)
        return result
    if not capped and "DE-10" in ctx.check.rules:
        ctx.expect("DE-10", True, "a start without maxDepth was not capped")
    if rule in DEPTH_RULES:
        ctx.expect(rule, result.depth == outcome.child_depth, f"{what}: the child's depth",
                   outcome.child_depth, result.depth)
    else:
        ctx.expect(rule, True, f"{what}: accepted")
    if "DE-01" in ctx.check.rules:
        stored = header_depth(header_of(dep, result.session))
        ctx.expect("DE-01", stored == outcome.child_depth, f"{what}: the child's session header "
                   "records its depth as delegationDepth", outcome.child_depth, stored)
    return result


def overflows(header: object, runtime: object) -> bool:
    """Whether a parent with these (valid) depths is at 2^53-1: its child would overflow."""
    depths = [check_depth(v) for v in (header, runtime) if v is not ABSENT]
    return all(d.ok for d in depths) and max(d.value or 0 for d in depths) == MAX


def from_parent(
    ctx: CheckContext, rule: str, header: object = 0, runtime: object = ABSENT,
    cap: object = ABSENT, what: str = "",
) -> None:
    """A fresh deployment, a top-level parent with ``header``/``runtime``, one start capped
    by ``cap``: judged against the oracle. A parent refused at creation is judged too (a bad
    stored or runtime depth may be refused there, DE-06/DE-07)."""
    dep = ctx.deploy()
    fields = {} if cap is ABSENT else {"maxDepth": cap}
    outcome = oracle(ctx, header, runtime, fields)
    values = (header, runtime, cap)
    what = what or (f"a start from a parent at header {label(header)}"
                    + ("" if runtime is ABSENT else f", runtime {label(runtime)}")
                    + ("" if cap is ABSENT else f", maxDepth {label(cap)}"))
    if overflows(header, runtime):
        rule = cited(ctx, "DE-08", rule)
    before = snapshot(dep, ctx.gateway)
    try:
        parent = dep.create_agent(header_depth=header, runtime_depth=None if runtime is ABSENT
                                  else runtime, has_runtime_depth=runtime is not ABSENT)
    except TckError as exc:
        alone = oracle(ctx, header, runtime)  # creation knows the parent's depths, not the cap
        allowed = codes(alone, header, runtime) - {ErrorCode.DEPTH_EXCEEDED}
        ctx.expect(rule, not alone.ok and exc.code in allowed,
                   f"{what}: the parent was refused at creation with {exc.code.value} "
                   f"({WHY_CODE})",
                   sorted(c.value for c in allowed) or "a parent", exc.to_json())
        expect_unchanged(ctx, rule, before, dep, f"{what} (parent refused)")
        return
    attempt(ctx, rule, dep, parent.agent, outcome, what, fields, values)


def reach(dep: Deployment, result: RunResult) -> AgentRef:
    """A started child as a parent: still published, else resumed."""
    if result.agent in dep.agents():
        return AgentRef(agent=result.agent, session=result.session, depth=result.depth)
    return dep.resume(result.session)


def chain(ctx: CheckContext, rule: str, dep: Deployment, length: int) -> list[RunResult]:
    """Children started one under the other from the root, without caps."""
    out: list[RunResult] = []
    parent = dep.root()
    for depth in range(length):
        result = attempt(ctx, rule, dep, parent.agent, oracle(ctx, depth),
                         f"a child at depth {depth + 1}")
        if result is None:
            ctx.abort()
        assert result is not None
        out.append(result)
        with ctx.step(rule, f"reaching the child at depth {depth + 1} as a parent"):
            parent = reach(dep, result)
    return out


def chain_alone(ctx: CheckContext, rule: str, length: int) -> None:
    """A chain of ``length`` uncapped children in a fresh deployment (judged by ``rule``)."""
    chain(ctx, rule, ctx.deploy(), length)
