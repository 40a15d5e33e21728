"""Checks of how far a start may go when every depth is in the domain (DE-08..DE-10), per
provider: never past 2^53-1 (DE-08), under the header depth a resume restores (DE-09), and
without bound when no ``maxDepth`` is given (DE-10).
"""

from __future__ import annotations

from hypothesis import strategies as st

from subagent_tck.spec import ABSENT

from ..check import CheckContext, check
from ..partitions import Partition
from ._depth_driver import attempt, chain, chain_alone, from_parent, has_cap, oracle
from ._depth_values import MAX, length_st
from ._starts import header_depth, header_of

DE08 = (
    Partition("DE-08", "header-at-max", "a parent whose header is 2^53-1"),
    Partition("DE-08", "runtime-at-max", "a parent whose runtime depth is 2^53-1"),
    Partition("DE-08", "one-below-max", "a parent at 2^53-2 (header, or runtime over a lower "
              "header): its child at 2^53-1"),
    Partition("DE-08", "largest-cap", "each of these under maxDepth 2^53-1"),
)


@check("DE-08", "DE-10", "DE-03", name="depth-derived-overflow", partitions=DE08)
def derived_overflow(ctx: CheckContext) -> None:
    """A parent at 2^53-1 (header or runtime) cannot start a child, with or without a cap; a
    parent at 2^53-2 starts one at 2^53-1."""
    caps: list[object] = [ABSENT, MAX] if has_cap(ctx) else [ABSENT]
    if not has_cap(ctx):
        ctx.inapplicable("DE-08", "largest-cap")
    for limit in caps:
        from_parent(ctx, "DE-08", header=MAX, cap=limit)
        ctx.drew("DE-08", "header-at-max")
        from_parent(ctx, "DE-08", header=0, runtime=MAX, cap=limit)
        ctx.drew("DE-08", "runtime-at-max")
        from_parent(ctx, "DE-08", header=MAX - 1, cap=limit)
        from_parent(ctx, "DE-08", header=MAX - 5, runtime=MAX - 1, cap=limit)
        ctx.drew("DE-08", "one-below-max")
    if len(caps) > 1:
        ctx.drew("DE-08", "largest-cap")


DE09 = (
    Partition("DE-09", "resumed-at-depth-1", "a child at depth 1 resumed, then starts under "
              "maxDepth 1 and 2"),
    Partition("DE-09", "resumed-at-depth-2", "its child at depth 2 resumed, then starts under "
              "maxDepth 2 and 3"),
)


@check("DE-09", "DE-04", "DE-03", name="depth-durable-resume", partitions=DE09)
def durable_resume(ctx: CheckContext) -> None:
    """Resume restores the header depth: a resumed child at depth 1 under maxDepth 1 cannot
    start a child, and its children are one deeper."""
    if not has_cap(ctx):
        for rule in ("DE-09", "DE-04", "DE-03"):
            ctx.skip(rule, "the provider does not advertise depthLimit (no cap to hold)")
        return
    dep = ctx.deploy()
    current = dep.root().agent
    for depth in (1, 2):
        result = attempt(ctx, "DE-09", dep, current, oracle(ctx, depth - 1),
                         f"a child at depth {depth}")
        if result is None:
            return
        with ctx.step("DE-09", f"resuming the child at depth {depth}"):
            resumed = dep.resume(result.session)
        stored = header_depth(header_of(dep, result.session))
        restored = ctx.expect("DE-09", resumed.depth == depth == stored, f"the resumed child "
                              f"at depth {depth}", depth, {"agent": resumed.depth,
                                                          "header": stored})
        for limit in (depth, depth + 1):
            fields = {"maxDepth": limit}
            attempt(ctx, "DE-09", dep, resumed.agent, oracle(ctx, depth, ABSENT, fields),
                    f"a start from the resumed child at depth {depth} under maxDepth {limit}",
                    fields, cap_rule="DE-03" if restored else "DE-09")
        ctx.drew("DE-09", f"resumed-at-depth-{depth}")
        current = resumed.agent


DE10 = (
    Partition("DE-10", "deep-parents", "parents at headers 0 to 2^53-2, no maxDepth"),
    Partition("DE-10", "chain-of-five", "five children under one another, no maxDepth"),
)


@check("DE-10", name="depth-omitted-cap", partitions=DE10)
def omitted_cap(ctx: CheckContext) -> None:
    """A start without maxDepth is unbounded (the domain checks that still apply are judged by
    DE-06, DE-07 and DE-08, whose starts give no cap either)."""
    for header in (0, 1, 2, 3, 7, 40, 1000, MAX - 2):
        from_parent(ctx, "DE-10", header=header)
    ctx.drew("DE-10", "deep-parents")
    chain(ctx, "DE-10", ctx.deploy(), 5)
    ctx.drew("DE-10", "chain-of-five")
    ctx.for_all(st.integers(0, MAX - 1), lambda h: from_parent(ctx, "DE-10", header=h))
    if not any(f.rule == "DE-10" for f in ctx.failures):
        ctx.for_all(length_st, lambda n: chain_alone(ctx, "DE-10", n))
