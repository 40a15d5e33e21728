"""The ``subagent`` tool as an entry point of each edition (EN-02, EN-03, component
``subagent-tool``).

In the request-controls edition the tool's own configuration carries ``persona`` and
``toolFilter`` for every child it starts (docs/rules.md#en-03): the child is composed
by them as the PE and TF rules say, gated by the bound provider's capabilities. The persona is a
per-case nonce the kit sends nowhere else, so only a child composed with it can show it; the
filter denies one global tool and the child's first request must not offer it.

In the preset-composition edition the same configuration is a request override that every
start the tool makes would carry (docs/rules.md#en-02): the load is refused, or, where the
target accepts it, every call of the tool is (an errored result, no child); a child composed
by the tool's persona or filter never runs.
"""

from __future__ import annotations

from typing import Any

from subagent_tck.spec import (
    PROVIDER_MANAGED,
    SUBAGENT_TOOL_NAME,
    Capability,
    Component,
    Edition,
    ErrorCode,
    TckError,
)

from ...core.gateway import text
from ...core.protocol import ProviderInfo, SubagentToolConfig
from ..check import TARGET_FAULTS, CheckContext, check
from ..partitions import Partition
from ._nonce import nonce
from ._subagent_driver import (
    Driver,
    bound_provider,
    expect_child_ran,
    load,
    presence,
)

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
    fields["maxDepth"] = _cap(info)
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


def _cap(info: ProviderInfo) -> Any:
    """The tool's own cap (or none sent, 'provider-managed', ST-05): the host's depth setting
    is ST-06's subject, not EN-02's or EN-03's."""
    return 2 if Capability.DEPTH_LIMIT in info.capabilities else PROVIDER_MANAGED


TOOL_OVERRIDES = (
    Partition("EN-02", "tool-persona-refused", "a tool loaded with a persona: the load refused, "
              "or every call of it, no child"),
    Partition("EN-02", "tool-filter-refused", "a tool loaded with a toolFilter: the same"),
)


@check("EN-02", name="subagent-tool-overrides-refused", edition=Edition.PRESET_COMPOSITION,
       partitions=TOOL_OVERRIDES)
def tool_overrides_refused(ctx: CheckContext) -> None:
    """A subagent tool configured with persona or toolFilter starts no child composed by them
    in the preset-composition edition: its load is refused, else each of its calls is."""
    if Component.SUBAGENT_TOOL not in ctx.target.info().components:
        ctx.skip("EN-02", "the target has no subagent tool (component subagent-tool)")
        return
    info = bound_provider(ctx)
    overrides = (("persona", f"TOOL-PERSONA {nonce(ctx, 'persona')}: review only.",
                  Capability.PERSONA, "tool-persona-refused"),
                 ("toolFilter", {"deny": [GLOBALS[1]]}, Capability.TOOL_FILTER,
                  "tool-filter-refused"))
    for field, value, capability, part in overrides:
        # a control the provider lacks may be refused as that too (CA-01), at load or per call
        codes = {ErrorCode.REQUEST_CONTROLS_REFUSED}
        if capability not in info.capabilities:
            codes.add(ErrorCode.UNSUPPORTED_CAPABILITY)
        dep = ctx.deploy(tools=list(GLOBALS), persona=DEPLOYMENT_PERSONA)
        root = dep.root().agent
        what = f"a subagent tool loaded with {field} {value!r} in the preset-composition edition"
        config = SubagentToolConfig(provider=info.name, maxDepth=_cap(info), **{field: value})
        try:
            dep.load_subagent_tool(config)
        except TckError as exc:
            if exc.code in TARGET_FAULTS:
                ctx.target_fault("EN-02", f"loading {what}", exc)
            wanted = " or ".join(sorted(c.value for c in codes))
            ctx.expect("EN-02", exc.code in codes, f"loading {what}: refused with "
                       f"{exc.code.value}, expected {wanted}", wanted, exc.to_json())
            seen = presence(dep, root, SUBAGENT_TOOL_NAME)
            ctx.expect("EN-02", not any(seen.values()), f"the refused load of {what} leaves "
                       "no tool behind", {k: False for k in seen}, seen)
        else:
            turn = Driver(ctx, dep).delegate(root)  # a child scripted, not required to run
            message = turn.tool_message
            ctx.expect("EN-02", message is not None and message.isError,
                       f"a call of {what}, whose load was accepted, gives an errored result",
                       {"isError": True}, None if message is None else message.model_dump())
            # the child that ran is the verdict; when its session is listed is the target's
            # timing (DSH writes it after the turn), so sessions are not compared here
            ran = {"child model requests": len(turn.child_agents),
                   "agents published": sorted(turn.new_published)}
            ctx.expect("EN-02", not turn.child_agents and not turn.new_published,
                       f"a call of {what}, whose load was accepted, starts no child",
                       {"child model requests": 0, "agents published": []}, ran)
        ctx.drew("EN-02", part)
