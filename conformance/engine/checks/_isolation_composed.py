"""TF-13 through the child channel (docs/rules.md#TF-13): a child composed with a tool filter
leaves every other scope's view as it was, read from the requests the scopes make.

A runtime without live restrictions or scope-local tools (Claude Code, opencode) still has the
rule's situation: a subagent started from a definition that restricts its tools is a scope that
installs a restriction, and its parent and its siblings are the other scopes. So the root runs a
turn and a plain child (no control asked) is started before and after a child composed with the
filter; the root's request and the plain sibling's first request must offer the same tools after
as before. Compared with themselves, not with the oracle: a runtime's own tools in a request are
no concern of TF-13, a change of them is.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec.grammar import Tool

from ...core.dialect import ChannelKind
from ...core.gateway import text
from ...core.target import Deployment
from ..check import CheckContext
from ._channels import (
    Channel,
    Placement,
    View,
    channels_for,
    placed_config,
    request_view,
    used,
)
from ._clauses import said
from ._starts import marker, start_request
from .tool_filter import globals_st, restriction_st

RULE = "TF-13"
PARTITION = "composed-child"


def _root_turn(ctx: CheckContext, dep: Deployment, root: str, mark: str) -> View:
    with ctx.step(RULE, "running a turn of the root"):
        dep.run_turn(root, f"task {mark}")
    return request_view(ctx, RULE, root, -1, "the root's turn")


def _plain_child(ctx: CheckContext, dep: Deployment, root: str, channel: Channel) -> View:
    mark = ctx.gateway.script(marker(ctx, "tf13-plain"), text("done"))
    with ctx.step(RULE, f"starting a plain child on {channel.provider}"):
        result = dep.start(start_request(root, channel.provider, f"plain task {mark}"))
    return request_view(ctx, RULE, result.agent, 0, "a plain child",
                        result.stopReason.value)


def composed_isolation(ctx: CheckContext, globals_: list[str], raw: Any) -> None:
    """The root's view and a plain sibling's, before and after a child composed with ``raw``
    through the child channel (the partition does not exist without one)."""
    channel = next((c for c in channels_for(ctx) if c.kind is ChannelKind.CHILD), None)
    if channel is None or not channel.carries(raw):
        ctx.inapplicable(RULE, PARTITION)
        return
    placement = Placement(((channel, raw),))
    used(ctx, placement)
    config, fields = placed_config(ctx, placement, [Tool(n) for n in globals_])
    with ctx.step(RULE, f"deploying {globals_} with a preset filtered by {raw}"):
        dep = ctx.deploy(config)
    root = dep.root().agent
    # one script for both turns: a request of the root's second turn carries the first's too
    turns = ctx.gateway.script(marker(ctx, "tf13-root"), text("done"), text("done again"))
    before = _root_turn(ctx, dep, root, turns), _plain_child(ctx, dep, root, channel)
    mark = ctx.gateway.script(marker(ctx, "tf13-filtered"), text("done"))
    with ctx.step(RULE, f"starting a child composed with the tool filter {raw}"):
        dep.start(start_request(root, channel.provider, f"filtered task {mark}", fields))
    after = _root_turn(ctx, dep, root, turns), _plain_child(ctx, dep, root, channel)
    for who, was, now in zip(("the root's next request", "a plain sibling's first request"),
                             before, after, strict=True):
        ctx.expect(RULE, now == was, said(RULE, f"{who} after a child composed with {raw} "
                                          f"through {channel.label}"), sorted(was), sorted(now))
    ctx.drew(RULE, PARTITION)


def composed_drawn(ctx: CheckContext) -> None:
    """:func:`composed_isolation` on drawn globals (the tool-name grammar's names) and filters
    of every shape the child channel carries. Non-empty lists only: a filter that leaves a
    child no tool is TF-02's and TF-03's subject, which a runtime may refuse to start."""
    channel = next((c for c in channels_for(ctx) if c.kind is ChannelKind.CHILD), None)
    if channel is None:
        return
    cases = globals_st.flatmap(lambda names: st.tuples(
        st.just(names), restriction_st(names).filter(channel.carries)))
    ctx.for_all(cases, lambda case: composed_isolation(ctx, list(case[0]), case[1]))
