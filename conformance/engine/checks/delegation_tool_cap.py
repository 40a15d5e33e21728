"""ST-07 for a runtime's own delegation tool (docs/rules.md#ST-07), per provider that names one
(``ProviderInfo.delegationTool``: Claude Code's ``Agent``) and advertises ``depthLimit``.

A target that ships the kit's ``subagent`` tool is judged on that tool
(subagent_tool_calls.py). A runtime whose model delegates through a tool of its own answers the
same question with it: at the cap the tool stays visible, a call gets an errored result, and no
child is published. The cap here is a start's ``maxDepth``: a child started with ``maxDepth`` 1
is at its cap; it is read in every request it sends (it calls a global tool first, so that it
sends two), as the target sent them (the tool is the target's own:
docs/certify.md#tools-the-target-brings), and a start it makes under the same cap (its own
``maxDepth`` 1: the kit's cap is a start's, docs/rules.md#DE-03) is a call of the tool at the
cap.
"""

from __future__ import annotations

from subagent_tck.spec import TckError

from ...core.gateway import call, text
from ...core.target import Deployment
from ...core.unsupported import Unsupported
from ..check import TARGET_FAULTS, CheckContext, check
from ..partitions import Partition
from ..planning import delegates
from ._starts import marker, neutral_policy, provider_name, start_request

AT_CAP = Partition("ST-07", "own-tool-child-at-the-cap", "a child started with maxDepth 1, at "
                   "its cap: offered the provider's own delegation tool in every request, its "
                   "start refused, no grandchild")
#: The global tool the child calls before it ends (no case reads it).
TOOL = "tool_a"


@check("ST-07", name="delegation-tool-at-cap", partitions=(AT_CAP,))
def own_tool_at_cap(ctx: CheckContext) -> None:
    """A child at its cap (started with maxDepth 1) is still offered the provider's own
    delegation tool in every request, and a start it makes is refused, with no grandchild.
    Each start carries a spawn policy that refuses nothing where the provider advertises
    spawnPolicy (opencode gives a subagent ``task`` only when its definition has a task rule).
    First a child below its cap (maxDepth 2) must be offered the tool: where even that one is
    not, the cap is not what withholds it, and the partition is inexpressible, with the
    reason."""
    assert ctx.provider is not None, "ST-07 runs per provider"
    tool = ctx.provider.delegationTool
    if not tool or not delegates(ctx.target.info(), ctx.provider):
        ctx.inapplicable("ST-07", AT_CAP.name)
        return
    provider = provider_name(ctx)
    neutral = neutral_policy(ctx)

    def offered(dep: Deployment, cap: int) -> tuple[str, list[bool]]:
        """A child started with ``maxDepth`` ``cap``, and whether each of its requests offers
        the tool."""
        label = marker(ctx, f"cap-{cap}")
        ctx.gateway.script(label, call(TOOL, {}), text("done"))
        with ctx.step("ST-07", f"starting a child with maxDepth {cap}"):
            child = dep.start(start_request(dep.root().agent, provider, f"child {label}",
                                            {"maxDepth": cap, **neutral}))
        return child.agent, [any(t.name == tool for t in request.tools)
                             for request in ctx.gateway.requests(child.agent, as_sent=True)]

    with ctx.expressible("ST-07", AT_CAP.name):
        _, below = offered(ctx.deploy(tools=[TOOL]), 2)
        if not below or not all(below):
            raise Unsupported("a child offered its delegation tool below its cap", tool,
                              f"a child started with maxDepth 2 was offered {tool} in "
                              f"{sum(below)} of its {len(below)} requests, so the cap is not "
                              "what withholds it")
        dep = ctx.deploy(tools=[TOOL])
        child, shown = offered(dep, 1)
        ctx.expect("ST-07", len(shown) >= 2 and all(shown),
                   f"a child at its cap (maxDepth 1) must be offered {tool} in every request, "
                   "as one below its cap (maxDepth 2) is", {"offered": [True, True]},
                   {"offered": shown})
        grand = marker(ctx, "grandchild")
        ctx.gateway.script(grand, text("grandchild done"), required=False)
        what = "a start from the child at its cap (a call of the tool)"
        try:
            dep.start(start_request(child, provider, f"grandchild {grand}",
                                    {"maxDepth": 1, **neutral}))
        except TckError as exc:
            if exc.code in TARGET_FAULTS:
                ctx.target_fault("ST-07", what, exc)
        else:
            ctx.fail("ST-07", f"{what}: accepted, expected an errored result", "refused",
                     "accepted")
        ctx.expect("ST-07", not ctx.gateway.agents_for(grand),
                   f"{what}: no grandchild may run", "no grandchild", "a grandchild ran")
        ctx.drew("ST-07", AT_CAP.name)
