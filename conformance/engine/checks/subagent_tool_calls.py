"""ST: calls of the ``subagent`` tool (component ``subagent-tool``), ST-06..ST-09.

The live default cap (ST-06), the errored result at the cap (ST-07), the at-cap notice (ST-08)
and the run's lifecycle (ST-09). The shared driver is :mod:`._subagent_driver`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from subagent_tck.spec import (
    INITIAL_HOST_DEPTH,
    SUBAGENT_TOOL_NAME,
    Capability,
    StopReason,
)

from ...core.gateway import call, text
from ...core.protocol import ModelReply, ModelRequest
from ...core.unsupported import Unsupported
from ..check import CheckContext, check
from ..partitions import Partition
from ._nonce import nonce
from ._subagent_driver import (
    Driver,
    Turn,
    bound_provider,
    expect_child_ran,
    expect_refused,
    load,
    presence,
    ships_tool,
)
from ._tool_arguments import extra_parameters

#: What makes a runtime-context item the at-cap notice: it tells the agent to do the work
#: directly (docs/rules.md#st-08). Other runtime context (a working directory, the time) may sit
#: beside it; the rule speaks of the notice only.
_WORK_DIRECTLY = re.compile(
    r"\bdirect(ly)?\b|yourself|(not|n't|no longer) (delegate|start|spawn)", re.I)


# --- ST-06 ---------------------------------------------------------------------------------


ST06 = (Partition("ST-06", "initial-setting", "the host setting at its initial 1"),
        Partition("ST-06", "raised-setting", "the setting raised to 2, read at the next call"),
        Partition("ST-06", "dropped-mid-turn", "the setting dropped to 0 during a turn"))


@check("ST-06", name="subagent-tool-live-default-cap", partitions=ST06)
def live_default_cap(ctx: CheckContext) -> None:
    """Without maxDepth the cap is the host's live setting, initially 1, read at each call."""
    info = bound_provider(ctx)
    if not ships_tool(ctx, "ST-06", ST06):
        return
    dep = ctx.deploy()  # the host depth setting left at its initial value
    root = dep.root().agent
    load(ctx, dep, "ST-06", info.name)
    driver = Driver(ctx, dep)

    def nested(cap: int) -> None:
        grand, arguments = driver.child()
        child_replies = (call(SUBAGENT_TOOL_NAME, arguments, "call-grand"),
                         text(f"child done {nonce(ctx, f'nested-{cap}')}"))
        turn = driver.delegate(root, child=child_replies)
        if not expect_child_ran(ctx, "ST-06", turn, f"depth 1 child with the setting {cap}"):
            return
        child_requests = ctx.gateway.requests(turn.child_agents[0])
        results = [m for r in child_requests for m in r.messages
                   if m.role == "tool" and m.toolCallId == "call-grand"]
        grand_ran = bool(ctx.gateway.agents_for(grand))
        allowed = cap >= 2
        ctx.expect(
            "ST-06",
            bool(results) and results[0].isError != allowed and grand_ran == allowed,
            f"with the host depth setting {cap}, a call from the depth-1 child must "
            f"{'start' if allowed else 'be refused (errored result, no grandchild)'}",
            {"isError": not allowed, "grandchild ran": allowed},
            {"tool message": results[0].model_dump() if results else None,
             "grandchild ran": grand_ran},
        )

    nested(INITIAL_HOST_DEPTH)
    ctx.drew("ST-06", "initial-setting")
    with ctx.step("ST-06", "setting the host depth to 2"):
        dep.set_host_depth(2)
    nested(2)
    ctx.drew("ST-06", "raised-setting")
    with ctx.step("ST-06", "setting the host depth to 1"):
        dep.set_host_depth(1)
    turn = driver.delegate(root, before_call=lambda: dep.set_host_depth(0))
    expect_refused(ctx, "ST-06", turn, "a call after the setting dropped to 0 mid-turn")
    ctx.drew("ST-06", "dropped-mid-turn")


# --- ST-07 ---------------------------------------------------------------------------------


ST07 = (Partition("ST-07", "call-at-the-cap", "a call at the cap: visible, errored, no child"),
        Partition("ST-07", "extra-parameters", "calls with the offered schema's parameters "
                  "beyond description and prompt"),
        Partition("ST-07", "child-at-the-cap", "a depth-1 child at the cap 1: offered the "
                  "tool, its call errored"))


@check("ST-07", name="subagent-tool-at-cap-result", partitions=ST07)
def at_cap_result(ctx: CheckContext) -> None:
    """At the cap the tool stays visible and every call it admits gives an errored result, no
    child.

    The cap is the tool's own ``maxDepth`` where the provider advertises ``depthLimit``, else
    the host's depth setting: how the cap is set is ST-05/ST-06's subject, not ST-07's. The rule
    names no error code, so none is required of the errored result (docs/rules.md#ST-07). "A
    call" is any call the schema the model was offered admits: parameters beyond description
    and prompt are drawn from that schema (:mod:`._tool_arguments`)."""
    info = bound_provider(ctx)
    if not ships_tool(ctx, "ST-07", ST07):
        return
    own_cap = Capability.DEPTH_LIMIT in info.capabilities
    host_depth = 5 if own_cap else 0
    tool: dict[str, Any] = {"maxDepth": 0} if own_cap else {}
    where = f"host depth {host_depth}, tool config {tool}"

    def at_cap(extra: dict[str, Any], first: bool = False) -> Turn:
        dep = ctx.deploy(hostDepth=host_depth)
        root = dep.root().agent
        load(ctx, dep, "ST-07", info.name, **tool)
        if first:
            seen = presence(dep, root, SUBAGENT_TOOL_NAME)
            ctx.expect("ST-07", all(seen.values()), f"{where}: the tool must stay visible at "
                       "the cap", "visible", seen)
        turn = Driver(ctx, dep).delegate(root, extra=extra)
        offered = [r for r in turn.requests if any(t.name == SUBAGENT_TOOL_NAME for t in r.tools)]
        ctx.expect("ST-07", len(offered) == len(turn.requests) >= 2, f"{where}: every request "
                   "of the turn must offer the tool", len(turn.requests), len(offered))
        called = f" with {extra!r} beside description and prompt" if extra else ""
        expect_refused(ctx, "ST-07", turn, f"{where}: a call at the cap{called}")
        return turn

    turn = at_cap({}, first=True)
    ctx.drew("ST-07", "call-at-the-cap")
    # the schema the model was offered in the turn's first request, not what the driver lists
    offered = next((t for r in turn.requests[:1] for t in r.tools
                    if t.name == SUBAGENT_TOOL_NAME), None)
    extras = extra_parameters(offered.parameters if offered is not None else {})
    if extras.names or extras.undrawable:
        ctx.note = (f"ST-07 drew the extra parameter(s) {', '.join(extras.names) or 'none'} "
                    "of the offered schema" + (f"; not drawable: {', '.join(extras.undrawable)}"
                                               if extras.undrawable else ""))
    if extras.names:
        for example in extras.examples():
            at_cap(example)
        ctx.drew("ST-07", "extra-parameters")

        def drawn(extra: dict[str, Any]) -> None:
            at_cap(extra)

        ctx.for_all(extras.strategy(), drawn)
    else:
        ctx.inapplicable("ST-07", "extra-parameters")
    # A child started at the cap (cap 1, child depth 1) is offered the tool too.
    dep = ctx.deploy(hostDepth=5) if own_cap else ctx.deploy()
    root = dep.root().agent
    load(ctx, dep, "ST-07", info.name, **({"maxDepth": 1} if own_cap else {}))
    driver = Driver(ctx, dep)
    grand, arguments = driver.child()
    turn = driver.delegate(
        root, child=(call(SUBAGENT_TOOL_NAME, arguments, "call-grand"),
                     text(f"child done {nonce(ctx, 'at-cap-child')}"))
    )
    if not expect_child_ran(ctx, "ST-07", turn, "a depth-1 child at the cap 1"):
        return
    requests = ctx.gateway.requests(turn.child_agents[0])
    shown = [any(t.name == SUBAGENT_TOOL_NAME for t in r.tools) for r in requests]
    results = [m for r in requests for m in r.messages
               if m.role == "tool" and m.toolCallId == "call-grand"]
    ctx.expect(
        "ST-07",
        len(shown) >= 2 and all(shown) and bool(results) and results[0].isError
        and not ctx.gateway.agents_for(grand),
        "a child at the cap must be offered the tool in every request, and its call must give "
        "an errored result without starting a grandchild",
        {"offered": [True, True], "isError": True, "grandchild ran": False},
        {"offered": shown, "tool message": results[0].model_dump() if results else None,
         "grandchild ran": bool(ctx.gateway.agents_for(grand))},
    )
    ctx.drew("ST-07", "child-at-the-cap")


# --- ST-08 ---------------------------------------------------------------------------------


def mentions(notice: str, number: int) -> bool:
    return re.search(rf"(?<![\d.]){number}(?![\d.]\d|\d)", notice) is not None


def notices(context: Sequence[str]) -> list[str]:
    """The at-cap notices among a request's runtime-context items."""
    return [item for item in context if _WORK_DIRECTLY.search(item)]


def _quiet(turn: Turn) -> bool:
    """The turn made requests and none of them carried an at-cap notice."""
    return bool(turn.requests) and not any(notices(r.context) for r in turn.requests)


def _notices_of(turn: Turn) -> list[list[str]]:
    return [notices(r.context) for r in turn.requests]


ST08 = (Partition("ST-08", "notice-once", "at the cap: one notice, not repeated"),
        Partition("ST-08", "cap-changed", "a new notice when the cap changes"),
        Partition("ST-08", "below-the-cap", "no notice below the cap"),
        Partition("ST-08", "runtime-context-off", "no notice with runtime context off, the "
                  "guard still refuses"))


@check("ST-08", name="subagent-tool-at-cap-notice", partitions=ST08)
def at_cap_notice(ctx: CheckContext) -> None:
    """At the cap a notice comes once per (cap, depth), from live values; none when runtime
    context is off, where the guard still refuses."""
    info = bound_provider(ctx)
    if not ships_tool(ctx, "ST-08", ST08):
        return
    dep = ctx.deploy()
    load(ctx, dep, "ST-08", info.name)
    driver = Driver(ctx, dep)
    root = dep.root().agent
    with ctx.step("ST-08", "creating an agent with durable depth 3"):
        deep = dep.create_agent(header_depth=3).agent
        dep.set_host_depth(2)

    def expect_notice(turn: Turn, cap: int, when: str) -> None:
        context = list(turn.requests[0].context) if turn.requests else []
        first = notices(context)
        ctx.expect(
            "ST-08",
            len(first) == 1 and mentions(first[0], cap) and mentions(first[0], 3),
            f"{when}: the calling agent's request must carry a notice to do the work directly, "
            f"built from the live cap {cap} and the durable depth 3",
            f"one notice naming {cap} and 3",
            context,
        )
        later = [notices(r.context) for r in turn.requests[1:]]
        ctx.expect("ST-08", not any(later), f"{when}: the notice must not be appended again "
                   "while the cap and depth are unchanged", [], later)

    turn = driver.delegate(deep)
    expect_notice(turn, 2, "at the cap 2 with depth 3")
    expect_refused(ctx, "ST-08", turn, "at the cap with runtime context on")
    again = driver.turn(deep, text(f"still here {nonce(ctx, 'still')}"))
    ctx.expect("ST-08", _quiet(again), "a later turn with the "
               "same cap and depth must carry no new notice", [],
               _notices_of(again))
    ctx.drew("ST-08", "notice-once")
    with ctx.step("ST-08", "setting the host depth to 1"):
        dep.set_host_depth(1)
    expect_notice(driver.turn(deep, text(f"again {nonce(ctx, 'again')}")), 1,
                  "after the cap changed to 1")
    ctx.drew("ST-08", "cap-changed")
    below = driver.turn(root, text(f"root works {nonce(ctx, 'below')}"))
    ctx.expect("ST-08", _quiet(below), "an agent below the cap "
               "must get no notice", [], _notices_of(below))
    ctx.drew("ST-08", "below-the-cap")
    with ctx.step("ST-08", "disabling runtime context and setting the host depth to 2"):
        try:
            dep.set_runtime_context(False)
        except Unsupported as exc:
            # optional only for a runtime's own context: the tool's is the rule's to switch
            ctx.fail("ST-08", "a target that ships the subagent tool must let its runtime "
                     "context be switched off (set-runtime-context)", "accepted", exc.reason)
            return
        dep.set_host_depth(2)
    quiet = driver.delegate(deep)
    ctx.expect("ST-08", _quiet(quiet), "with runtime context "
               "disabled there is no notice", [], _notices_of(quiet))
    expect_refused(ctx, "ST-08", quiet, "at the cap with runtime context off")
    ctx.drew("ST-08", "runtime-context-off")


# --- ST-09 ---------------------------------------------------------------------------------


ST09 = (Partition("ST-09", "completed", "a completed child: its output is the result"),
        *(Partition("ST-09", f"stopped-{r.value.replace('_', '-')}", f"a child stopped with "
                    f"{r.value}: an errored result, the run disposed")
          for r in StopReason if r is not StopReason.COMPLETED),
        Partition("ST-09", "aborted-by-the-tool", "the tool's abort cancels the child's run"))


@check("ST-09", name="subagent-tool-run-lifecycle", partitions=ST09)
def run_lifecycle(ctx: CheckContext) -> None:
    """Runs are disposed after completed, failed and aborted children; the tool's abort
    cancels the run; a non-completed stop is an errored result naming the reason."""
    info = bound_provider(ctx)
    if not ships_tool(ctx, "ST-09", ST09):
        return
    dep = ctx.deploy(tools=["probe"])
    root = dep.root().agent
    load(ctx, dep, "ST-09", info.name)
    driver = Driver(ctx, dep)
    live: list[bool] = []

    def watched(reply: ModelReply) -> Callable[[ModelRequest], ModelReply]:
        def step(request: ModelRequest) -> ModelReply:
            live.append(request.agent in dep.agents())
            return reply

        return step

    def delegate(*child: Any) -> Turn:
        live.clear()
        return driver.delegate(root, child=child)

    def expect_disposed(turn: Turn, what: str) -> None:
        child = turn.child_agents[0] if turn.child_agents else None
        after = child is not None and child in dep.agents()
        ctx.expect(
            "ST-09",
            child is not None and live[-1:] == [True] and not after,
            f"{what}: every run the tool starts is disposed on every path: the child must be "
            "published while it runs and gone once the call returns",
            {"child ran": True, "published while running": True, "published after": False},
            {"child ran": child is not None, "published while running": live[-1:] == [True],
             "published after": after},
        )

    done = nonce(ctx, "completed")
    turn = delegate(watched(text(f"child output {done}")))
    expect_child_ran(ctx, "ST-09", turn, "a completed child")
    ctx.expect("ST-09", done in turn.content, "a completed run's output is the "
               "tool result", done, turn.content)
    expect_disposed(turn, "completed")
    ctx.drew("ST-09", "completed")
    for reason in (r for r in StopReason if r is not StopReason.COMPLETED):
        # The reply's text is a nonce (never the reason's word): the rule observes isError, and
        # "how the result's text describes the reason is the runtime's" (docs/rules.md#ST-09).
        reply = ModelReply(text=f"partial {nonce(ctx, reason.value)}", stopReason=reason)
        turn = delegate(watched(reply))
        message = turn.tool_message
        ctx.expect(
            "ST-09",
            message is not None and message.isError,
            f"a stop reason other than completed ({reason.value}) yields an error tool result "
            "(isError), "
            "not its partial output as success",
            {"isError": True},
            None if message is None else message.model_dump(),
        )
        expect_disposed(turn, reason.value)
        ctx.drew("ST-09", f"stopped-{reason.value.replace('_', '-')}")
    # The tool's abort signal: abort the caller's turn while the child waits for its model.
    probe = call("probe", {}, "call-probe")

    def abort_then_continue(request: ModelRequest) -> ModelReply:
        live.append(request.agent in dep.agents())
        dep.abort_turn(root)
        return probe

    turn = delegate(abort_then_continue)
    child = turn.child_agents[0] if turn.child_agents else None
    went_on = [] if child is None else ctx.gateway.requests(child)[1:]
    probed = [i for i in dep.invocations() if i.tool == "probe"]
    ctx.expect(
        "ST-09",
        child is not None and not went_on and not probed,
        "aborting the tool must cancel the child's run: no further tool call or request",
        {"child requests after abort": 0, "probe calls": 0},
        {"child ran": child is not None, "child requests after abort": len(went_on),
         "probe calls": len(probed)},
    )
    expect_disposed(turn, "aborted by the tool's signal")
    results = [r.isError for r in turn.result.toolResults]
    if turn.tool_message is not None:
        results.append(turn.tool_message.isError)
    ctx.expect(
        "ST-09",
        bool(results) and all(results),
        "an aborted call must give an errored tool result, never output as success",
        {"isError": True},
        {"toolResults": [r.model_dump() for r in turn.result.toolResults],
         "tool message": None if turn.tool_message is None else turn.tool_message.model_dump()},
    )
    ctx.drew("ST-09", "aborted-by-the-tool")
