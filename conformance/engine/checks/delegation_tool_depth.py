"""ST-06 and ST-08 for a runtime's own delegation tool (docs/rules.md#ST-06,
docs/rules.md#ST-08), per provider that names one (``ProviderInfo.delegationTool``: Claude
Code's ``Agent``) and advertises ``depthLimit``.

A target that ships the kit's ``subagent`` tool is judged on that tool
(subagent_tool_calls.py). A runtime whose model delegates through a tool of its own makes each
start a call of that tool (as delegation_tool_cap.py reads ST-07): a start without ``maxDepth``
is a call of the tool without a cap of its own, and a start with ``maxDepth`` 1 puts its child
at the cap.

- **ST-06**: such a call is capped by the host depth setting as it stands at the call: raised
  to a drawn N (2 to 4), a chain of N agents starts, each from the one before, and the last
  one's call is refused; lowered to a drawn M below N, a call from the agent at depth M - 1
  still starts one and a call from the agent at depth M is refused. The setting's initial
  value is not asked here: under it a start without ``maxDepth`` is DE-10's direct start
  (docs/rules.md#DE-10, unbounded), and a runtime whose starts are all calls of its tool has
  no second operation to hold to the initial 1. Nor is a drop mid-turn: a start is one
  operation of the target, with no step of the kit between a child's turn and its call.
- **ST-08**: a child at its cap carries, in its first request, a notice to work directly (a
  line no child below its cap is given, read as the model reads it), and its later request
  carries that notice no more often (not appended again while cap and depth stand). The
  runtime's context is its own and on unless the target can switch it off
  (``set-runtime-context``); where it can, a child at its cap then gets no notice and its
  start is still refused. A start's cap is fixed for its child's life, so a notice built again
  for a changed cap is not asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from subagent_tck.spec import TckError

from ...core.gateway import call, text
from ...core.protocol import ModelRequest
from ...core.target import Deployment
from ...core.unsupported import Unsupported
from ..check import TARGET_FAULTS, CheckContext, check
from ..partitions import Partition
from ..planning import delegates
from ._observed import request_text
from ._starts import marker, neutral_policy, provider_name, start_request
from .subagent_tool_calls import notices

#: The global tool a child calls before it ends, so that it sends two requests.
TOOL = "tool_a"
#: ST-06's host depth settings: one raised to, one lowered to below it (a fixed pair would
#: certify a runtime that caps at that number whatever the setting says).
SETTINGS = st.integers(2, 4).flatmap(lambda raised: st.tuples(st.just(raised),
                                                              st.integers(1, raised - 1)))

ST06 = (Partition("ST-06", "own-tool-raised-setting", "the host setting raised to N (2 to 4): "
                  "calls without maxDepth start a chain of N agents, the last one's call is "
                  "refused"),
        Partition("ST-06", "own-tool-lowered-setting", "the setting lowered to M below N, read "
                  "at the next calls: one from depth M - 1 admitted, one from depth M refused"),
        Partition("ST-06", "own-tool-initial-setting", "a call under the initial setting"),
        Partition("ST-06", "own-tool-dropped-mid-turn", "the setting dropped during a turn"))

ST08 = (Partition("ST-08", "own-tool-notice-at-cap", "a child at its cap (maxDepth 1): its "
                  "first request carries a notice to work directly that a child below its cap "
                  "is not given"),
        Partition("ST-08", "own-tool-notice-once", "the child's later request carries the "
                  "notice no more often than its first"),
        Partition("ST-08", "own-tool-cap-changed", "a new notice when the cap changes"),
        Partition("ST-08", "own-tool-runtime-context-off", "no notice with the runtime's "
                  "context off, the start still refused"))


def _own_tool(ctx: CheckContext, rule: str, partitions: Sequence[Partition]) -> str | None:
    """The provider's own delegation tool, or None with ``partitions`` recorded as not
    existing in this run."""
    assert ctx.provider is not None, f"{rule} runs per provider"
    tool = ctx.provider.delegationTool
    if not tool or not delegates(ctx.target.info(), ctx.provider):
        ctx.inapplicable(rule, *(p.name for p in partitions))
        return None
    return tool


def _inexpressible(ctx: CheckContext, rule: str, name: str, operation: str, tool: str,
                   why: str) -> None:
    with ctx.expressible(rule, name):
        raise Unsupported(operation, tool, why)


def _start(ctx: CheckContext, dep: Deployment, parent: str, label: str,
           fields: dict[str, Any]) -> str:
    """A start ``ctx`` expects to be admitted: the child's agent id."""
    name = marker(ctx, label)
    ctx.gateway.script(name, text(f"{label} done"))
    with ctx.step("ST-06", f"a start of the {label} (a call of the tool)"):
        return dep.start(start_request(parent, provider_name(ctx), f"{label} {name}",
                                       fields)).agent


def _refused(ctx: CheckContext, rule: str, dep: Deployment, parent: str, label: str,
             fields: dict[str, Any], why: str) -> None:
    """A start ``ctx`` expects to be refused, with no agent of it running."""
    name = marker(ctx, label)
    ctx.gateway.script(name, text(f"{label} done"), required=False)
    what = f"a start of the {label} ({why})"
    try:
        dep.start(start_request(parent, provider_name(ctx), f"{label} {name}", fields))
    except TckError as exc:
        if exc.code in TARGET_FAULTS:
            ctx.target_fault(rule, what, exc)
    else:
        ctx.fail(rule, f"{what}: accepted, expected a refusal", "refused", "accepted",
                 key=what)
    ctx.expect(rule, not ctx.gateway.agents_for(name), f"{what}: no agent of it may run",
               "none ran", "it ran")


@check("ST-06", name="delegation-tool-live-default-cap", partitions=ST06)
def own_tool_live_cap(ctx: CheckContext) -> None:
    """A call of the provider's own delegation tool without maxDepth is capped by the host
    depth setting as it stands at the call: raised to N, then lowered to M below N."""
    tool = _own_tool(ctx, "ST-06", ST06)
    if tool is None:
        return
    _inexpressible(ctx, "ST-06", "own-tool-initial-setting", "a call held to the initial "
                   "setting 1", tool, "under the initial setting a start without maxDepth is "
                   "DE-10's direct start (unbounded): the runtime's starts are calls of its "
                   "own tool, with no second operation to hold to the initial 1")
    _inexpressible(ctx, "ST-06", "own-tool-dropped-mid-turn", "a setting changed during a "
                   "turn", tool, "a start is one operation of the target: no step of the kit "
                   "falls between a child's turn and its call")
    neutral = neutral_policy(ctx)

    def chain(settings: tuple[int, int]) -> None:
        raised, lowered = settings
        dep = ctx.deploy(tools=[TOOL])
        with ctx.step("ST-06", f"setting the host depth to {raised}"):
            dep.set_host_depth(raised)
        agents = [dep.root().agent]
        for depth in range(1, raised + 1):
            agents.append(_start(ctx, dep, agents[-1], _at(depth), neutral))
        _refused(ctx, "ST-06", dep, agents[-1], _at(raised + 1), neutral,
                 f"depth {raised + 1} under the host depth setting {raised}")
        ctx.drew("ST-06", "own-tool-raised-setting")
        with ctx.step("ST-06", f"setting the host depth to {lowered}"):
            dep.set_host_depth(lowered)
        if lowered > 1:  # a start the lowered setting still admits
            _start(ctx, dep, agents[lowered - 1], f"second {_at(lowered)}", neutral)
        _refused(ctx, "ST-06", dep, agents[lowered], f"second {_at(lowered + 1)}", neutral,
                 f"depth {lowered + 1} under the host depth setting lowered to {lowered}")
        ctx.drew("ST-06", "own-tool-lowered-setting")

    with ctx.expressible("ST-06", "own-tool-raised-setting", "own-tool-lowered-setting"):
        ctx.for_all(SETTINGS, chain, max_examples=1)


def _at(depth: int) -> str:
    """How a start's agent is named by the depth it starts at."""
    return f"agent at depth {depth}"


_MARKER = re.compile(r"\[tck:[^\]\s]*\]")


def _lines(request: ModelRequest) -> list[str]:
    """The request's text as the model reads it, line by line, with the kit's start markers
    made alike (two children differ in their markers alone)."""
    return [_MARKER.sub("[tck]", line).strip()
            for line in request_text(request).splitlines() if line.strip()]


def _child(ctx: CheckContext, dep: Deployment, cap: int, neutral: dict[str, Any]
           ) -> tuple[str, list[ModelRequest]]:
    """A child started with ``maxDepth`` ``cap`` that calls a global tool, then ends: its id
    and its requests as the target sent them."""
    label = marker(ctx, f"cap-{cap}")
    ctx.gateway.script(label, call(TOOL, {}), text("done"))
    with ctx.step("ST-08", f"starting a child with maxDepth {cap}"):
        child = dep.start(start_request(dep.root().agent, provider_name(ctx), f"child {label}",
                                        {"maxDepth": cap, **neutral}))
    return child.agent, ctx.gateway.requests(child.agent, as_sent=True)


@check("ST-08", name="delegation-tool-at-cap-notice", partitions=ST08)
def own_tool_at_cap_notice(ctx: CheckContext) -> None:
    """A child at its cap is told to work directly in its first request, and not told again
    in its later one; with the runtime's context off (where it can be) it is not told, and its
    start is still refused."""
    tool = _own_tool(ctx, "ST-08", ST08)
    if tool is None:
        return
    _inexpressible(ctx, "ST-08", "own-tool-cap-changed", "a cap that changes under a child",
                   tool, "the cap of a call of the runtime's own tool is its start's maxDepth, "
                   "fixed for the child's life")
    neutral = neutral_policy(ctx)
    dep = ctx.deploy(tools=[TOOL])
    _, below = _child(ctx, dep, 2, neutral)
    _, capped = _child(ctx, dep, 1, neutral)
    if len(below) < 1 or len(capped) < 2:
        ctx.fail("ST-08", "the children must each send their requests (a tool call, then an "
                 "answer)", {"below the cap": 2, "at the cap": 2},
                 {"below the cap": len(below), "at the cap": len(capped)})
        return
    usual = set(_lines(below[0]))
    first = [line for line in _lines(capped[0])
             if line not in usual and notices([line])]
    ctx.expect("ST-08", bool(first), "a child at its cap (maxDepth 1) must be told in its "
               "first request to do the work directly (a line a child below its cap, "
               "maxDepth 2, is not given)", "a notice to work directly",
               {"lines only the child at its cap was given": [
                   line for line in _lines(capped[0]) if line not in usual][:20]})
    ctx.drew("ST-08", "own-tool-notice-at-cap")
    if first:
        later = _lines(capped[1])
        counts = {line: (_lines(capped[0]).count(line), later.count(line)) for line in first}
        ctx.expect("ST-08", all(after <= before for before, after in counts.values()),
                   "the notice must not be appended again to the child's later request while "
                   "its cap and depth are unchanged",
                   {line: before for line, (before, _) in counts.items()},
                   {line: after for line, (_, after) in counts.items()})
        ctx.drew("ST-08", "own-tool-notice-once")
    with ctx.expressible("ST-08", "own-tool-runtime-context-off"):
        quiet = ctx.deploy(tools=[TOOL])
        with ctx.step("ST-08", "turning the runtime's context off"):
            quiet.set_runtime_context(False)
        _, plain = _child(ctx, quiet, 2, neutral)
        off, requests = _child(ctx, quiet, 1, neutral)
        usual = {line for request in plain for line in _lines(request)}
        told = [line for request in requests for line in _lines(request)
                if line not in usual and notices([line])]
        ctx.expect("ST-08", not told, "with the runtime's context off, a child at its cap "
                   "must not be told to work directly", [], told)
        _refused(ctx, "ST-08", quiet, off, "grandchild", {"maxDepth": 1, **neutral},
                 "from the child at its cap, the runtime's context off")
        ctx.drew("ST-08", "own-tool-runtime-context-off")
