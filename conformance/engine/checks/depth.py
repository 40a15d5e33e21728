"""Checks of how a depth derives and of the cap (DE-01..DE-04), per provider, at every entry
the driver has.

Entries: ``StartRequest.maxDepth`` (the cap), ``create_agent(header_depth=...)`` (a durable
header), ``create_agent(runtime_depth=..., has_runtime_depth=True)`` (the runtime depth), and
children reached again as parents (while still published, else by ``resume``). The starts and
how a failure is attributed are :mod:`._depth_driver`'s; values outside the domain are
:mod:`.depth_domains`'s (DE-05..DE-07), how far a start may go :mod:`.depth_limits`'s
(DE-08..DE-10).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import ABSENT, Capability, Edition, TckError

from ..check import CheckContext, check
from ..partitions import Partition
from ._depth_driver import attempt, chain, chain_alone, from_parent, has_cap, oracle, reach
from ._depth_values import MAX, chain_cap_st, length_st, small_st
from ._starts import header_depth, header_of, provider_name, start_request

DE01 = (
    Partition("DE-01", "top-level-agent", "the root at depth 0, its header too"),
    Partition("DE-01", "chain-of-three", "children started one under the other, each reached "
              "as a parent"),
)


@check("DE-01", "DE-10", name="depth-derivation", partitions=DE01)
def derivation(ctx: CheckContext) -> None:
    """A top-level agent is at depth 0; a child one deeper than its parent, recorded in its
    session header."""
    dep = ctx.deploy()
    root = dep.root()
    stored = header_of(dep, root.session)
    ctx.expect("DE-01", root.depth == 0 and (stored is None or header_depth(stored) == 0),
               "the top-level agent's depth", 0,
               {"agent": root.depth, "header": None if stored is None else stored.delegationDepth})
    ctx.drew("DE-01", "top-level-agent")
    chain(ctx, "DE-01", dep, 3)
    ctx.drew("DE-01", "chain-of-three")
    ctx.for_all(st.one_of(small_st, st.integers(MAX - 3, MAX - 1)),
                lambda h: from_parent(ctx, "DE-01", header=h))
    if not any(f.rule == "DE-01" for f in ctx.failures):
        ctx.for_all(length_st, lambda n: chain_alone(ctx, "DE-01", n))


DE02 = (
    Partition("DE-02", "runtime-deeper", "a runtime depth above the header depth"),
    Partition("DE-02", "header-deeper", "a header depth above the runtime depth"),
    Partition("DE-02", "equal", "header and runtime depths equal"),
)


@check("DE-02", "DE-10", name="depth-effective-parent", partitions=DE02)
def effective_parent(ctx: CheckContext) -> None:
    """The parent's effective depth is the larger of its header and runtime depths."""
    for header, runtime in ((0, 3), (3, 0), (2, 2), (1, 4), (5, 1)):
        from_parent(ctx, "DE-02", header=header, runtime=runtime)
        ctx.drew("DE-02", "runtime-deeper" if runtime > header
                 else "header-deeper" if header > runtime else "equal")
    ctx.for_all(st.tuples(small_st, small_st),
                lambda t: from_parent(ctx, "DE-02", header=t[0], runtime=t[1]))


DE03 = (
    Partition("DE-03", "child-at-the-cap", "a child whose depth equals maxDepth: accepted"),
    Partition("DE-03", "child-past-the-cap", "a child one or more past maxDepth: refused"),
    Partition("DE-03", "cap-zero", "maxDepth 0: no child at all"),
    Partition("DE-03", "from-a-reached-child", "a grandchild under caps below, at and above "
              "its depth, from a child reached as a parent"),
    Partition("DE-04", "refused-leaves-nothing", "a refusal for the cap leaves nothing behind"),
)


@check("DE-03", "DE-04", name="depth-cap", partitions=DE03)
def cap(ctx: CheckContext) -> None:
    """A start is refused iff the child's depth is greater than maxDepth (DE-03), and such a
    refusal leaves nothing behind and comes before any setup of the child (DE-04)."""
    if not has_cap(ctx):
        for rule in ("DE-03", "DE-04"):
            ctx.skip(rule, "the provider does not advertise depthLimit (CA-01 judges refusal)")
        return
    for header, limit in ((0, 0), (0, 1), (1, 1), (1, 2), (4, 3), (3, 4)):
        from_parent(ctx, "DE-03", header=header, cap=limit)
        ctx.drew("DE-03", "cap-zero" if limit == 0 else "child-at-the-cap"
                 if header + 1 == limit else "child-past-the-cap")
    ctx.drew("DE-04", "refused-leaves-nothing")
    dep = ctx.deploy()
    child = chain(ctx, "DE-03", dep, 1)[0]
    with ctx.step("DE-03", "reaching the child as a parent"):
        parent = reach(dep, child)
    for limit in (1, 0, 2):
        fields = {"maxDepth": limit}
        attempt(ctx, "DE-03", dep, parent.agent, oracle(ctx, 1, ABSENT, fields),
                f"a grandchild under maxDepth {limit}", fields)
    ctx.drew("DE-03", "from-a-reached-child")
    ctx.for_all(st.tuples(small_st, small_st),
                lambda t: from_parent(ctx, "DE-03", header=t[0], cap=t[1]))
    if not any(f.rule == "DE-03" for f in ctx.failures):
        ctx.for_all(chain_cap_st(), lambda t: capped_under_chain(ctx, *t))
    for name, fields in setup_faults(ctx):
        dep = ctx.deploy()
        capped = {**fields, "maxDepth": 0}
        attempt(ctx, "DE-04", dep, dep.root().agent, oracle(ctx, 0, ABSENT, capped),
                f"a start past the cap whose {name} cannot be set up", capped)


def setup_faults(ctx: CheckContext) -> list[tuple[str, dict[str, Any]]]:
    """Controls the provider advertises, each with a value its child's setup would refuse
    (docs/rules.md#fr-03): a start past the cap that carries one is refused for its depth, a
    rejection that comes before the child is owned (docs/rules.md#de-04)."""
    caps = ctx.provider.capabilities if ctx.provider else []
    out: list[tuple[str, dict[str, Any]]] = []
    if Capability.OUTPUT_SCHEMA in caps:
        out.append(("output schema", {"outputSchema": {"type": "string"}}))
    if ctx.edition is Edition.REQUEST_CONTROLS:  # request controls only in this edition
        if Capability.PERSONA in caps:
            out.append(("persona", {"persona": "You work on {{nobody_defined_this}}."}))
        if Capability.TOOL_FILTER in caps:
            out.append(("tool filter", {"toolFilter": {"allow": ["no_such_tool"]}}))
    return out


def capped_under_chain(ctx: CheckContext, length: int, limit: int) -> None:
    """A chain of ``length`` children reached as parents, then a start from its deepest agent
    under ``maxDepth`` ``limit`` (DE-03: refused iff the new child would be deeper)."""
    dep = ctx.deploy()
    parent = dep.root()
    for depth in range(1, length + 1):
        # The chain itself is DE-01's and DE-10's to judge: a link that fails here ends the
        # case without a verdict on the cap.
        try:
            result = dep.start(start_request(parent.agent, provider_name(ctx), "depth child"))
            parent = reach(dep, result)
        except TckError:
            return
        if result.depth != depth or parent.depth != depth:
            return
    fields = {"maxDepth": limit}
    attempt(ctx, "DE-03", dep, parent.agent, oracle(ctx, length, ABSENT, fields),
            f"a start under maxDepth {limit} from the end of a chain of {length}", fields)
