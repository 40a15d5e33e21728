"""ST-08 at the boundary: an agent whose durable depth *equals* the cap gets the notice.

``subagent-tool-at-cap-notice`` (:mod:`.subagent_tool_calls`) creates its agent at durable
depth 3 under caps 2 and 1, always past the cap, never on it: a tool that sends the notice
only when ``depth > cap`` (an off-by-one on "at the cap", docs/rules.md#st-08) passes it. Here
the cap is drawn (0 to 8, with 0 and 1 always run) and the agent sits exactly on it, so its
next child would be one level too deep: its first request carries one notice naming the cap and
the depth, and the call is refused; an agent one level below the cap gets no notice.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ...core.gateway import text
from ..check import CheckContext, check
from ..partitions import Partition
from ._nonce import nonce
from ._subagent_driver import Driver, bound_provider, expect_refused, load, ships_tool
from .subagent_tool_calls import mentions, notices

RULE = "ST-08"
#: Hand-written caps that run at every seed: no delegation at all, and one level.
EXAMPLES = (0, 1)


ON_THE_CAP = tuple(Partition(RULE, f"on-the-cap-{cap}", f"an agent at durable depth {cap} under "
                             f"the live cap {cap}" + (", and one below it" if cap else ""))
                   for cap in EXAMPLES)


@check(RULE, name="subagent-tool-notice-on-the-cap", partitions=ON_THE_CAP)
def notice_on_the_cap(ctx: CheckContext) -> None:
    """With runtime context on, an agent at durable depth equal to the live cap gets the
    at-cap notice and a refusal; one level below, no notice."""
    info = bound_provider(ctx)
    if not ships_tool(ctx, RULE, ON_THE_CAP):
        return

    def case(cap: int) -> None:
        dep = ctx.deploy()
        load(ctx, dep, RULE, info.name)
        driver = Driver(ctx, dep)
        with ctx.step(RULE, f"an agent at durable depth {cap} under the host depth {cap}"):
            dep.set_host_depth(cap)
            on_cap = dep.create_agent(header_depth=cap).agent
        turn = driver.delegate(on_cap)
        # the notice is the context item that says to work directly; other runtime context
        # (a working directory, the time) may sit beside it (docs/rules.md#st-08)
        first = notices(turn.requests[0].context) if turn.requests else []
        ctx.expect(
            RULE,
            len(first) == 1 and mentions(first[0], cap),
            f"at depth {cap} with the cap {cap} (a child would be too deep) the first request "
            f"must carry one notice to work directly that names {cap}",
            f"one notice naming {cap}", first,
        )
        expect_refused(ctx, RULE, turn, f"at depth {cap} with the cap {cap}")
        if cap >= 1:
            with ctx.step(RULE, f"an agent at durable depth {cap - 1}, below the cap"):
                below = dep.create_agent(header_depth=cap - 1).agent
            quiet = driver.turn(below, text(f"below the cap {nonce(ctx, f'below-{cap}')}"))
            seen = [found for r in quiet.requests if (found := notices(r.context))]
            ctx.expect(RULE, bool(quiet.requests) and not seen,
                       f"an agent at depth {cap - 1} below the cap {cap} gets no notice", [],
                       seen)

    for cap in EXAMPLES:
        case(cap)
        ctx.drew(RULE, f"on-the-cap-{cap}")
    ctx.for_all(st.integers(min_value=0, max_value=8), case)
