"""Scope-local tools given by a preset (``PresetSpec.tools``, docs/driver-api.md#dialect): how
TF-04 and TF-05 build their cases on a target that has no live scope-local tools.

A scope-local tool is a tool of one scope alone (docs/rules.md#TF-04). The reference registers
one on a running agent; a runtime such as Claude Code gives an agent tools of its own only in
its definition (an MCP server the definition names), before it starts. The case is the same
case: the child of a preset with its own tools and a filter is a scope with locals under a
restriction. So where the target declares ``TargetInfo.presetTools``, TF-04 and TF-05 also go
through a child composed from such a preset, and read the child's scope from its first model
request: a tool there is the local when its schema is the local's (:func:`local_spec`,
parameters no global has), the global otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from subagent_tck.spec import Edition

from ...core.dialect import ChannelKind
from ...core.gateway import text
from ...core.protocol import DeploymentConfig, ModelReply, ModelRequest, PresetSpec, ToolSpec
from ...core.target import Deployment
from ..check import CheckContext
from ._channels import Channel, Placement, View, channels_for, used, wire_view
from ._clauses import said
from ._starts import marker, start_request
from ._tool_filter_views import GLOBAL, LOCAL, local_spec

#: The preset with the scope's own tools, and one without (another scope: TF-05).
LOCALS_PRESET = "tck-locals"
PLAIN_PRESET = "tck-plain"

Reply = ModelReply | Callable[[ModelRequest], ModelReply]


def is_local(tool: Any) -> bool:
    """Whether a tool of a model request is the local of its name: its parameters are the
    local's (no global has a parameter). Not its description: a runtime may write a
    description in its own normal form (Claude Code 2.1.332 sends the NFKC form of a
    description with ``ª`` in it), which TF-04 does not ask about."""
    parameters = tool.parameters if isinstance(tool.parameters, dict) else {}
    return bool(parameters.get("properties") == local_spec(tool.name).parameters["properties"])


def ways(ctx: CheckContext) -> list[Channel | None]:
    """The ways this run can give a scope its own tools: ``None`` for a live registration on
    an agent (a target with the live channel, or one that declares nothing else: its own
    UNSUPPORTED_OPERATION then says why), the ``child`` channel for a preset's own tools (the
    target declares ``presetTools``; the preset-composition edition, where a child is composed
    from a preset)."""
    out: list[Channel | None] = []
    if any(c.kind is ChannelKind.LIVE for c in ctx.channels):
        out.append(None)
    if ctx.preset_tools is not None and ctx.edition is Edition.PRESET_COMPOSITION:
        out += [c for c in channels_for(ctx) if c.kind is ChannelKind.CHILD][:1]
    return out or [None]


@dataclass(frozen=True)
class ChildScope:
    """A child started from a preset, and the scope its first model request shows."""

    dep: Deployment
    agent: str
    request: ModelRequest
    view: View

    def schema(self, name: str) -> Any:
        return next((t for t in self.request.tools if t.name == name), None)


def start_with_locals(ctx: CheckContext, rule: str, channel: Channel, globals_: Sequence[str],
                      restriction: Any, locals_: Sequence[str],
                      replies: Sequence[Reply] = ()) -> ChildScope:
    """Deploy ``globals_`` and a preset with ``locals_`` as its own tools and ``restriction``
    as its filter (None: none), start a child from it through ``channel``'s provider, its
    model answering ``replies`` (else "done"), and read its scope from its first request."""
    used(ctx, Placement(((channel, restriction),) if restriction is not None else ()))
    words = f"preset tools as {ctx.preset_tools}"
    if words not in ctx.entry_points:
        ctx.entry_points.append(words)
    filtered = {} if restriction is None else {"toolFilter": restriction}
    presets = [PresetSpec(name=LOCALS_PRESET, tools=[local_spec(n) for n in locals_],
                          **filtered), PresetSpec(name=PLAIN_PRESET)]
    config = DeploymentConfig(edition=ctx.edition, presets=presets,
                              tools=[ToolSpec(name=n, description=f"tool {n}")
                                     for n in globals_])
    what = f"a child of a preset with its own tools {list(locals_)} and the filter {restriction}"
    with ctx.step(rule, f"deploying {list(globals_)} and {what}"):
        dep = ctx.deploy(config)
    return _started(ctx, rule, dep, channel, LOCALS_PRESET, what, replies)


def start_plain(ctx: CheckContext, rule: str, scope: ChildScope, channel: Channel) -> ChildScope:
    """Another child of the same deployment, from the preset without tools of its own."""
    return _started(ctx, rule, scope.dep, channel, PLAIN_PRESET,
                    "a child of a preset without tools of its own", ())


def _started(ctx: CheckContext, rule: str, dep: Deployment, channel: Channel, preset: str,
             what: str, replies: Sequence[Reply]) -> ChildScope:
    mark = ctx.gateway.script(marker(ctx, "tf-locals"), *(replies or (text("done"),)))
    root = dep.root().agent
    with ctx.step(rule, f"starting {what}"):
        result = dep.start(start_request(root, channel.provider, f"task {mark}",
                                         {"preset": preset}))
    requests = ctx.gateway.requests(result.agent)
    if not requests:
        ctx.fail(rule, said(rule, f"{what} made no request"), "1 request(s)",
                 {"requests": 0, "stopReason": result.stopReason.value})
        ctx.abort()
    first = requests[0]
    wire_view(ctx, rule, first)  # one entry per name
    view = frozenset((t.name, LOCAL if is_local(t) else GLOBAL) for t in first.tools)
    return ChildScope(dep, result.agent, first, view)

