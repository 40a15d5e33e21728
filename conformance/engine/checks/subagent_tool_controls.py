"""The ``subagent`` tool as a request-controls entry point (EN-03, component ``subagent-tool``).

In the request-controls edition the tool's own configuration carries ``persona`` and
``toolFilter`` for every child it starts (docs/rules.md#en-03): the child is composed
by them as the PE and TF rules say, gated by the bound provider's capabilities. The persona is a
per-case nonce the kit sends nowhere else, so only a child composed with it can show it; the
filter denies one global tool and the child's first request must not offer it.
"""

from __future__ import annotations

from subagent_tck.spec import PROVIDER_MANAGED, Capability, Component, Edition

from ...core.gateway import text
from ..check import CheckContext, check
from ..partitions import Partition
from ._nonce import nonce
from ._subagent_driver import Driver, bound_provider, expect_child_ran, load

GLOBALS = ("read", "write", "search")
DEPLOYMENT_PERSONA = "DEPLOYMENT-PERSONA of the tool check"


TOOL_CONTROLS = (
    Partition("EN-03", "tool-persona", "the tool's configured persona composes its child"),
    Partition("EN-03", "tool-filter", "the tool's configured filter composes its child"),
)


@check("EN-03", name="subagent-tool-request-controls", edition=Edition.REQUEST_CONTROLS,
       partitions=TOOL_CONTROLS)
def tool_request_controls(ctx: CheckContext) -> None:
    """The tool's configured persona and toolFilter compose each child it starts."""
    if Component.SUBAGENT_TOOL not in ctx.target.info().components:
        ctx.skip("EN-03", "the target has no subagent tool (component subagent-tool)")
        return
    info = bound_provider(ctx)
    fields: dict[str, object] = {}
    persona = f"TOOL-PERSONA {nonce(ctx, 'persona')}: review only."
    if Capability.PERSONA in info.capabilities:
        fields["persona"] = persona
    else:
        ctx.inapplicable("EN-03", "tool-persona")
    if Capability.TOOL_FILTER in info.capabilities:
        fields["toolFilter"] = {"deny": ["write"]}
    else:
        ctx.inapplicable("EN-03", "tool-filter")
    if not fields:
        ctx.skip("EN-03", "the provider advertises neither persona nor toolFilter (CA-01 "
                 "decides that it refuses them)")
        return
    # The tool's own cap (or none sent, 'provider-managed', ST-05): the host's depth setting is
    # ST-06's subject, not EN-03's.
    fields["maxDepth"] = 2 if Capability.DEPTH_LIMIT in info.capabilities else PROVIDER_MANAGED
    dep = ctx.deploy(tools=list(GLOBALS), persona=DEPLOYMENT_PERSONA)
    root = dep.root().agent
    load(ctx, dep, "EN-03", info.name, **fields)
    turn = Driver(ctx, dep).delegate(root, child=(text(f"child done {nonce(ctx, 'child')}"),))
    if not expect_child_ran(ctx, "EN-03", turn, "a call of the tool configured with controls"):
        return
    requests = ctx.gateway.requests(turn.child_agents[0])
    first = requests[0] if requests else None
    if "persona" in fields:
        system = first.system if first else None
        ctx.expect(
            "EN-03",
            system is not None and persona in system and DEPLOYMENT_PERSONA not in system,
            "the child's first request carries the tool's configured persona in place of the "
            "deployment persona (PE-01)",
            persona,
            system,
        )
        ctx.drew("EN-03", "tool-persona")
    if "toolFilter" in fields:
        offered = sorted(t.name for t in first.tools) if first else None
        ctx.expect(
            "EN-03",
            offered is not None and "write" not in offered
            and {"read", "search"} <= set(offered),
            "the child's first request offers the globals the tool's configured toolFilter "
            "admits (deny write: read and search, not write)",
            ["read", "search", "..."],
            offered,
        )
        ctx.drew("EN-03", "tool-filter")
