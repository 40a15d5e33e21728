"""ST-08 at the boundary: an agent whose durable depth *equals* the cap gets the notice.

``subagent-tool-at-cap-notice`` (:mod:`.subagent_tool_calls`) creates its agent at durable
depth 3 under caps 2 and 1, always past the cap, never on it: a tool that sends the notice
only when ``depth > cap`` (an off-by-one on "at the cap", docs/rules.md#st-08) passes it. Here
the cap is drawn (0 to 8, with 0 and 1 always run) and the agent sits exactly on it, so its
next child would be one level too deep: its first request carries one notice naming the cap and
the depth, and the call is refused; an agent one level below the cap gets no notice.

``subagent-tool-notice-only-where-due``: the notice speaks to an agent that can call the tool,
at the tool's cap (docs/rules.md#st-08: "the calling agent's request", "built from the live
cap"; the tool, not the host, contributes it). An agent at its cap that does not see the tool,
because a scope-local tool of the same name shadows it or a live restriction of its scope
denies it, is sent no notice naming a tool it cannot call; beside it an agent at the same cap
that sees the tool still gets one, so a target that never sends a notice cannot pass here by
accident. What the agent sees is read from the target (its lookup of the name): a target that
still offers the hidden agent the tool fails TF-01 or TF-05 elsewhere and owes that agent the
notice here. And a tool loaded with ``maxDepth: "provider-managed"`` has no cap of its own
(docs/rules.md#st-05): no agent, at any depth, is told it is at one.
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from subagent_tck.spec import PROVIDER_MANAGED, SUBAGENT_TOOL_NAME, Origin

from ...core.gateway import text
from ...core.protocol import ToolSpec
from ...core.target import Deployment
from ..check import CheckContext, check
from ..partitions import Partition
from ._nonce import nonce
from ._subagent_driver import Driver, Turn, bound_provider, expect_refused, load, ships_tool
from .subagent_tool_calls import mentions, notices

RULE = "ST-08"
#: Hand-written caps that run at every seed: no delegation at all, and one level.
EXAMPLES = (0, 1)


ON_THE_CAP = tuple(Partition(RULE, f"on-the-cap-{cap}", f"an agent at durable depth {cap} under "
                             f"the live cap {cap}" + (", and one below it" if cap else ""))
                   for cap in EXAMPLES)
#: How an agent at its cap comes not to see the tool: each partition draws the cap (0 to 4).
HIDING = {"shadowed": "its scope-local tool of the same name shadows the subagent tool",
          "denied": "its live restriction denies the subagent tool"}
UNSEEN = tuple(Partition(RULE, f"unseen-{how}", f"an agent at its cap: {what}",
                         cases=st.integers(0, 4)) for how, what in HIDING.items())
NO_CAP = Partition(RULE, "no-cap-provider-managed", "a tool loaded provider-managed (no cap of "
                   "its own), an agent at a drawn durable depth",
                   cases=st.integers(0, 8))


def _at_cap(ctx: CheckContext, provider: str, cap: int, agents: int) -> tuple[
        Deployment, Driver, list[str]]:
    """A deployment with the tool loaded, the host depth ``cap`` and ``agents`` agents at
    durable depth ``cap``: on the cap, so that any child of theirs would be too deep."""
    dep = ctx.deploy()
    load(ctx, dep, RULE, provider)
    who = "an agent" if agents == 1 else f"{agents} agents"
    with ctx.step(RULE, f"{who} at durable depth {cap} under the host depth {cap}"):
        dep.set_host_depth(cap)
        made = [dep.create_agent(header_depth=cap).agent for _ in range(agents)]
    return dep, Driver(ctx, dep), made


def _expect_one_notice(ctx: CheckContext, turn: Turn, cap: int, what: str) -> None:
    # the notice is the context item that says to work directly; other runtime context
    # (a working directory, the time) may sit beside it (docs/rules.md#st-08)
    first = notices(turn.requests[0].context) if turn.requests else []
    ctx.expect(RULE, len(first) == 1 and mentions(first[0], cap),
               f"{what}: the first request must carry one notice to work directly that names "
               f"{cap}", f"one notice naming {cap}", first)


def _expect_no_notice(ctx: CheckContext, turn: Turn, what: str) -> None:
    seen = [found for r in turn.requests if (found := notices(r.context))]
    ctx.expect(RULE, bool(turn.requests) and not seen, f"{what}: no notice", [], seen)


@check(RULE, name="subagent-tool-notice-on-the-cap", partitions=ON_THE_CAP)
def notice_on_the_cap(ctx: CheckContext) -> None:
    """With runtime context on, an agent at durable depth equal to the live cap gets the
    at-cap notice and a refusal; one level below, no notice."""
    info = bound_provider(ctx)
    if not ships_tool(ctx, RULE, ON_THE_CAP):
        return

    def case(cap: int) -> None:
        dep, driver, (on_cap,) = _at_cap(ctx, info.name, cap, 1)
        turn = driver.delegate(on_cap)
        _expect_one_notice(ctx, turn, cap,
                           f"at depth {cap} with the cap {cap} (a child would be too deep)")
        expect_refused(ctx, RULE, turn, f"at depth {cap} with the cap {cap}")
        if cap >= 1:
            with ctx.step(RULE, f"an agent at durable depth {cap - 1}, below the cap"):
                below = dep.create_agent(header_depth=cap - 1).agent
            quiet = driver.turn(below, text(f"below the cap {nonce(ctx, f'below-{cap}')}"))
            _expect_no_notice(ctx, quiet, f"an agent at depth {cap - 1} below the cap {cap}")

    for cap in EXAMPLES:
        case(cap)
        ctx.drew(RULE, f"on-the-cap-{cap}")
    ctx.for_all(st.integers(min_value=0, max_value=8), case)


@check(RULE, name="subagent-tool-notice-only-where-due", partitions=(*UNSEEN, NO_CAP))
def notice_only_where_due(ctx: CheckContext) -> None:
    """An agent at its cap that does not see the subagent tool (shadowed by a local of the
    same name, or denied by its restriction) gets no at-cap notice, an agent at the same cap
    that sees it gets one; a provider-managed tool has no cap to be at."""
    info = bound_provider(ctx)
    if not ships_tool(ctx, RULE, (*UNSEEN, NO_CAP)):
        return

    def case(cap: int, how: str) -> None:
        dep, driver, (hidden, seeing) = _at_cap(ctx, info.name, cap, 2)
        with ctx.step(RULE, f"one agent: {HIDING[how]}"):
            if how == "shadowed":
                dep.register_tool(ToolSpec(name=SUBAGENT_TOOL_NAME,
                                           description=f"local {SUBAGENT_TOOL_NAME}"), hidden)
            else:
                dep.install_restriction(hidden, {"deny": [SUBAGENT_TOOL_NAME]})
        # the notice follows what the agent is offered: a target that still offers it the
        # tool (a filter not applied: TF-01's question, not this rule's) owes it the notice
        entry = dep.lookup(hidden, SUBAGENT_TOOL_NAME)
        quiet = driver.turn(hidden, text(f"unseen {nonce(ctx, f'unseen-{how}-{cap}')}"))
        if entry is not None and entry.origin is Origin.GLOBAL:
            _expect_one_notice(ctx, quiet, cap, f"an agent at depth {cap} under the cap {cap} "
                               f"that the target still offers the tool ({how} for it)")
        else:
            _expect_no_notice(ctx, quiet, f"an agent at depth {cap} under the cap {cap} whose "
                              f"{SUBAGENT_TOOL_NAME} tool is {how} (it cannot call it)")
        told = driver.turn(seeing, text(f"seeing {nonce(ctx, f'seeing-{how}-{cap}')}"))
        _expect_one_notice(ctx, told, cap, f"beside it, an agent at depth {cap} under the cap "
                           f"{cap} that sees the tool")

    # a target without live restrictions leaves the second inexpressible (cover says why)
    for how in HIDING:
        ctx.cover(RULE, functools.partial(case, how=how), names=[f"unseen-{how}"])

    def uncapped(depth: int) -> None:
        dep = ctx.deploy()
        load(ctx, dep, RULE, info.name, maxDepth=PROVIDER_MANAGED)
        with ctx.step(RULE, f"an agent at durable depth {depth}"):
            agent = dep.create_agent(header_depth=depth).agent
        quiet = Driver(ctx, dep).turn(agent, text(f"uncapped {nonce(ctx, f'uncapped-{depth}')}"))
        _expect_no_notice(ctx, quiet, f"an agent at depth {depth} whose {SUBAGENT_TOOL_NAME} "
                          "tool is provider-managed (the tool has no cap)")

    ctx.cover(RULE, uncapped, names=[NO_CAP.name])
