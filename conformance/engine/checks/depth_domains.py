"""Checks of depth values outside the domain (DE-05..DE-07), per provider: ``maxDepth``, a
stored ``delegationDepth`` (a top-level agent's header, a session being resumed, a live parent's
header rewritten under it) and a runtime ``subagentDepth``, each refused with nothing created
when outside docs/rules.md DE "Decision (domain)", read as the number it is when inside.

A header depth is only restored by ``resume`` in DE-06's refusals (and in DE-09's check);
elsewhere a child is reached as a parent while it is still published.
"""

from __future__ import annotations

from subagent_tck.spec import TckError, check_depth

from ...core.protocol import SessionHeader
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Partition
from ._depth_driver import attempt, chain, from_parent, has_cap, oracle, reach
from ._depth_values import CLASS_OF, MAX, OUT_OF_DOMAIN, TABLE, anything_st, label, value_partitions
from ._observed import expect_unchanged, snapshot
from ._starts import header_of

DE05 = (
    *value_partitions("DE-05", "cap-", words=" as maxDepth"),
    Partition("DE-05", "cap-zero", "maxDepth 0: in the domain, the child refused (DE-04)"),
    Partition("DE-05", "largest-cap", "maxDepth 2^53-1 from a parent at 2^53-2"),
)


@check("DE-05", "DE-04", "DE-03", "DE-08", name="depth-cap-domain", partitions=DE05)
def cap_domain(ctx: CheckContext) -> None:
    """maxDepth outside the domain is refused with nothing created; inside it, values are read
    as the numbers they are (1.0 is 1, 1e2 is 100)."""
    if not has_cap(ctx):
        for rule in ("DE-05", "DE-04", "DE-03", "DE-08"):
            ctx.skip(rule, "the provider does not advertise depthLimit (CA-01, CA-03 judge "
                     "maxDepth sent to it)")
        return
    for name, value in TABLE:
        from_parent(ctx, "DE-05", cap=value)
        ctx.drew("DE-05", f"cap-{CLASS_OF[name]}")
    from_parent(ctx, "DE-05", cap=0)  # in the domain, and a refusal DE-04 judges
    ctx.drew("DE-05", "cap-zero")
    from_parent(ctx, "DE-05", header=MAX - 1, cap=MAX)
    ctx.drew("DE-05", "largest-cap")
    ctx.for_all(anything_st, lambda v: from_parent(ctx, "DE-05", cap=v))


def replanted(ctx: CheckContext, value: object, root: bool) -> None:
    """A live parent that already started a child has its own stored header rewritten to
    ``value`` under it (no resume): its next start reads the header again (docs/rules.md#DE-06:
    "a parent's header") and, ``value`` outside the domain, is refused with nothing created. The
    parent is the root, or a child reached as a parent. A target that cannot write a live
    session's header (UNSUPPORTED_OPERATION) has no such place."""
    where = "root" if root else "live-parent"
    dep = ctx.deploy()
    parent = dep.root() if root else reach(dep, chain(ctx, "DE-06", dep, 1)[0])
    first = attempt(ctx, "DE-06", dep, parent.agent, oracle(ctx, parent.depth),
                    f"a first start from the {'root' if root else 'child'}")
    stored = header_of(dep, parent.session)
    if first is None or stored is None:
        if stored is None:  # a root with no stored header keeps its depth nowhere to rewrite
            ctx.inapplicable("DE-06", *(f"{where}-{c}" for c in OUT_OF_DOMAIN))
        return
    header = stored.model_copy(update={"delegationDepth": value})
    try:
        dep.put_session_header(header)
    except Unsupported:
        ctx.inapplicable("DE-06", *(f"{where}-{c}" for c in OUT_OF_DOMAIN))
        return
    if parent.agent not in dep.agents():
        # the target let the live agent go when its header was written (as a restart would):
        # it keeps no live parent under a rewritten header, and resume is the place judged
        ctx.inapplicable("DE-06", *(f"{where}-{c}" for c in OUT_OF_DOMAIN))
        return
    what = (f"a second start from the live {'root' if root else 'child'} whose stored header "
            f"was rewritten to {label(value)} after its first start")
    attempt(ctx, "DE-06", dep, parent.agent, oracle(ctx, value), what, {}, (value,))


def planted(ctx: CheckContext, value: object) -> None:
    """A stored header deep in the tree rewritten to ``value``: the resume is refused, or the
    start from the resumed agent is."""
    dep = ctx.deploy()
    grandchild = chain(ctx, "DE-06", dep, 2)[1]
    stored = header_of(dep, grandchild.session)
    if stored is None:
        ctx.fail("DE-06", "a started child has no session header", "a header", None)
        return
    header = SessionHeader(session=stored.session, parent=stored.parent, delegationDepth=value,
                           descriptor=stored.descriptor)
    with ctx.step("DE-06", f"writing the stored header {label(value)}"):
        dep.put_session_header(header)
    what = f"a stored delegationDepth {label(value)} two levels deep"
    outcome = oracle(ctx, value)
    before = snapshot(dep, ctx.gateway)
    try:
        parent = dep.resume(stored.session)
    except TckError:
        # "the session does not load": DE-06 names no error code for it (docs/rules.md#DE-06).
        expect_unchanged(ctx, "DE-06", before, dep, f"{what} (resume refused)")
        return
    attempt(ctx, "DE-06", dep, parent.agent, outcome, f"{what}, resumed", {}, (value,))


DE06 = (
    *value_partitions("DE-06", "created-", words=" as a top-level agent's stored header, read "
                      "by a start from it"),
    *value_partitions("DE-06", "resumed-", OUT_OF_DOMAIN, " as the stored header of a session "
                      "two levels deep, read by its resume (or the start from it)"),
    *value_partitions("DE-06", "live-parent-", OUT_OF_DOMAIN, " written over the header of a "
                      "live child after its first start, read by its next start"),
    *value_partitions("DE-06", "root-", OUT_OF_DOMAIN, " written over the root's header after "
                      "its first start, read by its next start"),
)


@check("DE-06", "DE-10", "DE-08", name="depth-stored-domain", partitions=DE06)
def stored_domain(ctx: CheckContext) -> None:
    """A stored delegationDepth outside the domain, wherever a depth is stored (a top-level
    agent's header, a session being resumed, a live parent's header rewritten under it), is
    refused (the session does not load, or the start from it fails) with nothing created;
    stored values inside it are read as the numbers they are."""
    for name, value in TABLE:
        kind = CLASS_OF[name]
        from_parent(ctx, "DE-06", header=value)
        ctx.drew("DE-06", f"created-{kind}")
        if not check_depth(value).ok:
            planted(ctx, value)
            ctx.drew("DE-06", f"resumed-{kind}")
    for where in ("live-parent", "root"):
        for name, value in TABLE:
            part = f"{where}-{CLASS_OF[name]}"
            if CLASS_OF[name] not in OUT_OF_DOMAIN:
                continue
            if ("DE-06", part) in ctx.inapplicable_partitions:
                break  # the target keeps no depth there it can rewrite
            replanted(ctx, value, root=where == "root")
            if ("DE-06", part) not in ctx.inapplicable_partitions:
                ctx.drew("DE-06", part)
    ctx.for_all(anything_st, lambda v: from_parent(ctx, "DE-06", header=v))


DE07 = value_partitions("DE-07", words=" as the parent's runtime subagentDepth")


@check("DE-07", "DE-10", "DE-08", name="depth-runtime-domain", partitions=DE07)
def runtime_domain(ctx: CheckContext) -> None:
    """A runtime subagentDepth outside the domain makes a start from that agent fail with
    nothing created; runtime values inside it are read as the numbers they are."""
    for name, value in TABLE:
        from_parent(ctx, "DE-07", runtime=value)
        ctx.drew("DE-07", CLASS_OF[name])
    ctx.for_all(anything_st, lambda v: from_parent(ctx, "DE-07", runtime=v))
